/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the unit tests share: scratch directories and hand-built identities. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "bwshcore.h"

/* A string literal as the char * that envp-style arrays want (-Wwrite-strings). */
#define S(x) ((char *) (uintptr_t) (x))

/* Remove @path and everything below it without following symlinks (nftw,
 * FTW_PHYS): 0 or -errno.  A missing @path is not an error. */
int unit_rm_rf (const char *path);

/* mkdir -p for an absolute @path, mode 0755: 0 or -errno. */
int unit_mkdirs (const char *path);

/* The whole of the file @path, NUL-terminated; fails the test when it
 * cannot be read.  Free it. */
char *unit_read_file (const char *path);

/* A BwshIdentity for the calling uid with @home and @shell, as bwsh would
 * get from NSS; NULL when out of memory. */
BwshIdentity *unit_identity (const char *home, const char *shell);

/* Skip the current test because @why, the way the shell suites do: with
 * CI=true a skip is a failure, so that CI never passes on a test that did
 * not run (an older kernel, not root).  Call from a cmocka test only. */
void unit_skip_at (const char *why, const char *file, int line) __attribute__ ((noreturn));
#define unit_skip(why) unit_skip_at ((why), __FILE__, __LINE__)

/* Give @path a group that is not the caller's private group (which
 * bwsh_writable_by_others() accepts as the user's own): nogroup as root,
 * else a supplementary group of the caller; skips (unit_skip) when the
 * caller has none.  Call from a cmocka test only. */
void unit_chgrp_not_own (const char *path);

/* The plan tests' fixture (test_plan, test_render, test_digest): a scratch
 * home /tmp/bwsh-unit-NAME-XXXXXX with ~/project in it, an identity for the
 * calling uid with that home, and the built-in policy. */
typedef struct
{
  char home[PATH_MAX];
  char outside[PATH_MAX]; /* a second scratch directory, not under home, or "" */
  BwshIdentity *id;
  BwshPolicy *pol;
} UnitPlanFx;

/* Make the fixture for the scratch name @name with @shell as the
 * identity's shell; @subdirs (NULL-terminated, or NULL) are made under the
 * home after project, and @outside makes /tmp/bwsh-unit-NAME-out-XXXXXX.
 * NULL on failure. */
UnitPlanFx *unit_plan_fx_new (const char *name, const char *shell, const char *const *subdirs, bool outside);

/* Remove the scratch directories and free @f: 0 or -1. */
int unit_plan_fx_free (UnitPlanFx *f);

/* @tmpl with every "@H" replaced by the home and "@O" by the outside
 * directory, malloc'd; NULL when out of memory. */
char *unit_plan_fx_subst (const UnitPlanFx *f, const char *tmpl);
