/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl sessions [--json]
 *
 * The live sessions pam_bwsh registered.  For root: the registry is root's
 * file.  How a session is ended (for bwshctl lock and enforce) is
 * ctl_common.c's; lock, unlock and locks are locks.c's.
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
#include "ctl_common.h"
#include "options.h"
#include "sessions.h"


/* Whether a recorder runs for the session: a process of its user, among
 * @v (bwshctl_read_procs()), that is tlog-rec (by its executable), in this pid
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

int
bwshctl_sessions (int argc, char **argv)
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
  if (bwshctl_read_procs (&procs, &n_procs) < 0)
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
