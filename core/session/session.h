/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: session (session.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "admission.h"
#include "errors.h"
#include "identity.h"
#include "plan.h"
#include "policy.h"
#include "userconf.h"

/* The one orchestration.  bwsh, pam_bwsh and bwshctl all prepare a session
 * here, so what explain shows is what bwsh runs, by construction:
 *
 *   identity -> policy -> [pam_bwsh: subject, service, shell]
 *   -> (as the user) overlay -> plan -> home -> [RUN: project directory]
 *   -> resolution
 *
 * RUN creates what a session needs and fails on the first refusal.
 * EXPLAIN and CHECK create nothing, resolve as far as they can, and report
 * every verdict: what a first login would create, what resolution would
 * refuse (BwshSession.refusal). */
typedef enum
{
  BWSH_SESSION_RUN = 0,
  BWSH_SESSION_EXPLAIN,
  BWSH_SESSION_CHECK,
} BwshSessionMode;

typedef struct BwshSessionRequest
{
  BwshSessionMode mode;
  const char *user;         /* by name (pam_bwsh, bwshctl --user), or NULL for @uid */
  uid_t uid;
  const char *policy_path;  /* NULL: the compiled-in one */
  const char *user_config;  /* EXPLAIN/CHECK: read this overlay instead of the policy's; it must exist */
  char *const *envp;        /* the caller's environment, filtered by the allow-list */
  bool pam;                 /* pam_bwsh: stop for non-subjects, check @service and the shell */
  pid_t session_pid;        /* bwsh: getpid(), to find pam_bwsh's registration (admission.h) */
  const char *service;      /* PAM_SERVICE */
  const char *bwsh_binary;  /* what require_shell compares the passwd shell with */
  /* Become the user for the steps that read the user's files, and come back
   * (pam_bwsh: pam_modutil_drop_priv; bwshctl as root: setresuid).  NULL
   * when the caller already is the user. */
  int (*become_user) (void *userdata, const BwshIdentity *id, BwshError *err);
  int (*become_caller) (void *userdata, BwshError *err);
  void *userdata;
} BwshSessionRequest;

typedef struct BwshSession
{
  BwshSessionMode mode;
  BwshIdentity *id;
  BwshPolicy *policy;
  char *user_config_path;       /* the overlay read, or NULL */
  BwshUserConfig *user_config;
  BwshPlan *plan;
  BwshDiag diag;                /* overlay warnings; the plan has its own */
  bool is_subject;              /* pam: false means "not confined, nothing else was done" */
  struct BwshAdmission *admission; /* the admission verdict (admission.h), once the policy is loaded */
  /* RUN: the policy could not be used (policy_error says why and where);
   * the last good copy decided (policy_last_good, saved at policy_saved),
   * or, with none, root and non-bwsh accounts were left alone (pam) or the
   * session refused.  The front end logs it at crit (lkg.h). */
  bool policy_fallback;
  bool policy_last_good;
  int64_t policy_saved;
  BwshError policy_error;
  /* EXPLAIN/CHECK: why RUN would refuse this session (code BWSH_ERROR_NONE
   * when it would run). */
  BwshError refusal;
} BwshSession;

/* Prepare a session.  Returns 0 or -errno with @err filled and its code
 * naming the step.  *ret is set in both cases once anything was loaded, so
 * that the front end can report every warning; free it with
 * bwsh_session_free(). */
int bwsh_session_prepare (const BwshSessionRequest *req, BwshSession **ret, BwshError *err);
BwshSession *bwsh_session_free (BwshSession *s);
static inline void
bwsh_session_freep (BwshSession **s)
{
  bwsh_session_free (*s);
}

