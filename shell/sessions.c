/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl sessions [--json]
 *
 * The live sessions pam_bwsh registered, and how a session is ended (for
 * bwshctl lock and enforce).  lock, unlock and locks are locks.c's; all are
 * for root: the registry and the locks are root's files.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "locks.h"
#include "options.h"
#include "sessions.h"

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

/* A process as /proc/PID/status shows it. */
typedef struct
{
  pid_t pid, ppid;
  uid_t uid;
  uint64_t start; /* set by signal_subtree(): with pid, one process */
} Proc;

static int
read_procs (Proc **ret, size_t *ret_n)
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

/* Whether a recorder runs for the session: a process of its user, among
 * @v (read_procs()), that is tlog-rec (by its executable), in this pid
 * namespace (outside every sandbox: inside, the user could run tlog-rec
 * too), and @e's process or one of its descendants. */
static bool
recorded (const BwshSessionEntry *e, const Proc *v, size_t n)
{
  const char *want = bwsh_tlog_rec_path ();
  char self_ns[64], path[64], buf[PATH_MAX];
  ssize_t len;

  if ((len = readlink ("/proc/self/ns/pid", self_ns, sizeof self_ns - 1)) < 0)
    return false;
  self_ns[len] = '\0';
  for (size_t i = 0; i < n; i++)
    {
      pid_t p = v[i].pid;

      if (v[i].uid != e->uid)
        continue;
      snprintf (path, sizeof path, "/proc/%d/exe", (int) p);
      if ((len = readlink (path, buf, sizeof buf - 1)) < 0)
        continue;
      buf[len] = '\0';
      if (strcmp (buf, want) != 0)
        continue;
      snprintf (path, sizeof path, "/proc/%d/ns/pid", (int) p);
      if ((len = readlink (path, buf, sizeof buf - 1)) < 0)
        continue;
      buf[len] = '\0';
      if (strcmp (buf, self_ns) != 0)
        continue;
      /* Up the tree, as read, to the session's process. */
      for (size_t depth = 0; depth < n && p > 1; depth++)
        {
          size_t j;

          if (p == e->pid)
            return true;
          for (j = 0; j < n && v[j].pid != p; j++)
            ;
          if (j == n)
            break;
          p = v[j].ppid;
        }
    }
  return false;
}

/* The policy the session was opened under, as it reads now. */
static bool
policy_changed (const BwshSessionEntry *e)
{
  BwshIdentity *id = NULL;
  BwshPolicy *pol = NULL;
  BwshError err = { 0 };
  char now[65] = "";
  const char *path = e->policy_path[0] != '\0' ? e->policy_path : bwsh_policy_path ();
  int r;

  r = bwsh_identity_from_name (e->user, &id, &err);
  if (r >= 0)
    r = bwsh_policy_load (path, id, &pol, &err);
  if (r >= 0)
    r = bwsh_policy_digest (pol, now, &err);
  bwsh_policy_free (pol);
  bwsh_identity_free (id);
  /* A policy that no longer loads has changed too. */
  return r < 0 || strcmp (now, e->policy_digest) != 0;
}

enum
{
  OPT_JSON,
  OPT_HELP,
};

typedef struct
{
  bool json;
  bool help;
} Options;

/* sessions: --json, --help. */
static const CtlOption json_opts[] = {
  { "json", false, OPT_JSON },
  { "help", false, OPT_HELP },
  { "h", false, OPT_HELP },
};

static int
take_option (void *userdata, int id, const char *arg)
{
  Options *o = userdata;

  (void) arg;
  if (id == OPT_JSON)
    o->json = true;
  else
    o->help = true;
  return 0;
}

/* After the sessions: the locks, which refuse the next sessions. */
static void
print_lock_footer (void)
{
  BwshLock *v = NULL;
  size_t n = 0;

  if (bwsh_lock_list (NULL, &v, &n, NULL) < 0)
    return;
  for (size_t i = 0; i < n; i++)
    {
      _cleanup_free_ char *et = bwsh_escape (v[i].target, strlen (v[i].target));
      _cleanup_free_ char *er = bwsh_escape (v[i].reason, strlen (v[i].reason));
      printf ("locked: %s: %s (new sessions are refused; bwshctl locks)\n", et != NULL ? et : "?",
              er != NULL && er[0] != '\0' ? er : "no reason given");
      bwsh_lock_clear (&v[i]);
    }
  free (v);
}

/* One session, as a row of the table or an object appended to @arr (with
 * --json).  0, or -ENOMEM. */
static int
print_session (const BwshSessionEntry *e, const Proc *procs, size_t n_procs, bool json, json_t *arr)
{
  bool stale = policy_changed (e), rec = recorded (e, procs, n_procs);
  char when[32];
  struct tm tm;
  time_t t = (time_t) e->start;

  strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r (&t, &tm));
  if (json)
    {
      json_t *row = json_pack ("{s:s, s:I, s:s, s:s, s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:b}", "user", e->user,
                             "uid", (json_int_t) e->uid, "service", e->service, "rhost", e->rhost, "tty",
                             e->tty, "pid", (json_int_t) e->pid, "start", when, "command", e->command,
                             "plan_digest", e->plan_digest, "policy_digest", e->policy_digest, "policy",
                             e->policy_path, "policy_changed", stale, "registered_by",
                             e->by_bwsh ? "bwsh" : "pam_bwsh", "recorded", rec);
      if (row == NULL || arr == NULL || json_array_append_new (arr, row) < 0)
        return -ENOMEM;
    }
  else
    {
      _cleanup_free_ char *eu = bwsh_escape (e->user, strlen (e->user));
      _cleanup_free_ char *er = bwsh_escape (e->rhost, strlen (e->rhost));
      _cleanup_free_ char *ec = bwsh_escape (e->command, strlen (e->command));
      printf ("%-16s %7u %-10s %-16s %8d %-20s %-14s %-8s %s\n", eu != NULL ? eu : "?", (unsigned) e->uid,
              e->service, er != NULL ? er : "?", (int) e->pid, when, stale ? "changed" : "current",
              rec ? "tty" : "-", ec != NULL ? ec : "?");
    }
  return 0;
}

static int
cmd_sessions (int argc, char **argv)
{
  _cleanup_close_ int dirfd = -1;
  _cleanup_free_ Proc *procs = NULL;
  BwshSessionList l = { 0 };
  BwshError err = { 0 };
  Options o = { 0 };
  const char *operand;
  size_t n = 0, n_procs = 0;
  json_t *arr = NULL;
  bool json;
  int r;

  if (ctl_parse_options (argc, argv, json_opts, BWSH_N_ELEMENTS (json_opts), take_option, &o, &operand, 0, &n) < 0)
    return 2;
  if (o.help)
    {
      printf ("usage: bwshctl sessions [--json]\n");
      return 0;
    }
  json = o.json;
  if (bwshctl_need_root ("sessions") < 0)
    return 2;
  r = bwsh_registry_open (NULL, &dirfd, &err);
  if (r >= 0)
    r = bwsh_registry_list (dirfd, &l, &err);
  else if (r == -ENOENT)
    r = 0; /* no registry yet this boot: no sessions */
  if (dirfd >= 0)
    close (steal_fd (&dirfd));
  if (r < 0)
    {
      bwshctl_print_error ("cannot read the session registry", &err);
      return 1;
    }
  /* One read of the processes for every session's RECORDED column. */
  if (read_procs (&procs, &n_procs) < 0)
    n_procs = 0;
  if (json)
    arr = json_array ();
  else
    printf ("%-16s %7s %-10s %-16s %8s %-20s %-14s %-8s %s\n", "USER", "UID", "SERVICE", "RHOST", "PID", "START",
            "POLICY", "RECORDED", "COMMAND");
  for (size_t i = 0; i < l.n; i++)
    if (print_session (&l.items[i], procs, n_procs, json, arr) < 0)
      {
        json_decref (arr);
        bwsh_session_list_clear (&l);
        fprintf (stderr, "bwshctl: out of memory\n");
        return 1;
      }
  if (json)
    {
      _cleanup_free_ char *text = arr != NULL ? json_dumps (arr, JSON_INDENT (2)) : NULL;
      json_decref (arr);
      if (text == NULL)
        {
          bwsh_session_list_clear (&l);
          fprintf (stderr, "bwshctl: out of memory\n");
          return 1;
        }
      printf ("%s\n", text);
    }
  else
    print_lock_footer ();
  bwsh_session_list_clear (&l);
  return 0;
}

/* ------------------------------------------------------ ending sessions */

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

  if (read_procs (&v, &n) < 0 || (queue = calloc (n + 1, sizeof *queue)) == NULL)
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
bwshctl_sessions (const char *cmd, int argc, char **argv)
{
  if (strcmp (cmd, "sessions") == 0)
    return cmd_sessions (argc, argv);
  if (strcmp (cmd, "lock") == 0)
    return bwshctl_lock (argc, argv, true);
  if (strcmp (cmd, "unlock") == 0)
    return bwshctl_lock (argc, argv, false);
  if (strcmp (cmd, "locks") == 0)
    return bwshctl_locks (argc, argv);
  return -1;
}
