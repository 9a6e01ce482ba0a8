/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/session/audit.c and core/session/registry.c: what su and runuser will run (the audit
 * record must not call root's `su -s /bin/bash` a sandbox), the registry's
 * count-then-register under max_sessions and its pruning of sessions whose
 * process died without closing, lock files, the status file a session's
 * bwrap reports its exit in, and the policy digest.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <errno.h>
#include <setjmp.h>
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

#include "bwshcore.h"
#include "cleanup.h"
#include "unit.h"

#define BWSH "/usr/bin/bwsh"

/* ------------------------------------------------------------ su/runuser */

static const struct
{
  const char *argv; /* space-separated */
  bool runuser, root, listed;
  const char *env_shell;
  const char *want;
} su_cases[] = {
  { "su alice", false, true, false, NULL, BWSH },
  { "su - alice -c id", false, true, false, NULL, BWSH },
  { "su -s /bin/bash alice", false, true, false, NULL, "/bin/bash" },
  { "su --shell=/bin/zsh alice", false, true, false, NULL, "/bin/zsh" },
  { "su --shell /bin/zsh alice", false, true, false, NULL, "/bin/zsh" },
  { "su --sh=/bin/zsh alice", false, true, false, NULL, "/bin/zsh" }, /* getopt's unambiguous prefix */
  { "su -s/bin/dash alice", false, true, false, NULL, "/bin/dash" },
  { "su -ls /bin/bash alice", false, true, false, NULL, "/bin/bash" },
  { "su alice -s /bin/bash", false, true, false, NULL, "/bin/bash" }, /* GNU getopt permutes */
  { "su -m alice", false, true, false, "/bin/bash", "/bin/bash" },
  { "su --preserve-environment alice", false, true, false, "/bin/bash", "/bin/bash" },
  { "su -p alice", false, true, false, NULL, BWSH },
  { "su -- alice -s /bin/bash", false, true, false, NULL, BWSH }, /* after --, arguments of the shell */
  /* A caller other than root: a restricted (unlisted) target shell is kept. */
  { "su -s /bin/bash alice", false, false, false, NULL, BWSH },
  { "su -m alice", false, false, false, "/bin/bash", BWSH },
  { "su -s /bin/bash alice", false, false, true, NULL, "/bin/bash" },
  /* runuser -u runs its command directly, no shell at all. */
  { "runuser -u alice -- /usr/bin/id -u", true, true, false, NULL, "/usr/bin/id" },
  { "runuser --user=alice /bin/sh", true, true, false, NULL, "/bin/sh" },
  { "runuser -l alice -c id", true, true, false, NULL, BWSH },
  { "su -u alice", false, true, false, NULL, BWSH }, /* su has no -u */
};

static void
test_su_and_runuser_command_is_what_they_run (void **state)
{
  (void) state;
  for (size_t i = 0; i < sizeof su_cases / sizeof su_cases[0]; i++)
    {
      char buf[256], *argv[16];
      size_t argc = 0;
      const char *got = NULL;

      snprintf (buf, sizeof buf, "%s", su_cases[i].argv);
      for (char *t = strtok (buf, " "); t != NULL && argc < 15; t = strtok (NULL, " "))
        argv[argc++] = t;
      argv[argc] = NULL;
      bwsh_su_command (argv, argc, su_cases[i].runuser, su_cases[i].root, su_cases[i].listed, BWSH,
                       su_cases[i].env_shell, &got);
      if (got == NULL || strcmp (got, su_cases[i].want) != 0)
        fail_msg ("%s: got %s, want %s", su_cases[i].argv, got ? got : "(null)", su_cases[i].want);
    }
}

/* ------------------------------------------------------------- registry */

static char scratch[] = "/tmp/bwsh-unit-audit.XXXXXX";

static int
setup_scratch (void **state)
{
  (void) state;
  return mkdtemp (scratch) == NULL ? -1 : 0;
}

static int
teardown_scratch (void **state)
{
  (void) state;
  return unit_rm_rf (scratch);
}

static void
fill_entry (BwshSessionEntry *e, pid_t pid, uid_t uid)
{
  *e = (BwshSessionEntry) { .uid = uid, .pid = pid, .start = 1 };
  e->user = strdup ("alice");
  e->service = strdup ("sshd");
  e->rhost = strdup ("192.0.2.1");
  e->tty = strdup ("ssh");
  e->command = strdup (BWSH);
  e->policy_path = strdup ("/etc/bwsh/bwsh.conf");
  memset (e->plan_digest, 'a', 64);
  memset (e->policy_digest, 'b', 64);
  assert_int_equal (bwsh_pid_start_time (pid, &e->pid_start), 0);
}

/* Field 22 of /proc/PID/stat, counted the way proc(5) counts: a value that
 * changes with the process (its size, field 23) would prune live sessions. */
static void
test_pid_start_time_is_field_22 (void **state)
{
  char buf[1024];
  FILE *f = fopen ("/proc/self/stat", "re");
  char *p, *save = NULL;
  uint64_t got = 0;
  unsigned long long want = 0;
  int field = 2;

  (void) state;
  assert_non_null (f);
  assert_non_null (fgets (buf, sizeof buf, f));
  fclose (f);
  p = strrchr (buf, ')');
  assert_non_null (p);
  for (char *t = strtok_r (p + 1, " ", &save); t != NULL; t = strtok_r (NULL, " ", &save))
    if (++field == 22)
      {
        want = strtoull (t, NULL, 10);
        break;
      }
  assert_int_equal (field, 22);
  assert_int_equal (bwsh_pid_start_time (getpid (), &got), 0);
  assert_int_equal (got, want);
  {
    /* bwsh_pid_stat: the same start time, and this process is running. */
    char st = '?';
    got = 0;
    assert_int_equal (bwsh_pid_stat (getpid (), &got, &st), 0);
    assert_int_equal (got, want);
    assert_int_equal (st, 'R');
  }
}

static void
test_registry_limit_and_stale_entries_pruned (void **state)
{
  char dir[sizeof scratch + 32];
  BwshSessionEntry a, b, dead;
  BwshSessionList l = { 0 };
  BwshError err = { 0 };
  size_t live = 99;
  pid_t child;
  int dirfd = -1, status;

  (void) state;
  if (geteuid () != 0)
    unit_skip ("the registry must be root's: run as root");
  snprintf (dir, sizeof dir, "%s/run/bwsh/sessions", scratch);

  fill_entry (&a, getpid (), 4242);
  assert_int_equal (bwsh_registry_register (dir, &a, 2, &live, &err), 0);
  assert_int_equal (live, 0);
  assert_non_null (a.id);

  /* A session whose process died without close_session (a crash, SIGKILL). */
  child = fork ();
  if (child == 0)
    {
      pause ();
      _exit (0);
    }
  fill_entry (&dead, child, 4242);
  assert_int_equal (bwsh_registry_register (dir, &dead, 2, &live, &err), 0);
  assert_int_equal (live, 1);
  kill (child, SIGKILL);
  waitpid (child, &status, 0);

  /* The dead one no longer counts: the limit of 2 still has room. */
  fill_entry (&b, getppid (), 4242);
  assert_int_equal (bwsh_registry_register (dir, &b, 2, &live, &err), 0);
  assert_int_equal (live, 1);
  /* Now 2 are live: the next is refused, and says so. */
  bwsh_session_entry_clear (&dead);
  fill_entry (&dead, getppid (), 4242);
  assert_int_equal (bwsh_registry_register (dir, &dead, 2, &live, &err), -EUSERS);
  assert_int_equal (live, 2);
  assert_non_null (strstr (err.message, "at most 2 are allowed (max_sessions)"));
  /* Another user is not limited by alice's sessions. */
  dead.uid = 4343;
  assert_int_equal (bwsh_registry_register (dir, &dead, 2, &live, &err), 0);
  assert_int_equal (live, 0);

  assert_int_equal (bwsh_registry_open (dir, &dirfd, &err), 0);
  assert_int_equal (bwsh_registry_list (dirfd, &l, &err), 0);
  close (dirfd);
  assert_int_equal (l.n, 3);
  for (size_t i = 0; i < l.n; i++)
    {
      assert_string_equal (l.items[i].rhost, "192.0.2.1");
      assert_int_equal (strlen (l.items[i].plan_digest), 64);
    }
  bwsh_session_list_clear (&l);

  {
    struct stat st;
    assert_int_equal (stat (dir, &st), 0);
    assert_int_equal (st.st_mode & 07777, 0755);
  }
  assert_int_equal (bwsh_registry_unregister (dir, a.id), 0);
  assert_int_equal (bwsh_registry_unregister (dir, a.id), -ENOENT);
  assert_int_equal (bwsh_registry_unregister (dir, "../escape"), -EINVAL);
  bwsh_session_entry_clear (&a);
  bwsh_session_entry_clear (&b);
  bwsh_session_entry_clear (&dead);
}

/* ----------------------------------------------------------------- locks */

static void
test_lock_targets_validated (void **state)
{
  static const char *const good[] = { "alice", "@staff", "a.b-c_d", "x" };
  static const char *const bad[] = { "", "@", "../x", "a/b", ".hidden", "-rf", "@.x", "a b", "tab\tx",
                                     "0123456789012345678901234567890123456789012345678901234567890123456789" };

  (void) state;
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    assert_true (bwsh_lock_target_valid (good[i]));
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (bwsh_lock_target_valid (bad[i]))
      fail_msg ("accepted \"%s\"", bad[i]);
}

static void
test_lock_write_find_remove (void **state)
{
  char dir[sizeof scratch + 32];
  BwshIdentity *id = unit_identity ("/home/alice", "/bin/sh");
  BwshLock l = { 0 }, found = { 0 };
  BwshError err = { 0 };

  (void) state;
  if (geteuid () != 0)
    unit_skip ("lock files must be root's: run as root");
  assert_non_null (id);
  snprintf (dir, sizeof dir, "%s/var/lib/bwsh/locks", scratch);
  assert_int_equal (bwsh_lock_find (dir, id, &found, &err), -ENOENT);

  l.target = id->name;
  l.reason = (char *) (uintptr_t) "incident 7";
  l.by = (char *) (uintptr_t) "root";
  l.since = 1;
  assert_int_equal (bwsh_lock_write (dir, &l, &err), 0);
  assert_int_equal (bwsh_lock_find (dir, id, &found, &err), 0);
  assert_string_equal (found.target, id->name);
  assert_string_equal (found.reason, "incident 7");
  bwsh_lock_clear (&found);

  assert_int_equal (bwsh_lock_remove (dir, id->name, &err), 0);
  assert_int_equal (bwsh_lock_remove (dir, id->name, &err), -ENOENT);
  assert_int_equal (bwsh_lock_find (dir, id, &found, &err), -ENOENT);
  bwsh_identity_free (id);
}

/* --------------------------------------------------------- how it ended */

/* A status file as pam_bwsh makes it, with @content written through the
 * fd bwsh would hand to bwrap; its path in @path. */
static void
status_with (const char *dir, const char *sid, const char *content, char *path, size_t size)
{
  BwshError err = { 0 };
  int fd = -1;

  assert_int_equal (bwsh_status_file_create (dir, sid, getuid (), getgid (), &err), 0);
  assert_int_equal (bwsh_status_file_open (dir, sid, getuid (), &fd), 0);
  assert_int_equal (write (fd, content, strlen (content)), (ssize_t) strlen (content));
  close (fd);
  snprintf (path, size, "%s/" BWSH_STATUS_DIR_NAME "/%s", dir, sid);
}

static void
test_status_file_reports_last_exit_code_and_refuses_what_bwrap_did_not_write (void **state)
{
  char dir[sizeof scratch + 32], path[sizeof scratch + 128], sid[BWSH_SESSION_ID_LEN + 1];
  _cleanup_free_ char *huge = NULL;
  struct stat st;
  BwshStatusReport rep = { .exit_status = -1 };
  int fd = -1;

  (void) state;
  if (geteuid () != 0)
    unit_skip ("the registry must be root's: run as root");
  snprintf (dir, sizeof dir, "%s/run/bwsh/ended", scratch);
  snprintf (path, sizeof path, "%s/run", scratch);
  (void) mkdir (path, 0755);
  snprintf (path, sizeof path, "%s/run/bwsh", scratch);
  (void) mkdir (path, 0755);
  assert_int_equal (mkdir (dir, 0755), 0);
  assert_int_equal (bwsh_session_id_new (sid), 0);

  /* What bwrap writes: a start report per attempt, then the exit. */
  status_with (dir, sid, "{ \"child-pid\": 12, \"mnt-namespace\": 4026531841 }\n{ \"child-pid\": 13 }\n"
               "{ \"exit-code\": 3 }\n", path, sizeof path);
  assert_int_equal (stat (path, &st), 0);
  assert_int_equal (st.st_mode & 07777, 0600);
  assert_int_equal (bwsh_status_file_take (dir, sid, getuid (), &rep), 0);
  assert_int_equal (rep.exit_status, 3);
  assert_int_equal (rep.end, BWSH_END_NONE);
  assert_int_equal (lstat (path, &st), -1);
  assert_int_equal (bwsh_status_file_take (dir, sid, getuid (), &rep), -ENOENT);

  /* Started, never reported an exit (bwrap was killed), or never ran. */
  status_with (dir, sid, "{ \"child-pid\": 12 }\n", path, sizeof path);
  assert_int_equal (bwsh_status_file_take (dir, sid, getuid (), &rep), -ENODATA);
  status_with (dir, sid, "", path, sizeof path);
  assert_int_equal (bwsh_status_file_take (dir, sid, getuid (), &rep), -ENODATA);

  /* What bwsh writes when it refuses the session or ends it for its
   * recording (#38): the last end and its reason, with bwrap's exit. */
  status_with (dir, sid, "{ \"child-pid\": 12 }\n", path, sizeof path);
  assert_int_equal (bwsh_status_file_report_end (dir, sid, getuid (), BWSH_END_REFUSED, "bwsh: first"), 0);
  assert_int_equal (bwsh_status_file_report_end (dir, sid, getuid (), BWSH_END_RECORDING_FAILED,
                                                 "the recorder \"tlog-rec\" failed\n"), 0);
  assert_int_equal (bwsh_status_file_take (dir, sid, getuid (), &rep), 0);
  assert_int_equal (rep.exit_status, -1);
  assert_int_equal (rep.end, BWSH_END_RECORDING_FAILED);
  assert_string_equal (bwsh_end_to_string (rep.end), "recording-failed");
  assert_string_equal (rep.reason, "the recorder \"tlog-rec\" failed\n");
  assert_int_equal (bwsh_status_file_report_end (dir, sid, getuid (), BWSH_END_REFUSED, "x"), -ENOENT);
  /* A long reason is cut on a character's boundary, to a line the file holds. */
  huge = malloc (BWSH_STATUS_FILE_MAX + 32);
  assert_non_null (huge);
  memset (huge, 'a', BWSH_END_REASON_MAX - 1);
  memcpy (huge + BWSH_END_REASON_MAX - 1, "\xc3\xa9tail", 7);
  status_with (dir, sid, "", path, sizeof path);
  assert_int_equal (bwsh_status_file_report_end (dir, sid, getuid (), BWSH_END_REFUSED, huge), 0);
  assert_int_equal (bwsh_status_file_take (dir, sid, getuid (), &rep), 0);
  assert_int_equal (rep.end, BWSH_END_REFUSED);
  assert_int_equal (strlen (rep.reason), BWSH_END_REASON_MAX - 1);
  free (steal_pointer (&huge));
  /* An end bwsh does not write. */
  status_with (dir, sid, "{ \"bwsh-end\": \"logout\" }\n", path, sizeof path);
  assert_int_equal (bwsh_status_file_take (dir, sid, getuid (), &rep), -EINVAL);
  status_with (dir, sid, "{ \"bwsh-end\": \"refused\", \"reason\": 1 }\n", path, sizeof path);
  assert_int_equal (bwsh_status_file_take (dir, sid, getuid (), &rep), -EINVAL);

  /* Not what bwrap writes. */
  status_with (dir, sid, "{ \"exit-code\": 300 }\n", path, sizeof path);
  assert_int_equal (bwsh_status_file_take (dir, sid, getuid (), &rep), -EINVAL);
  status_with (dir, sid, "{ \"exit-code\": 1, \"exit-code\": 2 }\n", path, sizeof path);
  assert_int_equal (bwsh_status_file_take (dir, sid, getuid (), &rep), -EINVAL);
  status_with (dir, sid, "{ \"exit-code\": 1 } trailing", path, sizeof path);
  assert_int_equal (bwsh_status_file_take (dir, sid, getuid (), &rep), -EINVAL);
  huge = malloc (BWSH_STATUS_FILE_MAX + 32);
  assert_non_null (huge);
  memset (huge, ' ', BWSH_STATUS_FILE_MAX + 31);
  huge[BWSH_STATUS_FILE_MAX + 31] = '\0';
  memcpy (huge, "{ \"exit-code\": 4 }", 18);
  status_with (dir, sid, huge, path, sizeof path);
  assert_int_equal (bwsh_status_file_take (dir, sid, getuid (), &rep), -EFBIG);
  assert_int_equal (lstat (path, &st), -1);

  /* A symlink in its place is not followed, and is removed. */
  status_with (dir, sid, "", path, sizeof path);
  assert_int_equal (unlink (path), 0);
  assert_int_equal (symlink ("/etc/hostname", path), 0);
  assert_int_equal (bwsh_status_file_take (dir, sid, getuid (), &rep), -ELOOP);
  assert_int_equal (lstat (path, &st), -1);

  /* Somebody else's file: bwsh does not write to it, nor pam_bwsh read it. */
  status_with (dir, sid, "{ \"exit-code\": 0 }\n", path, sizeof path);
  assert_int_equal (bwsh_status_file_open (dir, sid, getuid () + 1, &fd), -EPERM);
  assert_int_equal (bwsh_status_file_take (dir, sid, getuid () + 1, &rep), -EPERM);
  assert_int_equal (bwsh_status_file_open (dir, "../../etc/passwd", getuid (), &fd), -EINVAL);
  assert_int_equal (bwsh_status_file_open (dir, sid, getuid (), &fd), -ENOENT);
  assert_int_equal (rep.end, BWSH_END_REFUSED); /* not clobbered by the failures since */
}

static void
test_lock_since_is_the_newest_set_after_the_start (void **state)
{
  char dir[sizeof scratch + 32];
  BwshLock l = { 0 }, found = { 0 };
  BwshError err = { 0 };

  (void) state;
  if (geteuid () != 0)
    unit_skip ("lock files must be root's: run as root");
  snprintf (dir, sizeof dir, "%s/var/lib/bwsh/locks-since", scratch);
  l.target = (char *) (uintptr_t) "carol";
  l.reason = (char *) (uintptr_t) "ticket 9";
  l.by = (char *) (uintptr_t) "admin";
  l.since = 1000;
  assert_int_equal (bwsh_lock_write (dir, &l, &err), 0);
  /* Set after a session that started at 999 (or at 1000): it ended it. */
  assert_int_equal (bwsh_lock_since (dir, "carol", 999, &found), 0);
  assert_string_equal (found.reason, "ticket 9");
  assert_string_equal (found.by, "admin");
  bwsh_lock_clear (&found);
  assert_int_equal (bwsh_lock_since (dir, "carol", 1000, &found), 0);
  bwsh_lock_clear (&found);
  /* Older than the session, or somebody else's: not what ended it. */
  assert_int_equal (bwsh_lock_since (dir, "carol", 1001, &found), -ENOENT);
  assert_int_equal (bwsh_lock_since (dir, "carolyn", 999, &found), -ENOENT);
  assert_int_equal (bwsh_lock_remove (dir, "carol", &err), 0);
  assert_int_equal (bwsh_lock_since (dir, "carol", 999, &found), -ENOENT);
}

/* -------------------------------------------------------- policy digest */

static void
test_policy_digest_follows_every_file (void **state)
{
  char main_path[sizeof scratch + 32], dropin[sizeof scratch + 48], confd[sizeof scratch + 32];
  char d1[65], d2[65], d3[65];
  BwshIdentity *id = unit_identity ("/home/alice", "/bin/sh");
  BwshPolicy *pol = NULL;
  BwshError err = { 0 };
  FILE *f;

  (void) state;
  if (geteuid () != 0)
    unit_skip ("policy files must be root's: run as root");
  snprintf (main_path, sizeof main_path, "%s/pol/bwsh.conf", scratch);
  snprintf (confd, sizeof confd, "%s/pol/conf.d", scratch);
  snprintf (dropin, sizeof dropin, "%s/10-x.conf", confd);
  assert_int_equal (unit_mkdirs (confd), 0);
  assert_non_null (f = fopen (main_path, "w"));
  fputs ("max_mounts = 100;\n", f);
  fclose (f);
  assert_int_equal (bwsh_policy_load (main_path, id, &pol, &err), 0);
  assert_int_equal (bwsh_policy_digest (pol, d1, &err), 0);
  bwsh_policy_free (pol);

  assert_non_null (f = fopen (dropin, "w"));
  fputs ("# only a comment, but an edit\n", f);
  fclose (f);
  assert_int_equal (bwsh_policy_load (main_path, id, &pol, &err), 0);
  assert_int_equal (bwsh_policy_digest (pol, d2, &err), 0);
  assert_string_not_equal (d1, d2);
  assert_int_equal (bwsh_policy_digest (pol, d3, &err), 0);
  assert_string_equal (d2, d3);
  bwsh_policy_free (pol);
  bwsh_identity_free (id);
}

/* Session ids: 32 lowercase hex digits, a new one each time; what bwsh
 * takes from its environment must be exactly that. */
static void
test_session_ids_are_fresh_and_checked (void **state)
{
  static const char *const bad[] = {
    "", "0123456789abcdef0123456789abcde", "0123456789abcdef0123456789abcdef0",
    "0123456789ABCDEF0123456789ABCDEF", "0123456789abcdef0123456789abcdeg", "0123456789abcdef 123456789abcdef",
  };
  char a[BWSH_SESSION_ID_LEN + 1], b[BWSH_SESSION_ID_LEN + 1];

  (void) state;
  assert_int_equal (bwsh_session_id_new (a), 0);
  assert_int_equal (bwsh_session_id_new (b), 0);
  assert_true (bwsh_session_id_valid (a));
  assert_true (bwsh_session_id_valid (b));
  assert_string_not_equal (a, b);
  assert_false (bwsh_session_id_valid (NULL));
  for (size_t i = 0; i < BWSH_N_ELEMENTS (bad); i++)
    assert_false (bwsh_session_id_valid (bad[i]));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_su_and_runuser_command_is_what_they_run),
    cmocka_unit_test (test_pid_start_time_is_field_22),
    cmocka_unit_test (test_registry_limit_and_stale_entries_pruned),
    cmocka_unit_test (test_lock_targets_validated),
    cmocka_unit_test (test_lock_write_find_remove),
    cmocka_unit_test (test_status_file_reports_last_exit_code_and_refuses_what_bwrap_did_not_write),
    cmocka_unit_test (test_lock_since_is_the_newest_set_after_the_start),
    cmocka_unit_test (test_policy_digest_follows_every_file),
    cmocka_unit_test (test_session_ids_are_fresh_and_checked),
  };
  return cmocka_run_group_tests (tests, setup_scratch, teardown_scratch);
}
