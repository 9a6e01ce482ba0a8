/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The policy's lock groups, the lock that covers a user now, and the note
 * that names the lock which ended a session (see lockgroups.h). */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf */
#endif

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cleanup.h"
#include "lockgroups.h"
#include "registry_place.h"

/* A note holds a target, a reason of at most 256 bytes and a source. */
#define NOTE_FILE_MAX 4096
#define NOTE_PREFIX "lock-"
#define POLICY_BY "policy"

int
bwsh_policy_lock (const BwshPolicy *pol, BwshLock *ret)
{
  const BwshBindSpec *g;
  BwshLock l = { 0 };
  int n;

  if (pol == NULL || pol->lock_group < 0 || (size_t) pol->lock_group >= pol->lock_groups.n)
    return -ENOENT;
  g = &pol->lock_groups.items[pol->lock_group];
  if (g->from.file != NULL)
    n = asprintf (&l.by, POLICY_BY " %s:%d", g->from.file, g->from.line);
  else
    n = asprintf (&l.by, POLICY_BY);
  if (n < 0)
    l.by = NULL;
  if (asprintf (&l.target, "@%s", g->src) < 0)
    l.target = NULL;
  l.reason = strdup (pol->lock_reason != NULL ? pol->lock_reason : "");
  if (l.by == NULL || l.target == NULL || l.reason == NULL)
    {
      bwsh_lock_clear (&l);
      return -ENOMEM;
    }
  *ret = l;
  return 0;
}

bool
bwsh_lock_is_policy (const BwshLock *lock)
{
  return lock != NULL && lock->by != NULL && strncmp (lock->by, POLICY_BY, strlen (POLICY_BY)) == 0
         && (lock->by[strlen (POLICY_BY)] == '\0' || lock->by[strlen (POLICY_BY)] == ' ') && lock->since == 0;
}

int
bwsh_lock_covering (const char *locks_dir, const BwshPolicy *pol, const BwshIdentity *id, BwshLock *ret,
                    BwshError *err)
{
  int r = bwsh_lock_find (locks_dir, id, ret, err);

  if (r != -ENOENT)
    return r;
  return bwsh_policy_lock (pol, ret);
}

static bool
names_subject (const BwshPolicy *pol, const BwshIdentity *id)
{
  if (pol->subject_all || bwsh_bind_list_contains (&pol->subject_users, id->name))
    return true;
  for (size_t i = 0; i < pol->subject_groups.n; i++)
    if (bwsh_identity_in_group (id, pol->subject_groups.items[i].src))
      return true;
  return false;
}

int
bwsh_lock_group_members (const BwshPolicy *pol, const char *group, size_t *ret_subjects, size_t *ret_others,
                         char ***ret_names, size_t names_max)
{
  _cleanup_free_ char *buf = NULL;
  struct group gr, *res = NULL;
  char **names = NULL;
  size_t size = 16384, subjects = 0, others = 0, n_names = 0;
  int r;

  for (;;)
    {
      char *b = realloc (buf, size);
      if (b == NULL)
        return -ENOMEM;
      buf = b;
      r = getgrnam_r (group, &gr, buf, size, &res);
      if (r != ERANGE || size >= (1u << 24))
        break;
      size *= 2;
    }
  if (r == 0 || r == ENOENT || r == ESRCH)
    r = res != NULL ? 0 : -ENOENT;
  else
    r = -r;
  if (r < 0)
    return r;
  if (names_max > 0 && (names = calloc (names_max + 1, sizeof *names)) == NULL)
    return -ENOMEM;
  for (char **m = gr.gr_mem; m != NULL && *m != NULL; m++)
    {
      _cleanup_ (bwsh_identity_freep) BwshIdentity *id = NULL;

      /* A member NSS cannot resolve logs in nowhere. */
      if (bwsh_identity_from_name (*m, &id, NULL) < 0 || id->uid == 0)
        continue;
      if (names_subject (pol, id))
        subjects++;
      else
        {
          others++;
          if (n_names < names_max && (names[n_names] = strdup (*m)) != NULL)
            n_names++;
        }
    }
  *ret_subjects = subjects;
  *ret_others = others;
  if (ret_names != NULL)
    *ret_names = names;
  else
    {
      for (size_t i = 0; i < n_names; i++)
        free (names[i]);
      free (names);
    }
  return 0;
}

/* ------------------------------------------------------------------ notes */

static int
note_name (const char *registry_id, char *buf, size_t size)
{
  /* A registry id is a path below the registry ("uid/1000/4242-99-0",
   * registry_place.h): its '/' become '.', which no id holds, so the note
   * is one name in the status directory. */
  if (registry_id == NULL || registry_id[0] == '\0' || registry_id[0] == '/' || strchr (registry_id, '.') != NULL
      || strlen (registry_id) + sizeof NOTE_PREFIX > size)
    return -EINVAL;
  snprintf (buf, size, NOTE_PREFIX "%s", registry_id);
  for (char *c = buf + strlen (NOTE_PREFIX); *c != '\0'; c++)
    if (*c == '/')
      *c = '.';
  return 0;
}

static int
note_dir (const char *dir, bool make, int *ret_fd)
{
  _cleanup_close_ int dirfd = -1;
  int r = bwsh_registry_open (dir, &dirfd, NULL);

  if (r < 0)
    return r;
  return bwsh_registry_subdir (dirfd, BWSH_STATUS_DIR_NAME, 0755, make, ret_fd);
}

int
bwsh_lock_note_write (const char *dir, const char *registry_id, const BwshLock *lock, BwshError *err)
{
  _cleanup_free_ char *text = NULL;
  _cleanup_close_ int sfd = -1, fd = -1;
  json_auto_t *o = NULL;
  char name[128];
  size_t len, off = 0;
  int r;

  if (note_name (registry_id, name, sizeof name) < 0)
    return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "invalid session registry id");
  r = note_dir (dir, true, &sfd);
  if (r < 0)
    return bwsh_error_set (err, r, dir != NULL ? dir : BWSH_SESSIONS_DIR, 0, 0,
                           "cannot open the directory of the status files: %s", strerror (-r));
  o = json_pack ("{s:s, s:s, s:s}", "target", lock->target != NULL ? lock->target : "", "reason",
                 lock->reason != NULL ? lock->reason : "", "by", lock->by != NULL ? lock->by : "");
  if (o == NULL || (text = json_dumps (o, JSON_COMPACT)) == NULL)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  /* A note left by an earlier run for the same session says the same. */
  (void) unlinkat (sfd, name, 0);
  fd = openat (sfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return bwsh_error_set (err, -errno, NULL, 0, 0, "cannot write the lock note of session %s: %m", registry_id);
  len = strlen (text);
  while (off < len)
    {
      ssize_t n = write (fd, text + off, len - off);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          r = -errno;
          (void) unlinkat (sfd, name, 0);
          return bwsh_error_set (err, r, NULL, 0, 0, "cannot write the lock note of session %s: %s", registry_id,
                                 strerror (-r));
        }
      off += (size_t) n;
    }
  return 0;
}

int
bwsh_lock_note_take (const char *dir, const char *registry_id, BwshLock *ret)
{
  _cleanup_close_ int sfd = -1, fd = -1;
  json_auto_t *o = NULL;
  char name[128], buf[NOTE_FILE_MAX + 1];
  BwshLock l = { 0 };
  struct stat st;
  ssize_t n;
  int r;

  if (note_name (registry_id, name, sizeof name) < 0)
    return -EINVAL;
  r = note_dir (dir, false, &sfd);
  if (r < 0)
    return r;
  fd = openat (sfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  (void) unlinkat (sfd, name, 0);
  if (fd < 0)
    return -errno;
  /* Only root writes into the status directory; still, only root's note counts. */
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode) || st.st_uid != 0 || st.st_size > NOTE_FILE_MAX)
    return -EPERM;
  do
    n = read (fd, buf, sizeof buf - 1);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return -errno;
  o = json_loadb (buf, (size_t) n, JSON_REJECT_DUPLICATES, NULL);
  if (o == NULL || !json_is_object (o) || !json_is_string (json_object_get (o, "target")))
    return -EINVAL;
  l.target = strdup (json_string_value (json_object_get (o, "target")));
  l.reason = strdup (json_is_string (json_object_get (o, "reason")) ? json_string_value (json_object_get (o, "reason")) : "");
  l.by = strdup (json_is_string (json_object_get (o, "by")) ? json_string_value (json_object_get (o, "by")) : "");
  if (l.target == NULL || l.reason == NULL || l.by == NULL)
    {
      bwsh_lock_clear (&l);
      return -ENOMEM;
    }
  *ret = l;
  return 0;
}
