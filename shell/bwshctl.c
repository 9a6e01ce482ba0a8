/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl: the administrator's view of bwsh.
 *
 *   bwshctl check [--policy FILE] [--user-config FILE]
 *   bwshctl explain [USER] [--json] [--policy FILE]
 *   bwshctl doctor
 *
 * Exit codes: 0 fine, 1 invalid (check) or warnings (doctor), 2 usage error
 * (and errors for doctor).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "common.h"

extern char **environ;

int bwshctl_doctor (int argc, char **argv);

static int
usage (FILE *f, int code)
{
  fprintf (f,
           "usage: bwshctl check [--policy FILE] [--user-config FILE]\n"
           "       bwshctl explain [USER] [--json] [--policy FILE] [--user-config FILE]\n"
           "       bwshctl doctor\n"
           "       bwshctl --version\n");
  return code;
}

static void
print_error (const BwshError *err)
{
  char msg[sizeof err->file + BWSH_MESSAGE_MAX + 32];

  bwsh_error_format (err, msg, sizeof msg);
  fprintf (stderr, "%s\n", msg);
}

static void
print_diag (const BwshDiag *d, const char *prefix)
{
  for (size_t i = 0; i < d->n; i++)
    fprintf (stderr, "%s%s\n", prefix, d->lines[i]);
}

typedef struct
{
  const char *policy;
  const char *user_config;
  bool json;
  const char *user;
} Options;

static int
parse_options (int argc, char **argv, Options *o, bool allow_user, bool allow_json)
{
  static const struct option longopts[] = {
    { "policy", required_argument, NULL, 'p' },
    { "user-config", required_argument, NULL, 'u' },
    { "json", no_argument, NULL, 'j' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c;

  optind = 1;
  while ((c = getopt_long (argc, argv, "h", longopts, NULL)) != -1)
    {
      switch (c)
        {
        case 'p':
          o->policy = optarg;
          break;
        case 'u':
          o->user_config = optarg;
          break;
        case 'j':
          if (!allow_json)
            return -1;
          o->json = true;
          break;
        case 'h':
          exit (usage (stdout, 0));
        default:
          return -1;
        }
    }
  if (optind < argc)
    {
      if (!allow_user || argc - optind > 1)
        return -1;
      o->user = argv[optind];
    }
  return 0;
}

static int
cmd_check (int argc, char **argv)
{
  Options o = { 0 };
  BwshError err = { 0 };
  BwshIdentity *id = NULL;
  BwshPolicy *pol = NULL;
  BwshUserConfig *uc = NULL;
  BwshPlan *plan = NULL;
  BwshDiag diag = { 0 };
  _cleanup_free_ char *data = NULL;
  size_t len = 0;
  int ret = 0, r;

  if (parse_options (argc, argv, &o, false, false) < 0)
    return usage (stderr, 2);

  r = bwsh_identity_from_uid (getuid (), &id, &err);
  if (r < 0)
    {
      print_error (&err);
      return 1;
    }

  r = bwsh_policy_load (o.policy != NULL ? o.policy : bwsh_policy_path (), id, &pol, &err);
  if (r < 0)
    {
      print_error (&err);
      ret = 1;
      goto out;
    }
  printf ("%s: policy valid\n", o.policy != NULL ? o.policy : bwsh_policy_path ());

  if (o.user_config != NULL)
    {
      r = bwsh_read_file_checked (o.user_config, BWSH_OWNER_USER, getuid (), BWSH_USER_CONFIG_MAX, &data, &len,
                                  &err);
      if (r == -ENOENT)
        r = bwsh_error_set (&err, r, o.user_config, 0, 0, "no such file");
      if (r >= 0)
        r = bwsh_user_config_parse (data, len, o.user_config, &uc, &diag, &err);
      if (r < 0)
        {
          print_error (&err);
          ret = 1;
          goto out;
        }
      /* Entries are valid only if the plan accepts them, so build it. */
      r = bwsh_plan_build (id, pol, uc, NULL, &plan, &err);
      if (r >= 0)
        r = bwsh_plan_resolve (plan, &err);
      print_diag (&diag, "");
      if (plan != NULL)
        print_diag (&plan->diag, "");
      if (r < 0)
        print_error (&err);
      if (r < 0 || diag.n > 0 || (plan != NULL && plan->n_refused > 0))
        ret = 1;
      else
        printf ("%s: user configuration valid\n", o.user_config);
    }
out:
  bwsh_plan_free (plan);
  bwsh_user_config_free (uc);
  bwsh_policy_free (pol);
  bwsh_identity_free (id);
  bwsh_diag_clear (&diag);
  return ret;
}

/* Root explaining another user's plan reads that user's files as that user:
 * their config may be a symlink to a file only root can read. */
static int
become (const BwshIdentity *id, BwshError *err)
{
  if (getuid () == id->uid)
    return 0;
  if (initgroups (id->name, id->gid) < 0 || setresgid (id->gid, id->gid, id->gid) < 0
      || setresuid (id->uid, id->uid, id->uid) < 0)
    return bwsh_error_set (err, -errno, NULL, 0, 0, "cannot switch to user %s: %s", id->name, strerror (errno));
  return 0;
}

static int
cmd_explain (int argc, char **argv)
{
  Options o = { 0 };
  BwshError err = { 0 };
  BwshIdentity *id = NULL;
  BwshSession s = { 0 };
  BwshCommand cmd = { .login = true };
  _cleanup_free_ char *out = NULL, *expanded = NULL;
  int r;

  if (parse_options (argc, argv, &o, true, true) < 0)
    return usage (stderr, 2);

  if (o.user != NULL)
    r = bwsh_identity_from_name (o.user, &id, &err);
  else
    r = bwsh_identity_from_uid (getuid (), &id, &err);
  if (r < 0)
    {
      print_error (&err);
      return 1;
    }
  if (id->uid != getuid () && getuid () != 0)
    {
      fprintf (stderr, "bwshctl: only root may explain another user's plan\n");
      bwsh_identity_free (id);
      return 2;
    }
  if (o.policy != NULL && getuid () != 0)
    {
      /* A user-chosen policy would explain a plan bwsh never runs. */
      fprintf (stderr, "bwshctl: --policy is for root\n");
      bwsh_identity_free (id);
      return 2;
    }

  /* The policy as root, the rest as the user. */
  s.id = id;
  r = bwsh_policy_load (o.policy != NULL ? o.policy : bwsh_policy_path (), id, &s.policy, &err);
  if (r >= 0)
    r = become (id, &err);
  if (r >= 0 && o.user_config == NULL && s.policy->user_overlay_allowed)
    {
      r = bwsh_path_expand (s.policy->user_config, id->home, &expanded);
      o.user_config = expanded;
    }
  if (r >= 0 && o.user_config != NULL)
    r = bwsh_user_config_load (o.user_config, id->uid, &s.user_config, &s.diag, &err);
  if (r >= 0)
    r = bwsh_plan_build (id, s.policy, s.user_config, environ, &s.plan, &err);
  if (r >= 0)
    {
      /* Resolve to show what bwsh would bind; a strict refusal is part of
       * the explanation, not a failure of it. */
      BwshError rerr = { 0 };
      (void) bwsh_plan_resolve (s.plan, &rerr);
      r = o.json ? bwsh_explain_json (s.plan, &cmd, &out) : bwsh_explain_text (s.plan, &cmd, &out);
    }
  if (r < 0)
    {
      print_diag (&s.diag, "warning: ");
      print_error (&err);
      bwsh_session_clear (&s);
      return 1;
    }
  if (!o.json)
    {
      printf ("bwsh plan for %s (uid %u)\npolicy: %s\nuser configuration: %s\n", id->name, (unsigned) id->uid,
              o.policy != NULL ? o.policy : bwsh_policy_path (), o.user_config != NULL ? o.user_config : "(none)");
      for (size_t i = 0; i < s.diag.n; i++)
        printf ("overlay warning: %s\n", s.diag.lines[i]);
    }
  fputs (out, stdout);
  if (o.json)
    putchar ('\n');
  bwsh_session_clear (&s);
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
  fprintf (stderr, "bwshctl: unknown command \"%s\"\n", argv[1]);
  return usage (stderr, 2);
}
