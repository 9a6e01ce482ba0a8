/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Audit events (audit.c): session ids, the journal entry of each event,
 * the policy's digest and what su/runuser will run.
 *
 * Events go to the journal with a fixed MESSAGE_ID per type (see
 * conf/bwsh.catalog and bwsh-audit(7)); a front end that gets an error back
 * (no journal on this host) writes its syslog line instead.
 *
 * Like the rest of core/: 0 or -errno, never a message on stderr.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "errors.h"
#include "policy.h"

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
