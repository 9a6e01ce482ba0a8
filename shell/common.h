/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What bwsh and bwshctl share on top of core/: loading a user's plan. */
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

/* Identity -> policy -> overlay -> plan, for @id.  @policy_path NULL means
 * the compiled-in one.  @user_config_path NULL means the policy's.  On
 * failure @err says what failed; the session holds what was loaded. */
int bwsh_session_load (BwshSession *s, BwshIdentity *id, const char *policy_path,
                       const char *user_config_path, char *const *envp, BwshError *err);
void bwsh_session_clear (BwshSession *s);
