/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: the environment that acts before the sandbox (scrub.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The variables that act on bwsh, bwrap or a shell before the sandbox
 * exists (core/base/scrub.c): a fnmatch() pattern and one name it matches. */
typedef struct BwshScrubEntry
{
  const char *pattern;
  const char *example;
} BwshScrubEntry;

const BwshScrubEntry *bwsh_env_scrub_list (size_t *ret_n);
/* True when pam_bwsh must remove @name from a subject's environment. */
bool bwsh_env_must_scrub (const char *name);
/* The first entry of the list that some name matching @pattern (an
 * AcceptEnv pattern: "*" and "?") falls under, or NULL when none does:
 * "LD_LIBRARY_PATH", "L*" and "*" all fall under "LD_*". */
const BwshScrubEntry *bwsh_env_pattern_scrubbed (const char *pattern);
