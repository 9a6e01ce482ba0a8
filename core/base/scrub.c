/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What acts before the sandbox: the one list of environment variables that
 * pam_bwsh removes from a subject's PAM environment and that bwshctl doctor
 * looks for in sshd's AcceptEnv.
 *
 * Each of these acts on bwsh (or on bwrap, or on a shell or script that runs
 * before the sandbox: sshrc, ~/.ssh/rc, pam_exec helpers) while it still
 * runs on the host.  Inside the sandbox bwrap's --clearenv plus the
 * allow-list apply; this is about the code before it.  Measured on Debian
 * 12: sshd's stack has pam_env user_readenv=1, and LD_PRELOAD in
 * ~/.pam_environment ran code outside a bwrap login shell.
 *
 * bwsh is not setuid, so glibc does not strip its "unsecure" variables for
 * it (AT_SECURE is off): the list starts from glibc's own UNSECURE_ENVVARS,
 * since bwsh is in the same position as a setuid program, trusted code run
 * on behalf of the adversary.
 */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "scrub.h"

static const BwshScrubEntry scrub_list[] = {
  /* the dynamic loader: LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT load code into bwsh */
  { "LD_*", "LD_PRELOAD" },
  /* changes glibc's allocator and more in every process; CVE-2023-4911 parsed it */
  { "GLIBC_TUNABLES", "GLIBC_TUNABLES" },
  /* MALLOC_TRACE makes glibc write a file; MALLOC_CHECK_/PERTURB_ alter the heap */
  { "MALLOC_*", "MALLOC_CHECK_" },
  /* iconv loads gconv modules (shared objects) from it: code execution */
  { "GCONV_PATH", "GCONV_PATH" },
  /* getconf runs helper programs found there */
  { "GETCONF_DIR", "GETCONF_DIR" },
  /* locale data from a directory the user chose, parsed by glibc */
  { "LOCPATH", "LOCPATH" },
  /* message catalogues: user-chosen printf formats in messages */
  { "NLSPATH", "NLSPATH" },
  /* tzfile(5) data parsed from a user-chosen directory */
  { "TZDIR", "TZDIR" },
  /* temporary files of code before the sandbox must not follow the user;
   * the sandbox has its own /tmp */
  { "TMPDIR", "TMPDIR" },
  /* resolver behaviour (and a file read) chosen by the user */
  { "HOSTALIASES", "HOSTALIASES" },
  /* ditto: search domains of the resolver */
  { "LOCALDOMAIN", "LOCALDOMAIN" },
  /* ditto: resolver options */
  { "RES_OPTIONS", "RES_OPTIONS" },
  /* ditto: host.conf from a user-chosen path */
  { "RESOLV_HOST_CONF", "RESOLV_HOST_CONF" },
  /* NIS+ lookups from a user-chosen path */
  { "NIS_PATH", "NIS_PATH" },
  /* sourced by every non-interactive bash: a script before the sandbox runs it */
  { "BASH_ENV", "BASH_ENV" },
  /* the same for interactive POSIX sh */
  { "ENV", "ENV" },
  /* exported bash functions override commands in any bash script before the sandbox */
  { "BASH_FUNC_*", "BASH_FUNC_ls%%" },
  /* set -o options (xtrace, ...) forced on every bash */
  { "SHELLOPTS", "SHELLOPTS" },
  /* shopt options forced on every bash */
  { "BASHOPTS", "BASHOPTS" },
  /* with xtrace its command substitutions execute code in every bash */
  { "PS4", "PS4" },
  /* bwsh's own channel: only BWSH_PLAN as pam_bwsh sets it, and no test-build knobs */
  { "BWSH_*", "BWSH_PLAN" },
};

const BwshScrubEntry *
bwsh_env_scrub_list (size_t *ret_n)
{
  *ret_n = BWSH_N_ELEMENTS (scrub_list);
  return scrub_list;
}

bool
bwsh_env_must_scrub (const char *name)
{
  for (size_t i = 0; i < BWSH_N_ELEMENTS (scrub_list); i++)
    if (fnmatch (scrub_list[i].pattern, name, 0) == 0)
      return true;
  return false;
}

/* Whether some name matches both @a and @b, patterns with "*" and "?" (as
 * sshd's AcceptEnv and this list write them; no brackets).  can[i][j]: the
 * tails a+i and b+j have a common match; filled from the ends.  A "*" in
 * one either ends (skip it) or takes the other's next character, whatever
 * that is, a "*" included. */
static bool
patterns_overlap (const char *a, const char *b)
{
  size_t la = strlen (a), lb = strlen (b), w = lb + 1;
  _cleanup_free_ bool *can = NULL;

  /* No name the scrub cares about is this long: assume the worst. */
  if (la > 1024 || lb > 1024)
    return true;
  can = calloc ((la + 1) * w, sizeof *can);
  if (can == NULL)
    return true;
  for (size_t i = la + 1; i-- > 0;)
    for (size_t j = lb + 1; j-- > 0;)
      {
        bool r;
        if (i == la && j == lb)
          r = true;
        else if (i < la && a[i] == '*')
          r = can[(i + 1) * w + j] || (j < lb && can[i * w + j + 1]);
        else if (j < lb && b[j] == '*')
          r = can[i * w + j + 1] || (i < la && can[(i + 1) * w + j]);
        else if (i == la || j == lb)
          r = false;
        else
          r = (a[i] == '?' || b[j] == '?' || a[i] == b[j]) && can[(i + 1) * w + j + 1];
        can[i * w + j] = r;
      }
  return can[0];
}

const BwshScrubEntry *
bwsh_env_pattern_scrubbed (const char *pattern)
{
  for (size_t i = 0; i < BWSH_N_ELEMENTS (scrub_list); i++)
    if (patterns_overlap (pattern, scrub_list[i].pattern))
      return &scrub_list[i];
  return NULL;
}
