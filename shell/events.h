/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

#include "bwshcore.h"

/* A session bwsh refused, before bwrap ran: one event (or syslog line). */
void bwsh_front_refused (const BwshIdentity *id, const char *user, const char *msg);
/* A sandbox bwsh is about to exec: the session-allowed event where pam_bwsh
 * did not record the session, else the command event, joined to pam_bwsh's
 * events by BWSH_SESSION_ID.  Both carry the command as it runs inside and
 * the SSH client's address and port. */
void bwsh_front_started (const BwshIdentity *id, const BwshPlan *p, const BwshCommand *cmd, const char *digest,
                         bool pam_recorded, BwshRecording recording);
/* The process that is about to exec @cmd (bwsh, or a guarded launch's
 * child): when @cmd is recorded, this process becomes tlog-rec, and the
 * recording event names tlog's recording id for this pid, joined to the
 * started event by BWSH_SESSION_ID.  Nothing when it is not recorded. */
void bwsh_front_recording (const BwshCommand *cmd);
