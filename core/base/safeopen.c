/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Opening files and directories that somebody else may control.
 *
 * The user is the adversary: their config may be a symlink to /etc/shadow,
 * a FIFO that never yields, a device, a 1 GiB file, or a path whose parent
 * is swapped for a symlink between our check and our use.  Everything here
 * checks the object it opened (fstat on the fd), not the name it asked for.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "errors.h"
#include "path.h"
#include "safeopen.h"

static const char *
owner_rule_to_string (BwshOwnerRule rule)
{
  switch (rule)
    {
    case BWSH_OWNER_USER:
      return "the user";
    case BWSH_OWNER_ROOT:
      return "root";
    case BWSH_OWNER_ROOT_OR_USER:
    default:
      return "root or the user";
    }
}

/* See bwsh_trust_unmapped_root(): the overflow uid, or (uid_t) -1. */
static uid_t unmapped_root = (uid_t) -1;

int
bwsh_trust_unmapped_root (bool *ret_inside)
{
  _cleanup_free_ char *map = NULL;
  size_t len;
  BwshError err;
  bool root_mapped = false;
  unsigned long v;
  int r;

  *ret_inside = false;
  r = bwsh_read_file_checked ("/proc/self/uid_map", BWSH_OWNER_ROOT_OR_USER, getuid (), 64 * 1024, &map, &len, &err);
  if (r < 0)
    return r;
  /* "INSIDE OUTSIDE COUNT" lines: is uid 0 of this namespace anybody? */
  for (char *line = map; line != NULL && *line != '\0';)
    {
      unsigned long in, out, count;
      char *nl = strchr (line, '\n');
      if (sscanf (line, "%lu %lu %lu", &in, &out, &count) == 3 && in == 0 && count > 0)
        root_mapped = true;
      line = nl != NULL ? nl + 1 : NULL;
    }
  if (root_mapped)
    return 0;
  /* A kernel file, and shown as the overflow uid itself in here. */
  v = 65534;
  {
    _cleanup_close_ int fd = open ("/proc/sys/kernel/overflowuid", O_RDONLY | O_CLOEXEC);
    char buf[32];
    ssize_t n = fd >= 0 ? read (fd, buf, sizeof buf - 1) : -1;
    if (n > 0)
      {
        buf[n] = '\0';
        if (sscanf (buf, "%lu", &v) != 1)
          return -EINVAL;
      }
  }
  unmapped_root = (uid_t) v;
  *ret_inside = true;
  return 0;
}

bool
bwsh_uid_is_root (uid_t uid)
{
  /* Inside a sandbox root is not mapped: its files show as the overflow
   * uid (bwsh_trust_unmapped_root()). */
  return uid == 0 || (unmapped_root != (uid_t) -1 && uid == unmapped_root);
}

static bool
owner_ok (const struct stat *st, BwshOwnerRule rule, uid_t uid)
{
  /* Inside a sandbox / is the sandbox's tmpfs, the caller's own. */
  bool root = bwsh_uid_is_root (st->st_uid);

  switch (rule)
    {
    case BWSH_OWNER_USER:
      return st->st_uid == uid;
    case BWSH_OWNER_ROOT:
      return root;
    case BWSH_OWNER_ROOT_OR_USER:
    default:
      return root || st->st_uid == uid;
    }
}

/* Most distributions give each user a group of their own ("user private
 * groups"), and Debian 13 sets umask 002 for such users through pam_umask:
 * their new files are group-writable, by a group that holds nobody else.
 * That group counts as the user's own when it is the primary group of
 * @uid's account, has the account's name, lists no member but the user, and
 * is no other account's primary group.  The last test enumerates the passwd
 * database, so it runs only for a file that is group-writable at all; an
 * account a directory service does not enumerate is not seen by it, the
 * same limit as Debian's OpenSSH has for the same rule. */
static bool
group_is_private (gid_t gid, uid_t uid)
{
  struct passwd pwbuf, *pw = NULL, *other;
  struct group grbuf, *gr = NULL;
  _cleanup_free_ char *pwmem = NULL, *grmem = NULL;
  size_t pwlen = 16384, grlen = 65536;
  bool alone = true;

  pwmem = malloc (pwlen);
  grmem = malloc (grlen);
  if (pwmem == NULL || grmem == NULL)
    return false;
  if (getpwuid_r (uid, &pwbuf, pwmem, pwlen, &pw) != 0 || pw == NULL || pw->pw_gid != gid)
    return false;
  if (getgrgid_r (gid, &grbuf, grmem, grlen, &gr) != 0 || gr == NULL || strcmp (gr->gr_name, pw->pw_name) != 0)
    return false;
  for (char **m = gr->gr_mem; *m != NULL; m++)
    if (strcmp (*m, pw->pw_name) != 0)
      return false;
  setpwent ();
  while (alone && (other = getpwent ()) != NULL)
    if (other->pw_gid == gid && other->pw_uid != uid)
      alone = false;
  endpwent ();
  return alone;
}

bool
bwsh_writable_by_others (const struct stat *st, uid_t uid)
{
  if ((st->st_mode & S_IWOTH) != 0)
    return true;
  if ((st->st_mode & S_IWGRP) == 0)
    return false;
  return st->st_uid != uid || !group_is_private (st->st_gid, uid);
}

static const char *
file_type_name (mode_t mode)
{
  if (S_ISDIR (mode))
    return "a directory";
  if (S_ISFIFO (mode))
    return "a FIFO";
  if (S_ISSOCK (mode))
    return "a socket";
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return "a device";
  if (S_ISLNK (mode))
    return "a symbolic link";
  return "not a regular file";
}

int
bwsh_read_file_checked (const char *path, BwshOwnerRule rule, uid_t uid, size_t max_size,
                        char **ret_data, size_t *ret_len, BwshError *err)
{
  _cleanup_close_ int fd = -1;
  _cleanup_free_ char *data = NULL;
  struct stat st;
  size_t len = 0, cap;

  /* O_NONBLOCK: a FIFO must not stall a login; O_NOFOLLOW: the name must be
   * the file, not a link to one the user could not otherwise read. */
  fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    {
      int e = errno;
      if (e == ENOENT)
        return -ENOENT; /* callers decide whether absence is an error */
      if (e == ELOOP)
        return bwsh_error_set (err, -ELOOP, path, 0, 0, "is a symbolic link (refused)");
      return bwsh_error_set (err, -e, path, 0, 0, "cannot open: %s", strerror (e));
    }
  if (fstat (fd, &st) < 0)
    return bwsh_error_set (err, -errno, path, 0, 0, "cannot stat: %s", strerror (errno));
  if (!S_ISREG (st.st_mode))
    return bwsh_error_set (err, -EINVAL, path, 0, 0, "is %s, not a regular file (refused)",
                           file_type_name (st.st_mode));
  if (!owner_ok (&st, rule, uid))
    return bwsh_error_set (err, -EPERM, path, 0, 0, "is owned by uid %u, not by %s (refused)",
                           (unsigned) st.st_uid, owner_rule_to_string (rule));
  if (rule == BWSH_OWNER_USER ? bwsh_writable_by_others (&st, uid) : (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return bwsh_error_set (err, -EPERM, path, 0, 0, "is group- or world-writable (mode %04o, refused)",
                           (unsigned) (st.st_mode & 07777));
  /* A second name for the file means someone else may control its content
   * through a path we never checked. */
  if (rule == BWSH_OWNER_USER && st.st_nlink != 1)
    return bwsh_error_set (err, -EPERM, path, 0, 0, "has %lu hard links (refused)",
                           (unsigned long) st.st_nlink);
  if (st.st_size < 0 || (uint64_t) st.st_size > max_size)
    return bwsh_error_set (err, -EFBIG, path, 0, 0, "is larger than %zu bytes (refused)", max_size);

  /* Read at most max_size + 1 bytes: the file may grow after fstat.  The
   * buffer starts at the size fstat saw plus one, for the read that finds
   * the end, and grows only if the file did: a buffer of max_size (1 MiB
   * for the policy) was an mmap() of its own, and each of its pages a
   * fault (issue 27). */
  cap = (size_t) st.st_size + 1;
  /* A kernel file says size 0: one page for it, not a read per byte. */
  if (cap < 4096)
    cap = max_size < 4096 ? max_size + 1 : 4096;
  data = malloc (cap + 1);
  if (data == NULL)
    return -ENOMEM;
  while (len <= max_size)
    {
      if (len == cap)
        {
          char *grown;
          cap = cap > max_size / 2 ? max_size + 1 : cap * 2;
          grown = realloc (data, cap + 1);
          if (grown == NULL)
            return -ENOMEM;
          data = grown;
        }
      ssize_t n = read (fd, data + len, cap - len);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return bwsh_error_set (err, -errno, path, 0, 0, "cannot read: %s", strerror (errno));
        }
      if (n == 0)
        break;
      len += (size_t) n;
    }
  if (len > max_size)
    return bwsh_error_set (err, -EFBIG, path, 0, 0, "is larger than %zu bytes (refused)", max_size);
  data[len] = '\0';
  *ret_data = steal_pointer (&data);
  if (ret_len != NULL)
    *ret_len = len;
  return 0;
}

/* "/" (open as @dirfd) must be as trusted as a directory on the way to
 * @resolved, unless it is the sandbox's own (bwsh_trust_unmapped_root()). */
static int
check_root (int dirfd, const char *resolved, const char *path, BwshOwnerRule rule, uid_t uid, BwshError *err)
{
  struct stat rst;
  bool sandbox_root;

  if (fstat (dirfd, &rst) < 0)
    return bwsh_error_set (err, -errno, path, 0, 0, "cannot stat /: %s", strerror (errno));
  sandbox_root = unmapped_root != (uid_t) -1 && rst.st_uid == geteuid ();
  if (strcmp (resolved, "/") != 0 && !sandbox_root
      && (!owner_ok (&rst, rule == BWSH_OWNER_USER ? BWSH_OWNER_ROOT_OR_USER : rule, uid)
          || ((rst.st_mode & (S_IWGRP | S_IWOTH)) != 0 && !(rst.st_uid == 0 && (rst.st_mode & S_ISVTX)))))
    return bwsh_error_set (err, -EPERM, path, 0, 0, "directory / is not trusted (uid %u, mode %04o, refused)",
                           (unsigned) rst.st_uid, (unsigned) (rst.st_mode & 07777));
  return 0;
}

/* The walk of bwsh_check_path_trusted() down @resolved (written to while
 * it walks, restored after).  With @ret_parent, a trusted path's directory
 * is returned there, held. */
static int
walk_trusted (char *resolved, const char *path, BwshOwnerRule rule, uid_t uid, int *ret_parent, BwshError *err)
{
  _cleanup_close_ int dirfd = -1;
  char *p, *next;
  int r;

  dirfd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0)
    return bwsh_error_set (err, -errno, path, 0, 0, "cannot open /: %s", strerror (errno));

  r = check_root (dirfd, resolved, path, rule, uid, err);
  if (r < 0)
    return r;
  /* Walk down from "/" so that every element is checked as the object we
   * hold, and none of them can be a symlink placed there after realpath(). */
  p = resolved;
  for (;;)
    {
      _cleanup_close_ int fd = -1;
      struct stat st;
      bool last;

      while (*p == '/')
        p++;
      next = strchr (p, '/');
      last = next == NULL;
      if (next != NULL)
        *next = '\0';

      if (*p == '\0')
        fd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
      else
        fd = openat (dirfd, p, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0)
        return bwsh_error_set (err, -errno, path, 0, 0, "cannot open %s: %s", resolved, strerror (errno));
      if (fstat (fd, &st) < 0)
        return bwsh_error_set (err, -errno, path, 0, 0, "cannot stat %s: %s", resolved, strerror (errno));
      if (S_ISLNK (st.st_mode))
        return bwsh_error_set (err, -ELOOP, path, 0, 0, "%s changed while it was checked", resolved);

      if (last)
        {
          if (!owner_ok (&st, rule, uid))
            return bwsh_error_set (err, -EPERM, path, 0, 0, "is owned by uid %u, not by %s (refused)",
                                   (unsigned) st.st_uid, owner_rule_to_string (rule));
          if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
            return bwsh_error_set (err, -EPERM, path, 0, 0,
                                   "is group- or world-writable (mode %04o, refused)",
                                   (unsigned) (st.st_mode & 07777));
          if (ret_parent != NULL)
            *ret_parent = steal_fd (&dirfd);
          return 0;
        }

      /* A directory on the way must be as trusted as the file.  The one
       * exception is a root-owned sticky directory such as /tmp: nobody but
       * root and the owner of an entry can rename or remove it there, and
       * the entry below is checked in its turn. */
      /* Inside a sandbox its skeleton (the tmpfs dirs bwrap made for the
       * mount points) belongs to the caller; see bwsh_trust_unmapped_root(). */
      if (!owner_ok (&st, rule == BWSH_OWNER_USER ? BWSH_OWNER_ROOT_OR_USER : rule, uid)
          && !(unmapped_root != (uid_t) -1 && st.st_uid == geteuid ()))
        return bwsh_error_set (err, -EPERM, path, 0, 0, "directory %s is owned by uid %u (refused)",
                               *p == '\0' ? "/" : resolved, (unsigned) st.st_uid);
      if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && !(st.st_uid == 0 && (st.st_mode & S_ISVTX)))
        return bwsh_error_set (err, -EPERM, path, 0, 0,
                               "directory %s is group- or world-writable (mode %04o, refused)",
                               *p == '\0' ? "/" : resolved, (unsigned) (st.st_mode & 07777));

      *next = '/';
      p = next + 1;
      close (dirfd);
      dirfd = steal_fd (&fd);
    }
}

/* Absolute, without "." or ".." elements, "//" or a trailing "/": such a
 * path whose elements are none of them a symlink is its own realpath(). */
static bool
is_plain_path (const char *path)
{
  if (path[0] != '/' || path[1] == '\0')
    return false;
  for (const char *p = path; *p != '\0'; p++)
    if (*p == '/'
        && (p[1] == '/' || p[1] == '\0'
            || (p[1] == '.' && (p[2] == '/' || p[2] == '\0' || (p[2] == '.' && (p[3] == '/' || p[3] == '\0'))))))
      return false;
  return true;
}

void
bwsh_trusted_dir_clear (BwshTrustedDir *memo)
{
  if (memo == NULL)
    return;
  free (memo->path);
  if (memo->fd >= 0)
    close (memo->fd);
  *memo = (BwshTrustedDir) BWSH_TRUSTED_DIR_INIT;
}

/* @path in the directory @memo holds, checked as the walk checks its last
 * element: 0 trusted, -ENOENT missing, 1 for anything else (the full check
 * decides, and words its refusal). */
static int
check_in_trusted_dir (const BwshTrustedDir *memo, const char *path, BwshOwnerRule rule, uid_t uid)
{
  _cleanup_close_ int fd = -1;
  const char *name;
  struct stat st;
  size_t n;

  if (memo == NULL || memo->fd < 0 || memo->rule != rule || memo->uid != uid || !is_plain_path (path))
    return 1;
  n = strcmp (memo->path, "/") == 0 ? 0 : strlen (memo->path);
  if (strncmp (path, memo->path, n) != 0 || path[n] != '/' || strchr (path + n + 1, '/') != NULL)
    return 1;
  name = path + n + 1;
  fd = openat (memo->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT ? -ENOENT : 1;
  if (fstat (fd, &st) < 0 || S_ISLNK (st.st_mode) || !owner_ok (&st, rule, uid)
      || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return 1;
  return 0;
}

/* @resolved is trusted and @parent_fd holds its directory: keep both. */
static void
remember_trusted_dir (BwshTrustedDir *memo, const char *resolved, int *parent_fd, BwshOwnerRule rule, uid_t uid)
{
  const char *slash = strrchr (resolved, '/');
  char *dir;

  if (memo == NULL || *parent_fd < 0 || slash == NULL)
    return;
  dir = slash == resolved ? strdup ("/") : strndup (resolved, (size_t) (slash - resolved));
  if (dir == NULL)
    return; /* no memo: every check walks, still correct */
  bwsh_trusted_dir_clear (memo);
  memo->path = dir;
  memo->fd = steal_fd (parent_fd);
  memo->rule = rule;
  memo->uid = uid;
}

int
bwsh_check_path_trusted (const char *path, BwshOwnerRule rule, uid_t uid, BwshError *err)
{
  return bwsh_check_path_trusted_in (path, rule, uid, NULL, err);
}

int
bwsh_check_path_trusted_in (const char *path, BwshOwnerRule rule, uid_t uid, BwshTrustedDir *memo, BwshError *err)
{
  _cleanup_free_ char *resolved = NULL;
  _cleanup_close_ int parent = -1;
  int r;

  /* A file of a directory checked already (the policy's conf.d, its
   * drop-ins): only its own element is left to check (#37). */
  r = path != NULL ? check_in_trusted_dir (memo, path, rule, uid) : 1;
  if (r <= 0)
    return r;
  /* A plain path is walked as it is first, which is what the walk of its
   * realpath() would do when none of its elements is a symlink, without
   * realpath()'s readlink() of every element (#37).  Only a clean verdict
   * counts there: trusted, or an element missing below real, trusted
   * directories (realpath() says ENOENT for that too).  Anything else (a
   * symlink on the way, a refusal) is decided again by the walk of the
   * realpath(), so that every refusal and its words stay what they were. */
  if (path != NULL && is_plain_path (path))
    {
      resolved = strdup (path);
      if (resolved == NULL)
        return -ENOMEM;
      r = walk_trusted (resolved, path, rule, uid, memo != NULL ? &parent : NULL, NULL);
      if (r == 0)
        remember_trusted_dir (memo, resolved, &parent, rule, uid);
      if (r == 0 || r == -ENOENT)
        return r;
      free (resolved);
      resolved = NULL;
    }

  resolved = realpath (path, NULL);
  if (resolved == NULL)
    {
      if (errno == ENOENT)
        return -ENOENT;
      return bwsh_error_set (err, -errno, path, 0, 0, "cannot resolve: %s", strerror (errno));
    }
  r = walk_trusted (resolved, path, rule, uid, memo != NULL ? &parent : NULL, err);
  if (r == 0)
    remember_trusted_dir (memo, resolved, &parent, rule, uid);
  return r;
}

static bool
has_dot_element (const char *path)
{
  for (const char *p = path; (p = strchr (p, '/')) != NULL; p++)
    if (p[1] == '.' && (p[2] == '/' || p[2] == '\0' || (p[2] == '.' && (p[3] == '/' || p[3] == '\0'))))
      return true;
  return false;
}

/* The element-by-element walk, for kernels without openat2(). */
static int
open_walk_nofollow (const char *resolved, int *ret_fd)
{
  _cleanup_free_ char *copy = NULL;
  _cleanup_close_ int fd = -1;
  char *save = NULL, *elem;

  copy = strdup (resolved);
  if (copy == NULL)
    return -ENOMEM;

  fd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -errno;

  for (elem = strtok_r (copy, "/", &save); elem != NULL; elem = strtok_r (NULL, "/", &save))
    {
      struct stat st;
      int nfd;

      /* O_PATH|O_NOFOLLOW opens a symlink itself rather than failing, so
       * the type check below is what refuses it. */
      nfd = openat (fd, elem, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (nfd < 0)
        return -errno;
      close (fd);
      fd = nfd;
      if (fstat (fd, &st) < 0)
        return -errno;
      if (S_ISLNK (st.st_mode))
        return -ELOOP;
    }
  *ret_fd = steal_fd (&fd);
  return 0;
}

int
bwsh_open_path_nofollow (const char *resolved, int *ret_fd)
{
  struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS };
  _cleanup_close_ int fd = -1;
  struct stat st;

  if (resolved == NULL || resolved[0] != '/' || has_dot_element (resolved))
    return -EINVAL;
  /* The kernel refuses a symlink anywhere on the way (ELOOP) in one call,
   * where the walk takes three per path element: at 1,000 binds that was
   * most of a session's system time. */
  fd = (int) syscall (SYS_openat2, AT_FDCWD, resolved, &how, sizeof how);
  if (fd < 0 && (errno == ENOSYS || errno == EPERM))
    return open_walk_nofollow (resolved, ret_fd); /* before Linux 5.6, or a filter that blocks it */
  if (fd < 0)
    return -errno;
  /* O_PATH|O_NOFOLLOW opens a final symlink itself rather than failing. */
  if (fstat (fd, &st) < 0)
    return -errno;
  if (S_ISLNK (st.st_mode))
    return -ELOOP;
  *ret_fd = steal_fd (&fd);
  return 0;
}

/* Walk @path from @home one element at a time, never following a symlink
 * below @home; with @create, make each missing element (0700).  Without,
 * stop at the first missing one and say so in *ret_missing. */
static int
walk_under_home (const char *home, const char *path, bool create, bool *ret_missing, BwshError *err)
{
  _cleanup_free_ char *copy = NULL;
  _cleanup_close_ int fd = -1;
  char *save = NULL, *elem;

  if (!bwsh_path_has_prefix (path, home))
    return bwsh_error_set (err, -EPERM, NULL, 0, 0, "%s is not under the home directory %s", path, home);

  /* The home directory itself is the administrator's choice (it may be a
   * symlink on some systems); everything below it is the user's. */
  fd = open (home, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return bwsh_error_set (err, -errno, NULL, 0, 0, "home directory %s: %s", home, strerror (errno));

  copy = strdup (path + strlen (home));
  if (copy == NULL)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  for (elem = strtok_r (copy, "/", &save); elem != NULL; elem = strtok_r (NULL, "/", &save))
    {
      int nfd;

      if (strcmp (elem, ".") == 0 || strcmp (elem, "..") == 0)
        return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "cannot create %s: \".\" or \"..\" in the path", path);
      /* Made only when missing: one openat() for an element that is there
       * (every login but the first), not a mkdirat() first (#37). */
      nfd = openat (fd, elem, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (nfd < 0 && errno == ENOENT && create)
        {
          if (mkdirat (fd, elem, 0700) < 0 && errno != EEXIST)
            return bwsh_error_set (err, -errno, NULL, 0, 0, "cannot create %s: %s", path, strerror (errno));
          nfd = openat (fd, elem, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
      if (nfd < 0)
        {
          int e = errno;
          if (e == ENOENT && !create)
            {
              struct stat st;
              /* A dangling symlink is not "missing": mkdirat() would fail on it. */
              if (fstatat (fd, elem, &st, AT_SYMLINK_NOFOLLOW) == 0)
                return bwsh_error_set (err, -ENOTDIR, NULL, 0, 0, "cannot create %s: an element is not a directory",
                                       path);
              *ret_missing = true;
              return 0;
            }
          if (e == ELOOP || e == ENOTDIR)
            return bwsh_error_set (err, -e, NULL, 0, 0, "cannot create %s: an element is not a directory",
                                   path);
          return bwsh_error_set (err, -e, NULL, 0, 0, "cannot create %s: %s", path, strerror (e));
        }
      close (fd);
      fd = nfd;
    }
  if (ret_missing != NULL)
    *ret_missing = false;
  return 0;
}

int
bwsh_mkdir_under_home (const char *home, const char *path, BwshError *err)
{
  return walk_under_home (home, path, true, NULL, err);
}

int
bwsh_mkdir_under_home_dry_run (const char *home, const char *path, bool *ret_would_create, BwshError *err)
{
  bool missing = false;
  int r = walk_under_home (home, path, false, &missing, err);

  if (r < 0)
    return r;
  *ret_would_create = missing;
  return 0;
}

int
bwsh_sealed_memfd (const char *name, const void *data, size_t len, int *ret_fd)
{
  _cleanup_close_ int fd = -1;
  const char *p = data;
  size_t off = 0;

  fd = memfd_create (name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    return -errno;
  while (off < len)
    {
      ssize_t n = write (fd, p + off, len - off);
      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return -errno;
        }
      off += (size_t) n;
    }
  if (fcntl (fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
    return -errno;
  if (lseek (fd, 0, SEEK_SET) < 0)
    return -errno;
  *ret_fd = steal_fd (&fd);
  return 0;
}
