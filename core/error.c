/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Error records, warning lists and the small containers the plan is made of. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bwsh.h"
#include "cleanup.h"

int
bwsh_error_set (BwshError *err, int r, const char *file, int line, int column, const char *fmt, ...)
{
  va_list ap;

  if (err == NULL)
    return r;

  snprintf (err->file, sizeof err->file, "%s", file != NULL ? file : "");
  err->line = line;
  err->column = column;
  va_start (ap, fmt);
  vsnprintf (err->message, sizeof err->message, fmt, ap);
  va_end (ap);
  return r;
}

void
bwsh_error_format (const BwshError *err, char *buf, size_t size)
{
  if (err->file[0] == '\0')
    snprintf (buf, size, "%s", err->message);
  else if (err->line > 0 && err->column > 0)
    snprintf (buf, size, "%s:%d:%d: %s", err->file, err->line, err->column, err->message);
  else if (err->line > 0)
    snprintf (buf, size, "%s:%d: %s", err->file, err->line, err->message);
  else
    snprintf (buf, size, "%s: %s", err->file, err->message);
}

/* @items (of @elem bytes each, @cap of them) grown so that index @n fits:
 * the same pointer, a new one, or NULL when out of memory (then @items is
 * untouched). */
static void *
grow (void *items, size_t *cap, size_t n, size_t elem)
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

int
bwsh_diag_add (BwshDiag *d, const char *fmt, ...)
{
  va_list ap;
  char *line = NULL, **lines;
  int r;

  lines = grow (d->lines, &d->cap, d->n, sizeof (char *));
  if (lines == NULL)
    return -ENOMEM;
  d->lines = lines;
  va_start (ap, fmt);
  r = vasprintf (&line, fmt, ap);
  va_end (ap);
  if (r < 0)
    return -ENOMEM;
  d->lines[d->n++] = line;
  return 0;
}

void
bwsh_diag_clear (BwshDiag *d)
{
  for (size_t i = 0; i < d->n; i++)
    free (d->lines[i]);
  free (d->lines);
  *d = (BwshDiag) { 0 };
}

int
bwsh_bind_list_add (BwshBindList *l, const char *src, const char *dst, const BwshSource *from)
{
  _cleanup_free_ char *s = NULL, *d = NULL, *f = NULL;
  BwshBindSpec *b;

  b = grow (l->items, &l->cap, l->n, sizeof (BwshBindSpec));
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

int
bwsh_argv_add (BwshArgv *a, const char *s)
{
  char *copy, **v;

  /* One slot for the terminating NULL. */
  v = grow (a->v, &a->cap, a->n + 1, sizeof (char *));
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

const char *
bwsh_mount_kind_to_string (BwshMountKind k)
{
  static const char *const names[] = {
    [BWSH_MOUNT_TMPFS] = "tmpfs",         [BWSH_MOUNT_RO_BIND] = "ro-bind",
    [BWSH_MOUNT_BIND] = "bind",           [BWSH_MOUNT_DEV] = "dev",
    [BWSH_MOUNT_DEV_BIND] = "dev-bind",   [BWSH_MOUNT_PROC] = "proc",
    [BWSH_MOUNT_SYMLINK] = "symlink",     [BWSH_MOUNT_DIR] = "dir",
    [BWSH_MOUNT_REMOUNT_RO] = "remount-ro",
  };
  return (size_t) k < BWSH_N_ELEMENTS (names) ? names[k] : "?";
}

const char *
bwsh_verdict_to_string (BwshVerdict v)
{
  static const char *const names[] = {
    [BWSH_VERDICT_ACCEPTED] = "accepted", [BWSH_VERDICT_REFUSED] = "refused",
    [BWSH_VERDICT_SKIPPED] = "skipped",   [BWSH_VERDICT_DISABLED] = "disabled",
    [BWSH_VERDICT_SHADOWED] = "shadowed", [BWSH_VERDICT_COALESCED] = "coalesced",
  };
  return (size_t) v < BWSH_N_ELEMENTS (names) ? names[v] : "?";
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

char *
bwsh_escape (const char *s, size_t len)
{
  /* 256 printable bytes at most 4 bytes each, plus "..." and NUL. */
  const size_t limit = 256;
  char *out = malloc (limit * 4 + 4);
  size_t o = 0;

  if (out == NULL)
    return NULL;
  for (size_t i = 0; i < len && i < limit; i++)
    {
      unsigned char c = (unsigned char) s[i];
      if (c < 0x20 || c >= 0x7f || c == '\\' || c == '"')
        o += (size_t) sprintf (out + o, "\\x%02x", c);
      else
        out[o++] = (char) c;
    }
  if (len > limit)
    {
      memcpy (out + o, "...", 3);
      o += 3;
    }
  out[o] = '\0';
  return out;
}
