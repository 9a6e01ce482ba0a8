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

#include "plan.h"

/* Destinations the user can never disable or mount over: without them the
 * sandbox either does not start or stops being one (the seed let users
 * disable /usr and /etc, and the shell then ran from whatever was left). */
static const char *const critical_dests[] = { "/", "/dev", "/proc", "/usr", "/etc" };

/* Destinations the user cannot disable, though the policy may bind over
 * them: programs expect a writable /tmp and /var/tmp (the seed accepted
 * "disabledDefaultBinds": ["/tmp"] and left no /tmp at all). */
static const char *const always_locked[] = { "/tmp", "/var/tmp" };

void
ctx_clear (Ctx *c)
{
  dest_table_clear (&c->dests);
  strv_free (c->rw_ceilings, c->n_rw);
  strv_free (c->ro_ceilings, c->n_ro);
  strv_free (c->protected_paths, c->n_protected);
  free (c->protected_is_dir);
  strv_free (c->policy_dirs, c->n_policy_dirs);
  free (c->overlay_dir);
  strv_free (c->locked, c->n_locked);
}

int
expand_list (const BwshBindList *l, const char *home, char ***ret, size_t *ret_n, BwshError *err)
{
  char **v = calloc (l->n + 1, sizeof (char *));

  if (v == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < l->n; i++)
    {
      int r = bwsh_path_expand (l->items[i].src, home, &v[i]);
      if (r < 0)
        {
          strv_free (v, i);
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

  c->protected_paths = calloc (n + 1, sizeof (char *));
  c->protected_is_dir = calloc (n + 1, sizeof (bool));
  if (c->protected_paths == NULL || c->protected_is_dir == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < bwsh_n_protected_defaults; i++, k++)
    {
      r = bwsh_path_expand (bwsh_protected_defaults[i].tmpl, home, &c->protected_paths[k]);
      if (r < 0)
        return bwsh_error_set (err, r, NULL, 0, 0, "invalid home directory \"%s\"", home);
      c->protected_is_dir[k] = bwsh_protected_defaults[i].is_dir;
      c->n_protected = k + 1;
    }
  for (size_t i = 0; i < l->n; i++, k++)
    {
      r = bwsh_path_expand (l->items[i].src, home, &c->protected_paths[k]);
      if (r < 0)
        return bwsh_error_set (err, r, l->items[i].from.file, l->items[i].from.line, 0,
                               "invalid path template \"%s\"", l->items[i].src);
      c->protected_is_dir[k] = true;
      c->n_protected = k + 1;
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
  int r = add_dir_of (&c->policy_dirs, &c->n_policy_dirs, bwsh_policy_path ());

  for (size_t i = 0; r >= 0 && i < c->pol->files.n; i++)
    r = add_dir_of (&c->policy_dirs, &c->n_policy_dirs, c->pol->files.items[i].src);
  return r;
}

/* A rule context: expanded ceilings, protected paths and policy dirs. */
int
ctx_rules (Ctx *c, const char *home, BwshError *err)
{
  int r;

  if ((r = expand_list (&c->pol->rw_ceilings, home, &c->rw_ceilings, &c->n_rw, err)) < 0
      || (r = expand_list (&c->pol->ro_ceilings, home, &c->ro_ceilings, &c->n_ro, err)) < 0
      || (r = expand_protected (c, home, err)) < 0 || (r = collect_policy_dirs (c)) < 0)
    return r;
  return 0;
}

/* True when @s is one of the @n strings of @v. */
bool
str_in (const char *s, const char *const *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (s, v[i]) == 0)
      return true;
  return false;
}

bool
is_critical (const char *dest)
{
  return str_in (dest, critical_dests, BWSH_N_ELEMENTS (critical_dests));
}

bool
is_locked (const Ctx *c, const char *dest)
{
  if (is_critical (dest))
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
 * NULL when fine, else the reason. */
const char *
check_path_rules (const Ctx *c, const char *path, bool rw, bool is_source)
{
  if (bwsh_path_is_forbidden (path))
    return "/, /proc, /dev, /sys and paths under them cannot be bound";
  if (rw)
    {
      if (!bwsh_path_under_any (path, c->rw_ceilings, c->n_rw))
        return "read-write binds are only allowed under the read-write ceilings (by default $HOME)";
      if (bwsh_path_under_any (path, c->protected_paths, c->n_protected))
        return "is a protected path and never writable inside the sandbox";
    }
  else if (is_source && c->n_ro > 0 && !bwsh_path_under_any (path, c->ro_ceilings, c->n_ro))
    return "read-only binds are only allowed under the policy's read-only ceilings";
  return NULL;
}
