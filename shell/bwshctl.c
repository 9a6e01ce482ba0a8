/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl: the administrator's view of bwsh.
 *
 *   bwshctl check [--user USER] [--policy FILE] [--user-config FILE] [--resolve]
 *   bwshctl explain [USER] [--user USER] [--json] [--policy FILE] [--user-config FILE]
 *   bwshctl doctor [--user USER] [--policy FILE]
 *
 * check and explain prepare the session with core's one entry point, in a
 * mode that creates nothing: what they report is what bwsh would run.
 *
 * Exit codes: 0 fine, 1 invalid (check), an error, or warnings (doctor),
 * 2 usage error (and errors for doctor).
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "enforce.h"
#include "lockgroups.h"
#include "checks.h"
#include "doctor.h"
#include "locks.h"
#include "options.h"
#include "sessions.h"

extern char **environ;

static int
usage (FILE *f, int code)
{
  fprintf (f,
           "usage: bwshctl check [--user USER] [--policy FILE] [--user-config FILE] [--resolve] [--strict]\n"
           "       bwshctl explain [USER] [--user USER] [--json] [--policy FILE] [--user-config FILE]\n"
           "       bwshctl doctor [--user USER] [--policy FILE]\n"
           "       bwshctl sessions [--json]\n"
           "       bwshctl lock USER|@GROUP [--reason TEXT] [--policy FILE]\n"
           "       bwshctl unlock USER|@GROUP\n"
           "       bwshctl locks [--json] [--policy FILE]\n"
           "       bwshctl enforce [--policy FILE]\n"
           "       bwshctl --version\n");
  return code;
}

static void
print_error (const char *prefix, const BwshError *err)
{
  _cleanup_free_ char *msg = bwsh_error_to_string (err);
  _cleanup_free_ char *e = msg != NULL ? bwsh_escape_message (msg) : NULL;

  fprintf (stderr, "%s%s\n", prefix, e != NULL ? e : "out of memory");
}

/* Diagnostics quote what the user wrote (escaped where they are made); what
 * a terminal would act on is escaped again here, whatever slipped through. */
static void
print_diag (const BwshDiag *d, const char *prefix)
{
  for (size_t i = 0; i < d->n; i++)
    {
      _cleanup_free_ char *e = bwsh_escape_message (d->lines[i]);
      fprintf (stderr, "%s%s\n", prefix, e != NULL ? e : "out of memory");
    }
}

/* A policy bind whose source this process cannot see, inside a sandbox:
 * the sandbox hides it, the login (outside) mounts it, and the user cannot
 * change a policy line anyway, so it is no warning of theirs. */
static bool
hidden_policy_source (const BwshPlan *p, const char *line)
{
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      const BwshMount *m = &p->mounts[i];
      _cleanup_free_ char *esc = NULL, *tail = NULL;
      size_t ll = strlen (line), tl;

      if (m->from.origin != BWSH_ORIGIN_POLICY || m->verdict != BWSH_VERDICT_SKIPPED || m->src == NULL
          || m->reason == NULL)
        continue;
      esc = bwsh_escape (m->src, strlen (m->src));
      if (esc == NULL || asprintf (&tail, "%s: %s", esc, m->reason) < 0)
        continue;
      tl = strlen (tail);
      if (ll >= tl && strcmp (line + ll - tl, tail) == 0)
        return true;
    }
  return false;
}

/* The plan's warnings; inside a sandbox, the policy binds it hides are one
 * note instead (see hidden_policy_source()). */
static void
print_plan_diag (const BwshPlan *p, bool inside)
{
  size_t hidden = 0;

  for (size_t i = 0; i < p->diag.n; i++)
    {
      _cleanup_free_ char *e = NULL;

      if (inside && hidden_policy_source (p, p->diag.lines[i]))
        {
          hidden++;
          continue;
        }
      e = bwsh_escape_message (p->diag.lines[i]);
      fprintf (stderr, "%s\n", e != NULL ? e : "out of memory");
    }
  if (hidden > 0)
    fprintf (stderr, "note: %zu source%s of the policy's binds %s not visible inside this sandbox; the login mounts "
             "what exists outside\n", hidden, hidden == 1 ? "" : "s", hidden == 1 ? "is" : "are");
}

enum
{
  OPT_POLICY,
  OPT_USER_CONFIG,
  OPT_USER,
  OPT_JSON,
  OPT_RESOLVE,
  OPT_STRICT,
  OPT_HELP,
};

typedef struct
{
  const char *policy;
  const char *user_config;
  const char *user;
  bool json;
  bool resolve;
  bool strict;
  bool help;
} Options;

static int
set_option (void *userdata, int id, const char *arg)
{
  Options *o = userdata;

  switch (id)
    {
    case OPT_POLICY:
      o->policy = arg;
      break;
    case OPT_USER_CONFIG:
      o->user_config = arg;
      break;
    case OPT_USER:
      if (o->user != NULL && strcmp (o->user, arg) != 0)
        {
          fprintf (stderr, "bwshctl: two different users, \"%s\" and \"%s\"\n", o->user, arg);
          return -1;
        }
      o->user = arg;
      break;
    case OPT_JSON:
      o->json = true;
      break;
    case OPT_RESOLVE:
      o->resolve = true;
      break;
    case OPT_STRICT:
      o->strict = true;
      break;
    case OPT_HELP:
      o->help = true;
      break;
    default:
      return -1;
    }
  return 0;
}

/* Options common to check and explain; explain also takes --json and the
 * user as an operand (the same as --user), check takes --resolve. */
static int
parse_options (int argc, char **argv, Options *o, bool explain)
{
  static const CtlOption opts[] = {
    { "policy", true, OPT_POLICY },     { "user-config", true, OPT_USER_CONFIG },
    { "user", true, OPT_USER },         { "help", false, OPT_HELP },
    { "h", false, OPT_HELP },           { "resolve", false, OPT_RESOLVE },
    { "strict", false, OPT_STRICT },    { "json", false, OPT_JSON },
  };
  const char *operands[1];
  size_t n = 0;

  if (ctl_parse_options (argc, argv, opts, BWSH_N_ELEMENTS (opts) - (explain ? 0 : 1), set_option, o, operands,
                         explain ? 1 : 0, &n)
      < 0)
    return -1;
  if (n == 1 && set_option (o, OPT_USER, operands[0]) < 0)
    return -1;
  if (explain && (o->resolve || o->strict))
    {
      fprintf (stderr, "bwshctl: %s is for check\n", o->resolve ? "--resolve" : "--strict");
      return -1;
    }
  if (o->help)
    exit (usage (stdout, 0));
  return 0;
}

/* Root looking at another user's session reads that user's files as that
 * user: their config may be a symlink to a file only root can read.  Core
 * calls this after the policy is loaded (as root). */
static int
become (void *userdata, const BwshIdentity *id, BwshError *err)
{
  (void) userdata;
  if (getuid () == id->uid)
    return 0;
  if (initgroups (id->name, id->gid) < 0 || setresgid (id->gid, id->gid, id->gid) < 0
      || setresuid (id->uid, id->uid, id->uid) < 0)
    return bwsh_error_set (err, -errno, NULL, 0, 0, "cannot switch to user %s: %s", id->name, strerror (errno));
  return 0;
}

/* The session as bwsh would prepare it, in @mode, for --user or the caller. */
static int
prepare (const Options *o, BwshSessionMode mode, BwshSession **ret, BwshError *err)
{
  BwshSessionRequest req = {
    .mode = mode,
    .user = o->user,
    .uid = getuid (),
    .policy_path = o->policy,
    .user_config = o->user_config,
    .envp = environ,
    .become_user = become,
  };

  return bwsh_session_prepare (&req, ret, err);
}

/* Only root may look at another user's session, or at another policy: a
 * user-chosen policy would describe a plan bwsh never runs. */
static int
check_access (const Options *o, const char *what)
{
  if (getuid () == 0)
    return 0;
  if (o->policy != NULL)
    {
      fprintf (stderr, "bwshctl: --policy is for root\n");
      return -1;
    }
  if (o->user != NULL)
    {
      BwshIdentity *id = NULL;
      BwshError err = { 0 };
      bool self = bwsh_identity_from_name (o->user, &id, &err) >= 0 && id->uid == getuid ();

      bwsh_identity_free (id);
      if (!self)
        {
          fprintf (stderr, "bwshctl: only root may %s another user's plan\n", what);
          return -1;
        }
    }
  return 0;
}

/* A lock group locks only its members who are subjects (#39): none is a
 * warning (a lock that holds nobody); members who are not subjects are
 * named, since pam_bwsh leaves their sessions alone. */
static void
check_lock_group (const BwshPolicy *pol, const BwshNssName *n, size_t *ret_warnings)
{
  const char *file = n->from.file != NULL ? n->from.file : "-";
  char **names = NULL;
  size_t subjects = 0, others = 0;
  int r = bwsh_lock_group_members (pol, n->name, &subjects, &others, &names, 3);

  if (r < 0)
    {
      fprintf (stderr, "%s:%d: warning: lock_groups: cannot list the members of group \"%s\": %s\n", file,
               n->from.line, n->name, strerror (-r));
      (*ret_warnings)++;
      return;
    }
  if (subjects == 0)
    {
      fprintf (stderr, "%s:%d: warning: lock_groups: group \"%s\" holds no subject: it locks nobody\n", file,
               n->from.line, n->name);
      (*ret_warnings)++;
    }
  if (others > 0)
    {
      fprintf (stderr, "%s:%d: note: lock_groups: %zu member%s of group \"%s\" %s not a subject and not locked "
               "(pam_bwsh leaves %s alone):", file, n->from.line, others, others == 1 ? "" : "s", n->name,
               others == 1 ? "is" : "are", others == 1 ? "it" : "them");
      for (size_t i = 0; names != NULL && names[i] != NULL; i++)
        {
          _cleanup_free_ char *e = bwsh_escape (names[i], strlen (names[i]));
          fprintf (stderr, " %s", e != NULL ? e : "?");
        }
      fprintf (stderr, "%s\n", others > 3 ? " ..." : "");
    }
  for (size_t i = 0; names != NULL && names[i] != NULL; i++)
    free (names[i]);
  free (names);
}

/* A name NSS does not know confines nobody: an error (a typo such as
 * subjects.groups = ["sandboxd"] must fail configuration management's
 * validate step).  A lookup that failed (a directory that is down) is a
 * warning.  With --resolve, the number of users of each group.  Returns the
 * number of errors in *ret_errors and of warnings in *ret_warnings. */
static int
check_names (const BwshPolicy *pol, bool resolve, bool inside, size_t *ret_errors, size_t *ret_warnings)
{
  BwshNssReport rep = { 0 };
  BwshError err = { 0 };
  int r = bwsh_nss_check (pol, resolve, &rep, &err);

  if (r < 0)
    {
      print_error ("", &err);
      return r;
    }
  for (size_t i = 0; i < rep.n; i++)
    {
      const BwshNssName *n = &rep.items[i];
      const char *kind = n->is_group ? "group" : "user";
      const char *file = n->from.file != NULL ? n->from.file : "-";

      if (n->lookup == -ENOENT && strcmp (n->key, "lock_groups") == 0)
        {
          /* A lock group that is not there yet locks nobody yet: a warning. */
          fprintf (stderr, "%s:%d: warning: %s: no group \"%s\" in NSS: it locks nobody\n", file, n->from.line,
                   n->key, n->name);
          (*ret_warnings)++;
        }
      else if (n->lookup == -ENOENT && inside)
        {
          /* The sandbox has no directory client (sssd): not knowing a
           * name here proves nothing about the host. */
          fprintf (stderr, "%s:%d: warning: %s: no %s \"%s\" in NSS inside the sandbox\n", file, n->from.line,
                   n->key, kind, n->name);
          (*ret_warnings)++;
        }
      else if (n->lookup == -ENOENT)
        {
          fprintf (stderr, "%s:%d: error: %s: no %s \"%s\" in NSS: it confines nobody\n", file, n->from.line,
                   n->key, kind, n->name);
          (*ret_errors)++;
        }
      else if (n->lookup < 0)
        {
          fprintf (stderr, "%s:%d: warning: %s: cannot look up %s \"%s\": %s\n", file, n->from.line, n->key, kind,
                   n->name, strerror (-n->lookup));
          (*ret_warnings)++;
        }
      else if (resolve && n->is_group)
        printf ("%s: group %s: %ld %s\n", n->key, n->name, n->members, n->members == 1 ? "user" : "users");
      if (n->lookup == 0 && strcmp (n->key, "lock_groups") == 0)
        check_lock_group (pol, n, ret_warnings);
    }
  bwsh_nss_report_clear (&rep);
  return 0;
}

static int
cmd_check (int argc, char **argv)
{
  Options o = { 0 };
  BwshError err = { 0 };
  _cleanup_ (bwsh_session_freep) BwshSession *s = NULL;
  const char *policy;
  size_t problems = 0, name_errors = 0, warnings = 0;
  bool inside;
  int r;

  if (parse_options (argc, argv, &o, false) < 0)
    return usage (stderr, 2);
  if (check_access (&o, "check") < 0)
    return 2;
  policy = o.policy != NULL ? o.policy : bwsh_policy_path ();
  /* A policy named on purpose must exist: "missing means the built-in
   * defaults" is for the installed path only. */
  if (o.policy != NULL && access (o.policy, F_OK) < 0)
    {
      fprintf (stderr, "%s: %s\n", o.policy, strerror (errno));
      return 1;
    }
  inside = bwshctl_enter_inside_trust (stderr);

  r = prepare (&o, BWSH_SESSION_CHECK, &s, &err);
  /* What would fail bwrap after an accepted login, the shell first. */
  if (s != NULL && s->policy != NULL)
    problems = bwshctl_launch_problems (s->plan, stderr);
  if (s != NULL && s->policy != NULL)
    problems += bwshctl_recorder_problems (s->plan, inside, stderr, &warnings);
  if (s != NULL && s->policy != NULL)
    {
      if (check_names (s->policy, o.resolve, inside, &name_errors, &warnings) < 0)
        return 1;
      if (problems == 0 && name_errors == 0)
        printf ("%s: policy valid\n", policy);
    }
  if (s != NULL)
    {
      print_diag (&s->diag, "");
      if (s->plan != NULL)
        print_plan_diag (s->plan, inside);
      if (s->plan != NULL && s->user_config_path != NULL)
        bwshctl_print_entries (s->plan, stdout);
    }
  if (r < 0)
    {
      print_error ("", &err);
      return 1;
    }
  /* A missing shell was reported above already. */
  if (s->refusal.code != BWSH_ERROR_NONE && !(problems > 0 && bwsh_plan_check_shell (s->plan, &(BwshError) { 0 }) < 0))
    print_error ("a session would be refused: ", &s->refusal);
  if (problems > 0 || name_errors > 0 || s->refusal.code != BWSH_ERROR_NONE)
    return 1;
  /* --strict: a warning is an error (a lookup that failed, a policy bind
   * whose source is missing, ...). */
  if (o.strict && (warnings > 0 || (s->plan != NULL && s->plan->diag.n > 0)))
    {
      fprintf (stderr, "bwshctl: %zu warning%s, an error with --strict\n",
               warnings + (s->plan != NULL ? s->plan->diag.n : 0),
               warnings + (s->plan != NULL ? s->plan->diag.n : 0) == 1 ? "" : "s");
      return 1;
    }
  if (s->diag.n > 0 || (s->plan != NULL && s->plan->n_refused > 0))
    return 1;
  if (o.user_config != NULL)
    printf ("%s: user configuration valid\n", o.user_config);
  return 0;
}

/* "admission: allowed", "admission: refused: locked: sessions of ...":
 * the first step of a login, before the plan (admission.h). */
static void
print_admission (const BwshSession *s, bool root)
{
  const BwshAdmission *a = s->admission;

  if (a == NULL)
    return;
  if (a->verdict == BWSH_ADMIT_ALLOWED)
    printf ("admission: allowed%s\n", s->is_subject ? "" : " (not a subject: pam_bwsh leaves the session alone; "
                                                              "bwsh confines it where it is the login shell)");
  else if (s->refusal.code == BWSH_ERROR_LOCKED && bwsh_lock_is_policy (&a->lock) && root)
    /* Root is told which lock group; the user is not (#39). */
    printf ("admission: refused: %s: %s (lock group %s, %s)\n", bwsh_admit_verdict_name (a->verdict),
            s->refusal.message, a->lock.target, a->lock.by);
  else if (s->refusal.code == BWSH_ERROR_LOCKED || s->refusal.code == BWSH_ERROR_LIMIT)
    printf ("admission: refused: %s: %s\n", bwsh_admit_verdict_name (a->verdict), s->refusal.message);
  else
    printf ("admission: refused: %s\n", bwsh_admit_verdict_name (a->verdict));
}

static int
cmd_explain (int argc, char **argv)
{
  Options o = { 0 };
  BwshError err = { 0 };
  _cleanup_ (bwsh_session_freep) BwshSession *s = NULL;
  BwshCommand cmd = { .login = true };
  _cleanup_free_ char *out = NULL, *refusal = NULL;
  /* Before prepare(): root looking at a user's session becomes that user. */
  const bool root = getuid () == 0;
  int r;

  if (parse_options (argc, argv, &o, true) < 0)
    return usage (stderr, 2);
  if (check_access (&o, "explain") < 0)
    return 2;

  (void) bwshctl_enter_inside_trust (stderr);
  r = prepare (&o, BWSH_SESSION_EXPLAIN, &s, &err);
  if (r < 0)
    {
      if (s != NULL)
        print_diag (&s->diag, "warning: ");
      print_error ("", &err);
      return 1;
    }
  if (s->refusal.code != BWSH_ERROR_NONE && (refusal = bwsh_error_to_string (&s->refusal)) == NULL)
    r = bwsh_error_set (&err, -ENOMEM, NULL, 0, 0, "out of memory");
  if (r >= 0)
    r = o.json ? bwsh_explain_json (s->plan, &cmd, refusal, &out, &err)
               : bwsh_explain_text (s->plan, &cmd, refusal, &out, &err);
  if (r < 0)
    {
      print_error ("bwshctl explain: ", &err);
      return 1;
    }
  if (!o.json)
    {
      printf ("bwsh plan for %s (uid %u)\npolicy: %s\nuser configuration: %s\n", s->id->name, (unsigned) s->id->uid,
              o.policy != NULL ? o.policy : bwsh_policy_path (),
              s->user_config_path != NULL ? s->user_config_path : "(none)");
      print_admission (s, root);
      for (size_t i = 0; i < s->diag.n; i++)
        {
          _cleanup_free_ char *e = bwsh_escape_message (s->diag.lines[i]);
          printf ("overlay warning: %s\n", e != NULL ? e : "out of memory");
        }
    }
  /* What would make the login fail after it was accepted: part of the
   * answer, like a refusal, so the status stays 0. */
  (void) bwshctl_launch_problems (s->plan, stderr);
  fputs (out, stdout);
  if (o.json)
    putchar ('\n');
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    return usage (stderr, 2);
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("bwshctl %s\n", BWSH_VERSION);
      return 0;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0)
    return usage (stdout, 0);
  if (strcmp (argv[1], "check") == 0)
    return cmd_check (argc - 1, argv + 1);
  if (strcmp (argv[1], "explain") == 0)
    return cmd_explain (argc - 1, argv + 1);
  if (strcmp (argv[1], "doctor") == 0)
    return bwshctl_doctor (argc - 1, argv + 1);
  if (strcmp (argv[1], "enforce") == 0)
    return bwshctl_enforce (argc - 1, argv + 1);
  if (strcmp (argv[1], "sessions") == 0)
    return bwshctl_sessions (argc - 1, argv + 1);
  if (strcmp (argv[1], "lock") == 0)
    return bwshctl_lock (argc - 1, argv + 1, true);
  if (strcmp (argv[1], "unlock") == 0)
    return bwshctl_lock (argc - 1, argv + 1, false);
  if (strcmp (argv[1], "locks") == 0)
    return bwshctl_locks (argc - 1, argv + 1);
  fprintf (stderr, "bwshctl: unknown command \"%s\"\n", argv[1]);
  return usage (stderr, 2);
}
