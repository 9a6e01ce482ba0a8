/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "bwshcore.h"

/* A session bwsh refused, before bwrap ran: one event (or syslog line). */
void bwsh_front_refused (const BwshIdentity *id, const char *user, const char *msg);
/* A sandbox bwsh is about to exec where pam_bwsh did not record the session. */
void bwsh_front_started (const BwshIdentity *id, const BwshPlan *p, const BwshCommand *cmd, const char *digest);
