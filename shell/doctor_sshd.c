/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwshctl doctor: the output of `sshd -T`, one "key value" per line. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <grp.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "doctor_sshd.h"


void
sshd_config_clear (SshdConfig *c)
{
  for (size_t i = 0; i < c->n; i++)
    {
      free (c->keys[i]);
      free (c->values[i]);
    }
  free (c->keys);
  free (c->values);
  *c = (SshdConfig) { 0 };
}

int
sshd_config_parse (const char *out, SshdConfig *c)
{
  const char *p = out;

  while (*p != '\0')
    {
      size_t len = strcspn (p, "\n");
      size_t klen = strcspn (p, " \t\n");
      if (klen > 0 && klen < len)
        {
          char **k = realloc (c->keys, (c->n + 1) * sizeof (char *));
          if (k == NULL)
            return -ENOMEM;
          c->keys = k;
          char **v = realloc (c->values, (c->n + 1) * sizeof (char *));
          if (v == NULL)
            return -ENOMEM;
          c->values = v;
          c->keys[c->n] = strndup (p, klen);
          const char *val = p + klen + strspn (p + klen, " \t");
          c->values[c->n] = strndup (val, (size_t) (p + len - val));
          if (c->keys[c->n] == NULL || c->values[c->n] == NULL)
            return -ENOMEM;
          for (char *s = c->keys[c->n]; *s; s++)
            *s = (char) tolower ((unsigned char) *s);
          c->n++;
        }
      p += len;
      if (*p == '\n')
        p++;
    }
  return 0;
}

/* The first value of @key, or NULL. */
const char *
sshd_get (const SshdConfig *c, const char *key)
{
  for (size_t i = 0; i < c->n; i++)
    if (strcmp (c->keys[i], key) == 0)
      return c->values[i];
  return NULL;
}

bool
is_no (const char *v)
{
  return v == NULL || strcasecmp (v, "no") == 0 || strcasecmp (v, "none") == 0;
}

