/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Landlock scoping and TCP rules, applied for real in forked children (a
 * Landlock domain cannot be left, so the test process itself stays
 * unrestricted).  Each child exits 0 when every check held, or with the
 * number of the first check that failed; the parent asserts 0.  Tests that
 * need a newer ABI than the kernel has are skipped, not passed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "unit.h"

static int
kernel_abi (void)
{
  long abi = syscall (SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

  return abi < 0 ? 0 : (int) abi;
}

/* no_new_privs as the test started: ctest may run under a parent that set it. */
static int initial_nnp;

static void
skip_below_abi (int needed)
{
  if (kernel_abi () < needed)
    {
      print_message ("kernel Landlock ABI %d < %d\n", kernel_abi (), needed);
      unit_skip ("the kernel's Landlock ABI is too old");
    }
}

static void
policy_init (BwshLandlockRequest *pol, BwshLandlockMode mode)
{
  *pol = (BwshLandlockRequest) { 0 };
  pol->mode = mode;
}

static void
policy_clear (BwshLandlockRequest *pol)
{
  bwsh_bind_list_clear (&pol->tcp_connect);
  bwsh_bind_list_clear (&pol->tcp_bind);
}

static void
add_port (BwshBindList *l, int port)
{
  char buf[16];

  snprintf (buf, sizeof buf, "%d", port);
  assert_int_equal (bwsh_bind_list_add (l, buf, NULL, NULL), 0);
}

/* Run @fn in a child and assert it exited 0; a non-zero code names the
 * failed check. */
static void
run_child (int (*fn) (const void *), const void *arg)
{
  int status = 0;
  pid_t pid = fork ();

  assert_true (pid >= 0);
  if (pid == 0)
    _exit (fn (arg));
  assert_int_equal (waitpid (pid, &status, 0), pid);
  if (WIFSIGNALED (status))
    fail_msg ("child killed by signal %d", WTERMSIG (status));
  if (WEXITSTATUS (status) != 0)
    fail_msg ("child failed check %d", WEXITSTATUS (status));
}

static int
apply_or_fail (const BwshLandlockRequest *pol, BwshLandlockReport *rep)
{
  BwshError err = { 0 };

  if (bwsh_landlock_apply (pol, rep, &err) < 0)
    {
      fprintf (stderr, "bwsh_landlock_apply: %s\n", err.message);
      return 1;
    }
  return 0;
}

/* ------------------------------------------------------- abstract sockets */

static socklen_t
abstract_addr (struct sockaddr_un *sa, const char *tag)
{
  int n;

  *sa = (struct sockaddr_un) { .sun_family = AF_UNIX };
  n = snprintf (sa->sun_path + 1, sizeof sa->sun_path - 1, "bwsh-test-%d-%s", (int) getpid (),
                tag);
  return (socklen_t) (offsetof (struct sockaddr_un, sun_path) + 1 + (size_t) n);
}

static int
abstract_listener (const struct sockaddr_un *sa, socklen_t len)
{
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd < 0 || bind (fd, (const struct sockaddr *) sa, len) < 0 || listen (fd, 4) < 0)
    return -1;
  return fd;
}

static int
abstract_connect (const struct sockaddr_un *sa, socklen_t len)
{
  _cleanup_close_ int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    return errno;
  return connect (fd, (const struct sockaddr *) sa, len) < 0 ? errno : 0;
}

typedef struct
{
  struct sockaddr_un outer;
  socklen_t outer_len;
  const char *tag; /* unique per test: a failed test's socket stays bound */
  BwshLandlockMode mode;
  bool scope;
  bool expect_scoped;
} AbstractCase;

static int
child_abstract (const void *arg)
{
  const AbstractCase *c = arg;
  BwshLandlockRequest pol;
  BwshLandlockReport rep;
  struct sockaddr_un inner;
  socklen_t inner_len;
  _cleanup_close_ int lfd = -1;

  policy_init (&pol, c->mode);
  pol.scope_abstract_unix = c->scope;
  if (apply_or_fail (&pol, &rep) != 0)
    return 1;
  if (rep.scoped_abstract != c->expect_scoped)
    return 2;

  /* The host's abstract sockets (X11, D-Bus, systemd's) were created
   * outside the session: connecting to one must fail. */
  if (abstract_connect (&c->outer, c->outer_len) != (c->expect_scoped ? EPERM : 0))
    return 3;

  /* The session's own abstract sockets keep working. */
  inner_len = abstract_addr (&inner, "inner");
  lfd = abstract_listener (&inner, inner_len);
  if (lfd < 0)
    return 4;
  if (abstract_connect (&inner, inner_len) != 0)
    return 5;
  return 0;
}

static void
run_abstract_case (AbstractCase *c)
{
  _cleanup_close_ int lfd = -1;

  c->outer_len = abstract_addr (&c->outer, c->tag);
  lfd = abstract_listener (&c->outer, c->outer_len);
  assert_true (lfd >= 0);
  run_child (child_abstract, c);
}

static void
test_abstract_socket_escape_to_host_refused (void **state)
{
  AbstractCase c = { .tag = "outer-scoped", .mode = BWSH_LANDLOCK_BEST_EFFORT, .scope = true, .expect_scoped = true };

  (void) state;
  skip_below_abi (6);
  run_abstract_case (&c);
}

static void
test_landlock_off_leaves_abstract_sockets_alone (void **state)
{
  AbstractCase c = { .tag = "outer-off", .mode = BWSH_LANDLOCK_OFF, .scope = true, .expect_scoped = false };

  (void) state;
  run_abstract_case (&c);
}

/* ----------------------------------------------------------------- signals */

static int
child_signal (const void *arg)
{
  BwshLandlockRequest pol;
  BwshLandlockReport rep;

  (void) arg;
  policy_init (&pol, BWSH_LANDLOCK_REQUIRED);
  pol.scope_signal = true;
  if (apply_or_fail (&pol, &rep) != 0)
    return 1;
  if (!rep.scoped_signal)
    return 2;
  /* The parent stands for any host process of the same user. */
  if (kill (getppid (), SIGTERM) == 0 || errno != EPERM)
    return 3;
  if (kill (getpid (), 0) != 0)
    return 4;
  return 0;
}

static void
test_signal_to_host_process_refused (void **state)
{
  (void) state;
  skip_below_abi (6);
  run_child (child_signal, NULL);
}

/* --------------------------------------------------------------------- TCP */

static int
tcp_listener (int *ret_port)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof sa;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  assert_true (fd >= 0);
  assert_int_equal (bind (fd, (struct sockaddr *) &sa, sizeof sa), 0);
  assert_int_equal (listen (fd, 4), 0);
  assert_int_equal (getsockname (fd, (struct sockaddr *) &sa, &len), 0);
  *ret_port = ntohs (sa.sin_port);
  return fd;
}

static int
tcp_connect_errno (int port)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port),
                            .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  _cleanup_close_ int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    return errno;
  return connect (fd, (struct sockaddr *) &sa, sizeof sa) < 0 ? errno : 0;
}

static int
tcp_bind_errno (int port)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port),
                            .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  _cleanup_close_ int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;

  if (fd < 0)
    return errno;
  setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  return bind (fd, (struct sockaddr *) &sa, sizeof sa) < 0 ? errno : 0;
}

typedef struct
{
  int allowed;
  int other;
} PortPair;

static int
child_tcp_connect (const void *arg)
{
  const PortPair *pp = arg;
  BwshLandlockRequest pol;
  BwshLandlockReport rep;
  int r;

  policy_init (&pol, BWSH_LANDLOCK_REQUIRED);
  pol.tcp_connect_set = true;
  add_port (&pol.tcp_connect, pp->allowed);
  r = apply_or_fail (&pol, &rep);
  policy_clear (&pol);
  if (r != 0)
    return 1;
  if (!rep.tcp_connect || rep.tcp_bind)
    return 2;
  if (tcp_connect_errno (pp->allowed) != 0)
    return 3;
  /* Exfiltration to any other port is what the rule stops. */
  if (tcp_connect_errno (pp->other) != EACCES)
    return 4;
  return 0;
}

static void
test_tcp_connect_to_unlisted_port_refused (void **state)
{
  PortPair pp;
  _cleanup_close_ int a = -1, b = -1;

  (void) state;
  skip_below_abi (4);
  a = tcp_listener (&pp.allowed);
  b = tcp_listener (&pp.other);
  run_child (child_tcp_connect, &pp);
}

static int
child_tcp_bind (const void *arg)
{
  const PortPair *pp = arg;
  BwshLandlockRequest pol;
  BwshLandlockReport rep;
  int r;

  policy_init (&pol, BWSH_LANDLOCK_REQUIRED);
  pol.tcp_bind_set = true;
  add_port (&pol.tcp_bind, pp->allowed);
  r = apply_or_fail (&pol, &rep);
  policy_clear (&pol);
  if (r != 0)
    return 1;
  if (!rep.tcp_bind || rep.tcp_connect)
    return 2;
  if (tcp_bind_errno (pp->allowed) != 0)
    return 3;
  /* A listener on a port the policy did not grant (a rogue service). */
  if (tcp_bind_errno (pp->other) != EACCES)
    return 4;
  return 0;
}

static void
test_tcp_bind_rogue_listener_refused (void **state)
{
  PortPair pp;

  (void) state;
  skip_below_abi (4);
  /* Two free ports: ask the kernel for them, then let them go. */
  close (tcp_listener (&pp.allowed));
  close (tcp_listener (&pp.other));
  run_child (child_tcp_bind, &pp);
}

/* ------------------------------------------------------------ no request */

static int
child_nothing_requested (const void *arg)
{
  BwshLandlockRequest pol;
  BwshLandlockReport rep;

  (void) arg;
  policy_init (&pol, BWSH_LANDLOCK_REQUIRED);
  pol.scope_abstract_unix = false;
  if (apply_or_fail (&pol, &rep) != 0)
    return 1;
  if (rep.scoped_abstract || rep.scoped_signal || rep.tcp_connect || rep.tcp_bind)
    return 2;
  if (rep.missing[0] != '\0')
    return 3;
  /* Nothing restricted: not even no_new_privs was set. */
  if (prctl (PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != initial_nnp)
    return 4;
  return 0;
}

static void
test_nothing_requested_applies_nothing (void **state)
{
  (void) state;
  run_child (child_nothing_requested, NULL);
}

/* ------------------------------------------------------------- filesystem */

/* The network engine's ruleset (helpers/engine_exec.c): what it allows
 * stays readable, anything else is refused. */
static int
child_fs_ruleset (const void *arg)
{
  const BwshLandlockPath allowed[] = { { "/usr", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR },
                                       { "/nonexistent-bwsh", LANDLOCK_ACCESS_FS_READ_FILE } };
  BwshError err = { 0 };
  int fd = -1, probe;

  (void) arg;
  /* control: readable before */
  probe = open ("/etc/passwd", O_RDONLY | O_CLOEXEC);
  if (probe < 0)
    return 1;
  close (probe);
  if (bwsh_landlock_fs_ruleset (allowed, BWSH_N_ELEMENTS (allowed), &fd, &err) < 0 || fd < 0)
    return 2;
  if (bwsh_landlock_restrict (fd, &err) < 0)
    return 3;
  probe = open ("/usr/bin", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (probe < 0)
    return 4;
  close (probe);
  if (open ("/etc/passwd", O_RDONLY | O_CLOEXEC) >= 0 || errno != EACCES)
    return 5;
  return 0;
}

static void
test_fs_ruleset_allows_only_its_paths (void **state)
{
  (void) state;
  skip_below_abi (1);
  run_child (child_fs_ruleset, NULL);
}

/* ------------------------------------------------------------------ probe */

static void
test_probe_reports_kernel_abi (void **state)
{
  BwshLandlockRequest pol;
  BwshLandlockReport rep;

  (void) state;
  skip_below_abi (1);
  policy_init (&pol, BWSH_LANDLOCK_BEST_EFFORT);
  pol.scope_abstract_unix = true;
  pol.scope_signal = true;
  assert_int_equal (bwsh_landlock_probe (&pol, &rep), 0);
  assert_true (rep.abi >= 1);
#if !BWSH_TEST_BUILD
  assert_int_equal (rep.abi, kernel_abi ());
#endif
  assert_int_equal (rep.scoped_abstract, rep.abi >= 6);
  assert_int_equal (rep.scoped_signal, rep.abi >= 6);
  /* Probing restricts nothing. */
  assert_int_equal (prctl (PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), initial_nnp);
}

/* A typo in the policy must not silently become "any port" or port 0. */
static void
test_malformed_port_rejected (void **state)
{
  static const struct
  {
    const char *port;
    int expected;
  } cases[] = {
    { "22", 0 },       { "1", 0 },         { "65535", 0 },   { "0", -EINVAL },
    { "65536", -EINVAL }, { "-1", -EINVAL }, { "+22", -EINVAL }, { " 22", -EINVAL },
    { "22 ", -EINVAL }, { "22x", -EINVAL }, { "", -EINVAL },    { "0x16", -EINVAL },
    { "99999999999999999999", -EINVAL },
  };

  (void) state;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (cases); i++)
    {
      BwshLandlockRequest pol;
      BwshLandlockReport rep;

      for (int key = 0; key < 2; key++)
        {
          BwshBindList *l;
          int r;

          policy_init (&pol, BWSH_LANDLOCK_BEST_EFFORT);
          if (key == 0)
            {
              pol.tcp_connect_set = true;
              l = &pol.tcp_connect;
            }
          else
            {
              pol.tcp_bind_set = true;
              l = &pol.tcp_bind;
            }
          assert_int_equal (bwsh_bind_list_add (l, cases[i].port, NULL, NULL), 0);
          /* probe shares the parser with apply and never restricts. */
          r = bwsh_landlock_probe (&pol, &rep);
          policy_clear (&pol);
          if (r != cases[i].expected)
            fail_msg ("port \"%s\": expected %d, got %d", cases[i].port, cases[i].expected, r);
        }
    }
}

/* --------------------------------------------------- simulated old kernel */

#if BWSH_TEST_BUILD
static void
test_required_scope_on_old_kernel_fails_closed (void **state)
{
  BwshLandlockRequest pol;
  BwshLandlockReport rep = { 0 };
  BwshError err = { 0 };
  int r;

  (void) state;
  skip_below_abi (1);
  policy_init (&pol, BWSH_LANDLOCK_REQUIRED);
  pol.scope_abstract_unix = true;
  setenv ("BWSH_TEST_LANDLOCK_ABI", "3", 1);
  r = bwsh_landlock_apply (&pol, &rep, &err);
  unsetenv ("BWSH_TEST_LANDLOCK_ABI");

  assert_int_equal (r, -EOPNOTSUPP);
  assert_non_null (strstr (err.message, "scope_abstract_unix"));
  assert_non_null (strstr (err.message, "ABI 3"));
  assert_int_equal (prctl (PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), initial_nnp);
}

static int
child_best_effort_old_kernel (const void *arg)
{
  BwshLandlockRequest pol;
  BwshLandlockReport rep;
  int r;

  (void) arg;
  policy_init (&pol, BWSH_LANDLOCK_BEST_EFFORT);
  pol.scope_abstract_unix = true;
  pol.tcp_connect_set = true;
  add_port (&pol.tcp_connect, 22);
  setenv ("BWSH_TEST_LANDLOCK_ABI", "4", 1);
  r = apply_or_fail (&pol, &rep);
  policy_clear (&pol);
  if (r != 0)
    return 1;
  if (rep.abi != 4 || rep.scoped_abstract || !rep.tcp_connect)
    return 2;
  /* What was left out is said, so explain and the log can show it. */
  if (strstr (rep.missing, "scope_abstract_unix") == NULL || strstr (rep.missing, "tcp") != NULL)
    return 3;
  return 0;
}

static void
test_best_effort_old_kernel_reports_missing_scope (void **state)
{
  (void) state;
  skip_below_abi (4);
  run_child (child_best_effort_old_kernel, NULL);
}

/* #14: with a shared network, the default best effort is not enough: an
 * old kernel refuses the session unless best_effort is written, and the
 * message says both ways out.  A private network keeps best effort. */
static int
child_shared_network_requires_scope_by_default (const void *arg)
{
  BwshPolicy *pol = NULL;
  BwshLandlockRequest req = { 0 };
  BwshLandlockReport rep;
  BwshError err = { 0 };
  int r, ret = 0;

  (void) arg;
  if (bwsh_policy_new_defaults (&pol) < 0)
    return 1;
  pol->net_mode = BWSH_NET_SHARED; /* landlock.mode left at its built-in default */
  setenv ("BWSH_TEST_LANDLOCK_ABI", "5", 1);
  if (!bwsh_landlock_required_by_network (pol) || bwsh_landlock_request_from_policy (pol, &req) < 0
      || req.mode != BWSH_LANDLOCK_REQUIRED || !req.for_shared_network)
    ret = 1;
  else if ((r = bwsh_landlock_apply (&req, &rep, &err)) != -EOPNOTSUPP)
    ret = 2;
  else if (strcmp (err.message, "landlock: network = \"shared\" requires scope_abstract_unix (needs ABI 6), "
                                "scope_signal (needs ABI 6), but the kernel only has Landlock ABI 5; use network = "
                                "\"private\", or write landlock.mode = \"best_effort\" in the policy to accept the "
                                "shared network without it")
           != 0)
    ret = 3;
  /* Nothing was restricted: the refusal came before the ruleset. */
  else if (prctl (PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != initial_nnp)
    ret = 4;
  bwsh_landlock_request_clear (&req);

  /* Written in so many words: best effort again. */
  pol->landlock_mode_set = true;
  if (ret == 0 && (bwsh_landlock_required_by_network (pol) || bwsh_landlock_request_from_policy (pol, &req) < 0
                   || req.mode != BWSH_LANDLOCK_BEST_EFFORT || bwsh_landlock_probe (&req, &rep) != 0
                   || rep.missing[0] == '\0'))
    ret = 5;
  bwsh_landlock_request_clear (&req);
  /* A private network needs no scope to keep the host's sockets out. */
  pol->landlock_mode_set = false;
  pol->net_mode = BWSH_NET_PRIVATE;
  if (ret == 0 && bwsh_landlock_required_by_network (pol))
    ret = 6;
  pol->net_mode = BWSH_NET_NONE;
  if (ret == 0 && bwsh_landlock_required_by_network (pol))
    ret = 7;
  bwsh_policy_free (pol);
  return ret;
}

static void
test_shared_network_requires_scope_by_default (void **state)
{
  (void) state;
  skip_below_abi (1);
  run_child (child_shared_network_requires_scope_by_default, NULL);
}

static int
child_simulated_abi_cannot_raise (const void *arg)
{
  BwshLandlockReport rep;

  (void) arg;
  setenv ("BWSH_TEST_LANDLOCK_ABI", "999", 1);
  if (bwsh_landlock_probe (NULL, &rep) != 0)
    return 1;
  return rep.abi == kernel_abi () ? 0 : 2;
}

static void
test_simulated_abi_cannot_claim_features (void **state)
{
  (void) state;
  run_child (child_simulated_abi_cannot_raise, NULL);
}
#endif

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_probe_reports_kernel_abi),
    cmocka_unit_test (test_abstract_socket_escape_to_host_refused),
    cmocka_unit_test (test_landlock_off_leaves_abstract_sockets_alone),
    cmocka_unit_test (test_signal_to_host_process_refused),
    cmocka_unit_test (test_tcp_connect_to_unlisted_port_refused),
    cmocka_unit_test (test_tcp_bind_rogue_listener_refused),
    cmocka_unit_test (test_nothing_requested_applies_nothing),
    cmocka_unit_test (test_malformed_port_rejected),
#if BWSH_TEST_BUILD
    cmocka_unit_test (test_required_scope_on_old_kernel_fails_closed),
    cmocka_unit_test (test_best_effort_old_kernel_reports_missing_scope),
    cmocka_unit_test (test_simulated_abi_cannot_claim_features),
    cmocka_unit_test (test_shared_network_requires_scope_by_default),
    cmocka_unit_test (test_fs_ruleset_allows_only_its_paths),
#endif
  };

  initial_nnp = prctl (PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
  return cmocka_run_group_tests_name ("landlock", tests, NULL, NULL);
}
