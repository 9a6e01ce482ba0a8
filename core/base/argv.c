/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A growing NULL-terminated list of strings: bwrap's options, a command. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "grow.h"

int
bwsh_argv_add (BwshArgv *a, const char *s)
{
  char *copy, **v;

  /* One slot for the terminating NULL. */
  v = bwsh_grow (a->v, &a->cap, a->n + 1, sizeof (char *));
  if (v == NULL)
    return -ENOMEM;
  a->v = v;
  copy = strdup (s);
  if (copy == NULL)
    return -ENOMEM;
  a->v[a->n++] = copy;
  a->v[a->n] = NULL;
  return 0;
}

void
bwsh_argv_clear (BwshArgv *a)
{
  for (size_t i = 0; i < a->n; i++)
    free (a->v[i]);
  free (a->v);
  *a = (BwshArgv) { 0 };
}
