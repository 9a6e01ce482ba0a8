/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl enforce [--policy FILE]
 *
 * End the live sessions of every user a lock covers now (#39): a lock file
 * (`bwshctl lock`), the policy's lock_groups, or a membership that changed
 * since the session started (a user added to a locked group in the
 * directory keeps no session).  Each session's user is looked up through
 * NSS now, against the policy the session was opened under (or --policy).
 * pam_bwsh's close writes each session-ended event with end reason lock and
 * the lock's target, reason and source, from the note written here first.
 * bwsh-enforce.timer runs it every 30 s.
 *
 * Exit: 0 when every session a lock covers was ended (none: nothing to
 * do); 1 when a session could not be decided (its user or its policy
 * cannot be read: it is left running and named); 2 usage.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "bwshcore.h"
#include "cleanup.h"
#include "ctl_common.h"
#include "enforce.h"
#include "lkg.h"
#include "lockgroups.h"
#include "options.h"

enum
{
  OPT_POLICY,
  OPT_HELP,
};

typedef struct
{
  const char *policy;
  bool help;
} Options;

static int
take_option (void *userdata, int id, const char *arg)
{
  Options *o = userdata;

  if (id == OPT_POLICY)
    o->policy = arg;
  else
    o->help = true;
  return 0;
}

/* What covers one session: 1 a lock (in *ret), 0 none, -1 undecided (said). */
typedef struct
{
  int verdict;
  BwshLock lock;
} Decision;

static int
decide (const BwshSessionEntry *e, const char *policy_path, BwshLock *ret)
{
  _cleanup_ (bwsh_identity_freep) BwshIdentity *id = NULL;
  BwshPolicy *pol = NULL;
  BwshError err = { 0 };
  _cleanup_free_ char *eu = bwsh_escape (e->user, strlen (e->user));
  int64_t saved;
  int r;

  r = bwsh_identity_from_name (e->user, &id, &err);
  if (r >= 0)
    {
      r = bwsh_policy_load (policy_path, id, &pol, &err);
      /* A policy that cannot be read now: the one pam_bwsh would use. */
      if (r < 0 && bwsh_policy_lkg_load (policy_path, id, &pol, &saved, &(BwshError) { 0 }) >= 0)
        r = 0;
    }
  if (r >= 0)
    {
      r = bwsh_lock_covering (NULL, pol, id, ret, &err);
      if (r == -ENOENT)
        r = 0;
      else if (r >= 0)
        r = 1;
    }
  bwsh_policy_free (pol);
  if (r < 0)
    {
      _cleanup_free_ char *msg = bwsh_error_to_string (&err);
      fprintf (stderr, "bwshctl: enforce: cannot decide the session of %s (pid %d), left running: %s\n",
               eu != NULL ? eu : "?", (int) e->pid, msg != NULL && msg[0] != '\0' ? msg : strerror (-r));
      return -1;
    }
  return r;
}

/* Decide each live session (root's never): d[i] whether a lock covers it
 * now (-1: undecided), mine[i] whether to end it.  Each ended session of
 * pam_bwsh's gets a note naming its lock.  The number left undecided. */
static size_t
decide_all (const BwshSessionList *l, const char *policy, Decision *d, bool *mine)
{
  BwshError err = { 0 };
  size_t undecided = 0;

  for (size_t i = 0; i < l->n; i++)
    {
      const BwshSessionEntry *e = &l->items[i];
      const char *path = policy != NULL              ? policy
                         : e->policy_path[0] != '\0' ? e->policy_path
                                                     : bwsh_policy_path ();
      size_t j;

      if (e->uid == 0)
        continue;
      /* One decision per user and policy: the same lookups answer it. */
      for (j = 0; j < i; j++)
        if (strcmp (l->items[j].user, e->user) == 0 && strcmp (l->items[j].policy_path, e->policy_path) == 0
            && d[j].verdict >= 0)
          break;
      if (j < i)
        {
          d[i].verdict = d[j].verdict;
          if (d[j].verdict == 1
              && ((d[i].lock.target = strdup (d[j].lock.target)) == NULL
                  || (d[i].lock.reason = strdup (d[j].lock.reason)) == NULL
                  || (d[i].lock.by = strdup (d[j].lock.by)) == NULL))
            d[i].verdict = -1;
        }
      else
        d[i].verdict = decide (e, path, &d[i].lock);
      if (d[i].verdict < 0)
        undecided++;
      if (d[i].verdict != 1)
        continue;
      mine[i] = true;
      /* pam_bwsh's close names the lock on the session-ended event. */
      if (!e->by_bwsh && bwsh_lock_note_write (NULL, e->id, &d[i].lock, &err) < 0)
        {
          _cleanup_free_ char *msg = bwsh_error_to_string (&err);
          fprintf (stderr, "bwshctl: enforce: warning: %s\n", msg != NULL ? msg : "?");
        }
    }
  return undecided;
}

/* One line per session it ended. */
static void
print_ended (const BwshSessionEntry *e, const BwshLock *lock)
{
  _cleanup_free_ char *eu = bwsh_escape (e->user, strlen (e->user));
  _cleanup_free_ char *et = bwsh_escape (lock->target, strlen (lock->target));
  _cleanup_free_ char *eb = bwsh_escape (lock->by, strlen (lock->by));
  bool policy = bwsh_lock_is_policy (lock);

  printf ("ended: %s's session (pid %d, %s): locked by %s (%s%s)\n", eu != NULL ? eu : "?", (int) e->pid, e->service,
          et != NULL ? et : "?", policy ? "" : "lock file, set by ", eb != NULL && eb[0] != '\0' ? eb : "-");
}

int
bwshctl_enforce (int argc, char **argv)
{
  static const CtlOption opts[] = {
    { "policy", true, OPT_POLICY },
    { "help", false, OPT_HELP },
    { "h", false, OPT_HELP },
  };
  _cleanup_free_ Decision *d = NULL;
  _cleanup_free_ bool *mine = NULL;
  BwshSessionList l = { 0 };
  BwshError err = { 0 };
  Options o = { 0 };
  const char *operand;
  size_t n = 0, undecided = 0, ended = 0;

  if (ctl_parse_options (argc, argv, opts, BWSH_N_ELEMENTS (opts), take_option, &o, &operand, 0, &n) < 0)
    return 2;
  if (o.help)
    {
      printf ("usage: bwshctl enforce [--policy FILE]\n");
      return 0;
    }
  if (getuid () != 0)
    {
      fprintf (stderr, "bwshctl: enforce is for root (the session registry and the locks are root's)\n");
      return 2;
    }
  if (bwsh_registry_read (NULL, &l, &err) < 0)
    {
      _cleanup_free_ char *msg = bwsh_error_to_string (&err);
      fprintf (stderr, "bwshctl: enforce: cannot read the session registry: %s\n", msg != NULL ? msg : "?");
      return 1;
    }
  d = calloc (l.n + 1, sizeof *d);
  mine = calloc (l.n + 1, sizeof *mine);
  if (d == NULL || mine == NULL)
    {
      bwsh_session_list_clear (&l);
      fprintf (stderr, "bwshctl: out of memory\n");
      return 1;
    }
  undecided = decide_all (&l, o.policy, d, mine);
  ended = bwshctl_end_sessions (&l, mine);
  for (size_t i = 0; i < l.n; i++)
    {
      if (mine[i])
        print_ended (&l.items[i], &d[i].lock);
      bwsh_lock_clear (&d[i].lock);
    }
  /* The timer runs this every 30 s: silent when there was nothing to do. */
  if (ended == 0 && undecided == 0 && isatty (STDOUT_FILENO))
    printf ("no session to end\n");
  bwsh_session_list_clear (&l);
  return undecided > 0 ? 1 : 0;
}
