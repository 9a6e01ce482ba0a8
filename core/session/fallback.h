/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy event of a session prepared without its policy (fallback.c):
 * bwsh_session_prepare() found the policy unusable (BwshSession's
 * policy_fallback) and the last good copy decided, or nothing did (lkg.h).
 * Both front ends send it through here, once per broken version.
 *
 * Like the rest of core/: 0 or -errno, never a message on stderr.
 */
#pragma once

#include <stdbool.h>

#include "session.h"

/* What decided instead of the policy. */
typedef enum
{
  BWSH_FALLBACK_REFUSED = 0, /* nothing could: the session is refused */
  BWSH_FALLBACK_LAST_GOOD,   /* the last policy that loaded cleanly */
  BWSH_FALLBACK_IGNORED,     /* pam_bwsh: root, or not a bwsh account, left alone */
  BWSH_FALLBACK_MAX_,
} BwshFallback;

/* "refused", "last-good", "ignored": the event's BWSH_OUTCOME. */
const char *bwsh_fallback_to_string (BwshFallback f);
/* What decided for @s, prepared with the result @r. */
BwshFallback bwsh_fallback_of (const BwshSession *s, int r);

/* The front end's part of the event. */
typedef struct BwshFallbackReport
{
  const char *origin;                   /* SYSLOG_IDENTIFIER */
  const char *user;                     /* NULL: the session's identity's name */
  const char *service;
  const char *rhost;
  const char *tty;
  const char *said[BWSH_FALLBACK_MAX_]; /* what decided, in the front end's words */
  bool record;                          /* mark the version reported (root: pam_bwsh) */
} BwshFallbackReport;

/* The policy event for @s (prepared with the result @r): MESSAGE is
 * "WHY; SAID", WHY the policy error (escaped), SAID @rep's words for what
 * decided; with the policy's file, line and error.  Sent once per broken
 * version (bwsh_policy_error_reported()).  *ret_line: that line (NULL when
 * out of memory), for the front end to print or log.
 * 1: this version was reported already, nothing sent; 0: sent; -errno: not
 * sent (no journal), the caller logs *ret_line instead. */
int bwsh_fallback_report (const BwshSession *s, int r, const BwshFallbackReport *rep, char **ret_line);
