/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/session/admission.c: subject, service, shell, lock, max_sessions, in that
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
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "bwshcore.h"
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

/* An entry in the users' part counts for the uid that owns its place (and
 * the process), never for another: a user cannot fill somebody else's
 * max_sessions by making user/UID first, nor make bwshctl lock signal
 * another user's process; and a count reads its own user's places only. */
static void
test_user_entries_count_only_for_their_owner (void **state)
{
  char userdir[sizeof sessions + 8], path[sizeof sessions + 96];
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
    assert_string_equal (e.id + strlen (e.id) - 2, "-0");
    assert_int_equal (strncmp (e.id, "uid/1/", 6), 0);
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
    /* 65534's own place; user/4242 and user/0 made by 65534 first (squatted);
     * a file of 65534's named like 4242's in user/ itself. */
    static const struct
    {
      const char *dir, *prefix;
      uid_t claims;
    } files[] = {
      { "65534", "", 65534 }, /* counts for 65534 */
      { "4242", "", 4242 },   /* 65534's place named 4242: nothing */
      { "0", "", 0 },         /* nor root */
      { NULL, "4242-", 4242 },
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
      {
        FILE *f;
        if (files[i].dir != NULL)
          {
            snprintf (path, sizeof path, "%s/%s", userdir, files[i].dir);
            assert_int_equal (mkdir (path, 0755), 0);
            assert_int_equal (chown (path, owner, 0), 0);
          }
        snprintf (path, sizeof path, "%s/%s%s%s%d-%llu-0", userdir, files[i].dir != NULL ? files[i].dir : "",
                  files[i].dir != NULL ? "/" : "", files[i].prefix, (int) child, (unsigned long long) start);
        f = fopen (path, "we");
        assert_non_null (f);
        fprintf (f, "{\"user\":\"u\",\"uid\":%u,\"pid\":%d,\"pid_start\":%llu,\"start\":1}", (unsigned) files[i].claims,
                 (int) child, (unsigned long long) start);
        fclose (f);
        assert_int_equal (chown (path, owner, 0), 0);
        assert_int_equal (chmod (path, 0644), 0);
      }
    /* The same entry at the registry's top, written by somebody else: not trusted. */
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
  {
    /* bwshctl's listing agrees: one session, 65534's. */
    BwshSessionList l = { 0 };
    assert_int_equal (bwsh_registry_read (sessions, &l, NULL), 0);
    assert_int_equal (l.n, 1);
    assert_int_equal (l.items[0].uid, owner);
    assert_true (l.items[0].by_bwsh);
    bwsh_session_list_clear (&l);
  }

  /* The process gone: the entry is pruned on the way. */
  kill (child, SIGKILL);
  waitpid (child, &status, 0);
  assert_int_equal (bwsh_registry_count (sessions, owner, NULL, &live, NULL), 0);
  assert_int_equal (live, 0);
  assert_int_equal (access (path, F_OK), 0); /* the planted one: nobody's count reads it */
}

/* bwsh finds pam_bwsh's registration of its session by a lookup of its
 * ancestors in its user's place (#37): the parent's entry is this session's;
 * one naming the same pid with another start time (a reused pid), one of
 * another uid, or one in the users' part (bwsh's own) is not. */
static void
test_ancestor_lookup_finds_only_a_live_pam_entry_of_the_uid (void **state)
{
  BwshSessionEntry e = { .uid = 4243, .pid = getppid (), .start = 1 };
  char path[sizeof sessions + 96];
  bool held = true;
  size_t live;

  (void) state;
  if (geteuid () != 0)
    unit_skip ("the registry must be root's: run as root");
  assert_int_equal (unit_rm_rf (sessions), 0);
  assert_int_equal (bwsh_registry_holds_ancestor (sessions, 4243, getpid (), &held, NULL, NULL), 0); /* no registry */
  assert_false (held);
  e.user = strdup ("x");
  assert_int_equal (bwsh_pid_start_time (e.pid, &e.pid_start), 0);
  e.pid_start++; /* a pid now reused */
  assert_int_equal (bwsh_registry_register (sessions, &e, 0, &live, NULL), 0);
  assert_int_equal (bwsh_registry_holds_ancestor (sessions, 4243, getpid (), &held, NULL, NULL), 0);
  assert_false (held);
  e.pid_start--;
  /* The entry of a gone process alone holds nothing (the lookup skips it
   * without reading the chain), and beside the parent's changes nothing. */
  {
    pid_t gone = fork ();
    int status;
    if (gone == 0)
      _exit (0);
    assert_true (gone > 0);
    assert_int_equal (waitpid (gone, &status, 0), gone);
    snprintf (path, sizeof path, "%s/uid/4243/%d-1-0", sessions, (int) gone);
    assert_int_equal (mknod (path, S_IFREG | 0644, 0), 0); /* in the place the reused pid's entry made */
    assert_int_equal (bwsh_registry_holds_ancestor (sessions, 4243, getpid (), &held, NULL, NULL), 0);
    assert_false (held);
  }
  assert_int_equal (bwsh_registry_register (sessions, &e, 0, &live, NULL), 0);
  if (access (path, F_OK) != 0) /* the registration's count removed it */
    assert_int_equal (mknod (path, S_IFREG | 0644, 0), 0);
  assert_int_equal (bwsh_registry_holds_ancestor (sessions, 4243, getpid (), &held, NULL, NULL), 0);
  assert_true (held);
  assert_int_equal (unlink (path), 0);
  assert_int_equal (bwsh_registry_holds_ancestor (sessions, 4244, getpid (), &held, NULL, NULL), 0);
  assert_false (held);
  /* The same name in the users' part: bwsh's own entry, no PAM session. */
  snprintf (path, sizeof path, "%s/%s", sessions, e.id);
  assert_int_equal (bwsh_registry_unregister (sessions, e.id), 0);
  assert_int_equal (access (path, F_OK), -1);
  snprintf (path, sizeof path, "%s/user/4243", sessions);
  assert_int_equal (mkdir (path, 0755), 0);
  assert_int_equal (chown (path, 4243, 0), 0);
  snprintf (path, sizeof path, "%s/user/4243/%d-%llu-0", sessions, (int) e.pid, (unsigned long long) e.pid_start);
  assert_int_equal (mknod (path, S_IFREG | 0644, 0), 0);
  assert_int_equal (bwsh_registry_holds_ancestor (sessions, 4243, getpid (), &held, NULL, NULL), 0);
  assert_false (held);
  bwsh_session_entry_clear (&e);
}

/* A kept state's closure (#38): the earliest home epoch of a uid's live
 * entries, from names and mtimes only, less the clocks' slack (50 ms): none
 * live gives INT64_MAX; a live entry gives its process's start, or the
 * epoch written as its mtime when that is earlier; a gone process's entry
 * counts for nothing.  The session's own pam_bwsh entry (found by bwsh as
 * its ancestor's) counts by its epoch alone, less a tick of the coarse
 * clock: its process's start (an sshd that began before the user
 * authenticated) would leave out what appeared during the login. */
static void
test_oldest_home_epoch_is_the_earliest_start_or_recorded_epoch (void **state)
{
  static const int64_t slack = INT64_C (50000000);
  BwshSessionEntry e = { .uid = 4245, .pid = getppid (), .start = 1 };
  BwshRegistryName own = { 0 };
  struct timespec now, tick;
  int64_t oldest = 0, t_now;
  bool held = false;
  size_t live;

  (void) state;
  if (geteuid () != 0)
    unit_skip ("the registry must be root's: run as root");
  assert_int_equal (unit_rm_rf (sessions), 0);
  assert_int_equal (bwsh_registry_oldest (sessions, 4245, NULL, &oldest, NULL), 0); /* no registry */
  assert_true (oldest == INT64_MAX);
  assert_int_equal (clock_gettime (CLOCK_REALTIME, &now), 0);
  t_now = (int64_t) now.tv_sec * 1000000000 + now.tv_nsec;
  e.user = strdup ("x");
  assert_int_equal (bwsh_pid_start_time (e.pid, &e.pid_start), 0);
  /* The parent's start: before now, after the boot. */
  assert_int_equal (bwsh_registry_register (sessions, &e, 0, &live, NULL), 0);
  char *first = strdup (e.id);
  assert_non_null (first);
  assert_int_equal (bwsh_registry_oldest (sessions, 4245, NULL, &oldest, NULL), 0);
  assert_true (oldest < t_now - slack && oldest > 0);
  int64_t start = oldest;
  /* A session that left out an entry born a day ago records that. */
  e.home_epoch = t_now - INT64_C (86400000000000);
  assert_int_equal (bwsh_registry_register (sessions, &e, 0, &live, NULL), 0);
  assert_int_equal (bwsh_registry_oldest (sessions, 4245, NULL, &oldest, NULL), 0);
  assert_true (oldest == e.home_epoch - slack);
  /* A later epoch than the start changes nothing; another uid sees none. */
  assert_int_equal (bwsh_registry_unregister (sessions, e.id), 0);
  assert_int_equal (bwsh_registry_oldest (sessions, 4245, NULL, &oldest, NULL), 0);
  assert_true (llabs (oldest - start) < 1000000); /* the boot's offset, read again */
  assert_int_equal (bwsh_registry_oldest (sessions, 4246, NULL, &oldest, NULL), 0);
  assert_true (oldest == INT64_MAX);
  /* This session's own entry (the parent's, as bwsh finds it): its epoch
   * alone, a moment ago, not its process's start. */
  assert_int_equal (bwsh_registry_holds_ancestor (sessions, 4245, getpid (), &held, &own, NULL), 0);
  assert_true (held);
  assert_true (own.pid == e.pid && own.start == e.pid_start);
  assert_int_equal (clock_getres (CLOCK_REALTIME_COARSE, &tick), 0);
  assert_int_equal (bwsh_registry_unregister (sessions, first), 0);
  free (first);
  e.home_epoch = t_now;
  assert_int_equal (bwsh_registry_register (sessions, &e, 0, &live, NULL), 0);
  assert_int_equal (bwsh_registry_oldest (sessions, 4245, &own, &oldest, NULL), 0);
  assert_true (oldest == t_now - tick.tv_nsec);
  /* As another session's entry it counts by its start. */
  assert_int_equal (bwsh_registry_oldest (sessions, 4245, NULL, &oldest, NULL), 0);
  assert_true (llabs (oldest - start) < 1000000);
  /* A process that is gone (its start no longer matches): not live. */
  e.pid_start++;
  e.home_epoch = 1;
  assert_int_equal (bwsh_registry_register (sessions, &e, 0, &live, NULL), 0);
  assert_int_equal (bwsh_registry_oldest (sessions, 4245, NULL, &oldest, NULL), 0);
  assert_true (llabs (oldest - start) < 1000000);
  bwsh_session_entry_clear (&e);
}

/* Another user made user/UID first (a symlink, a directory of its own):
 * UID's bwsh still registers (in user/ itself, as UID-PID-START-N), and
 * max_sessions still counts that entry: a squatter neither refuses a
 * victim's login nor lets it past its limit. */
static void
test_squatted_place_neither_refuses_nor_escapes_max_sessions (void **state)
{
  static const uid_t squatter = 65534, victim = 4244;
  BwshSessionEntry e = { .uid = 1, .pid = getpid (), .start = 1 };
  char path[sizeof sessions + 32];
  size_t live;
  pid_t pid;
  int status;

  (void) state;
  if (geteuid () != 0)
    unit_skip ("the registry must be root's: run as root");
  assert_int_equal (unit_rm_rf (sessions), 0);
  assert_int_equal (chmod (scratch, 0755), 0);
  e.user = strdup ("x");
  assert_int_equal (bwsh_pid_start_time (e.pid, &e.pid_start), 0);
  assert_int_equal (bwsh_registry_register (sessions, &e, 0, &live, NULL), 0); /* root makes user/ */
  assert_int_equal (bwsh_registry_unregister (sessions, e.id), 0);
  bwsh_session_entry_clear (&e);
  snprintf (path, sizeof path, "%s/user/%u", sessions, (unsigned) victim);
  assert_int_equal (symlink ("/", path), 0);
  assert_int_equal (lchown (path, squatter, squatter), 0);
  for (int round = 0; round < 2; round++)
    {
      pid = fork ();
      assert_true (pid >= 0);
      if (pid == 0)
        {
          BwshSessionEntry v = { .uid = victim, .start = 1 };
          if (setresgid (victim, victim, victim) < 0 || setresuid (victim, victim, victim) < 0
              || prctl (PR_SET_DUMPABLE, 1) < 0) /* /proc/PID is the user's, as bwsh's is */
            _exit (10);
          v.pid = getpid ();
          v.user = strdup ("v");
          if (bwsh_pid_start_time (v.pid, &v.pid_start) < 0 || bwsh_registry_register (sessions, &v, 1, &live, NULL) < 0)
            _exit (11);
          if (strncmp (v.id, "user/4244-", 10) != 0)
            _exit (12);
          free (v.id);
          v.id = NULL;
          if (bwsh_registry_register (sessions, &v, 1, &live, NULL) != -EUSERS || live != 1)
            _exit (13);
          _exit (0);
        }
      assert_int_equal (waitpid (pid, &status, 0), pid);
      assert_int_equal (WIFEXITED (status) ? WEXITSTATUS (status) : -1, 0);
      if (round > 0)
        break;
      /* The next round: a directory of the squatter's instead (its entry
       * from this round is gone with its process). */
      assert_int_equal (unlink (path), 0);
      assert_int_equal (mkdir (path, 0777), 0);
      assert_int_equal (chown (path, squatter, squatter), 0);
    }
}

/* bwshctl enforce's note for pam_bwsh's close, for a registry id as the
 * per-uid places name it ("uid/UID/PID-START-N"): written and taken once.
 * Refused before: the '/' of such an id made every note "an invalid session
 * registry id", and a session a lock ended was recorded as a logout. */
static void
test_lock_note_for_a_per_uid_registry_id_is_written_and_taken_once (void **state)
{
  static const char *const bad[] = { "", "/abs", "uid/1000/..", "a.b" };
  char target[] = "@locked", reason[] = "audit", by[] = "policy";
  BwshLock lock = { .target = target, .reason = reason, .by = by }, got = { 0 };
  BwshSessionEntry e = { .uid = 0, .pid = getpid (), .start = 1 };
  size_t live;

  (void) state;
  if (geteuid () != 0)
    unit_skip ("the registry must be root's: run as root");
  assert_int_equal (unit_rm_rf (sessions), 0);
  /* A session of root's registered as pam_bwsh registers it. */
  e.user = strdup ("root");
  assert_int_equal (bwsh_pid_start_time (e.pid, &e.pid_start), 0);
  assert_int_equal (bwsh_registry_register (sessions, &e, 0, &live, NULL), 0);
  assert_non_null (strchr (e.id, '/'));
  assert_int_equal (bwsh_lock_note_write (sessions, e.id, &lock, NULL), 0);
  assert_int_equal (bwsh_lock_note_take (sessions, "uid/1001/4242-99-0", &got), -ENOENT);
  assert_int_equal (bwsh_lock_note_take (sessions, e.id, &got), 0);
  assert_string_equal (got.target, "@locked");
  assert_string_equal (got.reason, "audit");
  bwsh_lock_clear (&got);
  assert_int_equal (bwsh_lock_note_take (sessions, e.id, &got), -ENOENT);
  assert_int_equal (bwsh_registry_unregister (sessions, e.id), 0);
  bwsh_session_entry_clear (&e);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal (bwsh_lock_note_write (sessions, bad[i], &lock, NULL), -EINVAL);
}

/* The entry bwsh writes without jansson is, byte for byte, what
 * json_pack() and json_dumps (JSON_SORT_KEYS | JSON_COMPACT) wrote (#37);
 * a string jansson refuses (not UTF-8) is refused too. */
static void
test_entry_json_is_janssons_text (void **state)
{
  static char strings[][48] = {
    "alice", "", "a\"quote\\back/slash", "tab\tnl\ncr\rbs\bff\f\x01\x1f\x7f", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7",
  };
  static char invalid[][8] = { "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe0\x80\xaf", "\x80", "\xc3" };

  (void) state;
  for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
    {
      BwshSessionEntry e = { .user = strings[i], .uid = 4243, .service = strings[(i + 1) % 5], .rhost = NULL,
                             .tty = strings[(i + 2) % 5], .command = strings[(i + 3) % 5],
                             .policy_path = strings[(i + 4) % 5], .start = i == 1 ? -5 : 1733600000,
                             .pid = 4242, .pid_start = i == 2 ? UINT64_MAX : 1107398 };
      _cleanup_free_ char *mine = NULL, *theirs = NULL;
      json_t *o;

      snprintf (e.plan_digest, sizeof e.plan_digest, "%064d", (int) i);
      o = json_pack ("{s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I}", "user", e.user, "uid",
                     (json_int_t) e.uid, "service", e.service, "rhost", "", "tty", e.tty, "command", e.command,
                     "policy", e.policy_path, "plan_digest", e.plan_digest, "policy_digest", e.policy_digest,
                     "start", (json_int_t) e.start, "pid", (json_int_t) e.pid, "pid_start", (json_int_t) e.pid_start);
      assert_non_null (o);
      theirs = json_dumps (o, JSON_SORT_KEYS | JSON_COMPACT);
      json_decref (o);
      assert_int_equal (bwsh_session_entry_json (&e, &mine), 0);
      assert_string_equal (mine, theirs);
    }
  for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
    {
      BwshSessionEntry e = { .user = strings[0], .tty = invalid[i] };
      char *text = NULL;

      assert_null (json_pack ("{s:s}", "tty", e.tty));
      assert_int_equal (bwsh_session_entry_json (&e, &text), -ENOMEM);
      assert_null (text);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_admission_steps_in_order),
    cmocka_unit_test (test_entry_json_is_janssons_text),
    cmocka_unit_test (test_user_entries_count_only_for_their_owner),
    cmocka_unit_test (test_ancestor_lookup_finds_only_a_live_pam_entry_of_the_uid),
    cmocka_unit_test (test_squatted_place_neither_refuses_nor_escapes_max_sessions),
    cmocka_unit_test (test_oldest_home_epoch_is_the_earliest_start_or_recorded_epoch),
    cmocka_unit_test (test_lock_note_for_a_per_uid_registry_id_is_written_and_taken_once),
  };
  return cmocka_run_group_tests (tests, setup_scratch, teardown_scratch);
}
