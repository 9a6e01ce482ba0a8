/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: landlock (landlock.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "errors.h"
#include "plan.h"

typedef struct BwshLandlockReport
{
  int abi;                 /* 0 = unavailable */
  bool scoped_abstract;
  bool scoped_signal;
  bool tcp_connect;
  bool tcp_bind;
  char missing[256];       /* what best_effort left out, "" when nothing */
} BwshLandlockReport;

/* Apply the plan's Landlock request to the calling thread (just before the
 * exec of bwrap).  -EOPNOTSUPP when required and unavailable. */
int bwsh_landlock_apply (const BwshLandlockRequest *req, BwshLandlockReport *ret_report, BwshError *err);
/* The same in two steps, for a recorded session, whose recorder runs
 * unrestricted and whose bwrap is restricted by bwsh-landlock: the ruleset
 * (*ret_fd, O_CLOEXEC; -1 when there is nothing to restrict) and its
 * enforcement on the calling thread, with no_new_privs. */
int bwsh_landlock_ruleset (const BwshLandlockRequest *req, int *ret_fd, BwshLandlockReport *ret_report,
                           BwshError *err);
int bwsh_landlock_restrict (int ruleset_fd, BwshError *err);
int bwsh_landlock_probe (const BwshLandlockRequest *req, BwshLandlockReport *ret_report);

/* A path a filesystem ruleset allows, and what beneath it
 * (LANDLOCK_ACCESS_FS_* rights). */
typedef struct BwshLandlockPath
{
  const char *path;
  uint64_t access;
} BwshLandlockPath;

/* A ruleset (*ret_fd, O_CLOEXEC) that handles every filesystem right this
 * kernel knows and allows only @paths: a right the kernel does not handle
 * is left out of a path's (IOCTL_DEV before ABI 5), a path that does not
 * exist is skipped.  -errno when Landlock is unavailable.  Enforce it with
 * bwsh_landlock_restrict().  For a program that runs outside the sandbox
 * (the network engine); the session's own ruleset handles no filesystem
 * rights (above). */
int bwsh_landlock_fs_ruleset (const BwshLandlockPath *paths, size_t n_paths, int *ret_fd, BwshError *err);
