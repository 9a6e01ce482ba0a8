/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "audit.h"
#include "cleanup.h"
#include "errors.h"
#include "fallback.h"
#include "lkg.h"

static const char *const fallback_names[BWSH_FALLBACK_MAX_] = {
  [BWSH_FALLBACK_REFUSED] = "refused",
  [BWSH_FALLBACK_LAST_GOOD] = "last-good",
  [BWSH_FALLBACK_IGNORED] = "ignored",
};

const char *
bwsh_fallback_to_string (BwshFallback f)
{
  return (unsigned) f < BWSH_FALLBACK_MAX_ ? fallback_names[f] : NULL;
}

BwshFallback
bwsh_fallback_of (const BwshSession *s, int r)
{
  /* bwsh_session_prepare() fails without a last good policy unless it left
   * the account alone (pam_bwsh only). */
  return r < 0 ? BWSH_FALLBACK_REFUSED : s->policy_last_good ? BWSH_FALLBACK_LAST_GOOD : BWSH_FALLBACK_IGNORED;
}

int
bwsh_fallback_report (const BwshSession *s, int r, const BwshFallbackReport *rep, char **ret_line)
{
  BwshEvent ev = BWSH_EVENT_INIT (BWSH_EVENT_POLICY);
  const BwshFallback f = bwsh_fallback_of (s, r);
  _cleanup_free_ char *raw = bwsh_error_to_string (&s->policy_error), *line = NULL;
  /* A log reader acts on what the line holds: escaped, as everywhere. */
  _cleanup_free_ char *why = raw != NULL ? bwsh_escape_message (raw) : NULL;
  int k;

  if (asprintf (&line, "%s; %s", why != NULL ? why : "the sandbox policy cannot be used",
                rep->said[f] != NULL ? rep->said[f] : "")
      < 0)
    line = NULL;
  if (bwsh_policy_error_reported (&s->policy_error, rep->record) == 1)
    k = 1;
  else
    {
      ev.origin = rep->origin;
      ev.message = line;
      ev.user = rep->user != NULL ? rep->user : s->id != NULL ? s->id->name : NULL;
      ev.uid = s->id != NULL ? (int64_t) s->id->uid : -1;
      ev.service = rep->service;
      ev.rhost = rep->rhost;
      ev.tty = rep->tty;
      ev.outcome = bwsh_fallback_to_string (f);
      ev.reason = s->policy_error.message;
      ev.policy_file = s->policy_error.file[0] != '\0' ? s->policy_error.file : NULL;
      ev.policy_line = s->policy_error.line > 0 ? s->policy_error.line : -1;
      k = bwsh_event_send (&ev);
      if (k > 0)
        k = 0;
    }
  *ret_line = steal_pointer (&line);
  return k;
}
