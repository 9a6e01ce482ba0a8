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

/* Root only: the empty file for @session_id, owned by @uid:@gid. */
int bwsh_status_file_create (const char *dir, const char *session_id, uid_t uid, gid_t gid, BwshError *err);
/* The file for @session_id, opened for appending (O_NOFOLLOW), if it is a
 * regular file of @uid's; -ENOENT when there is none (no pam_bwsh). */
int bwsh_status_file_open (const char *dir, const char *session_id, uid_t uid, int *ret_fd);
/* Read the exit status from the file for @session_id (O_NOFOLLOW, a
 * regular file of @uid's, at most BWSH_STATUS_FILE_MAX bytes) and remove
 * it, whatever it held.  -ENODATA: the program's exit was not reported
 * (bwrap ended before it, or never ran); -EPERM, -EFBIG, -ELOOP, -EINVAL:
 * not a file bwrap wrote. */
int bwsh_status_file_take (const char *dir, const char *session_id, uid_t uid, int *ret_exit_status);

/* The newest lock that applies to @user and was set at or after @since
 * (seconds since the epoch), or -ENOENT: what ended a session that started
 * at @since, if a lock did. */
int bwsh_lock_since (const char *dir, const char *user, int64_t since, BwshLock *ret);
