/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy: the settings that hold one value: booleans, paths and
 * templates, a choice among names, sizes, counts and rlimits.
 *
 * Their parsers are named in the schema, policy_root_keys in policy.c.
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
#include "path.h"
#include "policy.h"
#include "policy_internal.h"
#include "rules.h"

/* ------------------------------------------------ settings of one value */

int
bwsh_policy_key_bool (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  if (config_setting_type (s) != CONFIG_TYPE_BOOL)
    return policy_fail (c, s, -EINVAL, "\"%s\" must be true or false, not %s", name, policy_type_name (s));
  *FIELD (p, k->off, bool) = config_setting_get_bool (s);
  return 0;
}

static int
set_string (char **field, char *value)
{
  free (*field);
  *field = value;
  return 0;
}

static int
key_abs_path (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  char *v = NULL;
  int r = bwsh_policy_get_path (c, s, name, false, false, &v);
  if (r < 0)
    return r;
  return set_string (FIELD (p, k->off, char *), v);
}

/* The inner shell: where it was set, so that a shell missing at login is
 * reported at its line. */
int
bwsh_policy_key_shell (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  BwshSource at;
  char *file;
  int r = key_abs_path (c, p, s, name, k);

  if (r < 0)
    return r;
  bwsh_policy_where (c, s, &at);
  file = strdup (at.file);
  if (file == NULL)
    return -ENOMEM;
  free (p->shell_from.file);
  p->shell_from = at;
  p->shell_from.file = file;
  return 0;
}

int
bwsh_policy_key_template (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  char *v = NULL;
  int r = bwsh_policy_get_path (c, s, name, true, false, &v);
  if (r < 0)
    return r;
  return set_string (FIELD (p, k->off, char *), v);
}

/* A template that is bound read-write (the project directory): never
 * /, /proc, /dev, /sys or below. */
int
bwsh_policy_key_bind_template (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name,
                               const Key *k)
{
  char *v = NULL;
  int r = bwsh_policy_get_path (c, s, name, true, true, &v);
  if (r < 0)
    return r;
  return set_string (FIELD (p, k->off, char *), v);
}

/* Every enum setting: its names are its row's table (policy.c), which
 * also gives the to-string; the value is stored as an int (policy.c
 * asserts the size), and k->aux, when set, is a bool field that records
 * that the setting was written (landlock.mode). */
int
bwsh_policy_key_enum (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  const BwshEnumName *names = k->sub;
  char choices[128] = "";
  size_t n = 0;

  if (config_setting_type (s) == CONFIG_TYPE_STRING)
    {
      int v;
      if (bwsh_enum_from_string (names, config_setting_get_string (s), &v) >= 0)
        {
          *FIELD (p, k->off, int) = v;
          if (k->aux != 0)
            *FIELD (p, (size_t) k->aux, bool) = true;
          return 0;
        }
    }
  while (names[n].name != NULL)
    n++;
  for (size_t i = 0; i < n; i++)
    {
      size_t len = strlen (choices);
      snprintf (choices + len, sizeof choices - len, "%s\"%s\"",
                i == 0 ? "" : i + 1 == n ? (n == 2 ? " or " : ", or ") : ", ", names[i].name);
    }
  return policy_fail (c, s, -EINVAL, "\"%s\" must be %s", name, choices);
}

/* The places no state_dir may be are known before any user is: refuse
 * them here, with the line.  The plan checks again against the protected
 * paths and the project directory, and after resolving symlinks. */
int
bwsh_policy_key_state_dir (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  _cleanup_free_ char *v = NULL, *expanded = NULL, *probe = NULL;
  const char *why;
  int r;

  r = bwsh_policy_get_path (c, s, name, true, true, &v);
  if (r < 0)
    return r;
  probe = strdup (v);
  if (probe == NULL)
    return -ENOMEM;
  for (char *q = strstr (probe, "%u"); q != NULL; q = strstr (q, "%u"))
    q[0] = q[1] = 'u';
  r = bwsh_path_expand (probe, CHECK_HOME, &expanded);
  if (r < 0)
    return r;
  why = bwsh_state_dir_refusal (NULL, 0, CHECK_HOME, NULL, expanded);
  if (why != NULL)
    return policy_fail (c, s, -EPERM, "\"%s\": \"%s\" %s", name, v, why);
  return set_string (FIELD (p, k->off, char *), steal_pointer (&v));
}

/* "123", "64K", "64M", "1G" (powers of 1024); nothing else. */
static int
parse_size (const char *s, uint64_t *ret)
{
  unsigned long long v;
  uint64_t mult = 1;
  char *end = NULL;

  if (!isdigit ((unsigned char) s[0]))
    return -EINVAL;
  errno = 0;
  v = strtoull (s, &end, 10);
  if (errno == ERANGE)
    return -ERANGE;
  if (errno != 0 || end == s)
    return -EINVAL;
  switch (*end)
    {
    case '\0':
      break;
    case 'K':
    case 'k':
      mult = UINT64_C (1) << 10;
      end++;
      break;
    case 'M':
    case 'm':
      mult = UINT64_C (1) << 20;
      end++;
      break;
    case 'G':
    case 'g':
      mult = UINT64_C (1) << 30;
      end++;
      break;
    default:
      return -EINVAL;
    }
  if (*end != '\0')
    return -EINVAL;
  if ((uint64_t) v > UINT64_MAX / mult)
    return -ERANGE;
  *ret = (uint64_t) v * mult;
  return 0;
}

int
bwsh_policy_key_size (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  uint64_t v;

  if (bwsh_policy_is_int (s))
    {
      long long ll = config_setting_get_int64 (s);
      if (ll < 0)
        return policy_fail (c, s, -EINVAL, "\"%s\" must not be negative", name);
      v = (uint64_t) ll;
    }
  else if (config_setting_type (s) == CONFIG_TYPE_STRING)
    {
      int r = parse_size (config_setting_get_string (s), &v);
      if (r == -ERANGE)
        return policy_fail (c, s, -ERANGE, "\"%s\" is too large", name);
      if (r < 0)
        {
          _cleanup_free_ char *esc = bwsh_policy_escaped (config_setting_get_string (s));
          return policy_fail (c, s, -EINVAL,
                              "\"%s\" must be a number of bytes with an optional K, M or G suffix, not \"%s\"",
                              name, esc != NULL ? esc : "?");
        }
    }
  else
    return policy_fail (c, s, -EINVAL, "\"%s\" must be an integer or a string such as \"64M\", not %s", name,
                        policy_type_name (s));
  *FIELD (p, k->off, uint64_t) = v;
  return 0;
}

/* lock_reason: what a member of a lock group is told, one line like
 * bwshctl lock --reason (#39). */
int
bwsh_policy_key_lock_reason (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  const char *v;
  char *copy;

  (void) k;
  if (config_setting_type (s) != CONFIG_TYPE_STRING)
    return policy_fail (c, s, -EINVAL, "\"%s\" must be a string, not %s", name, policy_type_name (s));
  v = config_setting_get_string (s);
  for (const char *q = v; *q != '\0'; q++)
    if ((unsigned char) *q < 0x20 || *q == 0x7f)
      return policy_fail (c, s, -EINVAL, "\"%s\" must be one line without control characters", name);
  if (strlen (v) > BWSH_LOCK_REASON_MAX)
    return policy_fail (c, s, -E2BIG, "\"%s\" is longer than %d bytes", name, BWSH_LOCK_REASON_MAX);
  copy = strdup (v);
  if (copy == NULL)
    return -ENOMEM;
  return set_string (&p->lock_reason, copy);
}

int
bwsh_policy_key_hostname (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  const char *v;
  size_t n;
  char *copy = NULL;

  (void) k;
  if (config_setting_type (s) != CONFIG_TYPE_STRING)
    return policy_fail (c, s, -EINVAL, "\"%s\" must be a string, not %s", name, policy_type_name (s));
  v = config_setting_get_string (s);
  n = strlen (v);
  /* "" keeps bwrap's own (the uts namespace is new either way). */
  if (n > 0)
    {
      bool ok = n <= HOSTNAME_LEN_MAX && v[0] != '-';
      for (size_t i = 0; ok && i < n; i++)
        ok = isascii ((unsigned char) v[i]) && (isalnum ((unsigned char) v[i]) || v[i] == '-');
      if (!ok)
        {
          _cleanup_free_ char *esc = bwsh_policy_escaped (v);
          return policy_fail (c, s, -EINVAL,
                              "\"%s\" must be 1 to 63 letters, digits or '-', not starting with '-': \"%s\"",
                              name, esc != NULL ? esc : "?");
        }
      copy = strdup (v);
      if (copy == NULL)
        return -ENOMEM;
    }
  return set_string (&p->hostname, copy);
}

int
bwsh_policy_key_max_mounts (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  long long v;

  (void) k;
  if (!bwsh_policy_is_int (s))
    return policy_fail (c, s, -EINVAL, "\"%s\" must be an integer, not %s", name, policy_type_name (s));
  v = config_setting_get_int64 (s);
  if (v < 1 || v > BWSH_ENTRIES_MAX)
    return policy_fail (c, s, -ERANGE, "\"%s\" must be between 1 and %d", name, BWSH_ENTRIES_MAX);
  p->max_mounts = (unsigned) v;
  return 0;
}

int
bwsh_policy_key_max_sessions (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name,
                              const Key *k)
{
  long long v;

  (void) k;
  if (!bwsh_policy_is_int (s))
    return policy_fail (c, s, -EINVAL, "\"%s\" must be an integer, not %s", name, policy_type_name (s));
  v = config_setting_get_int64 (s);
  if (v < 0 || v > BWSH_MAX_SESSIONS_MAX)
    return policy_fail (c, s, -ERANGE, "\"%s\" must be between 0 (no limit) and %d", name, BWSH_MAX_SESSIONS_MAX);
  p->max_sessions = (unsigned) v;
  return 0;
}

int
bwsh_policy_key_rlimit (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  int64_t v;

  if (bwsh_policy_is_int (s))
    {
      long long ll = config_setting_get_int64 (s);
      if (ll < k->aux)
        return policy_fail (c, s, -ERANGE, "\"%s\" must be at least %lld", name, k->aux);
      v = (int64_t) ll;
    }
  else if (config_setting_type (s) == CONFIG_TYPE_STRING
           && strcmp (config_setting_get_string (s), "unlimited") == 0)
    v = BWSH_RLIMIT_INFINITY;
  else if (config_setting_type (s) == CONFIG_TYPE_STRING
           && strcmp (config_setting_get_string (s), "inherit") == 0)
    v = BWSH_RLIMIT_UNSET;
  else
    return policy_fail (c, s, -EINVAL, "\"%s\" must be an integer, \"unlimited\" or \"inherit\"", name);
  *FIELD (p, k->off, int64_t) = v;
  return 0;
}
