/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The steps every front end takes between the policy and the exec, in one
 * place so that bwsh and pam_bwsh compute the same plan (and digest) the
 * same way: overlay -> plan -> project directory -> resolution, as the user.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bwsh.h"
#include "cleanup.h"

int
bwsh_session_plan (const BwshIdentity *id, const BwshPolicy *pol, char *const *envp, BwshUserConfig **ret_uc,
                   BwshPlan **ret_plan, BwshDiag *diag, const char **ret_what, BwshError *err)
{
  _cleanup_free_ char *path = NULL;
  struct stat st;
  int r;

  if (pol->user_overlay_allowed)
    {
      *ret_what = "cannot read the user configuration";
      r = bwsh_path_expand (pol->user_config, id->home, &path);
      if (r < 0)
        return bwsh_error_set (err, r, NULL, 0, 0, "invalid user_config path in the policy");
      r = bwsh_user_config_load (path, id->uid, ret_uc, diag, err);
      if (r < 0)
        return r;
    }
  *ret_what = "cannot build the sandbox";
  r = bwsh_plan_build (id, pol, *ret_uc, envp, ret_plan, err);
  if (r < 0)
    return r;
  *ret_what = NULL;
  if (stat (id->home, &st) < 0 || !S_ISDIR (st.st_mode))
    return bwsh_error_set (err, -ENOENT, NULL, 0, 0, "home directory %s does not exist", id->home);
  *ret_what = "cannot create the project directory";
  r = bwsh_mkdir_under_home ((*ret_plan)->home, (*ret_plan)->project_dir, err);
  if (r < 0)
    return r;
  *ret_what = "cannot build the sandbox";
  return bwsh_plan_resolve (*ret_plan, err);
}

bool
bwsh_policy_refuses_service (const BwshPolicy *pol, const char *service)
{
  /* A subject's cron or at job runs /bin/sh -c directly, never the login
   * shell, so it would run unsandboxed.  No service name: refused too. */
  if (service == NULL || service[0] == '\0')
    return true;
  return bwsh_bind_list_contains (&pol->refused_services, service);
}

bool
bwsh_shell_is_bwsh (const char *shell, const char *bwsh_binary)
{
  _cleanup_free_ char *have = NULL, *want = NULL;

  /* The passwd shell must be the installed bwsh itself (after resolving
   * symlinks), not merely some file called "bwsh". */
  if (shell == NULL || shell[0] != '/')
    return false;
  have = realpath (shell, NULL);
  want = realpath (bwsh_binary, NULL);
  return have != NULL && want != NULL && strcmp (have, want) == 0;
}
