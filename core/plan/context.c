/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rules context: the policy's ceilings, protected paths, locked
 * destinations and policy directories, expanded for one user, and the
 * checks the merge and the resolution apply with them.
 */
#include "config.h"

#include <errno.h>
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

/* Destinations the user can never disable or mount over: without them the
 * sandbox either does not start or stops being one (the seed let users
 * disable /usr and /etc, and the shell then ran from whatever was left). */
static const char *const critical_dests[] = { "/", "/dev", "/proc", "/usr", "/etc" };

/* Destinations the user cannot disable, though the policy may bind over
 * them: programs expect a writable /tmp and /var/tmp (the seed accepted
 * "disabledDefaultBinds": ["/tmp"] and left no /tmp at all). */
static const char *const always_locked[] = { "/tmp", "/var/tmp" };

void
plan_ctx_clear (Ctx *c)
{
  plan_dest_table_clear (&c->dests);
  plan_strv_free (c->rules.rw_ceilings, c->rules.n_rw);
  plan_strv_free (c->rules.ro_ceilings, c->rules.n_ro);
  plan_strv_free (c->rules.protected_paths, c->rules.n_protected);
  plan_strv_free (c->rules.policy_dirs, c->rules.n_policy_dirs);
  c->rules = (Rules) { 0 };
  free (c->protected_is_dir);
  free (c->protected_state_owned);
  free (c->overlay_dir);
  plan_strv_free (c->locked, c->n_locked);
  plan_strv_free (c->home_names, c->n_home_names);
}

int
plan_expand_list (const BwshBindList *l, const char *home, char ***ret, size_t *ret_n, BwshError *err)
{
  char **v = calloc (l->n + 1, sizeof (char *));

  if (v == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < l->n; i++)
    {
      int r = bwsh_path_expand (l->items[i].src, home, &v[i]);
      if (r < 0)
        {
          plan_strv_free (v, i);
          return bwsh_error_set (err, r, l->items[i].from.file, l->items[i].from.line, 0,
                                 "invalid path template \"%s\"", l->items[i].src);
        }
    }
  *ret = v;
  *ret_n = l->n;
  return 0;
}

/* The built-in protected set, then what the policy adds. */
static int
expand_protected (Ctx *c, const char *home, BwshError *err)
{
  const BwshBindList *l = &c->pol->protected_paths;
  size_t n = bwsh_n_protected_defaults + l->n, k = 0;
  int r;

  c->rules.protected_paths = calloc (n + 1, sizeof (char *));
  c->protected_is_dir = calloc (n + 1, sizeof (bool));
  c->protected_state_owned = calloc (n + 1, sizeof (bool));
  if (c->rules.protected_paths == NULL || c->protected_is_dir == NULL || c->protected_state_owned == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < bwsh_n_protected_defaults; i++, k++)
    {
      r = bwsh_path_expand (bwsh_protected_defaults[i].tmpl, home, &c->rules.protected_paths[k]);
      if (r < 0)
        return bwsh_error_set (err, r, NULL, 0, 0, "invalid home directory \"%s\"", home);
      c->protected_is_dir[k] = bwsh_protected_defaults[i].is_dir;
      c->protected_state_owned[k] = bwsh_protected_defaults[i].state_owned;
      c->rules.n_protected = k + 1;
    }
  for (size_t i = 0; i < l->n; i++, k++)
    {
      r = bwsh_path_expand (l->items[i].src, home, &c->rules.protected_paths[k]);
      if (r < 0)
        return bwsh_error_set (err, r, l->items[i].from.file, l->items[i].from.line, 0,
                               "invalid path template \"%s\"", l->items[i].src);
      c->protected_is_dir[k] = true;
      c->rules.n_protected = k + 1;
    }
  return 0;
}

static int
add_dir_of (char ***v, size_t *n, const char *file)
{
  _cleanup_free_ char *dir = NULL;
  const char *slash = strrchr (file, '/');
  char **nv;

  /* A policy at the root itself would make every path "the policy's". */
  if (slash == NULL || slash == file || file[0] != '/')
    return 0;
  if (bwsh_path_normalize (strndupa (file, (size_t) (slash - file)), &dir) != BWSH_PATH_OK)
    return 0;
  if (bwsh_path_under_any (dir, *v, *n))
    return 0;
  nv = realloc (*v, (*n + 2) * sizeof (char *));
  if (nv == NULL)
    return -ENOMEM;
  *v = nv;
  (*v)[(*n)++] = steal_pointer (&dir);
  (*v)[*n] = NULL;
  return 0;
}

/* The policy's own directory (and that of every file it was read from,
 * @include and conf.d too), so that no overlay shows it anywhere. */
static int
collect_policy_dirs (Ctx *c)
{
  int r = add_dir_of (&c->rules.policy_dirs, &c->rules.n_policy_dirs, bwsh_policy_path ());

  for (size_t i = 0; r >= 0 && i < c->pol->files.n; i++)
    r = add_dir_of (&c->rules.policy_dirs, &c->rules.n_policy_dirs, c->pol->files.items[i].src);
  return r;
}

/* A rule context: expanded ceilings, protected paths and policy dirs. */
int
plan_ctx_rules (Ctx *c, const char *home, BwshError *err)
{
  int r;

  if ((r = plan_expand_list (&c->pol->rw_ceilings, home, &c->rules.rw_ceilings, &c->rules.n_rw, err)) < 0
      || (r = plan_expand_list (&c->pol->ro_ceilings, home, &c->rules.ro_ceilings, &c->rules.n_ro, err)) < 0
      || (r = expand_protected (c, home, err)) < 0 || (r = collect_policy_dirs (c)) < 0)
    return r;
  return 0;
}

/* Resolution re-checks resolved sources against the same rules: they
 * travel with the plan, expanded for this user.  @rules is left empty. */
void
plan_rules_to_plan (Rules *rules, BwshPlan *p)
{
  p->rw_ceilings = steal_pointer (&rules->rw_ceilings);
  p->n_rw_ceilings = rules->n_rw;
  p->ro_ceilings = steal_pointer (&rules->ro_ceilings);
  p->n_ro_ceilings = rules->n_ro;
  p->protected_paths = steal_pointer (&rules->protected_paths);
  p->n_protected = rules->n_protected;
  p->policy_dirs = steal_pointer (&rules->policy_dirs);
  p->n_policy_dirs = rules->n_policy_dirs;
  *rules = (Rules) { 0 };
}

/* The plan's rules, borrowed: valid as long as the plan. */
Rules
plan_rules_of_plan (const BwshPlan *p)
{
  return (Rules) {
    .rw_ceilings = p->rw_ceilings, .n_rw = p->n_rw_ceilings,
    .ro_ceilings = p->ro_ceilings, .n_ro = p->n_ro_ceilings,
    .protected_paths = p->protected_paths, .n_protected = p->n_protected,
    .policy_dirs = p->policy_dirs, .n_policy_dirs = p->n_policy_dirs,
  };
}

/* True when @s is one of the @n strings of @v. */
bool
plan_str_in (const char *s, const char *const *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (s, v[i]) == 0)
      return true;
  return false;
}

bool
plan_is_critical (const char *dest)
{
  return plan_str_in (dest, critical_dests, BWSH_N_ELEMENTS (critical_dests));
}

bool
plan_is_locked (const Ctx *c, const char *dest)
{
  if (plan_is_critical (dest))
    return true;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (always_locked); i++)
    if (strcmp (dest, always_locked[i]) == 0)
      return true;
  for (size_t i = 0; i < c->n_locked; i++)
    if (strcmp (dest, c->locked[i]) == 0)
      return true;
  return false;
}

/* The rules for one path as the user wrote it or as it resolved.  Returns
 * NULL when fine, else the reason.  The read-write ceilings are an
 * allow-list: the project directory, and what the policy's rw_ceilings adds
 * (issue 24). */
const char *
plan_check_path_rules (const Rules *rules, const char *path, bool rw)
{
  if (bwsh_path_is_forbidden (path))
    return "/, /proc, /dev, /sys and paths under them cannot be bound";
  if (rw)
    {
      if (bwsh_path_under_any (path, rules->protected_paths, rules->n_protected))
        return "is a protected path and never writable inside the sandbox";
      if (!bwsh_path_under_any (path, rules->rw_ceilings, rules->n_rw))
        return "read-write binds are only allowed under the read-write ceilings (the project directory, and "
               "what the policy's rw_ceilings adds)";
    }
  return NULL;
}

/* A user's read-only bind source must lie in the user's own home or under
 * the policy's ro_ceilings: an allow-list, checked after the refused places
 * (bwsh_rules_overlay_source()) so that their more telling reason comes
 * first.  Each red team found the next place such a list of places missed:
 * a directory anywhere that holds a socket gives its service away, because
 * a read-only bind never stops connect() (issue 24). */
const char *
plan_check_ro_ceilings (const Rules *rules, const char *path)
{
  if (bwsh_path_under_any (path, rules->ro_ceilings, rules->n_ro))
    return NULL;
  return "read-only binds are only allowed under the read-only ceilings ($HOME, and what the policy's "
         "ro_ceilings adds)";
}

/* The built-in part of the allow-list, after the policy's lists: the
 * project directory (read-write) and the user's home (read-only). */
int
plan_rules_add_builtin_ceilings (Rules *rules, const char *project, const char *home)
{
  struct
  {
    char ***v;
    size_t *n;
    const char *dir;
  } add[] = { { &rules->rw_ceilings, &rules->n_rw, project }, { &rules->ro_ceilings, &rules->n_ro, home } };

  for (size_t i = 0; i < BWSH_N_ELEMENTS (add); i++)
    {
      char **nv = realloc (*add[i].v, (*add[i].n + 2) * sizeof (char *));
      if (nv == NULL)
        return -ENOMEM;
      *add[i].v = nv;
      if ((nv[*add[i].n] = strdup (add[i].dir)) == NULL)
        return -ENOMEM;
      nv[++*add[i].n] = NULL;
    }
  return 0;
}
