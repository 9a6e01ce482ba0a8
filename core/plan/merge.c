/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The merge: the policy's and the user's lists over the defaults, then
 * the protected paths and the order bwrap mounts in.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind_list.h"
#include "cleanup.h"
#include "errors.h"
#include "ops.h"
#include "path.h"
#include "plan.h"
#include "plan_internal.h"
#include "policy.h"
#include "rules.h"
#include "userconf.h"

/* ------------------------------------------------------------- additions */

/* A mount of the real home's layer over the state: an entry of the real
 * home, or a protected path shown below a name the state provides. */
static bool
from_real_home (const Ctx *c, const BwshMount *m)
{
  /* ... and the state's own directories (home.c): a tmpfs of the defaults
   * below $HOME, which go with the layer they belong to. */
  return m->home_entry
         || (m->from.origin == BWSH_ORIGIN_DEFAULT && (m->kind == BWSH_MOUNT_RO_BIND || m->kind == BWSH_MOUNT_TMPFS)
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
          int r = plan_set_reason (m, BWSH_VERDICT_SHADOWED, "%s", why);
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
find_dest (const Ctx *c, const char *dest, size_t before)
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

/*
 * The rules of policy x user overlay, one row each, the way OpenSSH's
 * sshauthopt_merge() states each field's rule.  The defaults are in place
 * (plan_add_defaults()); merge_table[] below merges the lists over them in its
 * order, and each entry meets the rows that apply to it, in this order:
 * the first that objects gives the entry its verdict and the rest of the
 * overlay still applies.  The policy's entries are trusted (they may bind
 * anything but /, /proc, /dev, /sys); the user's are checked.  Only strict
 * mode refuses a session for a refused entry.
 */
typedef enum
{
  ON_POLICY_BIND = 1 << 0,    /* ro_binds, rw_binds */
  ON_USER_RO = 1 << 1,        /* additionalROBinds */
  ON_USER_RW = 1 << 2,        /* additionalBinds */
  ON_DISABLE = 1 << 3,        /* disabledDefaultBinds, its destination */
  ON_DISABLED_MOUNT = 1 << 4, /* each accepted mount a disable would reach */
  ON_USER_BIND = ON_USER_RO | ON_USER_RW,
  ON_BIND = ON_POLICY_BIND | ON_USER_BIND,
} MergeOn;

/* What a rule looks at: a bind's mount (@m, with @src its source and @dest
 * its destination), or a disable's destination (@m NULL), or a mount a
 * disable reaches.  The rows on the source (names_dest false) read @src,
 * @origin, @rules and @home only, so that resolution runs them again on the
 * resolved path (plan_merge_source_objection()). */
typedef struct
{
  const BwshMount *m;
  const char *src;
  BwshOrigin origin;
  const Rules *rules;
  const char *home;
  const char *dest;
  bool rw;
} MergeArg;

typedef struct
{
  const char *rule;
  MergeOn on;
  bool names_dest; /* the refusal names the destination, else the source */
  const char *(*check) (const Ctx *c, const MergeArg *a, char *buf, size_t size);
  BwshVerdict verdict;
} MergeRule;

/* Never /, /proc, /dev, /sys; a user's read-write bind never protected
 * and only under the read-write ceilings (the project directory, and what
 * the policy's rw_ceilings adds). */
static const char *
rule_ceilings (const Ctx *c, const MergeArg *a, char *buf, size_t size)
{
  (void) c, (void) buf, (void) size;
  return plan_check_path_rules (a->rules, a->src, a->rw && a->origin == BWSH_ORIGIN_USER);
}

/* An overlay source shows no host IPC, no other user's data and not the
 * policy itself (core/policy/rules.c). */
static const char *
rule_overlay_source (const Ctx *c, const MergeArg *a, char *buf, size_t size)
{
  (void) c, (void) buf, (void) size;
  return bwsh_rules_overlay_source (a->src, a->home, a->rules->policy_dirs, a->rules->n_policy_dirs,
                                    a->rw ? a->rules->rw_ceilings : a->rules->ro_ceilings,
                                    a->rw ? a->rules->n_rw : a->rules->n_ro);
}

/* A user's read-only source lies in the user's home or under the policy's
 * ro_ceilings: an allow-list, after the overlay row so that its more
 * telling reason comes first (issue 24). */
static const char *
rule_ro_ceilings (const Ctx *c, const MergeArg *a, char *buf, size_t size)
{
  (void) c, (void) buf, (void) size;
  return plan_check_ro_ceilings (a->rules, a->src);
}

/* /, /usr, /etc and what lies under /proc, /dev, /sys are never replaced. */
static const char *
rule_critical_dest (const Ctx *c, const MergeArg *a, char *buf, size_t size)
{
  (void) c, (void) buf, (void) size;
  if (bwsh_path_is_forbidden (a->dest) || plan_is_critical (a->dest))
    return "destination is /, /usr, /etc or under /proc, /dev or /sys; it cannot be replaced";
  return NULL;
}

/* A user's read-write destination obeys the rules of its source. */
static const char *
rule_rw_dest (const Ctx *c, const MergeArg *a, char *buf, size_t size)
{
  const char *why = plan_check_path_rules (&c->rules, a->dest, true);

  if (why == NULL)
    return NULL;
  snprintf (buf, size, "destination %s", why);
  return buf;
}

/* policy > user > default on one destination: the lower one loses, and
 * add_bind() shadows a lower earlier mount. */
static const char *
rule_precedence (const Ctx *c, const MergeArg *a, char *buf, size_t size)
{
  ssize_t idx = find_dest (c, a->dest, (size_t) (a->m - c->p->mounts));

  if (idx < 0 || c->p->mounts[idx].from.origin <= a->m->from.origin)
    return NULL;
  snprintf (buf, size, "also bound by the %s, which wins", bwsh_origin_to_string (c->p->mounts[idx].from.origin));
  return buf;
}

/* /, /dev, /proc, /usr, /etc, /tmp, /var/tmp and the policy's "locked"
 * are never disabled. */
static const char *
rule_locked (const Ctx *c, const MergeArg *a, char *buf, size_t size)
{
  (void) buf, (void) size;
  return plan_is_locked (c, a->dest) ? "is locked and cannot be disabled" : NULL;
}

/* A policy bind is never disabled. */
static const char *
rule_policy_bind (const Ctx *c, const MergeArg *a, char *buf, size_t size)
{
  (void) c, (void) buf, (void) size;
  return a->m->from.origin == BWSH_ORIGIN_POLICY ? "is set by the policy and cannot be disabled" : NULL;
}

static const MergeRule merge_rules[] = {
  /* rule          applies to         names dest  check                verdict */
  { "ceilings",    ON_BIND,           false,      rule_ceilings,       BWSH_VERDICT_REFUSED },
  { "overlay",     ON_USER_BIND,      false,      rule_overlay_source, BWSH_VERDICT_REFUSED },
  { "ro ceilings", ON_USER_RO,        false,      rule_ro_ceilings,    BWSH_VERDICT_REFUSED },
  { "critical",    ON_BIND,           true,       rule_critical_dest,  BWSH_VERDICT_REFUSED },
  { "rw dest",     ON_USER_RW,        true,       rule_rw_dest,        BWSH_VERDICT_REFUSED },
  { "precedence",  ON_BIND,           true,       rule_precedence,     BWSH_VERDICT_SHADOWED },
  { "locks",       ON_DISABLE,        true,       rule_locked,         BWSH_VERDICT_REFUSED },
  { "policy",      ON_DISABLED_MOUNT, true,       rule_policy_bind,    BWSH_VERDICT_REFUSED },
};

/*
 * The rules the merge leaves to other steps, because they need the whole
 * plan or the resolved paths:
 *
 *   ceilings    again on the resolved source (bwsh_plan_resolve())
 *   protection  protected paths under a read-write mount are bound again
 *               read-only, at their path and at their resolution, and the
 *               way to them is pinned (plan_add_protected(), after the merge)
 *   symlinks    a read-write bind that holds a protected path behind a
 *               symlink the session could replace is refused (plan_add_protected())
 *   project     the user's sandboxProjectDir replaces the policy's only if
 *               user_project_dir allows it, checked like a read-write bind
 *               (plan_choose_project_dir(), before the defaults)
 *   limits      user entries past max_mounts are refused (plan_enforce_mount_limit())
 *   coalescing  a user bind an identical parent bind already shows is
 *               COALESCED (plan_coalesce(), after resolution)
 */

/* The first rule for @on that objects to @a: its reason, and its row in
 * *ret_rule; NULL when every rule lets @a through. */
static const char *
merge_objection (const Ctx *c, MergeOn on, const MergeArg *a, char *buf, size_t size, const MergeRule **ret_rule)
{
  for (size_t i = 0; i < BWSH_N_ELEMENTS (merge_rules); i++)
    {
      const char *why;

      if ((merge_rules[i].on & on) == 0 || (why = merge_rules[i].check (c, a, buf, size)) == NULL)
        continue;
      if (ret_rule != NULL)
        *ret_rule = &merge_rules[i];
      return why;
    }
  return NULL;
}

const char *
plan_merge_source_objection (const Rules *rules, const char *home, const char *src, bool rw)
{
  const MergeArg a = { .src = src, .origin = BWSH_ORIGIN_USER, .rules = rules, .home = home, .rw = rw };
  MergeOn on = rw ? ON_USER_RW : ON_USER_RO;
  char buf[256]; /* the rows on a source return a fixed reason */

  for (size_t i = 0; i < BWSH_N_ELEMENTS (merge_rules); i++)
    {
      const char *why;

      if ((merge_rules[i].on & on) == 0 || merge_rules[i].names_dest)
        continue;
      why = merge_rules[i].check (NULL, &a, buf, sizeof buf);
      if (why != NULL)
        return why;
    }
  return NULL;
}

static int
add_bind (Ctx *c, const BwshBindSpec *b, bool rw, const char *what_list)
{
  _cleanup_free_ char *src = NULL, *dst = NULL;
  BwshPathStatus st;
  const char *why;
  ssize_t idx;
  int r;

  idx = plan_add_mount (c, rw ? BWSH_MOUNT_BIND : BWSH_MOUNT_RO_BIND, b->src, b->dst ? b->dst : b->src, &b->from);
  if (idx < 0)
    return (int) idx;
  BwshMount *m = &c->p->mounts[idx];
  m->optional = true;

  /* Policy binds may use "~"; the user's may not: the seed format is absolute paths. */
  if (b->from.origin == BWSH_ORIGIN_POLICY)
    {
      if (bwsh_path_expand (b->src, c->id->home, &src) < 0
          || bwsh_path_expand (b->dst ? b->dst : b->src, c->id->home, &dst) < 0)
        return plan_refuse (c->p, m, BWSH_VERDICT_REFUSED, b->src, "%s: not a valid absolute path", what_list);
    }
  else
    {
      st = bwsh_path_normalize (b->src, &src);
      if (st != BWSH_PATH_OK)
        return plan_refuse (c->p, m, BWSH_VERDICT_REFUSED, b->src, "%s", bwsh_path_status_to_string (st));
      st = bwsh_path_normalize (b->dst ? b->dst : b->src, &dst);
      if (st != BWSH_PATH_OK)
        return plan_refuse (c->p, m, BWSH_VERDICT_REFUSED, b->dst, "destination %s", bwsh_path_status_to_string (st));
    }
  free (m->src);
  m->src = steal_pointer (&src);
  r = plan_set_dest (c, (size_t) idx, steal_pointer (&dst));
  if (r < 0)
    return r;
  m = &c->p->mounts[idx];

  const MergeArg a = { .m = m, .src = m->src, .origin = m->from.origin, .rules = &c->rules, .home = c->id->home,
                       .dest = m->dest, .rw = rw };
  MergeOn on = b->from.origin != BWSH_ORIGIN_USER ? ON_POLICY_BIND : rw ? ON_USER_RW : ON_USER_RO;
  const MergeRule *rule = NULL;
  char buf[256];

  if ((why = merge_objection (c, on, &a, buf, sizeof buf, &rule)) != NULL)
    return plan_refuse (c->p, m, rule->verdict, rule->names_dest ? m->dest : m->src, "%s", why);

  /* The same destination twice, and this one wins (rule_precedence()):
   * the earlier one is shadowed. */
  idx = find_dest (c, m->dest, (size_t) (m - c->p->mounts));
  if (idx >= 0)
    {
      BwshMount *old = &c->p->mounts[idx];
      _cleanup_free_ char *where = NULL;

      where = plan_format_from (&m->from);
      if (where == NULL)
        return -ENOMEM;
      r = plan_set_reason (old, BWSH_VERDICT_SHADOWED, "replaced by a %s bind on the same destination",
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
  _cleanup_free_ char *dest = NULL, *esc = NULL, *where = plan_format_from (&b->from);
  BwshPathStatus st;
  const char *why = NULL;
  char buf[256];
  bool found = false;

  if (where == NULL)
    return -ENOMEM;
  st = bwsh_path_normalize (b->src, &dest);
  if (st != BWSH_PATH_OK)
    why = bwsh_path_status_to_string (st);
  else
    why = merge_objection (c, ON_DISABLE, &(const MergeArg) { .dest = dest }, buf, sizeof buf, NULL);

  if (why == NULL)
    FOREACH_DEST (c, dest, i)
      {
        BwshMount *m = &c->p->mounts[i];
        if (m->verdict != BWSH_VERDICT_ACCEPTED || m->state)
          continue;
        why = merge_objection (c, ON_DISABLED_MOUNT, &(const MergeArg) { .m = m, .dest = dest }, buf, sizeof buf,
                               NULL);
        if (why != NULL)
          break;
        if (m->from.origin != BWSH_ORIGIN_DEFAULT)
          continue;
        int r = plan_set_reason (m, BWSH_VERDICT_DISABLED, "disabled by %s:%d", b->from.file ? b->from.file : "?",
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
        /* the state's own directories stay with the state */
        if (m->verdict != BWSH_VERDICT_ACCEPTED || !from_real_home (c, m) || m->kind == BWSH_MOUNT_TMPFS)
          continue;
        int r = plan_set_reason (m, BWSH_VERDICT_DISABLED, "disabled by %s:%d", b->from.file ? b->from.file : "?",
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
plan_sort_by_depth (BwshPlan *p)
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

/* The lists of the merge, in the order they are merged; merge_rules[]
 * above says what each entry meets. */
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
plan_merge (Ctx *c, const BwshUserConfig *uc)
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
