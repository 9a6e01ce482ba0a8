/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lexical path handling.  Nothing here touches the filesystem. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "path.h"

const char *
bwsh_path_status_to_string (BwshPathStatus s)
{
  switch (s)
    {
    case BWSH_PATH_OK:
      return "valid";
    case BWSH_PATH_EMPTY:
      return "path is empty";
    case BWSH_PATH_RELATIVE:
      return "path is not absolute";
    case BWSH_PATH_DOTDOT:
      return "path contains \"..\"";
    case BWSH_PATH_CONTROL_CHAR:
      return "path contains a control character";
    case BWSH_PATH_TOO_LONG:
      return "path is too long";
    case BWSH_PATH_COMPONENT_TOO_LONG:
      return "path element is too long";
    default:
      return "invalid path";
    }
}

BwshPathStatus
bwsh_path_normalize (const char *in, char **ret_out)
{
  _cleanup_free_ char *out = NULL;
  size_t len, o = 0;
  const char *p;

  if (in == NULL || in[0] == '\0')
    return BWSH_PATH_EMPTY;
  if (in[0] != '/')
    return BWSH_PATH_RELATIVE;
  len = strlen (in);
  if (len >= PATH_MAX)
    return BWSH_PATH_TOO_LONG;
  for (p = in; *p != '\0'; p++)
    if ((unsigned char) *p < 0x20 || *p == 0x7f)
      return BWSH_PATH_CONTROL_CHAR;

  out = malloc (len + 1);
  if (out == NULL)
    return BWSH_PATH_TOO_LONG;

  p = in;
  while (*p != '\0')
    {
      const char *start;
      size_t n;

      while (*p == '/')
        p++;
      if (*p == '\0')
        break;
      start = p;
      while (*p != '\0' && *p != '/')
        p++;
      n = (size_t) (p - start);
      if (n == 1 && start[0] == '.')
        continue;
      /* ".." is refused, never resolved: what it means depends on symlinks
       * that the user controls, and a lexical answer would be a guess. */
      if (n == 2 && start[0] == '.' && start[1] == '.')
        return BWSH_PATH_DOTDOT;
      if (n > NAME_MAX)
        return BWSH_PATH_COMPONENT_TOO_LONG;
      out[o++] = '/';
      memcpy (out + o, start, n);
      o += n;
    }
  if (o == 0)
    out[o++] = '/';
  out[o] = '\0';
  *ret_out = steal_pointer (&out);
  return BWSH_PATH_OK;
}

bool
bwsh_path_has_prefix (const char *path, const char *prefix)
{
  /* One pass and no library call: a plan asks this hundreds of times, and
   * most answers are no at the first characters (#37). */
  if (prefix[0] == '/' && prefix[1] == '\0')
    return path[0] == '/';
  for (; *prefix != '\0'; path++, prefix++)
    if (*path != *prefix)
      return false;
  return *path == '\0' || *path == '/';
}

bool
bwsh_path_under_any (const char *path, char *const *prefixes, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (bwsh_path_has_prefix (path, prefixes[i]))
      return true;
  return false;
}

int
bwsh_path_expand (const char *tmpl, const char *home, char **ret_path)
{
  _cleanup_free_ char *joined = NULL;
  const char *rest = NULL;
  char *out = NULL;

  if (tmpl == NULL)
    return -EINVAL;
  if (strcmp (tmpl, "~") == 0 || strcmp (tmpl, "$HOME") == 0)
    rest = "";
  else if (strncmp (tmpl, "~/", 2) == 0)
    rest = tmpl + 1;
  else if (strncmp (tmpl, "$HOME/", 6) == 0)
    rest = tmpl + 5;

  if (rest != NULL)
    {
      size_t hlen, rlen;

      if (home == NULL || home[0] != '/')
        return -EINVAL;
      /* Not asprintf(): a plan expands each protected path, and the
       * formatting machinery cost more than the rest of it (issue 27). */
      hlen = strlen (home);
      rlen = strlen (rest);
      joined = malloc (hlen + rlen + 1);
      if (joined == NULL)
        return -ENOMEM;
      memcpy (joined, home, hlen);
      memcpy (joined + hlen, rest, rlen + 1);
      tmpl = joined;
    }
  if (bwsh_path_normalize (tmpl, &out) != BWSH_PATH_OK)
    return -EINVAL;
  *ret_path = out;
  return 0;
}

bool
bwsh_path_is_forbidden (const char *normalized)
{
  static const char *const forbidden[] = { "/proc", "/dev", "/sys" };

  if (strcmp (normalized, "/") == 0)
    return true;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (forbidden); i++)
    if (bwsh_path_has_prefix (normalized, forbidden[i]))
      return true;
  return false;
}

size_t
bwsh_path_depth (const char *normalized)
{
  size_t depth = 0;

  for (const char *p = normalized; *p != '\0'; p++)
    if (*p == '/' && p[1] != '\0')
      depth++;
  return depth;
}

const char *
bwsh_program_path (const char *test_env, const char *path)
{
#if BWSH_TEST_BUILD
  const char *s = getenv (test_env);
  if (s != NULL && s[0] == '/')
    return s;
#else
  (void) test_env;
#endif
  return path;
}
