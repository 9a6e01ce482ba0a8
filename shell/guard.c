/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A watched launch: bwrap as bwsh's child, for a plan with entries of the
 * user's (bwsh_plan_guards_setup()) and for a recorded session.
 *
 * Entries of the user's: everything bwsh checks before the launch is meant
 * to make what `bwshctl check` accepts mountable; this is the net under it.
 * If bwrap ends before the inner stub says the sandbox is set up, the
 * session starts again without the user's entries, with a warning naming
 * them, instead of refusing every login until an administrator edits the
 * user's overlay (issue 24).
 *
 * A recorded session: tlog-rec may exist and still fail before it runs
 * bwrap (its journal, its configuration, utmp).  bwrap says on its status
 * fd (--json-status-fd) that it has started; until it does, nothing of the
 * session ran, and record = "required" refuses it while "tty" starts it
 * again unrecorded, as when tlog-rec is missing (issue 28).  Its started
 * and recording events wait for that word, so that they never claim a
 * recording that did not happen.
 *
 * After the start the recording is still watched (issue 36): tlog-rec's
 * stderr is a pipe bwsh reads and passes on, and a recorder that reports
 * anything there once bwrap runs (tlog writes only its errors: "Failed
 * flushing the log"), that ends on its own without bwrap's exit code, or
 * with a status other than bwrap's, has failed: the session's recording
 * event is followed by one saying BWSH_RECORDING=failed, and record =
 * "required" ends the session (the recorder killed, bwrap follows it by
 * --die-with-parent) with exit status 69.
 *
 * tlog-rec switches the terminal to raw mode with TCSAFLUSH, which discards
 * what the user typed before (a paste right after connecting, an expect
 * script): bwsh takes that input off the terminal just before it starts the
 * recorder and gives it back (TIOCSTI, on the session's own controlling
 * terminal) once tlog's switch is done, so that it reaches the shell through
 * tlog and its recording.  Input typed between those two moments is lost
 * (bwsh.conf(5), RECORDING, gives the window).
 *
 * Other sessions keep the plain exec: bwsh costs one exec and no process.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <syslog.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "events.h"
#include "guard.h"

/* How long a recorder may take to start bwrap: tlog-rec connects to the
 * journal, adds a utmp record and forks, which takes milliseconds; a
 * recorder still silent after this is taken as failed, and killed. */
#define RECORDER_START_TIMEOUT_MS (30 * 1000)
/* How long after bwrap started bwsh waits for tlog's raw mode before it
 * gives the type-ahead back: tlog switches right after it forks bwrap. */
#define RECORDER_RAW_TIMEOUT_MS 2000
/* Type-ahead bwsh keeps: a pasted screenful. */
#define TYPEAHEAD_MAX 4096

typedef struct Launch
{
  BwshPlan *plan;
  BwshCommand cmd; /* a copy: a recorder that failed is dropped from it */
  BwshRecording recording;
  void (*announce) (const BwshCommand *cmd, BwshRecording recording);
  void (*fail) (const BwshError *err);
  bool announced;
  char status[256];   /* the last of what bwrap wrote on the watched status pipe */
  size_t n_status;
  char typeahead[TYPEAHEAD_MAX];
  size_t n_typeahead;
  bool canonical;     /* the terminal was in canonical mode before tlog-rec */
  int64_t taken_ms;   /* when bwsh took the type-ahead */
  int64_t given;      /* bytes given back, for the recording event; -1: none */
  int64_t window_ms;  /* from the take to tlog's switch of the terminal; -1: not known */
  bool rec_failed;    /* the recorder failed after it started bwrap */
  char rec_why[256];
} Launch;

/* How an attempt ended. */
typedef enum
{
  ATTEMPT_RAN,             /* the session ran; or bwsh's own launch failed in the child, which said why */
  ATTEMPT_SETUP_FAILED,    /* bwrap ended before the stub said the sandbox was set up */
  ATTEMPT_RECORDER_FAILED, /* the recorder ended before it started bwrap */
  ATTEMPT_RECORDER_HUNG,   /* the recorder did not start bwrap in time, and was killed */
} Attempt;

static volatile sig_atomic_t child_pid, forwarded;

/* What ends the session from outside (sshd's SIGHUP, bwshctl lock's
 * SIGTERM) reaches bwrap; bwrap's --die-with-parent covers a SIGKILL. */
static void
forward (int sig)
{
  if (child_pid > 0)
    {
      forwarded = sig;
      kill ((pid_t) child_pid, sig);
    }
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

/* Announce the session once, when it is known whether it is recorded. */
static void
announce (Launch *l, BwshRecording recording)
{
  if (!l->announced)
    l->announce (&l->cmd, recording);
  l->announced = true;
}

static int
now_ms (int64_t *ret)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_MONOTONIC, &ts) < 0)
    return -errno;
  *ret = (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
  return 0;
}

/* What bwrap wrote on the watched status pipe, passed on to pam_bwsh's
 * status file (@file_fd, if the session has one), which expects bwrap's
 * own lines: the start, then the exit code. */
static void
copy_status (Launch *l, int file_fd, const char *buf, size_t n)
{
  size_t keep = sizeof l->status - 1;

  if (file_fd > 2)
    (void) !write (file_fd, buf, n);
  /* Its last line, { "exit-code": N }, is what tlog-rec must end with. */
  if (n >= keep)
    {
      memcpy (l->status, buf + n - keep, keep);
      l->n_status = keep;
    }
  else
    {
      if (l->n_status + n > keep)
        {
          size_t drop = l->n_status + n - keep;
          memmove (l->status, l->status + drop, l->n_status - drop);
          l->n_status -= drop;
        }
      memcpy (l->status + l->n_status, buf, n);
      l->n_status += n;
    }
  l->status[l->n_status] = '\0';
}

/* The exit code bwrap reported for the session's program, or -1. */
static int
status_exit_code (const Launch *l)
{
  const char *k = NULL, *s = l->status;
  char *end;
  long v;

  while ((s = strstr (s, "\"exit-code\"")) != NULL)
    k = s++;
  if (k == NULL || (k = strchr (k, ':')) == NULL)
    return -1;
  errno = 0;
  v = strtol (k + 1, &end, 10);
  if (errno != 0 || end == k + 1 || v < 0 || v > 255)
    return -1;
  return (int) v;
}

/* The rest of it, once the child is gone: bwrap wrote its exit code
 * before it ended, and no writer is left (or one killed with the child). */
static void
drain_status (Launch *l, int status_fd, int file_fd)
{
  char buf[256];
  ssize_t n;

  if (fcntl (status_fd, F_SETFL, O_NONBLOCK) < 0)
    return;
  while ((n = read (status_fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0)
      copy_status (l, file_fd, buf, (size_t) n);
}

/* Whether the recorder started bwrap, which says so on bwrap's status fd
 * (--json-status-fd) as soon as it has cloned the sandbox: ATTEMPT_RAN if
 * it did; ATTEMPT_RECORDER_FAILED when every holder of the write end is
 * gone (the recorder ended); ATTEMPT_RECORDER_HUNG when the time ran out,
 * and then the recorder is killed. */
static Attempt
recorder_started (Launch *l, int status_fd, int file_fd, pid_t pid, int64_t deadline)
{
  struct pollfd pfd = { .fd = status_fd, .events = POLLIN };
  char buf[256];
  int64_t now = 0;
  ssize_t n;
  int r;

  for (;;)
    {
      if (now_ms (&now) < 0)
        now = deadline;
      r = poll (&pfd, 1, now >= deadline ? 0 : (int) (deadline - now));
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        {
          (void) kill (pid, SIGKILL);
          return ATTEMPT_RECORDER_HUNG;
        }
      do
        n = read (status_fd, buf, sizeof buf);
      while (n < 0 && errno == EINTR);
      if (n > 0)
        copy_status (l, file_fd, buf, (size_t) n);
      return n > 0 ? ATTEMPT_RAN : ATTEMPT_RECORDER_FAILED;
    }
}

/* Pass on what the recorder wrote on its stderr: the bytes read, 0 at its
 * end, < 0 when nothing is there (a non-blocking read). */
static ssize_t
pass_stderr (int fd)
{
  char buf[1024];
  ssize_t n;

  do
    n = read (fd, buf, sizeof buf);
  while (n < 0 && errno == EINTR);
  if (n > 0)
    (void) !write (STDERR_FILENO, buf, (size_t) n);
  return n;
}

/* What the user typed before the recorder starts, taken off the terminal
 * before tlog-rec's TCSAFLUSH discards it.  Non-canonical for a moment, so
 * that a line not yet ended is read too. */
static void
typeahead_take (Launch *l)
{
  struct termios t, raw;
  ssize_t n;

  l->n_typeahead = 0;
  l->canonical = false;
  l->given = -1;
  l->window_ms = -1;
  /* Only in the terminal's foreground: a background job that sets it
   * would be stopped (SIGTTOU), and what is typed is not its own. */
  if (tcgetpgrp (STDIN_FILENO) != getpgrp () || tcgetattr (STDIN_FILENO, &t) < 0 || !(t.c_lflag & ICANON)
      || now_ms (&l->taken_ms) < 0)
    return;
  l->canonical = true;
  raw = t;
  raw.c_lflag &= ~ICANON;
  raw.c_cc[VMIN] = 0;
  raw.c_cc[VTIME] = 0;
  if (tcsetattr (STDIN_FILENO, TCSANOW, &raw) < 0)
    return;
  do
    n = read (STDIN_FILENO, l->typeahead, sizeof l->typeahead);
  while (n < 0 && errno == EINTR);
  if (n > 0)
    l->n_typeahead = (size_t) n;
  (void) tcsetattr (STDIN_FILENO, TCSANOW, &t);
}

/* Give it back as input of the terminal, once tlog has switched it to raw
 * mode (@wait_raw: its flush is done then), or to an unrecorded session. */
static void
typeahead_give (Launch *l, bool wait_raw)
{
  struct termios t;
  int64_t deadline = 0, now = 0;
  size_t i;

  if (l->n_typeahead == 0)
    return;
  if (wait_raw && l->canonical && now_ms (&deadline) == 0)
    {
      deadline += RECORDER_RAW_TIMEOUT_MS;
      while (tcgetattr (STDIN_FILENO, &t) == 0 && (t.c_lflag & ICANON) && now_ms (&now) == 0 && now < deadline)
        {
          struct timespec ms = { .tv_nsec = 1000 * 1000 };
          nanosleep (&ms, NULL);
        }
    }
  /* What was typed in between is lost: the window, for the recording
   * event and bwsh.conf(5). */
  if (wait_raw && l->canonical && now_ms (&now) == 0)
    l->window_ms = now - l->taken_ms;
  l->given = (int64_t) l->n_typeahead;
  for (i = 0; i < l->n_typeahead; i++)
    if (ioctl (STDIN_FILENO, TIOCSTI, &l->typeahead[i]) < 0)
      break;
  if (i < l->n_typeahead)
    fprintf (stderr, "bwsh: warning: %zu bytes typed before the session started are lost: %s\n",
             l->n_typeahead - i, strerror (errno));
  l->n_typeahead = 0;
}

/* The recorder ran the session: did the recording hold to its end?  It
 * failed if it reported an error (@said), or ended otherwise than with the
 * exit code bwrap reported for the session's program. */
static void
recorder_held (Launch *l, int status, bool said)
{
  int code = status_exit_code (l);

  if (said)
    snprintf (l->rec_why, sizeof l->rec_why, "failed after it started the sandbox: it reported an error");
  else if (WIFSIGNALED (status))
    snprintf (l->rec_why, sizeof l->rec_why, "failed after it started the sandbox: it was killed by signal %d",
              WTERMSIG (status));
  else if (code < 0 || !WIFEXITED (status) || WEXITSTATUS (status) != code)
    snprintf (l->rec_why, sizeof l->rec_why,
              "failed after it started the sandbox: it exited with status %d before the session ended",
              WIFEXITED (status) ? WEXITSTATUS (status) : -1);
  else
    return;
  l->rec_failed = true;
}

static int
pipe_pair (int *ret_r, int *ret_w)
{
  int fds[2];

  if (pipe2 (fds, O_CLOEXEC) < 0)
    return -errno;
  *ret_r = fds[0];
  *ret_w = fds[1];
  return 0;
}

/* tlog-rec (the child @pid) until it started bwrap, or failed to by
 * @deadline; what it said meanwhile is passed on, not held against it.  A
 * started recording is announced.  ATTEMPT_RAN when it started. */
static Attempt
recorder_start (Launch *l, pid_t pid, int status_r, int err_r, int64_t deadline)
{
  Attempt result = recorder_started (l, status_r, l->cmd.status_fd, pid, deadline);

  /* What it said before it started bwrap (its notice, a warning), or why
   * it did not. */
  if (fcntl (err_r, F_SETFL, O_NONBLOCK) == 0)
    while (pass_stderr (err_r) > 0)
      ;
  if (result == ATTEMPT_RAN)
    {
      /* tlog-rec is this child: the recording id is of its pid. */
      announce (l, BWSH_RECORDING_ON);
      typeahead_give (l, true);
      bwsh_front_recording (pid, l->given, l->window_ms);
    }
  return result;
}

/* The attempt's child: bwrap's "started" pipe at BWSH_STARTED_FD, then
 * the launch (as tlog-rec when recorded); it returns only when bwsh itself
 * failed. */
static _Noreturn void
attempt_child (Launch *l, bool recorded, int started_w, int status_w, int err_w)
{
  BwshError err = { 0 };

  /* The write end at the number the stub writes to, open across the
   * exec of bwrap (dup2 clears FD_CLOEXEC). */
  if (dup2 (started_w, BWSH_STARTED_FD) < 0)
    _exit (127);
#if BWSH_TEST_BUILD
  /* tests/overlay: a setup failure that no check of bwsh's foresees;
   * bwrap is handed a pipe for the user's first entry, which it
   * cannot find as a source. */
  if (getenv ("BWSH_TEST_BREAK_SETUP") != NULL)
    for (size_t i = 0; i < l->plan->n_mounts; i++)
      if (l->plan->mounts[i].verdict == BWSH_VERDICT_ACCEPTED
          && l->plan->mounts[i].from.origin == BWSH_ORIGIN_USER && l->plan->mounts[i].fd >= 0)
        {
          int pp[2];
          if (pipe (pp) < 0 || dup2 (pp[0], l->plan->mounts[i].fd) < 0)
            _exit (127);
          break;
        }
#endif
  /* This child becomes tlog-rec, and bwrap tells on status_w (which
   * the parent copies to the session's status file). */
  if (recorded)
    {
      l->cmd.status_fd = status_w;
      l->cmd.recorder_stderr_fd = err_w;
    }
  bwsh_exec_plan (l->plan, &l->cmd, bwsh_bwrap_path (), &err);
  /* bwsh's own failure (the network, the exec), not bwrap's setup:
   * no second attempt would fare better.  Say so, then fail as bwsh
   * fails, with its message and exit status. */
  (void) !write (BWSH_STARTED_FD, "E", 1);
  l->fail (&err);
  _exit (127);
}

/* Until tlog-rec ends (it alone holds the stderr pipe @err_r): a word from
 * it now is an error, and record = "required" ends the session at once.
 * Its wait status. */
static int
wait_recorder (Launch *l, pid_t pid, int status_r, int err_r)
{
  bool said = false;
  int status = 0;
  ssize_t k;

  if (fcntl (err_r, F_SETFL, 0) == 0)
    while ((k = pass_stderr (err_r)) > 0)
      if (!said && forwarded == 0)
        {
          said = true;
          if (l->plan->record == BWSH_RECORD_REQUIRED)
            (void) kill (pid, SIGKILL);
        }
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  drain_status (l, status_r, l->cmd.status_fd);
  if (forwarded == 0)
    recorder_held (l, status, said);
  return status;
}

/* One watched attempt: bwrap (under its recorder, if any) as bwsh's child.
 * Returns an Attempt with the child's wait status in *ret_status, or
 * -errno when bwsh could not run it at all. */
static int
attempt (Launch *l, int *ret_status)
{
  _cleanup_close_ int started_r = -1, started_w = -1, status_r = -1, status_w = -1, err_r = -1, err_w = -1;
  bool guard = bwsh_plan_guards_setup (l->plan), recorded = l->cmd.recorder != NULL;
  Attempt result = ATTEMPT_RAN;
  int status = 0, r;
  int64_t deadline = 0;
  ssize_t n = 0;
  char b = 0;
  pid_t pid, parent = getppid ();

  l->rec_failed = false;
  if ((r = pipe_pair (&started_r, &started_w)) < 0
      || (recorded && ((r = pipe_pair (&status_r, &status_w)) < 0 || (r = pipe_pair (&err_r, &err_w)) < 0)))
    return r;
  /* Unguarded, bwrap's parent is the service's process (sshd's session
   * process, su), and --die-with-parent ends the sandbox with it: an ssh
   * client that goes away takes its commands along.  Guarded, bwsh is in
   * between and must die with that process the same way, or bwrap would
   * outlive it: then bwrap's --die-with-parent follows bwsh. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) < 0)
    return -errno;
  if (getppid () != parent)
    raise (SIGKILL);
  if (recorded && (r = now_ms (&deadline)) < 0)
    return r;
  deadline += RECORDER_START_TIMEOUT_MS;
  if (recorded)
    typeahead_take (l);
  pid = fork ();
  if (pid < 0)
    return -errno;
  if (pid == 0)
    attempt_child (l, recorded, started_w, status_w, err_w);
  close (steal_fd (&started_w));
  if (status_w >= 0)
    close (steal_fd (&status_w));
  if (err_w >= 0)
    close (steal_fd (&err_w));
  child_pid = pid;
  forwarded = 0;
  set_handlers (true);
  /* The read end of bwrap's status stays open until bwrap is gone: bwrap
   * writes its exit code there too, and a closed pipe would kill it with
   * SIGPIPE instead. */
  if (recorded)
    result = recorder_start (l, pid, status_r, err_r, deadline);
  if (result == ATTEMPT_RAN && guard)
    {
      do
        n = read (started_r, &b, 1);
      while (n < 0 && errno == EINTR);
    }
  if (recorded && result == ATTEMPT_RAN)
    status = wait_recorder (l, pid, status_r, err_r);
  else
    {
      while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
      if (recorded)
        while (pass_stderr (err_r) > 0)
          ;
    }
  if (result != ATTEMPT_RAN)
    {
      struct pollfd pfd = { .fd = started_r, .events = POLLIN };
      /* bwsh's own failure in the child ("E", it said why), or a session
       * that sshd or bwshctl lock ended meanwhile: not the recorder's. */
      if (forwarded != 0 || (poll (&pfd, 1, 0) == 1 && read (started_r, &b, 1) == 1 && b == 'E'))
        result = ATTEMPT_RAN;
    }
  else if (guard && n != 1 && !(WIFEXITED (status) && WEXITSTATUS (status) == 0))
    /* Ended before the stub said the sandbox was set up; status 0 is a
     * stand-in that runs nothing. */
    result = ATTEMPT_SETUP_FAILED;
  child_pid = 0;
  set_handlers (false);
  *ret_status = status;
  return result;
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

/* The recorder failed before it started bwrap: what happened, for a
 * message that names the recorder first. */
static void
recorder_failure (Attempt a, int status, char *buf, size_t size)
{
  if (a == ATTEMPT_RECORDER_HUNG)
    snprintf (buf, size, "did not start the sandbox within %d s and was killed", RECORDER_START_TIMEOUT_MS / 1000);
  else if (WIFEXITED (status))
    snprintf (buf, size, "failed before it started the sandbox: it exited with status %d", WEXITSTATUS (status));
  else
    snprintf (buf, size, "failed before it started the sandbox: it was killed by signal %d",
              WIFSIGNALED (status) ? WTERMSIG (status) : 0);
}

int
bwsh_launch (BwshPlan *p, const BwshCommand *cmd, BwshRecording recording,
             void (*announce_fn) (const BwshCommand *cmd, BwshRecording recording),
             const char *user, void (*fail) (const BwshError *), BwshError *err)
{
  Launch l = { .plan = p, .cmd = *cmd, .recording = recording, .announce = announce_fn, .fail = fail };
  char why[128];
  int status = 0, r;

  for (;;)
    {
      /* Unrecorded: its started event now.  Without entries of the
       * user's too: the plain exec, unwatched, one exec and no process. */
      if (l.cmd.recorder == NULL)
        announce (&l, l.recording);
      if (l.cmd.recorder == NULL && !bwsh_plan_guards_setup (p))
        return bwsh_exec_plan (p, &l.cmd, bwsh_bwrap_path (), err);
      r = attempt (&l, &status);
      if (r < 0)
        return bwsh_error_set (err, r, NULL, 0, 0, "cannot start bwrap: %s", strerror (-r));
      if (r == ATTEMPT_RAN && l.rec_failed)
        {
          bwsh_front_recording_failed (l.rec_why);
          syslog (LOG_AUTHPRIV | LOG_ERR, "recording of the session of %s: the recorder %s %s", user,
                  l.cmd.recorder, l.rec_why);
          if (p->record == BWSH_RECORD_REQUIRED)
            {
              fprintf (stderr, "bwsh: the session was ended: record = \"required\" and the recorder %s %s\n",
                       l.cmd.recorder, l.rec_why);
              bwsh_front_ended (BWSH_END_RECORDING_FAILED, l.rec_why);
              exit (EX_UNAVAILABLE);
            }
          fprintf (stderr, "bwsh: warning: the recorder %s %s; the session is not recorded from there on "
                   "(record = \"tty\")\n", l.cmd.recorder, l.rec_why);
        }
      if (r == ATTEMPT_RAN)
        {
          if (WIFSIGNALED (status))
            {
              signal (WTERMSIG (status), SIG_DFL);
              raise (WTERMSIG (status));
            }
          exit (WIFEXITED (status) ? WEXITSTATUS (status) : 1);
        }
      if (r == ATTEMPT_SETUP_FAILED)
        {
          r = drop_user_entries (p, user);
          if (r < 0)
            return bwsh_error_set (err, r, NULL, 0, 0, "out of memory");
          continue;
        }
      /* The recorder exists (bwsh_recording_decide()) but failed on its
       * way to bwrap (its journal, its configuration, utmp): nothing of
       * the session ran.  "required" refuses it, "tty" runs it
       * unrecorded, and its event says the recorder failed. */
      recorder_failure (r, status, why, sizeof why);
      if (p->record == BWSH_RECORD_REQUIRED)
        {
          bwsh_error_set (err, -EIO, NULL, 0, 0, "record = \"required\" and the recorder %s %s", l.cmd.recorder,
                          why);
          return bwsh_error_step (err, BWSH_ERROR_RECORD, -EIO);
        }
      fprintf (stderr, "bwsh: warning: the recorder %s %s; this session runs unrecorded (record = \"tty\")\n",
               l.cmd.recorder, why);
      l.cmd.recorder = NULL;
      l.recording = BWSH_RECORDING_FAILED;
      typeahead_give (&l, false);
    }
}
