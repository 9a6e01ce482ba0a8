/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl lock USER|@GROUP [--reason TEXT] [--policy FILE]
 * bwshctl unlock USER|@GROUP
 * bwshctl locks [--json] [--policy FILE]
 *
 * The locks that end a user's sandboxes and refuse their next logins, each
 * change an event that names the administrator.  For root: the locks are
 * root's files.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "ctl_common.h"
#include "locks.h"
#include "options.h"

enum
{
  OPT_JSON,
  OPT_REASON,
  OPT_POLICY,
  OPT_HELP,
};

typedef struct
{
  bool json;
  bool help;
  const char *reason;
  const char *policy;
} Options;

static int
take_option (void *userdata, int id, const char *arg)
{
  Options *o = userdata;

  switch (id)
    {
    case OPT_JSON:
      o->json = true;
      break;
    case OPT_REASON:
      o->reason = arg;
      break;
    case OPT_POLICY:
      o->policy = arg;
      break;
    default:
      o->help = true;
      break;
    }
  return 0;
}

/* The lock's own rule (core's bwsh_lock_applies), for the registered user. */
static bool
target_matches (const char *target, const BwshSessionEntry *e)
{
  BwshIdentity *id = NULL;
  bool in;

  if (target[0] != '@')
    return strcmp (target, e->user) == 0;
  if (bwsh_identity_from_name (e->user, &id, NULL) < 0)
    return false;
  in = bwsh_lock_applies (target, id);
  bwsh_identity_free (id);
  return in;
}

static size_t
end_sessions (const char *target)
{
  _cleanup_close_ int dirfd = -1;
  BwshSessionList l = { 0 };
  _cleanup_free_ bool *mine = NULL;
  size_t ended;

  if (bwsh_registry_open (NULL, &dirfd, NULL) < 0 || bwsh_registry_list (dirfd, &l, NULL) < 0)
    return 0;
  close (steal_fd (&dirfd));
  mine = calloc (l.n + 1, sizeof *mine);
  if (mine == NULL)
    {
      bwsh_session_list_clear (&l);
      return 0;
    }
  for (size_t i = 0; i < l.n; i++)
    mine[i] = target_matches (target, &l.items[i]);
  ended = bwshctl_end_sessions (&l, mine);
  bwsh_session_list_clear (&l);
  return ended;
}

static char *acting_admin (void);

/* The lock or unlock event names the administrator (BWSH_LOCK_BY, and in
 * its message): once a lock is lifted, the journal is where who set it and
 * who lifted it remain. */
static void
lock_event (const char *target, const char *outcome, const char *reason, size_t ended)
{
  BwshEvent ev = BWSH_EVENT_INIT (BWSH_EVENT_LOCK);
  _cleanup_free_ char *line = NULL, *et = bwsh_escape (target, strlen (target));
  _cleanup_free_ char *er = reason != NULL ? bwsh_escape (reason, strlen (reason)) : NULL;
  _cleanup_free_ char *by = acting_admin ();

  if (asprintf (&line, "sessions of %s %s by %s%s%s%s; %zu live sessions ended", et != NULL ? et : "?", outcome,
                by != NULL ? by : "?", er != NULL ? " (reason \"" : "", er != NULL ? er : "", er != NULL ? "\")" : "",
                ended)
      < 0)
    line = NULL;
  ev.origin = "bwshctl";
  ev.message = line;
  ev.outcome = outcome;
  ev.lock_by = by;
  ev.reason = reason;
  ev.lock_target = target;
  ev.sessions = (int64_t) ended;
  if (target[0] != '@')
    {
      struct passwd *pw = getpwnam (target);
      ev.user = target;
      if (pw != NULL)
        ev.uid = pw->pw_uid;
    }
  if (line == NULL || bwsh_event_send (&ev) < 0)
    {
      openlog ("bwshctl", LOG_PID, LOG_AUTHPRIV);
      syslog (LOG_AUTHPRIV | LOG_NOTICE, "%s", line != NULL ? line : "lock changed");
      closelog ();
    }
}

/* Who runs bwshctl: the login uid's name (the kernel's record of who
 * logged in, which su and sudo keep), else sudo's SUDO_USER, else root. */
static char *
acting_admin (void)
{
  _cleanup_close_ int fd = open ("/proc/self/loginuid", O_RDONLY | O_CLOEXEC);
  const char *sudo = getenv ("SUDO_USER");
  char buf[32];
  ssize_t len = fd >= 0 ? read (fd, buf, sizeof buf - 1) : -1;
  unsigned long v;
  char *end;

  if (len > 0)
    {
      buf[len] = '\0';
      errno = 0;
      v = strtoul (buf, &end, 10);
      if (errno == 0 && end != buf && v != 0 && v < 4294967295UL)
        {
          struct passwd *pw = getpwuid ((uid_t) v);
          char *name = NULL;
          if (pw != NULL)
            return strdup (pw->pw_name);
          if (asprintf (&name, "uid %lu", v) < 0)
            return NULL;
          return name;
        }
    }
  return strdup (sudo != NULL && sudo[0] != '\0' ? sudo : "root");
}

/* A lock must hold: refuse a name NSS does not know, and one that is not
 * a subject of the policy (pam_bwsh leaves a non-subject alone, so their
 * sshd, su or login with another shell would ignore the lock).  A group is
 * a subject when the policy confines everybody, names it in
 * subjects.groups, or names one of its members in subjects.users.
 * 0, or -1 with the message printed. */
static int
lock_target_is_subject (const char *target, const char *policy_path)
{
  BwshPolicy *pol = NULL;
  BwshIdentity *id = NULL;
  BwshError err = { 0 };
  const char *path = policy_path != NULL ? policy_path : bwsh_policy_path ();
  _cleanup_free_ char *et = bwsh_escape (target, strlen (target));
  bool subject = false;
  int r;

  if (target[0] != '@')
    {
      if (getpwnam (target) == NULL)
        {
          fprintf (stderr, "bwshctl: no user \"%s\": nothing locked\n", et != NULL ? et : "?");
          return -1;
        }
      r = bwsh_identity_from_name (target, &id, &err);
    }
  else
    {
      struct group *gr = getgrnam (target + 1);
      if (gr == NULL)
        {
          fprintf (stderr, "bwshctl: no group \"%s\": nothing locked\n", et != NULL ? et + 1 : "?");
          return -1;
        }
      r = bwsh_identity_from_uid (0, &id, &err);
    }
  if (r >= 0)
    r = bwsh_policy_load (path, id, &pol, &err);
  if (r < 0)
    {
      bwsh_identity_free (id);
      bwshctl_print_error ("cannot read the policy to check the lock's target", &err);
      return -1;
    }
  if (target[0] != '@')
    subject = pol->is_subject;
  else
    {
      struct group *gr = getgrnam (target + 1);
      subject = pol->subject_all || bwsh_bind_list_contains (&pol->subject_groups, target + 1);
      for (size_t i = 0; gr != NULL && !subject && i < pol->subject_users.n; i++)
        {
          const char *u = pol->subject_users.items[i].src;
          struct passwd *pw = getpwnam (u);
          if (pw != NULL && pw->pw_gid == gr->gr_gid)
            subject = true;
          for (char **m = gr->gr_mem; m != NULL && *m != NULL && !subject; m++)
            subject = strcmp (*m, u) == 0;
        }
    }
  bwsh_identity_free (id);
  bwsh_policy_free (pol);
  if (!subject)
    {
      fprintf (stderr,
               "bwshctl: %s is not a subject of %s: pam_bwsh leaves its sessions alone, so a lock would not hold; "
               "nothing locked (add it to subjects)\n",
               et != NULL ? et : "?", path);
      return -1;
    }
  return 0;
}

/* bwshctl unlock TARGET: the exit code. */
static int
unlock_target (const char *target)
{
  BwshError err = { 0 };
  int r;

  r = bwsh_lock_remove (NULL, target, &err);
  if (r == -ENOENT)
    {
      fprintf (stderr, "bwshctl: %s is not locked\n", target);
      return 1;
    }
  if (r < 0)
    {
      bwshctl_print_error ("cannot unlock", &err);
      return 1;
    }
  lock_event (target, "unlocked", NULL, 0);
  printf ("%s unlocked\n", target);
  return 0;
}

/* bwshctl lock TARGET: the lock, then the end of TARGET's live sessions.
 * The exit code. */
static int
lock_target (const char *target, const char *reason)
{
  BwshError err = { 0 };
  BwshLock l = {
    .target = strdup (target),
    .reason = strdup (reason != NULL ? reason : ""),
    .by = acting_admin (),
    .since = (int64_t) time (NULL),
  };
  size_t ended;
  int r;

  /* The lock first: a login racing with the kill is refused. */
  r = l.target != NULL && l.reason != NULL && l.by != NULL ? bwsh_lock_write (NULL, &l, &err)
                                                           : bwsh_error_set (&err, -ENOMEM, NULL, 0, 0, "out of memory");
  bwsh_lock_clear (&l);
  if (r < 0)
    {
      bwshctl_print_error ("cannot lock", &err);
      return 1;
    }
  ended = end_sessions (target);
  lock_event (target, "locked", reason, ended);
  printf ("%s locked; %zu live sessions ended\n", target, ended);
  return 0;
}

int
bwshctl_lock (int argc, char **argv, bool lock)
{
  static const CtlOption lock_opts[] = {
    { "reason", true, OPT_REASON },
    { "policy", true, OPT_POLICY },
    { "help", false, OPT_HELP },
    { "h", false, OPT_HELP },
  };
  static const CtlOption unlock_opts[] = {
    { "help", false, OPT_HELP },
    { "h", false, OPT_HELP },
  };
  const char *name = lock ? "lock" : "unlock", *reason, *target = NULL;
  Options o = { 0 };
  size_t n = 0;

  if (ctl_parse_options (argc, argv, lock ? lock_opts : unlock_opts,
                         lock ? BWSH_N_ELEMENTS (lock_opts) : BWSH_N_ELEMENTS (unlock_opts), take_option, &o, &target,
                         1, &n)
      < 0)
    return 2;
  if (o.help)
    {
      printf ("usage: bwshctl lock USER|@GROUP [--reason TEXT] [--policy FILE]\n       bwshctl unlock USER|@GROUP\n");
      return 0;
    }
  if (n != 1)
    {
      fprintf (stderr, "bwshctl: %s takes one USER or @GROUP\n", name);
      return 2;
    }
  reason = o.reason;
  if (!bwsh_lock_target_valid (target))
    {
      _cleanup_free_ char *e = bwsh_escape (target, strlen (target));
      fprintf (stderr, "bwshctl: \"%s\" is not a user or @group name\n", e != NULL ? e : "?");
      return 2;
    }
  if (reason != NULL && (strlen (reason) > 256 || strpbrk (reason, "\n\r") != NULL))
    {
      fprintf (stderr, "bwshctl: the reason must be one line of at most 256 bytes\n");
      return 2;
    }
  if (bwshctl_need_root (name) < 0)
    return 2;

  if (!lock)
    return unlock_target (target);
  if (lock_target_is_subject (target, o.policy) < 0)
    return 1;
  return lock_target (target, reason);
}

static int
lock_cmp (const void *a, const void *b)
{
  return strcmp (((const BwshLock *) a)->target, ((const BwshLock *) b)->target);
}

/* One lock, as a row of the table or an object appended to @arr (with
 * --json); @from_file: a lock file's, else one of the policy's lock groups.
 * 0, or -ENOMEM. */
static int
print_lock (const BwshLock *l, bool from_file, bool json, json_t *arr)
{
  char when[32] = "-";
  struct tm tm;
  time_t t = (time_t) l->since;

  if (l->since > 0)
    strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r (&t, &tm));
  if (json)
    {
      json_t *row = json_pack ("{s:s, s:s, s:s, s:s, s:s}", "target", l->target, "since", when, "by",
                               l->by, "reason", l->reason, "source", from_file ? "file" : "policy");
      if (row == NULL || json_array_append_new (arr, row) < 0)
        return -ENOMEM;
    }
  else
    {
      _cleanup_free_ char *et = bwsh_escape (l->target, strlen (l->target));
      _cleanup_free_ char *eb = bwsh_escape (l->by, strlen (l->by));
      _cleanup_free_ char *er = bwsh_escape (l->reason, strlen (l->reason));
      printf ("%-24s %-20s %-16s %s\n", et != NULL ? et : "?", when, eb != NULL && eb[0] != '\0' ? eb : "-",
              er != NULL && er[0] != '\0' ? er : "-");
    }
  return 0;
}

/* bwshctl locks [--json]: every lock, with its reason, since when and who
 * set it; text escaped (a reason is one line, but a file may say anything). */
int
bwshctl_locks (int argc, char **argv)
{
  BwshLock *v = NULL;
  BwshError err = { 0 };
  Options o = { 0 };
  const char *operand;
  size_t n = 0, nl = 0;
  json_t *arr = NULL;
  int ret = 0;

  static const CtlOption locks_opts[] = {
    { "json", false, OPT_JSON },
    { "policy", true, OPT_POLICY },
    { "help", false, OPT_HELP },
    { "h", false, OPT_HELP },
  };
  size_t nf;

  if (ctl_parse_options (argc, argv, locks_opts, BWSH_N_ELEMENTS (locks_opts), take_option, &o, &operand, 0, &n) < 0)
    return 2;
  if (o.help)
    {
      printf ("usage: bwshctl locks [--json] [--policy FILE]\n");
      return 0;
    }
  if (bwshctl_need_root ("locks") < 0)
    return 2;
  if (bwsh_lock_list (NULL, &v, &nl, &err) < 0)
    {
      bwshctl_print_error ("cannot read the locks", &err);
      return 1;
    }
  if (nl > 1)
    qsort (v, nl, sizeof *v, lock_cmp);
  /* Then the policy's lock groups (#39), in the policy's order. */
  nf = nl;
  if (bwshctl_policy_locks (o.policy, &v, &nl) < 0)
    ret = 1;
  if (o.json && (arr = json_array ()) == NULL)
    ret = -ENOMEM;
  if (!o.json && nl == 0)
    printf ("no locks\n");
  else if (!o.json)
    printf ("%-24s %-20s %-16s %s\n", "TARGET", "SINCE", "BY", "REASON");
  for (size_t i = 0; i < nl && ret >= 0; i++)
    if (print_lock (&v[i], i < nf, o.json, arr) < 0)
      ret = -ENOMEM;
  if (o.json && ret >= 0)
    {
      _cleanup_free_ char *text = json_dumps (arr, JSON_INDENT (2));
      if (text == NULL)
        ret = -ENOMEM;
      else
        printf ("%s\n", text);
    }
  json_decref (arr);
  for (size_t i = 0; i < nl; i++)
    bwsh_lock_clear (&v[i]);
  free (v);
  if (ret < 0)
    {
      fprintf (stderr, "bwshctl: out of memory\n");
      return 1;
    }
  return ret;
}
