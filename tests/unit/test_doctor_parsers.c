/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl doctor's parsers and runner, apart from its checks: the `sshd -T`
 * output parser, the PAM-stack walker (on a scratch /etc/pam.d) and the
 * command runner (on real programs).
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "doctor_pam.h"
#include "doctor_run.h"
#include "doctor_sshd.h"
#include "unit.h"

/* ----------------------------------------------------------------- sshd */

static void
test_sshd_t_output_keys_lowercased_first_value_wins (void **state)
{
  static const char out[] = "port 22\n"
                            "UsePAM yes\n"
                            "subsystem sftp /usr/lib/openssh/sftp-server -f AUTHPRIV\n"
                            "acceptenv LANG\n"
                            "acceptenv LC_*\n"
                            "novalue\n"
                            "\n"
                            "forcecommand none\n"
                            "permituserrc no"; /* no final newline */
  SshdConfig c = { 0 };

  (void) state;
  assert_int_equal (sshd_config_parse (out, &c), 0);
  assert_string_equal (sshd_get (&c, "usepam"), "yes");
  assert_null (sshd_get (&c, "UsePAM")); /* keys are stored lowercased */
  assert_string_equal (sshd_get (&c, "subsystem"), "sftp /usr/lib/openssh/sftp-server -f AUTHPRIV");
  assert_string_equal (sshd_get (&c, "acceptenv"), "LANG");
  assert_null (sshd_get (&c, "novalue"));
  assert_string_equal (sshd_get (&c, "permituserrc"), "no");
  assert_null (sshd_get (&c, "missing"));
  /* Repeated keys are all kept, in order (AcceptEnv is checked line by line). */
  size_t n = 0;
  for (size_t i = 0; i < c.n; i++)
    n += strcmp (c.keys[i], "acceptenv") == 0;
  assert_int_equal (n, 2);
  sshd_config_clear (&c);
  assert_int_equal (c.n, 0);
}

static void
test_sshd_no_and_none_mean_off (void **state)
{
  (void) state;
  assert_true (is_no (NULL));
  assert_true (is_no ("no"));
  assert_true (is_no ("NO"));
  assert_true (is_no ("none"));
  assert_false (is_no ("yes"));
  assert_false (is_no ("local"));
  assert_false (is_no ("/usr/bin/bwsh"));
}

/* ------------------------------------------------------------------ PAM */

static char root[] = "/tmp/bwsh-unit-pam.XXXXXX";

static void
pam_file (const char *name, const char *text)
{
  _cleanup_free_ char *path = NULL;
  FILE *f;

  assert_true (asprintf (&path, "%s/etc/pam.d/%s", root, name) > 0);
  assert_non_null (f = fopen (path, "w"));
  fputs (text, f);
  fclose (f);
}

typedef struct
{
  const char *name;
  const char *service;
  int r;
  bool bwsh;
  bool readenv;
  size_t readenv_pos_after_bwsh; /* 1: pam_env reads after pam_bwsh */
  const char *readenv_at;
  bool loop;
} PamCase;

static void
test_pam_stack_walk (void **state)
{
  _cleanup_free_ char *dir = NULL;
  static const PamCase cases[] = {
    /* Debian: pam_bwsh through @include common-session, pam_env in auth. */
    { "debian-sshd", "sshd", 0, true, true, 0, "/etc/pam.d/sshd:2", false },
    /* pam_env user_readenv=1 as a session module after pam_bwsh. */
    { "readenv-after", "late", 0, true, true, 1, "/etc/pam.d/late:3", false },
    /* [value=action ...] with blanks, "-session" and substack. */
    { "brackets", "brackets", 0, true, false, 0, NULL, false },
    /* pam_bwsh under another name, or in the auth phase, does not count. */
    { "lookalike", "lookalike", 0, false, false, 0, NULL, false },
    /* an include loop is stopped and reported */
    { "loop", "loop-a", 0, false, false, 0, NULL, true },
    /* a service that is not installed */
    { "missing", "no-such-service", -ENOENT, false, false, 0, NULL, false },
  };

  (void) state;
  assert_non_null (mkdtemp (root));
  assert_true (asprintf (&dir, "%s/etc/pam.d", root) > 0);
  assert_int_equal (unit_mkdirs (dir), 0);
  pam_file ("common-session", "# comment\nsession\trequired\tpam_unix.so\nsession required pam_bwsh.so # trailing\n");
  pam_file ("sshd", "@include common-auth\nauth required pam_env.so user_readenv=1 envfile=/etc/default/locale\n"
                    "@include common-session\n");
  pam_file ("common-auth", "auth required pam_unix.so\n");
  pam_file ("late", "session required /usr/lib/security/pam_bwsh.so\nsession optional pam_motd.so\n"
                    "session required pam_env.so user_readenv=1\n");
  pam_file ("brackets", "session [success=ok new_authtok_reqd=ok default=bad] pam_unix.so\n"
                        "-session optional pam_systemd.so\nsession substack brackets-sub\n");
  pam_file ("brackets-sub", "session required pam_bwsh.so debug\n");
  pam_file ("lookalike", "session required pam_bwsh_old.so\nauth required pam_bwsh.so\n");
  pam_file ("loop-a", "@include loop-b\n");
  pam_file ("loop-b", "session include loop-a\n");

  for (size_t i = 0; i < BWSH_N_ELEMENTS (cases); i++)
    {
      const PamCase *c = &cases[i];
      PamStack st = { .service = c->service };
      int r = walk_pam (root, &st, c->service, NULL, 0);

      if (r != c->r || st.bwsh != c->bwsh || st.readenv != c->readenv || st.loop != c->loop)
        fail_msg ("%s: r=%d bwsh=%d readenv=%d loop=%d", c->name, r, st.bwsh, st.readenv, st.loop);
      if (c->readenv_at != NULL)
        assert_string_equal (st.readenv_at, c->readenv_at);
      if (c->readenv && c->bwsh)
        assert_int_equal (st.readenv_pos > st.bwsh_pos, c->readenv_pos_after_bwsh);
      pam_stack_clear (&st);
    }
  assert_int_equal (unit_rm_rf (root), 0);
}

/* ------------------------------------------------------------- commands */

static void
test_runner_captures_output_status_and_exec_errors (void **state)
{
  CmdResult res = { 0 };
  _cleanup_free_ char *why = NULL;

  (void) state;
  const char *const echo[] = { "/bin/echo", "hello", NULL };
  assert_int_equal (run_cmd (echo, false, 0, 0, &res), 0);
  assert_true (cmd_succeeded (&res));
  assert_string_equal (res.out, "hello\n");
  cmd_result_clear (&res);

  const char *const no[] = { "/bin/false", NULL };
  assert_int_equal (run_cmd (no, false, 0, 0, &res), 0);
  assert_false (cmd_succeeded (&res));
  why = cmd_first_line (&res);
  assert_string_equal (why, "exit status 1");
  cmd_result_clear (&res);
  free (steal_pointer (&why));

  const char *const missing[] = { "/nonexistent/bwsh-unit-cmd", NULL };
  assert_int_equal (run_cmd (missing, false, 0, 0, &res), 0);
  assert_false (cmd_succeeded (&res));
  assert_int_equal (res.exec_errno, ENOENT);
  cmd_result_clear (&res);

  /* What a command prints is escaped before it reaches a finding: a hostile
   * bwrap or sshd cannot forge lines or terminal escapes. */
  const char *const esc[] = { "/bin/sh", "-c", "printf 'bad\\033[31m\\tx\\nerror: forged\\n' >&2; exit 3", NULL };
  assert_int_equal (run_cmd (esc, false, 0, 0, &res), 0);
  why = cmd_first_line (&res);
  assert_string_equal (why, "bad\\x1b[31m\\x09x");
  cmd_result_clear (&res);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_sshd_t_output_keys_lowercased_first_value_wins),
    cmocka_unit_test (test_sshd_no_and_none_mean_off),
    cmocka_unit_test (test_pam_stack_walk),
    cmocka_unit_test (test_runner_captures_output_status_and_exec_errors),
  };
  return cmocka_run_group_tests_name ("doctor_parsers", tests, NULL, NULL);
}
