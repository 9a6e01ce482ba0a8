/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwsh's own audit events: the journal when there is one, syslog otherwise. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "audit.h"
#include "cleanup.h"
#include "events.h"

void
bwsh_front_refused (const BwshIdentity *id, const char *user, const char *msg)
{
  BwshEvent ev = BWSH_EVENT_INIT (BWSH_EVENT_REFUSED);
  _cleanup_free_ char *line = NULL;

  if (asprintf (&line, "session refused for %s: %s", user, msg) < 0)
    line = NULL;
  ev.origin = "bwsh";
  ev.message = line;
  ev.user = user;
  ev.uid = id != NULL ? (int64_t) id->uid : (int64_t) getuid ();
  ev.outcome = "refused";
  ev.reason = msg;
  ev.service = "bwsh";
  if (line == NULL || bwsh_event_send (&ev) < 0)
    syslog (LOG_AUTHPRIV | LOG_ERR, "session refused for %s: %s", user, msg);
}

/* The inner command as a shell would read it back. */
static char *
command_string (const BwshPlan *p, const BwshCommand *cmd)
{
  BwshArgv v = { 0 };
  _cleanup_free_ char *out = NULL;
  size_t len = 0;

  if (bwsh_render_command (p, cmd, &v) < 0)
    return NULL;
  /* bwrap's "--" before the shell is not part of what runs. */
  for (size_t i = v.n > 0 && strcmp (v.v[0], "--") == 0 ? 1 : 0; i < v.n; i++)
    {
      _cleanup_free_ char *q = bwsh_shell_quote (v.v[i]);
      size_t k = q != NULL ? strlen (q) : 0;
      char *grown = q != NULL ? realloc (out, len + k + 2) : NULL;
      if (grown == NULL)
        {
          bwsh_argv_clear (&v);
          return NULL;
        }
      out = grown;
      if (len > 0)
        out[len++] = ' ';
      memcpy (out + len, q, k + 1);
      len += k;
    }
  bwsh_argv_clear (&v);
  return out != NULL ? steal_pointer (&out) : strdup ("");
}

void
bwsh_front_started (const BwshIdentity *id, const BwshPlan *p, const BwshCommand *cmd, const char *digest)
{
  BwshEvent ev = BWSH_EVENT_INIT (BWSH_EVENT_ALLOWED);
  _cleanup_free_ char *command = command_string (p, cmd), *line = NULL;
  int64_t mounts = 0;

  for (size_t i = 0; i < p->n_mounts; i++)
    if (p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED)
      mounts++;
  if (asprintf (&line, "sandbox for %s started by bwsh (no pam_bwsh in the stack): %s", id->name,
                command != NULL ? command : "?")
      < 0)
    line = NULL;
  ev.origin = "bwsh";
  ev.message = line;
  ev.user = id->name;
  ev.uid = id->uid;
  ev.service = "bwsh";
  ev.outcome = "allowed";
  ev.plan_digest = digest;
  ev.network = bwsh_net_mode_to_string (p->network);
  ev.mounts = mounts;
  ev.refusals = (int64_t) p->n_refused;
  ev.command = command;
  ev.session_pid = getpid ();
  if (line == NULL || bwsh_event_send (&ev) < 0)
    syslog (LOG_AUTHPRIV | LOG_INFO, "%s", line != NULL ? line : "sandbox started by bwsh");
}
