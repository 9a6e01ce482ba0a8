/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A growing NULL-terminated list of strings (argv.c). */
#pragma once

#include <stddef.h>

typedef struct BwshArgv
{
  char **v;   /* NULL-terminated */
  size_t n;
  size_t cap;
} BwshArgv;

int bwsh_argv_add (BwshArgv *a, const char *s);
void bwsh_argv_clear (BwshArgv *a);
