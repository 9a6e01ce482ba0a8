/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Admission: whether a session may start at all, decided from the identity,
 * the policy and root's state (locks, the registry) before anything of the
 * user's is opened or created.  The steps, in this order:
 *
 *   subject       pam_bwsh leaves a non-subject alone (bwsh confines
 *                 whoever runs it, subject or not)
 *   service       pam_bwsh: a service that never runs the login shell
 *   shell         pam_bwsh: require_shell and the passwd shell is not bwsh
 *   lock          bwshctl lock USER|@GROUP, then the policy's lock_groups
 *   max_sessions  the user's live sessions in the registry
 *
 * pam_bwsh, bwsh and bwshctl explain/check run the same function (through
 * bwsh_session_prepare()), so a PAM stack without pam_bwsh cannot skip a
 * lock or a limit: bwsh decides them again.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "errors.h"
#include "identity.h"
#include "policy.h"
#include "registry.h"

typedef enum
{
  BWSH_ADMIT_ALLOWED = 0,
  BWSH_ADMIT_NOT_SUBJECT,  /* pam: not confined; nothing else was decided */
  BWSH_ADMIT_SERVICE,
  BWSH_ADMIT_SHELL,
  BWSH_ADMIT_LOCKED,
  BWSH_ADMIT_MAX_SESSIONS,
} BwshAdmitVerdict;

typedef struct BwshAdmitRequest
{
  bool pam;                /* pam_bwsh: stop for non-subjects, check @service and the shell */
  const char *service;     /* PAM_SERVICE */
  const char *bwsh_binary; /* what require_shell compares the passwd shell with */
  /* bwsh: its own pid.  A pam_bwsh registration held by one of its
   * ancestors is this session's: pam_bwsh enforced max_sessions and
   * registered it, and bwsh must neither count it twice nor register it
   * again.  0: not looked for. */
  pid_t session_pid;
  const char *locks_dir;    /* NULL: BWSH_LOCKS_DIR */
  const char *sessions_dir; /* NULL: BWSH_SESSIONS_DIR */
} BwshAdmitRequest;

typedef struct BwshAdmission
{
  BwshAdmitVerdict verdict;
  BwshLock lock;          /* LOCKED: the lock that applies */
  size_t live;            /* the user's live sessions (not this one) */
  unsigned max_sessions;  /* the policy's; 0: no limit */
  bool registered;        /* pam_bwsh registered this session (see session_pid) */
  BwshRegistryName registered_as; /* registered: the name of pam_bwsh's entry */
} BwshAdmission;

/* Decide.  0 with ret->verdict ALLOWED or NOT_SUBJECT; -EPERM with the
 * refusing verdict, @err's code naming the step and its message the one
 * line the user sees; another -errno when a step cannot be decided (a lock
 * directory that cannot be read): that refuses too (fail closed). */
int bwsh_admit (const BwshAdmitRequest *req, const BwshIdentity *id, const BwshPolicy *pol, BwshAdmission *ret,
                BwshError *err);
void bwsh_admission_clear (BwshAdmission *a);

/* "allowed", "not a subject", "service", "shell", "locked", "max_sessions". */
const char *bwsh_admit_verdict_name (BwshAdmitVerdict v);

/* Whether a live pam_bwsh registration of @uid is held by @pid or one of
 * its ancestors. */
int bwsh_registry_holds_ancestor (const char *dir, uid_t uid, pid_t pid, bool *ret, BwshRegistryName *ret_name,
                                  BwshError *err);

/* True when @service (PAM_SERVICE) is refused for subjects: it does not run
 * the login shell, or refused_services names it. */
bool bwsh_policy_refuses_service (const BwshPolicy *pol, const char *service);

/* The one definition of "this shell is bwsh", for pam_bwsh's require_shell
 * and every doctor check: @shell names @bwsh_binary, as written (normalised)
 * or after resolving symlinks.  A file merely called "bwsh" is not bwsh. */
bool bwsh_shell_is_bwsh (const char *shell, const char *bwsh_binary);
