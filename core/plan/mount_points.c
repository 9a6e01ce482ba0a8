/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Resolution, where things are mounted: the mount points bwrap cannot
 * make, and the destinations a session of the user could swap (the kept
 * state directory is kept_state.c's).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bind_list.h"
#include "cleanup.h"
#include "errors.h"
#include "ops.h"
#include "path.h"
#include "plan.h"
#include "plan_internal.h"
#include "rules.h"
#include "safeopen.h"

/* Dry run: where @path, which bwsh would create under $HOME, would be.
 * NULL in *ret when it exists (resolve it as usual). */
int
plan_dry_run_created (const BwshPlan *p, const char *path, char **ret, BwshError *err)
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

/* Whether the mount @j, before @before, is one bwrap makes a mount point
 * for: accepted, neither a symlink nor a remount. */
static bool
mounted_before (const BwshPlan *p, size_t j, size_t before)
{
  const BwshMount *q = &p->mounts[j];

  return j < before && q->verdict == BWSH_VERDICT_ACCEPTED && q->kind != BWSH_MOUNT_SYMLINK
         && q->kind != BWSH_MOUNT_REMOUNT_RO;
}

/* The last mount before @before that bwrap makes at the first @n bytes of
 * @path, or -1.  Through @all, every mount of the plan by destination:
 * one probe, not a pass over the plan (a plan of 1,000 binds walked its
 * destinations in 300 million instructions that way). */
static ssize_t
last_at (const BwshPlan *p, const DestTable *all, const char *path, size_t n, size_t before)
{
  size_t pos = SIZE_MAX, j;
  ssize_t at = -1;

  while ((j = plan_dest_table_next (all, p->mounts, path, n, &pos)) != NO_PARENT)
    if (mounted_before (p, j, before) && (ssize_t) j > at)
      at = (ssize_t) j;
  return at;
}

/* The deepest accepted mount before @before whose destination holds @dest:
 * the file system bwrap has to create @dest's mount point in. */
static ssize_t
covering_mount (const BwshPlan *p, const DestTable *all, const char *dest, size_t before)
{
  size_t n = strlen (dest);

  /* Each parent of @dest, deepest first: "/a/b/c" -> "/a/b", "/a", "/". */
  while (n > 1)
    {
      ssize_t k;

      while (n > 1 && dest[n - 1] != '/')
        n--;
      if (n > 1)
        n--;
      k = last_at (p, all, dest, n, before);
      if (k >= 0)
        return k;
    }
  return -1;
}

/* The last accepted mount before @before at exactly @path, other than a
 * symlink or a remount: the mount point bwrap has already made there. */
static ssize_t
mount_at (const BwshPlan *p, const DestTable *all, const char *path, size_t before)
{
  return last_at (p, all, path, strlen (path), before);
}

static bool
symlink_at (const BwshPlan *p, const DestTable *all, const char *path, size_t before)
{
  size_t pos = SIZE_MAX, j;

  while ((j = plan_dest_table_next (all, p->mounts, path, strlen (path), &pos)) != NO_PARENT)
    if (j < before && p->mounts[j].verdict == BWSH_VERDICT_ACCEPTED && p->mounts[j].kind == BWSH_MOUNT_SYMLINK)
      return true;
  return false;
}

/* Whether @m mounts a directory (else a file) at its destination. */
static bool
mounts_dir (const BwshMount *m)
{
  struct stat st;

  if (!plan_is_bind (m->kind))
    return true;
  return m->fd < 0 || fstat (m->fd, &st) < 0 || S_ISDIR (st.st_mode);
}

/* The layers bwsh itself may make a missing mount point in: the project
 * directory and the session's persistent state, which the user owns and
 * no program outside the sandbox reads. */
static bool
makeable_layer (const BwshMount *q)
{
  return q->from.origin == BWSH_ORIGIN_DEFAULT && q->kind == BWSH_MOUNT_BIND && (q->state || q->create_dir)
         && !q->exact_source;
}

/* Make the missing elements of @rel below the directory @dfd, following no
 * symlink: directories, and an empty file last unless @last_is_dir. */
static int
make_below (int dfd, const char *rel, bool last_is_dir)
{
  _cleanup_free_ char *copy = strdup (rel);
  _cleanup_close_ int cur = -1;
  char *save = NULL, *name, *next;
  int at = dfd;

  if (copy == NULL)
    return -ENOMEM;
  for (name = strtok_r (copy, "/", &save); name != NULL; name = next)
    {
      int fd;

      next = strtok_r (NULL, "/", &save);
      if (next == NULL && !last_is_dir)
        {
          fd = openat (at, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
          if (fd < 0)
            return -errno;
          close (fd);
          return 0;
        }
      if (mkdirat (at, name, 0700) < 0 && errno != EEXIST)
        return -errno;
      fd = openat (at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0)
        return -errno;
      if (cur >= 0)
        close (cur);
      cur = at = fd;
    }
  return 0;
}

/* The host trees some session of this user can write while this one
 * starts: not only this plan's read-write binds.  Another session's
 * overlay may bind anything under rw_ceilings, or pick another project
 * directory; every session writes the kept state and, in editable mode,
 * the overlay's directory; a policy read-write bind is in every session. */
typedef struct
{
  const char **roots;
  size_t n;
} Writable;

static int
writable_trees (const BwshPlan *p, Writable *w)
{
  w->n = 0;
  w->roots = calloc (p->n_rw_ceilings + p->n_mounts + 2, sizeof *w->roots);
  if (w->roots == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < p->n_rw_ceilings; i++)
    w->roots[w->n++] = p->rw_ceilings[i];
  if (p->default_project_dir != NULL)
    w->roots[w->n++] = p->default_project_dir;
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      const BwshMount *m = &p->mounts[i];

      /* Whatever this plan's verdict: another session's may differ. */
      if (m->kind == BWSH_MOUNT_BIND && m->src != NULL
          && (m->state || m->exact_source || (m->from.origin == BWSH_ORIGIN_POLICY && m->from.file != NULL)))
        w->roots[w->n++] = m->src;
    }
  return 0;
}

/* Whether a session of the user can create, rename or remove names in the
 * host directory @dir. */
static bool
writable_elsewhere (const BwshPlan *p, const Writable *w, const char *dir)
{
  for (size_t i = 0; i < w->n; i++)
    if (bwsh_path_has_prefix (dir, w->roots[i]))
      return true;
  if (p->users_choose_project_dir && bwsh_path_has_prefix (dir, p->home) && strcmp (dir, p->home) != 0)
    {
      /* Below a non-hidden entry of $HOME: another session's project. */
      const char *first = dir + (strcmp (p->home, "/") == 0 ? 0 : strlen (p->home)) + 1;
      size_t len = strcspn (first, "/");
      _cleanup_free_ char *top = strndup (dir, (size_t) (first - dir) + len);

      return first[0] != '.'
             && (top == NULL || !bwsh_path_under_any (top, p->protected_paths, p->n_protected));
    }
  return false;
}

/* Where bwrap looks up the last element of @path (a prefix of mount @i's
 * destination): in a mount of its own making (a tmpfs, /dev, /proc), which
 * no other process reaches, or in a bind's host directory.  The host
 * directory when some session of the user can change it, else NULL. */
static char *
racy_parent (const BwshPlan *p, const DestTable *all, const Writable *w, const char *path, size_t i)
{
  ssize_t k = covering_mount (p, all, path, i);
  const BwshMount *q;
  const char *slash = strrchr (path, '/');
  char *dir = NULL;

  if (k < 0)
    return NULL;
  q = &p->mounts[k];
  if (!plan_is_bind (q->kind) || q->src == NULL || slash == NULL)
    return NULL;
  /* @path's parent, from q's destination into q's source. */
  size_t base = strcmp (q->dest, "/") == 0 ? 0 : strlen (q->dest);
  if (asprintf (&dir, "%s%.*s", strcmp (q->src, "/") == 0 && slash > path + base ? "" : q->src,
                (int) (slash - path - (ptrdiff_t) base), path + base) < 0)
    return NULL;
  if (dir[0] == '\0' || !writable_elsewhere (p, w, dir))
    {
      free (dir);
      return NULL;
    }
  return dir;
}

/* An entry of the user's or a policy bind, as opposed to the layout bwsh
 * builds itself (defaults, protected paths and their pins, the editable
 * overlay), whose places docs/design.md argues for one by one. */
static bool
is_entry (const BwshMount *m)
{
  return m->from.origin == BWSH_ORIGIN_USER
         || (m->from.origin == BWSH_ORIGIN_POLICY && m->from.file != NULL && !m->guard);
}

/* The last element of a symlink's destination @path, in the layer @q
 * (@rel below it): bwrap makes the link itself; only the same one may be
 * there.  NULL, or why not (in @buf or static). */
static const char *
symlink_dest (const BwshMount *m, const BwshMount *q, const char *rel, const char *path, char *buf, size_t bufsz)
{
  /* bwrap makes the link itself; only the same one may be there. */
  char target[PATH_MAX];
  struct stat st;
  ssize_t n;

  if (fstatat (q->fd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
    return q->kind == BWSH_MOUNT_RO_BIND || !makeable_layer (q) ? "symlink cannot be made here (skipped)"
                                                                  : NULL;
  n = readlinkat (q->fd, rel, target, sizeof target - 1);
  if (n > 0 && (target[n] = '\0', strcmp (target, m->src) == 0))
    return NULL;
  snprintf (buf, bufsz, "destination %s already exists (skipped)", path);
  return buf;
}

/* @path, an element of @m's destination, is missing (@e) in the layer @q:
 * made when bwrap would otherwise leave it behind on the host, never in a
 * read-only layer.  NULL, or why not (in @buf). */
static const char *
missing_dest (const BwshMount *m, const BwshMount *q, BwshResolveMode mode, const char *path, int e, char *buf,
              size_t bufsz)
{
  int r;

  if (e != ENOENT)
    {
      snprintf (buf, bufsz, "destination %s: %s (skipped)", path, strerror (e));
      return buf;
    }
  /* A dry run's project or state that a session creates (with
   * every missing directory on its way, before this walk): there. */
  if (mode == BWSH_RESOLVE_DRY_RUN && m->fd < 0 && makeable_layer (m))
    return NULL;
  if (q->kind == BWSH_MOUNT_RO_BIND)
    {
      snprintf (buf, bufsz, "destination cannot be made: %s is read-only inside the sandbox (skipped)",
                q->dest);
      return buf;
    }
  /* A protected path's placeholder is made under any read-write
   * bind: only one the administrator allowed (rw_ceilings, a policy
   * bind) can hold it, and an empty name there is the price of
   * that choice (bwsh.conf(5)). */
  if (!makeable_layer (q) && !m->guard)
    {
      snprintf (buf, bufsz, "destination does not exist, and bwrap would leave %s behind on the host "
                "in %s (skipped)", path, q->src);
      return buf;
    }
  if (mode == BWSH_RESOLVE_DRY_RUN)
    return NULL;
  /* Everything below is missing too, in this same layer. */
  r = make_below (q->fd, m->dest + strlen (q->dest) + 1, mounts_dir (m));
  if (r < 0)
    {
      snprintf (buf, bufsz, "destination cannot be made in %s: %s (skipped)", q->dest, strerror (-r));
      return buf;
    }
  return NULL;
}

/* Walk @m's destination through the mounts before it, that is through the
 * new root as bwrap will have built it when it comes to @m, element by
 * element and following no symlink, the way bwrap would resolve it.  bwrap
 * before 0.12 follows a symlink there into /oldroot, the host's / (CVE-2026-
 * 87766); a persistent state or the project can hold one the user planted
 * (CVE-2024-42472's class).  Returns NULL when bwrap may mount @m, else why
 * not, in @buf.  A missing element on the project or the persistent state
 * is made here (as the user, in the run mode); anywhere else on the host it
 * would be a new name bwrap leaves behind, or a mount point it cannot make. */
static const char *
walk_destination (BwshPlan *p, const DestTable *all, size_t i, BwshResolveMode mode, char *buf, size_t bufsz)
{
  BwshMount *m = &p->mounts[i];
  const char *dest = m->dest;
  size_t len = strlen (dest);

  for (size_t end = 1; end <= len; end++)
    {
      _cleanup_free_ char *path = NULL;
      const BwshMount *q;
      const char *rel;
      struct stat st;
      bool last = end == len;
      ssize_t k;

      if (!last && dest[end] != '/')
        continue;
      path = strndup (dest, end);
      if (path == NULL)
        return "out of memory";
      if (symlink_at (p, all, path, i) && !(last && m->kind == BWSH_MOUNT_SYMLINK))
        {
          snprintf (buf, bufsz, "destination runs through the symlink %s, which bwrap would follow (skipped)", path);
          return buf;
        }
      if ((k = mount_at (p, all, path, i)) >= 0)
        {
          /* A mount point bwrap made before: a directory, unless it holds a file. */
          if (!last && !mounts_dir (&p->mounts[k]))
            {
              snprintf (buf, bufsz, "destination runs through %s, which is not a directory (skipped)", path);
              return buf;
            }
          continue;
        }
      k = covering_mount (p, all, path, i);
      if (k < 0)
        continue;
      q = &p->mounts[k];
      if (!plan_is_bind (q->kind))
        continue; /* a tmpfs (or /dev, /proc) of the sandbox's own: bwrap makes it there */
      if (q->fd < 0)
        {
          /* A dry run's project or state that a session creates: empty. */
          if (makeable_layer (q))
            return NULL;
          snprintf (buf, bufsz, "destination cannot be made: %s is not there yet (skipped)", q->dest);
          return buf;
        }
      rel = path + strlen (q->dest) + 1;
      if (last && m->kind == BWSH_MOUNT_SYMLINK)
        return symlink_dest (m, q, rel, path, buf, bufsz);
      if (fstatat (q->fd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return missing_dest (m, q, mode, path, errno, buf, bufsz);
      if (S_ISLNK (st.st_mode))
        {
          snprintf (buf, bufsz, "destination runs through the symlink %s, which bwrap would follow (skipped)", path);
          return buf;
        }
      if (!last && !S_ISDIR (st.st_mode))
        {
          snprintf (buf, bufsz, "destination runs through %s, which is not a directory (skipped)", path);
          return buf;
        }
      if (last && S_ISDIR (st.st_mode) != mounts_dir (m))
        {
          snprintf (buf, bufsz, "destination %s is %s, and this mount needs %s (skipped)", path,
                    S_ISDIR (st.st_mode) ? "a directory" : "not a directory",
                    mounts_dir (m) ? "a directory" : "a file");
          return buf;
        }
    }
  return NULL;
}

/* Whether the host directory @dir is the kept state's, at its top (@dir
 * NULL: whether the session has a kept state). */
static bool
in_kept_state (const BwshPlan *p, const char *dir)
{
  for (size_t i = 0; i < p->n_mounts; i++)
    if (p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED && p->mounts[i].state && p->mounts[i].kind == BWSH_MOUNT_BIND
        && p->mounts[i].src != NULL && (dir == NULL || strcmp (p->mounts[i].src, dir) == 0))
      return true;
  return false;
}

/* bwrap looks every element of a destination up again, by name, when it
 * mounts, and follows what it finds: where another session of the user can
 * swap a directory for a symlink to /oldroot between bwsh's walk and
 * bwrap's, bwrap makes its mount point on the host (issue 35).  An entry's
 * every element must therefore lie in a mount bwrap makes itself or in a
 * host directory no session of the user can write.  NULL, or why not. */
static const char *
racy_destination (const BwshPlan *p, const DestTable *all, const Writable *w, size_t i, char *buf, size_t bufsz)
{
  const char *dest = p->mounts[i].dest;
  size_t len = strlen (dest);

  for (size_t end = 1; end <= len; end++)
    {
      _cleanup_free_ char *path = NULL, *racy = NULL, *esc = NULL;
      ssize_t k;

      if (end != len && dest[end] != '/')
        continue;
      path = strndup (dest, end);
      if (path == NULL)
        return "out of memory";
      /* A mount bwrap made at @path before: its mount point is that mount's
       * (a real home entry over the kept state is one in every live session:
       * the closure, plan_check_state_conflict()).  Not so an entry's
       * directory at a new name directly in the kept state (below): in
       * another session that name is no mount point, and swapped for a
       * symlink after bwrap mounted there, bwrap's walk to a deeper mount
       * point follows it, and its mkdir() lands on the host. */
      if ((k = mount_at (p, all, path, i)) >= 0)
        {
          if (end == len || !is_entry (&p->mounts[k]) || mount_at (p, all, path, (size_t) k) >= 0
              || (racy = racy_parent (p, all, w, path, (size_t) k)) == NULL || !in_kept_state (p, racy))
            continue;
          esc = bwsh_escape (racy, strlen (racy));
          snprintf (buf, bufsz, "destination runs through %s, a directory mounted at a new name in %s, the kept "
                    "state, where another session of yours can swap it for a symlink while this one starts "
                    "(skipped; mount it outside the home, e.g. at /mnt/%s, and link to it from there)", path,
                    esc != NULL ? esc : "?", strrchr (dest, '/') + 1);
          return buf;
        }
      racy = racy_parent (p, all, w, path, i);
      if (racy == NULL)
        continue;
      /* A directory's mount point directly in the kept state: bwrap 0.8
       * makes it with ensure_dir(): stat(), then mkdir(), which never
       * follows a final symlink (EEXIST), so a name swapped in for a symlink
       * creates nothing; the mount itself follows it, but within the
       * sandbox's own mount namespace: onto /oldroot (detached once set
       * up), or over a place of the user's own view, showing a source the
       * plan gives anyway (bubblewrap 0.8.0, bubblewrap.c setup_newroot(),
       * SETUP_BIND_MOUNT; utils.c ensure_dir(); bind-mount.c bind_mount()).
       * A file's ensure_file() creat()s through a dangling symlink: a host
       * name; so does the mkdir() of a deeper element through a parent
       * swapped for a symlink (mkdir_with_parents()). */
      if (strcmp (path, dest) == 0 && in_kept_state (p, racy) && mounts_dir (&p->mounts[i]))
        continue;
      esc = bwsh_escape (racy, strlen (racy));
      if (strcmp (path, dest) == 0 && in_kept_state (p, racy))
        /* Directly in the kept state: a real entry of that name is a mount
         * point in every session (the closure), so the bind may go there. */
        snprintf (buf, bufsz, "destination lies in %s, the kept state, where another session of yours can swap a "
                  "file's mount point for a symlink while this one starts (skipped; make %s in the real home, or "
                  "mount it outside the home)", esc != NULL ? esc : "?", dest);
      else
        /* With a kept state, $HOME is a read-write tree too. */
        snprintf (buf, bufsz, "destination lies in %s, where another session of yours can swap a directory for "
                  "a symlink while this one starts (skipped; mount it outside the read-write trees, e.g. at %s/%s, "
                  "and link to it from there)", esc != NULL ? esc : "?", in_kept_state (p, NULL) ? "/mnt" : p->home,
                  strrchr (dest, '/') + 1);
      return buf;
    }
  return NULL;
}

/* The read-write mount before @before that @m's destination lies on. */
static ssize_t
rw_layer (const BwshPlan *p, const DestTable *all, const char *dest, size_t before)
{
  ssize_t k = covering_mount (p, all, dest, before);

  while (k >= 0 && p->mounts[k].kind != BWSH_MOUNT_BIND)
    k = covering_mount (p, all, p->mounts[k].dest, (size_t) k);
  return k;
}

/* Every destination is resolved here, by bwsh, never by bwrap (issue 24):
 * what `bwshctl check` accepts, the launch can mount, and no mount point is
 * made through a symlink or left behind in the real home.  A user's entry
 * that cannot be mounted is skipped with a warning (strict mode refuses);
 * so is a default one, whose place the state's own entry takes.  A
 * protected path that cannot be held read-only takes the read-write mount
 * around it along, and the walk starts again without it. */
static int
walk_all (BwshPlan *p, const DestTable *all, const Writable *w, BwshResolveMode mode)
{
  char why[BWSH_MESSAGE_MAX];
  bool again = true;

  for (size_t round = 0; again && round <= p->n_mounts; round++)
    {
      again = false;
      for (size_t i = 0; i < p->n_mounts && !again; i++)
        {
          BwshMount *m = &p->mounts[i];
          const char *reason;
          int r;

          if (m->verdict != BWSH_VERDICT_ACCEPTED || m->kind == BWSH_MOUNT_REMOUNT_RO)
            continue;
          reason = NULL;
          if (m->from.origin == BWSH_ORIGIN_USER)
            for (size_t k = 0; k < p->n_protected && reason == NULL; k++)
              if (bwsh_path_has_prefix (m->dest, p->protected_paths[k])
                  && strcmp (m->dest, p->protected_paths[k]) != 0)
                {
                  snprintf (why, sizeof why, "destination lies in the protected path %s, where nothing is "
                            "mounted (skipped)", p->protected_paths[k]);
                  reason = why;
                }
          /* The walk's own reason first, which says more; nothing is
           * made for an entry that races. */
          if (reason == NULL && is_entry (m) && racy_destination (p, all, w, i, why, sizeof why) != NULL)
            {
              char walk_why[BWSH_MESSAGE_MAX];
              const char *r2 = walk_destination (p, all, i, BWSH_RESOLVE_DRY_RUN, walk_why, sizeof walk_why);
              if (r2 != NULL && r2 != walk_why)
                reason = r2;
              else if (r2 != NULL)
                reason = strcpy (why, walk_why);
              else
                reason = why;
            }
          if (reason == NULL)
            reason = walk_destination (p, all, i, mode, why, sizeof why);
          if (reason == NULL)
            continue;
          if (m->guard)
            {
              ssize_t k = rw_layer (p, all, m->dest, i);
              if (k >= 0 && p->mounts[k].from.origin != BWSH_ORIGIN_DEFAULT)
                {
                  BwshMount *q = &p->mounts[k];
                  r = plan_refuse (p, q, q->from.origin == BWSH_ORIGIN_USER && p->strict ? BWSH_VERDICT_REFUSED
                                                                                     : BWSH_VERDICT_SKIPPED,
                              q->dest, "holds the protected path %s, which cannot be kept read-only: %s",
                              m->dest, reason);
                  if (r < 0)
                    return r;
                  if (q->fd >= 0)
                    close (q->fd);
                  q->fd = -1;
                  again = true;
                }
            }
          r = plan_refuse (p, m, m->from.origin == BWSH_ORIGIN_USER && p->strict ? BWSH_VERDICT_REFUSED
                                                                             : BWSH_VERDICT_SKIPPED,
                      m->dest, "%s", reason);
          if (r < 0)
            return r;
          if (m->fd >= 0)
            close (m->fd);
          m->fd = -1;
        }
    }
  return 0;
}

int
plan_prepare_destinations (BwshPlan *p, BwshResolveMode mode)
{
  DestTable all = { 0 };
  Writable w = { 0 };
  int r = writable_trees (p, &w);

  for (size_t i = 0; i < p->n_mounts && r >= 0; i++)
    r = plan_dest_table_add (&all, p->mounts, i);
  if (r >= 0)
    r = walk_all (p, &all, &w, mode);
  plan_dest_table_clear (&all);
  free (w.roots);
  return r;
}
