/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy: one setting's value: where it was written (its file and line,
 * through @include), its type, and a path template made canonical.
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
#include "cleanup.h"
#include "errors.h"
#include "path.h"
#include "policy_internal.h"

/* ------------------------------------------------------------ one value */

void
bwsh_policy_where (Ctx *c, const config_setting_t *s, BwshSource *ret)
{
  char *file;
  int line;

  file = policy_doc_locate (c->doc, config_setting_source_file (s), (int) config_setting_source_line (s),
                            &line);
  *ret = (BwshSource) { .origin = BWSH_ORIGIN_POLICY, .file = file, .line = line };
}

int
policy_fail (Ctx *c, const config_setting_t *s, int r, const char *fmt, ...)
{
  char msg[BWSH_MESSAGE_MAX];
  BwshSource at;
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  bwsh_policy_where (c, s, &at);
  return bwsh_error_set (c->err, r, at.file, at.line, 0, "%s", msg);
}

const char *
policy_type_name (const config_setting_t *s)
{
  switch (config_setting_type (s))
    {
    case CONFIG_TYPE_GROUP:
      return "a group";
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
      return "an integer";
    case CONFIG_TYPE_FLOAT:
      return "a float";
    case CONFIG_TYPE_STRING:
      return "a string";
    case CONFIG_TYPE_BOOL:
      return "a boolean";
    case CONFIG_TYPE_ARRAY:
      return "an array";
    case CONFIG_TYPE_LIST:
      return "a list";
    default:
      return "of unknown type";
    }
}

bool
bwsh_policy_is_int (const config_setting_t *s)
{
  return config_setting_type (s) == CONFIG_TYPE_INT || config_setting_type (s) == CONFIG_TYPE_INT64;
}

bool
policy_is_vector (const config_setting_t *s)
{
  return config_setting_type (s) == CONFIG_TYPE_ARRAY || config_setting_type (s) == CONFIG_TYPE_LIST;
}

char *
bwsh_policy_escaped (const char *s)
{
  return bwsh_escape (s, strlen (s));
}

/* Validate a path template and return its canonical form: "/a/b", "~" or
 * "~/a/b" ("$HOME" is accepted as a synonym of "~").  Returns NULL with
 * *ret_why set when it is not acceptable. */
static int
canon_path (const char *v, bool allow_home, char **ret, const char **ret_why)
{
  _cleanup_free_ char *norm = NULL, *expanded = NULL;
  const char *rest = v;
  bool home = false;
  BwshPathStatus st;

  if (strcmp (v, "~") == 0 || strcmp (v, "$HOME") == 0)
    rest = "/", home = true;
  else if (strncmp (v, "~/", 2) == 0)
    rest = v + 1, home = true;
  else if (strncmp (v, "$HOME/", 6) == 0)
    rest = v + 5, home = true;

  if (home && !allow_home)
    {
      *ret_why = "must be an absolute path";
      return -EINVAL;
    }
  st = bwsh_path_normalize (rest, &norm);
  if (st == BWSH_PATH_RELATIVE)
    {
      *ret_why = allow_home ? "must be an absolute path or start with \"~/\"" : "must be an absolute path";
      return -EINVAL;
    }
  if (st != BWSH_PATH_OK)
    {
      *ret_why = bwsh_path_status_to_string (st);
      return -EINVAL;
    }
  /* The plan expands templates with bwsh_path_expand(): make sure it agrees. */
  if (bwsh_path_expand (v, CHECK_HOME, &expanded) < 0)
    {
      *ret_why = "is not a valid path template";
      return -EINVAL;
    }
  if (!home)
    {
      *ret = steal_pointer (&norm);
      return 0;
    }
  if (asprintf (ret, "~%s", strcmp (norm, "/") == 0 ? "" : norm) < 0)
    return -ENOMEM;
  return 0;
}

int
bwsh_policy_get_path (Ctx *c, const config_setting_t *s, const char *name, bool allow_home, bool forbid,
          char **ret)
{
  _cleanup_free_ char *canon = NULL, *esc = NULL, *expanded = NULL;
  const char *why = NULL;
  const char *v;
  int r;

  if (config_setting_type (s) != CONFIG_TYPE_STRING)
    return policy_fail (c, s, -EINVAL, "\"%s\" must be a string (a path), not %s", name, policy_type_name (s));
  v = config_setting_get_string (s);
  r = canon_path (v, allow_home, &canon, &why);
  if (r == -ENOMEM)
    return r;
  if (r < 0)
    {
      esc = bwsh_policy_escaped (v);
      return policy_fail (c, s, -EINVAL, "\"%s\": %s: \"%s\"", name, why, esc != NULL ? esc : "?");
    }
  if (forbid)
    {
      r = bwsh_path_expand (canon, CHECK_HOME, &expanded);
      if (r < 0)
        return r;
      if (bwsh_path_is_forbidden (expanded))
        return policy_fail (c, s, -EPERM, "\"%s\": \"%s\" is forbidden (/, /proc, /dev, /sys and below)", name,
                            canon);
    }
  *ret = steal_pointer (&canon);
  return 0;
}
