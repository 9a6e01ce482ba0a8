/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "cleanup.h"
#include "common.h"

void
bwsh_session_clear (BwshSession *s)
{
  bwsh_plan_free (s->plan);
  bwsh_user_config_free (s->user_config);
  bwsh_policy_free (s->policy);
  bwsh_identity_free (s->id);
  bwsh_diag_clear (&s->diag);
  *s = (BwshSession) { 0 };
}
