/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwshctl's launch checks and per-entry verdicts (checks.c). */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "bwshcore.h"
#include "cleanup.h"

/* Print, one line each with its file and line, every condition of the
 * plan that would make the login fail after it was accepted: the shell.
 * (Names NSS does not know: bwsh_nss_check().)  Returns how many. */
size_t bwshctl_launch_problems (const BwshPlan *plan, FILE *f);

/* record = "tty" or "required" and tlog-rec cannot run as the plan's user's
 * login runs it (bwsh_recorder_check()), with the fix: under "required" a
 * problem, returned as 1; under "tty" a warning, counted in @ret_warnings.
 * Nothing @inside a sandbox, whose /run is its own. */
size_t bwshctl_recorder_problems (const BwshPlan *plan, bool inside, FILE *f, size_t *ret_warnings);

/* "FILE:LINE:COL: VERDICT KIND SRC -> DEST: reason" for each overlay entry. */
void bwshctl_print_entries (const BwshPlan *plan, FILE *f);

/* Inside a sandbox (uid 0 unmapped), accept root's files as they show
 * there and say so on @f.  True when inside. */
bool bwshctl_enter_inside_trust (FILE *f);
