/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The user overlay (core/policy/userconf.c): the seed's JSON format parsed from
 * memory, then loaded from real files that a hostile user shaped (symlink,
 * FIFO, directory, hard link, bad mode, wrong owner, oversized).
 *
 * A bad entry costs that entry only, with one warning naming file, line,
 * column and the entry; a bad document costs the whole overlay, with a
 * position and a fixed message that never quotes the input.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
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

/* Every path here is a short mkdtemp name under /tmp plus a few elements;
 * GCC cannot know that and warns about PATH_MAX buffers. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define FILENAME "/home/u/.config/bwsh/config.json"
#define SECRET "SECRETTOKEN91c2"

/* 1-based line and column of byte @off of @buf, counted as userconf.c does (bytes). */
static void
position_of (const char *buf, size_t off, int *line, int *col)
{
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < off; i++)
    {
      if (buf[i] == '\n')
        {
          (*line)++;
          *col = 1;
        }
      else
        (*col)++;
    }
}

static size_t
offset_of (const char *buf, const char *needle)
{
  const char *p = strstr (buf, needle);
  if (p == NULL)
    fail_msg ("test bug: \"%s\" not in the document", needle);
  return (size_t) (p - buf);
}

static void
assert_single_lines (const BwshDiag *d)
{
  for (size_t i = 0; i < d->n; i++)
    if (strchr (d->lines[i], '\n') != NULL)
      fail_msg ("diag line %zu spans lines: %s", i, d->lines[i]);
}

static void
dump_diag (const BwshDiag *d)
{
  for (size_t i = 0; i < d->n; i++)
    print_message ("  diag: %s\n", d->lines[i]);
}

static BwshUserConfig *
parse_ok (const char *doc, size_t len, BwshDiag *diag)
{
  BwshUserConfig *uc = NULL;
  BwshError err = { 0 };
  int r = bwsh_user_config_parse (doc, len, FILENAME, &uc, diag, &err);

  if (r != 0)
    fail_msg ("parse failed: %d %s:%d:%d: %s", r, err.file, err.line, err.column, err.message);
  assert_non_null (uc);
  assert_single_lines (diag);
  return uc;
}

/* ---------------------------------------------------------- the format */

static void
test_seed_format_parses_exactly (void **state)
{
  static const char doc[] = "{ \"preferences\": { \"sandboxBwrapMounts\": {\n"
                            "    \"additionalROBinds\": [\"/extra/data\"],\n"
                            "    \"additionalBinds\": [\"/home/user/writable-project\"],\n"
                            "    \"disabledDefaultBinds\": [\"/home/user\"] } } }\n";
  BwshDiag diag = { 0 };
  BwshUserConfig *uc;
  int line, col;
  (void) state;

  uc = parse_ok (doc, strlen (doc), &diag);
  assert_int_equal (diag.n, 0);
  assert_string_equal (uc->file, FILENAME);
  assert_int_equal (uc->ro_binds.n, 1);
  assert_int_equal (uc->rw_binds.n, 1);
  assert_int_equal (uc->disabled.n, 1);
  assert_string_equal (uc->ro_binds.items[0].src, "/extra/data");
  assert_null (uc->ro_binds.items[0].dst);
  assert_string_equal (uc->rw_binds.items[0].src, "/home/user/writable-project");
  assert_string_equal (uc->disabled.items[0].src, "/home/user");
  assert_null (uc->project_dir);

  /* Each entry remembers where it came from, for the plan's warnings. */
  const struct
  {
    const BwshBindSpec *b;
    const char *text;
  } where[] = {
    { &uc->ro_binds.items[0], "\"/extra/data\"" },
    { &uc->rw_binds.items[0], "\"/home/user/writable-project\"" },
    { &uc->disabled.items[0], "\"/home/user\"]" },
  };
  for (size_t i = 0; i < 3; i++)
    {
      position_of (doc, offset_of (doc, where[i].text), &line, &col);
      assert_int_equal (where[i].b->from.origin, BWSH_ORIGIN_USER);
      assert_string_equal (where[i].b->from.file, FILENAME);
      assert_int_equal (where[i].b->from.line, line);
      assert_int_equal (where[i].b->from.column, col);
    }
  bwsh_user_config_free (uc);
  bwsh_diag_clear (&diag);
}

static void
test_src_dst_objects_and_project_dir (void **state)
{
  static const char doc[] = "{\"preferences\": {\n"
                            " \"sandboxProjectDir\": \"/home/u/work\",\n"
                            " \"sandboxBwrapMounts\": {\n"
                            "  \"additionalROBinds\": [{\"src\": \"/srv/a\", \"dst\": \"/mnt/a\"}, \"/srv/b\"],\n"
                            "  \"additionalBinds\": [{\"src\": \"/home/u/x\"}, {\"dst\": \"/home/u/z\", \"src\": \"/home/u/y\"}]\n"
                            "}}}";
  BwshDiag diag = { 0 };
  BwshUserConfig *uc;
  int line, col;
  (void) state;

  uc = parse_ok (doc, strlen (doc), &diag);
  assert_int_equal (diag.n, 0);
  assert_int_equal (uc->ro_binds.n, 2);
  assert_string_equal (uc->ro_binds.items[0].src, "/srv/a");
  assert_string_equal (uc->ro_binds.items[0].dst, "/mnt/a");
  assert_string_equal (uc->ro_binds.items[1].src, "/srv/b");
  assert_null (uc->ro_binds.items[1].dst);
  assert_int_equal (uc->rw_binds.n, 2);
  assert_string_equal (uc->rw_binds.items[0].src, "/home/u/x");
  assert_null (uc->rw_binds.items[0].dst);
  assert_string_equal (uc->rw_binds.items[1].src, "/home/u/y");
  assert_string_equal (uc->rw_binds.items[1].dst, "/home/u/z");
  assert_non_null (uc->project_dir);
  assert_string_equal (uc->project_dir, "/home/u/work");
  assert_int_equal (uc->project_dir_from.origin, BWSH_ORIGIN_USER);
  assert_string_equal (uc->project_dir_from.file, FILENAME);
  position_of (doc, offset_of (doc, "\"/home/u/work\""), &line, &col);
  assert_int_equal (uc->project_dir_from.line, line);
  assert_int_equal (uc->project_dir_from.column, col);
  position_of (doc, offset_of (doc, "{\"src\": \"/srv/a\""), &line, &col);
  assert_int_equal (uc->ro_binds.items[0].from.line, line);
  assert_int_equal (uc->ro_binds.items[0].from.column, col);
  bwsh_user_config_free (uc);
  bwsh_diag_clear (&diag);
}

static void
test_empty_object_and_null_lists_add_nothing (void **state)
{
  static const char *const docs[] = {
    "{}",
    "{\"preferences\": {}}",
    "{\"preferences\": {\"sandboxBwrapMounts\": {}}}",
    "{\"preferences\": {\"sandboxBwrapMounts\": {\"additionalROBinds\": null, \"additionalBinds\": []}}}",
    "{\"other\": {\"preferences\": 1}, \"preferences\": {\"theme\": \"dark\"}}",
  };
  (void) state;

  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
    {
      BwshDiag diag = { 0 };
      BwshUserConfig *uc = parse_ok (docs[i], strlen (docs[i]), &diag);
      if (diag.n != 0 || uc->ro_binds.n + uc->rw_binds.n + uc->disabled.n != 0 || uc->project_dir != NULL)
        fail_msg ("doc %zu added something or warned", i);
      bwsh_user_config_free (uc);
      bwsh_diag_clear (&diag);
    }
}

/* ------------------------------------------- bad entries: one warning each */

typedef struct
{
  const char *name;
  const char *doc;
  const char *key;       /* list holding the bad entry */
  size_t index;          /* its index */
  const char *at;        /* text where the bad entry starts */
  const char *reason;    /* substring of the warning */
  size_t ro, rw, dis;    /* entries that must still apply */
} BadEntryCase;

#define MOUNTS(x) "{\"preferences\": {\"sandboxBwrapMounts\": {\n" x "\n}}}"

static const BadEntryCase bad_entry_cases[] = {
  { "number among strings", MOUNTS ("\"additionalROBinds\": [\"/a\",\n  42, \"/b\"]"), "additionalROBinds", 1, "42",
    "expected a path", 2, 0, 0 },
  { "boolean", MOUNTS ("\"additionalBinds\": [true, \"/home/u/x\"],\n\"additionalROBinds\": [\"/r\"]"),
    "additionalBinds", 0, "true", "expected a path", 1, 1, 0 },
  { "null entry", MOUNTS ("\"additionalROBinds\": [\"/a\", null]"), "additionalROBinds", 1, "null",
    "expected a path", 1, 0, 0 },
  { "nested list", MOUNTS ("\"additionalROBinds\": [[\"/a\"], \"/b\"]"), "additionalROBinds", 0, "[\"/a\"]",
    "expected a path", 1, 0, 0 },
  { "object in disabledDefaultBinds", MOUNTS ("\"disabledDefaultBinds\": [{\"src\": \"/tmp\"}, \"/run\"]"),
    "disabledDefaultBinds", 0, "{\"src\": \"/tmp\"}", "expected a path", 0, 0, 1 },
  { "object with unknown key", MOUNTS ("\"additionalBinds\": [{\"src\": \"/home/u/a\", \"mode\": \"rw\"}, \"/home/u/b\"]"),
    "additionalBinds", 0, "{\"src\": \"/home/u/a\"", "unknown key", 0, 1, 0 },
  { "object without src", MOUNTS ("\"additionalROBinds\": [\"/a\", {\"dst\": \"/b\"}]"), "additionalROBinds", 1,
    "{\"dst\"", "\"src\" and \"dst\" must be strings", 1, 0, 0 },
  { "object with numeric src", MOUNTS ("\"additionalROBinds\": [{\"src\": 1}, \"/a\"]"), "additionalROBinds", 0,
    "{\"src\": 1}", "\"src\" and \"dst\" must be strings", 1, 0, 0 },
  { "object with numeric dst", MOUNTS ("\"additionalROBinds\": [{\"src\": \"/a\", \"dst\": 2}, \"/b\"]"),
    "additionalROBinds", 0, "{\"src\": \"/a\", \"dst\": 2}", "\"src\" and \"dst\" must be strings", 1, 0, 0 },
  { "NUL inside a path", MOUNTS ("\"additionalROBinds\": [\"/ok\", \"/a\\u0000/../../etc\", \"/ok2\"]"),
    "additionalROBinds", 1, "\"/a\\u0000", "NUL", 2, 0, 0 },
  { "NUL inside src", MOUNTS ("\"additionalBinds\": [{\"src\": \"/home/u\\u0000x\"}, \"/home/u/y\"]"),
    "additionalBinds", 0, "{\"src\": \"/home/u\\u0000", "NUL", 0, 1, 0 },
  { "NUL inside dst", MOUNTS ("\"additionalROBinds\": [{\"src\": \"/a\", \"dst\": \"/b\\u0000c\"}, \"/c\"]"),
    "additionalROBinds", 0, "{\"src\": \"/a\", \"dst\": \"/b\\u0000", "NUL", 1, 0, 0 },
  { "NUL in disabledDefaultBinds", MOUNTS ("\"disabledDefaultBinds\": [\"/home/u\", \"/tmp\\u0000\"]"),
    "disabledDefaultBinds", 1, "\"/tmp\\u0000", "NUL", 0, 0, 1 },
  { "list is a string", MOUNTS ("\"additionalROBinds\": \"/a\",\n\"additionalBinds\": [\"/home/u/x\"]"),
    "additionalROBinds", (size_t) -1, "\"/a\"", "expected a list", 0, 1, 0 },
};

static void
test_bad_entry_warned_with_position_rest_applies (void **state)
{
  (void) state;
  for (size_t i = 0; i < sizeof bad_entry_cases / sizeof bad_entry_cases[0]; i++)
    {
      const BadEntryCase *c = &bad_entry_cases[i];
      BwshDiag diag = { 0 };
      BwshUserConfig *uc = parse_ok (c->doc, strlen (c->doc), &diag);
      char prefix[512], entry[128];
      int line, col;

      if (diag.n != 1)
        {
          dump_diag (&diag);
          fail_msg ("%s: %zu warnings, want exactly 1", c->name, diag.n);
        }
      position_of (c->doc, offset_of (c->doc, c->at), &line, &col);
      snprintf (prefix, sizeof prefix, "%s:%d:%d: ", FILENAME, line, col);
      if (c->index == (size_t) -1)
        snprintf (entry, sizeof entry, "%s:", c->key);
      else
        snprintf (entry, sizeof entry, "%s[%zu]", c->key, c->index);
      if (strncmp (diag.lines[0], prefix, strlen (prefix)) != 0)
        fail_msg ("%s: warning \"%s\" does not start with \"%s\"", c->name, diag.lines[0], prefix);
      if (strstr (diag.lines[0], entry) == NULL || strstr (diag.lines[0], c->reason) == NULL)
        fail_msg ("%s: warning \"%s\" lacks \"%s\" or \"%s\"", c->name, diag.lines[0], entry, c->reason);
      if (uc->ro_binds.n != c->ro || uc->rw_binds.n != c->rw || uc->disabled.n != c->dis)
        fail_msg ("%s: kept %zu/%zu/%zu entries, want %zu/%zu/%zu", c->name, uc->ro_binds.n, uc->rw_binds.n,
                  uc->disabled.n, c->ro, c->rw, c->dis);
      bwsh_user_config_free (uc);
      bwsh_diag_clear (&diag);
    }
}

static void
test_project_dir_with_nul_or_wrong_type_is_warned (void **state)
{
  static const char *const docs[] = {
    "{\"preferences\": {\"sandboxProjectDir\": \"/home/u/p\\u0000x\", \"sandboxBwrapMounts\": {\"additionalROBinds\": [\"/r\"]}}}",
    "{\"preferences\": {\"sandboxProjectDir\": 7, \"sandboxBwrapMounts\": {\"additionalROBinds\": [\"/r\"]}}}",
  };
  (void) state;

  for (size_t i = 0; i < 2; i++)
    {
      BwshDiag diag = { 0 };
      BwshUserConfig *uc = parse_ok (docs[i], strlen (docs[i]), &diag);
      char prefix[256];
      int line, col;

      assert_int_equal (diag.n, 1);
      position_of (docs[i], offset_of (docs[i], i == 0 ? "\"/home/u/p" : "7"), &line, &col);
      snprintf (prefix, sizeof prefix, "%s:%d:%d: sandboxProjectDir", FILENAME, line, col);
      if (strncmp (diag.lines[0], prefix, strlen (prefix)) != 0)
        fail_msg ("warning \"%s\" does not start with \"%s\"", diag.lines[0], prefix);
      assert_null (uc->project_dir);
      assert_int_equal (uc->ro_binds.n, 1);
      bwsh_user_config_free (uc);
      bwsh_diag_clear (&diag);
    }
}

static void
test_unknown_mounts_key_warned (void **state)
{
  /* A typo ("additionalRoBinds") would silently grant nothing. */
  static const char doc[] = MOUNTS ("\"additionalRoBinds\": [\"/a\"], \"additionalBinds\": [\"/home/u/x\"],\n"
                                    "\"evil\\\"\\nkey\": 1");
  BwshDiag diag = { 0 };
  BwshUserConfig *uc;
  size_t typo = 0, evil = 0;
  (void) state;

  uc = parse_ok (doc, strlen (doc), &diag);
  assert_int_equal (diag.n, 2);
  for (size_t i = 0; i < diag.n; i++)
    {
      assert_non_null (strstr (diag.lines[i], FILENAME));
      assert_non_null (strstr (diag.lines[i], "unknown key"));
      typo += strstr (diag.lines[i], "\"additionalRoBinds\"") != NULL;
      /* The key is escaped: the warning stays one line and one quoted word. */
      evil += strstr (diag.lines[i], "evil\\x22\\x0akey") != NULL;
    }
  assert_int_equal (typo, 1);
  assert_int_equal (evil, 1);
  assert_int_equal (uc->ro_binds.n, 0);
  assert_int_equal (uc->rw_binds.n, 1);
  bwsh_user_config_free (uc);
  bwsh_diag_clear (&diag);
}

static void
test_wrong_container_types_warned (void **state)
{
  static const struct
  {
    const char *doc;
    const char *reason;
  } cases[] = {
    { "{\"preferences\": [1]}", "\"preferences\" must be an object" },
    { "{\"preferences\": {\"sandboxBwrapMounts\": [\"/a\"]}}", "sandboxBwrapMounts: must be an object" },
  };
  (void) state;

  for (size_t i = 0; i < 2; i++)
    {
      BwshDiag diag = { 0 };
      BwshUserConfig *uc = parse_ok (cases[i].doc, strlen (cases[i].doc), &diag);
      assert_int_equal (diag.n, 1);
      assert_non_null (strstr (diag.lines[0], FILENAME));
      assert_non_null (strstr (diag.lines[0], cases[i].reason));
      assert_int_equal (uc->ro_binds.n + uc->rw_binds.n + uc->disabled.n, 0);
      bwsh_user_config_free (uc);
      bwsh_diag_clear (&diag);
    }
}

/* ----------------------------------------------------- entry count cap */

static char *
doc_with_entries (size_t n_ro, size_t n_rw)
{
  size_t cap = 128 + (n_ro + n_rw) * 32;
  char *doc = malloc (cap);
  size_t o = 0;

  assert_non_null (doc);
  o += (size_t) sprintf (doc + o, "{\"preferences\": {\"sandboxBwrapMounts\": {\"additionalROBinds\": [");
  for (size_t i = 0; i < n_ro; i++)
    o += (size_t) sprintf (doc + o, "%s\"/srv/r%zu\"", i ? "," : "", i);
  o += (size_t) sprintf (doc + o, "], \"additionalBinds\": [");
  for (size_t i = 0; i < n_rw; i++)
    o += (size_t) sprintf (doc + o, "%s\"/home/u/w%zu\"", i ? "," : "", i);
  o += (size_t) sprintf (doc + o, "]}}}");
  assert_true (o < cap);
  return doc;
}

static void
test_entry_flood_capped_at_1024 (void **state)
{
  static const struct
  {
    size_t ro, rw;
    size_t want_ro, want_rw;
    size_t warnings;
  } cases[] = {
    { 1024, 0, 1024, 0, 0 },   /* exactly the cap: accepted */
    { 1100, 0, 1024, 0, 1 },
    { 600, 600, 600, 424, 1 }, /* the cap is for the whole overlay */
    { 5000, 10, 1024, 0, 2 },  /* one warning per list that hits the cap */
  };
  (void) state;

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      char *doc = doc_with_entries (cases[i].ro, cases[i].rw);
      BwshDiag diag = { 0 };
      BwshUserConfig *uc = parse_ok (doc, strlen (doc), &diag);

      if (uc->ro_binds.n != cases[i].want_ro || uc->rw_binds.n != cases[i].want_rw)
        fail_msg ("case %zu: kept %zu+%zu, want %zu+%zu", i, uc->ro_binds.n, uc->rw_binds.n, cases[i].want_ro,
                  cases[i].want_rw);
      if (diag.n != cases[i].warnings)
        {
          dump_diag (&diag);
          fail_msg ("case %zu: %zu warnings, want %zu", i, diag.n, cases[i].warnings);
        }
      for (size_t k = 0; k < diag.n; k++)
        assert_non_null (strstr (diag.lines[k], "more than 1024 entries"));
      bwsh_user_config_free (uc);
      bwsh_diag_clear (&diag);
      free (doc);
    }
}

/* --------------------------------------- broken documents: -EINVAL, no quote */

typedef struct
{
  const char *name;
  const char *doc;
  size_t len;            /* 0 = strlen */
  const char *message;   /* exact */
  bool want_column;
} BrokenCase;

#define DOC(s) s, sizeof (s) - 1

static const BrokenCase broken_cases[] = {
  { "empty", DOC (""), "unexpected end of input", false },
  { "only whitespace", DOC ("  \n  "), "unexpected end of input", false },
  { "malformed", DOC ("{\"preferences\": " SECRET "}"), "invalid JSON syntax", true },
  { "unterminated", DOC ("{\"preferences\": {\"" SECRET), "unexpected end of input", true },
  { "trailing data", DOC ("{}\n" SECRET), "trailing data after the JSON document", true },
  { "two documents", DOC ("{} {\"" SECRET "\": 1}"), "trailing data after the JSON document", true },
  { "byte order mark", DOC ("\xef\xbb\xbf{\"" SECRET "\": 1}"), "invalid JSON syntax", true },
  { "invalid UTF-8", DOC ("{\"a\": \"" SECRET "\xff\"}"), "invalid UTF-8", true },
  { "overlong UTF-8 slash", DOC ("{\"a\": \"\xc0\xaf" SECRET "\"}"), "invalid UTF-8", true },
  { "duplicate top-level key", DOC ("{\"preferences\": {},\n \"preferences\": {\"" SECRET "\": 1}}"),
    "duplicate key", true },
  { "duplicate nested key",
    DOC ("{\"preferences\": {\"sandboxBwrapMounts\": {\"additionalBinds\": [\"/a\"],\n"
         "  \"additionalBinds\": [\"/" SECRET "\"]}}}"),
    "duplicate key", true },
  { "raw NUL byte after the document", DOC ("{}\0" SECRET), "trailing data after the JSON document", true },
  { "NUL escape in a key", DOC ("{\"" SECRET "\\u0000\": 1}"), "invalid JSON", true },
};

static void
test_broken_document_refused_with_fixed_message (void **state)
{
  (void) state;
  for (size_t i = 0; i < sizeof broken_cases / sizeof broken_cases[0]; i++)
    {
      const BrokenCase *c = &broken_cases[i];
      BwshUserConfig *uc = (BwshUserConfig *) 0x1;
      BwshDiag diag = { 0 };
      BwshError err = { 0 };
      _cleanup_free_ char *formatted = NULL;
      int r = bwsh_user_config_parse (c->doc, c->len, FILENAME, &uc, &diag, &err);

      if (r != -EINVAL)
        fail_msg ("%s: r=%d, want -EINVAL", c->name, r);
      assert_ptr_equal (uc, (BwshUserConfig *) 0x1);
      assert_string_equal (err.file, FILENAME);
      if (strcmp (err.message, c->message) != 0)
        fail_msg ("%s: message \"%s\", want \"%s\"", c->name, err.message, c->message);
      if (err.line < 1 || (c->want_column && err.column < 1))
        fail_msg ("%s: no position (%d:%d)", c->name, err.line, err.column);
      formatted = bwsh_error_to_string (&err);
      assert_non_null (formatted);
      if (strstr (formatted, SECRET) != NULL)
        fail_msg ("%s: the error quotes the input: %s", c->name, formatted);
      assert_int_equal (diag.n, 0);
      bwsh_diag_clear (&diag);
    }
}

static void
test_duplicate_key_position_points_at_second_key (void **state)
{
  static const char doc[] = "{\"preferences\": {},\n \"preferences\": {}}";
  BwshUserConfig *uc = NULL;
  BwshError err = { 0 };
  (void) state;

  assert_int_equal (bwsh_user_config_parse (doc, strlen (doc), FILENAME, &uc, NULL, &err), -EINVAL);
  assert_int_equal (err.line, 2);
  assert_true (err.column >= 2);
}

static void
test_non_object_document_refused (void **state)
{
  static const char *const docs[] = { "[\"" SECRET "\"]", "\"" SECRET "\"", "42", "null" };
  (void) state;

  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
    {
      BwshUserConfig *uc = NULL;
      BwshError err = { 0 };
      assert_int_equal (bwsh_user_config_parse (docs[i], strlen (docs[i]), FILENAME, &uc, NULL, &err), -EINVAL);
      assert_null (uc);
      /* jansson refuses a bare scalar itself (no JSON_DECODE_ANY) */
      assert_string_equal (err.message, i == 0 ? "the document must be a JSON object" : "invalid JSON syntax");
      assert_null (strstr (err.message, SECRET));
    }
}

static void
test_deep_nesting_refused (void **state)
{
  size_t depth = 100000;
  char *doc = malloc (2 * depth + 32);
  BwshUserConfig *uc = NULL;
  BwshError err = { 0 };
  size_t o = 0;
  (void) state;

  assert_non_null (doc);
  o += (size_t) sprintf (doc, "{\"x\": ");
  memset (doc + o, '[', depth);
  o += depth;
  memset (doc + o, ']', depth);
  o += depth;
  doc[o++] = '}';
  assert_int_equal (bwsh_user_config_parse (doc, o, FILENAME, &uc, NULL, &err), -EINVAL);
  assert_string_equal (err.message, "nesting too deep");
  free (doc);
}

/* -------------------------------------------------- loading from disk */

typedef struct
{
  char dir[PATH_MAX];
  char path[PATH_MAX];
} Fixture;

static int
setup (void **state)
{
  Fixture *f = calloc (1, sizeof *f);
  if (f == NULL)
    return -1;
  snprintf (f->dir, sizeof f->dir, "/tmp/bwsh-unit-userconf-XXXXXX");
  if (mkdtemp (f->dir) == NULL)
    return -1;
  snprintf (f->path, sizeof f->path, "%s/config.json", f->dir);
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  Fixture *f = *state;
  int r = unit_rm_rf (f->dir);

  free (f);
  return r == 0 ? 0 : -1;
}

static const char good_doc[] = "{\"preferences\": {\"sandboxBwrapMounts\": {\"additionalROBinds\": [\"/srv/" SECRET
                               "\"], \"additionalBinds\": [\"/home/u/x\"]}}}";

static void
write_file (const char *path, const char *content, size_t len, mode_t mode)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  assert_true (fd >= 0);
  assert_int_equal (write (fd, content, len), (ssize_t) len);
  assert_int_equal (fchmod (fd, mode), 0);
  close (fd);
}

static void
on_alarm (int sig)
{
  static const char msg[] = "timeout: loading the user config blocked\n";
  (void) sig;
  (void) !write (2, msg, sizeof msg - 1);
  _exit (99);
}

/* Load @f->path; assert 0, an empty overlay and exactly one warning
 * containing @reason (and the file name) unless @reason is NULL. */
static void
load_expect (const Fixture *f, uid_t uid, const char *reason)
{
  BwshUserConfig *uc = NULL;
  BwshDiag diag = { 0 };
  BwshError err = { 0 };
  int r;

  signal (SIGALRM, on_alarm);
  alarm (5);
  r = bwsh_user_config_load (f->path, uid, &uc, &diag, &err);
  alarm (0);
  assert_int_equal (r, 0);
  assert_non_null (uc);
  assert_single_lines (&diag);
  if (reason == NULL)
    {
      if (diag.n != 0)
        {
          dump_diag (&diag);
          fail_msg ("unexpected warning");
        }
    }
  else
    {
      if (diag.n != 1)
        {
          dump_diag (&diag);
          fail_msg ("%zu warnings, want 1 (%s)", diag.n, reason);
        }
      if (strstr (diag.lines[0], reason) == NULL || strstr (diag.lines[0], f->path) == NULL
          || strstr (diag.lines[0], "user configuration ignored") == NULL)
        fail_msg ("warning \"%s\" lacks \"%s\" or the file name", diag.lines[0], reason);
      /* Nothing of the file may be read into the overlay or echoed. */
      assert_null (strstr (diag.lines[0], SECRET));
      assert_int_equal (uc->ro_binds.n + uc->rw_binds.n + uc->disabled.n, 0);
    }
  bwsh_user_config_free (uc);
  bwsh_diag_clear (&diag);
}

static void
test_load_good_file_applies (void **state)
{
  Fixture *f = *state;
  BwshUserConfig *uc = NULL;
  BwshDiag diag = { 0 };
  BwshError err = { 0 };

  write_file (f->path, good_doc, strlen (good_doc), 0600);
  assert_int_equal (bwsh_user_config_load (f->path, getuid (), &uc, &diag, &err), 0);
  assert_int_equal (diag.n, 0);
  assert_int_equal (uc->ro_binds.n, 1);
  assert_int_equal (uc->rw_binds.n, 1);
  assert_string_equal (uc->ro_binds.items[0].from.file, f->path);
  bwsh_user_config_free (uc);
}

static void
test_load_missing_file_is_empty_overlay_without_warning (void **state)
{
  Fixture *f = *state;
  load_expect (f, getuid (), NULL);
}

static void
test_load_symlink_to_config_refused (void **state)
{
  /* A symlink could point at a file the user may not read (as root in PAM). */
  Fixture *f = *state;
  char target[PATH_MAX + 16];

  snprintf (target, sizeof target, "%s/real.json", f->dir);
  write_file (target, good_doc, strlen (good_doc), 0600);
  assert_int_equal (symlink (target, f->path), 0);
  load_expect (f, getuid (), "symbolic link");
}

static void
test_load_fifo_config_does_not_hang (void **state)
{
  Fixture *f = *state;
  assert_int_equal (mkfifo (f->path, 0600), 0);
  load_expect (f, getuid (), "FIFO");
}

static void
test_load_directory_config_refused (void **state)
{
  Fixture *f = *state;
  assert_int_equal (mkdir (f->path, 0700), 0);
  load_expect (f, getuid (), "a directory");
}

static void
test_load_world_writable_config_refused (void **state)
{
  Fixture *f = *state;
  write_file (f->path, good_doc, strlen (good_doc), 0666);
  load_expect (f, getuid (), "world-writable");
}

static void
test_load_group_writable_config_refused (void **state)
{
  Fixture *f = *state;
  write_file (f->path, good_doc, strlen (good_doc), 0620);
  unit_chgrp_not_own (f->path);
  load_expect (f, getuid (), "group- or world-writable");
}

static void
test_load_hard_linked_config_refused (void **state)
{
  Fixture *f = *state;
  char other[PATH_MAX + 16];

  write_file (f->path, good_doc, strlen (good_doc), 0600);
  snprintf (other, sizeof other, "%s/second-name", f->dir);
  assert_int_equal (link (f->path, other), 0);
  load_expect (f, getuid (), "hard links");
}

static void
write_padded (const char *path, size_t total)
{
  char *buf = malloc (total);
  size_t n = strlen (good_doc);

  assert_non_null (buf);
  assert_true (total >= n);
  memcpy (buf, good_doc, n);
  memset (buf + n, ' ', total - n);
  write_file (path, buf, total, 0600);
  free (buf);
}

static void
test_load_oversized_config_refused (void **state)
{
  Fixture *f = *state;
  BwshUserConfig *uc = NULL;
  BwshDiag diag = { 0 };
  BwshError err = { 0 };

  /* Exactly 64 KiB: accepted. */
  write_padded (f->path, BWSH_USER_CONFIG_MAX);
  assert_int_equal (bwsh_user_config_load (f->path, getuid (), &uc, &diag, &err), 0);
  assert_int_equal (diag.n, 0);
  assert_int_equal (uc->ro_binds.n, 1);
  bwsh_user_config_free (uc);
  /* One byte more: refused. */
  write_padded (f->path, BWSH_USER_CONFIG_MAX + 1);
  load_expect (f, getuid (), "larger than 65536 bytes");
}

static void
test_load_config_of_another_uid_refused (void **state)
{
  /* The file exists but belongs to somebody else than the session's uid. */
  Fixture *f = *state;
  write_file (f->path, good_doc, strlen (good_doc), 0644);
  load_expect (f, getuid () + 4242, "owned by uid");
}

static void
test_load_config_chowned_to_nobody_refused (void **state)
{
  Fixture *f = *state;

  if (geteuid () != 0)
    {
      unit_skip ("not root: cannot chown");
    }
  write_file (f->path, good_doc, strlen (good_doc), 0644);
  assert_int_equal (chown (f->path, 65534, 65534), 0);
  load_expect (f, 0, "owned by uid 65534");
}

static void
test_load_broken_json_warns_with_position_without_quoting (void **state)
{
  /* What a symlink to /etc/shadow would look like if it got past the open. */
  static const char doc[] = "{\"preferences\": {\n  \"sandboxBwrapMounts\": " SECRET ":$6$salt$hash:19000::::\n}}";
  Fixture *f = *state;
  char where[PATH_MAX + 32];

  write_file (f->path, doc, strlen (doc), 0600);
  snprintf (where, sizeof where, "%s:2:", f->path);
  load_expect (f, getuid (), "invalid JSON syntax");
  /* and the position: file:2:COL */
  {
    BwshUserConfig *uc = NULL;
    BwshDiag diag = { 0 };
    BwshError err = { 0 };
    assert_int_equal (bwsh_user_config_load (f->path, getuid (), &uc, &diag, &err), 0);
    assert_int_equal (diag.n, 1);
    assert_non_null (strstr (diag.lines[0], where));
    bwsh_user_config_free (uc);
    bwsh_diag_clear (&diag);
  }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_seed_format_parses_exactly),
    cmocka_unit_test (test_src_dst_objects_and_project_dir),
    cmocka_unit_test (test_empty_object_and_null_lists_add_nothing),
    cmocka_unit_test (test_bad_entry_warned_with_position_rest_applies),
    cmocka_unit_test (test_project_dir_with_nul_or_wrong_type_is_warned),
    cmocka_unit_test (test_unknown_mounts_key_warned),
    cmocka_unit_test (test_wrong_container_types_warned),
    cmocka_unit_test (test_entry_flood_capped_at_1024),
    cmocka_unit_test (test_broken_document_refused_with_fixed_message),
    cmocka_unit_test (test_duplicate_key_position_points_at_second_key),
    cmocka_unit_test (test_non_object_document_refused),
    cmocka_unit_test (test_deep_nesting_refused),
    cmocka_unit_test_setup_teardown (test_load_good_file_applies, setup, teardown),
    cmocka_unit_test_setup_teardown (test_load_missing_file_is_empty_overlay_without_warning, setup, teardown),
    cmocka_unit_test_setup_teardown (test_load_symlink_to_config_refused, setup, teardown),
    cmocka_unit_test_setup_teardown (test_load_fifo_config_does_not_hang, setup, teardown),
    cmocka_unit_test_setup_teardown (test_load_directory_config_refused, setup, teardown),
    cmocka_unit_test_setup_teardown (test_load_world_writable_config_refused, setup, teardown),
    cmocka_unit_test_setup_teardown (test_load_group_writable_config_refused, setup, teardown),
    cmocka_unit_test_setup_teardown (test_load_hard_linked_config_refused, setup, teardown),
    cmocka_unit_test_setup_teardown (test_load_oversized_config_refused, setup, teardown),
    cmocka_unit_test_setup_teardown (test_load_config_of_another_uid_refused, setup, teardown),
    cmocka_unit_test_setup_teardown (test_load_config_chowned_to_nobody_refused, setup, teardown),
    cmocka_unit_test_setup_teardown (test_load_broken_json_warns_with_position_without_quoting, setup, teardown),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
