/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A session's registry entry as JSON, written without jansson: the text
 * json_pack() and json_dumps (JSON_SORT_KEYS | JSON_COMPACT) made of it,
 * byte for byte (tests/unit/test_admission.c compares them), at a login's cost
 * of one allocation, not a hash table seeded from /dev/urandom (#37).
 * bwshctl reads entries with jansson as before.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry_json.h"

/* Whether @s is UTF-8 as jansson takes it (utf8_check_string()): no
 * overlong form, no surrogate, nothing above U+10FFFF. */
static bool
utf8_valid (const unsigned char *s)
{
  while (*s != '\0')
    {
      unsigned c = *s, n;
      uint32_t v;

      if (c < 0x80)
        {
          s++;
          continue;
        }
      if (c >= 0xc2 && c <= 0xdf)
        n = 1, v = c & 0x1f;
      else if (c >= 0xe0 && c <= 0xef)
        n = 2, v = c & 0x0f;
      else if (c >= 0xf0 && c <= 0xf4)
        n = 3, v = c & 0x07;
      else
        return false;
      for (unsigned i = 1; i <= n; i++)
        {
          if ((s[i] & 0xc0) != 0x80)
            return false;
          v = (v << 6) | (s[i] & 0x3f);
        }
      if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff) || (n == 2 && v < 0x800) || (n == 3 && v < 0x10000))
        return false;
      s += n + 1;
    }
  return true;
}

/* "KEY":"VALUE", escaped as jansson's dump_string() does. */
static char *
put_string (char *p, const char *key, const char *value)
{
  p += sprintf (p, "\"%s\":\"", key);
  for (const unsigned char *v = (const unsigned char *) value; *v != '\0'; v++)
    switch (*v)
      {
      case '\\':
        p = stpcpy (p, "\\\\");
        break;
      case '"':
        p = stpcpy (p, "\\\"");
        break;
      case '\b':
        p = stpcpy (p, "\\b");
        break;
      case '\f':
        p = stpcpy (p, "\\f");
        break;
      case '\n':
        p = stpcpy (p, "\\n");
        break;
      case '\r':
        p = stpcpy (p, "\\r");
        break;
      case '\t':
        p = stpcpy (p, "\\t");
        break;
      default:
        if (*v < 0x20)
          p += sprintf (p, "\\u%04X", (unsigned) *v);
        else
          *p++ = (char) *v;
      }
  *p++ = '"';
  *p++ = ',';
  return p;
}

static char *
put_int (char *p, const char *key, int64_t value)
{
  return p + sprintf (p, "\"%s\":%" PRId64 ",", key, value);
}

int
bwsh_session_entry_json (const BwshSessionEntry *e, char **ret)
{
  /* In the order JSON_SORT_KEYS gives (strcmp of the keys). */
  const char *command = e->command != NULL ? e->command : "", *policy = e->policy_path != NULL ? e->policy_path : "",
             *rhost = e->rhost != NULL ? e->rhost : "", *service = e->service != NULL ? e->service : "",
             *tty = e->tty != NULL ? e->tty : "";
  const char *strings[] = { command, e->plan_digest, policy, e->policy_digest, rhost, service, tty, e->user };
  size_t size = 256;
  char *text, *p;

  for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
    {
      /* json_pack() refuses a missing or invalid string: no entry. */
      if (strings[i] == NULL || !utf8_valid ((const unsigned char *) strings[i]))
        return -ENOMEM;
      size += 6 * strlen (strings[i]) + 32; /* at worst every byte a \uXXXX escape */
    }
  text = p = malloc (size);
  if (text == NULL)
    return -ENOMEM;
  *p++ = '{';
  p = put_string (p, "command", command);
  p = put_int (p, "pid", e->pid);
  p = put_int (p, "pid_start", (int64_t) e->pid_start);
  p = put_string (p, "plan_digest", e->plan_digest);
  p = put_string (p, "policy", policy);
  p = put_string (p, "policy_digest", e->policy_digest);
  p = put_string (p, "rhost", rhost);
  p = put_string (p, "service", service);
  p = put_int (p, "start", e->start);
  p = put_string (p, "tty", tty);
  p = put_int (p, "uid", (int64_t) e->uid);
  p = put_string (p, "user", e->user);
  p[-1] = '}';
  *p = '\0';
  *ret = text;
  return 0;
}
