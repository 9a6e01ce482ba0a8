/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one orchestration of a session, for every front end: bwsh (RUN),
 * pam_bwsh (RUN, as a session module) and bwshctl (EXPLAIN, CHECK).  Nothing
 * outside this file sequences the steps, so explain cannot drift from the
 * launch: it is the same code with a mode that creates nothing.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "admission.h"
#include "bounds.h"
#include "cleanup.h"
#include "errors.h"
#include "identity.h"
#include "lkg.h"
#include "path.h"
#include "plan.h"
#include "policy.h"
#include "registry.h"
#include "rules.h"
#include "safeopen.h"
#include "session.h"
#include "userconf.h"

BwshSession *
bwsh_session_free (BwshSession *s)
{
  if (s == NULL)
    return NULL;
  bwsh_plan_free (s->plan);
  bwsh_user_config_free (s->user_config);
  free (s->user_config_path);
  bwsh_policy_free (s->policy);
  bwsh_identity_free (s->id);
  bwsh_diag_clear (&s->diag);
  bwsh_admission_clear (s->admission);
  free (s->admission);
  free (s);
  return NULL;
}

/* The plan again, without the user's sandboxProjectDir, which could not be
 * used: why, as a warning of the plan's. */
static int
project_dir_fallback (const BwshSessionRequest *req, BwshSession *s, BwshError *err)
{
  BwshUserConfig uc = *s->user_config;
  _cleanup_free_ char *esc = bwsh_escape (s->plan->project_dir, strlen (s->plan->project_dir));
  _cleanup_free_ char *why = strdup (err->message);
  BwshPlan *p = NULL;
  int r;

  if (esc == NULL || why == NULL)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  uc.project_dir = NULL;
  *err = (BwshError) { 0 };
  r = bwsh_plan_build (s->id, s->policy, &uc, req->envp, &p, err);
  if (r < 0)
    return r;
  bwsh_plan_free (s->plan);
  s->plan = p;
  r = bwsh_diag_add (&p->diag, "sandboxProjectDir %s: %s (changed while it was checked; using the default)", esc,
                     why);
  return r < 0 ? bwsh_error_set (err, r, NULL, 0, 0, "out of memory") : 0;
}

/* The steps that run as the user: overlay, plan, home, project directory,
 * resolution.  A failure names its step in @err. */
static int
as_user (const BwshSessionRequest *req, BwshSession *s, BwshError *err)
{
  const bool run = req->mode == BWSH_SESSION_RUN;
  struct stat st;
  int r;

  if (req->user_config != NULL && !run)
    {
      /* An overlay named on the command line must exist: checking a file
       * that is not there would report "valid" for nothing. */
      _cleanup_free_ char *data = NULL;
      size_t len = 0;

      if ((s->user_config_path = strdup (req->user_config)) == NULL)
        return bwsh_error_step (err, BWSH_ERROR_USER_CONFIG, -ENOMEM);
      r = bwsh_read_file_checked (req->user_config, BWSH_OWNER_USER, s->id->uid, BWSH_USER_CONFIG_MAX, &data, &len,
                                  err);
      if (r == -ENOENT)
        r = bwsh_error_set (err, r, req->user_config, 0, 0, "no such file");
      if (r >= 0)
        r = bwsh_user_config_parse (data, len, req->user_config, &s->user_config, &s->diag, err);
      if (r < 0)
        return bwsh_error_step (err, BWSH_ERROR_USER_CONFIG, r);
    }
  else if (bwsh_policy_reads_overlay (s->policy))
    {
      r = bwsh_path_expand (s->policy->user_config, s->id->home, &s->user_config_path);
      if (r < 0)
        return bwsh_error_step (err, BWSH_ERROR_USER_CONFIG,
                                bwsh_error_set (err, r, NULL, 0, 0, "invalid user_config path in the policy"));
      r = bwsh_user_config_load (s->user_config_path, s->id->uid, &s->user_config, &s->diag, err);
      if (r < 0)
        return bwsh_error_step (err, BWSH_ERROR_USER_CONFIG, r);
    }

  r = bwsh_plan_build (s->id, s->policy, s->user_config, req->envp, &s->plan, err);
  if (r < 0)
    return bwsh_error_step (err, BWSH_ERROR_PLAN, r);

  if (stat (s->id->home, &st) < 0 || !S_ISDIR (st.st_mode))
    return bwsh_error_step (err, BWSH_ERROR_HOME,
                            bwsh_error_set (err, -ENOENT, NULL, 0, 0, "home directory %s does not exist",
                                            s->id->home));
  for (;;)
    {
      BwshErrorCode step = BWSH_ERROR_PROJECT_DIR;

      /* A kept state's closure: when the user's oldest live session began
       * (plan.h, home_oldest), this session's own pam_bwsh entry judged by
       * its epoch alone; a plan built again needs it again. */
      if (s->plan->state != NULL && strcmp (s->plan->state, "persistent") == 0
          && bwsh_registry_oldest (NULL, s->id->uid, s->admission->registered ? &s->admission->registered_as : NULL,
                                   &s->plan->home_oldest, &(BwshError) { 0 })
                 < 0)
        s->plan->home_oldest = BWSH_HOME_OLDEST_UNKNOWN;

      r = run ? bwsh_mkdir_under_home (s->plan->home, s->plan->project_dir, err) : 0;
      if (r >= 0)
        {
          step = BWSH_ERROR_RESOLVE;
          r = bwsh_plan_resolve (s->plan, run ? BWSH_RESOLVE_CREATE : BWSH_RESOLVE_DRY_RUN, err);
        }
      if (r >= 0)
        return 0;
      if (!run || !s->plan->project_dir_chosen || r == -ENOMEM)
        return bwsh_error_step (err, step, r);
      /* The user's sandboxProjectDir was checked when the plan was built
       * and changed before it could be used (another session swapped it):
       * the policy's project directory instead, never a refused login. */
      r = project_dir_fallback (req, s, err);
      if (r < 0)
        return bwsh_error_step (err, BWSH_ERROR_PLAN, r);
    }
}

/* pam_bwsh with a policy that cannot be read: an account the fallback does
 * not confine is treated as a non-subject (PAM_IGNORE), nothing of it read. */
static int
leave_alone (BwshSession *s)
{
  s->is_subject = false;
  if ((s->admission = calloc (1, sizeof *s->admission)) == NULL)
    return -ENOMEM;
  s->admission->verdict = BWSH_ADMIT_NOT_SUBJECT;
  return 0;
}

/* The policy, as the caller (root for pam_bwsh and bwshctl --user): it is
 * root's file, and the loader refuses it unless root owns it.  0 with
 * s->policy set; 1 when pam_bwsh leaves the account alone (nothing more to
 * do); -errno with @err filled. */
static int
load_policy (const BwshSessionRequest *req, BwshSession *s, bool decides, BwshError *err)
{
  const char *policy_path = req->policy_path != NULL ? req->policy_path : bwsh_policy_path ();
  BwshError e = { 0 };
  int r;

  r = bwsh_policy_load (policy_path, s->id, &s->policy, &e);
  if (r < 0 && decides)
    {
      /* A policy that cannot be read must not lock everybody out (issue
       * 25): the last policy that loaded cleanly decides who is a subject
       * and how; root is never refused; with no good copy, only an account
       * whose shell is bwsh is refused (it cannot run without a policy). */
      s->policy_fallback = true;
      bwsh_error_step (&e, BWSH_ERROR_POLICY, r);
      s->policy_error = e;
      if (req->pam && s->id->uid == 0)
        return leave_alone (s) < 0 ? -ENOMEM : 1;
      r = bwsh_policy_lkg_load (policy_path, s->id, &s->policy, &s->policy_saved, &(BwshError) { 0 });
      if (r >= 0)
        s->policy_last_good = true;
      else if (req->pam && !bwsh_shell_is_bwsh (s->id->shell, req->bwsh_binary))
        return leave_alone (s) < 0 ? -ENOMEM : 1;
      else
        {
          if (err != NULL)
            *err = s->policy_error;
          return s->policy_error.errnum > 0 ? -s->policy_error.errnum : -EINVAL;
        }
    }
  else if (r < 0)
    {
      if (err != NULL)
        *err = e;
      return bwsh_error_step (err, BWSH_ERROR_POLICY, r);
    }
  return 0;
}

int
bwsh_session_prepare (const BwshSessionRequest *req, BwshSession **ret, BwshError *err)
{
  /* A login decides (RUN, and pam_bwsh's account stage, which must decide
   * as its session stage will); explain and check go on to show the plan. */
  const bool decides = req->mode == BWSH_SESSION_RUN || req->pam;
  BwshSession *s;
  BwshError e = { 0 };
  int r, r2;

  *ret = NULL;
  s = calloc (1, sizeof *s);
  if (s == NULL)
    return bwsh_error_step (err, BWSH_ERROR_IDENTITY, bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory"));
  s->mode = req->mode;
  *ret = s;

  if (req->user != NULL)
    r = bwsh_identity_from_name (req->user, &s->id, err);
  else
    r = bwsh_identity_from_uid (req->uid, &s->id, err);
  if (r < 0)
    return bwsh_error_step (err, BWSH_ERROR_IDENTITY, r);

  r = load_policy (req, s, decides, err);
  if (r != 0)
    return r > 0 ? 0 : r;
  s->is_subject = s->policy->is_subject;

  /* Admission, before anything of the user's is opened or created: a
   * locked login leaves no project directory and opens no source. */
  if ((s->admission = calloc (1, sizeof *s->admission)) == NULL)
    return bwsh_error_step (err, BWSH_ERROR_IDENTITY, bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory"));
  r = bwsh_admit (&(BwshAdmitRequest) { .pam = req->pam,
                                         .service = req->service,
                                         .bwsh_binary = req->bwsh_binary,
                                         .session_pid = req->session_pid },
                  s->id, s->policy, s->admission, &e);
  /* A refused login opens nothing of the user's. */
  if (r < 0 && decides)
    {
      if (err != NULL)
        *err = e;
      return r;
    }
  /* Explain and check go on and show the plan a login would not get. */
  if (r < 0)
    s->refusal = e;
  /* A non-subject is left alone by pam_bwsh: nothing of theirs is read. */
  if (s->admission->verdict == BWSH_ADMIT_NOT_SUBJECT)
    return 0;

  if (req->become_user != NULL)
    {
      r = req->become_user (req->userdata, s->id, err);
      if (r < 0)
        return bwsh_error_step (err, BWSH_ERROR_PRIVILEGES, r);
    }
  e = (BwshError) { 0 };
  r = as_user (req, s, &e);
  if (req->become_caller != NULL)
    {
      r2 = req->become_caller (req->userdata, err);
      if (r2 < 0)
        return bwsh_error_step (err, BWSH_ERROR_PRIVILEGES, r2);
    }
  if (r < 0 && req->mode != BWSH_SESSION_RUN && s->plan != NULL)
    {
      /* Explain and check report a refusal the plan meets as part of the
       * answer, with the plan and every verdict so far; admission's comes
       * first. */
      if (s->refusal.code == BWSH_ERROR_NONE)
        s->refusal = e;
      return 0;
    }
  if (r < 0 && err != NULL)
    *err = e;
  return r;
}
