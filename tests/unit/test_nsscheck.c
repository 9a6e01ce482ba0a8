/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh_nss_check: the names a policy matches on, looked up through this
 * machine's real NSS.  Known names: root, the group of gid 0, the calling
 * user; unknown ones are made up so that no database can hold them. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bwshcore.h"
#include "cleanup.h"

/* Valid account names (the policy checks them), in no NSS database. */
#define NO_USER "bwsh-nosuch-u7q2"
#define NO_GROUP "bwsh-nosuch-g7q2"

static BwshPolicy *
parse (const char *text)
{
  BwshPolicy *p = NULL;
  BwshError err = { 0 };

  assert_int_equal (bwsh_policy_new_defaults (&p), 0);
  if (bwsh_policy_parse_buffer (p, text, "fleet.conf", NULL, NULL, &err) < 0)
    fail_msg ("parse: %s", err.message);
  return p;
}

static const BwshNssName *
find (const BwshNssReport *r, const char *name, bool group)
{
  for (size_t i = 0; i < r->n; i++)
    if (r->items[i].is_group == group && strcmp (r->items[i].name, name) == 0)
      return &r->items[i];
  fail_msg ("%s %s is not in the report", group ? "group" : "user", name);
  return NULL;
}

static const char *
gid0_name (void)
{
  struct group *g = getgrgid (0);
  assert_non_null (g);
  return g->gr_name;
}

static void
test_subject_and_match_names_known_and_unknown_with_file_and_line (void **state)
{
  char text[1024];
  BwshNssReport r = { 0 };
  BwshError err = { 0 };
  BwshPolicy *p;
  const BwshNssName *n;

  (void) state;
  snprintf (text, sizeof text,
            "subjects = { users = [ \"root\", \"" NO_USER "\" ];\n"
            "             groups = [ \"%s\", \"" NO_GROUP "\" ]; };\n"
            "match = ( { group = \"" NO_GROUP "x\"; hostname = \"a\"; },\n"
            "          { user = [ \"root\", \"" NO_USER "y\" ]; hostname = \"b\"; } );\n",
            gid0_name ());
  p = parse (text);
  assert_int_equal (bwsh_nss_check (p, false, &r, &err), 0);

  /* Each name once: "root" is both a subject and a match user. */
  assert_int_equal (r.n, 6);
  assert_int_equal (r.n_unknown, 4);
  n = find (&r, "root", false);
  assert_int_equal (n->lookup, 0);
  assert_string_equal (n->key, "subjects.users");
  assert_int_equal (n->members, -1);
  n = find (&r, gid0_name (), true);
  assert_int_equal (n->lookup, 0);
  n = find (&r, NO_USER, false);
  assert_int_equal (n->lookup, -ENOENT);
  assert_string_equal (n->from.file, "fleet.conf");
  assert_int_equal (n->from.line, 1);
  n = find (&r, NO_GROUP, true);
  assert_int_equal (n->lookup, -ENOENT);
  assert_string_equal (n->key, "subjects.groups");
  assert_int_equal (n->from.line, 2);
  n = find (&r, NO_GROUP "x", true);
  assert_int_equal (n->lookup, -ENOENT);
  assert_string_equal (n->key, "match.group");
  assert_int_equal (n->from.line, 3);
  n = find (&r, NO_USER "y", false);
  assert_int_equal (n->lookup, -ENOENT);
  assert_string_equal (n->key, "match.user");
  assert_int_equal (n->from.line, 4);
  bwsh_nss_report_clear (&r);
  bwsh_policy_free (p);
}

/* The count is what NSS says: gr_mem plus the enumerable accounts whose
 * primary group it is, each user once. */
static void
test_resolve_counts_members_like_nss (void **state)
{
  char text[256];
  BwshNssReport r = { 0 };
  BwshError err = { 0 };
  BwshPolicy *p;
  struct group *g = getgrgid (0);
  struct passwd *pw;
  long want = 0;

  (void) state;
  assert_non_null (g);
  for (char **m = g->gr_mem; *m != NULL; m++)
    want++;
  setpwent ();
  while ((pw = getpwent ()) != NULL)
    if (pw->pw_gid == 0)
      {
        bool listed = false;
        for (char **m = getgrgid (0)->gr_mem; *m != NULL; m++)
          listed |= strcmp (*m, pw->pw_name) == 0;
        want += !listed;
      }
  endpwent ();
  assert_true (want >= 1); /* root's primary group is gid 0 */

  snprintf (text, sizeof text, "subjects = { groups = [ \"%s\", \"" NO_GROUP "\" ]; };\n", gid0_name ());
  p = parse (text);
  assert_int_equal (bwsh_nss_check (p, true, &r, &err), 0);
  assert_int_equal (find (&r, gid0_name (), true)->members, want);
  assert_int_equal (find (&r, NO_GROUP, true)->members, -1);
  bwsh_nss_report_clear (&r);
  bwsh_policy_free (p);
}

static void
test_no_names_no_report (void **state)
{
  BwshNssReport r = { 0 };
  BwshError err = { 0 };
  BwshPolicy *p = parse ("subjects = { all = true; };\n");

  (void) state;
  assert_int_equal (bwsh_nss_check (p, true, &r, &err), 0);
  assert_int_equal (r.n, 0);
  assert_int_equal (r.n_unknown, 0);
  bwsh_nss_report_clear (&r);
  bwsh_policy_free (p);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_subject_and_match_names_known_and_unknown_with_file_and_line),
    cmocka_unit_test (test_resolve_counts_members_like_nss),
    cmocka_unit_test (test_no_names_no_report),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
