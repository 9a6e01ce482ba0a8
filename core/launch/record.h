/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: recording (record.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "argv.h"
#include "errors.h"
#include "plan.h"
#include "render.h"

/* What record = "tty" or "required" does for one session (core/launch/record.c). */
typedef enum
{
  BWSH_RECORDING_OFF = 0,     /* record = "off" */
  BWSH_RECORDING_ON,          /* tlog-rec records the session's terminal */
  BWSH_RECORDING_COMMAND,     /* no terminal (scp, sftp, rsync, git, ssh host CMD): not recorded; its event
                               * names the command */
  BWSH_RECORDING_UNAVAILABLE, /* record = "tty" and tlog-rec is missing or not executable: runs unrecorded */
  BWSH_RECORDING_FAILED,      /* tlog-rec ran and failed (before or after it started bwrap): "required"
                               * refuses or ends the session, "tty" runs on unrecorded */
} BwshRecording;

/* tlog-rec's path, fixed at build time (-DBWSH_TLOG_REC_PATH), and the
 * helper that restricts a recorded session's bwrap (bwsh-landlock). */
const char *bwsh_tlog_rec_path (void);
const char *bwsh_landlock_helper_path (void);
const char *bwsh_recording_to_string (BwshRecording r);

/* Whether a session of @p is recorded: every session with a terminal
 * (@have_tty: a login shell, or a command on a pty such as ssh -t host CMD
 * or su -c CMD in a terminal), under a policy that records.  With record =
 * "required", a recorder that cannot run is an error (BWSH_ERROR_RECORD);
 * with "tty", BWSH_RECORDING_UNAVAILABLE. */
int bwsh_recording_decide (const BwshPlan *p, bool have_tty, BwshRecording *ret, BwshError *err);

/* Whether tlog-rec can run as a login of @uid, @gid runs it: the recorder
 * a regular file that user may execute, and /run/utmp there for its utmp
 * record; @root ("" or a test's) prefixes both.  -errno with @err saying
 * which, and *@ret_fix what the administrator does about it.  Its
 * configuration is tlog-rec's to read: doctor runs it for that. */
int bwsh_recorder_check (const char *root, uid_t uid, gid_t gid, const char **ret_fix, BwshError *err);

/* The recording id tlog-rec gives its recording when it runs as process
 * @pid (tlog's TLOG_REC field and "rec" member): the boot id's hex digits,
 * the pid and the process's start time in clock ticks, in hex.  exec keeps
 * both, so the process that is about to exec tlog-rec knows it. */
#define BWSH_TLOG_REC_ID_MAX 64
int bwsh_tlog_rec_id (pid_t pid, char ret[BWSH_TLOG_REC_ID_MAX]);

/* The recorder's argv up to the program it records: tlog-rec writing to
 * the journal, then "--", then bwsh-landlock with @landlock_fd unless it is
 * -1.  bwrap's argv follows. */
int bwsh_render_recorder (const char *recorder, int landlock_fd, BwshArgv *ret);
