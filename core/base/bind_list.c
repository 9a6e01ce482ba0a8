/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lists of paths, binds and ports, each with where it was written. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bind_list.h"
#include "cleanup.h"
#include "grow.h"

int
bwsh_bind_list_add (BwshBindList *l, const char *src, const char *dst, const BwshSource *from)
{
  _cleanup_free_ char *s = NULL, *d = NULL, *f = NULL;
  BwshBindSpec *b;

  b = bwsh_grow (l->items, &l->cap, l->n, sizeof (BwshBindSpec));
  if (b == NULL)
    return -ENOMEM;
  l->items = b;
  s = strdup (src);
  if (s == NULL)
    return -ENOMEM;
  if (dst != NULL && (d = strdup (dst)) == NULL)
    return -ENOMEM;
  if (from != NULL && from->file != NULL && (f = strdup (from->file)) == NULL)
    return -ENOMEM;

  b = &l->items[l->n++];
  *b = (BwshBindSpec) { 0 };
  if (from != NULL)
    b->from = *from;
  b->src = steal_pointer (&s);
  b->dst = steal_pointer (&d);
  b->from.file = steal_pointer (&f);
  return 0;
}

int
bwsh_bind_list_copy (BwshBindList *dst, const BwshBindList *src)
{
  *dst = (BwshBindList) { 0 };
  for (size_t i = 0; i < src->n; i++)
    {
      int r = bwsh_bind_list_add (dst, src->items[i].src, src->items[i].dst, &src->items[i].from);
      if (r < 0)
        {
          bwsh_bind_list_clear (dst);
          return r;
        }
    }
  return 0;
}

void
bwsh_bind_list_clear (BwshBindList *l)
{
  for (size_t i = 0; i < l->n; i++)
    {
      free (l->items[i].src);
      free (l->items[i].dst);
      free (l->items[i].from.file);
    }
  free (l->items);
  *l = (BwshBindList) { 0 };
}

bool
bwsh_bind_list_contains (const BwshBindList *l, const char *src)
{
  for (size_t i = 0; i < l->n; i++)
    if (strcmp (l->items[i].src, src) == 0)
      return true;
  return false;
}

const char *
bwsh_origin_to_string (BwshOrigin o)
{
  switch (o)
    {
    case BWSH_ORIGIN_DEFAULT:
      return "default";
    case BWSH_ORIGIN_USER:
      return "user";
    case BWSH_ORIGIN_POLICY:
      return "policy";
    default:
      return "?";
    }
}
