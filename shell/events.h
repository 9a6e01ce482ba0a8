/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "audit.h"
#include "bwshcore.h"

/* A session bwsh refused, before bwrap ran: one event (or syslog line);
 * @lock (or NULL) is the lock that refused it: its target and source. */
void bwsh_front_refused (const BwshIdentity *id, const char *user, const char *msg, const BwshLock *lock);
/* The same end told to pam_bwsh (the status file it made for this session,
 * BWSH_SESSION_ID), whose session-ended event reports it as root. */
void bwsh_front_ended (BwshEnd end, const char *msg);
/* A sandbox bwsh is about to exec (recorded: that tlog-rec has started, or
 * that runs unrecorded because tlog-rec failed; shell/guard.c): the
 * session-allowed event where pam_bwsh did not record the session, else the
 * command event, joined to pam_bwsh's events by BWSH_SESSION_ID.  Both carry the command as it runs inside and
 * the SSH client's address and port. */
void bwsh_front_started (const BwshIdentity *id, const BwshPlan *p, const BwshCommand *cmd, const char *digest,
                         bool pam_recorded, BwshRecording recording);
/* The recording event, once tlog-rec, running as @recorder (a launch's
 * child), has started bwrap: it names tlog's recording id for that pid,
 * and is joined to the started event by BWSH_SESSION_ID.  @typeahead bytes
 * typed before the recorder was ready were given back to the session,
 * taken @typeahead_ms before the recorder switched the terminal (-1: none). */
void bwsh_front_recording (pid_t recorder, int64_t typeahead, int64_t typeahead_ms);
/* The recording that event announced failed after tlog-rec started bwrap
 * (it ended on its own, or said so on its stderr): the recording-failed
 * event, BWSH_RECORDING=failed with the same BWSH_TLOG_REC, and @why. */
void bwsh_front_recording_failed (const char *why);
