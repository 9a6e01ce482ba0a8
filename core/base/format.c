/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

char *
bwsh_vformat (const char *fmt, va_list ap)
{
  char *s = NULL;

  if (vasprintf (&s, fmt, ap) < 0)
    return NULL;
  return s;
}

char *
bwsh_format (const char *fmt, ...)
{
  va_list ap;
  char *s;

  va_start (ap, fmt);
  s = bwsh_vformat (fmt, ap);
  va_end (ap);
  return s;
}

char *
bwsh_format_u64 (char num[24], uint64_t v)
{
  char *p = num + 23;

  *p = '\0';
  do
    *--p = (char) ('0' + v % 10);
  while ((v /= 10) != 0);
  return p;
}

char *
bwsh_format_i64 (char num[24], int64_t v)
{
  char *p = bwsh_format_u64 (num, v < 0 ? -(uint64_t) v : (uint64_t) v);

  if (v < 0)
    *--p = '-';
  return p;
}

char *
bwsh_concat3 (const char *a, const char *b, const char *c)
{
  size_t na = strlen (a), nb = strlen (b), nc = strlen (c);
  char *s = malloc (na + nb + nc + 1);

  if (s == NULL)
    return NULL;
  memcpy (s, a, na);
  memcpy (s + na, b, nb);
  memcpy (s + na + nb, c, nc + 1);
  return s;
}
