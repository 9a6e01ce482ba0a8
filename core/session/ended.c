/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How a session ended: the exit status its bwrap reported, and the lock
 * that ended it, if one did (audit.h).
 *
 * Status files: BWSH_SESSIONS_DIR/status (root's, 0755) holds one file per
 * session that pam_bwsh opened, named by its session id and owned by its
 * user, to which the session's bwrap appends its --json-status-fd reports.
 * No process of bwsh's waits for a session (bwsh execs bwrap): bwrap's
 * monitor, which waits anyway, writes what it knows.  The registry's
 * listing never reads that directory as an entry (registry.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "audit.h"
#include "cleanup.h"
#include "ended.h"
#include "errors.h"
#include "identity.h"
#include "registry.h"
#include "registry_place.h"

/* The status directory of the registry at @dir (NULL: BWSH_SESSIONS_DIR). */
static int
status_dir (const char *dir, bool make, int *ret_fd, BwshError *err)
{
  _cleanup_close_ int dirfd = -1;
  int r;

  /* Root made the registry when it registered the session. */
  r = bwsh_registry_open (dir, &dirfd, err);
  if (r < 0)
    return r;
  r = bwsh_registry_subdir (dirfd, BWSH_STATUS_DIR_NAME, 0755, make, ret_fd);
  if (r < 0)
    return bwsh_error_set (err, r, dir != NULL ? dir : BWSH_SESSIONS_DIR, 0, 0,
                           "cannot open the directory of the status files: %s", strerror (-r));
  return 0;
}

int
bwsh_status_file_create (const char *dir, const char *session_id, uid_t uid, gid_t gid, BwshError *err)
{
  _cleanup_close_ int sfd = -1, fd = -1;
  int r;

  if (!bwsh_session_id_valid (session_id))
    return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "invalid session id");
  r = status_dir (dir, true, &sfd, err);
  if (r < 0)
    return r;
  /* The id is new and random: anything by that name is not this session's. */
  fd = openat (sfd, session_id, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return bwsh_error_set (err, -errno, NULL, 0, 0, "cannot create the session's status file: %m");
  if (fchown (fd, uid, gid) < 0 || fchmod (fd, 0600) < 0)
    {
      r = -errno;
      (void) unlinkat (sfd, session_id, 0);
      return bwsh_error_set (err, r, NULL, 0, 0, "cannot give the session's status file to its user: %s",
                             strerror (-r));
    }
  return 0;
}

/* Open the status file of @session_id with @flags, without following a
 * symlink or waiting on a FIFO, if it is one as bwsh_status_file_create()
 * made it: a regular file of @uid's, linked once, at most
 * BWSH_STATUS_FILE_MAX bytes.  *ret_dirfd is the status directory, set
 * whenever it could be opened. */
static int
status_file_at (const char *dir, const char *session_id, uid_t uid, int flags, int *ret_dirfd, int *ret_fd)
{
  _cleanup_close_ int fd = -1;
  struct stat st;
  int r;

  if (!bwsh_session_id_valid (session_id))
    return -EINVAL;
  r = status_dir (dir, false, ret_dirfd, NULL);
  if (r < 0)
    return r;
  fd = openat (*ret_dirfd, session_id, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) < 0)
    return -errno;
  if (!S_ISREG (st.st_mode) || st.st_uid != uid || st.st_nlink != 1 || (st.st_mode & 0077) != 0)
    return -EPERM;
  if (st.st_size > BWSH_STATUS_FILE_MAX)
    return -EFBIG;
  *ret_fd = steal_fd (&fd);
  return 0;
}

int
bwsh_status_file_open (const char *dir, const char *session_id, uid_t uid, int *ret_fd)
{
  _cleanup_close_ int sfd = -1;

  return status_file_at (dir, session_id, uid, O_WRONLY | O_APPEND, &sfd, ret_fd);
}

static const char *const end_names[BWSH_END_MAX_] = {
  [BWSH_END_REFUSED] = "refused",
  [BWSH_END_RECORDING_FAILED] = "recording-failed",
};

const char *
bwsh_end_to_string (BwshEnd e)
{
  return e > BWSH_END_NONE && e < BWSH_END_MAX_ ? end_names[e] : NULL;
}

static BwshEnd
end_from_string (const char *s)
{
  for (BwshEnd e = BWSH_END_NONE + 1; e < BWSH_END_MAX_; e++)
    if (strcmp (s, end_names[e]) == 0)
      return e;
  return BWSH_END_NONE;
}

int
bwsh_status_file_report_end (const char *dir, const char *session_id, uid_t uid, BwshEnd end, const char *reason)
{
  _cleanup_close_ int sfd = -1, fd = -1;
  _cleanup_free_ char *line = NULL;
  char cut[BWSH_END_REASON_MAX + 1];
  json_auto_t *o = NULL;
  size_t len;
  int r;

  if (bwsh_end_to_string (end) == NULL)
    return -EINVAL;
  r = status_file_at (dir, session_id, uid, O_WRONLY | O_APPEND, &sfd, &fd);
  if (r < 0)
    return r;
  /* Cut on a character's first byte: jansson takes UTF-8 only. */
  if (reason == NULL)
    reason = "";
  len = strnlen (reason, BWSH_END_REASON_MAX);
  while (len > 0 && ((unsigned char) reason[len] & 0xC0) == 0x80)
    len--;
  memcpy (cut, reason, len);
  cut[len] = '\0';
  o = json_pack ("{s:s, s:s}", "bwsh-end", bwsh_end_to_string (end), "reason", cut);
  if (o == NULL)
    o = json_pack ("{s:s}", "bwsh-end", bwsh_end_to_string (end));
  if (o == NULL || (line = json_dumps (o, JSON_COMPACT)) == NULL)
    return -ENOMEM;
  len = strlen (line);
  line[len] = '\n'; /* json_dumps's NUL: one write, one line */
  if (write (fd, line, len + 1) != (ssize_t) (len + 1))
    return -EIO;
  return 0;
}

/* The last "exit-code" bwrap wrote and the last "bwsh-end" bwsh wrote: one
 * JSON object per line, { "child-pid": N, ... } when the sandbox starts
 * (once per attempt of a guarded launch), { "exit-code": N } when its
 * program exits, { "bwsh-end": END, "reason": "..." } when bwsh ends it. */
static int
parse_status (const char *buf, size_t len, BwshStatusReport *ret)
{
  BwshStatusReport rep = { .exit_status = -1 };
  size_t off = 0;

  for (;;)
    {
      json_auto_t *o = NULL;
      json_error_t jerr;
      json_t *v;

      off += strspn (buf + off, " \t\r\n");
      if (off >= len)
        break;
      o = json_loadb (buf + off, len - off, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &jerr);
      if (o == NULL || !json_is_object (o) || jerr.position <= 0)
        return -EINVAL;
      off += (size_t) jerr.position;
      v = json_object_get (o, "bwsh-end");
      if (v != NULL)
        {
          json_t *why = json_object_get (o, "reason");
          if (!json_is_string (v) || (rep.end = end_from_string (json_string_value (v))) == BWSH_END_NONE
              || (why != NULL && !json_is_string (why)))
            return -EINVAL;
          snprintf (rep.reason, sizeof rep.reason, "%s", why != NULL ? json_string_value (why) : "");
          continue;
        }
      v = json_object_get (o, "exit-code");
      if (v == NULL)
        continue;
      if (!json_is_integer (v) || json_integer_value (v) < 0 || json_integer_value (v) > 255)
        return -EINVAL;
      rep.exit_status = (int) json_integer_value (v);
    }
  if (rep.exit_status < 0 && rep.end == BWSH_END_NONE)
    return -ENODATA;
  *ret = rep;
  return 0;
}

int
bwsh_status_file_take (const char *dir, const char *session_id, uid_t uid, BwshStatusReport *ret)
{
  _cleanup_close_ int sfd = -1, fd = -1;
  char buf[BWSH_STATUS_FILE_MAX + 2];
  size_t len = 0;
  int r;

  r = status_file_at (dir, session_id, uid, O_RDONLY, &sfd, &fd);
  /* Gone with the session, whatever it holds (a symlink: the link). */
  if (sfd >= 0)
    (void) unlinkat (sfd, session_id, 0);
  if (r < 0)
    return r;
  while (len < sizeof buf - 1)
    {
      ssize_t n = read (fd, buf + len, sizeof buf - 1 - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -errno;
      if (n == 0)
        break;
      len += (size_t) n;
    }
  /* Grown past the bound since the check: not bwrap's. */
  if (len > BWSH_STATUS_FILE_MAX)
    return -EFBIG;
  buf[len] = '\0';
  if (memchr (buf, '\0', len) != NULL)
    return -EINVAL;
  return parse_status (buf, len, ret);
}

/* ------------------------------------------------------- the lock that ended it */

int
bwsh_lock_since (const char *dir, const char *user, int64_t since, BwshLock *ret)
{
  _cleanup_ (bwsh_identity_freep) BwshIdentity *id = NULL;
  BwshLock *v = NULL;
  size_t n = 0, best = SIZE_MAX;
  int r;

  r = bwsh_lock_list (dir, &v, &n, NULL);
  if (r < 0)
    return r;
  for (size_t i = 0; i < n; i++)
    {
      if (v[i].since < since || (best != SIZE_MAX && v[i].since <= v[best].since))
        continue;
      if (v[i].target[0] != '@')
        {
          if (strcmp (v[i].target, user) != 0)
            continue;
        }
      else if ((id == NULL && bwsh_identity_from_name (user, &id, NULL) < 0) || !bwsh_lock_applies (v[i].target, id))
        continue;
      best = i;
    }
  if (best != SIZE_MAX)
    {
      *ret = v[best];
      v[best] = (BwshLock) { 0 };
    }
  for (size_t i = 0; i < n; i++)
    bwsh_lock_clear (&v[i]);
  free (v);
  return best != SIZE_MAX ? 0 : -ENOENT;
}
