/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Resolution, where things are mounted: the persistent state directory,
 * the real home's entries over it, and the mount points bwrap cannot make.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan.h"

/* The state directory could not be used: the session still gets a
 * writable home, on a tmpfs, and says so. */
static int
state_fallback (BwshPlan *p, BwshMount *m, const char *why)
{
  _cleanup_free_ char *esc = bwsh_escape (m->src, strlen (m->src));
  int r;

  if (esc == NULL)
    return -ENOMEM;
  r = bwsh_diag_add (&p->diag, "state_dir %s: %s; the session's state is a tmpfs this time, gone at logout", esc,
                     why);
  if (r < 0)
    return r;
  if (m->fd >= 0)
    close (m->fd);
  m->fd = -1;
  free (m->src);
  m->src = NULL;
  m->kind = BWSH_MOUNT_TMPFS;
  m->size = p->tmp_tmpfs_size;
  p->state = "tmpfs";
  return set_reason (m, BWSH_VERDICT_ACCEPTED, "state = \"persistent\", but state_dir cannot be used");
}

/* The persistent state directory, resolved and checked again: it must be
 * the user's own directory, writable by nobody else, and still not a place
 * that programs outside the sandbox read once symlinks are followed. */
int
resolve_state (BwshPlan *p, const Rules *rules, BwshMount *m, BwshResolveMode mode, bool *ret_unopened)
{
  _cleanup_free_ char *resolved = NULL;
  const char *why = NULL;
  char buf[BWSH_MESSAGE_MAX + 64];
  struct stat st;

  if (m->create_dir)
    {
      BwshError e = { 0 };
      bool would_create = false;
      int r = mode == BWSH_RESOLVE_DRY_RUN ? bwsh_mkdir_under_home_dry_run (p->home, m->src, &would_create, &e)
                                           : bwsh_mkdir_under_home (p->home, m->src, &e);
      if (r < 0)
        {
          snprintf (buf, sizeof buf, "%s", e.message);
          return state_fallback (p, m, buf);
        }
      /* Explain and check create nothing: the first login will. */
      if (would_create)
        {
          _cleanup_free_ char *planned = NULL;
          if (dry_run_created (p, m->src, &planned, &e) >= 0 && planned != NULL)
            {
              free (m->src);
              m->src = steal_pointer (&planned);
            }
          *ret_unopened = true;
          return set_reason (m, BWSH_VERDICT_ACCEPTED,
                             "state = \"persistent\": does not exist yet, a session creates it (0700)");
        }
    }
  resolved = realpath (m->src, NULL);
  if (resolved == NULL)
    {
      snprintf (buf, sizeof buf, "cannot resolve: %s", strerror (errno));
      why = buf;
    }
  else if ((why = bwsh_state_dir_refusal (rules->protected_paths, rules->n_protected, p->home, p->project_dir, resolved))
           != NULL)
    {
      snprintf (buf, sizeof buf, "resolves to %s, which %s", resolved, why);
      why = buf;
    }
  else if (bwsh_open_path_nofollow (resolved, &m->fd) < 0)
    why = "changed while it was checked";
  else if (fstat (m->fd, &st) < 0 || !S_ISDIR (st.st_mode))
    why = "is not a directory";
  else if (st.st_uid != p->uid)
    why = "is not owned by the user";
  else if (bwsh_writable_by_others (&st, p->uid))
    why = "is group- or world-writable";
  if (why != NULL)
    return state_fallback (p, m, why);
  free (m->src);
  m->src = steal_pointer (&resolved);
  return 0;
}

/* Binding an entry of the real home over the persistent state leaves its
 * mount point there (bwrap creates it); one of another kind, or any
 * symlink, would make bwrap fail: the state's entry shows instead. */
int
check_state_conflict (BwshPlan *p, BwshMount *m, int state_fd)
{
  const char *name = strrchr (m->dest, '/') + 1;
  struct stat st, real;

  if (state_fd < 0 || fstatat (state_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return 0;
  if (m->kind == BWSH_MOUNT_RO_BIND && !S_ISLNK (st.st_mode) && fstat (m->fd, &real) == 0
      && S_ISDIR (real.st_mode) == S_ISDIR (st.st_mode))
    return 0;
  if (m->fd >= 0)
    close (m->fd);
  m->fd = -1;
  if (m->kind == BWSH_MOUNT_SYMLINK && S_ISLNK (st.st_mode))
    {
      char target[PATH_MAX];
      ssize_t n = readlinkat (state_fd, name, target, sizeof target - 1);
      if (n > 0 && (target[n] = '\0', strcmp (target, m->src) == 0))
        return set_reason (m, BWSH_VERDICT_COALESCED, "the persistent state has the same symlink");
    }
  return refuse (p, m, BWSH_VERDICT_SKIPPED, m->dest,
                 "the persistent state has an entry of another kind with this name, which shows instead");
}

/* Dry run: where @path, which bwsh would create under $HOME, would be.
 * NULL in *ret when it exists (resolve it as usual). */
int
dry_run_created (const BwshPlan *p, const char *path, char **ret, BwshError *err)
{
  _cleanup_free_ char *home = NULL;
  bool would_create = false;
  int r;

  *ret = NULL;
  if (!bwsh_path_has_prefix (path, p->home))
    return 0;
  r = bwsh_mkdir_under_home_dry_run (p->home, path, &would_create, err);
  if (r < 0 || !would_create)
    return r;
  home = realpath (p->home, NULL);
  if (home == NULL)
    return bwsh_error_set (err, -errno, NULL, 0, 0, "home directory %s: %s", p->home, strerror (errno));
  if (asprintf (ret, "%s%s", strcmp (home, "/") == 0 ? "" : home, path + strlen (p->home)) < 0)
    {
      *ret = NULL;
      return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
    }
  return 0;
}

/* The deepest accepted mount before @before whose destination holds @dest:
 * the file system bwrap has to create @dest's mount point in. */
static ssize_t
covering_mount (const BwshPlan *p, const char *dest, size_t before)
{
  ssize_t best = -1;

  for (size_t j = 0; j < before; j++)
    {
      const BwshMount *q = &p->mounts[j];
      if (q->verdict != BWSH_VERDICT_ACCEPTED || q->kind == BWSH_MOUNT_SYMLINK || q->kind == BWSH_MOUNT_REMOUNT_RO
          || strcmp (q->dest, dest) == 0 || !bwsh_path_has_prefix (dest, q->dest))
        continue;
      if (best < 0 || bwsh_path_depth (q->dest) >= bwsh_path_depth (p->mounts[best].dest))
        best = (ssize_t) j;
    }
  return best;
}

/* Create the missing mount point @path (a directory, or an empty file when
 * @is_dir is false) as the user, below @home, following no symlink. */
static int
make_mount_point (const char *home, const char *path, bool is_dir, BwshError *err)
{
  _cleanup_free_ char *parent = strdup (path);
  _cleanup_close_ int dfd = -1, fd = -1;
  char *slash;
  int r;

  if (is_dir)
    return bwsh_mkdir_under_home (home, path, err);
  if (parent == NULL)
    return -ENOMEM;
  slash = strrchr (parent, '/');
  *slash = '\0';
  r = bwsh_mkdir_under_home (home, parent, err);
  if (r < 0)
    return r;
  r = bwsh_open_path_nofollow (parent, &dfd);
  if (r < 0)
    return bwsh_error_set (err, r, NULL, 0, 0, "%s: %s", parent, strerror (-r));
  fd = openat (dfd, slash + 1, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0)
    return bwsh_error_set (err, -errno, NULL, 0, 0, "%s: %s", path, strerror (errno));
  return 0;
}

/* A bind whose mount point is missing under a read-only mount (an RO bind
 * to ~/data inside the read-only real home of state = "none", or to
 * ~/src/new below an entry of the real home shown over the state) would
 * fail inside bwrap and refuse every login.  On the state itself, or any
 * tmpfs or read-write bind, bwrap makes the mount point and nothing is
 * reported.  Where the user may create it, below $HOME, bwsh does so as
 * the user in the run mode; anywhere else the entry is skipped with a
 * warning.  Only strict mode refuses the session. */
int
prepare_destinations (BwshPlan *p, BwshResolveMode mode)
{
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      BwshMount *m = &p->mounts[i];
      _cleanup_free_ char *host = NULL;
      struct stat st;
      ssize_t k;
      bool is_dir = true;
      const BwshMount *q;
      int r;

      /* Defaults and what resolve creates itself (create_dir) are not entries. */
      if (m->verdict != BWSH_VERDICT_ACCEPTED || !is_bind (m->kind) || m->from.origin == BWSH_ORIGIN_DEFAULT
          || m->file_placeholder || m->create_dir)
        continue;
      k = covering_mount (p, m->dest, i);
      if (k < 0)
        continue;
      q = &p->mounts[k];
      if (q->kind != BWSH_MOUNT_RO_BIND || q->src == NULL)
        continue; /* a tmpfs or a read-write bind: bwrap makes the mount point */
      if (asprintf (&host, "%s%s", strcmp (q->src, "/") == 0 ? "" : q->src,
                    m->dest + (strcmp (q->dest, "/") == 0 ? 0 : strlen (q->dest))) < 0)
        return -ENOMEM;
      if (lstat (host, &st) == 0)
        continue;
      if (stat (m->src, &st) == 0)
        is_dir = S_ISDIR (st.st_mode);

      if (!bwsh_path_has_prefix (host, p->home) || strcmp (host, p->home) == 0)
        r = -EROFS;
      else if (mode == BWSH_RESOLVE_DRY_RUN)
        {
          _cleanup_free_ char *esc = bwsh_escape (m->dest, strlen (m->dest));
          _cleanup_free_ char *where = format_from (&m->from);
          if (esc == NULL || where == NULL)
            return -ENOMEM;
          r = bwsh_diag_add (&p->diag, "%s%s: mount point does not exist yet; bwsh creates it at login", where, esc);
          if (r < 0)
            return r;
          continue;
        }
      else
        {
          BwshError e = { 0 };
          r = make_mount_point (p->home, host, is_dir, &e);
          if (r == -ENOMEM)
            return r;
          if (r >= 0)
            continue;
        }
      r = refuse (p, m, p->strict ? BWSH_VERDICT_REFUSED : BWSH_VERDICT_SKIPPED, m->dest,
                  "destination cannot be made: %s is read-only inside the sandbox (%s)", q->dest,
                  r == -EROFS ? "skipped" : strerror (-r));
      if (r < 0)
        return r;
      if (m->fd >= 0)
        {
          close (m->fd);
          m->fd = -1;
        }
    }
  return 0;
}
