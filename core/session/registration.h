/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A session's entry in the live-session registry (registration.c): the one
 * sequence both front ends run, pam_bwsh as root when it opens a session,
 * bwsh as the user when no pam_bwsh registered it (admission looked).
 *
 * Like the rest of core/: 0 or -errno, never a message on stderr.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "errors.h"
#include "session.h"

/* What the front end knows of the session beyond @s.  NULL strings are
 * written as "-". */
typedef struct BwshRegistration
{
  const char *user;          /* NULL: the session's identity's name */
  const char *service;
  const char *rhost;
  const char *tty;
  const char *command;       /* NULL: the passwd shell */
  const char *policy_path;   /* NULL: the compiled-in one */
  const char *plan_digest;   /* 64 hex digits (bwsh_plan_digest()) */
  const char *policy_digest; /* 64 hex digits, or NULL: none */
  int64_t start;             /* seconds since the epoch; 0: now */
} BwshRegistration;

/* Register the session @s, whose process is this one (its pid and start
 * time), within the policy's max_sessions: bwsh_registry_register().
 * -EUSERS when max_sessions were live already (*ret_live says how many);
 * any other -errno with @err filled.  *ret_id (may be NULL): the entry, for
 * bwsh_registry_unregister(), set only on success. */
int bwsh_session_register (const BwshSession *s, const BwshRegistration *reg, char **ret_id, size_t *ret_live,
                           BwshError *err);
