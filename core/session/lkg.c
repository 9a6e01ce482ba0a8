/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The last-known-good policy (see lkg.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"
#include "bounds.h"
#include "cleanup.h"
#include "digest.h"
#include "errors.h"
#include "identity.h"
#include "lkg.h"
#include "policy.h"
#include "safeopen.h"

/* A snapshot holds the main file, its drop-ins and includes: two levels. */
#define SNAPSHOT_DEPTH 4

/* BWSH_LKG_DIR; a test build also takes $BWSH_TEST_LKG_DIR, so that the
 * tests of a build tree never write the host's /var/lib. */
static const char *
lkg_dir (void)
{
#if BWSH_TEST_BUILD
  const char *dir = secure_getenv ("BWSH_TEST_LKG_DIR");
  if (dir != NULL && dir[0] == '/')
    return dir;
#endif
  return BWSH_LKG_DIR;
}

static void
key_of (const char *policy_path, char ret[17])
{
  char hex[65];

  bwsh_sha256_hex (policy_path, strlen (policy_path), hex);
  memcpy (ret, hex, 16);
  ret[16] = '\0';
}

static const char *
base_of (const char *path)
{
  const char *slash = strrchr (path, '/');
  return slash != NULL ? slash + 1 : path;
}

/* Remove the small tree @name below @dirfd (a snapshot we wrote). */
static void
remove_tree_at (int parent, const char *name, int depth)
{
  int fd;
  DIR *d;
  struct dirent *de;

  if (unlinkat (parent, name, 0) == 0 || errno == ENOENT || depth <= 0)
    return;
  fd = openat (parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return;
  d = fdopendir (fd);
  if (d == NULL)
    {
      close (fd);
      return;
    }
  while ((de = readdir (d)) != NULL)
    if (strcmp (de->d_name, ".") != 0 && strcmp (de->d_name, "..") != 0)
      remove_tree_at (dirfd (d), de->d_name, depth - 1);
  closedir (d);
  (void) unlinkat (parent, name, AT_REMOVEDIR);
}

static int
mkdir_p (const char *path, mode_t mode)
{
  _cleanup_free_ char *p = strdup (path);

  if (p == NULL)
    return -ENOMEM;
  for (char *s = strchr (p + 1, '/'); s != NULL; s = strchr (s + 1, '/'))
    {
      *s = '\0';
      if (mkdir (p, 0755) < 0 && errno != EEXIST)
        return -errno;
      *s = '/';
    }
  if (mkdir (p, mode) < 0 && errno != EEXIST)
    return -errno;
  return 0;
}

static int
write_file_at (int dirfd, const char *rel, const char *data, size_t len)
{
  _cleanup_free_ char *parent = strdup (rel);
  _cleanup_close_ int fd = -1;
  char *slash;
  size_t off = 0;

  if (parent == NULL)
    return -ENOMEM;
  /* Parents inside the snapshot (conf.d/, an included subdirectory). */
  for (slash = strchr (parent, '/'); slash != NULL; slash = strchr (slash + 1, '/'))
    {
      *slash = '\0';
      if (mkdirat (dirfd, parent, 0755) < 0 && errno != EEXIST)
        return -errno;
      if (fchmodat (dirfd, parent, 0755, 0) < 0)
        return -errno;
      *slash = '/';
    }
  fd = openat (dirfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return -errno;
  if (fchmod (fd, 0644) < 0)
    return -errno;
  while (off < len)
    {
      ssize_t n = write (fd, data + off, len - off);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -errno;
      off += (size_t) n;
    }
  return fsync (fd) < 0 ? -errno : 0;
}

/* Copy every file of @pol that lies in @dir into @tmp. */
static int
copy_files (const BwshPolicy *pol, const char *dir, const char *tmp, BwshError *err)
{
  _cleanup_close_ int tmpfd = open (tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  size_t dlen = strlen (dir);

  if (tmpfd < 0)
    return bwsh_error_set (err, -errno, tmp, 0, 0, "cannot open: %m");
  for (size_t i = 0; i < pol->files.n; i++)
    {
      const char *path = pol->files.items[i].src;
      _cleanup_free_ char *data = NULL;
      size_t len = 0;
      int r;

      /* @include is confined to the policy's folder: anything else is not
       * a file of this policy. */
      if (strncmp (path, dir, dlen) != 0 || path[dlen] != '/' || strstr (path + dlen, "/..") != NULL)
        continue;
      r = bwsh_read_file_checked (path, BWSH_OWNER_ROOT, 0, BWSH_POLICY_FILE_MAX, &data, &len, err);
      if (r == -ENOENT)
        continue;
      if (r < 0)
        return r;
      r = write_file_at (tmpfd, path + dlen + 1, data, len);
      if (r == -EEXIST)
        continue; /* read twice (an include): one copy */
      if (r < 0)
        return bwsh_error_set (err, r, tmp, 0, 0, "cannot write %s: %s", path + dlen + 1, strerror (-r));
    }
  return 0;
}

int
bwsh_policy_lkg_save (const BwshPolicy *pol, const char *policy_path, const BwshIdentity *id, BwshError *err)
{
  _cleanup_free_ char *dir = NULL, *tmp = NULL, *main = NULL, *link = NULL, *tmplink = NULL;
  _cleanup_close_ int lkgfd = -1;
  char key[17], digest[65], name[64], have[PATH_MAX];
  BwshPolicy *check = NULL;
  struct stat st;
  ssize_t n;
  DIR *d;
  struct dirent *de;
  int r;

  if (geteuid () != 0 || pol == NULL || policy_path == NULL || policy_path[0] != '/')
    return 0;
  r = bwsh_policy_digest (pol, digest, err);
  if (r < 0)
    return r;
  key_of (policy_path, key);
  snprintf (name, sizeof name, "%s.%.32s", key, digest);
  if (asprintf (&link, "%s/%s", lkg_dir (), key) < 0)
    return -ENOMEM;
  n = readlink (link, have, sizeof have - 1);
  if (n > 0 && (size_t) n == strlen (name) && memcmp (have, name, (size_t) n) == 0)
    return 0; /* already the current copy */

  r = mkdir_p (lkg_dir (), 0755);
  if (r < 0)
    return bwsh_error_set (err, r, lkg_dir (), 0, 0, "cannot create the directory: %s", strerror (-r));
  lkgfd = open (lkg_dir (), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (lkgfd < 0 || fstat (lkgfd, &st) < 0)
    return bwsh_error_set (err, -errno, lkg_dir (), 0, 0, "cannot open the directory: %m");
  if (st.st_uid != 0 || (st.st_mode & 0022) != 0)
    return bwsh_error_set (err, -EPERM, lkg_dir (), 0, 0, "must be owned by root and writable by nobody else");
  if ((st.st_mode & 07777) != 0755)
    (void) fchmod (lkgfd, 0755);

  dir = strdup (policy_path);
  if (dir == NULL)
    return -ENOMEM;
  *strrchr (dir, '/') = '\0';
  if (asprintf (&tmp, "%s/.tmp.XXXXXX", lkg_dir ()) < 0)
    return -ENOMEM;
  if (mkdtemp (tmp) == NULL)
    return bwsh_error_set (err, -errno, tmp, 0, 0, "cannot create: %m");
  (void) chmod (tmp, 0755);
  r = copy_files (pol, dir[0] != '\0' ? dir : "/", tmp, err);
  /* It must load as it is: otherwise it is no good copy. */
  if (r >= 0 && asprintf (&main, "%s/%s", tmp, base_of (policy_path)) < 0)
    r = -ENOMEM;
  if (r >= 0)
    r = bwsh_policy_load (main, id, &check, err);
  bwsh_policy_free (check);
  if (r >= 0 && renameat (lkgfd, base_of (tmp), lkgfd, name) < 0 && errno != EEXIST && errno != ENOTEMPTY)
    r = bwsh_error_set (err, -errno, lkg_dir (), 0, 0, "cannot rename the copy: %m");
  remove_tree_at (lkgfd, base_of (tmp), SNAPSHOT_DEPTH);
  if (r < 0)
    return r;

  if (asprintf (&tmplink, ".link.%d.%s", (int) getpid (), key) < 0)
    return -ENOMEM;
  (void) unlinkat (lkgfd, tmplink, 0);
  if (symlinkat (name, lkgfd, tmplink) < 0 || renameat (lkgfd, tmplink, lkgfd, key) < 0)
    {
      r = bwsh_error_set (err, -errno, lkg_dir (), 0, 0, "cannot publish the copy: %m");
      (void) unlinkat (lkgfd, tmplink, 0);
      return r;
    }

  /* Older copies of this policy. */
  d = fdopendir (fcntl (lkgfd, F_DUPFD_CLOEXEC, 3));
  if (d != NULL)
    {
      rewinddir (d);
      while ((de = readdir (d)) != NULL)
        if (strncmp (de->d_name, key, 16) == 0 && de->d_name[16] == '.' && strcmp (de->d_name, name) != 0)
          remove_tree_at (lkgfd, de->d_name, SNAPSHOT_DEPTH);
      closedir (d);
    }
  return 0;
}

int
bwsh_policy_lkg_load (const char *policy_path, const BwshIdentity *id, BwshPolicy **ret, int64_t *ret_saved,
                      BwshError *err)
{
  _cleanup_free_ char *snap = NULL, *main = NULL;
  char key[17];
  struct stat st;
  int r;

  if (policy_path == NULL || policy_path[0] != '/')
    return -EINVAL;
  key_of (policy_path, key);
  if (asprintf (&snap, "%s/%s", lkg_dir (), key) < 0)
    return -ENOMEM;
  /* The link itself is root's (only root writes the directory). */
  if (lstat (snap, &st) < 0)
    return -errno;
  if (!S_ISLNK (st.st_mode) || st.st_uid != 0)
    return bwsh_error_set (err, -EPERM, snap, 0, 0, "not a last-good copy of root's");
  if (stat (snap, &st) < 0)
    return -errno;
  if (!S_ISDIR (st.st_mode) || st.st_uid != 0 || (st.st_mode & 0022) != 0)
    return bwsh_error_set (err, -EPERM, snap, 0, 0, "must be a directory of root's that nobody else can write");
  if (asprintf (&main, "%s/%s", snap, base_of (policy_path)) < 0)
    return -ENOMEM;
  r = bwsh_policy_load (main, id, ret, err);
  if (r >= 0 && ret_saved != NULL)
    *ret_saved = (int64_t) st.st_mtime;
  return r;
}

int
bwsh_policy_error_reported (const BwshError *policy_error, bool record)
{
  _cleanup_free_ char *text = bwsh_error_to_string (policy_error), *version = NULL, *path = NULL;
  _cleanup_close_ int fd = -1;
  struct stat st = { 0 };
  char key[65];
  int len;

  if (text == NULL)
    return -ENOMEM;
  if (policy_error->file[0] != '\0')
    (void) stat (policy_error->file, &st);
  len = asprintf (&version, "%s%c%lld.%09ld%c%lld", text, 0, (long long) st.st_mtim.tv_sec, (long) st.st_mtim.tv_nsec,
                  0, (long long) st.st_size);
  if (len < 0)
    return -ENOMEM;
  bwsh_sha256_hex (version, (size_t) len, key);
  if (asprintf (&path, "%s/%s", BWSH_POLICY_ERRORS_DIR, key) < 0)
    return -ENOMEM;
  if (!record)
    {
      fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0)
        return errno == ENOENT ? 0 : -errno;
      return fstat (fd, &st) == 0 && st.st_uid == 0 && S_ISREG (st.st_mode) ? 1 : 0;
    }
  if (geteuid () != 0)
    return 0;
  /* BWSH_SESSIONS_DIR's parent, root's (tmpfiles.d, or the registry). */
  if (mkdir (BWSH_POLICY_ERRORS_DIR, 0755) < 0 && errno != EEXIST)
    return -errno;
  fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return errno == EEXIST ? 1 : -errno;
  if (write (fd, text, strlen (text)) < 0 || write (fd, "\n", 1) < 0)
    return -errno;
  return 0;
}
