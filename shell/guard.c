/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A guarded launch: bwrap as bwsh's child, for a plan with entries of the
 * user's (bwsh_plan_guards_setup()).  Everything bwsh checks before the
 * launch is meant to make what `bwshctl check` accepts mountable; this is
 * the net under it.  If bwrap ends before the inner stub says the sandbox
 * is set up, the session starts again without the user's entries, with a
 * warning naming them, instead of refusing every login until an
 * administrator edits the user's overlay (issue 24).  Plans without user
 * entries keep the plain exec: bwsh costs one exec and no process.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "events.h"
#include "guard.h"

static volatile sig_atomic_t child_pid;

/* What ends the session from outside (sshd's SIGHUP, bwshctl lock's
 * SIGTERM) reaches bwrap; bwrap's --die-with-parent covers a SIGKILL. */
static void
forward (int sig)
{
  if (child_pid > 0)
    kill ((pid_t) child_pid, sig);
}

static void
set_handlers (bool waiting)
{
  struct sigaction fw = { .sa_handler = forward }, ign = { .sa_handler = SIG_IGN }, dfl = { .sa_handler = SIG_DFL };

  sigemptyset (&fw.sa_mask);
  sigemptyset (&ign.sa_mask);
  sigemptyset (&dfl.sa_mask);
  fw.sa_flags = SA_RESTART;
  sigaction (SIGHUP, waiting ? &fw : &dfl, NULL);
  sigaction (SIGTERM, waiting ? &fw : &dfl, NULL);
  /* The terminal's own keys are for the session, as with system(3). */
  sigaction (SIGINT, waiting ? &ign : &dfl, NULL);
  sigaction (SIGQUIT, waiting ? &ign : &dfl, NULL);
}

/* The guarded attempt.  Returns 1 when the sandbox was set up, when bwrap
 * ended with status 0 before it (a stand-in that runs nothing), or when
 * bwsh's own launch failed in the child ("E": it said why), with the
 * child's wait status in *ret_status; 0 when bwrap's setup failed; -errno
 * when bwsh could not run it at all. */
static int
attempt (const BwshPlan *p, const BwshCommand *cmd, void (*fail) (const BwshError *), int *ret_status)
{
  int fds[2], status = 0;
  ssize_t n;
  char b;
  pid_t pid, parent = getppid ();

  if (pipe2 (fds, O_CLOEXEC) < 0)
    return -errno;
  /* Unguarded, bwrap's parent is the service's process (sshd's session
   * process, su), and --die-with-parent ends the sandbox with it: an ssh
   * client that goes away takes its commands along.  Guarded, bwsh is in
   * between and must die with that process the same way, or bwrap would
   * outlive it: then bwrap's --die-with-parent follows bwsh. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) < 0)
    {
      int e = errno;
      close (fds[0]);
      close (fds[1]);
      return -e;
    }
  if (getppid () != parent)
    raise (SIGKILL);
  pid = fork ();
  if (pid < 0)
    {
      int e = errno;
      close (fds[0]);
      close (fds[1]);
      return -e;
    }
  if (pid == 0)
    {
      BwshError err = { 0 };

      /* The write end at the number the stub writes to, open across the
       * exec of bwrap (dup2 clears FD_CLOEXEC). */
      if (dup2 (fds[1], BWSH_STARTED_FD) < 0)
        _exit (127);
#if BWSH_TEST_BUILD
      /* tests/overlay: a setup failure that no check of bwsh's foresees;
       * bwrap is handed a pipe for the user's first entry, which it
       * cannot find as a source. */
      if (getenv ("BWSH_TEST_BREAK_SETUP") != NULL)
        for (size_t i = 0; i < p->n_mounts; i++)
          if (p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED && p->mounts[i].from.origin == BWSH_ORIGIN_USER
              && p->mounts[i].fd >= 0)
            {
              int pp[2];
              if (pipe (pp) < 0 || dup2 (pp[0], p->mounts[i].fd) < 0)
                _exit (127);
              break;
            }
#endif
      /* This child becomes tlog-rec: a recording of its own per attempt. */
      bwsh_front_recording (cmd);
      bwsh_exec_plan (p, cmd, bwsh_bwrap_path (), &err);
      /* bwsh's own failure (the network, the exec), not bwrap's setup:
       * no second attempt would fare better.  Say so, then fail as bwsh
       * fails, with its message and exit status. */
      (void) !write (BWSH_STARTED_FD, "E", 1);
      fail (&err);
      _exit (127);
    }
  close (fds[1]);
  child_pid = pid;
  set_handlers (true);
  do
    n = read (fds[0], &b, 1);
  while (n < 0 && errno == EINTR);
  close (fds[0]);
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  child_pid = 0;
  set_handlers (false);
  *ret_status = status;
  return n == 1 || (WIFEXITED (status) && WEXITSTATUS (status) == 0) ? 1 : 0;
}

/* Leave the user's entries out and say which. */
static int
drop_user_entries (BwshPlan *p, const char *user)
{
  _cleanup_free_ char *list = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&list, &len);

  if (f == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      BwshMount *m = &p->mounts[i];
      _cleanup_free_ char *dest = NULL;

      if (m->verdict != BWSH_VERDICT_ACCEPTED || m->from.origin != BWSH_ORIGIN_USER)
        continue;
      dest = bwsh_escape (m->dest, strlen (m->dest));
      if (m->from.file != NULL)
        fprintf (f, "%s%s:%d:%d: %s", len > 0 ? ", " : "", m->from.file, m->from.line, m->from.column,
                 dest != NULL ? dest : "?");
      else
        fprintf (f, "%s%s", len > 0 ? ", " : "", dest != NULL ? dest : "?");
      fflush (f);
      m->verdict = BWSH_VERDICT_SKIPPED;
      if (m->fd >= 0)
        close (m->fd);
      m->fd = -1;
    }
  if (fclose (f) != 0)
    return -ENOMEM;
  fprintf (stderr,
           "bwsh: warning: bwrap could not set the sandbox up with your entries (its message is above); "
           "this session runs without your entries: %s\n",
           list != NULL ? list : "");
  syslog (LOG_AUTHPRIV | LOG_WARNING, "session of %s started again without the user's entries: %s", user,
          list != NULL ? list : "");
  return 0;
}

int
bwsh_guarded_launch (BwshPlan *p, const BwshCommand *cmd, const char *user, void (*fail) (const BwshError *),
                     BwshError *err)
{
  int status = 0;
  int r = attempt (p, cmd, fail, &status);

  if (r < 0)
    return bwsh_error_set (err, r, NULL, 0, 0, "cannot start bwrap: %s", strerror (-r));
  if (r > 0)
    {
      if (WIFSIGNALED (status))
        {
          signal (WTERMSIG (status), SIG_DFL);
          raise (WTERMSIG (status));
        }
      exit (WIFEXITED (status) ? WEXITSTATUS (status) : 1);
    }
  r = drop_user_entries (p, user);
  if (r < 0)
    return bwsh_error_set (err, r, NULL, 0, 0, "out of memory");
  /* Nothing of the user's is left: the plain exec, unguarded. */
  bwsh_front_recording (cmd);
  return bwsh_exec_plan (p, cmd, bwsh_bwrap_path (), err);
}
