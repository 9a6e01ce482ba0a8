/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwsh: a login shell that starts the user's real shell inside bubblewrap.
 *
 * Modes, as a login shell is called by login, su and sshd:
 *   -bwsh / bwsh -l        the inner shell runs as a login shell
 *   bwsh -c CMD [NAME ARGS...]  exactly sh's -c
 *   bwsh                   an interactive inner shell
 *
 * Every error before the exec of bwrap ends here with one "bwsh: ..." line
 * and a non-zero exit.  There is no path to an unsandboxed shell.
 *
 * Exit statuses (bwsh(1), EXIT STATUS) come from sysexits.h, so that
 * monitoring can tell them from a command's usual 1, from the shell's 126
 * and 127, from a signal (128+N: a refusal once read as an OOM kill, 137)
 * and from ssh's 255 and sshd's 254:
 *   69 EX_UNAVAILABLE  the sandbox cannot start on this host (bwrap, pasta,
 *                      /dev/net/tun: BWSH_ERROR_NETWORK, #27; the recorder
 *                      of record = "required")
 *   71 EX_OSERR        the system failed (identity, home, project directory,
 *                      privileges, memory)
 *   77 EX_NOPERM       the policy refuses the session (a lock, max_sessions)
 *   78 EX_CONFIG       the policy or the user's overlay cannot be used
 *    2                 a usage error, as sh
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "bwshcore.h"
#include "events.h"
#include "guard.h"

extern char **environ;

static const char *user_name = "?";
static const BwshIdentity *user_id;
/* The session being launched, for its started event (announce()). */
static const BwshSession *session;
static const char *session_digest;
static const BwshLock *refused_lock; /* the lock admission refused the session for */
/* What a subject hears instead of die()'s line, whose detail (a policy's
 * file and line) is the administrator's: the event keeps the detail. */
static const char *subject_line;

static void die (int status, const char *fmt, ...) __attribute__ ((noreturn, format (printf, 2, 3)));

static void
die (int status, const char *fmt, ...)
{
  _cleanup_free_ char *msg = NULL;
  va_list ap;

  va_start (ap, fmt);
  msg = bwsh_vformat (fmt, ap);
  va_end (ap);
  fprintf (stderr, "bwsh: %s\n", subject_line != NULL ? subject_line : msg != NULL ? msg : "out of memory");
  bwsh_front_refused (user_id, user_name, msg != NULL ? msg : "out of memory", refused_lock);
  bwsh_front_ended (BWSH_END_REFUSED, msg != NULL ? msg : "out of memory");
  exit (status);
}

/* The one mapping from a failed step to an exit status (see the top). */
static int
exit_status (const BwshError *err)
{
  if (err->errnum == ENOMEM)
    return EX_OSERR;
  switch (err->code)
    {
    case BWSH_ERROR_POLICY:
    case BWSH_ERROR_USER_CONFIG:
      return EX_CONFIG;
    case BWSH_ERROR_SERVICE:
    case BWSH_ERROR_SHELL:
    case BWSH_ERROR_PLAN:
    case BWSH_ERROR_RESOLVE:
    case BWSH_ERROR_LOCKED:
    case BWSH_ERROR_LIMIT:
      return EX_NOPERM;
    case BWSH_ERROR_NETWORK:
    case BWSH_ERROR_LAUNCH:
    case BWSH_ERROR_RECORD:
      return EX_UNAVAILABLE;
    default:
      return EX_OSERR;
    }
}

static void die_error (const BwshError *err) __attribute__ ((noreturn));

/* One line for a core error, its step named by the code (see core/base/errors.c). */
static void
die_error (const BwshError *err)
{
  _cleanup_free_ char *msg = bwsh_error_to_string (err);

  die (msg != NULL ? exit_status (err) : EX_OSERR, "%s", msg != NULL ? msg : "out of memory");
}

static void die_launch (const BwshError *err) __attribute__ ((noreturn));

/* The launch failed (in a watched launch's child too): the launch names
 * the network and the recorder steps itself; anything else is the
 * launch's. */
static void
die_launch (const BwshError *err)
{
  BwshError e = *err;

  bwsh_error_step (&e, e.code == BWSH_ERROR_NETWORK || e.code == BWSH_ERROR_RECORD ? e.code : BWSH_ERROR_LAUNCH,
                   e.errnum != 0 ? -e.errnum : -EIO);
  die_error (&e);
}

/* The started event, which the launch writes once it knows whether the
 * session is recorded: for a recorded one, once tlog-rec has started bwrap
 * or has failed (shell/guard.c). */
static void
announce (const BwshCommand *cmd, BwshRecording recording)
{
  bwsh_front_started (session->id, session->plan, cmd, session_digest, session->admission->registered, recording);
}

static void usage_error (const char *what, const char *arg) __attribute__ ((noreturn));

static void
usage_error (const char *what, const char *arg)
{
  fprintf (stderr, "bwsh: %s: %s\nusage: bwsh [-l] [-c COMMAND [NAME [ARG...]]]\n", arg, what);
  exit (2);
}

/* No pam_bwsh registered this session (admission looked): bwsh registers it
 * itself, as the user, so that bwshctl sessions lists it, bwshctl lock ends
 * it and max_sessions counts it: exactly one entry per session.  Its pid is
 * bwsh's, which becomes bwrap's at the exec, so the entry lives as long as
 * the sandbox. */
static int
register_session (const BwshSession *s, const char *digest)
{
  BwshError err = { 0 };
  size_t live = 0;
  int r;

  r = bwsh_session_register (s, &(BwshRegistration) { .tty = ttyname (STDIN_FILENO), .plan_digest = digest }, NULL,
                             &live, &err);
  if (r == -EUSERS)
    die (EX_NOPERM, "%s has %zu sessions open, at most %u are allowed (max_sessions)", s->id->name, live,
         s->policy->max_sessions);
  if (r < 0 && s->policy->max_sessions > 0)
    {
      /* A limit that cannot be counted is not a limit. */
      _cleanup_free_ char *msg = bwsh_error_to_string (&err);
      die (EX_OSERR, "cannot count the sessions of %s for max_sessions: %s", s->id->name,
           msg != NULL ? msg : "out of memory");
    }
  if (r < 0)
    syslog (LOG_AUTHPRIV | LOG_WARNING, "session of %s not registered: %s", s->id->name, err.message);
  return r;
}

/* The policy cannot be read: at crit in the journal, with the file and
 * line; the user hears that the last good policy decides (lkg.h). */
static void
policy_fallback (const BwshSession *s, int r)
{
  const BwshFallbackReport rep = {
    .origin = "bwsh",
    .service = "bwsh",
    .said = { [BWSH_FALLBACK_REFUSED] = "no last good policy: refused",
              [BWSH_FALLBACK_LAST_GOOD] = "using the last policy that loaded cleanly" },
  };
  _cleanup_free_ char *line = NULL;
  /* pam_bwsh reported this broken version already, as root: 1. */
  int k = bwsh_fallback_report (s, r, &rep, &line);

  /* A subject hears one line; the file and the parse error are the
   * administrator's (the journal, bwshctl check).  The refusal's line is
   * die()'s, at the end of main(). */
  if (bwsh_fallback_of (s, r) == BWSH_FALLBACK_LAST_GOOD)
    fprintf (stderr, "bwsh: warning: %s\n",
             getuid () == 0 && line != NULL
                 ? line
                 : "the sandbox policy cannot be used (the administrator has the details); using the last policy "
                   "that loaded cleanly");
  else if (r < 0 && !s->policy_last_good && getuid () != 0)
    subject_line = "the sandbox policy cannot be used (the administrator has the details); no last good policy: "
                   "refused";
  if (k < 0)
    syslog (LOG_AUTHPRIV | LOG_CRIT, "%s", line != NULL ? line : "the sandbox policy cannot be used");
}

/* The session's TERM, as the sandbox gets it: what the recording says the
 * terminal was. */
static const char *
plan_term (const BwshPlan *p)
{
  for (size_t i = 0; i < p->n_env; i++)
    if (strncmp (p->env[i], "TERM=", 5) == 0)
      return p->env[i] + 5;
  return NULL;
}

static void
print_warnings (const BwshDiag *d)
{
  for (size_t i = 0; i < d->n; i++)
    fprintf (stderr, "bwsh: warning: %s\n", d->lines[i]);
}

int
main (int argc, char **argv)
{
  BwshSession *s = NULL;
  BwshCommand cmd = { 0 };
  BwshError err = { 0 };
  BwshRecording recording = BWSH_RECORDING_OFF;
  char digest[65];
  const char *announced;
  bool stdin_tty;
  int r;

  /* Nothing the caller left open may reach the sandbox: an inherited
   * directory fd is a way back to the host's filesystem. */
  if (close_range (3, ~0U, 0) < 0)
    for (int fd = 3; fd < 1024; fd++)
      close (fd);
  /* Hold BWSH_STARTED_FD for a guarded launch (guard.c), so that no fd of
   * the plan's takes its number: /dev/null, moved there. */
  {
    int fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && fd != BWSH_STARTED_FD && dup3 (fd, BWSH_STARTED_FD, O_CLOEXEC) >= 0)
      close (fd);
  }

  openlog ("bwsh", LOG_PID, LOG_AUTHPRIV);

  cmd.login = argv[0] != NULL && argv[0][0] == '-';
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      if (strcmp (a, "-l") == 0 || strcmp (a, "--login") == 0)
        cmd.login = true;
      else if (strcmp (a, "-c") == 0)
        {
          if (i + 1 >= argc)
            usage_error ("option requires an argument", "-c");
          cmd.has_command = true;
          cmd.command = argv[i + 1];
          /* sh -c CMD NAME ARGS: the rest is $0 $1 ..., whatever it looks like. */
          cmd.args = &argv[i + 2];
          cmd.n_args = (size_t) (argc - i - 2);
          break;
        }
      else if (strcmp (a, "--version") == 0)
        {
          printf ("bwsh %s\n", BWSH_VERSION);
          return 0;
        }
      else
        usage_error ("unsupported argument", a);
    }

  /* ForceCommand mode: sshd runs "$SHELL -c /usr/bin/bwsh" through the
   * user's unchanged login shell, with the client's command, if any, in
   * SSH_ORIGINAL_COMMAND.  sshd sets that variable only for forced
   * commands, and as a login shell bwsh is always given -c or a "-" argv[0]
   * by sshd, so honouring it here changes nothing else; whatever it holds
   * runs inside the sandbox like any -c command. */
  if (argc == 1 && !cmd.login)
    {
      const char *forced = getenv ("SSH_ORIGINAL_COMMAND");
      if (forced != NULL)
        {
          cmd.has_command = true;
          cmd.command = forced;
        }
      else if (getenv ("SSH_CONNECTION") != NULL)
        cmd.login = true; /* what sshd gives an interactive login */
    }

  if (getuid () != geteuid () || getgid () != getegid ())
    die (EX_CONFIG, "must not run setuid or setgid");

  BwshSessionRequest req = { .mode = BWSH_SESSION_RUN, .uid = getuid (), .envp = environ, .session_pid = getpid () };
  r = bwsh_session_prepare (&req, &s, &err);
  if (s != NULL && s->id != NULL)
    {
      user_name = s->id->name;
      user_id = s->id;
    }
  if (s != NULL && s->policy_fallback)
    policy_fallback (s, r);
  if (r < 0 && s != NULL && s->admission != NULL && s->admission->verdict == BWSH_ADMIT_LOCKED
      && s->admission->lock.target != NULL)
    refused_lock = &s->admission->lock;
  /* scp, sftp, rsync and git run one protocol command per transfer; the
   * overlay's warnings would repeat on the client's stderr at each of them.
   * They reach the user at a login, on an ssh command and in bwshctl check. */
  if (s != NULL && !bwsh_command_is_file_transfer (&cmd))
    {
      print_warnings (&s->diag);
      if (s->plan != NULL)
        print_warnings (&s->plan->diag);
    }
  if (r < 0)
    die_error (&err);

  /* pam_bwsh records the digest of the plan it checked; a different plan
   * now means the configuration changed in between, or someone set it. */
  announced = getenv ("BWSH_PLAN");
  bwsh_plan_digest (s->plan, digest);
  /* Recorded or not, decided before anything starts: with record =
   * "required", a recorder that cannot run refuses the session here, and
   * one that fails before it starts bwrap, in the launch. */
  /* Every session with a terminal, a command on a pty too: tlog-rec
   * records what stdin or stdout is a terminal for. */
  stdin_tty = isatty (STDIN_FILENO);
  r = bwsh_recording_decide (s->plan, stdin_tty || isatty (STDOUT_FILENO), &recording, &err);
  if (r < 0)
    die_error (&err);
  if (recording == BWSH_RECORDING_ON)
    {
      cmd.recorder = bwsh_tlog_rec_path ();
      cmd.term = plan_term (s->plan);
    }
  /* Without pam_bwsh's registration nobody else records the session; with
   * it, bwsh records what the session runs (announce()).  What bwrap does
   * after the exec no longer passes through bwsh: bwrap reports its own
   * errors on the terminal, and the shell's exit status in pam_bwsh's
   * status file (a watched launch copies it there: shell/guard.c).  A
   * kept state needs the registration: later logins read from it what
   * this session can change in the state (plan.h, home_epoch); unregistered,
   * the state is a tmpfs this time. */
  if (!s->admission->registered)
    {
      if (register_session (s, digest) < 0
          && bwsh_plan_state_to_tmpfs (s->plan, "this session cannot be registered, and a kept state needs it") > 0)
        {
          if (!bwsh_command_is_file_transfer (&cmd))
            fprintf (stderr, "bwsh: warning: %s\n", s->plan->diag.lines[s->plan->diag.n - 1]);
          bwsh_plan_digest (s->plan, digest);
        }
    }
  else
    /* pam_bwsh's file for the exit status, if it made one: bwrap writes
     * it, no process of bwsh's waits for the session (audit.h). */
    (void) bwsh_status_file_open (NULL, getenv ("BWSH_SESSION_ID"), s->id->uid, &cmd.status_fd);
  /* Where work is kept, once: at an interactive login, and before an
   * upload, whose client shows it with the failure (issue 38). */
  {
    _cleanup_free_ char *notice = NULL;
    if (bwsh_home_notice (s->plan, &cmd, stdin_tty && isatty (STDERR_FILENO), &notice) == 0
        && notice != NULL)
      fprintf (stderr, "bwsh: %s\n", notice);
  }
  session = s;
  session_digest = digest;
  if (announced != NULL && strcmp (announced, digest) != 0)
    syslog (LOG_AUTHPRIV | LOG_WARNING, "plan for %s differs from the one pam_bwsh checked (%.16s, now %.16s)",
            s->id->name, announced, digest);

  r = bwsh_launch (s->plan, &cmd, recording, announce, s->id->name, die_launch, &err);
  if (err.errnum == 0)
    err.errnum = r < 0 ? -r : EIO;
  die_launch (&err);
}
