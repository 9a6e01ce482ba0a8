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
