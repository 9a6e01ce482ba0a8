/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Growing an array by doubling: what every list of core/ grows with. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

/* @items (of @elem bytes each, @cap of them) grown so that index @n fits:
 * the same pointer, a new one, or NULL when out of memory (then @items is
 * untouched). */
void *
bwsh_grow (void *items, size_t *cap, size_t n, size_t elem)
{
  size_t new_cap;
  void *p;

  if (n < *cap)
    return items;
  new_cap = *cap == 0 ? 8 : *cap * 2;
  if (new_cap > SIZE_MAX / elem)
    return NULL;
  p = realloc (items, new_cap * elem);
  if (p != NULL)
    *cap = new_cap;
  return p;
}
