/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Error records: one formatter, and a message on every failure. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "unit.h"

typedef struct
{
  BwshErrorCode code;
  const char *file;
  int line, column;
  const char *message;
  const char *want;
} FormatCase;

static const FormatCase format_cases[] = {
  { BWSH_ERROR_NONE, NULL, 0, 0, "plain", "plain" },
  { BWSH_ERROR_POLICY, "/etc/bwsh/bwsh.conf", 3, 0, "unknown setting \"x\"",
    "the sandbox policy cannot be used: /etc/bwsh/bwsh.conf:3: unknown setting \"x\"" },
  { BWSH_ERROR_USER_CONFIG, "/h/c.json", 2, 7, "bad", "cannot read the user configuration: /h/c.json:2:7: bad" },
  { BWSH_ERROR_PLAN, "/f", 0, 0, "m", "cannot build the sandbox: /f: m" },
  { BWSH_ERROR_IDENTITY, NULL, 0, 0, "no such user: x", "cannot identify the user: no such user: x" },
  { BWSH_ERROR_PROJECT_DIR, NULL, 0, 0, "cannot create /h/p: Permission denied",
    "cannot create the project directory: cannot create /h/p: Permission denied" },
  { BWSH_ERROR_RESOLVE, NULL, 0, 0, "strict policy: 1 configuration entry was refused",
    "cannot build the sandbox: strict policy: 1 configuration entry was refused" },
  { BWSH_ERROR_LAUNCH, NULL, 0, 0, "cannot execute /usr/bin/bwrap: No such file or directory",
    "cannot start the sandbox: cannot execute /usr/bin/bwrap: No such file or directory" },
  { BWSH_ERROR_HOME, NULL, 0, 0, "home directory /h does not exist", "home directory /h does not exist" },
  { BWSH_ERROR_SERVICE, NULL, 0, 0, "service cron never runs the login shell; refused for sandboxed user u",
    "service cron never runs the login shell; refused for sandboxed user u" },
};

static void
test_one_formatter_names_the_step (void **state)
{
  (void) state;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (format_cases); i++)
    {
      const FormatCase *c = &format_cases[i];
      BwshError err = { 0 };
      _cleanup_free_ char *s = NULL;

      bwsh_error_set (&err, -EINVAL, c->file, c->line, c->column, "%s", c->message);
      bwsh_error_step (&err, c->code, -EINVAL);
      s = bwsh_error_to_string (&err);
      assert_non_null (s);
      if (strcmp (s, c->want) != 0)
        fail_msg ("case %zu: \"%s\", want \"%s\"", i, s, c->want);
    }
}

/* A lower layer that ran out of memory, or returned a bare -errno, left no
 * message: the step still gets words after its colon. */
static void
test_failure_without_message_is_never_empty (void **state)
{
  static const struct
  {
    int r;
    const char *want;
  } cases[] = {
    { -ENOMEM, "the sandbox policy cannot be used: out of memory" },
    { -EACCES, "the sandbox policy cannot be used: Permission denied" },
    { -EIO, "the sandbox policy cannot be used: Input/output error" },
  };

  (void) state;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (cases); i++)
    {
      BwshError err = { 0 };
      _cleanup_free_ char *s = NULL;

      assert_int_equal (bwsh_error_step (&err, BWSH_ERROR_POLICY, cases[i].r), cases[i].r);
      s = bwsh_error_to_string (&err);
      assert_string_equal (s, cases[i].want);
    }
  /* An untouched record still formats to something. */
  BwshError none = { .code = BWSH_ERROR_PLAN };
  _cleanup_free_ char *s = bwsh_error_to_string (&none);
  assert_non_null (s);
  assert_true (s[strlen (s) - 1] != ' ');
}

static void
test_error_set_records_errno_and_keeps_step (void **state)
{
  BwshError err = { .code = BWSH_ERROR_RESOLVE };

  (void) state;
  assert_int_equal (bwsh_error_set (&err, -ELOOP, "/x", 1, 2, "m %d", 5), -ELOOP);
  assert_int_equal (err.errnum, ELOOP);
  assert_int_equal (err.code, BWSH_ERROR_RESOLVE);
  assert_string_equal (err.message, "m 5");
  assert_int_equal (bwsh_error_set (NULL, -EPERM, NULL, 0, 0, "ignored"), -EPERM);
  assert_int_equal (bwsh_error_step (NULL, BWSH_ERROR_PLAN, -EPERM), -EPERM);
}

static void
test_escape_escapes_and_stays_bounded (void **state)
{
  char raw[600];
  _cleanup_free_ char *plain = bwsh_escape ("a\"b\\c\nd\xff", 8);
  _cleanup_free_ char *bytes = NULL, *text = NULL, *exact = NULL;
  BwshError err = { 0 };

  (void) state;
  assert_string_equal (plain, "a\\x22b\\x5cc\\x0ad\\xff");

  /* 600 bytes that all need escaping: 64 of them fill the 256 characters. */
  memset (raw, 0xff, sizeof raw);
  bytes = bwsh_escape (raw, sizeof raw);
  assert_int_equal (strlen (bytes), BWSH_ESCAPE_MAX + 3);
  assert_string_equal (bytes + BWSH_ESCAPE_MAX - 4, "\\xff...");

  /* Printable bytes count one each. */
  memset (raw, 'a', sizeof raw);
  text = bwsh_escape (raw, sizeof raw);
  assert_int_equal (strlen (text), BWSH_ESCAPE_MAX + 3);
  exact = bwsh_escape (raw, BWSH_ESCAPE_MAX);
  assert_int_equal (strlen (exact), BWSH_ESCAPE_MAX);

  /* The point of the bound: a message that quotes the worst value still
   * ends with its reason (the policy fuzzer found it cut off). */
  bwsh_error_set (&err, -EILSEQ, NULL, 0, 0, "%s \"%s\" is not valid UTF-8, which JSON cannot carry; the text "
                  "explanation shows it", "sandboxProjectDir", bytes);
  assert_non_null (strstr (err.message, "the text explanation shows it"));
}

/* A name the user makes in the home reaches root's terminal whole and
 * harmless: every byte a terminal acts on escaped, and the data form reads
 * back to the exact bytes (a literal "\x1b" is not an ESC). */
static void
test_escape_for_a_terminal_is_whole_and_lossless (void **state)
{
  char raw[600];
  _cleanup_free_ char *data = bwsh_escape_data ("/h/a\x1b]0;t\x07" "b\nc\"\\x1b\x9b\xff");
  _cleanup_free_ char *msg = bwsh_escape_message ("path \"/h/x\\x1b\": \x1b[2J\x9b");
  _cleanup_free_ char *clean = bwsh_escape_data ("/home/alice/project");
  _cleanup_free_ char *long_data = NULL;

  (void) state;
  assert_string_equal (data, "/h/a\\x1b]0;t\\x07b\\x0ac\\x22\\x5cx1b\\x9b\\xff");
  assert_string_equal (msg, "path \"/h/x\\x1b\": \\x1b[2J\\x9b");
  assert_string_equal (clean, "/home/alice/project");
  /* Not cut at BWSH_ESCAPE_MAX: a path is shown whole. */
  memset (raw, 0x1b, sizeof raw - 1);
  raw[sizeof raw - 1] = '\0';
  long_data = bwsh_escape_data (raw);
  assert_int_equal (strlen (long_data), 4 * (sizeof raw - 1));
}

/* bwsh_format(): the string, never an undefined pointer. */
static void
test_format_returns_the_string (void **state)
{
  _cleanup_free_ char *s = bwsh_format ("%s-%d", "a", 42);
  (void) state;
  assert_non_null (s);
  assert_string_equal (s, "a-42");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_one_formatter_names_the_step),
    cmocka_unit_test (test_failure_without_message_is_never_empty),
    cmocka_unit_test (test_error_set_records_errno_and_keeps_step),
    cmocka_unit_test (test_escape_escapes_and_stays_bounded),
    cmocka_unit_test (test_escape_for_a_terminal_is_whole_and_lossless),
    cmocka_unit_test (test_format_returns_the_string),
  };
  return cmocka_run_group_tests_name ("error", tests, NULL, NULL);
}
