/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SHA-256 (core/launch/digest.c) against the FIPS 180-4 / NIST example vectors and
 * against coreutils' sha256sum on every padding boundary, then the plan
 * digest: equal plans hash equal, any change to what the sandbox does
 * changes the hash (an audit record that missed a change would be useless).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include "unit.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

/* ------------------------------------------------------------ SHA-256 */

static void
test_sha256_fips_180_4_vectors (void **state)
{
  static const struct
  {
    const char *msg;
    const char *hex;
  } kat[] = {
    { "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
    { "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
    { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
    { "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
  };
  (void) state;

  for (size_t i = 0; i < sizeof kat / sizeof kat[0]; i++)
    {
      char hex[65];
      memset (hex, 'X', sizeof hex);
      bwsh_sha256_hex (kat[i].msg, strlen (kat[i].msg), hex);
      assert_int_equal (hex[64], '\0');
      assert_string_equal (hex, kat[i].hex);
    }
}

static void
test_sha256_million_a (void **state)
{
  size_t n = 1000000;
  char *a = malloc (n);
  char hex[65];
  (void) state;

  assert_non_null (a);
  memset (a, 'a', n);
  bwsh_sha256_hex (a, n, hex);
  assert_string_equal (hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  free (a);
}

static void
test_sha256_matches_sha256sum_on_block_boundaries (void **state)
{
  /* Lengths around the 55/56/64-byte padding edges, checked against an
   * independent implementation. */
  static const size_t lens[] = { 1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 191, 192, 1000, 4097 };
  char dir[] = "/tmp/bwsh-unit-digest-XXXXXX";
  char path[64], cmd[128];
  (void) state;

  assert_non_null (mkdtemp (dir));
  snprintf (path, sizeof path, "%s/data", dir);
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
    {
      unsigned char *buf = malloc (lens[i]);
      char mine[65], theirs[80] = { 0 };
      FILE *f;
      int fd;

      assert_non_null (buf);
      for (size_t k = 0; k < lens[i]; k++)
        buf[k] = (unsigned char) (k * 131 + 7);
      fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      assert_true (fd >= 0);
      assert_int_equal (write (fd, buf, lens[i]), (ssize_t) lens[i]);
      close (fd);
      snprintf (cmd, sizeof cmd, "sha256sum '%s'", path);
      f = popen (cmd, "r");
      assert_non_null (f);
      assert_non_null (fgets (theirs, sizeof theirs, f));
      assert_int_equal (pclose (f), 0);
      theirs[64] = '\0';
      bwsh_sha256_hex (buf, lens[i], mine);
      if (strcmp (mine, theirs) != 0)
        fail_msg ("length %zu: %s, sha256sum says %s", lens[i], mine, theirs);
      free (buf);
    }
  unlink (path);
  rmdir (dir);
}

/* --------------------------------------------------------- plan digest */

typedef UnitPlanFx Fx;

static int
setup (void **state)
{
  *state = unit_plan_fx_new ("digest", "/bin/sh", NULL, false);
  return *state == NULL ? -1 : 0;
}

static int
teardown (void **state)
{
  return unit_plan_fx_free (*state);
}

/* Digest of the plan for overlay @json (NULL = none; "@H" = home) and @envp. */
static void
digest_of (const Fx *f, const char *json, char *const *envp, char hex[65])
{
  BwshUserConfig *uc = NULL;
  BwshPlan *p = NULL;
  BwshError err = { 0 };
  BwshDiag diag = { 0 };

  if (json != NULL)
    {
      char *doc = unit_plan_fx_subst (f, json);
      assert_non_null (doc);
      assert_int_equal (bwsh_user_config_parse (doc, strlen (doc), "/cfg.json", &uc, &diag, &err), 0);
      free (doc);
      bwsh_diag_clear (&diag);
    }
  if (bwsh_plan_build (f->id, f->pol, uc, envp, &p, &err) != 0)
    fail_msg ("build: %s", err.message);
  memset (hex, 'X', 65);
  bwsh_plan_digest (p, hex);
  assert_int_equal (hex[64], '\0');
  assert_int_equal (strspn (hex, "0123456789abcdef"), 64);
  bwsh_plan_free (p);
  bwsh_user_config_free (uc);
}

#define MOUNTS(x) "{\"preferences\": {\"sandboxBwrapMounts\": {" x "}}}"

static void
test_plan_digest_stable_for_equal_plans (void **state)
{
  Fx *f = *state;
  char a[65], b[65], c[65], d[65];

  digest_of (f, NULL, NULL, a);
  digest_of (f, NULL, NULL, b);
  assert_string_equal (a, b);
  /* the same overlay spelled differently is the same plan */
  digest_of (f, MOUNTS ("\"additionalROBinds\": [\"/srv/data\"]"), NULL, c);
  digest_of (f, MOUNTS ("\"additionalROBinds\": [\"//srv/./data/\"]"), NULL, d);
  assert_string_equal (c, d);
}

static void
test_plan_digest_changes_with_what_the_sandbox_does (void **state)
{
  Fx *f = *state;
  char base[65], other[65];

  digest_of (f, NULL, NULL, base);

  static const char *const overlays[] = {
    MOUNTS ("\"additionalROBinds\": [\"/srv/data\"]"),             /* a mount more */
    MOUNTS ("\"additionalROBinds\": [\"/srv/datb\"]"),             /* a different source */
    MOUNTS ("\"additionalROBinds\": [{\"src\": \"/srv/data\", \"dst\": \"/mnt/x\"}]"),
    MOUNTS ("\"additionalBinds\": [\"@H/work\"]"),                 /* read-write instead */
    MOUNTS ("\"disabledDefaultBinds\": [\"/run\"]"),               /* a verdict */
    MOUNTS ("\"additionalROBinds\": [\"/proc\"]"),                 /* a refused entry */
    "{\"preferences\": {\"sandboxProjectDir\": \"@H/work\"}}",     /* chdir and a bind */
  };
  for (size_t i = 0; i < sizeof overlays / sizeof overlays[0]; i++)
    {
      digest_of (f, overlays[i], NULL, other);
      if (strcmp (base, other) == 0)
        fail_msg ("overlay %zu does not change the digest", i);
    }
  {
    char ro[65], rw[65];
    digest_of (f, MOUNTS ("\"additionalROBinds\": [\"@H/work\"]"), NULL, ro);
    digest_of (f, MOUNTS ("\"additionalBinds\": [\"@H/work\"]"), NULL, rw);
    assert_string_not_equal (ro, rw);
  }

  f->pol->net_mode = BWSH_NET_NONE;
  digest_of (f, NULL, NULL, other);
  assert_string_not_equal (base, other);
  f->pol->net_mode = BWSH_NET_SHARED;
  digest_of (f, NULL, NULL, other);
  assert_string_not_equal (base, other);
  f->pol->net_mode = BWSH_NET_PRIVATE;

  /* Two plans that differ only in the engine (#33). */
  f->pol->net_engine = BWSH_NET_ENGINE_PASTA;
  digest_of (f, NULL, NULL, other);
  assert_string_not_equal (base, other);
  f->pol->net_engine = BWSH_NET_ENGINE_SLIRP4NETNS;
  digest_of (f, NULL, NULL, other);
  assert_string_equal (base, other);

  f->pol->tmp_tmpfs_size = 12345;
  digest_of (f, NULL, NULL, other);
  assert_string_not_equal (base, other);
  f->pol->tmp_tmpfs_size = 1024ull * 1024 * 1024;

  f->pol->rlimit_nproc = 100;
  digest_of (f, NULL, NULL, other);
  assert_string_not_equal (base, other);
  f->pol->rlimit_nproc = BWSH_RLIMIT_UNSET;

  /* Landlock travels in the plan: pam_bwsh's BWSH_PLAN covers it. */
  f->pol->landlock = BWSH_LANDLOCK_OFF;
  digest_of (f, NULL, NULL, other);
  assert_string_not_equal (base, other);
  f->pol->landlock = BWSH_LANDLOCK_BEST_EFFORT;
  f->pol->scope_signal = !f->pol->scope_signal;
  digest_of (f, NULL, NULL, other);
  assert_string_not_equal (base, other);
  f->pol->scope_signal = !f->pol->scope_signal;
  {
    BwshSource from = { .origin = BWSH_ORIGIN_POLICY };
    char a1[65], a2[65];
    f->pol->tcp_connect_set = true;
    digest_of (f, NULL, NULL, a1);
    assert_string_not_equal (base, a1);
    assert_int_equal (bwsh_bind_list_add (&f->pol->tcp_connect, "443", NULL, &from), 0);
    digest_of (f, NULL, NULL, a2);
    assert_string_not_equal (a1, a2);
    bwsh_bind_list_clear (&f->pol->tcp_connect);
    f->pol->tcp_connect_set = false;
  }

  f->pol->root_tmpfs_size = 4096;
  digest_of (f, NULL, NULL, other);
  assert_string_not_equal (base, other);
  f->pol->root_tmpfs_size = 64ull * 1024 * 1024;

  {
    char *old = f->pol->hostname;
    f->pol->hostname = S ("box");
    digest_of (f, NULL, NULL, other);
    assert_string_not_equal (base, other);
    f->pol->hostname = old;
  }

  {
    char *old = f->pol->shell;
    f->pol->shell = S ("/bin/zsh");
    digest_of (f, NULL, NULL, other);
    assert_string_not_equal (base, other);
    f->pol->shell = old;
  }
}

static void
test_plan_digest_same_for_pam_and_shell_environments (void **state)
{
  /* bwshcore.h: the environment is left out of the digest, because pam_bwsh
   * computes it before sshd sets SSH_TTY; the same plan seen from both
   * sides must give the same digest, or every session would log a
   * mismatch.  What runs does still change it (the test above). */
  Fx *f = *state;
  char *const at_pam[] = { S ("TERM=xterm"), NULL };
  char *const in_shell[] = { S ("TERM=xterm"), S ("SSH_TTY=/dev/pts/3"), S ("TZ=UTC"), NULL };
  char a[65], b[65];

  digest_of (f, NULL, at_pam, a);
  digest_of (f, NULL, in_shell, b);
  assert_string_equal (a, b);
}

/* ------------------------------------------------ the plan's fields */

/* The members of the struct "typedef struct NAME { ... } NAME;" in @text,
 * comma-separated after a leading comma (",mounts,n_mounts,"). */
static char *
struct_members (const char *text, const char *name)
{
  _cleanup_free_ char *opening = NULL, *body = NULL;
  const char *start, *end;
  char *out, *save = NULL;
  size_t len = 0;

  assert_true (asprintf (&opening, "typedef struct %s\n{", name) > 0);
  start = strstr (text, opening);
  assert_non_null (start);
  start += strlen (opening);
  end = strstr (start, "\n}");
  assert_non_null (end);
  body = strndup (start, (size_t) (end - start));
  assert_non_null (body);
  /* Comments out. */
  for (char *c = strstr (body, "/*"); c != NULL; c = strstr (c, "/*"))
    {
      char *e = strstr (c, "*/");
      assert_non_null (e);
      memset (c, ' ', (size_t) (e + 2 - c));
    }
  out = calloc (1, strlen (body) + 2);
  assert_non_null (out);
  out[len++] = ',';
  for (char *decl = strtok_r (body, ";", &save); decl != NULL; decl = strtok_r (NULL, ";", &save))
    {
      char *d2 = NULL;
      /* "TYPE a, *b, c[N]": each declarator's name is the last word before
       * any '[' in its comma-separated part. */
      for (char *part = strtok_r (decl, ",", &d2); part != NULL; part = strtok_r (NULL, ",", &d2))
        {
          char *br = strchr (part, '['), *e, *b;
          if (br != NULL)
            *br = '\0';
          e = part + strlen (part);
          while (e > part && !(isalnum ((unsigned char) e[-1]) || e[-1] == '_'))
            e--;
          b = e;
          while (b > part && (isalnum ((unsigned char) b[-1]) || b[-1] == '_'))
            b--;
          if (b == e)
            continue;
          memcpy (out + len, b, (size_t) (e - b));
          len += (size_t) (e - b);
          out[len++] = ',';
        }
    }
  out[len] = '\0';
  return out;
}

/* The members of BwshPlan in @header_text without a row in
 * bwsh_plan_fields; the count, each one printed. */
static unsigned
members_without_row (const char *header_text)
{
  _cleanup_free_ char *members = struct_members (header_text, "BwshPlan");
  unsigned missing = 0, n = 0;
  char *save = NULL;

  for (char *m = strtok_r (members, ",", &save); m != NULL; m = strtok_r (NULL, ",", &save))
    {
      bool found = false;
      n++;
      for (size_t i = 0; i < bwsh_plan_fields_n; i++)
        found = found || strcmp (bwsh_plan_fields[i].name, m) == 0;
      if (!found)
        {
          print_message ("BwshPlan.%s is in neither the digest's list nor its exclusions (core/launch/digest.c)\n", m);
          missing++;
        }
    }
  assert_true (n >= 40);
  return missing;
}

static void
test_every_plan_field_is_listed_for_the_digest_or_excluded (void **state)
{
  _cleanup_free_ char *header = NULL, *planted = NULL;
  size_t end = 0, covered = 0;
  char *at;

  (void) state;
  header = unit_read_file (BWSH_SOURCE_DIR "/core/plan/plan.h");

  assert_int_equal (members_without_row (header), 0);

  /* Control: a field planted in a copy of the struct, beside a bool (where
   * padding would hide it from a sizeof check), is caught. */
  at = strstr (header, "  bool strict;\n");
  assert_non_null (at);
  assert_true (asprintf (&planted, "%.*s  bool strict, planted_flag; /* new */\n%s", (int) (at - header), header,
                         at + strlen ("  bool strict;\n")) > 0);
  assert_int_equal (members_without_row (planted), 1);

  /* Each row is a real member, in struct order, not overlapping the one
   * before; each is in the digest or says why not, in explain or says why
   * not; and the rows cover every byte but padding. */
  for (size_t i = 0; i < bwsh_plan_fields_n; i++)
    {
      const BwshPlanField *r = &bwsh_plan_fields[i];
      if (r->offset < end)
        fail_msg ("row %s overlaps the row before it or is out of order", r->name);
      if (r->offset - end >= 8)
        fail_msg ("%zu bytes before row %s are in no row", r->offset - end, r->name);
      end = r->offset + r->size;
      covered += r->size;
      if (!r->digest && r->left_out == NULL)
        fail_msg ("row %s: neither in the digest nor a reason", r->name);
      if (r->explain == NULL && r->left_out == NULL)
        fail_msg ("row %s: neither in explain nor a reason", r->name);
      if (r->digest && r->kind == BWSH_PLAN_FIELD_OTHER)
        fail_msg ("row %s: in the digest without a kind", r->name);
    }
  assert_true (end <= sizeof (BwshPlan) && sizeof (BwshPlan) - end < 8);
  assert_true (covered <= sizeof (BwshPlan));
}

/* Each scalar row in the digest changes it when its value changes. */
static void
test_plan_digest_covers_each_listed_field (void **state)
{
  Fx *f = *state;
  BwshPlan *p = NULL;
  BwshError err = { 0 };
  char base[65], other[65];
  unsigned checked = 0;

  if (bwsh_plan_build (f->id, f->pol, NULL, NULL, &p, &err) != 0)
    fail_msg ("build: %s", err.message);
  bwsh_plan_digest (p, base);
  for (size_t i = 0; i < bwsh_plan_fields_n; i++)
    {
      const BwshPlanField *r = &bwsh_plan_fields[i];
      unsigned char saved[16];
      char *at = (char *) p + r->offset;
      static const char changed[] = "changed";

      if (!r->digest || r->size > sizeof saved)
        continue;
      memcpy (saved, at, r->size);
      switch (r->kind)
        {
        case BWSH_PLAN_FIELD_STRING:
          memcpy (at, &(const char *) { changed }, sizeof (const char *));
          break;
        case BWSH_PLAN_FIELD_BOOL:
          at[0] = (char) !at[0];
          break;
        case BWSH_PLAN_FIELD_INT:
        case BWSH_PLAN_FIELD_UNSIGNED:
        case BWSH_PLAN_FIELD_U64:
        case BWSH_PLAN_FIELD_I64:
          at[0] = (char) (at[0] + 1);
          break;
        default:
          continue;
        }
      bwsh_plan_digest (p, other);
      memcpy (at, saved, r->size);
      if (strcmp (base, other) == 0)
        fail_msg ("changing %s does not change the digest", r->name);
      checked++;
    }
  assert_true (checked >= 13);
  bwsh_plan_digest (p, other);
  assert_string_equal (base, other);
  bwsh_plan_free (p);
}

/* Each row explain shows has its key in explain's JSON. */
static void
test_explain_json_shows_each_listed_field (void **state)
{
  Fx *f = *state;
  BwshPlan *p = NULL;
  BwshError err = { 0 };
  BwshCommand cmd = { .has_command = true, .command = "true" };
  _cleanup_free_ char *json = NULL;

  if (bwsh_plan_build (f->id, f->pol, NULL, NULL, &p, &err) != 0)
    fail_msg ("build: %s", err.message);
  p->network = BWSH_NET_PRIVATE; /* network_engine is shown with a private network */
  assert_int_equal (bwsh_explain_json (p, &cmd, NULL, &json, &err), 0);
  for (size_t i = 0; i < bwsh_plan_fields_n; i++)
    {
      _cleanup_free_ char *key = NULL;
      const char *k = bwsh_plan_fields[i].explain;
      if (k == NULL)
        continue;
      if (strcmp (k, "landlock") == 0 && strstr (json, "\"landlock\"") == NULL)
        continue; /* only where the kernel has Landlock */
      assert_true (asprintf (&key, "\"%s\":", k) > 0);
      if (strstr (json, key) == NULL)
        fail_msg ("explain's JSON has no %s for BwshPlan.%s", key, bwsh_plan_fields[i].name);
    }
  bwsh_plan_free (p);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_sha256_fips_180_4_vectors),
    cmocka_unit_test (test_sha256_million_a),
    cmocka_unit_test (test_sha256_matches_sha256sum_on_block_boundaries),
    cmocka_unit_test_setup_teardown (test_plan_digest_stable_for_equal_plans, setup, teardown),
    cmocka_unit_test_setup_teardown (test_plan_digest_changes_with_what_the_sandbox_does, setup, teardown),
    cmocka_unit_test_setup_teardown (test_plan_digest_same_for_pam_and_shell_environments, setup, teardown),
    cmocka_unit_test (test_every_plan_field_is_listed_for_the_digest_or_excluded),
    cmocka_unit_test_setup_teardown (test_plan_digest_covers_each_listed_field, setup, teardown),
    cmocka_unit_test_setup_teardown (test_explain_json_shows_each_listed_field, setup, teardown),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
