/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Admission: subject, service, shell, lock, max_sessions (see admission.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admission.h"
#include "bind_list.h"
#include "cleanup.h"
#include "errors.h"
#include "identity.h"
#include "lockgroups.h"
#include "path.h"
#include "policy.h"
#include "registry.h"
#include "registry_place.h"
#include "rules.h"

/* How far up bwsh looks for the process that opened its PAM session: sshd
 * puts two processes in between (the session's child and the shell's
 * parent), su one; a deeper chain is not a login. */
#define ANCESTORS_MAX 16

void
bwsh_admission_clear (BwshAdmission *a)
{
  if (a == NULL)
    return;
  bwsh_lock_clear (&a->lock);
  *a = (BwshAdmission) { 0 };
}

const char *
bwsh_admit_verdict_name (BwshAdmitVerdict v)
{
  static const char *const names[] = {
    [BWSH_ADMIT_ALLOWED] = "allowed",   [BWSH_ADMIT_NOT_SUBJECT] = "not a subject",
    [BWSH_ADMIT_SERVICE] = "service",   [BWSH_ADMIT_SHELL] = "shell",
    [BWSH_ADMIT_LOCKED] = "locked",     [BWSH_ADMIT_MAX_SESSIONS] = "max_sessions",
  };

  return (size_t) v < BWSH_N_ELEMENTS (names) ? names[v] : "?";
}

/* A lookup of this caller's ancestors in its user's place of pam_bwsh's
 * entries (registry_place.c), never a read of the registry's entries: the
 * cost is the same with a thousand sessions of other users live (#37). */
int
bwsh_registry_holds_ancestor (const char *dir, uid_t uid, pid_t pid, bool *ret, BwshRegistryName *ret_name,
                              BwshError *err)
{
  _cleanup_close_ int dirfd = -1, placefd = -1;
  int r;

  *ret = false;
  r = bwsh_registry_open (dir, &dirfd, err);
  if (r == -ENOENT)
    return 0; /* no registry yet this boot: nobody has a session */
  if (r < 0)
    return r;
  r = bwsh_registry_place_open (dirfd, BWSH_REGISTRY_ROOT_PART, uid, false, &placefd);
  if (r == -ENOENT)
    return 0; /* pam_bwsh never registered a session of @uid this boot */
  if (r < 0)
    return bwsh_error_set (err, r, dir != NULL ? dir : BWSH_SESSIONS_DIR, 0, 0, "cannot read the session registry: %s",
                           strerror (-r));
  /* Only pam_bwsh's (root's) entries: one bwsh wrote is no PAM session. */
  r = bwsh_registry_place_holds (&placefd, pid, ANCESTORS_MAX, ret, ret_name);
  if (r < 0)
    return bwsh_error_set (err, r, dir != NULL ? dir : BWSH_SESSIONS_DIR, 0, 0, "cannot read the session registry: %s",
                           strerror (-r));
  return 0;
}

static int
refuse (BwshAdmission *a, BwshAdmitVerdict v, BwshErrorCode step, BwshError *err, const char *fmt, ...)
  __attribute__ ((format (printf, 5, 6)));

static int
refuse (BwshAdmission *a, BwshAdmitVerdict v, BwshErrorCode step, BwshError *err, const char *fmt, ...)
{
  char msg[sizeof err->message];
  va_list ap;

  a->verdict = v;
  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  return bwsh_error_step (err, step, bwsh_error_set (err, -EPERM, NULL, 0, 0, "%s", msg));
}

static int
check_lock (const BwshAdmitRequest *req, const BwshIdentity *id, const BwshPolicy *pol, BwshAdmission *a,
            BwshError *err)
{
  int r = bwsh_lock_find (req->locks_dir, id, &a->lock, err);

  /* The policy's lock groups (#39): the user is told the reason, not the group. */
  if (r == -ENOENT && (r = bwsh_policy_lock (pol, &a->lock)) == 0)
    return refuse (a, BWSH_ADMIT_LOCKED, BWSH_ERROR_LOCKED, err, "sessions of %s are locked: %s", id->name,
                   a->lock.reason[0] != '\0' ? a->lock.reason : "no reason given");
  if (r == -ENOENT)
    return 0;
  if (r < 0)
    {
      /* Fail closed: a lock that cannot be read may be there. */
      a->verdict = BWSH_ADMIT_LOCKED;
      if (err != NULL && err->message[0] == '\0')
        bwsh_error_set (err, r, NULL, 0, 0, "%s", strerror (-r));
      return bwsh_error_step (err, BWSH_ERROR_LOCKED, r);
    }
  return refuse (a, BWSH_ADMIT_LOCKED, BWSH_ERROR_LOCKED, err, "sessions of %s are locked: %s", a->lock.target,
                 a->lock.reason[0] != '\0' ? a->lock.reason : "no reason given");
}

static int
check_sessions (const BwshAdmitRequest *req, const BwshIdentity *id, const BwshPolicy *pol, BwshAdmission *a,
                BwshError *err)
{
  int r;

  a->max_sessions = pol->max_sessions;
  if (req->session_pid > 0)
    {
      r = bwsh_registry_holds_ancestor (req->sessions_dir, id->uid, req->session_pid, &a->registered,
                                        &a->registered_as, err);
      if (r < 0)
        return bwsh_error_step (err, BWSH_ERROR_LIMIT, r);
      /* pam_bwsh counted it, under the same rule, and holds its place. */
      if (a->registered)
        return 0;
    }
  if (pol->max_sessions == 0)
    return 0;
  r = bwsh_registry_count (req->sessions_dir, id->uid, NULL, &a->live, err);
  if (r < 0)
    {
      a->verdict = BWSH_ADMIT_MAX_SESSIONS;
      return bwsh_error_step (err, BWSH_ERROR_LIMIT, r);
    }
  if (a->live >= pol->max_sessions)
    return refuse (a, BWSH_ADMIT_MAX_SESSIONS, BWSH_ERROR_LIMIT, err,
                   "%s has %zu sessions open, at most %u are allowed (max_sessions)", id->name, a->live,
                   pol->max_sessions);
  return 0;
}

int
bwsh_admit (const BwshAdmitRequest *req, const BwshIdentity *id, const BwshPolicy *pol, BwshAdmission *ret,
            BwshError *err)
{
  BwshAdmission a = { .verdict = BWSH_ADMIT_ALLOWED };
  int r;

  /* subject */
  if (req->pam && !pol->is_subject)
    {
      a.verdict = BWSH_ADMIT_NOT_SUBJECT;
      *ret = a;
      return 0;
    }
  /* service */
  if (req->pam && bwsh_policy_refuses_service (pol, req->service))
    r = refuse (&a, BWSH_ADMIT_SERVICE, BWSH_ERROR_SERVICE, err,
                "service %s never runs the login shell; refused for sandboxed user %s",
                req->service != NULL && req->service[0] != '\0' ? req->service : "-", id->name);
  /* shell */
  else if (req->pam && pol->require_shell && !bwsh_shell_is_bwsh (id->shell, req->bwsh_binary))
    r = refuse (&a, BWSH_ADMIT_SHELL, BWSH_ERROR_SHELL, err,
                "the login shell of sandboxed user %s is %s, not %s (require_shell)", id->name,
                id->shell != NULL && id->shell[0] != '\0' ? id->shell : "-", req->bwsh_binary);
  /* lock, then max_sessions */
  else if ((r = check_lock (req, id, pol, &a, err)) >= 0)
    r = check_sessions (req, id, pol, &a, err);
  *ret = a;
  return r;
}

/* The service and shell verdicts, here because admission makes them. */
bool
bwsh_policy_refuses_service (const BwshPolicy *pol, const char *service)
{
  /* A subject's cron or at job runs /bin/sh -c directly, never the login
   * shell, so it would run unsandboxed.  No service name: refused too. */
  if (!bwsh_service_runs_login_shell (pol, service))
    return true;
  return bwsh_bind_list_contains (&pol->refused_services, service);
}

bool
bwsh_shell_is_bwsh (const char *shell, const char *bwsh_binary)
{
  _cleanup_free_ char *have = NULL, *want = NULL;

  /* The shell must be the installed bwsh itself: its path, or a path that
   * resolves to it; not merely some file called "bwsh". */
  if (shell == NULL || shell[0] != '/' || bwsh_binary == NULL)
    return false;
  if (bwsh_path_normalize (shell, &have) == BWSH_PATH_OK && bwsh_path_normalize (bwsh_binary, &want) == BWSH_PATH_OK
      && strcmp (have, want) == 0)
    return true;
  free (steal_pointer (&have));
  free (steal_pointer (&want));
  have = realpath (shell, NULL);
  want = realpath (bwsh_binary, NULL);
  return have != NULL && want != NULL && strcmp (have, want) == 0;
}
