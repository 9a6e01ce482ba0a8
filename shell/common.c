/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "common.h"

int
bwsh_session_load (BwshSession *s, BwshIdentity *id, const char *policy_path, const char *user_config_path,
                   char *const *envp, BwshError *err)
{
  _cleanup_free_ char *expanded = NULL;
  int r;

  s->id = id;
  r = bwsh_policy_load (policy_path != NULL ? policy_path : bwsh_policy_path (), id, &s->policy, err);
  if (r < 0)
    return r;

  if (user_config_path == NULL && s->policy->user_overlay_allowed)
    {
      r = bwsh_path_expand (s->policy->user_config, id->home, &expanded);
      if (r < 0)
        return bwsh_error_set (err, r, NULL, 0, 0, "invalid user_config path in the policy");
      user_config_path = expanded;
    }
  if (user_config_path != NULL)
    {
      r = bwsh_user_config_load (user_config_path, id->uid, &s->user_config, &s->diag, err);
      if (r < 0)
        return r;
    }
  return bwsh_plan_build (id, s->policy, s->user_config, envp, &s->plan, err);
}

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
