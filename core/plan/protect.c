/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Protection, after the merge: what programs outside the sandbox read is
 * never writable inside, even below a read-write mount.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bind_list.h"
#include "cleanup.h"
#include "format.h"
#include "ops.h"
#include "path.h"
#include "plan.h"
#include "plan_internal.h"

/* Directories between the read-write mount @rw_dest and the protected path
 * @q become mount points (a read-write bind onto themselves): rename(2)
 * refuses to move a mount point, so nobody inside can rename ~/.config away
 * and put a new ~/.config/bwsh in its place.  A missing one is created as
 * the user at resolve time, as bwrap would have created it anyway. */
static int
pin_ancestors (Ctx *c, const char *rw_dest, const char *q)
{
  _cleanup_free_ char *a = strdup (q);
  size_t base = strcmp (rw_dest, "/") == 0 ? 0 : strlen (rw_dest);
  BwshSource from = { .origin = BWSH_ORIGIN_POLICY };

  if (a == NULL)
    return -ENOMEM;
  for (char *slash = a + base + 1; (slash = strchr (slash, '/')) != NULL; slash++)
    {
      bool have = false;
      ssize_t idx;

      *slash = '\0';
      FOREACH_DEST (c, a, j)
        {
          if (c->p->mounts[j].verdict == BWSH_VERDICT_ACCEPTED)
            have = true;
        }
      if (!have)
        {
          idx = plan_add_mount (c, BWSH_MOUNT_BIND, a, a, &from);
          if (idx < 0)
            return (int) idx;
          c->p->mounts[idx].create_dir = true;
          int r = plan_set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED,
                                   "pinned: the way to a protected path cannot be renamed");
          if (r < 0)
            return r;
        }
      *slash = '/';
    }
  return 0;
}

/* Whether an element of @rest ("/a/b"), below the directory @base, is a
 * symlink on the host. */
static bool
symlink_below (const char *base, const char *rest)
{
  _cleanup_free_ char *path = NULL;
  size_t blen;
  struct stat st;

  if (base == NULL || (path = bwsh_concat3 (strcmp (base, "/") == 0 ? "" : base, rest, "")) == NULL)
    return false;
  blen = strlen (path) - strlen (rest);
  for (size_t end = blen + 1; path[end - 1] != '\0'; end++)
    {
      if (path[end] != '/' && path[end] != '\0')
        continue;
      char save = path[end];
      path[end] = '\0';
      bool link = lstat (path, &st) == 0 && S_ISLNK (st.st_mode);
      path[end] = save;
      if (link)
        return true;
      if (save == '\0')
        break;
    }
  return false;
}

/* The deepest accepted read-write mount above @q among the first @n: the
 * one to pin from.  Not the state: what is written there reaches no
 * program outside, and its paths are not the real home's.  -1: none. */
static ssize_t
deepest_rw_mount (const BwshPlan *p, size_t n, const char *q)
{
  const char *rw_dest = NULL;
  ssize_t rw_idx = -1;

  for (size_t j = 0; j < n; j++)
    {
      const BwshMount *m = &p->mounts[j];
      if (m->verdict == BWSH_VERDICT_ACCEPTED && m->kind == BWSH_MOUNT_BIND && !m->state
          && bwsh_path_has_prefix (q, m->dest) && (rw_dest == NULL || strlen (m->dest) > strlen (rw_dest)))
        {
          rw_dest = m->dest;
          rw_idx = (ssize_t) j;
        }
    }
  return rw_idx;
}

/* The protected path @q bound again read-only, or, missing, an empty
 * read-only placeholder (@is_dir: a directory) in its place. */
static int
add_guard (Ctx *c, const char *q, bool is_dir)
{
  BwshSource from = { .origin = BWSH_ORIGIN_POLICY };
  ssize_t idx;
  int r;

  if (access (q, F_OK) == 0)
    idx = plan_add_mount (c, BWSH_MOUNT_RO_BIND, q, q, &from);
  else if (!is_dir)
    {
      /* A missing file (~/.forward, ~/.bashrc): an empty read-only
       * one in its place, so it cannot be created inside. */
      idx = plan_add_mount (c, BWSH_MOUNT_RO_BIND, "/dev/null", q, &from);
      if (idx >= 0)
        c->p->mounts[idx].file_placeholder = true;
    }
  else
    {
      /* Missing: an empty read-only tmpfs keeps anyone from
       * creating it inside. */
      idx = plan_add_mount (c, BWSH_MOUNT_TMPFS, NULL, q, &from);
      if (idx >= 0)
        idx = plan_add_mount (c, BWSH_MOUNT_REMOUNT_RO, NULL, q, &from);
    }
  if (idx < 0)
    return (int) idx;
  c->p->mounts[idx].guard = true;
  if (c->p->mounts[idx].kind == BWSH_MOUNT_REMOUNT_RO)
    c->p->mounts[idx - 1].guard = true;
  r = plan_set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED, "protected path");
  return r < 0 ? r : 0;
}

/* A protected path below a read-write mount is bound again read-only, at
 * its own path and at the path it resolves to, so neither name leads to a
 * writable copy of the sandbox's own rules. */
int
plan_add_protected (Ctx *c)
{
  size_t n = c->p->n_mounts;

  for (size_t i = 0; i < c->rules.n_protected; i++)
    {
      const char *path = c->rules.protected_paths[i];
      _cleanup_free_ char *resolved = NULL;
      const char *cands[2] = { path, NULL };
      struct stat st;

      if (c->overlay_dir != NULL && strcmp (path, c->overlay_dir) == 0)
        continue;
      /* Most protected paths do not exist: the home's listing, or else one
       * lstat(), says so where realpath() would readlink() each element
       * first (issue 27); any other answer, realpath() as before. */
      if (!plan_home_lacks (c, path) && (lstat (path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR)))
        cands[1] = resolved = realpath (path, NULL);

      for (size_t k = 0; k < 2; k++)
        {
          const char *q = cands[k];
          const char *rw_dest = NULL;
          ssize_t rw_idx;
          int r;

          if (q == NULL || (k == 1 && strcmp (q, path) == 0))
            continue;
          rw_idx = deepest_rw_mount (c->p, n, q);
          rw_dest = rw_idx >= 0 ? c->p->mounts[rw_idx].dest : NULL;
          if (rw_dest == NULL)
            continue;
          /* A symlink on the way to it, below the read-write mount, is one
           * the session could replace (rm, mkdir, write), and no bind can
           * pin a symlink: the read-write mount cannot be given (issue 24). */
          if (k == 0 && c->p->mounts[rw_idx].from.origin != BWSH_ORIGIN_DEFAULT
              && symlink_below (c->p->mounts[rw_idx].src, q + strlen (rw_dest)))
            {
              BwshMount *w = &c->p->mounts[rw_idx];
              r = plan_refuse (c->p, w, BWSH_VERDICT_REFUSED, w->src,
                               "holds the protected path %s behind a symlink, which the session could replace", q);
              if (r < 0)
                return r;
              continue;
            }
          if (strcmp (rw_dest, q) != 0)
            {
              _cleanup_free_ char *rw = strdup (rw_dest);
              if (rw == NULL)
                return -ENOMEM;
              r = pin_ancestors (c, rw, q);
              if (r < 0)
                return r;
            }
          r = add_guard (c, q, c->protected_is_dir[i]);
          if (r < 0)
            return r;
        }
    }
  return 0;
}
