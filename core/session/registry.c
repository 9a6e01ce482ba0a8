/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The live-session registry and the session locks.
 *
 * Registry: BWSH_SESSIONS_DIR (under /run: it dies with the boot, like the
 * sessions), root-owned 0755, one JSON file per session named PID-START-N
 * in its user's place (registry_place.c: uid/UID, pam_bwsh's; user/UID,
 * bwsh's own), written to a temporary name and renamed, so a reader never
 * sees half a file.  Crashes leave files behind; a login's count removes
 * those of its own user whose process is gone or whose number now belongs
 * to a later process, pam_bwsh's open and close those of the session's
 * user, and a listing (bwshctl sessions, lock, enforce) every one: a dead
 * session's entry never costs another user's login (#37).
 * bwsh runs as the user and must count that user's sessions and register
 * one that no pam_bwsh registered (a PAM stack without the module): the
 * registry is readable like utmp, and BWSH_SESSIONS_DIR/user (root-owned,
 * 1777) takes the places bwsh makes as the user; such an entry counts
 * only for the uid that owns the place and the process it names.
 * Registration writes first and counts after: two logins racing for the
 * last place may both be refused, never both admitted.  pam_bwsh's
 * registrations (root's) also hold BWSH_SESSIONS_DIR/.lock (root's, 0600:
 * no user can open it, let alone hold it) around the write and the count,
 * so that a storm of logins through PAM admits exactly max_sessions; bwsh's
 * own (a stack without pam_bwsh) cannot take it and keep the rule above.
 * Locks: see registry.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cleanup.h"
#include "errors.h"
#include "identity.h"
#include "procstat.h"
#include "registry.h"
#include "registry_json.h"
#include "registry_place.h"
#include "safeopen.h"

/* One entry holds a few names and digests; anything bigger is not ours. */
#define ENTRY_FILE_MAX (16 * 1024)

void
bwsh_session_entry_clear (BwshSessionEntry *e)
{
  free (e->id);
  free (e->user);
  free (e->service);
  free (e->rhost);
  free (e->tty);
  free (e->command);
  free (e->policy_path);
  *e = (BwshSessionEntry) { 0 };
}

void
bwsh_session_list_clear (BwshSessionList *l)
{
  for (size_t i = 0; i < l->n; i++)
    bwsh_session_entry_clear (&l->items[i]);
  free (l->items);
  *l = (BwshSessionList) { 0 };
}

void
bwsh_lock_clear (BwshLock *l)
{
  free (l->target);
  free (l->reason);
  free (l->by);
  *l = (BwshLock) { 0 };
}

static int
registry_open (const char *dir, bool make, int *ret_dirfd, BwshError *err)
{
  int r = bwsh_root_dir_open (dir != NULL ? dir : BWSH_SESSIONS_DIR, 0755, make, ret_dirfd, err);

  if (r == -ENOENT)
    return bwsh_error_set (err, r, dir != NULL ? dir : BWSH_SESSIONS_DIR, 0, 0, "no session registry");
  return r;
}

int
bwsh_registry_open (const char *dir, int *ret_dirfd, BwshError *err)
{
  return registry_open (dir, false, ret_dirfd, err);
}

/* @owner: the uid the file must belong to (0: root's, bwsh_uid_is_root());
 * (uid_t) -1: any but one that others may write. */
static int
read_small_at (int dirfd, const char *name, uid_t owner, uid_t *ret_owner, char **ret, size_t *ret_len)
{
  _cleanup_close_ int fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  _cleanup_free_ char *buf = NULL;
  struct stat st;
  ssize_t n;

  if (fd < 0)
    return -errno;
  if (fstat (fd, &st) < 0)
    return -errno;
  if (!S_ISREG (st.st_mode)
      || (owner != (uid_t) -1 && (owner == 0 ? !bwsh_uid_is_root (st.st_uid) : st.st_uid != owner))
      || (st.st_mode & 0022) != 0
      || st.st_size > ENTRY_FILE_MAX)
    return -EPERM;
  if (ret_owner != NULL)
    *ret_owner = st.st_uid;
  buf = malloc ((size_t) st.st_size + 1);
  if (buf == NULL)
    return -ENOMEM;
  n = read (fd, buf, (size_t) st.st_size);
  if (n < 0)
    return -errno;
  buf[n] = '\0';
  *ret_len = (size_t) n;
  *ret = steal_pointer (&buf);
  return 0;
}

static int
dup_json_string (json_t *o, const char *key, char **ret)
{
  const char *s = json_string_value (json_object_get (o, key));

  *ret = strdup (s != NULL ? s : "");
  return *ret == NULL ? -ENOMEM : 0;
}

static void
copy_digest (json_t *o, const char *key, char ret[65])
{
  const char *s = json_string_value (json_object_get (o, key));

  snprintf (ret, 65, "%s", s != NULL ? s : "");
}

static int
parse_entry (const char *name, const char *buf, size_t len, BwshSessionEntry *e)
{
  json_auto_t *o = json_loadb (buf, len, JSON_REJECT_DUPLICATES, NULL);
  int r;

  if (o == NULL || !json_is_object (o))
    return -EINVAL;
  *e = (BwshSessionEntry) { 0 };
  e->uid = (uid_t) json_integer_value (json_object_get (o, "uid"));
  e->pid = (pid_t) json_integer_value (json_object_get (o, "pid"));
  e->pid_start = (uint64_t) json_integer_value (json_object_get (o, "pid_start"));
  e->start = json_integer_value (json_object_get (o, "start"));
  copy_digest (o, "plan_digest", e->plan_digest);
  copy_digest (o, "policy_digest", e->policy_digest);
  if ((e->id = strdup (name)) == NULL || (r = dup_json_string (o, "user", &e->user)) < 0
      || (r = dup_json_string (o, "service", &e->service)) < 0 || (r = dup_json_string (o, "rhost", &e->rhost)) < 0
      || (r = dup_json_string (o, "tty", &e->tty)) < 0 || (r = dup_json_string (o, "command", &e->command)) < 0
      || (r = dup_json_string (o, "policy", &e->policy_path)) < 0)
    {
      bwsh_session_entry_clear (e);
      return -ENOMEM;
    }
  return e->pid > 0 ? 0 : -EINVAL;
}

/* A live entry: its process runs, is not a later one with the same
 * number, and (an entry bwsh wrote as the user) is that user's. */
static bool
entry_alive (const BwshSessionEntry *e, bool by_user)
{
  char path[32];
  struct stat st;
  uint64_t start;

  if (bwsh_pid_start_time (e->pid, &start) < 0 || start != e->pid_start)
    return false;
  if (!by_user)
    return true;
  snprintf (path, sizeof path, "/proc/%d", (int) e->pid);
  return stat (path, &st) == 0 && st.st_uid == e->uid;
}

/* The entries of one directory: root's (@by_user false), or the users'
 * (each file counts for the uid that owns it, never uid 0).  @uid: the
 * place's ((uid_t) -1: the registry's top or user/ itself, as before the
 * places, or squatted); @place: the ids' prefix. */
static int
list_dir (int dirfd, bool by_user, uid_t uid, const char *place, BwshSessionList *l)
{
  _cleanup_closedir_ DIR *d = NULL;
  struct dirent *de;
  int r = bwsh_registry_dir_stream (dirfd, &d);

  if (r < 0)
    return r;
  while ((de = readdir (d)) != NULL)
    {
      _cleanup_free_ char *buf = NULL;
      BwshSessionEntry e;
      uid_t owner = 0;
      size_t len = 0;
      char id[48 + sizeof de->d_name];

      if (de->d_name[0] == '.'
          || (!by_user && (strcmp (de->d_name, "user") == 0 || strcmp (de->d_name, BWSH_STATUS_DIR_NAME) == 0)))
        continue;
      r = read_small_at (dirfd, de->d_name, by_user ? uid : 0, &owner, &buf, &len);
      if (r == -ENOMEM)
        return r;
      if (r < 0)
        continue;
      snprintf (id, sizeof id, "%s%s", place, de->d_name);
      r = parse_entry (id, buf, len, &e);
      if (r == -ENOMEM)
        return r;
      if (r == 0 && ((by_user && (owner == 0 || e.uid != owner)) || (uid != (uid_t) -1 && e.uid != uid)))
        {
          /* Somebody else's name in a file of one's own: not an entry. */
          bwsh_session_entry_clear (&e);
          continue;
        }
      if (r < 0 || !entry_alive (&e, by_user))
        {
          /* A session whose process is gone: it crashed, or was killed
           * before its close_session ran.  (A user cannot remove root's.) */
          if (r == 0)
            bwsh_session_entry_clear (&e);
          (void) unlinkat (dirfd, de->d_name, 0);
          continue;
        }
      e.by_bwsh = by_user;
      BwshSessionEntry *grown = realloc (l->items, (l->n + 1) * sizeof *grown);
      if (grown == NULL)
        {
          bwsh_session_entry_clear (&e);
          return -ENOMEM;
        }
      l->items = grown;
      l->items[l->n++] = e;
    }
  return 0;
}

/* Every place of @part, and (user/) the entries in the part itself. */
static int
list_part (int dirfd, const char *part, BwshSessionList *l)
{
  _cleanup_closedir_ DIR *d = NULL;
  _cleanup_close_ int partfd = -1;
  bool root_part = strcmp (part, BWSH_REGISTRY_ROOT_PART) == 0;
  struct dirent *de;
  int r = bwsh_registry_part_open (dirfd, part, false, &partfd);

  if (r < 0)
    return 0; /* none, or not root's: nothing in it is an entry */
  if (!root_part && (r = list_dir (partfd, true, (uid_t) -1, BWSH_REGISTRY_USER_PART "/", l)) < 0)
    return r;
  r = bwsh_registry_dir_stream (partfd, &d);
  while (r >= 0 && (de = readdir (d)) != NULL)
    {
      _cleanup_close_ int fd = -1;
      unsigned long uid;
      char place[48], *end;

      if (de->d_name[0] < '0' || de->d_name[0] > '9')
        continue;
      errno = 0;
      uid = strtoul (de->d_name, &end, 10);
      /* A place that is not what its name says (squatted) holds no entry. */
      if (errno != 0 || *end != '\0' || uid >= (uid_t) -1
          || bwsh_registry_place_open_in (partfd, root_part, (uid_t) uid, false, &fd) < 0)
        continue;
      snprintf (place, sizeof place, "%s/%lu/", part, uid);
      r = list_dir (fd, !root_part, (uid_t) uid, place, l);
    }
  return r;
}

int
bwsh_registry_list (int dirfd, BwshSessionList *ret, BwshError *err)
{
  BwshSessionList l = { 0 };
  int r = list_dir (dirfd, false, (uid_t) -1, "", &l);

  if (r >= 0)
    r = list_part (dirfd, BWSH_REGISTRY_ROOT_PART, &l);
  if (r >= 0)
    r = list_part (dirfd, BWSH_REGISTRY_USER_PART, &l);
  if (r < 0)
    {
      bwsh_session_list_clear (&l);
      if (r == -ENOMEM)
        return bwsh_error_set (err, r, NULL, 0, 0, "out of memory");
      return bwsh_error_set (err, r, BWSH_SESSIONS_DIR, 0, 0, "cannot read the session registry: %s",
                             strerror (-r));
    }
  *ret = l;
  return 0;
}

/* Write @text to @name atomically, readable by all (bwsh reads the registry and the locks as the user).
 * @replace false: -EEXIST when @name exists.  @durable: fsync() first (a lock; an entry ends with the boot). */
static int
write_text_at (int dirfd, const char *name, const char *text, bool replace, bool durable)
{
  _cleanup_close_ int fd = -1;
  char tmp[128];
  size_t len, off = 0;

  len = strlen (text);
  snprintf (tmp, sizeof tmp, ".tmp.%d.%s", (int) getpid (), name);
  fd = openat (dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST && unlinkat (dirfd, tmp, 0) == 0) /* a crashed process's of this pid */
    fd = openat (dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return -errno;
  /* Whatever the caller's umask: bwsh reads these as the user. */
  if (fchmod (fd, 0644) < 0)
    {
      int r = -errno;
      (void) unlinkat (dirfd, tmp, 0);
      return r;
    }
  while (off < len)
    {
      ssize_t n = write (fd, text + off, len - off);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int r = -errno;
          (void) unlinkat (dirfd, tmp, 0);
          return r;
        }
      off += (size_t) n;
    }
  if ((durable && fsync (fd) < 0) || renameat2 (dirfd, tmp, dirfd, name, replace ? 0 : RENAME_NOREPLACE) < 0)
    {
      int r = -errno;
      (void) unlinkat (dirfd, tmp, 0);
      return r;
    }
  return 0;
}

/* Into the place @fd, whose ids start with @place, named @prefix PID-START-N. */
static int
add_in (int fd, const char *place, const char *prefix, BwshSessionEntry *e, BwshError *err)
{
  _cleanup_free_ char *text = NULL;
  char name[64];
  int r;

  if (bwsh_session_entry_json (e, &text) < 0)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  /* PID-START names the process; one process may hold several sessions
   * (a PAM application need not fork per session), hence the counter. */
  for (unsigned n = 0;; n++)
    {
      snprintf (name, sizeof name, "%s%d-%" PRIu64 "-%u", prefix, (int) e->pid, e->pid_start, n);
      r = write_text_at (fd, name, text, false, false);
      if (r != -EEXIST || n >= 64)
        break;
    }
  if (r < 0)
    return bwsh_error_set (err, r, BWSH_SESSIONS_DIR, 0, 0, "cannot register the session: %s", strerror (-r));
  if (e->home_epoch > 0)
    {
      /* A kept state's closure reads it from here (registry_place.c). */
      struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT },
                                { .tv_sec = e->home_epoch / 1000000000, .tv_nsec = e->home_epoch % 1000000000 } };
      if (utimensat (fd, name, ts, AT_SYMLINK_NOFOLLOW) < 0)
        {
          r = -errno;
          (void) unlinkat (fd, name, 0);
          return bwsh_error_set (err, r, BWSH_SESSIONS_DIR, 0, 0, "cannot register the session: %s", strerror (-r));
        }
    }
  free (e->id);
  if (asprintf (&e->id, "%s%s", place, name) < 0)
    {
      e->id = NULL;
      (void) unlinkat (fd, name, 0);
      return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
    }
  return 0;
}

int
bwsh_registry_add (int dirfd, BwshSessionEntry *e, BwshError *err)
{
  return add_in (dirfd, "", "", e, err);
}

/* ------------------------------------------------------------------ locks */

bool
bwsh_lock_target_valid (const char *target)
{
  const char *name = target != NULL && target[0] == '@' ? target + 1 : target;
  size_t len = name != NULL ? strlen (name) : 0;

  if (len == 0 || len > 64 || name[0] == '.' || name[0] == '-')
    return false;
  for (const char *p = name; *p != '\0'; p++)
    if (*p == '/' || (unsigned char) *p < 0x21 || (unsigned char) *p == 0x7f)
      return false;
  return true;
}

/* "user:NAME" or "group:NAME": a user called "@x" cannot collide with group x. */
static int
lock_file_name (const char *target, char *buf, size_t size)
{
  if (!bwsh_lock_target_valid (target))
    return -EINVAL;
  if (target[0] == '@')
    snprintf (buf, size, "group:%s", target + 1);
  else
    snprintf (buf, size, "user:%s", target);
  return 0;
}

int
bwsh_lock_write (const char *dir, const BwshLock *l, BwshError *err)
{
  _cleanup_close_ int dirfd = -1;
  json_auto_t *o = NULL;
  _cleanup_free_ char *text = NULL;
  char name[80];
  int r;

  dir = dir != NULL ? dir : BWSH_LOCKS_DIR;
  if (lock_file_name (l->target, name, sizeof name) < 0)
    return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "invalid lock target");
  r = bwsh_root_dir_open (dir, 0755, true, &dirfd, err);
  if (r < 0)
    return r;
  o = json_pack ("{s:s, s:s, s:s, s:I}", "target", l->target, "reason", l->reason != NULL ? l->reason : "",
                 "by", l->by != NULL ? l->by : "", "since", (json_int_t) l->since);
  if (o == NULL || (text = json_dumps (o, JSON_SORT_KEYS | JSON_COMPACT)) == NULL)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  r = write_text_at (dirfd, name, text, true, true);
  if (r < 0)
    return bwsh_error_set (err, r, dir, 0, 0, "cannot write the lock: %s", strerror (-r));
  return 0;
}

int
bwsh_lock_remove (const char *dir, const char *target, BwshError *err)
{
  _cleanup_close_ int dirfd = -1;
  char name[80];
  int r;

  dir = dir != NULL ? dir : BWSH_LOCKS_DIR;
  if (lock_file_name (target, name, sizeof name) < 0)
    return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "invalid lock target");
  r = bwsh_root_dir_open (dir, 0755, true, &dirfd, err);
  if (r < 0)
    return r;
  if (unlinkat (dirfd, name, 0) < 0)
    return errno == ENOENT ? -ENOENT : bwsh_error_set (err, -errno, dir, 0, 0, "cannot remove the lock: %m");
  return 0;
}

static int
read_lock_at (int dirfd, const char *name, BwshLock *ret)
{
  _cleanup_free_ char *buf = NULL;
  json_auto_t *o = NULL;
  BwshLock l = { 0 };
  size_t len = 0;
  int r;

  r = read_small_at (dirfd, name, 0, NULL, &buf, &len);
  if (r == -EACCES)
    {
      /* A lock bwshctl wrote 0600 (before bwsh enforced locks as the
       * user): there is a lock, its reason is root's to read. */
      l.target = strdup (strchr (name, ':') != NULL ? strchr (name, ':') + 1 : name);
      if (l.target != NULL && strncmp (name, "group:", 6) == 0)
        {
          char *t = NULL;
          if (asprintf (&t, "@%s", l.target) < 0)
            t = NULL;
          free (l.target);
          l.target = t;
        }
      l.reason = strdup ("");
      l.by = strdup ("");
      if (l.target == NULL || l.reason == NULL || l.by == NULL)
        {
          bwsh_lock_clear (&l);
          return -ENOMEM;
        }
      *ret = l;
      return 0;
    }
  if (r < 0)
    return r;
  o = json_loadb (buf, len, JSON_REJECT_DUPLICATES, NULL);
  if (o == NULL || !json_is_object (o))
    {
      /* Unreadable but present: still a lock. */
      l.target = strdup (strchr (name, ':') != NULL ? strchr (name, ':') + 1 : name);
      l.reason = strdup ("locked");
      l.by = strdup ("");
    }
  else
    {
      l.since = json_integer_value (json_object_get (o, "since"));
      if (dup_json_string (o, "target", &l.target) < 0 || dup_json_string (o, "reason", &l.reason) < 0
          || dup_json_string (o, "by", &l.by) < 0)
        {
          bwsh_lock_clear (&l);
          return -ENOMEM;
        }
    }
  if (l.target == NULL || l.reason == NULL || l.by == NULL)
    {
      bwsh_lock_clear (&l);
      return -ENOMEM;
    }
  *ret = l;
  return 0;
}

static int
open_locks_dir (const char *dir, int *ret_fd, BwshError *err)
{
  int fd = open (dir != NULL ? dir : BWSH_LOCKS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;

  if (fd < 0)
    return errno == ENOENT ? -ENOENT
                           : bwsh_error_set (err, -errno, dir != NULL ? dir : BWSH_LOCKS_DIR, 0, 0,
                                             "cannot open the locks directory: %m");
  if (fstat (fd, &st) < 0 || !bwsh_uid_is_root (st.st_uid) || (st.st_mode & 0022) != 0)
    {
      close (fd);
      return bwsh_error_set (err, -EPERM, dir != NULL ? dir : BWSH_LOCKS_DIR, 0, 0,
                             "must be owned by root and writable by nobody else");
    }
  *ret_fd = fd;
  return 0;
}

int
bwsh_lock_list (const char *dir, BwshLock **ret, size_t *ret_n, BwshError *err)
{
  _cleanup_closedir_ DIR *d = NULL;
  _cleanup_close_ int dirfd = -1;
  BwshLock *v = NULL;
  size_t n = 0;
  struct dirent *de;
  int r;

  *ret = NULL;
  *ret_n = 0;
  r = open_locks_dir (dir, &dirfd, err);
  if (r == -ENOENT)
    return 0;
  if (r < 0)
    return r;
  r = bwsh_registry_dir_stream (dirfd, &d);
  if (r < 0)
    return bwsh_error_set (err, r, dir, 0, 0, "cannot read the locks directory: %s", strerror (-r));
  while ((de = readdir (d)) != NULL)
    {
      BwshLock l, *grown;
      if (de->d_name[0] == '.')
        continue;
      r = read_lock_at (dirfd, de->d_name, &l);
      if (r == -ENOMEM)
        goto oom;
      if (r < 0)
        continue;
      grown = realloc (v, (n + 1) * sizeof *v);
      if (grown == NULL)
        {
          bwsh_lock_clear (&l);
          goto oom;
        }
      v = grown;
      v[n++] = l;
    }
  *ret = v;
  *ret_n = n;
  return 0;
oom:
  for (size_t i = 0; i < n; i++)
    bwsh_lock_clear (&v[i]);
  free (v);
  return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
}

bool
bwsh_lock_applies (const char *target, const BwshIdentity *id)
{
  if (target == NULL || id == NULL || id->name == NULL)
    return false;
  if (target[0] != '@')
    return strcmp (target, id->name) == 0;
  /* Not knowing the groups: the lock does not apply by group (the caller
   * that must fail closed asks bwsh_identity_load_groups() first). */
  return bwsh_identity_load_groups (id, NULL) >= 0 && bwsh_identity_in_group (id, target + 1);
}

int
bwsh_lock_find (const char *dir, const BwshIdentity *id, BwshLock *ret, BwshError *err)
{
  _cleanup_closedir_ DIR *d = NULL;
  _cleanup_close_ int dirfd = -1;
  struct dirent *de;
  char name[80];
  int r;

  r = open_locks_dir (dir, &dirfd, err);
  if (r < 0)
    return r;
  if (bwsh_lock_target_valid (id->name) && id->name[0] != '@')
    {
      snprintf (name, sizeof name, "user:%s", id->name);
      r = read_lock_at (dirfd, name, ret);
      if (r != -ENOENT)
        return r;
    }
  /* Group locks: the user's groups are looked up only when one exists. */
  r = bwsh_registry_dir_stream (dirfd, &d);
  if (r < 0)
    return bwsh_error_set (err, r, dir, 0, 0, "cannot read the locks directory: %s", strerror (-r));
  while ((de = readdir (d)) != NULL)
    {
      char target[80];

      if (strncmp (de->d_name, "group:", 6) != 0)
        continue;
      /* A lock must not be lost to a directory that is down. */
      r = bwsh_identity_load_groups (id, err);
      if (r < 0)
        return r;
      snprintf (target, sizeof target, "@%s", de->d_name + 6);
      if (bwsh_lock_applies (target, id))
        return read_lock_at (dirfd, de->d_name, ret);
    }
  return -ENOENT;
}

int
bwsh_registry_read (const char *dir, BwshSessionList *ret, BwshError *err)
{
  _cleanup_close_ int dirfd = -1;
  int r = bwsh_registry_open (dir, &dirfd, err);

  *ret = (BwshSessionList) { 0 };
  if (r == -ENOENT)
    return 0; /* no registry yet this boot: nobody has a session */
  if (r < 0)
    return r;
  return bwsh_registry_list (dirfd, ret, err);
}

/* @uid's places only: the names, never another user's (#37).  No
 * registry yet this boot: nobody has a session. */
static int
read_places (const char *dir, uid_t uid, const char *except_id, const BwshRegistryName *own, size_t *ret_live,
             int64_t *ret_oldest, BwshError *err)
{
  _cleanup_close_ int dirfd = -1;
  int r = bwsh_registry_open (dir, &dirfd, err);

  if (r == -ENOENT)
    {
      if (ret_live != NULL)
        *ret_live = 0;
      if (ret_oldest != NULL)
        *ret_oldest = INT64_MAX;
      return 0;
    }
  if (r < 0)
    return r;
  r = ret_oldest != NULL ? bwsh_registry_oldest_at (dirfd, uid, own, ret_oldest)
                         : bwsh_registry_count_at (dirfd, uid, except_id, ret_live);
  if (r < 0)
    return bwsh_error_set (err, r, dir != NULL ? dir : BWSH_SESSIONS_DIR, 0, 0,
                           "cannot read the session registry: %s", strerror (-r));
  return 0;
}

int
bwsh_registry_count (const char *dir, uid_t uid, const char *except_id, size_t *ret_live, BwshError *err)
{
  return read_places (dir, uid, except_id, NULL, ret_live, NULL, err);
}

int
bwsh_registry_oldest (const char *dir, uid_t uid, const BwshRegistryName *own, int64_t *ret_oldest,
                      BwshError *err)
{
  return read_places (dir, uid, NULL, own, NULL, ret_oldest, err);
}

int
bwsh_registry_register (const char *dir, BwshSessionEntry *e, unsigned max_sessions, size_t *ret_live,
                        BwshError *err)
{
  _cleanup_close_ int dirfd = -1, partfd = -1, placefd = -1, lockfd = -1;
  bool root = geteuid () == 0;
  char place[48], prefix[16] = "";
  size_t live = 0;
  int r;

  r = registry_open (dir, true, &dirfd, err);
  if (r < 0)
    return r;
  /* Root (pam_bwsh) makes the users' part on the way, for bwsh. */
  r = bwsh_registry_part_open (dirfd, BWSH_REGISTRY_USER_PART, true, &partfd);
  snprintf (place, sizeof place, "%s/%u/", root ? BWSH_REGISTRY_ROOT_PART : BWSH_REGISTRY_USER_PART,
            (unsigned) e->uid);
  if (root)
    r = bwsh_registry_place_open (dirfd, BWSH_REGISTRY_ROOT_PART, e->uid, true, &placefd);
  else if (r >= 0)
    {
      /* bwsh, as the user: its place in the users' part, which root made. */
      r = bwsh_registry_place_open_in (partfd, false, e->uid, true, &placefd);
      if (r == -EEXIST)
        {
          /* Somebody else made user/UID: user/UID-PID-START-N (registry_place.c). */
          placefd = steal_fd (&partfd);
          snprintf (place, sizeof place, "%s/", BWSH_REGISTRY_USER_PART);
          snprintf (prefix, sizeof prefix, "%u-", (unsigned) e->uid);
          r = 0;
        }
    }
  if (r < 0)
    return bwsh_error_set (err, r, dir != NULL ? dir : BWSH_SESSIONS_DIR, 0, 0,
                           "cannot open the user's place in the session registry: %s", strerror (-r));
  if (root)
    {
      lockfd = openat (dirfd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (lockfd < 0)
        return bwsh_error_set (err, -errno, dir != NULL ? dir : BWSH_SESSIONS_DIR, 0, 0,
                               "cannot open the registry's lock: %m");
      while (flock (lockfd, LOCK_EX) < 0)
        if (errno != EINTR)
          return bwsh_error_set (err, -errno, dir != NULL ? dir : BWSH_SESSIONS_DIR, 0, 0,
                                 "cannot take the registry's lock: %m");
    }
  r = add_in (placefd, place, prefix, e, err);
  if (r < 0)
    return r;
  /* Written first, counted after: see the top of this file. */
  r = bwsh_registry_count_at (dirfd, e->uid, e->id, &live);
  if (r < 0)
    r = bwsh_error_set (err, r, dir != NULL ? dir : BWSH_SESSIONS_DIR, 0, 0, "cannot read the session registry: %s",
                        strerror (-r));
  else if (max_sessions > 0 && live >= max_sessions)
    r = bwsh_error_set (err, -EUSERS, NULL, 0, 0, "%zu sessions are open, at most %u are allowed (max_sessions)",
                        live, max_sessions);
  if (r < 0)
    {
      (void) bwsh_registry_remove (dirfd, e->id);
      free (e->id);
      e->id = NULL;
    }
  *ret_live = live;
  return r;
}

int
bwsh_registry_unregister (const char *dir, const char *id)
{
  _cleanup_close_ int dirfd = -1;
  int r;

  r = bwsh_registry_open (dir, &dirfd, NULL);
  if (r < 0)
    return r;
  r = bwsh_registry_remove (dirfd, id);
  /* Root closing a session of UID removes UID's entries whose close never
   * ran (their process is gone): pam_bwsh's open does the same. */
  if (geteuid () == 0)
    bwsh_registry_sweep (dirfd, id);
  return r;
}
