/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plan: identity x policy x user overlay -> a mount table with verdicts.
 *
 * bwsh_plan_build() decides from the inputs alone (plus two lstat()s of the
 * host layout), so it can be tested and explained without root.  Then
 * bwsh_plan_resolve() runs as the user, resolves every bind source, checks
 * the resolved path against the same rules and opens it O_PATH|O_NOFOLLOW:
 * bwrap gets the fd, never a path that could be swapped after the check.
 *
 * This file: the plan's life (build, free), the order of the steps; the
 * steps are the other files of core/plan/, and what each of them uses to add
 * a mount and give it a verdict is ops.c, below them all.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "errors.h"
#include "identity.h"
#include "ops.h"
#include "plan.h"
#include "plan_internal.h"
#include "policy.h"
#include "rules.h"
#include "userconf.h"

BwshPlan *
bwsh_plan_free (BwshPlan *p)
{
  if (p == NULL)
    return NULL;
  for (size_t i = 0; i < p->n_mounts; i++)
    plan_mount_clear (&p->mounts[i]);
  free (p->mounts);
  for (size_t i = 0; i < p->n_env; i++)
    free (p->env[i]);
  free (p->env);
  free (p->chdir);
  free (p->hostname);
  free (p->shell);
  free (p->home);
  free (p->project_dir);
  free (p->default_project_dir);
  bwsh_landlock_request_clear (&p->landlock);
  plan_strv_free (p->rw_ceilings, p->n_rw_ceilings);
  plan_strv_free (p->ro_ceilings, p->n_ro_ceilings);
  plan_strv_free (p->protected_paths, p->n_protected);
  plan_strv_free (p->policy_dirs, p->n_policy_dirs);
  free (p->shell_file);
  bwsh_diag_clear (&p->diag);
  free (p);
  return NULL;
}

static void
plan_freep (BwshPlan **p)
{
  bwsh_plan_free (*p);
}

/* A new plan with what it takes from the policy and the identity as they
 * are: namespaces, network, recording, seccomp, sizes, Landlock, limits,
 * the shell, the home, the hostname. */
static int
plan_from_policy (const BwshIdentity *id, const BwshPolicy *pol, BwshPlan **ret, BwshError *err)
{
  _cleanup_ (plan_freep) BwshPlan *p = NULL;
  int r;

  p = calloc (1, sizeof *p);
  if (p == NULL)
    return -ENOMEM;
  p->uid = id->uid;
  p->home_oldest = INT64_MAX;
  p->strict = pol->strict;
  /* A fresh user namespace that cannot make another one (nested user
   * namespaces were the way back to mount() and friends), plus every
   * namespace that hides host state. */
  p->unshare[BWSH_NS_USER] = p->unshare[BWSH_NS_PID] = p->unshare[BWSH_NS_IPC] = true;
  p->unshare[BWSH_NS_UTS] = p->unshare[BWSH_NS_CGROUP] = true;
  p->network = pol->net_mode;
  p->net_engine = pol->net_engine;
  p->record = pol->record_mode;
  p->unshare[BWSH_NS_NET] = pol->net_mode != BWSH_NET_SHARED;
  p->disable_userns = true;
  p->seccomp = BWSH_SECCOMP_SESSION;
  p->root_tmpfs_size = pol->root_tmpfs_size;
  p->tmp_tmpfs_size = pol->tmp_tmpfs_size;
  r = bwsh_landlock_request_from_policy (pol, &p->landlock);
  if (r < 0)
    return bwsh_error_set (err, r, NULL, 0, 0, "out of memory");
  p->rlimit_core = pol->rlimit_core;
  p->rlimit_nproc = pol->rlimit_nproc;
  p->rlimit_nofile = pol->rlimit_nofile;
  p->max_mounts = pol->max_mounts;
  if ((p->shell = strdup (pol->shell)) == NULL || (p->home = strdup (id->home)) == NULL
      || (pol->hostname != NULL && (p->hostname = strdup (pol->hostname)) == NULL))
    return -ENOMEM;
  *ret = steal_pointer (&p);
  return 0;
}

/* ------------------------------------------------------------------ build */

int
bwsh_plan_build (const BwshIdentity *id, const BwshPolicy *pol, const BwshUserConfig *uc, char *const *envp,
                 BwshPlan **ret, BwshError *err)
{
  _cleanup_ (plan_freep) BwshPlan *p = NULL;
  _cleanup_free_ char *project = NULL, *state_dir = NULL;
  Ctx c = { .id = id, .pol = pol };
  int r;

  if (pol->shell == NULL || pol->shell[0] != '/')
    return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "the inner shell must be an absolute path");

  r = plan_from_policy (id, pol, &p, err);
  if (r < 0)
    return r;
  c.p = p;

  if ((r = plan_ctx_rules (&c, id->home, err)) < 0
      || (r = plan_expand_list (&pol->locked, id->home, &c.locked, &c.n_locked, err)) < 0)
    goto out;

  r = plan_choose_project_dir (&c, bwsh_policy_reads_overlay (pol) ? uc : NULL, &project, err);
  if (r < 0)
    goto out;
  /* The built-in part of the allow-list: the policy's lists only widen it. */
  r = plan_rules_add_builtin_ceilings (&c.rules, project, id->home);
  if (r < 0)
    goto out;
  r = plan_choose_state_dir (&c, project, &state_dir, err);
  if (r < 0)
    goto out;
  p->start_dir = pol->start_dir == BWSH_START_PROJECT ? "project" : "home";
  if ((p->project_dir = strdup (project)) == NULL
      || (p->chdir = strdup (pol->start_dir == BWSH_START_PROJECT ? project : id->home)) == NULL)
    {
      r = -ENOMEM;
      goto out;
    }

  r = plan_add_defaults (&c, project, state_dir);
  if (r < 0)
    goto out;

  r = plan_merge (&c, bwsh_policy_reads_overlay (pol) ? uc : NULL);
  if (r < 0)
    goto out;

  r = plan_add_overlay_dir (&c);
  if (r < 0)
    goto out;
  r = plan_add_protected (&c);
  if (r < 0)
    goto out;
  r = plan_sort_by_depth (p);
  if (r < 0)
    goto out;
  r = plan_build_env (id, pol, envp, p, err);
  if (r < 0)
    goto out;

  plan_rules_to_plan (&c.rules, p);
  if (pol->shell_from.file != NULL && (p->shell_file = strdup (pol->shell_from.file)) == NULL)
    {
      r = -ENOMEM;
      goto out;
    }
  p->shell_line = pol->shell_from.line;

  *ret = steal_pointer (&p);
  r = 0;
out:
  plan_ctx_clear (&c);
  if (r == -ENOMEM)
    bwsh_error_set (err, r, NULL, 0, 0, "out of memory");
  return r;
}
