/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SHA-256 (core/digest.c) against the FIPS 180-4 / NIST example vectors and
 * against coreutils' sha256sum on every padding boundary, then the plan
 * digest: equal plans hash equal, any change to what the sandbox does
 * changes the hash (an audit record that missed a change would be useless).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

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
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
