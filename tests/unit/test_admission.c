/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/admission.c: subject, service, shell, lock, max_sessions, in that
 * order, the same for pam_bwsh and bwsh; and the registry's trust in the
 * entries bwsh writes as the user (an entry counts only for the uid that
 * owns the file and the process it names).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "admission.h"
#include "lockgroups.h"
#include "unit.h"

#define BWSH "/usr/bin/bwsh"

static char scratch[] = "/tmp/bwsh-unit-admission.XXXXXX";
static char locks[sizeof scratch + 32], sessions[sizeof scratch + 32];

static int
setup_scratch (void **state)
{
  (void) state;
  if (mkdtemp (scratch) == NULL)
    return -1;
  snprintf (locks, sizeof locks, "%s/locks", scratch);
  snprintf (sessions, sizeof sessions, "%s/run/sessions", scratch);
  return 0;
}

static int
teardown_scratch (void **state)
{
  (void) state;
  return unit_rm_rf (scratch);
}

static void
register_live (uid_t uid, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      BwshSessionEntry e = { .uid = uid, .pid = getpid (), .start = 1 };
      BwshError err = { 0 };
      size_t live;

      e.user = strdup ("tester");
      e.service = strdup ("sshd");
      assert_int_equal (bwsh_pid_start_time (e.pid, &e.pid_start), 0);
      assert_int_equal (bwsh_registry_register (sessions, &e, 0, &live, &err), 0);
      bwsh_session_entry_clear (&e);
    }
}

static const struct
{
  const char *what;
  bool pam, subject;
  const char *service, *shell;
  bool locked;
  size_t live;
  unsigned max_sessions;
  BwshAdmitVerdict want;
  BwshErrorCode want_step;
  const char *want_message;
} cases[] = {
  { "pam: a non-subject is left alone before anything else", true, false, "cron", "/bin/bash", true, 5, 1,
    BWSH_ADMIT_NOT_SUBJECT, BWSH_ERROR_NONE, NULL },
  { "pam: the service comes before the shell and the lock", true, true, "cron", "/bin/bash", true, 5, 1,
    BWSH_ADMIT_SERVICE, BWSH_ERROR_SERVICE, "service cron never runs the login shell; refused for sandboxed user tester" },
  { "pam: the shell comes before the lock", true, true, "sshd", "/bin/bash", true, 5, 1, BWSH_ADMIT_SHELL,
    BWSH_ERROR_SHELL, "the login shell of sandboxed user tester is /bin/bash, not /usr/bin/bwsh (require_shell)" },
  { "pam: the lock comes before max_sessions", true, true, "sshd", BWSH, true, 5, 1, BWSH_ADMIT_LOCKED,
    BWSH_ERROR_LOCKED, "sessions of tester are locked: ticket 4711" },
  { "pam: max_sessions", true, true, "sshd", BWSH, false, 1, 1, BWSH_ADMIT_MAX_SESSIONS, BWSH_ERROR_LIMIT,
    "tester has 1 sessions open, at most 1 are allowed (max_sessions)" },
  { "pam: below max_sessions", true, true, "sshd", BWSH, false, 1, 2, BWSH_ADMIT_ALLOWED, BWSH_ERROR_NONE, NULL },
  { "bwsh: a lock holds for whoever runs bwsh", false, false, NULL, "/bin/bash", true, 0, 0, BWSH_ADMIT_LOCKED,
    BWSH_ERROR_LOCKED, "sessions of tester are locked: ticket 4711" },
  { "bwsh: max_sessions without pam_bwsh", false, false, NULL, BWSH, false, 2, 2, BWSH_ADMIT_MAX_SESSIONS,
    BWSH_ERROR_LIMIT, "tester has 2 sessions open, at most 2 are allowed (max_sessions)" },
  { "bwsh: nothing in the way", false, true, NULL, BWSH, false, 0, 1, BWSH_ADMIT_ALLOWED, BWSH_ERROR_NONE, NULL },
};

static void
test_admission_steps_in_order (void **state)
{
  (void) state;
  if (geteuid () != 0)
    unit_skip ("locks and the registry must be root's: run as root");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      BwshIdentity *id = unit_identity ("/home/tester", cases[i].shell);
      BwshPolicy *pol = NULL;
      BwshAdmission a = { 0 };
      BwshError err = { 0 };
      BwshAdmitRequest req = {
        .pam = cases[i].pam,
        .service = cases[i].service,
        .bwsh_binary = BWSH,
        .locks_dir = locks,
        .sessions_dir = sessions,
      };
      int r;

      assert_non_null (id);
      assert_int_equal (bwsh_policy_new_defaults (&pol), 0);
      pol->is_subject = cases[i].subject;
      pol->max_sessions = cases[i].max_sessions;
      assert_int_equal (unit_rm_rf (locks), 0);
      assert_int_equal (unit_rm_rf (sessions), 0);
      if (cases[i].locked)
        {
          BwshLock l = { .target = id->name, .reason = (char *) (uintptr_t) "ticket 4711", .by = (char *) (uintptr_t) "x" };
          assert_int_equal (bwsh_lock_write (locks, &l, &err), 0);
        }
      register_live (id->uid, cases[i].live);

      r = bwsh_admit (&req, id, pol, &a, &err);
      if (a.verdict != cases[i].want || (cases[i].want_message == NULL) != (r == 0)
          || (cases[i].want_message != NULL && (err.code != cases[i].want_step
                                                 || strcmp (err.message, cases[i].want_message) != 0)))
        fail_msg ("%s: verdict %s (r=%d, step %d, \"%s\"), want %s", cases[i].what, bwsh_admit_verdict_name (a.verdict),
                  r, err.code, err.message, bwsh_admit_verdict_name (cases[i].want));
      if (r < 0)
        assert_int_equal (r, -EPERM);
      bwsh_admission_clear (&a);
      bwsh_policy_free (pol);
      bwsh_identity_free (id);
    }
}

/* lock_groups (#39): a subject in a lock group is refused with the
 * policy's reason and never told the group; the lock names the group and
 * where the policy sets it.  Root and non-subjects are never locked. */
static const struct
{
  const char *what;
  const char *policy;
  uid_t uid;
  bool pam;
  BwshAdmitVerdict want;
  const char *want_message, *want_target;
} lock_group_cases[] = {
  { "a subject in the second lock group", "subjects = { users = [ \"tester\" ]; };\n"
    "lock_groups = [ \"ops\", \"oncall\" ];\nlock_reason = \"off-boarding\";", 1000, true, BWSH_ADMIT_LOCKED,
    "sessions of tester are locked: off-boarding", "@oncall" },
  { "a subject by group, no reason written", "subjects = { groups = [ \"staff\" ]; };\nlock_groups = [ \"oncall\" ];",
    1000, false, BWSH_ADMIT_LOCKED, "sessions of tester are locked: no reason given", "@oncall" },
  { "a subject in no lock group", "subjects = { all = true; };\nlock_groups = [ \"ops\" ];", 1000, true,
    BWSH_ADMIT_ALLOWED, NULL, NULL },
  { "a member who is not a subject: pam_bwsh leaves it alone", "lock_groups = [ \"oncall\" ];", 1000, true,
    BWSH_ADMIT_NOT_SUBJECT, NULL, NULL },
  { "a member who is not a subject: bwsh does not lock it", "lock_groups = [ \"oncall\" ];", 1000, false,
    BWSH_ADMIT_ALLOWED, NULL, NULL },
  { "root in a lock group is never locked", "subjects = { all = true; };\nlock_groups = [ \"oncall\" ];", 0, true,
    BWSH_ADMIT_ALLOWED, NULL, NULL },
};

static void
test_lock_group_refuses_subject_with_reason_never_root_or_non_subject (void **state)
{
  (void) state;
  if (geteuid () != 0)
    unit_skip ("locks and the registry must be root's: run as root");
  for (size_t i = 0; i < sizeof lock_group_cases / sizeof lock_group_cases[0]; i++)
    {
      BwshIdentity *id = unit_identity ("/home/tester", BWSH);
      BwshPolicy *pol = NULL;
      BwshAdmission a = { 0 };
      BwshError err = { 0 };
      BwshAdmitRequest req = { .pam = lock_group_cases[i].pam, .service = "sshd", .bwsh_binary = BWSH,
                               .locks_dir = locks, .sessions_dir = sessions };
      int r;

      assert_non_null (id);
      /* The group list as getgrouplist() would give it, without NSS. */
      id->uid = lock_group_cases[i].uid;
      id->groups = calloc (3, sizeof *id->groups);
      assert_non_null (id->groups);
      id->groups[0] = strdup ("staff");
      id->groups[1] = strdup ("oncall");
      id->n_groups = 2;
      assert_int_equal (unit_rm_rf (locks), 0);
      assert_int_equal (bwsh_policy_new_defaults (&pol), 0);
      assert_int_equal (bwsh_policy_parse_buffer (pol, lock_group_cases[i].policy, "test.conf", NULL, id, &err), 0);
      r = bwsh_admit (&req, id, pol, &a, &err);
      if (a.verdict != lock_group_cases[i].want || (lock_group_cases[i].want_message == NULL) != (r == 0)
          || (r < 0 && strcmp (err.message, lock_group_cases[i].want_message) != 0))
        fail_msg ("%s: verdict %s (r=%d, \"%s\")", lock_group_cases[i].what, bwsh_admit_verdict_name (a.verdict), r,
                  err.message);
      if (r < 0)
        {
          assert_int_equal (err.code, BWSH_ERROR_LOCKED);
          assert_null (strstr (err.message, "oncall"));
          assert_string_equal (a.lock.target, lock_group_cases[i].want_target);
          assert_true (bwsh_lock_is_policy (&a.lock));
          assert_string_equal (a.lock.by, "policy test.conf:2");
        }
      bwsh_admission_clear (&a);
      bwsh_policy_free (pol);
      bwsh_identity_free (id);
    }
}

/* bwshctl enforce's note reaches pam_bwsh's close once, and only root's. */
static void
test_lock_note_taken_once (void **state)
{
  BwshLock l = { .target = (char *) (uintptr_t) "@oncall", .reason = (char *) (uintptr_t) "off-boarding",
                 .by = (char *) (uintptr_t) "policy /etc/bwsh/bwsh.conf:3" }, got = { 0 };
  BwshError err = { 0 };

  (void) state;
  if (geteuid () != 0)
    unit_skip ("the registry must be root's: run as root");
  assert_int_equal (unit_rm_rf (sessions), 0);
  register_live (getuid (), 1);
  assert_int_equal (bwsh_lock_note_write (sessions, "123-456-0", &l, &err), 0);
  assert_int_equal (bwsh_lock_note_take (sessions, "123-456-0", &got), 0);
  assert_string_equal (got.target, "@oncall");
  assert_string_equal (got.reason, "off-boarding");
  assert_string_equal (got.by, "policy /etc/bwsh/bwsh.conf:3");
  bwsh_lock_clear (&got);
  assert_int_equal (bwsh_lock_note_take (sessions, "123-456-0", &got), -ENOENT);
  assert_int_equal (bwsh_lock_note_write (sessions, "../x", &l, &err), -EINVAL);
}

/* A process of @uid that waits to be killed. */
static pid_t
child_as (uid_t uid)
{
  pid_t pid = fork ();

  assert_true (pid >= 0);
  if (pid == 0)
    {
      if (setresgid (65534, 65534, 65534) < 0 || setresuid (uid, uid, uid) < 0)
        _exit (1);
      pause ();
      _exit (0);
    }
  /* Until the child has changed its uid, /proc/PID still says root's. */
  for (int i = 0; i < 200; i++)
    {
      char path[32];
      struct stat st;
      snprintf (path, sizeof path, "/proc/%d", (int) pid);
      if (stat (path, &st) == 0 && st.st_uid == uid)
        break;
      usleep (5000);
    }
  return pid;
}

/* An entry in the users' part counts for the uid that owns the file and the
 * process, never for another: a user cannot fill somebody else's
 * max_sessions, nor make bwshctl lock signal another user's process. */
static void
test_user_entries_count_only_for_their_owner (void **state)
{
  char userdir[sizeof sessions + 8], path[sizeof sessions + 64];
  static const uid_t owner = 65534, victim = 4242;
  pid_t child;
  size_t live = 99;
  int status;

  (void) state;
  if (geteuid () != 0)
    unit_skip ("the registry must be root's: run as root");
  assert_int_equal (unit_rm_rf (sessions), 0);
  assert_int_equal (bwsh_registry_count (sessions, owner, NULL, &live, NULL), 0); /* no registry: 0 */
  assert_int_equal (live, 0);
  register_live (0, 0);
  {
    /* Root makes the registry and its users' part (sticky, like /tmp). */
    BwshSessionEntry e = { .uid = 1, .pid = getpid (), .start = 1 };
    assert_int_equal (bwsh_pid_start_time (e.pid, &e.pid_start), 0);
    e.user = strdup ("x");
    assert_int_equal (bwsh_registry_register (sessions, &e, 0, &live, NULL), 0);
    assert_int_equal (bwsh_registry_unregister (sessions, e.id), 0);
    bwsh_session_entry_clear (&e);
  }
  snprintf (userdir, sizeof userdir, "%s/user", sessions);
  {
    struct stat st;
    assert_int_equal (stat (userdir, &st), 0);
    assert_int_equal (st.st_mode & 07777, 01777);
    assert_int_equal (stat (sessions, &st), 0);
    assert_int_equal (st.st_mode & 07777, 0755);
  }

  child = child_as (owner);
  {
    uint64_t start;
    assert_int_equal (bwsh_pid_start_time (child, &start), 0);
    static const struct
    {
      const char *name;
      uid_t file_owner, claims;
    } files[] = {
      { "mine", 65534, 65534 },   /* counts for 65534 */
      { "forged", 65534, 4242 },  /* 65534's file naming 4242: nothing */
      { "rootish", 65534, 0 },    /* nor root */
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
      {
        FILE *f;
        snprintf (path, sizeof path, "%s/%s", userdir, files[i].name);
        f = fopen (path, "we");
        assert_non_null (f);
        fprintf (f, "{\"user\":\"u\",\"uid\":%u,\"pid\":%d,\"pid_start\":%llu,\"start\":1}", (unsigned) files[i].claims,
                 (int) child, (unsigned long long) start);
        fclose (f);
        assert_int_equal (chown (path, files[i].file_owner, 0), 0);
        assert_int_equal (chmod (path, 0644), 0);
      }
    /* The same entry in root's part, written by somebody else: not trusted. */
    snprintf (path, sizeof path, "%s/planted", sessions);
    {
      FILE *f = fopen (path, "we");
      assert_non_null (f);
      fprintf (f, "{\"user\":\"u\",\"uid\":%u,\"pid\":%d,\"pid_start\":%llu,\"start\":1}", (unsigned) victim,
               (int) child, (unsigned long long) start);
      fclose (f);
      assert_int_equal (chown (path, owner, 0), 0);
    }
  }
  assert_int_equal (bwsh_registry_count (sessions, owner, NULL, &live, NULL), 0);
  assert_int_equal (live, 1);
  assert_int_equal (bwsh_registry_count (sessions, victim, NULL, &live, NULL), 0);
  assert_int_equal (live, 0);
  assert_int_equal (bwsh_registry_count (sessions, 0, NULL, &live, NULL), 0);
  assert_int_equal (live, 0);

  /* The process gone: the entry is pruned on the way. */
  kill (child, SIGKILL);
  waitpid (child, &status, 0);
  assert_int_equal (bwsh_registry_count (sessions, owner, NULL, &live, NULL), 0);
  assert_int_equal (live, 0);
  snprintf (path, sizeof path, "%s/mine", userdir);
  assert_int_equal (access (path, F_OK), -1);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_admission_steps_in_order),
    cmocka_unit_test (test_user_entries_count_only_for_their_owner),
    cmocka_unit_test (test_lock_group_refuses_subject_with_reason_never_root_or_non_subject),
    cmocka_unit_test (test_lock_note_taken_once),
  };
  return cmocka_run_group_tests (tests, setup_scratch, teardown_scratch);
}
