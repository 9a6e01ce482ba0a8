/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The merge: the policy's and the user's lists over the defaults, then
 * the protected paths and the order bwrap mounts in.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"

/* ------------------------------------------------------------- additions */

/* A mount of the real home's layer over the state: an entry of the real
 * home, or a protected path shown below a name the state provides. */
static bool
from_real_home (const Ctx *c, const BwshMount *m)
{
  return m->home_entry
         || (m->from.origin == BWSH_ORIGIN_DEFAULT && m->kind == BWSH_MOUNT_RO_BIND
             && bwsh_path_has_prefix (m->dest, c->id->home) && strcmp (m->dest, c->id->home) != 0);
}

/* A bind of $HOME itself replaces the state and the real home's layer. */
static int
shadow_home_layer (Ctx *c, const char *why)
{
  for (size_t i = 0; i < c->p->n_mounts; i++)
    {
      BwshMount *m = &c->p->mounts[i];
      if (m->verdict == BWSH_VERDICT_ACCEPTED && from_real_home (c, m))
        {
          int r = set_reason (m, BWSH_VERDICT_SHADOWED, "%s", why);
          if (r < 0)
            return r;
        }
    }
  return 0;
}

/* The first accepted mount before @before with destination @dest.  An
 * entry of the real home does not count: a bind over it hides it as a bind
 * below the read-only $HOME did, and a bind refused at resolve leaves it. */
static ssize_t
find_dest (Ctx *c, const char *dest, size_t before)
{
  ssize_t best = -1;

  FOREACH_DEST (c, dest, i)
    {
      if (i < before && c->p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED && !c->p->mounts[i].home_entry
          && (best < 0 || (size_t) best > i))
        best = (ssize_t) i;
    }
  return best;
}

static int
add_bind (Ctx *c, const BwshBindSpec *b, bool rw, const char *what_list)
{
  _cleanup_free_ char *src = NULL, *dst = NULL;
  BwshPathStatus st;
  const char *why;
  ssize_t idx;
  int r;

  idx = add_mount (c, rw ? BWSH_MOUNT_BIND : BWSH_MOUNT_RO_BIND, b->src, b->dst ? b->dst : b->src, &b->from);
  if (idx < 0)
    return (int) idx;
  BwshMount *m = &c->p->mounts[idx];
  m->optional = true;

  /* Policy binds may use "~"; the user's may not: the seed format is absolute paths. */
  if (b->from.origin == BWSH_ORIGIN_POLICY)
    {
      if (bwsh_path_expand (b->src, c->id->home, &src) < 0
          || bwsh_path_expand (b->dst ? b->dst : b->src, c->id->home, &dst) < 0)
        return refuse (c->p, m, BWSH_VERDICT_REFUSED, b->src, "%s: not a valid absolute path", what_list);
    }
  else
    {
      st = bwsh_path_normalize (b->src, &src);
      if (st != BWSH_PATH_OK)
        return refuse (c->p, m, BWSH_VERDICT_REFUSED, b->src, "%s", bwsh_path_status_to_string (st));
      st = bwsh_path_normalize (b->dst ? b->dst : b->src, &dst);
      if (st != BWSH_PATH_OK)
        return refuse (c->p, m, BWSH_VERDICT_REFUSED, b->dst, "destination %s", bwsh_path_status_to_string (st));
    }
  free (m->src);
  m->src = steal_pointer (&src);
  r = set_dest (c, (size_t) idx, steal_pointer (&dst));
  if (r < 0)
    return r;
  m = &c->p->mounts[idx];

  if ((why = check_path_rules (&c->rules, m->src, rw && b->from.origin == BWSH_ORIGIN_USER)) != NULL)
    return refuse (c->p, m, BWSH_VERDICT_REFUSED, m->src, "%s", why);
  if (b->from.origin == BWSH_ORIGIN_USER
      && ((why = bwsh_rules_overlay_source (m->src, c->id->home, c->rules.policy_dirs, c->rules.n_policy_dirs,
                                            rw ? c->rules.rw_ceilings : c->rules.ro_ceilings,
                                            rw ? c->rules.n_rw : c->rules.n_ro))
              != NULL
          || (!rw && (why = check_ro_ceilings (&c->rules, m->src)) != NULL)))
    return refuse (c->p, m, BWSH_VERDICT_REFUSED, m->src, "%s", why);
  if (bwsh_path_is_forbidden (m->dest) || is_critical (m->dest))
    return refuse (c->p, m, BWSH_VERDICT_REFUSED, m->dest,
                   "destination is /, /usr, /etc or under /proc, /dev or /sys; it cannot be replaced");
  if (b->from.origin == BWSH_ORIGIN_USER && rw
      && (why = check_path_rules (&c->rules, m->dest, true)) != NULL)
    return refuse (c->p, m, BWSH_VERDICT_REFUSED, m->dest, "destination %s", why);

  /* The same destination twice: the higher origin wins. */
  idx = find_dest (c, m->dest, (size_t) (m - c->p->mounts));
  if (idx >= 0)
    {
      BwshMount *old = &c->p->mounts[idx];
      _cleanup_free_ char *where = NULL;

      if (old->from.origin > m->from.origin)
        return refuse (c->p, m, BWSH_VERDICT_SHADOWED, m->dest, "also bound by the %s, which wins",
                       bwsh_origin_to_string (old->from.origin));
      where = format_from (&m->from);
      if (where == NULL)
        return -ENOMEM;
      r = set_reason (old, BWSH_VERDICT_SHADOWED, "replaced by a %s bind on the same destination",
                      bwsh_origin_to_string (m->from.origin));
      if (r >= 0 && old->state)
        r = shadow_home_layer (c, "$HOME is replaced by a bind");
      if (r < 0)
        return r;
      _cleanup_free_ char *esc = bwsh_escape (m->dest, strlen (m->dest));
      if (esc == NULL)
        return -ENOMEM;
      return bwsh_diag_add (&c->p->diag, "%s%s: replaces the %s bind on the same destination", where, esc,
                            bwsh_origin_to_string (old->from.origin));
    }
  return 0;
}

static int
apply_disable (Ctx *c, const BwshBindSpec *b)
{
  _cleanup_free_ char *dest = NULL, *esc = NULL, *where = format_from (&b->from);
  BwshPathStatus st;
  const char *why = NULL;
  bool found = false;

  if (where == NULL)
    return -ENOMEM;
  st = bwsh_path_normalize (b->src, &dest);
  if (st != BWSH_PATH_OK)
    why = bwsh_path_status_to_string (st);
  else if (is_locked (c, dest))
    why = "is locked and cannot be disabled";

  if (why == NULL)
    FOREACH_DEST (c, dest, i)
      {
        BwshMount *m = &c->p->mounts[i];
        if (m->verdict != BWSH_VERDICT_ACCEPTED || m->state)
          continue;
        if (m->from.origin == BWSH_ORIGIN_POLICY)
          {
            why = "is set by the policy and cannot be disabled";
            break;
          }
        if (m->from.origin != BWSH_ORIGIN_DEFAULT)
          continue;
        int r = set_reason (m, BWSH_VERDICT_DISABLED, "disabled by %s:%d", b->from.file ? b->from.file : "?",
                            b->from.line);
        if (r < 0)
          return r;
        found = true;
      }

  /* Disabling $HOME hides the real home; the state stays, as the
   * shell needs a home to start in. */
  if (why == NULL && strcmp (dest, c->id->home) == 0)
    for (size_t i = 0; i < c->p->n_mounts; i++)
      {
        BwshMount *m = &c->p->mounts[i];
        if (m->verdict != BWSH_VERDICT_ACCEPTED || !from_real_home (c, m))
          continue;
        int r = set_reason (m, BWSH_VERDICT_DISABLED, "disabled by %s:%d", b->from.file ? b->from.file : "?",
                            b->from.line);
        if (r < 0)
          return r;
        found = true;
      }
  if (why == NULL && found)
    return 0;
  esc = bwsh_escape (b->src, strlen (b->src));
  if (esc == NULL)
    return -ENOMEM;
  if (why == NULL)
    return bwsh_diag_add (&c->p->diag, "%sdisabledDefaultBinds %s: no default bind has this destination (ignored)",
                          where, esc);
  c->p->n_refused++;
  return bwsh_diag_add (&c->p->diag, "%sdisabledDefaultBinds %s: %s", where, esc, why);
}

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
          idx = add_mount (c, BWSH_MOUNT_BIND, a, a, &from);
          if (idx < 0)
            return (int) idx;
          c->p->mounts[idx].create_dir = true;
          int r = set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED,
                              "pinned: the way to a protected path cannot be renamed");
          if (r < 0)
            return r;
        }
      *slash = '/';
    }
  return 0;
}

/* A protected path below a read-write mount is bound again read-only, at
 * its own path and at the path it resolves to, so neither name leads to a
 * writable copy of the sandbox's own rules. */
/* Whether an element of @rest ("/a/b"), below the directory @base, is a
 * symlink on the host. */
static bool
symlink_below (const char *base, const char *rest)
{
  _cleanup_free_ char *path = NULL;
  size_t blen;
  struct stat st;

  if (base == NULL || asprintf (&path, "%s%s", strcmp (base, "/") == 0 ? "" : base, rest) < 0)
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

int
add_protected (Ctx *c)
{
  size_t n = c->p->n_mounts;

  for (size_t i = 0; i < c->rules.n_protected; i++)
    {
      const char *path = c->rules.protected_paths[i];
      _cleanup_free_ char *resolved = NULL;
      const char *cands[2] = { path, NULL };

      if (c->overlay_dir != NULL && strcmp (path, c->overlay_dir) == 0)
        continue;
      cands[1] = resolved = realpath (path, NULL);

      for (size_t k = 0; k < 2; k++)
        {
          const char *q = cands[k];
          const char *rw_dest = NULL;
          BwshSource from = { .origin = BWSH_ORIGIN_POLICY };
          ssize_t idx, rw_idx = -1;
          int r;

          if (q == NULL || (k == 1 && strcmp (q, path) == 0))
            continue;
          /* The deepest read-write mount above it is the one to pin from. */
          for (size_t j = 0; j < n; j++)
            {
              const BwshMount *m = &c->p->mounts[j];
              /* Not the state: what is written there reaches no program
               * outside, and its paths are not the real home's. */
              if (m->verdict == BWSH_VERDICT_ACCEPTED && m->kind == BWSH_MOUNT_BIND && !m->state
                  && bwsh_path_has_prefix (q, m->dest)
                  && (rw_dest == NULL || strlen (m->dest) > strlen (rw_dest)))
                {
                  rw_dest = c->p->mounts[j].dest;
                  rw_idx = (ssize_t) j;
                }
            }
          if (rw_dest == NULL)
            continue;
          /* A symlink on the way to it, below the read-write mount, is one
           * the session could replace (rm, mkdir, write), and no bind can
           * pin a symlink: the read-write mount cannot be given (issue 24). */
          if (k == 0 && c->p->mounts[rw_idx].from.origin != BWSH_ORIGIN_DEFAULT
              && symlink_below (c->p->mounts[rw_idx].src, q + strlen (rw_dest)))
            {
              BwshMount *w = &c->p->mounts[rw_idx];
              r = refuse (c->p, w, BWSH_VERDICT_REFUSED, w->src,
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
          if (access (q, F_OK) == 0)
            idx = add_mount (c, BWSH_MOUNT_RO_BIND, q, q, &from);
          else if (!c->protected_is_dir[i])
            {
              /* A missing file (~/.forward, ~/.bashrc): an empty read-only
               * one in its place, so it cannot be created inside. */
              idx = add_mount (c, BWSH_MOUNT_RO_BIND, "/dev/null", q, &from);
              if (idx >= 0)
                c->p->mounts[idx].file_placeholder = true;
            }
          else
            {
              /* Missing: an empty read-only tmpfs keeps anyone from
               * creating it inside. */
              idx = add_mount (c, BWSH_MOUNT_TMPFS, NULL, q, &from);
              if (idx >= 0)
                idx = add_mount (c, BWSH_MOUNT_REMOUNT_RO, NULL, q, &from);
            }
          if (idx < 0)
            return (int) idx;
          c->p->mounts[idx].guard = true;
          if (c->p->mounts[idx].kind == BWSH_MOUNT_REMOUNT_RO)
            c->p->mounts[idx - 1].guard = true;
          r = set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED, "protected path");
          if (r < 0)
            return r;
        }
    }
  return 0;
}

/* Parents first: a child bind must never be hidden by a later parent bind.
 * Ties keep their order (a tmpfs before its remount-ro), hence the index in
 * the key: qsort() itself is not stable. */
typedef struct
{
  size_t depth;
  size_t index;
} SortKey;

static int
cmp_sort_key (const void *a, const void *b)
{
  const SortKey *x = a, *y = b;

  if (x->depth != y->depth)
    return x->depth < y->depth ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

int
sort_by_depth (BwshPlan *p)
{
  _cleanup_free_ SortKey *keys = calloc (p->n_mounts + 1, sizeof *keys);
  _cleanup_free_ BwshMount *sorted = calloc (p->n_mounts + 1, sizeof *sorted);

  if (keys == NULL || sorted == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < p->n_mounts; i++)
    keys[i] = (SortKey) { bwsh_path_depth (p->mounts[i].dest), i };
  qsort (keys, p->n_mounts, sizeof *keys, cmp_sort_key);
  for (size_t i = 0; i < p->n_mounts; i++)
    sorted[i] = p->mounts[keys[i].index];
  memcpy (p->mounts, sorted, p->n_mounts * sizeof *sorted);
  return 0;
}

/* ------------------------------------------------------------------ merge */

/*
 * Policy x user overlay, in one table, the way OpenSSH's sshauthopt_merge()
 * reads.  The defaults are in place (add_defaults()); the entries below are
 * merged over them in this order, and every rule of the merge is applied by
 * the step named here, nowhere else:
 *
 *   precedence  policy > user > default on the same destination; the lower
 *               one is SHADOWED with a warning (add_bind(), find_dest())
 *   ceilings    a user's read-write bind only under rw_ceilings, a user's
 *               read-only bind only under ro_ceilings when set, never /,
 *               /proc, /dev, /sys, as written and as resolved
 *               (check_path_rules(), again in bwsh_plan_resolve())
 *   locks       /, /dev, /proc, /usr, /etc and the policy's "locked" cannot
 *               be disabled; a policy bind cannot be disabled (apply_disable())
 *   protection  protected paths under a read-write mount are bound again
 *               read-only, at their path and at their resolution, and the
 *               way to them is pinned (add_protected(), after the merge)
 *   project     the user's sandboxProjectDir replaces the policy's only if
 *               user_project_dir allows it, checked like a read-write bind
 *               (choose_project_dir(), before the defaults)
 *   limits      user entries past max_mounts are refused (enforce_mount_limit())
 *   coalescing  a user bind an identical parent bind already shows is
 *               COALESCED (coalesce(), after resolution)
 *
 * The policy's entries are trusted (they may bind anything but /, /proc,
 * /dev, /sys); the user's are checked.  A refused entry is reported and the
 * rest still applies; only strict mode refuses the session.
 */
typedef enum
{
  MERGE_RO_BIND,
  MERGE_RW_BIND,
  MERGE_DISABLE,
} MergeOp;

typedef struct
{
  BwshOrigin origin;
  size_t list;      /* offset of the BwshBindList in BwshPolicy or BwshUserConfig */
  MergeOp op;
  const char *key;  /* as the administrator or the user wrote it */
} MergeEntry;

static const MergeEntry merge_table[] = {
  { BWSH_ORIGIN_POLICY, offsetof (BwshPolicy, ro_binds), MERGE_RO_BIND, "ro_binds" },
  { BWSH_ORIGIN_POLICY, offsetof (BwshPolicy, rw_binds), MERGE_RW_BIND, "rw_binds" },
  { BWSH_ORIGIN_USER, offsetof (BwshUserConfig, ro_binds), MERGE_RO_BIND, "additionalROBinds" },
  { BWSH_ORIGIN_USER, offsetof (BwshUserConfig, rw_binds), MERGE_RW_BIND, "additionalBinds" },
  { BWSH_ORIGIN_USER, offsetof (BwshUserConfig, disabled), MERGE_DISABLE, "disabledDefaultBinds" },
};

/* @uc is NULL when the policy allows no overlay. */
int
merge (Ctx *c, const BwshUserConfig *uc)
{
  for (size_t t = 0; t < BWSH_N_ELEMENTS (merge_table); t++)
    {
      const MergeEntry *e = &merge_table[t];
      const void *from = e->origin == BWSH_ORIGIN_POLICY ? (const void *) c->pol : (const void *) uc;
      const BwshBindList *l;

      if (from == NULL)
        continue;
      l = (const BwshBindList *) (const void *) ((const char *) from + e->list);
      for (size_t i = 0; i < l->n; i++)
        {
          int r = e->op == MERGE_DISABLE ? apply_disable (c, &l->items[i])
                                         : add_bind (c, &l->items[i], e->op == MERGE_RW_BIND, e->key);
          if (r < 0)
            return r;
        }
    }
  return 0;
}
