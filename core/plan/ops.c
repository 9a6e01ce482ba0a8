/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plan's ground floor: what every step of core/plan/ uses to add a
 * mount and give it a verdict.  It calls no step; build.c calls the steps.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bind_list.h"
#include "cleanup.h"
#include "errors.h"
#include "format.h"
#include "ops.h"
#include "plan.h"
#include "plan_internal.h"

const BwshSource plan_default_source = { .origin = BWSH_ORIGIN_DEFAULT };

void
plan_strv_free (char **v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (v[i]);
  free (v);
}

void
plan_mount_clear (BwshMount *m)
{
  free (m->src);
  free (m->dest);
  free (m->reason);
  free (m->from.file);
  if (m->fd >= 0)
    close (m->fd);
}

int
plan_set_reason (BwshMount *m, BwshVerdict v, const char *fmt, ...)
{
  va_list ap;
  char *s;

  va_start (ap, fmt);
  s = bwsh_vformat (fmt, ap);
  va_end (ap);
  if (s == NULL)
    return -ENOMEM;
  free (m->reason);
  m->reason = s;
  m->verdict = v;
  return 0;
}

/* "FILE:LINE:COL: " for a diagnostic about @from, or "" for defaults. */
char *
plan_format_from (const BwshSource *from)
{
  return bwsh_source_prefix (from->file, from->line, from->column);
}

/* Mark @m refused (or skipped) and add the one-line warning. */
int
plan_refuse (BwshPlan *p, BwshMount *m, BwshVerdict v, const char *what, const char *fmt, ...)
{
  _cleanup_free_ char *reason = NULL, *esc = NULL, *where = NULL;
  va_list ap;
  int r;

  va_start (ap, fmt);
  reason = bwsh_vformat (fmt, ap);
  va_end (ap);
  if (reason == NULL)
    return -ENOMEM;
  where = plan_format_from (&m->from);
  esc = bwsh_escape (what, strlen (what));
  if (where == NULL || esc == NULL)
    return -ENOMEM;
  r = bwsh_diag_add (&p->diag, "%s%s: %s", where, esc, reason);
  if (r < 0)
    return r;
  if (v == BWSH_VERDICT_REFUSED)
    p->n_refused++;
  free (m->reason);
  m->reason = steal_pointer (&reason);
  m->verdict = v;
  return 0;
}

/* Append a mount.  @src may be NULL.  Returns the index or -errno. */
ssize_t
plan_add_mount (Ctx *c, BwshMountKind kind, const char *src, const char *dest, const BwshSource *from)
{
  BwshPlan *p = c->p;
  BwshMount *m;
  int r;

  if (p->n_mounts == p->cap_mounts)
    {
      size_t cap = p->cap_mounts == 0 ? 32 : p->cap_mounts * 2;
      BwshMount *n = realloc (p->mounts, cap * sizeof *n);
      if (n == NULL)
        return -ENOMEM;
      p->mounts = n;
      p->cap_mounts = cap;
    }
  m = &p->mounts[p->n_mounts];
  *m = (BwshMount) { .kind = kind, .fd = -1, .verdict = BWSH_VERDICT_ACCEPTED };
  if (from != NULL)
    m->from = *from;
  m->from.file = NULL;
  if ((src != NULL && (m->src = strdup (src)) == NULL) || (m->dest = strdup (dest)) == NULL
      || (from != NULL && from->file != NULL && (m->from.file = strdup (from->file)) == NULL))
    {
      plan_mount_clear (m);
      return -ENOMEM;
    }
  r = plan_dest_table_add (&c->dests, p->mounts, p->n_mounts);
  if (r < 0)
    {
      plan_mount_clear (m);
      return r;
    }
  return (ssize_t) p->n_mounts++;
}
