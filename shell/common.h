/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What bwsh and bwshctl share on top of core/: the loaded pieces of a session. */
#pragma once

#include "bwsh.h"

typedef struct
{
  BwshIdentity *id;
  BwshPolicy *policy;
  BwshUserConfig *user_config;
  BwshPlan *plan;
  BwshDiag diag; /* overlay warnings; the plan has its own */
} BwshSession;

void bwsh_session_clear (BwshSession *s);
