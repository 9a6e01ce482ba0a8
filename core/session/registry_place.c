/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The registry's per-uid places (registry.c writes and lists the entries):
 * what a login asks of the registry, answered from the names of its own
 * user's entries (#37).
 *
 *   uid/UID/PID-START-N    pam_bwsh's entries: root's place, made by root,
 *                          that no user can create or fill
 *   user/UID/PID-START-N   bwsh's own (a PAM stack without pam_bwsh): a place
 *                          the user makes in the sticky user/ (root's, 1777),
 *                          used only while it is the user's and writable by
 *                          nobody else
 *   user/UID-PID-START-N   the same, when another user made user/UID first:
 *                          a squatter costs its victim a listing of user/'s
 *                          names, never a refusal
 *
 * The name is the answer: PID-START names a process, and /proc/PID/stat
 * saying START proves it still runs (an entry bwsh wrote must also name a
 * process of its user's).  Neither the ancestor lookup nor a count reads an
 * entry's JSON or another user's place, so a login costs the same with no
 * live session on the host and with a thousand of other users', live or
 * stale.  A count removes the entries of its own user whose process is gone
 * where it may: the user its own files; root (pam_bwsh at every open and
 * close, bwshctl) both places.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "errors.h"
#include "procstat.h"
#include "registry_place.h"
#include "safeopen.h"

/* With @make (root writing: a registration, a lock), make @path (and its
 * missing ancestors) a root-owned directory of @mode, bringing an older mode
 * (0700 before bwsh read these as the user) to @mode.  Without, only open
 * it: a reader (explain, a count, bwsh) creates nothing.  Either way it
 * must be root's and writable by nobody else (@mode 01777: world-writable
 * and sticky, like /tmp). */
int
bwsh_root_dir_open (const char *path, mode_t mode, bool make, int *ret_fd, BwshError *err)
{
  _cleanup_free_ char *parent = strdup (path);
  _cleanup_close_ int fd = -1;
  struct stat st;
  bool create;
  char *slash;

  if (parent == NULL)
    return -ENOMEM;
  slash = strrchr (parent, '/');
  make = make && geteuid () == 0;
  /* Made only when missing: where it is (every login but the first of a
   * boot) one open() instead of a mkdir() per element (#37). */
  fd = open (path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  create = make && fd < 0 && errno == ENOENT;
  if (slash != NULL && slash != parent && create)
    {
      /* Missing ancestors (a test prefix's run/) get the usual 0755. */
      *slash = '\0';
      for (char *p = strchr (parent + 1, '/'); p != NULL; p = strchr (p + 1, '/'))
        {
          *p = '\0';
          if (mkdir (parent, 0755) < 0 && errno != EEXIST)
            return bwsh_error_set (err, -errno, parent, 0, 0, "cannot create the directory: %m");
          *p = '/';
        }
      if (mkdir (parent, 0755) < 0 && errno != EEXIST)
        return bwsh_error_set (err, -errno, parent, 0, 0, "cannot create the directory: %m");
    }
  if (create && mkdir (path, mode & 0777) < 0 && errno != EEXIST)
    return bwsh_error_set (err, -errno, path, 0, 0, "cannot create the directory: %m");
  if (fd < 0)
    fd = open (path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT ? -ENOENT : bwsh_error_set (err, -errno, path, 0, 0, "cannot open the directory: %m");
  if (fstat (fd, &st) < 0)
    return bwsh_error_set (err, -errno, path, 0, 0, "cannot stat the directory: %m");
  if (st.st_uid == 0 && make && (st.st_mode & 07777) != mode && fchmod (fd, mode) == 0)
    st.st_mode = (st.st_mode & ~(mode_t) 07777) | mode;
  if (!bwsh_uid_is_root (st.st_uid) || ((st.st_mode & 07777) != mode && (make || (st.st_mode & 0022) != 0)))
    return bwsh_error_set (err, -EPERM, path, 0, 0, "must be owned by root with mode %04o", (unsigned) mode);
  *ret_fd = steal_fd (&fd);
  return 0;
}

/* A directory @name below @dirfd, never through a symlink. */
static int
open_dir_at (int dirfd, const char *name, int *ret_fd, struct stat *ret_st)
{
  _cleanup_close_ int fd = openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  if (fd < 0)
    return -errno;
  if (fstat (fd, ret_st) < 0)
    return -errno;
  *ret_fd = steal_fd (&fd);
  return 0;
}

int
bwsh_registry_part_open (int dirfd, const char *part, bool make, int *ret_fd)
{
  bool root_part = strcmp (part, BWSH_REGISTRY_ROOT_PART) == 0;
  mode_t mode = root_part ? 0755 : 01777;
  _cleanup_close_ int fd = -1;
  struct stat st;
  int r;

  make = make && geteuid () == 0;
  r = open_dir_at (dirfd, part, &fd, &st);
  if (r == -ENOENT && make)
    r = mkdirat (dirfd, part, mode) < 0 && errno != EEXIST ? -errno : open_dir_at (dirfd, part, &fd, &st);
  if (r < 0)
    return r;
  /* mkdir's mode is cut by the umask. */
  if (make && st.st_uid == 0 && (st.st_mode & 07777) != mode && fchmod (fd, mode) == 0)
    st.st_mode = (st.st_mode & ~(mode_t) 07777) | mode;
  if (!bwsh_uid_is_root (st.st_uid) || (root_part ? (st.st_mode & 0022) != 0 : (st.st_mode & 07777) != mode))
    return -EPERM;
  *ret_fd = steal_fd (&fd);
  return 0;
}

int
bwsh_registry_place_open_in (int partfd, bool root_part, uid_t uid, bool make, int *ret_fd)
{
  _cleanup_close_ int fd = -1;
  char name[16];
  struct stat st;
  int r;

  snprintf (name, sizeof name, "%u", (unsigned) uid);
  /* Root makes its own places; a user, its own in user/. */
  make = make && geteuid () == (root_part ? 0 : uid);
  r = open_dir_at (partfd, name, &fd, &st);
  if (r == -ENOENT && make)
    r = mkdirat (partfd, name, 0755) < 0 && errno != EEXIST ? -errno : open_dir_at (partfd, name, &fd, &st);
  if (!root_part && (r == -ELOOP || r == -ENOTDIR))
    return -EEXIST; /* a symlink or a file by that name: squatted too */
  if (r < 0)
    return r;
  if (make && st.st_uid == geteuid () && (st.st_mode & 0022) != 0 && fchmod (fd, 0755) == 0)
    st.st_mode &= ~(mode_t) 0022;
  if ((st.st_mode & 0022) != 0 || (root_part ? !bwsh_uid_is_root (st.st_uid) : st.st_uid != uid))
    return root_part ? -EPERM : -EEXIST; /* user/UID: somebody else's name */
  *ret_fd = steal_fd (&fd);
  return 0;
}

int
bwsh_registry_place_open (int dirfd, const char *part, uid_t uid, bool make, int *ret_fd)
{
  _cleanup_close_ int partfd = -1;
  int r = bwsh_registry_part_open (dirfd, part, make, &partfd);

  if (r < 0)
    return r;
  return bwsh_registry_place_open_in (partfd, strcmp (part, BWSH_REGISTRY_ROOT_PART) == 0, uid, make, ret_fd);
}

/* A DIR stream of its own over @dirfd (which stays open). */
int
bwsh_registry_dir_stream (int dirfd, DIR **ret)
{
  int fd = fcntl (dirfd, F_DUPFD_CLOEXEC, 3);
  DIR *d;

  if (fd < 0)
    return -errno;
  d = fdopendir (fd);
  if (d == NULL)
    {
      int r = -errno;
      close (fd);
      return r;
    }
  rewinddir (d);
  *ret = d;
  return 0;
}

/* A part of the registry below @dirfd, root's with @mode: the users' part
 * ("user", 01777), the status files ("status", 0755, ended.c; never read as
 * entries).  Root makes it (@make). */
int
bwsh_registry_subdir (int dirfd, const char *name, mode_t mode, bool make, int *ret_fd)
{
  _cleanup_close_ int fd = -1;
  struct stat st;

  make = make && geteuid () == 0;
  if (make && mkdirat (dirfd, name, mode) < 0 && errno != EEXIST)
    return -errno;
  fd = openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  if (fstat (fd, &st) < 0)
    return -errno;
  /* mkdir's mode is cut by the umask. */
  if (st.st_uid == 0 && make && (st.st_mode & 07777) != mode && fchmod (fd, mode) == 0)
    st.st_mode = (st.st_mode & ~(mode_t) 07777) | mode;
  if (!bwsh_uid_is_root (st.st_uid) || (st.st_mode & 07777) != mode)
    return -EPERM;
  *ret_fd = steal_fd (&fd);
  return 0;
}

/* @id is a path below the registry ("uid/1000/NAME"): each directory on
 * the way is opened without following a symlink (user/UID is a user's). */
int
bwsh_registry_remove (int dirfd, const char *id)
{
  _cleanup_close_ int fd = -1;
  char buf[128], *comp, *slash;

  if (id == NULL || strlen (id) >= sizeof buf)
    return -EINVAL;
  strcpy (buf, id);
  for (comp = buf;; comp = slash + 1)
    {
      int next;

      if (comp[0] == '.' || comp[0] == '\0')
        return -EINVAL;
      slash = strchr (comp, '/');
      if (slash == NULL)
        return unlinkat (fd >= 0 ? fd : dirfd, comp, 0) < 0 ? -errno : 0;
      *slash = '\0';
      next = openat (fd >= 0 ? fd : dirfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (next < 0)
        return -errno;
      if (fd >= 0)
        close (fd);
      fd = next;
    }
}

/* A decimal number of digits only (strtoull would take a sign or blanks). */
static int
parse_number (const char *s, const char **ret_end, unsigned long long *ret)
{
  char *end;

  if (*s < '0' || *s > '9')
    return -EINVAL;
  errno = 0;
  *ret = strtoull (s, &end, 10);
  if (errno != 0)
    return -EINVAL;
  *ret_end = end;
  return 0;
}

int
bwsh_registry_name_parse (const char *name, pid_t *ret_pid, uint64_t *ret_start)
{
  unsigned long long pid, start, n;
  const char *p = name;

  if (parse_number (p, &p, &pid) < 0 || *p != '-' || pid == 0 || pid > INT_MAX
      || parse_number (p + 1, &p, &start) < 0 || *p != '-' || parse_number (p + 1, &p, &n) < 0 || *p != '\0')
    return -EINVAL;
  *ret_pid = (pid_t) pid;
  *ret_start = (uint64_t) start;
  return 0;
}

/* The process @pid started at @start still runs (and, @by_user, is @uid's). */
static bool
name_alive (pid_t pid, uint64_t start, bool by_user, uid_t uid)
{
  char path[32];
  struct stat st;
  uint64_t now;

  if (bwsh_pid_start_time (pid, &now) < 0 || now != start)
    return false;
  if (!by_user)
    return true;
  snprintf (path, sizeof path, "/proc/%d", (int) pid);
  return stat (path, &st) == 0 && st.st_uid == uid;
}

/* A DIR stream over @fdp, a directory just opened: it takes the fd. */
static int
dir_take (int *fdp, DIR **ret)
{
  *ret = fdopendir (*fdp);
  if (*ret == NULL)
    return -errno;
  *fdp = -1;
  return 0;
}

/* When the process that started at @start (clock ticks after boot, as in an
 * entry's name) started, in ns since the epoch: a little early, never late
 * (the tick rounds down). */
static int64_t
start_to_realtime (uint64_t start)
{
  struct timespec real, boot;
  long hz = sysconf (_SC_CLK_TCK);

  if (hz <= 0 || clock_gettime (CLOCK_REALTIME, &real) < 0 || clock_gettime (CLOCK_BOOTTIME, &boot) < 0)
    return 0;
  return ((int64_t) real.tv_sec - (int64_t) boot.tv_sec) * 1000000000 + ((int64_t) real.tv_nsec - boot.tv_nsec)
         + (int64_t) (start / (uint64_t) hz) * 1000000000 + (int64_t) (start % (uint64_t) hz) * (1000000000 / hz);
}

/* A real entry born less than this before a live session's start counts
 * as born after it: a file's times come from the kernel's coarse clock (a
 * jiffy behind, 4 ms at HZ=250), and the start read from an entry's name
 * is the process's, in clock ticks after boot, converted with the boot's
 * offset read again now. */
#define HOME_EPOCH_SLACK_NS INT64_C (50000000)

/* How far the coarse clock, which stamps a file's times, may lag. */
static int64_t
coarse_tick (void)
{
  struct timespec res;

  if (clock_getres (CLOCK_REALTIME_COARSE, &res) < 0 || res.tv_sec != 0 || res.tv_nsec <= 0)
    return HOME_EPOCH_SLACK_NS;
  return res.tv_nsec;
}

/* The home epoch of the live entry @name in @fd, started at @start, less
 * what the clocks leave unsure.  pam_bwsh's entry of this very session
 * (@own) by its mtime alone: pam_bwsh wrote it, as root, with the epoch of
 * its own plan, or at its registration when that plan kept no state, and
 * every sandbox of that session (more than one where one process holds
 * several, hence the counter in the name) started after that and listed
 * the home itself.  Its process's start (an sshd that began before the
 * user authenticated) would leave out what appeared during the login. */
static int64_t
entry_epoch (int fd, const char *name, uint64_t start, bool own)
{
  int64_t t = start_to_realtime (start), m;
  struct stat st;

  if (fstatat (fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return t - HOME_EPOCH_SLACK_NS;
  m = (int64_t) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
  if (own)
    return m - coarse_tick ();
  return (m < t ? m : t) - HOME_EPOCH_SLACK_NS;
}

/* Count the live entries of @uid in the directory *@fdp (taken): the names
 * @prefix PID-START-N (@prefix "": all of them), but @except; remove those
 * whose process is gone, where this process may.  In user/ itself
 * (@prefix "UID-") a file counts only when @uid owns it.  With @oldest, the
 * earliest home epoch of them (entry_epoch(); @own: pam_bwsh's entry of
 * this session, in root's part only). */
static int
count_dir (int *fdp, uid_t uid, bool by_user, const char *prefix, const char *except, const BwshRegistryName *own,
           size_t *live, int64_t *oldest)
{
  _cleanup_closedir_ DIR *d = NULL;
  size_t plen = strlen (prefix);
  struct dirent *de;
  int fd, r = dir_take (fdp, &d);

  if (r < 0)
    return r;
  fd = dirfd (d);
  while ((de = readdir (d)) != NULL)
    {
      uint64_t start;
      struct stat st;
      pid_t pid;

      if (de->d_name[0] == '.' || strncmp (de->d_name, prefix, plen) != 0
          || bwsh_registry_name_parse (de->d_name + plen, &pid, &start) < 0
          || (except != NULL && strcmp (de->d_name, except) == 0))
        continue;
      if (plen > 0 && (fstatat (fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG (st.st_mode)
                       || st.st_uid != uid))
        continue;
      if (name_alive (pid, start, by_user, uid))
        {
          (*live)++;
          if (oldest != NULL)
            {
              int64_t t = entry_epoch (fd, de->d_name, start,
                                       !by_user && own != NULL && own->pid == pid && own->start == start);
              if (t < *oldest)
                *oldest = t;
            }
        }
      else
        (void) unlinkat (fd, de->d_name, 0); /* EACCES for a user in root's place: root's to remove */
    }
  return 0;
}

/* @except_id's name when it lies in @place ("uid/UID/"), else NULL. */
static const char *
except_in (const char *except_id, const char *place)
{
  size_t n = strlen (place);

  return except_id != NULL && strncmp (except_id, place, n) == 0 ? except_id + n : NULL;
}

static int
scan_at (int dirfd, uid_t uid, const char *except_id, const BwshRegistryName *own, size_t *ret_live,
         int64_t *oldest)
{
  _cleanup_close_ int rootfd = -1, partfd = -1, userfd = -1;
  char place[48];
  size_t live = 0;
  int r;

  /* pam_bwsh's entries of @uid. */
  r = bwsh_registry_place_open (dirfd, BWSH_REGISTRY_ROOT_PART, uid, false, &rootfd);
  if (r < 0 && r != -ENOENT)
    return r;
  snprintf (place, sizeof place, "%s/%u/", BWSH_REGISTRY_ROOT_PART, (unsigned) uid);
  if (r >= 0 && (r = count_dir (&rootfd, uid, false, "", except_in (except_id, place), own, &live, oldest)) < 0)
    return r;
  /* bwsh's own: in the user's place, or in user/ when it is squatted.
   * No user/ (root never made it): bwsh registered none. */
  if (bwsh_registry_part_open (dirfd, BWSH_REGISTRY_USER_PART, false, &partfd) >= 0)
    {
      r = bwsh_registry_place_open_in (partfd, false, uid, false, &userfd);
      snprintf (place, sizeof place, "%s/%u/", BWSH_REGISTRY_USER_PART, (unsigned) uid);
      if (r >= 0)
        r = count_dir (&userfd, uid, true, "", except_in (except_id, place), NULL, &live, oldest);
      else if (r == -EEXIST || r == -ENOENT)
        {
          char prefix[16];
          snprintf (prefix, sizeof prefix, "%u-", (unsigned) uid);
          snprintf (place, sizeof place, "%s/", BWSH_REGISTRY_USER_PART);
          /* Squatted: user/UID-...; none yet: a squatter gone since may
           * have left some (user/ holds a name per user, not per session). */
          r = count_dir (&partfd, uid, true, prefix, except_in (except_id, place), NULL, &live, oldest);
        }
      if (r < 0)
        return r;
    }
  *ret_live = live;
  return 0;
}

int
bwsh_registry_count_at (int dirfd, uid_t uid, const char *except_id, size_t *ret_live)
{
  return scan_at (dirfd, uid, except_id, NULL, ret_live, NULL);
}

int
bwsh_registry_oldest_at (int dirfd, uid_t uid, const BwshRegistryName *own, int64_t *ret_oldest)
{
  int64_t oldest = INT64_MAX;
  size_t live = 0;
  int r = scan_at (dirfd, uid, NULL, own, &live, &oldest);

  if (r < 0)
    return r;
  *ret_oldest = oldest;
  return 0;
}

int
bwsh_registry_place_holds (int *placefd, pid_t pid, size_t depth, bool *ret, BwshRegistryName *ret_name)
{
  _cleanup_closedir_ DIR *d = NULL;
  _cleanup_free_ BwshRegistryName *names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *de;
  int r = dir_take (placefd, &d);

  *ret = false;
  if (r < 0)
    return r;
  while ((de = readdir (d)) != NULL)
    {
      BwshRegistryName e;

      if (de->d_name[0] == '.' || bwsh_registry_name_parse (de->d_name, &e.pid, &e.start) < 0 || e.pid <= 0)
        continue;
      /* The entry of a process that is gone names no ancestor: one kill (0)
       * instead of the chain's reads from /proc (#37).  Anything but ESRCH
       * (EPERM: another user's) leaves it to the chain. */
      if (kill (e.pid, 0) < 0 && errno == ESRCH)
        continue;
      if (n == cap)
        {
          BwshRegistryName *v = reallocarray (names, cap = cap > 0 ? 2 * cap : 8, sizeof *v);
          if (v == NULL)
            return -ENOMEM;
          names = v;
        }
      names[n++] = e;
    }
  /* The chain is read from /proc now: a match is a live entry. */
  for (size_t k = 0; n > 0 && pid > 1 && k < depth; k++)
    {
      pid_t parent;
      uint64_t start;

      if (bwsh_pid_parent_start (pid, &parent, &start) < 0)
        break;
      for (size_t i = 0; i < n; i++)
        if (names[i].pid == pid && names[i].start == start)
          {
            *ret = true;
            if (ret_name != NULL)
              *ret_name = (BwshRegistryName) { .pid = pid, .start = start };
            return 0;
          }
      pid = parent;
    }
  return 0;
}

void
bwsh_registry_sweep (int dirfd, const char *id)
{
  unsigned long uid;
  size_t live;
  char *end;

  if (id == NULL || strncmp (id, BWSH_REGISTRY_ROOT_PART "/", sizeof BWSH_REGISTRY_ROOT_PART) != 0)
    return;
  errno = 0;
  uid = strtoul (id + sizeof BWSH_REGISTRY_ROOT_PART, &end, 10);
  if (errno == 0 && *end == '/' && uid < (uid_t) -1)
    (void) bwsh_registry_count_at (dirfd, (uid_t) uid, NULL, &live);
}
