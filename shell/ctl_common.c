/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What bwshctl's session commands share, below all of them: how a message
 * and a refusal for non-root are printed, how a session is ended (for
 * bwshctl lock and enforce), and the policy's locks (for bwshctl locks).
 * The commands themselves are sessions.c's, locks.c's and enforce.c's, and
 * bwshctl.c picks one; none calls another.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "ctl_common.h"
#include "lockgroups.h"

void
bwshctl_print_error (const char *what, const BwshError *err)
{
  _cleanup_free_ char *msg = bwsh_error_to_string (err);

  fprintf (stderr, "bwshctl: %s: %s\n", what, msg != NULL ? msg : "out of memory");
}

int
bwshctl_need_root (const char *cmd)
{
  if (getuid () == 0)
    return 0;
  fprintf (stderr, "bwshctl: %s is for root (the session registry and the locks are root's)\n", cmd);
  return -1;
}

int
bwshctl_read_procs (Proc **ret, size_t *ret_n)
{
  _cleanup_closedir_ DIR *d = opendir ("/proc");
  Proc *v = NULL;
  size_t n = 0;
  struct dirent *de;

  if (d == NULL)
    return -errno;
  while ((de = readdir (d)) != NULL)
    {
      char path[64], line[256];
      _cleanup_fclose_ FILE *f = NULL;
      Proc p = { .pid = (pid_t) strtol (de->d_name, NULL, 10), .ppid = -1, .uid = (uid_t) -1 };
      Proc *grown;

      if (p.pid <= 0)
        continue;
      snprintf (path, sizeof path, "/proc/%d/status", (int) p.pid);
      f = fopen (path, "re");
      if (f == NULL)
        continue;
      while (fgets (line, sizeof line, f) != NULL)
        {
          unsigned u;
          int pp;
          if (sscanf (line, "PPid: %d", &pp) == 1)
            p.ppid = pp;
          else if (sscanf (line, "Uid: %u", &u) == 1)
            p.uid = u;
        }
      grown = realloc (v, (n + 1) * sizeof *v);
      if (grown == NULL)
        {
          free (v);
          return -ENOMEM;
        }
      v = grown;
      v[n++] = p;
    }
  *ret = v;
  *ret_n = n;
  return 0;
}

static void
sleep_ms (long ms)
{
  struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
}

/* The processes bwshctl_end_sessions() signalled, each once: pid and start time. */
typedef struct
{
  Proc *v;
  size_t n;
} Killed;

static void
killed_add (Killed *k, const Proc *p)
{
  Proc *grown;

  for (size_t i = 0; i < k->n; i++)
    if (k->v[i].pid == p->pid && k->v[i].start == p->start)
      return;
  grown = realloc (k->v, (k->n + 1) * sizeof *k->v);
  if (grown == NULL)
    return; /* then it is not waited for: the lock still ends it */
  k->v = grown;
  k->v[k->n++] = *p;
}

/* Signal every process below @root that runs as @uid: the sandbox (bwrap,
 * its pid namespace and all in it, the network helper and pasta) and the
 * service's own unprivileged part (sshd's user@ process).  The privileged
 * process that opened the session is left alone: it notices, runs
 * close_session and removes the entry.  Children are signalled before their
 * parents: a child whose parent died first would be re-parented out of the
 * tree before the next pass could find it (pasta, outside the sandbox's pid
 * namespace, did exactly that).  Each one signalled is added to @killed
 * (if not NULL).  Returns how many were signalled. */
static size_t
signal_subtree (pid_t root, uid_t uid, int sig, Killed *killed)
{
  _cleanup_free_ Proc *v = NULL;
  _cleanup_free_ size_t *queue = NULL;
  size_t n = 0, head = 0, tail = 0, hit = 0;

  if (bwshctl_read_procs (&v, &n) < 0 || (queue = calloc (n + 1, sizeof *queue)) == NULL)
    return 0;
  for (;;)
    {
      pid_t parent = head == 0 && tail == 0 ? root : v[queue[head++]].pid;
      for (size_t i = 0; i < n && tail < n; i++)
        if (v[i].ppid == parent)
          queue[tail++] = i;
      if (head >= tail)
        break;
    }
  while (tail-- > 0)
    {
      Proc *q = &v[queue[tail]];
      /* The start time is read before the signal, for those remembered only. */
      if (q->uid != uid || (killed != NULL && bwsh_pid_stat (q->pid, &q->start, NULL) < 0))
        continue;
      if (kill (q->pid, sig) == 0)
        {
          hit++;
          if (killed != NULL)
            killed_add (killed, q);
        }
    }
  return hit;
}

/* A killed process is gone once /proc has no such pid, the pid belongs to
 * a newer process, or it is a zombie (it runs no more; its parent reaps
 * it).  Until then it may still hold what it held, and it may already be
 * out of the tree: a child whose parent was reaped first is re-parented,
 * so an empty tree does not mean that everything killed has exited. */
static bool
killed_alive (const Proc *p)
{
  uint64_t start;
  char state;

  return bwsh_pid_stat (p->pid, &start, &state) == 0 && start == p->start && state != 'Z' && state != 'X';
}

/* SIGKILL whatever of @k still runs, wherever it was re-parented to, until
 * none does or @budget_ms passed; returns how many still run. */
static size_t
finish_killed (const Killed *k, long budget_ms)
{
  size_t alive = 0;

  for (long waited = 0;; waited += 20)
    {
      alive = 0;
      for (size_t i = 0; i < k->n; i++)
        if (killed_alive (&k->v[i]))
          {
            alive++;
            (void) kill (k->v[i].pid, SIGKILL);
          }
      if (alive == 0 || waited >= budget_ms)
        return alive;
      sleep_ms (20);
    }
}

/* SIGHUP (a shell's "the terminal went away"), then SIGKILL for whatever is
 * left half a second later, until nothing is left below the session's pid;
 * then SIGKILL and wait for every process signalled on the way that still
 * runs elsewhere (re-parented), so that when this returns none of the
 * session runs any more. */
size_t
bwshctl_end_sessions (const BwshSessionList *l, const bool *mine)
{
  Killed killed = { 0 };
  size_t ended = 0, alive;

  for (size_t i = 0; i < l->n; i++)
    if (mine[i])
      {
        signal_subtree (l->items[i].pid, l->items[i].uid, SIGHUP, &killed);
        ended++;
      }
  for (int round = 0; round < 10 && ended > 0; round++)
    {
      size_t left = 0;
      sleep_ms (50);
      for (size_t i = 0; i < l->n; i++)
        if (mine[i])
          left += signal_subtree (l->items[i].pid, l->items[i].uid, 0, NULL);
      if (left == 0)
        break;
    }
  /* A pid namespace whose init was killed is torn down by the kernel one
   * task at a time; with a thousand tasks in it (a fork bomb at its nproc
   * limit) that takes a while on a loaded machine: keep at it for up to 1.5 s
   * rather than return while the tasks are still there. */
  for (int round = 0; round < 30 && ended > 0; round++)
    {
      size_t left = 0;
      for (size_t i = 0; i < l->n; i++)
        if (mine[i])
          left += signal_subtree (l->items[i].pid, l->items[i].uid, SIGKILL, &killed);
      if (left == 0)
        break;
      sleep_ms (50);
    }
  alive = finish_killed (&killed, 3000);
  if (alive > 0)
    fprintf (stderr, "bwshctl: warning: %zu killed processes of the sessions had not exited after 3 s\n", alive);
  free (killed.v);
  return ended;
}

int
bwshctl_policy_locks (const char *policy_path, BwshLock **v, size_t *n)
{
  _cleanup_ (bwsh_identity_freep) BwshIdentity *root = NULL;
  BwshPolicy *pol = NULL;
  BwshError err = { 0 };
  const char *path = policy_path != NULL ? policy_path : bwsh_policy_path ();
  int r;

  r = bwsh_identity_from_uid (0, &root, &err);
  if (r >= 0)
    r = bwsh_policy_load (path, root, &pol, &err);
  if (r < 0)
    {
      _cleanup_free_ char *msg = bwsh_error_to_string (&err);
      fprintf (stderr, "bwshctl: cannot read the policy's lock groups: %s\n", msg != NULL ? msg : "?");
      return r;
    }
  for (size_t i = 0; i < pol->lock_groups.n && r >= 0; i++)
    {
      BwshLock *grown = realloc (*v, (*n + 1) * sizeof **v);
      if (grown == NULL)
        r = -ENOMEM;
      else
        {
          *v = grown;
          /* As it locks a member: the same target, reason and source. */
          pol->lock_group = (int) i;
          r = bwsh_policy_lock (pol, &(*v)[*n]);
          if (r >= 0)
            (*n)++;
        }
    }
  bwsh_policy_free (pol);
  if (r < 0)
    fprintf (stderr, "bwshctl: out of memory\n");
  return r;
}
