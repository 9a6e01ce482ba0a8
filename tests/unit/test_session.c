/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one-source-of-truth lists and checks (scrub list, "is this shell
 * bwsh", the services the policy refuses, identity) and the entry point
 * every front end prepares its session with.
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "unit.h"

/* ------------------------------------------------------------ scrub list */

static const struct
{
  const char *name;
  bool scrub;
} scrub_cases[] = {
  { "LD_PRELOAD", true },       { "LD_LIBRARY_PATH", true },  { "LD_AUDIT", true },
  { "LD_", true },              { "GLIBC_TUNABLES", true },   { "MALLOC_CHECK_", true },
  { "MALLOC_TRACE", true },     { "GCONV_PATH", true },       { "GETCONF_DIR", true },
  { "LOCPATH", true },          { "NLSPATH", true },          { "TZDIR", true },
  { "TMPDIR", true },           { "HOSTALIASES", true },      { "LOCALDOMAIN", true },
  { "RES_OPTIONS", true },      { "RESOLV_HOST_CONF", true }, { "NIS_PATH", true },
  { "BASH_ENV", true },         { "ENV", true },              { "BASH_FUNC_ls%%", true },
  { "SHELLOPTS", true },        { "BASHOPTS", true },         { "PS4", true },
  { "BWSH_PLAN", true },        { "BWSH_TEST_LANDLOCK_ABI", true },
  /* what a session needs, and near misses */
  { "LANG", false },            { "LC_ALL", false },          { "TERM", false },
  { "PATH", false },            { "HOME", false },            { "TZ", false },
  { "XLD_PRELOAD", false },     { "LDPRELOAD", false },       { "ENVIRONMENT", false },
  { "BASH", false },            { "PS1", false },             { "SSH_CONNECTION", false },
};

static void
test_scrub_list_removes_what_acts_before_the_sandbox (void **state)
{
  (void) state;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (scrub_cases); i++)
    if (bwsh_env_must_scrub (scrub_cases[i].name) != scrub_cases[i].scrub)
      fail_msg ("%s: must_scrub %d, want %d", scrub_cases[i].name, !scrub_cases[i].scrub, scrub_cases[i].scrub);
}

/* Doctor reports a dangerous AcceptEnv by the example of each entry: each
 * example must be one its own pattern removes. */
static void
test_scrub_list_examples_match_their_patterns (void **state)
{
  size_t n = 0;
  const BwshScrubEntry *l = bwsh_env_scrub_list (&n);

  (void) state;
  assert_true (n > 10);
  for (size_t i = 0; i < n; i++)
    {
      if (fnmatch (l[i].pattern, l[i].example, 0) != 0)
        fail_msg ("%s does not match its example %s", l[i].pattern, l[i].example);
      assert_true (bwsh_env_must_scrub (l[i].example));
    }
}

/* doctor's AcceptEnv check: a pattern is bad when ANY name it admits is
 * scrubbed, not only the list's example names. */
static void
test_acceptenv_patterns_against_the_scrub_list (void **state)
{
  static const struct
  {
    const char *pattern;
    const char *entry; /* NULL: nothing scrubbed */
  } cases[] = {
    { "LD_PRELOAD", "LD_*" },     { "LD_LIBRARY_PATH", "LD_*" }, { "LD_AUDIT", "LD_*" },
    { "L*", "LD_*" },             { "*", "LD_*" },               { "?D_PRELOAD", "LD_*" },
    { "MALLOC_TRACE", "MALLOC_*" }, { "MALLOC_PERTURB_", "MALLOC_*" }, { "BWSH_TEST_*", "BWSH_*" },
    { "BASH_FUNC_x%%", "BASH_FUNC_*" }, { "TZ*", "TZDIR" },      { "PS?", "PS4" },
    { "BASH_E*", "BASH_ENV" },       { "E?V", "ENV" },              { "LANG", NULL },
    { "LC_*", NULL },             { "TZ", NULL },                { "XMODIFIERS", NULL },
    { "GLIBC_TUNABLE", NULL },    { "LD", NULL },                { "PS", NULL },
    { "COLORTERM", NULL },
  };

  (void) state;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (cases); i++)
    {
      const BwshScrubEntry *e = bwsh_env_pattern_scrubbed (cases[i].pattern);
      const char *got = e != NULL ? e->pattern : NULL;
      if ((got == NULL) != (cases[i].entry == NULL) || (got != NULL && strcmp (got, cases[i].entry) != 0))
        fail_msg ("AcceptEnv %s: falls under %s, want %s", cases[i].pattern, got != NULL ? got : "nothing",
                  cases[i].entry != NULL ? cases[i].entry : "nothing");
    }
}

/* The session's own variables never come from the caller. */
static void
test_session_variables (void **state)
{
  (void) state;
  assert_true (bwsh_env_is_session_variable ("HOME"));
  assert_true (bwsh_env_is_session_variable ("PATH=/bin"));
  assert_true (bwsh_env_is_session_variable ("SHELL=/bin/sh"));
  assert_false (bwsh_env_is_session_variable ("HOMEX=1"));
  assert_false (bwsh_env_is_session_variable ("HOM"));
  assert_false (bwsh_env_is_session_variable ("TERM=x"));
}

/* ------------------------------------------------------------ shell check */

static char tmp[] = "/tmp/bwsh-unit-session.XXXXXX";

static void
test_shell_is_bwsh_is_the_binary_not_the_name (void **state)
{
  _cleanup_free_ char *bin = NULL, *link = NULL, *other = NULL, *odd = NULL, *missing = NULL;
  FILE *f;

  (void) state;
  assert_non_null (mkdtemp (tmp));
  assert_int_equal (unit_mkdirs (tmp), 0);
  assert_true (asprintf (&bin, "%s/bin/bwsh", tmp) > 0);
  assert_true (asprintf (&link, "%s/usr-bin-bwsh", tmp) > 0);
  assert_true (asprintf (&other, "%s/other/bwsh", tmp) > 0);
  assert_true (asprintf (&odd, "%s//bin/./bwsh", tmp) > 0);
  assert_true (asprintf (&missing, "%s/gone/bwsh", tmp) > 0);
  *strrchr (bin, '/') = '\0';
  assert_int_equal (unit_mkdirs (bin), 0);
  bin[strlen (bin)] = '/';
  *strrchr (other, '/') = '\0';
  assert_int_equal (unit_mkdirs (other), 0);
  other[strlen (other)] = '/';
  assert_non_null (f = fopen (bin, "w"));
  fclose (f);
  assert_non_null (f = fopen (other, "w"));
  fclose (f);
  assert_int_equal (symlink (bin, link), 0);

  const struct
  {
    const char *shell;
    const char *binary;
    bool want;
  } cases[] = {
    { bin, bin, true },          /* the installed path */
    { link, bin, true },         /* a symlink to it */
    { odd, bin, true },          /* the same path, written oddly */
    { missing, missing, true },  /* the configured path, not installed (yet) */
    { other, bin, false },       /* another file called bwsh */
    { "bwsh", bin, false },      /* relative */
    { "/bin/bash", bin, false },
    { "", bin, false },
    { NULL, bin, false },
    { bin, NULL, false },
  };
  for (size_t i = 0; i < BWSH_N_ELEMENTS (cases); i++)
    if (bwsh_shell_is_bwsh (cases[i].shell, cases[i].binary) != cases[i].want)
      fail_msg ("case %zu: shell %s, bwsh %s: want %d", i, cases[i].shell ? cases[i].shell : "(null)",
                cases[i].binary ? cases[i].binary : "(null)", cases[i].want);
  assert_int_equal (unit_rm_rf (tmp), 0);
}

/* ---------------------------------------------------------- service list */

static void
test_services_that_never_run_the_login_shell_are_refused (void **state)
{
  BwshPolicy *pol = NULL;
  static const struct
  {
    const char *service;
    bool refused;
  } cases[] = {
    { "sshd", false }, { "login", false }, { "su", false }, { "su-l", false },
    { "cron", true },  { "atd", true },    { NULL, true },  { "", true },
  };

  (void) state;
  assert_int_equal (bwsh_policy_new_defaults (&pol), 0);
  /* The services that run the login shell are never the ones refused. */
  size_t n = 0;
  const char *const *login = bwsh_login_services (&n);
  assert_true (n >= 4);
  for (size_t i = 0; i < n; i++)
    if (bwsh_policy_refuses_service (pol, login[i]))
      fail_msg ("%s runs the login shell but the default policy refuses it", login[i]);
  for (size_t i = 0; i < BWSH_N_ELEMENTS (cases); i++)
    if (bwsh_policy_refuses_service (pol, cases[i].service) != cases[i].refused)
      fail_msg ("service %s: want refused=%d", cases[i].service ? cases[i].service : "(null)", cases[i].refused);
  bwsh_policy_free (pol);
}

/* ----------------------------------------------------------- identity */

static void
test_identity_comes_from_nss_and_names_its_step (void **state)
{
  _cleanup_ (bwsh_session_freep) BwshSession *s = NULL;
  _cleanup_free_ char *msg = NULL;
  BwshError err = { 0 };
  BwshSessionRequest req = { .mode = BWSH_SESSION_EXPLAIN, .user = "no-such-user-bwsh-unit" };
  struct passwd *pw = getpwuid (getuid ());

  (void) state;
  assert_int_equal (bwsh_session_prepare (&req, &s, &err), -ENOENT);
  assert_int_equal (err.code, BWSH_ERROR_IDENTITY);
  msg = bwsh_error_to_string (&err);
  assert_string_equal (msg, "cannot identify the user: no such user: no-such-user-bwsh-unit");
  s = bwsh_session_free (s);

  /* $HOME, $USER and $SHELL are the caller's to set; identity is NSS's. */
  assert_non_null (pw);
  setenv ("HOME", "/", 1);
  setenv ("USER", "root-or-not", 1);
  setenv ("SHELL", "/tmp/evil", 1);
  BwshIdentity *id = NULL;
  assert_int_equal (bwsh_identity_from_uid (getuid (), &id, &err), 0);
  assert_string_equal (id->name, pw->pw_name);
  assert_string_equal (id->shell, pw->pw_shell);
  assert_int_equal (id->uid, pw->pw_uid);
  bwsh_identity_free (id);
}

/* ---------------------------------------------------------- the session */

/* Explain prepares the caller's session with the built-in policy and
 * creates nothing, not even the project directory a first login makes. */
static void
test_explain_creates_nothing (void **state)
{
  _cleanup_ (bwsh_session_freep) BwshSession *s = NULL;
  _cleanup_free_ char *project = NULL;
  BwshError err = { 0 };
  BwshSessionRequest req = {
    .mode = BWSH_SESSION_EXPLAIN, .uid = getuid (), .policy_path = "/nonexistent/bwsh-unit.conf",
  };
  struct stat st;
  bool existed;

  (void) state;
  BwshIdentity *id = NULL;
  assert_int_equal (bwsh_identity_from_uid (getuid (), &id, &err), 0);
  assert_true (asprintf (&project, "%s/project", id->home) > 0);
  bwsh_identity_free (id);
  existed = stat (project, &st) == 0;

  assert_int_equal (bwsh_session_prepare (&req, &s, &err), 0);
  assert_non_null (s->plan);
  assert_int_equal (s->refusal.code, BWSH_ERROR_NONE);
  assert_int_equal (s->plan->project_dir_missing, !existed);
  assert_int_equal (stat (project, &st) == 0, existed);
  /* The plan carries what the launch needs; nothing is borrowed. */
  assert_true (s->plan->unshare[BWSH_NS_USER]);
  assert_true (s->plan->disable_userns);
  assert_int_equal (s->plan->landlock.mode, s->policy->landlock);
  assert_int_equal (s->plan->root_tmpfs_size, s->policy->root_tmpfs_size);
}

/* What decided when the policy could not be used: the event's
 * BWSH_OUTCOME, the same rule for bwsh and pam_bwsh (fallback.h). */
static void
test_fallback_outcome_names_what_decided (void **state)
{
  static const struct
  {
    bool last_good;
    int r;
    const char *outcome;
  } cases[] = {
    { true, 0, "last-good" },     /* the last good policy decided */
    { true, -EPERM, "refused" },  /* ... and refused (a lock) */
    { false, -EINVAL, "refused" }, /* no last good policy: a bwsh account */
    { false, 0, "ignored" },      /* pam_bwsh left root or a non-bwsh account alone */
  };
  (void) state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      BwshSession s = { .policy_fallback = true, .policy_last_good = cases[i].last_good };
      assert_string_equal (bwsh_fallback_to_string (bwsh_fallback_of (&s, cases[i].r)), cases[i].outcome);
    }
  assert_null (bwsh_fallback_to_string (BWSH_FALLBACK_MAX_));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_scrub_list_removes_what_acts_before_the_sandbox),
    cmocka_unit_test (test_scrub_list_examples_match_their_patterns),
    cmocka_unit_test (test_acceptenv_patterns_against_the_scrub_list),
    cmocka_unit_test (test_session_variables),
    cmocka_unit_test (test_shell_is_bwsh_is_the_binary_not_the_name),
    cmocka_unit_test (test_services_that_never_run_the_login_shell_are_refused),
    cmocka_unit_test (test_identity_comes_from_nss_and_names_its_step),
    cmocka_unit_test (test_explain_creates_nothing),
    cmocka_unit_test (test_fallback_outcome_names_what_decided),
  };
  return cmocka_run_group_tests_name ("session", tests, NULL, NULL);
}
