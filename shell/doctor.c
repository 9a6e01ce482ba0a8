/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl doctor: what on this machine would weaken or break bwsh.
 *
 * Each check prints one finding, "ok:", "note:", "warning:" or "error:",
 * followed for the last two by a "fix:" line that says what to change.
 * Exit status: 0 when nothing is wrong, 1 when the worst finding is a
 * warning, 2 when there is an error (or on a usage error).
 *
 * The doctor only reads: files under /etc, /proc/sys and /sys, and the
 * output of `bwrap --version`, `bwrap --help`, a bwrap run as an
 * unprivileged user, and `sshd -T`.  Commands run with an argv vector, a
 * fixed environment, stdin on /dev/null and a timeout; never through a shell.
 *
 * This file holds the order of the checks, the policy and lock checks and
 * the options; the findings are doctor_report.c's, and the checks are in
 * files by family: doctor_sandbox.c (bwrap, user
 * namespaces, AppArmor, Landlock, TIOCSTI), doctor_network.c (the network
 * engine), doctor_record.c (the recorder and the journal's budget) and
 * doctor_services.c (/etc/shells, each PAM service, sshd).
 *
 * Test builds (BWSH_TEST_BUILD) accept --root DIR, --sshd CMD and --bwrap CMD
 * so that the tests can point every file and command at fixtures.  An
 * installed build has no such options: what it reports is the machine.
 */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "doctor.h"
#include "doctor_network.h"
#include "doctor_record.h"
#include "doctor_report.h"
#include "doctor_sandbox.h"
#include "doctor_services.h"
#include "options.h"

#define SSHD_PATH "/usr/sbin/sshd"

/* ------------------------------------------------------------------ lock */

/* --user: a lock (bwshctl lock) refuses every new session of the user. */
static void
check_lock (Doctor *d)
{
  BwshLock l = { 0 };
  BwshError err = { 0 };
  int r;

  if (d->subject == NULL)
    return;
  r = bwsh_lock_find (NULL, d->subject, &l, &err);
  if (r == -ENOENT)
    {
      finding (d, LEVEL_OK, NULL, "lock: %s is not locked", d->subject->name);
      return;
    }
  if (r < 0)
    {
      finding (d, LEVEL_ERROR, NULL, "lock: cannot read the locks of %s: %s", d->subject->name, err.message);
      return;
    }
  {
    _cleanup_free_ char *et = bwsh_escape (l.target, strlen (l.target));
    _cleanup_free_ char *er = bwsh_escape (l.reason, strlen (l.reason));
    _cleanup_free_ char *eb = bwsh_escape (l.by, strlen (l.by));
    _cleanup_free_ char *fix = NULL;
    char when[32] = "?";
    struct tm tm;
    time_t t = (time_t) l.since;

    if (l.since > 0)
      strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r (&t, &tm));
    if (asprintf (&fix, "bwshctl unlock %s, when the lock is over", et != NULL ? et : "?") < 0)
      fix = NULL;
    finding (d, LEVEL_WARNING, fix, "lock: sessions of %s are locked (%s, since %s, by %s): %s; every login of %s is refused",
             et != NULL ? et : "?", et != NULL && et[0] == '@' ? "a group lock" : "a user lock", when,
             eb != NULL && eb[0] != '\0' ? eb : "?", er != NULL && er[0] != '\0' ? er : "no reason given",
             d->subject->name);
  }
  bwsh_lock_clear (&l);
}

/* ----------------------------------------------------------------- policy */

static void
check_policy (Doctor *d)
{
  const char *path = d->policy_path != NULL ? d->policy_path : bwsh_policy_path ();
  BwshError err = { 0 };
  BwshIdentity *id = d->subject;
  struct stat st;
  int r;

  if (id == NULL)
    {
      r = bwsh_identity_from_uid (getuid (), &id, &err);
      if (r < 0)
        {
          finding (d, LEVEL_ERROR, "check the passwd database (getent passwd)", "cannot identify the caller: %s",
                   err.message);
          return;
        }
    }
  r = bwsh_policy_load (path, id, &d->policy, &err);
  if (id != d->subject)
    bwsh_identity_free (id);
  if (r < 0)
    {
      _cleanup_free_ char *msg = bwsh_error_to_string (&err);
      finding (d, LEVEL_ERROR, "correct the policy file, then run `bwshctl check`",
               "policy: %s (every session is refused until this is fixed)", msg != NULL ? msg : "out of memory");
      d->policy = NULL;
      (void) bwsh_policy_new_defaults (&d->policy);
      return;
    }
  if (stat (path, &st) < 0)
    finding (d, LEVEL_NOTE, NULL, "policy: %s does not exist; the built-in defaults apply", path);
  else
    finding (d, LEVEL_OK, NULL, "policy: %s is valid", path);
}

/* ----------------------------------------------------------------- main */

static int
usage (FILE *f, int code)
{
  fprintf (f, "usage: bwshctl doctor [--user USER] [--policy FILE]"
#if BWSH_TEST_BUILD
              " [--root DIR] [--sshd CMD] [--bwrap CMD]"
#endif
              "\n");
  return code;
}

static int
set_option (void *userdata, int id, const char *arg)
{
  Doctor *d = userdata;

  switch (id)
    {
    case 'u':
      d->user = arg;
      break;
    case 'p':
      d->policy_path = arg;
      break;
#if BWSH_TEST_BUILD
    case 'R':
      d->root = arg;
      break;
    case 'S':
      d->sshd = arg;
      break;
    case 'B':
      d->bwrap = arg;
      d->bwrap_overridden = true;
      break;
#endif
    case 'h':
      d->help = true;
      break;
    default:
      return -1;
    }
  return 0;
}

int
bwshctl_doctor (int argc, char **argv)
{
  static const CtlOption opts[] = {
    { "user", true, 'u' },
    { "policy", true, 'p' },
    { "help", false, 'h' },
    { "h", false, 'h' },
#if BWSH_TEST_BUILD
    { "root", true, 'R' },
    { "sshd", true, 'S' },
    { "bwrap", true, 'B' },
#endif
  };
  Doctor d = { .root = "", .sshd = SSHD_PATH, .bwrap = bwsh_bwrap_path () };
  BwrapInfo bw;
  AppArmorInfo aa;
  BwshError err = { 0 };
  size_t n = 0;

  if (ctl_parse_options (argc, argv, opts, BWSH_N_ELEMENTS (opts), set_option, &d, NULL, 0, &n) < 0)
    return usage (stderr, 2);
  if (d.help)
    return usage (stdout, 0);
  if ((d.bwrap[0] != '/' || d.sshd[0] != '/'))
    {
      fprintf (stderr, "bwshctl doctor: commands must be absolute paths\n");
      return 2;
    }
  if (d.user != NULL && bwsh_identity_from_name (d.user, &d.subject, &err) < 0)
    {
      fprintf (stderr, "bwshctl doctor: %s\n", err.message);
      return 2;
    }

  check_policy (&d);
  check_lock (&d);
  check_bwrap (&d, &bw);
  check_apparmor (&d, &aa);
  check_userns (&d, &bw, &aa);
  check_landlock (&d);
  check_network (&d);
  check_tiocsti (&d);
  check_recording (&d);
  check_journal_budget (&d);
  check_shells (&d);
  check_pam (&d);
  check_sshd (&d);

  printf ("doctor: %d error%s, %d warning%s\n", d.errors, d.errors == 1 ? "" : "s", d.warnings,
          d.warnings == 1 ? "" : "s");
  fflush (stdout);
  bwsh_policy_free (d.policy);
  bwsh_identity_free (d.subject);
  return d.errors > 0 ? 2 : d.warnings > 0 ? 1 : 0;
}
