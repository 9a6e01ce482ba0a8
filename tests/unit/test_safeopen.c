/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Opening files a hostile user controls (core/base/safeopen.c), on real files in a
 * mkdtemp directory: symlinks, FIFOs, devices, hard links, bad modes, wrong
 * owners, oversized files, and symlinks swapped into a path.
 *
 * Runs as root (CI) and as a normal user; the cases that need another owner
 * chown to 65534 as root, or pass a uid that is not the file's otherwise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bwshcore.h"
#include "unit.h"

/* Every path here is a short mkdtemp name under /tmp plus a few elements;
 * GCC cannot know that and warns about PATH_MAX buffers. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define SECRET "SECRET-TOKEN-7f3a"
#define NOBODY ((uid_t) 65534)

typedef struct
{
  char dir[PATH_MAX];
} Fixture;

static void
path_join (char *buf, const Fixture *f, const char *name)
{
  int n = snprintf (buf, PATH_MAX, "%s/%s", f->dir, name);
  assert_true (n > 0 && n < PATH_MAX);
}

static void
write_file (const char *path, const char *content, size_t len, mode_t mode)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  assert_true (fd >= 0);
  assert_int_equal (write (fd, content, len), (ssize_t) len);
  assert_int_equal (fchmod (fd, mode), 0);
  close (fd);
}

static int
rm_rf (const char *path)
{
  return unit_rm_rf (path);
}

static int
setup (void **state)
{
  Fixture *f = calloc (1, sizeof *f);
  if (f == NULL)
    return -1;
  snprintf (f->dir, sizeof f->dir, "/tmp/bwsh-unit-safeopen-XXXXXX");
  if (mkdtemp (f->dir) == NULL)
    return -1;
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  Fixture *f = *state;
  int r = rm_rf (f->dir);
  free (f);
  return r == 0 ? 0 : -1;
}

static void
on_alarm (int sig)
{
  (void) sig;
  /* A blocked open/read on a FIFO: fail loudly instead of hanging ctest. */
  static const char msg[] = "timeout: reading a FIFO blocked\n";
  (void) !write (2, msg, sizeof msg - 1);
  _exit (99);
}

/* ------------------------------------------------ bwsh_read_file_checked */

typedef enum
{
  MAKE_REGULAR,       /* 0644, @size bytes */
  MAKE_MISSING,
  MAKE_SYMLINK,       /* to a good regular file */
  MAKE_FIFO,
  MAKE_DIRECTORY,
  MAKE_GROUP_WRITABLE,
  MAKE_WORLD_WRITABLE,
  MAKE_HARDLINK,
  MAKE_DEVICE,        /* /dev/null itself */
} MakeKind;

typedef struct
{
  const char *name;
  MakeKind make;
  size_t size;
  BwshOwnerRule rule;
  bool uid_other;      /* pass a uid that does not own the file */
  bool chown_nobody;   /* as root: the file belongs to 65534 */
  int r;
  const char *msg;     /* substring of the error message */
} ReadCase;

static const ReadCase read_cases[] = {
  { "regular file of the user", MAKE_REGULAR, 100, BWSH_OWNER_USER, false, false, 0, NULL },
  { "exactly the size cap", MAKE_REGULAR, 4096, BWSH_OWNER_USER, false, false, 0, NULL },
  { "empty file", MAKE_REGULAR, 0, BWSH_OWNER_USER, false, false, 0, NULL },
  { "one byte over the cap", MAKE_REGULAR, 4097, BWSH_OWNER_USER, false, false, -EFBIG, "larger than 4096" },
  { "missing", MAKE_MISSING, 0, BWSH_OWNER_USER, false, false, -ENOENT, NULL },
  { "symlink to a good file", MAKE_SYMLINK, 10, BWSH_OWNER_USER, false, false, -ELOOP, "symbolic link" },
  { "FIFO", MAKE_FIFO, 0, BWSH_OWNER_USER, false, false, -EINVAL, "a FIFO" },
  { "directory", MAKE_DIRECTORY, 0, BWSH_OWNER_USER, false, false, -EINVAL, "a directory" },
  { "device", MAKE_DEVICE, 0, BWSH_OWNER_ROOT_OR_USER, false, false, -EINVAL, "a device" },
  { "group-writable", MAKE_GROUP_WRITABLE, 10, BWSH_OWNER_USER, false, false, -EPERM, "group- or world-writable" },
  { "world-writable", MAKE_WORLD_WRITABLE, 10, BWSH_OWNER_USER, false, false, -EPERM, "group- or world-writable" },
  { "hard link (nlink 2)", MAKE_HARDLINK, 10, BWSH_OWNER_USER, false, false, -EPERM, "2 hard links" },
  { "owned by another uid", MAKE_REGULAR, 10, BWSH_OWNER_USER, true, false, -EPERM, "owned by uid" },
  { "root rule, not root-owned", MAKE_REGULAR, 10, BWSH_OWNER_ROOT, false, true, -EPERM, "not by root" },
  { "root-or-user rule, user-owned", MAKE_REGULAR, 10, BWSH_OWNER_ROOT_OR_USER, false, false, 0, NULL },
};

static void
make_object (const Fixture *f, const ReadCase *c, char *path)
{
  char other[PATH_MAX];
  char *content = malloc (c->size + 1);

  assert_non_null (content);
  for (size_t i = 0; i < c->size; i++)
    content[i] = (char) ('a' + i % 26);
  /* Put the secret in every file: no error may quote it. */
  if (c->size >= strlen (SECRET))
    memcpy (content, SECRET, strlen (SECRET));

  path_join (path, f, "obj");
  unlink (path);
  rmdir (path);
  switch (c->make)
    {
    case MAKE_REGULAR:
      write_file (path, content, c->size, 0644);
      break;
    case MAKE_MISSING:
      break;
    case MAKE_SYMLINK:
      path_join (other, f, "target");
      write_file (other, content, c->size, 0644);
      assert_int_equal (symlink (other, path), 0);
      break;
    case MAKE_FIFO:
      assert_int_equal (mkfifo (path, 0644), 0);
      break;
    case MAKE_DIRECTORY:
      assert_int_equal (mkdir (path, 0755), 0);
      break;
    case MAKE_GROUP_WRITABLE:
      /* Writable by a group that is not the user's private one (which
       * bwsh_writable_by_others() accepts; tests/hostile covers that with
       * real accounts): nogroup as root, else a supplementary group. */
      write_file (path, content, c->size, 0664);
      unit_chgrp_not_own (path);
      break;
    case MAKE_WORLD_WRITABLE:
      write_file (path, content, c->size, 0646);
      break;
    case MAKE_HARDLINK:
      path_join (other, f, "second-name");
      unlink (other);
      write_file (path, content, c->size, 0644);
      assert_int_equal (link (path, other), 0);
      break;
    case MAKE_DEVICE:
      snprintf (path, PATH_MAX, "/dev/null");
      break;
    }
  if (c->chown_nobody && geteuid () == 0)
    assert_int_equal (lchown (path, NOBODY, NOBODY), 0);
  free (content);
}

static void
test_read_file_checked_table (void **state)
{
  Fixture *f = *state;

  signal (SIGALRM, on_alarm);
  for (size_t i = 0; i < sizeof read_cases / sizeof read_cases[0]; i++)
    {
      const ReadCase *c = &read_cases[i];
      char path[PATH_MAX];
      char *data = (char *) 0x1;
      size_t len = 12345;
      BwshError err = { 0 };
      uid_t uid = c->uid_other ? getuid () + 4242 : getuid ();
      int r;

      make_object (f, c, path);
      alarm (5);
      r = bwsh_read_file_checked (path, c->rule, uid, 4096, &data, &len, &err);
      alarm (0);
      if (r != c->r)
        fail_msg ("%s: r=%d (%s), want %d", c->name, r, err.message, c->r);
      if (r == 0)
        {
          assert_int_equal (len, c->size);
          assert_int_equal (strlen (data), c->size);
          if (c->size >= strlen (SECRET))
            assert_memory_equal (data, SECRET, strlen (SECRET));
          free (data);
          continue;
        }
      /* Never clobbered on failure, and the message never shows the content. */
      assert_ptr_equal (data, (char *) 0x1);
      assert_int_equal (len, 12345);
      assert_null (strstr (err.message, SECRET));
      if (c->msg != NULL)
        {
          if (strstr (err.message, c->msg) == NULL)
            fail_msg ("%s: message \"%s\" lacks \"%s\"", c->name, err.message, c->msg);
          assert_string_equal (err.file, path);
        }
    }
}

static void
test_fifo_config_does_not_hang (void **state)
{
  /* A FIFO with a writer that never writes: O_NONBLOCK plus the type check
   * must return at once. */
  Fixture *f = *state;
  char path[PATH_MAX];
  char *data = NULL;
  BwshError err = { 0 };
  int wfd;

  path_join (path, f, "fifo");
  assert_int_equal (mkfifo (path, 0600), 0);
  wfd = open (path, O_RDWR | O_CLOEXEC); /* keeps the FIFO open for writing */
  assert_true (wfd >= 0);
  signal (SIGALRM, on_alarm);
  alarm (5);
  assert_int_equal (bwsh_read_file_checked (path, BWSH_OWNER_USER, getuid (), 4096, &data, NULL, &err), -EINVAL);
  alarm (0);
  assert_non_null (strstr (err.message, "FIFO"));
  close (wfd);
}

static void
test_kernel_file_read_past_its_zero_size (void **state)
{
  /* fstat says 0 bytes for a /proc file: the buffer, sized from fstat,
   * grows as the reads go on, up to the cap and no further. */
  char *data = NULL;
  size_t len = 0;
  BwshError err = { 0 };

  (void) state;
  assert_int_equal (bwsh_read_file_checked ("/proc/self/maps", BWSH_OWNER_ROOT_OR_USER, getuid (), 1 << 20, &data,
                                            &len, &err),
                    0);
  assert_true (len > 0);
  assert_int_equal (strlen (data), len);
  assert_int_equal (data[len - 1], '\n');
  free (data);
  data = NULL;
  assert_int_equal (bwsh_read_file_checked ("/proc/self/maps", BWSH_OWNER_ROOT_OR_USER, getuid (), 100, &data,
                                            &len, &err),
                    -EFBIG);
  assert_null (data);
  assert_non_null (strstr (err.message, "larger than 100 bytes"));
}

/* ------------------------------------------------ bwsh_check_path_trusted */

static void
test_trusted_path_accepts_private_dir_under_sticky_tmp (void **state)
{
  /* /tmp is root-owned, world-writable and sticky: accepted as an ancestor. */
  Fixture *f = *state;
  char path[PATH_MAX];
  BwshError err = { 0 };
  struct stat st;

  assert_int_equal (stat ("/tmp", &st), 0);
  if (st.st_uid != 0 || !(st.st_mode & S_ISVTX) || !(st.st_mode & S_IWOTH))
    fail_msg ("/tmp is not a root-owned sticky world-writable directory here");
  assert_int_equal (chmod (f->dir, 0755), 0);
  path_join (path, f, "policy.conf");
  write_file (path, "x", 1, 0644);
  assert_int_equal (bwsh_check_path_trusted (path, BWSH_OWNER_ROOT_OR_USER, getuid (), &err), 0);
  /* The directory itself may be the target. */
  assert_int_equal (bwsh_check_path_trusted (f->dir, BWSH_OWNER_ROOT_OR_USER, getuid (), &err), 0);
}

typedef struct
{
  const char *name;
  mode_t dir_mode;
  mode_t file_mode;
  BwshOwnerRule rule;
  bool other_uid;
  int r;
  const char *msg;
} TrustCase;

static const TrustCase trust_cases[] = {
  { "private dir, 0644 file", 0700, 0644, BWSH_OWNER_ROOT_OR_USER, false, 0, NULL },
  { "0755 dir, 0600 file, user rule", 0755, 0600, BWSH_OWNER_USER, false, 0, NULL },
  { "group-writable parent", 0770, 0644, BWSH_OWNER_ROOT_OR_USER, false, -EPERM, "group- or world-writable" },
  { "world-writable parent", 0777, 0644, BWSH_OWNER_ROOT_OR_USER, false, -EPERM, "group- or world-writable" },
  { "group-writable file", 0755, 0664, BWSH_OWNER_ROOT_OR_USER, false, -EPERM, "group- or world-writable" },
  { "world-writable file", 0755, 0646, BWSH_OWNER_ROOT_OR_USER, false, -EPERM, "group- or world-writable" },
  { "file of another user", 0755, 0644, BWSH_OWNER_USER, true, -EPERM, "owned by uid" },
};

static void
test_trusted_path_table (void **state)
{
  Fixture *f = *state;
  char sub[PATH_MAX], path[PATH_MAX];

  for (size_t i = 0; i < sizeof trust_cases / sizeof trust_cases[0]; i++)
    {
      const TrustCase *c = &trust_cases[i];
      BwshError err = { 0 };
      char name[32];
      int r;

      snprintf (name, sizeof name, "t%zu", i);
      path_join (sub, f, name);
      assert_int_equal (mkdir (sub, 0700), 0);
      assert_int_equal (chmod (sub, c->dir_mode), 0);
      snprintf (path, sizeof path, "%s/file", sub);
      write_file (path, "x", 1, c->file_mode);
      r = bwsh_check_path_trusted (path, c->rule, c->other_uid ? getuid () + 4242 : getuid (), &err);
      if (r != c->r)
        fail_msg ("%s: r=%d (%s), want %d", c->name, r, err.message, c->r);
      if (c->msg != NULL && strstr (err.message, c->msg) == NULL)
        fail_msg ("%s: message \"%s\" lacks \"%s\"", c->name, err.message, c->msg);
    }
}

/* A memo of the last trusted directory (the policy's bwsh.conf, conf.d and
 * drop-ins, #37) changes no verdict and no word: each path below is checked
 * with the memo and without, and both answers must be the same. */
static void
test_trusted_path_memo_gives_the_same_answers (void **state)
{
  static const struct
  {
    const char *name;
    mode_t mode; /* 0: missing, 1: a symlink to "first" */
  } cases[] = {
    { "second", 0644 }, { "missing", 0 }, { "group-writable", 0664 }, { "world-writable", 0646 }, { "link", 1 },
  };
  Fixture *f = *state;
  BwshTrustedDir memo = BWSH_TRUSTED_DIR_INIT;
  char path[PATH_MAX];
  BwshError err = { 0 };

  assert_int_equal (chmod (f->dir, 0755), 0);
  path_join (path, f, "first");
  write_file (path, "x", 1, 0644);
  assert_int_equal (bwsh_check_path_trusted_in (path, BWSH_OWNER_ROOT_OR_USER, getuid (), &memo, &err), 0);
  assert_non_null (memo.path);
  assert_string_equal (memo.path, f->dir);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      BwshError with = { 0 }, without = { 0 };
      int r_with, r_without;

      path_join (path, f, cases[i].name);
      if (cases[i].mode == 1)
        assert_int_equal (symlink ("first", path), 0);
      else if (cases[i].mode != 0)
        write_file (path, "x", 1, cases[i].mode);
      r_with = bwsh_check_path_trusted_in (path, BWSH_OWNER_ROOT_OR_USER, getuid (), &memo, &with);
      r_without = bwsh_check_path_trusted (path, BWSH_OWNER_ROOT_OR_USER, getuid (), &without);
      if (r_with != r_without || strcmp (with.message, without.message) != 0 || strcmp (with.file, without.file) != 0)
        fail_msg ("%s: with the memo %d \"%s\", without %d \"%s\"", cases[i].name, r_with, with.message, r_without,
                  without.message);
    }
  /* Another user's rule never takes the memo's verdict. */
  path_join (path, f, "second");
  assert_int_equal (bwsh_check_path_trusted_in (path, BWSH_OWNER_USER, getuid () + 4242, &memo, &err), -EPERM);
  bwsh_trusted_dir_clear (&memo);
  assert_null (memo.path);
  assert_int_equal (memo.fd, -1);
}

static void
test_trusted_path_refuses_file_not_owned_by_root (void **state)
{
  Fixture *f = *state;
  char path[PATH_MAX];
  BwshError err = { 0 };

  path_join (path, f, "policy.conf");
  write_file (path, "x", 1, 0644);
  if (geteuid () == 0)
    assert_int_equal (chown (path, NOBODY, NOBODY), 0);
  assert_int_equal (bwsh_check_path_trusted (path, BWSH_OWNER_ROOT, 0, &err), -EPERM);
  /* as root the file (uid 65534) is refused; otherwise already its directory */
  assert_non_null (strstr (err.message, "owned by uid"));
}

static void
test_trusted_path_refuses_sticky_dir_not_owned_by_root (void **state)
{
  /* Only a root-owned sticky directory is exempt. */
  Fixture *f = *state;
  char sub[PATH_MAX], path[PATH_MAX];
  BwshError err = { 0 };

  path_join (sub, f, "sticky");
  assert_int_equal (mkdir (sub, 0700), 0);
  assert_int_equal (chmod (sub, 01777), 0);
  if (geteuid () == 0)
    assert_int_equal (chown (sub, NOBODY, NOBODY), 0);
  snprintf (path, sizeof path, "%s/file", sub);
  write_file (path, "x", 1, 0644);
  assert_int_equal (bwsh_check_path_trusted (path, BWSH_OWNER_ROOT_OR_USER, getuid (), &err), -EPERM);
}

static void
test_trusted_path_missing_is_enoent (void **state)
{
  Fixture *f = *state;
  char path[PATH_MAX];
  BwshError err = { 0 };

  path_join (path, f, "nope");
  assert_int_equal (bwsh_check_path_trusted (path, BWSH_OWNER_ROOT_OR_USER, getuid (), &err), -ENOENT);
}

/* Child of test_trusted_path_checks_root_directory_too: runs in a chroot whose
 * "/" is world-writable and not sticky; exit 0 when the check refused. */
static int
chroot_child (const char *root)
{
  BwshError err = { 0 };
  int r;

  if (chroot (root) < 0 || chdir ("/") < 0)
    return 3;
  r = bwsh_check_path_trusted ("/etc/bwsh.conf", BWSH_OWNER_ROOT, 0, &err);
  if (r != -EPERM)
    {
      fprintf (stderr, "check_path_trusted with a world-writable \"/\": r=%d (%s)\n", r, err.message);
      return 1;
    }
  return 0;
}

static bool
enter_userns_as_root (void)
{
  char map[64];
  uid_t uid = getuid ();
  int fd;

  if (unshare (CLONE_NEWUSER) < 0)
    return false;
  fd = open ("/proc/self/uid_map", O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  snprintf (map, sizeof map, "0 %u 1\n", (unsigned) uid);
  if (write (fd, map, strlen (map)) != (ssize_t) strlen (map))
    {
      close (fd);
      return false;
    }
  close (fd);
  return true;
}

static void
test_trusted_path_checks_root_directory_too (void **state)
{
  /* OpenSSH's safe_path() checks every directory up to and including "/".
   * A world-writable "/" lets anybody replace /etc.  The chroot (in a user
   * namespace when not root) makes a "/" we may chmod. */
  Fixture *f = *state;
  char root[PATH_MAX], etc[PATH_MAX], conf[PATH_MAX];
  int status;
  pid_t pid;

  path_join (root, f, "root");
  snprintf (etc, sizeof etc, "%s/etc", root);
  snprintf (conf, sizeof conf, "%s/bwsh.conf", etc);
  assert_int_equal (mkdir (root, 0755), 0);
  assert_int_equal (mkdir (etc, 0755), 0);
  write_file (conf, "x", 1, 0644);
  assert_int_equal (chmod (root, 0777), 0);

  pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      if (geteuid () != 0 && !enter_userns_as_root ())
        _exit (77);
      _exit (chroot_child (root));
    }
  assert_int_equal (waitpid (pid, &status, 0), pid);
  assert_true (WIFEXITED (status));
  if (WEXITSTATUS (status) == 77)
    unit_skip ("the child could not set up its test (exit 77)");
  assert_int_equal (WEXITSTATUS (status), 0);
}

/* ----------------------------------------------- bwsh_open_path_nofollow */

static void
test_open_nofollow_opens_real_paths (void **state)
{
  Fixture *f = *state;
  char dir[PATH_MAX], file[PATH_MAX];
  const char *paths[3];

  path_join (dir, f, "real");
  assert_int_equal (mkdir (dir, 0755), 0);
  snprintf (file, sizeof file, "%s/file", dir);
  write_file (file, "x", 1, 0644);
  paths[0] = "/";
  paths[1] = dir;
  paths[2] = file;

  for (size_t i = 0; i < 3; i++)
    {
      struct stat a, b;
      int fd = -1, fl;

      assert_int_equal (bwsh_open_path_nofollow (paths[i], &fd), 0);
      assert_true (fd >= 0);
      assert_int_equal (fstat (fd, &a), 0);
      assert_int_equal (stat (paths[i], &b), 0);
      assert_int_equal (a.st_dev, b.st_dev);
      assert_int_equal (a.st_ino, b.st_ino);
      fl = fcntl (fd, F_GETFL);
      assert_true ((fl & O_PATH) != 0);
      assert_true ((fcntl (fd, F_GETFD) & FD_CLOEXEC) != 0);
      close (fd);
    }
}

static void
test_open_nofollow_refuses_symlink_in_any_element (void **state)
{
  /* What bwrap gets is an fd: if any element was swapped for a symlink after
   * validation, the open must fail rather than follow it. */
  Fixture *f = *state;
  char real[PATH_MAX], file[PATH_MAX], lnk[PATH_MAX], lnk_root[PATH_MAX], lnk_file[PATH_MAX];
  char p1[PATH_MAX + 16], p2[PATH_MAX + 16];

  path_join (real, f, "real");
  assert_int_equal (mkdir (real, 0755), 0);
  snprintf (file, sizeof file, "%s/file", real);
  write_file (file, "x", 1, 0644);
  path_join (lnk, f, "link");
  assert_int_equal (symlink (real, lnk), 0);
  path_join (lnk_root, f, "to-root");
  assert_int_equal (symlink ("/", lnk_root), 0);
  path_join (lnk_file, f, "to-file");
  assert_int_equal (symlink (file, lnk_file), 0);
  snprintf (p1, sizeof p1, "%s/file", lnk);
  snprintf (p2, sizeof p2, "%s/etc", lnk_root);

  const struct
  {
    const char *path;
    int r;
  } cases[] = {
    { lnk, -ELOOP },       /* last element */
    { lnk_file, -ELOOP },  /* last element, to a file */
    { p1, -ELOOP },        /* middle element */
    { p2, -ELOOP },        /* middle element, to "/" */
    { lnk_root, -ELOOP },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      int fd = -7;
      int r = bwsh_open_path_nofollow (cases[i].path, &fd);
      if (r != cases[i].r)
        fail_msg ("%s: r=%d, want %d", cases[i].path, r, cases[i].r);
      assert_int_equal (fd, -7);
    }
}

static void
test_open_nofollow_refuses_relative_dots_and_missing (void **state)
{
  Fixture *f = *state;
  char missing[PATH_MAX], dots[PATH_MAX + 8], dot[PATH_MAX + 8];
  int fd = -7;

  path_join (missing, f, "missing/x");
  snprintf (dots, sizeof dots, "%s/../x", f->dir);
  snprintf (dot, sizeof dot, "%s/./x", f->dir);
  assert_int_equal (bwsh_open_path_nofollow ("tmp", &fd), -EINVAL);
  assert_int_equal (bwsh_open_path_nofollow (NULL, &fd), -EINVAL);
  assert_int_equal (bwsh_open_path_nofollow (dots, &fd), -EINVAL);
  assert_int_equal (bwsh_open_path_nofollow (dot, &fd), -EINVAL);
  assert_int_equal (bwsh_open_path_nofollow (missing, &fd), -ENOENT);
  assert_int_equal (fd, -7);
}

/* ----------------------------------------------- bwsh_mkdir_under_home */

static void
assert_mode_0700_dir (const char *path)
{
  struct stat st;

  assert_int_equal (lstat (path, &st), 0);
  assert_true (S_ISDIR (st.st_mode));
  if ((st.st_mode & 07777) != 0700)
    fail_msg ("%s has mode %04o, want 0700", path, (unsigned) (st.st_mode & 07777));
  assert_int_equal (st.st_uid, geteuid ());
}

static void
test_mkdir_under_home_creates_0700_parents (void **state)
{
  Fixture *f = *state;
  char home[PATH_MAX], a[PATH_MAX], ab[PATH_MAX], abc[PATH_MAX];
  BwshError err = { 0 };
  mode_t old = umask (0); /* the requested mode alone must give 0700 */

  path_join (home, f, "home");
  assert_int_equal (mkdir (home, 0755), 0);
  snprintf (a, sizeof a, "%s/a", home);
  snprintf (ab, sizeof ab, "%s/a/b", home);
  snprintf (abc, sizeof abc, "%s/a/b/c", home);
  assert_int_equal (bwsh_mkdir_under_home (home, abc, &err), 0);
  umask (old);
  assert_mode_0700_dir (a);
  assert_mode_0700_dir (ab);
  assert_mode_0700_dir (abc);
  /* Again: existing directories are fine. */
  assert_int_equal (bwsh_mkdir_under_home (home, abc, &err), 0);
  /* The home itself: nothing to create. */
  assert_int_equal (bwsh_mkdir_under_home (home, home, &err), 0);
}

static void
test_mkdir_under_home_refuses_symlinked_element (void **state)
{
  Fixture *f = *state;
  char home[PATH_MAX], outside[PATH_MAX], lnk[PATH_MAX], target[PATH_MAX + 16], created[PATH_MAX + 16];
  char fileel[PATH_MAX], target2[PATH_MAX + 16];
  BwshError err = { 0 };
  struct stat st;
  int r;

  path_join (home, f, "home");
  path_join (outside, f, "outside");
  assert_int_equal (mkdir (home, 0755), 0);
  assert_int_equal (mkdir (outside, 0755), 0);
  snprintf (lnk, sizeof lnk, "%s/project", home);
  assert_int_equal (symlink (outside, lnk), 0);

  /* A symlink in the middle of the path. */
  snprintf (target, sizeof target, "%s/sub", lnk);
  r = bwsh_mkdir_under_home (home, target, &err);
  assert_true (r == -ELOOP || r == -ENOTDIR);
  assert_non_null (strstr (err.message, "not a directory"));
  snprintf (created, sizeof created, "%s/sub", outside);
  assert_int_equal (lstat (created, &st), -1);

  /* The last element itself is the symlink. */
  r = bwsh_mkdir_under_home (home, lnk, &err);
  assert_true (r == -ELOOP || r == -ENOTDIR);

  /* An element that is a regular file. */
  snprintf (fileel, sizeof fileel, "%s/file", home);
  write_file (fileel, "x", 1, 0644);
  snprintf (target2, sizeof target2, "%s/sub", fileel);
  assert_int_equal (bwsh_mkdir_under_home (home, target2, &err), -ENOTDIR);
}

static void
test_mkdir_refuses_path_outside_home (void **state)
{
  Fixture *f = *state;
  char home[PATH_MAX], sibling[PATH_MAX + 16], out[PATH_MAX];
  BwshError err = { 0 };
  struct stat st;

  path_join (home, f, "home");
  assert_int_equal (mkdir (home, 0755), 0);
  snprintf (sibling, sizeof sibling, "%sx/project", home); /* ".../homex": not under ".../home" */
  path_join (out, f, "elsewhere");
  assert_int_equal (bwsh_mkdir_under_home (home, sibling, &err), -EPERM);
  assert_non_null (strstr (err.message, "not under the home directory"));
  assert_int_equal (bwsh_mkdir_under_home (home, out, &err), -EPERM);
  assert_int_equal (lstat (out, &st), -1);
}

static void
test_mkdir_dotdot_cannot_climb_out_of_home (void **state)
{
  /* "HOME/../escaped" passes the lexical prefix test; it must not create a
   * directory beside the home. */
  Fixture *f = *state;
  char home[PATH_MAX], path[PATH_MAX + 32], escaped[PATH_MAX];
  BwshError err = { 0 };
  struct stat st;
  int r;

  path_join (home, f, "home");
  assert_int_equal (mkdir (home, 0755), 0);
  snprintf (path, sizeof path, "%s/../escaped", home);
  path_join (escaped, f, "escaped");
  r = bwsh_mkdir_under_home (home, path, &err);
  if (lstat (escaped, &st) == 0)
    fail_msg ("bwsh_mkdir_under_home(%s, %s) returned %d and created %s outside the home", home, path, r,
              escaped);
  assert_true (r < 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_read_file_checked_table, setup, teardown),
    cmocka_unit_test_setup_teardown (test_fifo_config_does_not_hang, setup, teardown),
    cmocka_unit_test_setup_teardown (test_kernel_file_read_past_its_zero_size, setup, teardown),
    cmocka_unit_test_setup_teardown (test_trusted_path_accepts_private_dir_under_sticky_tmp, setup, teardown),
    cmocka_unit_test_setup_teardown (test_trusted_path_table, setup, teardown),
    cmocka_unit_test_setup_teardown (test_trusted_path_memo_gives_the_same_answers, setup, teardown),
    cmocka_unit_test_setup_teardown (test_trusted_path_refuses_file_not_owned_by_root, setup, teardown),
    cmocka_unit_test_setup_teardown (test_trusted_path_refuses_sticky_dir_not_owned_by_root, setup, teardown),
    cmocka_unit_test_setup_teardown (test_trusted_path_missing_is_enoent, setup, teardown),
    cmocka_unit_test_setup_teardown (test_trusted_path_checks_root_directory_too, setup, teardown),
    cmocka_unit_test_setup_teardown (test_open_nofollow_opens_real_paths, setup, teardown),
    cmocka_unit_test_setup_teardown (test_open_nofollow_refuses_symlink_in_any_element, setup, teardown),
    cmocka_unit_test_setup_teardown (test_open_nofollow_refuses_relative_dots_and_missing, setup, teardown),
    cmocka_unit_test_setup_teardown (test_mkdir_under_home_creates_0700_parents, setup, teardown),
    cmocka_unit_test_setup_teardown (test_mkdir_under_home_refuses_symlinked_element, setup, teardown),
    cmocka_unit_test_setup_teardown (test_mkdir_refuses_path_outside_home, setup, teardown),
    cmocka_unit_test_setup_teardown (test_mkdir_dotdot_cannot_climb_out_of_home, setup, teardown),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
