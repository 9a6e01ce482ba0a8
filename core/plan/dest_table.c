/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plan's one destination table: destination -> mount indices, in one
 * open-addressing table (linear probing).  The build keeps every mount of
 * a destination (plan_dest_table_add(), FOREACH_DEST), so that merging N
 * entries costs O(N); plan_coalesce() keeps the last accepted mount of each
 * destination (plan_dest_table_set()) and asks for the deepest one covering a
 * path (plan_dest_table_cover()).  The plan's mounts may move (realloc, sort):
 * every call names the array the indices point into.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "plan_internal.h"

/* djb2 over the first @n bytes of @s (a destination or one of its parents),
 * then mixed: paths that differ only in their last characters, such as
 * ~/data/d1 ... ~/data/d999, would otherwise fill neighbouring slots and the
 * linear probing would compare each with most of the others. */
static size_t
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
plan_hash_path (const char *s)
{
  return hash_path_n (s, strlen (s));
}

/* Grow before adding: at most half the slots are taken, so that a probe
 * ends soon on an empty slot. */
static int
dest_table_grow (DestTable *d, const BwshMount *mounts)
{
  size_t cap;
  size_t *slots;

  if ((d->n + 1) * 2 <= d->cap)
    return 0;
  cap = d->cap == 0 ? 64 : d->cap * 2;
  slots = calloc (cap, sizeof *slots);
  if (slots == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < d->cap; i++)
    if (d->slots[i] != 0)
      {
        size_t k = plan_hash_path (mounts[d->slots[i] - 1].dest) & (cap - 1);
        while (slots[k] != 0)
          k = (k + 1) & (cap - 1);
        slots[k] = d->slots[i];
      }
  free (d->slots);
  d->slots = slots;
  d->cap = cap;
  return 0;
}

int
plan_dest_table_add (DestTable *d, const BwshMount *mounts, size_t idx)
{
  int r = dest_table_grow (d, mounts);

  if (r < 0)
    return r;
  size_t k = plan_hash_path (mounts[idx].dest) & (d->cap - 1);
  while (d->slots[k] != 0)
    k = (k + 1) & (d->cap - 1);
  d->slots[k] = idx + 1;
  d->n++;
  return 0;
}

/* Remove mount @idx, whose destination has not changed since it was added. */
static int
dest_table_remove (DestTable *d, const BwshMount *mounts, size_t idx)
{
  size_t k = plan_hash_path (mounts[idx].dest) & (d->cap - 1);

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
      if (plan_dest_table_add (d, mounts, v - 1) < 0)
        return -ENOMEM;
    }
  return 0;
}

/* The slot of the first mount whose destination is the first @n bytes of
 * @dest, or the empty slot where it would go: a parent is probed with a
 * prefix of its child, so that no parent path is copied. */
static size_t *
dest_table_slot (const DestTable *d, const BwshMount *mounts, const char *dest, size_t n)
{
  size_t k = hash_path_n (dest, n) & (d->cap - 1);

  for (;; k = (k + 1) & (d->cap - 1))
    {
      const char *have;

      if (d->slots[k] == 0)
        return &d->slots[k];
      have = mounts[d->slots[k] - 1].dest;
      if (strncmp (have, dest, n) == 0 && have[n] == '\0')
        return &d->slots[k];
    }
}

int
plan_dest_table_set (DestTable *d, const BwshMount *mounts, size_t idx)
{
  int r = dest_table_grow (d, mounts);
  size_t *slot;

  if (r < 0)
    return r;
  slot = dest_table_slot (d, mounts, mounts[idx].dest, strlen (mounts[idx].dest));
  d->n += *slot == 0;
  *slot = idx + 1;
  return 0;
}

/* The deepest mount whose destination is @dest or a parent of it: at most
 * one probe per path element, whatever the size of the plan. */
size_t
plan_dest_table_cover (const DestTable *d, const BwshMount *mounts, const char *dest)
{
  size_t n = strlen (dest);

  if (d->cap == 0)
    return NO_PARENT;
  for (;;)
    {
      size_t v = *dest_table_slot (d, mounts, dest, n);
      if (v != 0)
        return v - 1;
      if (n <= 1)
        return NO_PARENT;
      while (n > 1 && dest[n - 1] != '/')
        n--;
      if (n > 1)
        n--; /* "/a/b" -> "/a"; "/a" -> "/" */
    }
}

size_t
plan_dest_table_next (const DestTable *d, const BwshMount *mounts, const char *dest, size_t n, size_t *pos)
{
  size_t k;

  if (d->cap == 0)
    return NO_PARENT;
  k = *pos == SIZE_MAX ? hash_path_n (dest, n) & (d->cap - 1) : (*pos + 1) & (d->cap - 1);
  for (;; k = (k + 1) & (d->cap - 1))
    {
      const char *have;

      if (d->slots[k] == 0)
        return NO_PARENT;
      have = mounts[d->slots[k] - 1].dest;
      if (strncmp (have, dest, n) == 0 && have[n] == '\0')
        {
          *pos = k;
          return d->slots[k] - 1;
        }
    }
}

void
plan_dest_table_clear (DestTable *d)
{
  free (d->slots);
  *d = (DestTable) { 0 };
}

/* A bind's destination is only known after normalising what the user wrote. */
int
plan_set_dest (Ctx *c, size_t idx, char *dest)
{
  int r = dest_table_remove (&c->dests, c->p->mounts, idx);

  if (r < 0)
    return r;
  free (c->p->mounts[idx].dest);
  c->p->mounts[idx].dest = dest;
  return plan_dest_table_add (&c->dests, c->p->mounts, idx);
}
