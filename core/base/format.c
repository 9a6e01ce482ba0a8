/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <stdio.h>

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
