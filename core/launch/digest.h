/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: SHA-256 and the plan's digest (digest.c). */
#pragma once

#include <stddef.h>

#include "plan.h"

/* A stable digest of what the plan does (mounts with verdicts, shell,
 * working directory, namespaces, network, Landlock, seccomp, limits, the
 * session's fixed variables): 64 hex characters plus NUL.  The variables
 * passed through from the caller are left out on purpose: pam_bwsh computes
 * the digest at session open, before sshd sets SSH_TTY and friends, and the
 * same plan must give the same digest in bwsh. */
void bwsh_plan_digest (const BwshPlan *p, char ret_hex[65]);

/* SHA-256 of @data as 64 lowercase hex characters plus NUL (FIPS 180-4). */
void bwsh_sha256_hex (const void *data, size_t len, char ret_hex[65]);
