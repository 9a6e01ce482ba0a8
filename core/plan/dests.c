/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plan's destination index: destination -> mount indices, so that
 * merging N entries costs O(N).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

/* djb2 over the first @n bytes of @s (a destination or one of its parents),
 * then mixed: paths that differ only in their last characters, such as
 * ~/data/d1 ... ~/data/d999, would otherwise fill neighbouring slots and the
 * linear probing would compare each with most of the others. */
size_t
hash_path_n (const char *s, size_t n)
{
  uint64_t h = 5381;

  for (size_t i = 0; i < n; i++)
    h = h * 33 + (unsigned char) s[i];
  h ^= h >> 33;
  h *= UINT64_C (0xff51afd7ed558ccd);
  h ^= h >> 33;
  return (size_t) h;
}

size_t
hash_path (const char *s)
{
  return hash_path_n (s, strlen (s));
}

int
dest_index_add (DestIndex *d, const BwshMount *mounts, size_t idx)
{
  if ((d->n + 1) * 2 > d->cap)
    {
      size_t cap = d->cap == 0 ? 64 : d->cap * 2;
      size_t *slots = calloc (cap, sizeof *slots);

      if (slots == NULL)
        return -ENOMEM;
      for (size_t i = 0; i < d->cap; i++)
        if (d->slots[i] != 0)
          {
            size_t k = hash_path (mounts[d->slots[i] - 1].dest) & (cap - 1);
            while (slots[k] != 0)
              k = (k + 1) & (cap - 1);
            slots[k] = d->slots[i];
          }
      free (d->slots);
      d->slots = slots;
      d->cap = cap;
    }
  size_t k = hash_path (mounts[idx].dest) & (d->cap - 1);
  while (d->slots[k] != 0)
    k = (k + 1) & (d->cap - 1);
  d->slots[k] = idx + 1;
  d->n++;
  return 0;
}

/* A bind's destination is only known after normalising what the user wrote. */
int
set_dest (Ctx *c, size_t idx, char *dest)
{
  DestIndex *d = &c->dests;
  size_t k = hash_path (c->p->mounts[idx].dest) & (d->cap - 1);

  while (d->slots[k] != idx + 1)
    k = (k + 1) & (d->cap - 1);
  /* Remove by re-inserting the rest of the cluster (linear probing). */
  d->slots[k] = 0;
  d->n--;
  for (size_t j = (k + 1) & (d->cap - 1); d->slots[j] != 0; j = (j + 1) & (d->cap - 1))
    {
      size_t v = d->slots[j];
      d->slots[j] = 0;
      d->n--;
      if (dest_index_add (d, c->p->mounts, v - 1) < 0)
        return -ENOMEM;
    }
  free (c->p->mounts[idx].dest);
  c->p->mounts[idx].dest = dest;
  return dest_index_add (d, c->p->mounts, idx);
}
