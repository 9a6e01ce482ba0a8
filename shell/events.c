/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwsh's own audit events: the journal when there is one, syslog otherwise. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "events.h"

void
bwsh_front_refused (const BwshIdentity *id, const char *user, const char *msg, const BwshLock *lock)
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
  if (lock != NULL)
    {
      ev.lock_target = lock->target;
      ev.lock_by = lock->by;
    }
  if (line == NULL || bwsh_event_send (&ev) < 0)
    syslog (LOG_AUTHPRIV | LOG_ERR, "session refused for %s: %s", user, msg);
}

void
bwsh_front_ended (BwshEnd end, const char *msg)
{
  const char *sid = getenv ("BWSH_SESSION_ID");

  /* No file without pam_bwsh: nothing to tell. */
  if (sid != NULL)
    (void) bwsh_status_file_report_end (NULL, sid, getuid (), end, msg);
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

/* The SSH client of the session, from sshd's SSH_CONNECTION ("CLIENT-ADDRESS
 * CLIENT-PORT SERVER-ADDRESS SERVER-PORT"): only an address and a port as
 * sshd writes them, else nothing (su, login, or a value that is not sshd's). */
static void
ssh_source (char *addr, size_t addrsz, int64_t *port)
{
  const char *v = getenv ("SSH_CONNECTION");
  unsigned long p;
  char *end;
  size_t n;

  addr[0] = '\0';
  *port = -1;
  if (v == NULL)
    return;
  n = strspn (v, "0123456789abcdefABCDEF:.%");
  if (n == 0 || n >= addrsz || v[n] != ' ')
    return;
  errno = 0;
  p = strtoul (v + n + 1, &end, 10);
  if (errno != 0 || end == v + n + 1 || *end != ' ' || p > 65535)
    return;
  memcpy (addr, v, n);
  addr[n] = '\0';
  *port = (int64_t) p;
}

/* The session bwsh_front_started() announced, for its recording event. */
static char started_session_id[BWSH_SESSION_ID_LEN + 1];
static const BwshIdentity *started_id;

void
bwsh_front_started (const BwshIdentity *id, const BwshPlan *p, const BwshCommand *cmd, const char *digest,
                    bool pam_recorded, BwshRecording recording)
{
  BwshEvent ev = BWSH_EVENT_INIT (pam_recorded ? BWSH_EVENT_COMMAND : BWSH_EVENT_ALLOWED);
  _cleanup_free_ char *command = command_string (p, cmd), *line = NULL;
  const char *announced = getenv ("BWSH_SESSION_ID");
  char addr[64];
  int64_t mounts = 0;

  /* pam_bwsh's id joins this event to its allowed and ended ones; without
   * pam_bwsh, or with an id it did not make, the session gets its own. */
  started_id = id;
  if (pam_recorded && bwsh_session_id_valid (announced))
    snprintf (started_session_id, sizeof started_session_id, "%s", announced);
  else if (bwsh_session_id_new (started_session_id) < 0)
    started_session_id[0] = '\0';
  ssh_source (addr, sizeof addr, &ev.source_port);
  for (size_t i = 0; i < p->n_mounts; i++)
    if (p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED)
      mounts++;
  if (asprintf (&line, pam_recorded ? "command of the session of %s: %s"
                                    : "sandbox for %s started by bwsh (no pam_bwsh in the stack): %s",
                id->name, command != NULL ? command : "?")
      < 0)
    line = NULL;
  ev.session_id = started_session_id[0] != '\0' ? started_session_id : NULL;
  ev.source_address = addr[0] != '\0' ? addr : NULL;
  ev.origin = "bwsh";
  ev.message = line;
  ev.user = id->name;
  ev.uid = id->uid;
  ev.service = "bwsh";
  ev.outcome = pam_recorded ? "started" : "allowed";
  ev.plan_digest = digest;
  ev.network = bwsh_net_mode_to_string (p->network);
  ev.mounts = mounts;
  ev.refusals = (int64_t) p->n_refused;
  ev.command = command;
  ev.session_pid = getpid ();
  if (p->record != BWSH_RECORD_OFF)
    {
      ev.record = bwsh_record_mode_to_string (p->record);
      ev.recording = bwsh_recording_to_string (recording);
    }
  ev.term_fallback = p->term_fallback;
  if (line == NULL || bwsh_event_send (&ev) < 0)
    syslog (LOG_AUTHPRIV | LOG_INFO, "%s", line != NULL ? line : "sandbox started by bwsh");
  if (recording == BWSH_RECORDING_UNAVAILABLE)
    syslog (LOG_AUTHPRIV | LOG_WARNING,
            "session of %s runs unrecorded: the recorder %s is unavailable (record = \"tty\")", id->name,
            bwsh_tlog_rec_path ());
}

/* The id bwsh_front_recording() announced, for bwsh_front_recording_failed(). */
static char recording_id[BWSH_TLOG_REC_ID_MAX];

static void
recording_event (BwshEventType type, const char *outcome, const char *line, const char *reason, int64_t typeahead,
                 int64_t typeahead_ms)
{
  BwshEvent ev = BWSH_EVENT_INIT (type);

  ev.origin = "bwsh";
  ev.message = line;
  ev.user = started_id != NULL ? started_id->name : "?";
  ev.uid = started_id != NULL ? (int64_t) started_id->uid : (int64_t) getuid ();
  ev.service = "bwsh";
  ev.outcome = outcome;
  ev.reason = reason;
  ev.session_id = started_session_id[0] != '\0' ? started_session_id : NULL;
  ev.session_pid = getpid ();
  ev.recording = type == BWSH_EVENT_RECORDING ? "tty" : "failed";
  ev.typeahead_bytes = typeahead;
  ev.typeahead_ms = typeahead_ms;
  ev.tlog_rec = recording_id[0] != '\0' ? recording_id : NULL;
  if (line == NULL || bwsh_event_send (&ev) < 0)
    syslog (LOG_AUTHPRIV | (type == BWSH_EVENT_RECORDING ? LOG_INFO : LOG_ERR), "%s",
            line != NULL ? line : "session recorded by tlog-rec");
}

void
bwsh_front_recording (pid_t recorder, int64_t typeahead, int64_t typeahead_ms)
{
  _cleanup_free_ char *line = NULL;
  const char *user = started_id != NULL ? started_id->name : "?";

  /* tlog-rec runs as @recorder, still bwsh's unreaped child: its pid and
   * start time are what its recording id is made of. */
  if (bwsh_tlog_rec_id (recorder, recording_id) < 0)
    recording_id[0] = '\0';
  if (asprintf (&line, "session of %s recorded by tlog-rec, TLOG_REC=%s", user,
                recording_id[0] != '\0' ? recording_id : "?")
      < 0)
    line = NULL;
  recording_event (BWSH_EVENT_RECORDING, "recording", line, NULL, typeahead, typeahead_ms);
}

void
bwsh_front_recording_failed (const char *why)
{
  _cleanup_free_ char *line = NULL;
  const char *user = started_id != NULL ? started_id->name : "?";

  if (asprintf (&line, "recording of the session of %s failed, TLOG_REC=%s: %s", user,
                recording_id[0] != '\0' ? recording_id : "?", why)
      < 0)
    line = NULL;
  recording_event (BWSH_EVENT_RECORDING_FAILED, "failed", line, why, -1, -1);
}
