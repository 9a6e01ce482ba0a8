/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Growing an array by doubling (grow.c). */
#pragma once

#include <stddef.h>

/* @items (of @elem bytes each, @cap of them) grown so that index @n fits:
 * the same pointer, a new one, or NULL when out of memory (then @items is
 * untouched). */
void *bwsh_grow (void *items, size_t *cap, size_t n, size_t elem);
