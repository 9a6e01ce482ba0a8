/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * record = "tty" | "required": an interactive session runs under tlog-rec
 * (package tlog), which the launch execs in bwrap's place with bwrap as the
 * program it records: in a child of bwsh's, which waits until bwrap says it
 * started, so that a recorder that fails on its way refuses the session or
 * leaves it unrecorded (shell/guard.c).  The recorder is the user's own process, but outside
 * the sandbox: in none of its namespaces, so nothing inside can see, signal
 * or trace it, and it reads nothing of the user's.  Its configuration is
 * the administrator's /etc/tlog/tlog-rec.conf plus the writer given here;
 * it runs with no environment but TERM, so TLOG_REC_CONF_TEXT and friends
 * from an ssh client never reach it, and TERM only as a terminal name
 * (bwsh_term_is_name()).  Every session with a terminal is recorded, a
 * command on a pty (ssh -t host CMD) too; one without (ssh host CMD, scp,
 * sftp, rsync, git) is not: its audit event names it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "argv.h"
#include "cleanup.h"
#include "errors.h"
#include "path.h"
#include "plan.h"
#include "policy.h"
#include "procstat.h"
#include "record.h"
#include "render.h"

const char *
bwsh_tlog_rec_path (void)
{
  return bwsh_program_path ("BWSH_TEST_TLOG_REC", BWSH_TLOG_REC_PATH);
}

const char *
bwsh_landlock_helper_path (void)
{
  return bwsh_program_path ("BWSH_TEST_LANDLOCK_HELPER", BWSH_LANDLOCK_HELPER_PATH);
}

const char *
bwsh_recording_to_string (BwshRecording r)
{
  switch (r)
    {
    case BWSH_RECORDING_OFF:
      return "off";
    case BWSH_RECORDING_ON:
      return "tty";
    case BWSH_RECORDING_COMMAND:
      return "command";
    case BWSH_RECORDING_UNAVAILABLE:
      return "unavailable";
    case BWSH_RECORDING_FAILED:
      return "failed";
    default:
      return "?";
    }
}

int
bwsh_recording_decide (const BwshPlan *p, bool have_tty, BwshRecording *ret, BwshError *err)
{
  const char *rec = bwsh_tlog_rec_path ();

  if (p->record == BWSH_RECORD_OFF)
    {
      *ret = BWSH_RECORDING_OFF;
      return 0;
    }
  if (!have_tty)
    {
      *ret = BWSH_RECORDING_COMMAND;
      return 0;
    }
  /* The launch execs it; a recorder that is not there is known now, while
   * the session can still be refused or its event tell the truth. */
  if (access (rec, X_OK) == 0)
    {
      *ret = BWSH_RECORDING_ON;
      return 0;
    }
  if (p->record == BWSH_RECORD_REQUIRED)
    {
      int r = -errno;
      bwsh_error_set (err, r, NULL, 0, 0, "record = \"required\" and the recorder %s cannot run: %s (package tlog)",
                      rec, strerror (-r));
      return bwsh_error_step (err, BWSH_ERROR_RECORD, r);
    }
  *ret = BWSH_RECORDING_UNAVAILABLE;
  return 0;
}

/* The execute bit that applies to @uid, @gid for @st, as the kernel picks
 * it: owner, else group, else others.  Root needs any. */
static bool
may_execute (const struct stat *st, uid_t uid, gid_t gid)
{
  if (uid == 0)
    return (st->st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) != 0;
  if (st->st_uid == uid)
    return (st->st_mode & S_IXUSR) != 0;
  if (st->st_gid == gid)
    return (st->st_mode & S_IXGRP) != 0;
  return (st->st_mode & S_IXOTH) != 0;
}

int
bwsh_recorder_check (const char *root, uid_t uid, gid_t gid, const char **ret_fix, BwshError *err)
{
  _cleanup_free_ char *rec = NULL, *utmp = NULL;
  const char *path = bwsh_tlog_rec_path ();
  struct stat st;

  if (asprintf (&rec, "%s%s", root, path) < 0 || asprintf (&utmp, "%s/run/utmp", root) < 0)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  if (stat (rec, &st) < 0)
    {
      int r = -errno;
      *ret_fix = "apt-get install tlog";
      return bwsh_error_set (err, r, NULL, 0, 0, "the recorder %s cannot run: %s (package tlog)", path, strerror (-r));
    }
  if (!S_ISREG (st.st_mode) || !may_execute (&st, uid, gid))
    {
      *ret_fix = "chmod 0755 the recorder, or reinstall it: apt-get install --reinstall tlog";
      return bwsh_error_set (err, -EACCES, NULL, 0, 0, "the recorder %s cannot run: %s", path,
                             S_ISREG (st.st_mode) ? "not executable for the user" : "not a regular file");
    }
  /* tlog-rec adds a utmp record for the session's terminal, and fails
   * without the file ("Failed adding a utmp record"): a host without
   * systemd-update-utmp, a container. */
  if (stat (utmp, &st) < 0 || !S_ISREG (st.st_mode))
    {
      *ret_fix = "install -m 0664 -o root -g utmp /dev/null /run/utmp, and at every boot: a tmpfiles.d line "
                 "\"f /run/utmp 0664 root utmp -\" (systemd's own tmpfiles.d has it)";
      return bwsh_error_set (err, -ENOENT, NULL, 0, 0, "/run/utmp is missing: the recorder %s cannot add the "
                             "session's utmp record and fails", path);
    }
  return 0;
}

int
bwsh_tlog_rec_id (pid_t pid, char ret[BWSH_TLOG_REC_ID_MAX])
{
  _cleanup_close_ int fd = -1;
  char boot[64], hex[40];
  uint64_t start;
  size_t n = 0;
  ssize_t len;
  int r;

  fd = open ("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  len = read (fd, boot, sizeof boot - 1);
  if (len < 0)
    return -errno;
  boot[len] = '\0';
  /* tlog keeps the hex digits of the boot id and drops its dashes. */
  for (const char *s = boot; *s != '\0' && *s != '\n' && n < sizeof hex - 1; s++)
    if (*s != '-')
      hex[n++] = *s;
  hex[n] = '\0';
  if (n != 32)
    return -EINVAL;
  r = bwsh_pid_start_time (pid, &start);
  if (r < 0)
    return r;
  snprintf (ret, BWSH_TLOG_REC_ID_MAX, "%s-%x-%llx", hex, (unsigned) pid, (unsigned long long) start);
  return 0;
}

int
bwsh_render_recorder (const char *recorder, int landlock_fd, BwshArgv *ret)
{
  /* The writer is policy, not tlog-rec.conf's: bwsh's events and the
   * recording land in the same journal, which the administrator forwards. */
  const char *const argv[] = { recorder, "--writer=journal", "--" };
  char num[32];
  int r;

  for (size_t i = 0; i < BWSH_N_ELEMENTS (argv); i++)
    if ((r = bwsh_argv_add (ret, argv[i])) < 0)
      return r;
  if (landlock_fd < 0)
    return 0;
  snprintf (num, sizeof num, "%d", landlock_fd);
  if ((r = bwsh_argv_add (ret, bwsh_landlock_helper_path ())) < 0 || (r = bwsh_argv_add (ret, num)) < 0)
    return r;
  return 0;
}
