/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the unit tests share: scratch directories and hand-built identities. */
#pragma once

#include "bwsh.h"

/* Remove @path and everything below it without following symlinks (nftw,
 * FTW_PHYS): 0 or -errno.  A missing @path is not an error. */
int unit_rm_rf (const char *path);

/* mkdir -p for an absolute @path, mode 0755: 0 or -errno. */
int unit_mkdirs (const char *path);

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
