/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy: the settings that hold a list: paths, binds, names and ports.
 *
 * Their parsers are named in the schema, policy_root_keys in policy.c; policy_get_names()
 * also reads a match block's selector (policy_match.c).
 */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf, reallocarray */
#endif

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bind_list.h"
#include "bounds.h"
#include "cleanup.h"
#include "policy.h"
#include "policy_internal.h"

/* ---------------------------------------------------------------- lists */

/* Check that @s is an array or list of at most BWSH_ENTRIES_MAX entries. */
static int
check_vector (Ctx *c, const config_setting_t *s, const char *name, const char *what)
{
  if (!policy_is_vector (s))
    return policy_fail (c, s, -EINVAL, "\"%s\" must be a list of %s, not %s", name, what, policy_type_name (s));
  if (config_setting_length (s) > BWSH_ENTRIES_MAX)
    return policy_fail (c, s, -E2BIG, "\"%s\" has more than %d entries", name, BWSH_ENTRIES_MAX);
  return 0;
}

static void
elem_where (Ctx *c, const config_setting_t *list, const config_setting_t *e, BwshSource *ret)
{
  /* Array elements carry no line of their own in libconfig 1.5. */
  bwsh_policy_where (c, config_setting_source_line (e) > 0 ? e : list, ret);
}

const config_setting_t *
policy_located (const config_setting_t *list, const config_setting_t *e)
{
  return config_setting_source_line (e) > 0 ? e : list;
}

static void
replace_list (BwshBindList *field, BwshBindList *value)
{
  bwsh_bind_list_clear (field);
  *field = *value;
  *value = (BwshBindList) { 0 };
}

void
policy_bind_list_clearp (BwshBindList *l)
{
  bwsh_bind_list_clear (l);
}

/* A list of path templates. */
int
bwsh_policy_key_paths (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  _cleanup_ (policy_bind_list_clearp) BwshBindList l = { 0 };
  int r;

  r = check_vector (c, s, name, "paths");
  if (r < 0)
    return r;
  for (int i = 0; i < config_setting_length (s); i++)
    {
      const config_setting_t *e = config_setting_get_elem (s, (unsigned) i);
      _cleanup_free_ char *v = NULL;
      BwshSource from;

      if (config_setting_type (e) != CONFIG_TYPE_STRING)
        return policy_fail (c, policy_located (s, e), -EINVAL, "\"%s\" entries must be strings (paths), not %s", name,
                            policy_type_name (e));
      r = bwsh_policy_get_path (c, policy_located (s, e), name, true, false, &v);
      if (r < 0)
        return r;
      elem_where (c, s, e, &from);
      r = bwsh_bind_list_add (&l, v, NULL, &from);
      if (r < 0)
        return r;
    }
  replace_list (FIELD (p, k->off, BwshBindList), &l);
  return 0;
}

static int
get_path_elem (Ctx *c, const config_setting_t *list, const config_setting_t *e, const char *name,
               char **ret)
{
  if (config_setting_type (e) != CONFIG_TYPE_STRING)
    return policy_fail (c, policy_located (list, e), -EINVAL,
                        "\"%s\" entries must be paths or { src; dst; } groups, not %s", name, policy_type_name (e));
  return bwsh_policy_get_path (c, policy_located (list, e), name, true, true, ret);
}

/* A list of binds: "PATH" or { src = "PATH"; dst = "PATH"; }. */
int
bwsh_policy_key_binds (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  _cleanup_ (policy_bind_list_clearp) BwshBindList l = { 0 };
  int r;

  r = check_vector (c, s, name, "paths or { src; dst; } groups");
  if (r < 0)
    return r;
  for (int i = 0; i < config_setting_length (s); i++)
    {
      const config_setting_t *e = config_setting_get_elem (s, (unsigned) i);
      _cleanup_free_ char *src = NULL, *dst = NULL;
      BwshSource from;

      if (config_setting_is_group (e))
        {
          const config_setting_t *se = NULL, *de = NULL;

          for (int j = 0; j < config_setting_length (e); j++)
            {
              const config_setting_t *m = config_setting_get_elem (e, (unsigned) j);
              const char *mn = config_setting_name (m);

              if (strcmp (mn, "src") == 0)
                se = m;
              else if (strcmp (mn, "dst") == 0)
                de = m;
              else
                return policy_fail (c, m, -EINVAL, "unknown setting \"%s.%s\" (a bind has only src and dst)", name,
                                    mn);
            }
          if (se == NULL)
            return policy_fail (c, e, -EINVAL, "\"%s\": a { } entry needs \"src\"", name);
          r = get_path_elem (c, e, se, name, &src);
          if (r < 0)
            return r;
          if (de != NULL && (r = get_path_elem (c, e, de, name, &dst)) < 0)
            return r;
        }
      else if ((r = get_path_elem (c, s, e, name, &src)) < 0)
        return r;
      elem_where (c, s, e, &from);
      r = bwsh_bind_list_add (&l, src, dst, &from);
      if (r < 0)
        return r;
    }
  replace_list (FIELD (p, k->off, BwshBindList), &l);
  return 0;
}

/* A variable name, or a prefix glob: "EDITOR", "LC_*". */
static bool
env_name_ok (const char *s)
{
  size_t n = strlen (s);

  if (n == 0 || n > NAME_LEN_MAX || !(isalpha ((unsigned char) s[0]) || s[0] == '_'))
    return false;
  for (size_t i = 0; i < n; i++)
    {
      unsigned char ch = (unsigned char) s[i];
      if (ch == '*' && i == n - 1)
        continue;
      if (!(isascii (ch) && (isalnum (ch) || ch == '_')))
        return false;
    }
  return true;
}

/* User and group names come from NSS (LDAP and AD allow spaces and more);
 * refuse only what no NSS name can hold. */
bool
policy_account_name_ok (const char *s)
{
  size_t n = strlen (s);

  if (n == 0 || n > NAME_LEN_MAX)
    return false;
  for (size_t i = 0; i < n; i++)
    {
      unsigned char ch = (unsigned char) s[i];
      if (ch < 0x20 || ch == 0x7f || ch == ':' || ch == '/')
        return false;
    }
  return true;
}

/* A PAM service is a file name in /etc/pam.d. */
static bool
service_name_ok (const char *s)
{
  size_t n = strlen (s);

  if (n == 0 || n > NAME_MAX || s[0] == '.')
    return false;
  for (size_t i = 0; i < n; i++)
    {
      unsigned char ch = (unsigned char) s[i];
      if (!(isascii (ch) && (isalnum (ch) || strchr ("._+@-", ch) != NULL)))
        return false;
    }
  return true;
}

int
policy_get_names (Ctx *c, const config_setting_t *s, const char *name, NameCheck ok, const char *what,
                  const char *plural, bool scalar_ok, BwshBindList *ret)
{
  _cleanup_ (policy_bind_list_clearp) BwshBindList l = { 0 };
  int n, r;

  if (scalar_ok && config_setting_type (s) == CONFIG_TYPE_STRING)
    n = 1;
  else
    {
      if (scalar_ok && !policy_is_vector (s))
        return policy_fail (c, s, -EINVAL, "\"%s\" must be %s or a list of %s, not %s", name, what, plural,
                            policy_type_name (s));
      r = check_vector (c, s, name, plural);
      if (r < 0)
        return r;
      n = config_setting_length (s);
    }
  for (int i = 0; i < n; i++)
    {
      const config_setting_t *e = policy_is_vector (s) ? config_setting_get_elem (s, (unsigned) i) : s;
      const char *v;
      BwshSource from;

      if (config_setting_type (e) != CONFIG_TYPE_STRING)
        return policy_fail (c, policy_located (s, e), -EINVAL, "\"%s\" entries must be strings, not %s", name,
                            policy_type_name (e));
      v = config_setting_get_string (e);
      if (!ok (v))
        {
          _cleanup_free_ char *esc = bwsh_policy_escaped (v);
          return policy_fail (c, policy_located (s, e), -EINVAL, "\"%s\": \"%s\" is not %s", name, esc != NULL ? esc : "?",
                              what);
        }
      elem_where (c, s, e, &from);
      r = bwsh_bind_list_add (&l, v, NULL, &from);
      if (r < 0)
        return r;
    }
  *ret = l;
  l = (BwshBindList) { 0 };
  return 0;
}

int
bwsh_policy_key_env (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  _cleanup_ (policy_bind_list_clearp) BwshBindList l = { 0 };
  int r = policy_get_names (c, s, name, env_name_ok, "a variable name or a prefix glob such as \"LC_*\"",
                            "variable names", false, &l);
  if (r < 0)
    return r;
  replace_list (FIELD (p, k->off, BwshBindList), &l);
  return 0;
}

int
bwsh_policy_key_accounts (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  _cleanup_ (policy_bind_list_clearp) BwshBindList l = { 0 };
  int r = policy_get_names (c, s, name, policy_account_name_ok, "a user or group name", "names", false, &l);
  if (r < 0)
    return r;
  replace_list (FIELD (p, k->off, BwshBindList), &l);
  return 0;
}

int
bwsh_policy_key_services (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  _cleanup_ (policy_bind_list_clearp) BwshBindList l = { 0 };
  int r = policy_get_names (c, s, name, service_name_ok, "a PAM service name", "PAM service names", false,
                            &l);
  if (r < 0)
    return r;
  replace_list (FIELD (p, k->off, BwshBindList), &l);
  return 0;
}

/* Ports: a list of 1..65535 (an empty list allows nothing), or "any". */
int
bwsh_policy_key_ports (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  _cleanup_ (policy_bind_list_clearp) BwshBindList l = { 0 };
  bool *set = FIELD (p, (size_t) k->aux, bool);
  int r;

  if (config_setting_type (s) == CONFIG_TYPE_STRING && strcmp (config_setting_get_string (s), "any") == 0)
    {
      bwsh_bind_list_clear (FIELD (p, k->off, BwshBindList));
      *set = false;
      return 0;
    }
  if (!policy_is_vector (s))
    return policy_fail (c, s, -EINVAL, "\"%s\" must be a list of port numbers or \"any\", not %s", name,
                        policy_type_name (s));
  r = check_vector (c, s, name, "port numbers");
  if (r < 0)
    return r;
  for (int i = 0; i < config_setting_length (s); i++)
    {
      const config_setting_t *e = config_setting_get_elem (s, (unsigned) i);
      char buf[16];
      long long v;
      BwshSource from;

      if (!bwsh_policy_is_int (e))
        return policy_fail (c, policy_located (s, e), -EINVAL, "\"%s\" entries must be port numbers, not %s", name,
                            policy_type_name (e));
      v = config_setting_get_int64 (e);
      if (v < 1 || v > 65535)
        return policy_fail (c, policy_located (s, e), -ERANGE, "\"%s\": port %lld is not between 1 and 65535", name, v);
      snprintf (buf, sizeof buf, "%lld", v);
      elem_where (c, s, e, &from);
      r = bwsh_bind_list_add (&l, buf, NULL, &from);
      if (r < 0)
        return r;
    }
  replace_list (FIELD (p, k->off, BwshBindList), &l);
  *set = true;
  return 0;
}
