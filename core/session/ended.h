/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How a session ended (ended.c): its status file and the lock that ended it.
 *
 * Like the rest of core/: 0 or -errno, never a message on stderr.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "errors.h"
#include "registry.h"

/* Where a session's bwrap reports how its program ended: pam_bwsh (root)
 * creates BWSH_SESSIONS_DIR/status/SESSION_ID, the user's, mode 0600, when
 * the session opens; bwsh opens it and hands it to bwrap as
 * --json-status-fd, so bwrap appends { "exit-code": N } when the program in
 * the sandbox exits; pam_bwsh reads and removes it when the session closes.
 * No process waits for the session: bwrap writes what it already knows.
 * What the file says comes from the user's own bwrap: it is trusted as the
 * user's word, like bwsh's command event.  @dir NULL: BWSH_SESSIONS_DIR; the
 * files are in its part BWSH_STATUS_DIR_NAME (registry.h). */
#define BWSH_STATUS_FILE_MAX 4096 /* bwrap writes about 250 bytes per attempt */

/* How bwsh ended a session pam_bwsh allowed, when it did not run to its
 * end (issue 38): bwsh runs as the user, so its own events fall outside a
 * filter on root's; it writes this to the status file too, and pam_bwsh's
 * session-ended event says it, as root (BWSH_END_REASON, BWSH_REASON).
 * Like the exit status, it is what the user's bwsh wrote. */
typedef enum
{
  BWSH_END_NONE = 0,
  BWSH_END_REFUSED,          /* bwsh refused it: nothing of the session ran (a recorder under
                              * record = "required", a sandbox that could not start, ...) */
  BWSH_END_RECORDING_FAILED, /* record = "required" and the recording failed while it ran */
  BWSH_END_MAX_,
} BwshEnd;

/* "refused", "recording-failed"; NULL for BWSH_END_NONE. */
const char *bwsh_end_to_string (BwshEnd e);

#define BWSH_END_REASON_MAX 512 /* bytes of bwsh's message kept */

/* What a status file says once the session is over. */
typedef struct BwshStatusReport
{
  int exit_status; /* bwrap's exit-code for the session's program, -1 when it reported none */
  BwshEnd end;     /* bwsh's word, BWSH_END_NONE when it wrote none */
  char reason[BWSH_END_REASON_MAX + 1]; /* with @end: bwsh's one line ("" when none) */
} BwshStatusReport;

/* Root only: the empty file for @session_id, owned by @uid:@gid. */
int bwsh_status_file_create (const char *dir, const char *session_id, uid_t uid, gid_t gid, BwshError *err);
/* The file for @session_id, opened for appending (O_NOFOLLOW), if it is a
 * regular file of @uid's; -ENOENT when there is none (no pam_bwsh). */
int bwsh_status_file_open (const char *dir, const char *session_id, uid_t uid, int *ret_fd);
/* bwsh, as the user: append { "bwsh-end": END, "reason": @reason } to the
 * file for @session_id (@reason cut to BWSH_END_REASON_MAX bytes).  0, or
 * -ENOENT when pam_bwsh made none. */
int bwsh_status_file_report_end (const char *dir, const char *session_id, uid_t uid, BwshEnd end,
                                 const char *reason);
/* Read the file for @session_id (O_NOFOLLOW, a regular file of @uid's, at
 * most BWSH_STATUS_FILE_MAX bytes) and remove it, whatever it held: the
 * last exit-code bwrap wrote and the last end bwsh wrote.  -ENODATA: there
 * is neither (bwrap ended before the program, or never ran); -EPERM,
 * -EFBIG, -ELOOP, -EINVAL: not a file bwrap and bwsh wrote. */
int bwsh_status_file_take (const char *dir, const char *session_id, uid_t uid, BwshStatusReport *ret);

/* The newest lock that applies to @user and was set at or after @since
 * (seconds since the epoch), or -ENOENT: what ended a session that started
 * at @since, if a lock did. */
int bwsh_lock_since (const char *dir, const char *user, int64_t since, BwshLock *ret);
