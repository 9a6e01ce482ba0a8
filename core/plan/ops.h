/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plan's ground floor (ops.c): adding a mount, giving it a verdict,
 * refusing it with its one-line warning.  Every step of core/plan/ uses
 * these; they call no step.
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "bind_list.h"
#include "plan.h"
#include "plan_internal.h"

extern const BwshSource plan_default_source;
/* A mount's strings and descriptor freed (not the mount itself). */
void plan_mount_clear (BwshMount *m);
void plan_strv_free (char **v, size_t n);
int plan_set_reason (BwshMount *m, BwshVerdict v, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));
char *plan_format_from (const BwshSource *from);
/* Mark @m refused (or skipped) and add the one-line warning. */
int plan_refuse (BwshPlan *p, BwshMount *m, BwshVerdict v, const char *what, const char *fmt, ...)
  __attribute__ ((format (printf, 5, 6)));
ssize_t plan_add_mount (Ctx *c, BwshMountKind kind, const char *src, const char *dest, const BwshSource *from);
