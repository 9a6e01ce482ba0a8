/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "bwshcore.h"

/* Launch @p: returns only on failure, with @err filled; exits with the
 * session's status otherwise.  Watched, with bwsh as bwrap's parent, when
 * @p has entries of the user's (bwsh_plan_guards_setup(): a failed setup
 * starts again without them) or @cmd is recorded (a recorder that fails
 * before it starts bwrap refuses the session under record = "required",
 * else it starts again unrecorded); otherwise the plain exec.  @announce
 * writes the session's started event once it is known whether it is
 * recorded; @fail ends a watched launch's child as bwsh ends on a launch
 * error (message, event, exit status). */
int bwsh_launch (BwshPlan *p, const BwshCommand *cmd, BwshRecording recording,
                 void (*announce) (const BwshCommand *cmd, BwshRecording recording), const char *user,
                 void (*fail) (const BwshError *), BwshError *err);
