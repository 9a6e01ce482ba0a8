/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Lists of paths, binds and ports, each with where it was written (bind_list.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef enum
{
  BWSH_ORIGIN_DEFAULT = 0,
  BWSH_ORIGIN_USER = 1,
  BWSH_ORIGIN_POLICY = 2, /* higher wins on the same destination */
} BwshOrigin;

typedef struct BwshSource
{
  BwshOrigin origin;
  char *file; /* NULL for built-in defaults */
  int line;
  int column;
} BwshSource;

/* A path or a bind.  For a plain path list only @src is set. */
typedef struct BwshBindSpec
{
  char *src;
  char *dst; /* NULL means same as src */
  BwshSource from;
} BwshBindSpec;

typedef struct BwshBindList
{
  BwshBindSpec *items;
  size_t n;
  size_t cap;
} BwshBindList;

int bwsh_bind_list_add (BwshBindList *l, const char *src, const char *dst, const BwshSource *from);
int bwsh_bind_list_copy (BwshBindList *dst, const BwshBindList *src);
void bwsh_bind_list_clear (BwshBindList *l);
bool bwsh_bind_list_contains (const BwshBindList *l, const char *src);

const char *bwsh_origin_to_string (BwshOrigin o);
