/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "options.h"

static const CtlOption *
find (const CtlOption *opts, size_t n, const char *name, size_t len)
{
  for (size_t i = 0; i < n; i++)
    if (strlen (opts[i].name) == len && strncmp (opts[i].name, name, len) == 0)
      return &opts[i];
  return NULL;
}

int
ctl_parse_options (int argc, char **argv, const CtlOption *opts, size_t n_opts,
                   int (*fn) (void *userdata, int id, const char *arg), void *userdata,
                   const char **ret_operands, size_t max, size_t *ret_n)
{
  const char *cmd = argv[0];
  size_t n = 0;
  bool options = true;

  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i], *name, *value = NULL;
      const CtlOption *o;
      size_t len;

      if (options && strcmp (a, "--") == 0)
        {
          options = false;
          continue;
        }
      if (!options || a[0] != '-' || a[1] == '\0')
        {
          if (n == max)
            {
              fprintf (stderr, "bwshctl %s: unexpected argument \"%s\"\n", cmd, a);
              return -1;
            }
          ret_operands[n++] = a;
          continue;
        }
      if (a[1] == '-')
        {
          name = a + 2;
          len = strcspn (name, "=");
          if (name[len] == '=')
            value = name + len + 1;
        }
      else
        {
          /* Single-letter options stand alone: no "-hx" bundles. */
          name = a + 1;
          len = strlen (name);
        }
      o = find (opts, n_opts, name, len);
      if (o == NULL || (a[1] != '-' && len != 1))
        {
          fprintf (stderr, "bwshctl %s: unknown option \"%s\"\n", cmd, a);
          return -1;
        }
      if (o->has_arg && value == NULL)
        {
          if (i + 1 >= argc)
            {
              fprintf (stderr, "bwshctl %s: option \"%s\" needs an argument\n", cmd, a);
              return -1;
            }
          value = argv[++i];
        }
      else if (!o->has_arg && value != NULL)
        {
          fprintf (stderr, "bwshctl %s: option \"--%s\" takes no argument\n", cmd, o->name);
          return -1;
        }
      if (fn (userdata, o->id, value) < 0)
        return -1;
    }
  *ret_n = n;
  return 0;
}
