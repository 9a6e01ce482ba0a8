/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Lexical path rules (core/base/path.c), table-driven: every rule has at least one
 * input it accepts and one it refuses.  Nothing here touches the filesystem;
 * the same rules applied after resolving symlinks are in test_plan.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bwshcore.h"

/* ------------------------------------------------------- normalisation */

typedef struct
{
  const char *in;
  BwshPathStatus status;
  const char *out; /* expected result when status is OK */
} NormCase;

static const NormCase norm_cases[] = {
  /* accepted and normalised */
  { "/", BWSH_PATH_OK, "/" },
  { "/home/user", BWSH_PATH_OK, "/home/user" },
  { "//home//user", BWSH_PATH_OK, "/home/user" },
  { "/home/./user", BWSH_PATH_OK, "/home/user" },
  { "/home/user/", BWSH_PATH_OK, "/home/user" },
  { "/home/user///", BWSH_PATH_OK, "/home/user" },
  { "/./././", BWSH_PATH_OK, "/" },
  { "////", BWSH_PATH_OK, "/" },
  { "/.", BWSH_PATH_OK, "/" },
  { "/etc/", BWSH_PATH_OK, "/etc" },
  /* dots that are not "..": ordinary names */
  { "/a/...", BWSH_PATH_OK, "/a/..." },
  { "/a/..b", BWSH_PATH_OK, "/a/..b" },
  { "/a/b..", BWSH_PATH_OK, "/a/b.." },
  { "/a/.hidden", BWSH_PATH_OK, "/a/.hidden" },
  /* non-ASCII UTF-8 is not a control character */
  { "/home/j\xc3\xbcrgen", BWSH_PATH_OK, "/home/j\xc3\xbcrgen" },
  { "/with space/x", BWSH_PATH_OK, "/with space/x" },
  /* refused */
  { "", BWSH_PATH_EMPTY, NULL },
  { "home/user", BWSH_PATH_RELATIVE, NULL },
  { "./x", BWSH_PATH_RELATIVE, NULL },
  { "~/x", BWSH_PATH_RELATIVE, NULL },
  { "/..", BWSH_PATH_DOTDOT, NULL },
  { "/home/user/..", BWSH_PATH_DOTDOT, NULL },
  { "/home/../etc", BWSH_PATH_DOTDOT, NULL },
  { "/home/user/../../etc/shadow", BWSH_PATH_DOTDOT, NULL },
  { "/home//..//etc", BWSH_PATH_DOTDOT, NULL },
  { "/home/user\n/x", BWSH_PATH_CONTROL_CHAR, NULL },
  { "/home/user\t", BWSH_PATH_CONTROL_CHAR, NULL },
  { "/home/\r", BWSH_PATH_CONTROL_CHAR, NULL },
  { "/home/\x1b[31m", BWSH_PATH_CONTROL_CHAR, NULL },
  { "/home/\x7f", BWSH_PATH_CONTROL_CHAR, NULL },
  { "/home/\x01", BWSH_PATH_CONTROL_CHAR, NULL },
};

static void
test_path_normalize_table (void **state)
{
  (void) state;
  for (size_t i = 0; i < sizeof norm_cases / sizeof norm_cases[0]; i++)
    {
      const NormCase *c = &norm_cases[i];
      char *out = (char *) 0x1; /* must stay untouched on refusal */
      BwshPathStatus st = bwsh_path_normalize (c->in, &out);

      if (st != c->status)
        fail_msg ("case %zu: status %d (%s), want %d", i, st, bwsh_path_status_to_string (st), c->status);
      if (c->status == BWSH_PATH_OK)
        {
          assert_string_equal (out, c->out);
          free (out);
        }
      else
        assert_ptr_equal (out, (char *) 0x1);
    }
}

static void
test_path_nul_is_end_of_string_not_hidden_tail (void **state)
{
  /* A C string ends at NUL; what JSON carries after "\u0000" is the
   * overlay parser's job (test_userconf), the normaliser sees only "/a". */
  char *out = NULL;
  (void) state;
  assert_int_equal (bwsh_path_normalize ("/a\0/../etc", &out), BWSH_PATH_OK);
  assert_string_equal (out, "/a");
  free (out);
  assert_int_equal (bwsh_path_normalize (NULL, &out), BWSH_PATH_EMPTY);
}

static char *
path_of_length (size_t len, size_t elem)
{
  /* "/xxxx/xxxx/..." of exactly @len bytes, elements of at most @elem bytes */
  char *s = malloc (len + 1);
  size_t k = 0;

  assert_non_null (s);
  for (size_t i = 0; i < len; i++)
    {
      if (k == 0)
        s[i] = '/';
      else
        s[i] = 'x';
      k = (k + 1) % (elem + 1);
    }
  if (len > 1 && s[len - 1] == '/')
    s[len - 1] = 'x';
  s[len] = '\0';
  return s;
}

static void
test_overlong_path_refused (void **state)
{
  struct
  {
    size_t len;
    size_t elem;
    BwshPathStatus status;
  } cases[] = {
    { PATH_MAX - 1, 100, BWSH_PATH_OK },           /* 4095 bytes: the longest valid */
    { PATH_MAX, 100, BWSH_PATH_TOO_LONG },         /* 4096 */
    { PATH_MAX + 1, 100, BWSH_PATH_TOO_LONG },     /* 4097, as the issue names */
    { 64 * 1024, 100, BWSH_PATH_TOO_LONG },
    { NAME_MAX + 1, NAME_MAX, BWSH_PATH_OK },      /* "/" + 255 x */
    { NAME_MAX + 2, NAME_MAX + 1, BWSH_PATH_COMPONENT_TOO_LONG },
  };
  (void) state;

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      char *in = path_of_length (cases[i].len, cases[i].elem);
      char *out = NULL;
      BwshPathStatus st;

      assert_int_equal (strlen (in), cases[i].len);
      st = bwsh_path_normalize (in, &out);
      if (st != cases[i].status)
        fail_msg ("length %zu: status %d, want %d", cases[i].len, st, cases[i].status);
      if (st == BWSH_PATH_OK)
        {
          assert_string_equal (out, in);
          free (out);
        }
      free (in);
    }
}

static void
test_path_status_strings_name_the_reason (void **state)
{
  (void) state;
  assert_non_null (strstr (bwsh_path_status_to_string (BWSH_PATH_DOTDOT), ".."));
  assert_non_null (strstr (bwsh_path_status_to_string (BWSH_PATH_CONTROL_CHAR), "control character"));
  assert_non_null (strstr (bwsh_path_status_to_string (BWSH_PATH_RELATIVE), "not absolute"));
  assert_non_null (strstr (bwsh_path_status_to_string (BWSH_PATH_TOO_LONG), "too long"));
  assert_non_null (strstr (bwsh_path_status_to_string (BWSH_PATH_EMPTY), "empty"));
}

/* --------------------------------------------------- component prefixes */

typedef struct
{
  const char *path;
  const char *prefix;
  bool under;
} PrefixCase;

static const PrefixCase prefix_cases[] = {
  { "/home/a", "/home/a", true },
  { "/home/a/x", "/home/a", true },
  { "/home/a/x/y", "/home/a", true },
  { "/home/al", "/home/a", false },
  { "/home/user2", "/home/user", false },
  { "/home/user2/x", "/home/user", false },
  { "/home", "/home/user", false },
  { "/home/user-old", "/home/user", false },
  { "/home/user.bak", "/home/user", false },
  { "/anything", "/", true },
  { "/", "/", true },
  { "/", "/home", false },
  { "/procfs", "/proc", false },
  { "/proc/self", "/proc", true },
};

static void
test_prefix_is_compared_by_component (void **state)
{
  (void) state;
  for (size_t i = 0; i < sizeof prefix_cases / sizeof prefix_cases[0]; i++)
    if (bwsh_path_has_prefix (prefix_cases[i].path, prefix_cases[i].prefix) != prefix_cases[i].under)
      fail_msg ("case %zu: has_prefix(%s, %s) != %d", i, prefix_cases[i].path, prefix_cases[i].prefix,
                prefix_cases[i].under);
}

/* ------------------------------------------------------ forbidden paths */

typedef struct
{
  const char *path;
  bool forbidden;
} ForbidCase;

static const ForbidCase forbid_cases[] = {
  { "/", true },
  { "/proc", true },
  { "/proc/1/root", true },
  { "/proc/self/fd", true },
  { "/dev", true },
  { "/dev/shm", true },
  { "/dev/sda", true },
  { "/sys", true },
  { "/sys/kernel/debug", true },
  /* neighbours by bytes, not by element */
  { "/process", false },
  { "/devices", false },
  { "/system", false },
  { "/home/user/proc", false },
  { "/srv/dev", false },
  { "/usr", false },
  { "/home/user", false },
};

static void
test_bind_of_root_proc_dev_sys_forbidden (void **state)
{
  (void) state;
  for (size_t i = 0; i < sizeof forbid_cases / sizeof forbid_cases[0]; i++)
    if (bwsh_path_is_forbidden (forbid_cases[i].path) != forbid_cases[i].forbidden)
      fail_msg ("case %zu: is_forbidden(%s) != %d", i, forbid_cases[i].path, forbid_cases[i].forbidden);
}

static void
test_forbidden_after_normalisation (void **state)
{
  /* The rule applies to what the path means, not how it is spelled. */
  static const char *const spelled[] = { "//proc", "/./proc/", "/dev//shm/", "/sys/.", "//", "/." };
  (void) state;

  for (size_t i = 0; i < sizeof spelled / sizeof spelled[0]; i++)
    {
      char *n = NULL;
      assert_int_equal (bwsh_path_normalize (spelled[i], &n), BWSH_PATH_OK);
      if (!bwsh_path_is_forbidden (n))
        fail_msg ("%s normalised to %s is not forbidden", spelled[i], n);
      free (n);
    }
}

/* ------------------------------------------------------------- depth */

static void
test_depth_orders_parents_first (void **state)
{
  static const struct
  {
    const char *p;
    size_t d;
  } cases[] = { { "/", 0 }, { "/a", 1 }, { "/a/b", 2 }, { "/home/user/project", 3 } };
  (void) state;

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    assert_int_equal (bwsh_path_depth (cases[i].p), cases[i].d);
}

/* ----------------------------------------------------------- expansion */

typedef struct
{
  const char *tmpl;
  const char *home;
  int r;
  const char *out;
} ExpandCase;

static const ExpandCase expand_cases[] = {
  { "~", "/home/u", 0, "/home/u" },
  { "~/", "/home/u", 0, "/home/u" },
  { "~/project", "/home/u", 0, "/home/u/project" },
  { "~//.config/./bwsh/", "/home/u", 0, "/home/u/.config/bwsh" },
  { "$HOME", "/home/u", 0, "/home/u" },
  { "$HOME/.ssh", "/home/u", 0, "/home/u/.ssh" },
  { "/srv/data/", "/home/u", 0, "/srv/data" },
  { "/srv/data", NULL, 0, "/srv/data" },
  /* refused */
  { "~/../../etc", "/home/u", -EINVAL, NULL },
  { "~other/x", "/home/u", -EINVAL, NULL },
  { "$HOMEX/x", "/home/u", -EINVAL, NULL },
  { "relative", "/home/u", -EINVAL, NULL },
  { "~", NULL, -EINVAL, NULL },
  { "~/x", "relative-home", -EINVAL, NULL },
  { "~/a\nb", "/home/u", -EINVAL, NULL },
};

static void
test_template_expansion_table (void **state)
{
  (void) state;
  for (size_t i = 0; i < sizeof expand_cases / sizeof expand_cases[0]; i++)
    {
      const ExpandCase *c = &expand_cases[i];
      char *out = NULL;
      int r = bwsh_path_expand (c->tmpl, c->home, &out);

      if (r != c->r)
        fail_msg ("case %zu (%s): r=%d want %d", i, c->tmpl, r, c->r);
      if (r == 0)
        {
          assert_string_equal (out, c->out);
          free (out);
        }
      else
        assert_null (out);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_path_normalize_table),
    cmocka_unit_test (test_path_nul_is_end_of_string_not_hidden_tail),
    cmocka_unit_test (test_overlong_path_refused),
    cmocka_unit_test (test_path_status_strings_name_the_reason),
    cmocka_unit_test (test_prefix_is_compared_by_component),
    cmocka_unit_test (test_bind_of_root_proc_dev_sys_forbidden),
    cmocka_unit_test (test_forbidden_after_normalisation),
    cmocka_unit_test (test_depth_orders_parents_first),
    cmocka_unit_test (test_template_expansion_table),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
