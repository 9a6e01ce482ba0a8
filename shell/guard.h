/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "bwshcore.h"

/* Launch @p guarded (bwsh_plan_guards_setup()): returns only on failure,
 * with @err filled; exits with the session's status otherwise.  @fail ends
 * the child as bwsh ends on a launch error (message, event, exit status). */
int bwsh_guarded_launch (BwshPlan *p, const BwshCommand *cmd, const char *user, void (*fail) (const BwshError *),
                         BwshError *err);
