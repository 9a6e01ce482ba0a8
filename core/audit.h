/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Audit events, the live-session registry and session locks.
 *
 * Events go to the journal with a fixed MESSAGE_ID per type (see
 * conf/bwsh.catalog and bwsh-audit(7)); a front end that gets an error back
 * (no journal on this host) writes its syslog line instead.  The registry
 * (one file per session under BWSH_SESSIONS_DIR) and the locks (one file per
 * user or group under BWSH_LOCKS_DIR) are written by root only.
 *
 * Like the rest of core/: 0 or -errno, never a message on stderr.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bwshcore.h"

typedef enum
{
  BWSH_EVENT_ALLOWED = 0, /* a session was allowed (or started unsandboxed: see outcome) */
  BWSH_EVENT_REFUSED,     /* a session was refused */
  BWSH_EVENT_ENDED,       /* a session ended */
  BWSH_EVENT_LOCK,        /* a lock was applied or lifted */
  BWSH_EVENT_LIMIT,       /* a limit refused a session (max_sessions) */
  BWSH_EVENT_POLICY,      /* the policy cannot be read: what decided instead (crit) */
  BWSH_EVENT_COMMAND,     /* bwsh: the command a session pam_bwsh allowed runs in the sandbox */
  BWSH_EVENT_RECORDING,   /* bwsh: tlog-rec starts recording the session (its TLOG_REC id) */
  BWSH_EVENT_RECORDING_FAILED, /* bwsh: that recording failed after tlog-rec started bwrap (err) */
  BWSH_EVENT_MAX_,
} BwshEventType;

/* What one event says.  Strings may be NULL (the field is left out);
 * numbers < 0 mean unknown. */
typedef struct BwshEvent
{
  BwshEventType type;
  const char *origin;       /* SYSLOG_IDENTIFIER: "pam_bwsh", "bwsh", "bwshctl" */
  const char *message;      /* MESSAGE, the human line */
  const char *user;
  int64_t uid;
  const char *service;
  const char *rhost;
  const char *tty;
  const char *ruser;        /* PAM_RUSER: who asked for the session (su's, sudo's caller) */
  const char *outcome;      /* allowed, unsandboxed, refused, closed, locked, unlocked, killed */
  const char *reason;
  const char *plan_digest;
  const char *policy_digest;
  const char *network;      /* "private" or "host" */
  int64_t mounts;
  int64_t refusals;
  const char *command;      /* what runs: the sandbox's inner command, or the unsandboxed program */
  int64_t session_pid;
  const char *lock_target;  /* "USER" or "@GROUP" */
  int64_t sessions;         /* live sessions of the user (limit), or sessions ended (lock) */
  int64_t max_sessions;
  const char *policy_file;  /* POLICY: where the error is */
  int64_t policy_line;
  const char *session_id;   /* BWSH_SESSION_ID: joins a session's events (bwsh_session_id_new()) */
  const char *source_address; /* the SSH client (SSH_CONNECTION), for bwsh's events */
  int64_t source_port;
  int64_t duration;         /* seconds, on session-ended */
  const char *record;       /* the policy's record setting, when not "off" */
  const char *recording;    /* what it did for this session: tty, command, unavailable, failed */
  const char *tlog_rec;     /* the recording's id, tlog's TLOG_REC */
  const char *term_fallback; /* the TERM the session got instead of the client's, which is not a terminal name */
  int64_t typeahead_bytes;  /* on recording: input typed before the recorder was ready, given back to the session */
  int64_t typeahead_ms;     /* ... taken that long before the recorder switched the terminal (an upper bound of
                             * the time in which input was lost) */
  const char *end_reason;   /* on session-ended: "logout" or "lock" */
  const char *lock_reason;  /* the lock that ended it: its reason and who set it */
  const char *lock_by;
  int exit_status;          /* on session-ended: the exit status bwrap reported for the session's program */
} BwshEvent;

/* BwshEvent ev = BWSH_EVENT_INIT (T); or a compound literal (BwshEvent) BWSH_EVENT_INIT (T). */
#define BWSH_EVENT_INIT(t)                                                                                   \
  { .type = (t), .uid = -1, .mounts = -1, .refusals = -1, .session_pid = -1, .sessions = -1, .max_sessions = -1, \
    .policy_line = -1, .source_port = -1, .duration = -1, .exit_status = -1, .typeahead_bytes = -1,        \
    .typeahead_ms = -1 }

/* A new session id: 32 lowercase hex digits from getrandom(2), which
 * pam_bwsh puts into the session's environment as BWSH_SESSION_ID and
 * every event of the session carries.  0 or -errno. */
#define BWSH_SESSION_ID_LEN 32
int bwsh_session_id_new (char ret[BWSH_SESSION_ID_LEN + 1]);
/* @s is a session id as bwsh_session_id_new() makes them. */
bool bwsh_session_id_valid (const char *s);

/* "eab9f779...", the MESSAGE_ID of @t (32 lowercase hex digits). */
const char *bwsh_event_message_id (BwshEventType t);
const char *bwsh_event_name (BwshEventType t);

/* Send @ev to the journal.  -ENOENT/-ECONNREFUSED/... when there is no
 * journal to take it: the caller writes its syslog line then. */
int bwsh_event_send (const BwshEvent *ev);

/* SHA-256 over the policy files @pol was read from (names and contents, in
 * the order read), re-read now as root.  A policy of built-in defaults has
 * the digest of nothing.  64 hex digits plus NUL. */
int bwsh_policy_digest (const BwshPolicy *pol, char ret_hex[65], BwshError *err);

/* The shell or program a su/runuser process (given its @argv) will run for
 * a target whose passwd shell is @target_shell, following util-linux's
 * rules: -s/--shell and -m/-p/--preserve-environment ($SHELL, @env_shell)
 * count when the caller is root or the target's shell is not restricted
 * (listed in /etc/shells: @target_shell_listed); runuser -u runs its
 * command with no shell at all.  *ret_command is borrowed from the inputs
 * or static. */
void bwsh_su_command (char *const *argv, size_t argc, bool is_runuser, bool caller_is_root,
                      bool target_shell_listed, const char *target_shell, const char *env_shell,
                      const char **ret_command);

/* ---------------------------------------------------------------- registry */

typedef struct BwshSessionEntry
{
  char *id;              /* the file name */
  char *user;
  uid_t uid;
  char *service;
  char *rhost;
  char *tty;
  char *command;
  char *policy_path;
  char plan_digest[65];
  char policy_digest[65];
  int64_t start;         /* seconds since the epoch */
  pid_t pid;             /* the process that opened the PAM session; the sandbox runs below it */
  uint64_t pid_start;    /* its start time in clock ticks after boot (/proc/PID/stat field 22) */
  bool by_bwsh;          /* written by bwsh as the user (no pam_bwsh in the stack); pid is bwrap's */
} BwshSessionEntry;

typedef struct BwshSessionList
{
  BwshSessionEntry *items;
  size_t n;
} BwshSessionList;

void bwsh_session_entry_clear (BwshSessionEntry *e);
void bwsh_session_list_clear (BwshSessionList *l);

/* Start time of @pid (field 22 of /proc/PID/stat), to tell a live process
 * from a later one that reused its number. */
int bwsh_pid_start_time (pid_t pid, uint64_t *ret);

/* The same, and the state letter of /proc/PID/stat (field 3: 'R', 'S',
 * 'Z', ...) in @ret_state unless NULL. */
int bwsh_pid_stat (pid_t pid, uint64_t *ret_start, char *ret_state);
/* The parent of @pid (field 4 of /proc/PID/stat). */
int bwsh_pid_parent (pid_t pid, pid_t *ret);

/* The registry directory, made root-owned 0755 if missing (by root; for
 * anyone else -ENOENT when missing).  Readable by all, like utmp: bwsh
 * counts its user's sessions as the user.  No lock: see
 * bwsh_registry_register().  @dir NULL: BWSH_SESSIONS_DIR. */
int bwsh_registry_open (const char *dir, int *ret_dirfd, BwshError *err);
/* The part @name of the registry below @dirfd, root's with exactly @mode,
 * made by root when @make: "user" (01777) and "status" (0755). */
int bwsh_registry_subdir (int dirfd, const char *name, mode_t mode, bool make, int *ret_fd);

/* Every live entry, root's and those bwsh wrote as the user; entries whose
 * process is gone (or was reused) are removed on the way.  @dirfd from
 * bwsh_registry_open(). */
int bwsh_registry_list (int dirfd, BwshSessionList *ret, BwshError *err);

/* Write @e as a new file (atomically: a temporary file, then rename) and
 * set e->id.  @dirfd as above. */
int bwsh_registry_add (int dirfd, BwshSessionEntry *e, BwshError *err);
int bwsh_registry_remove (int dirfd, const char *id);

/* ------------------------------------------------------------ status files */

/* Where a session's bwrap reports how its program ended: pam_bwsh (root)
 * creates BWSH_SESSIONS_DIR/status/SESSION_ID, the user's, mode 0600, when
 * the session opens; bwsh opens it and hands it to bwrap as
 * --json-status-fd, so bwrap appends { "exit-code": N } when the program in
 * the sandbox exits; pam_bwsh reads and removes it when the session closes.
 * No process waits for the session: bwrap writes what it already knows.
 * What the file says comes from the user's own bwrap: it is trusted as the
 * user's word, like bwsh's command event.  @dir NULL: BWSH_SESSIONS_DIR. */
#define BWSH_STATUS_DIR_NAME "status"
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

/* ------------------------------------------------------------------- locks */

typedef struct BwshLock
{
  char *target;   /* "USER" or "@GROUP" */
  char *reason;
  char *by;       /* who locked it */
  int64_t since;
} BwshLock;

void bwsh_lock_clear (BwshLock *l);

/* @target is "USER" or "@GROUP": a name of 1 to 64 characters without "/",
 * not starting with "." or "-". */
bool bwsh_lock_target_valid (const char *target);
/* Write (or replace) the lock for @target.  @dir NULL: BWSH_LOCKS_DIR. */
int bwsh_lock_write (const char *dir, const BwshLock *l, BwshError *err);
/* -ENOENT when there was no such lock. */
int bwsh_lock_remove (const char *dir, const char *target, BwshError *err);
/* Whether the lock on @target ("USER" or "@GROUP") applies to @id: the one
 * definition, for logins and for bwshctl lock ending sessions. */
bool bwsh_lock_applies (const char *target, const BwshIdentity *id);
/* The lock that applies to @id (its name first, then its groups), or
 * -ENOENT when none does.  Readable as any user: bwsh enforces locks
 * itself.  A lock file that cannot be read still locks (empty reason). */
int bwsh_lock_find (const char *dir, const BwshIdentity *id, BwshLock *ret, BwshError *err);
int bwsh_lock_list (const char *dir, BwshLock **ret, size_t *ret_n, BwshError *err);
/* The newest lock that applies to @user and was set at or after @since
 * (seconds since the epoch), or -ENOENT: what ended a session that started
 * at @since, if a lock did. */
int bwsh_lock_since (const char *dir, const char *user, int64_t since, BwshLock *ret);

/* Every live entry (bwsh_registry_open() and _list() in one); no registry:
 * none. */
int bwsh_registry_read (const char *dir, BwshSessionList *ret, BwshError *err);

/* The live sessions of @uid, leaving out the entry @except_id (NULL: none).
 * No registry: 0 sessions. */
int bwsh_registry_count (const char *dir, uid_t uid, const char *except_id, size_t *ret_live, BwshError *err);

/* Register @e, then count @e->uid's other live sessions; when @max_sessions
 * (0: no limit) were already live, remove @e again and return -EUSERS.
 * Written first and counted after, so that concurrent logins cannot both
 * take the last place (both may be refused), with no lock a user could
 * hold.  Root writes into the registry, anyone else (bwsh without pam_bwsh)
 * into its users' part.  *ret_live is the count without @e.  @dir NULL:
 * BWSH_SESSIONS_DIR. */
int bwsh_registry_register (const char *dir, BwshSessionEntry *e, unsigned max_sessions, size_t *ret_live,
                            BwshError *err);
/* Remove the entry @id (from a register); -ENOENT when already gone. */
int bwsh_registry_unregister (const char *dir, const char *id);
