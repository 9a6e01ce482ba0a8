/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl doctor: the session recorder.  Whether tlog-rec runs as a
 * subject's login runs it, and whether what it writes leaves room in
 * journald's rate limit for the session-ended event.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "doctor_record.h"
#include "doctor_report.h"
#include "doctor_run.h"

/* ------------------------------------------------------------ recording */

/* record = "tty" or "required": tlog-rec must run as a subject's login runs
 * it (issue 36).  A recorder that cannot refuses every interactive login
 * under "required" and leaves each unrecorded under "tty". */
void
check_recording (Doctor *d)
{
  const char *rec = bwsh_tlog_rec_path (), *fix = NULL, *who = NULL, *outcome;
  _cleanup_free_ char *path = at_root (d, rec), *said = NULL;
  BwshError err = { 0 };
  CmdResult res = { 0 };
  uid_t uid;
  gid_t gid;

  if (d->policy == NULL || d->policy->record_mode == BWSH_RECORD_OFF)
    {
      finding (d, LEVEL_OK, NULL, "recording: record = \"off\"%s%s", d->subject != NULL ? " for " : "",
               d->subject != NULL ? d->subject->name : "");
      return;
    }
  outcome = d->policy->record_mode == BWSH_RECORD_REQUIRED
                ? "every interactive login is refused (record = \"required\")"
                : "interactive sessions run unrecorded (record = \"tty\")";
  probe_identity (d, &uid, &gid, &who);
  if (bwsh_recorder_check (d->root, uid, gid, &fix, &err) < 0)
    {
      finding (d, LEVEL_ERROR, fix, "recording: %s, for %s: %s", err.message, who, outcome);
      return;
    }
  /* Its configuration is tlog-rec's to read: it runs true(1) with it, as
   * the subject, writing to /dev/null instead of the journal. */
  const char *const argv[] = { path, "--writer=file", "--file-path=/dev/null", "--", "/bin/true", NULL };
  (void) run_cmd (argv, true, uid, gid, &res);
  if (!cmd_succeeded (&res))
    {
      said = res.err_len > 0 ? strndup (res.err, res.err_len) : cmd_first_line (&res);
      for (char *c = said; c != NULL && *c != '\0'; c++)
        if (*c == '\n' && c[1] != '\0')
          *c = ' ';
      if (said != NULL)
        said[strcspn (said, "\n")] = '\0';
      finding (d, LEVEL_ERROR, "correct /etc/tlog/tlog-rec.conf (tlog-rec.conf(5)), then run bwshctl doctor again",
               "recording: the recorder %s fails as %s runs it (%s): %s", rec, who,
               said != NULL ? said : "out of memory", outcome);
    }
  else
    finding (d, LEVEL_OK, NULL, "recording: %s runs for %s and /run/utmp is there (record = \"%s\")", rec, who,
             bwsh_record_mode_to_string (d->policy->record_mode));
  cmd_result_clear (&res);
}

/* ------------------------------------------------------ journal budget */

/* tlog-rec.conf is JSON with comments (json-c takes them, jansson does
 * not): the text without its // and block comments, strings kept. */
static json_t *
json_file_with_comments (const char *path)
{
  _cleanup_fclose_ FILE *f = fopen (path, "re");
  _cleanup_free_ char *buf = NULL;
  size_t n = 0, o = 0;
  bool str = false;

  if (f == NULL || (buf = calloc (1, 65536)) == NULL)
    return NULL;
  n = fread (buf, 1, 65535, f);
  for (size_t i = 0; i < n; i++)
    {
      if (str)
        {
          if (buf[i] == '\\' && i + 1 < n)
            buf[o++] = buf[i++];
          else if (buf[i] == '"')
            str = false;
        }
      else if (buf[i] == '"')
        str = true;
      else if (buf[i] == '/' && i + 1 < n && buf[i + 1] == '/')
        {
          while (i < n && buf[i] != '\n')
            i++;
        }
      else if (buf[i] == '/' && i + 1 < n && buf[i + 1] == '*')
        {
          for (i += 2; i + 1 < n && !(buf[i] == '*' && buf[i + 1] == '/'); i++)
            ;
          i++;
          continue;
        }
      if (i < n)
        buf[o++] = buf[i];
    }
  return json_loadb (buf, o, JSON_ALLOW_NUL, NULL);
}

/* KEY's number in @conf, else in @dflt, else @fallback. */
static double
tlog_number (json_t *conf, json_t *dflt, const char *section, const char *key, double fallback)
{
  json_t *objs[] = { conf, dflt };

  for (size_t i = 0; i < BWSH_N_ELEMENTS (objs); i++)
    {
      json_t *o = section != NULL ? json_object_get (objs[i], section) : objs[i];
      json_t *v = json_object_get (o, key);
      if (json_is_number (v))
        return json_number_value (v);
    }
  return fallback;
}

static const char *
tlog_string (json_t *conf, json_t *dflt, const char *section, const char *key, const char *fallback)
{
  json_t *objs[] = { conf, dflt };

  for (size_t i = 0; i < BWSH_N_ELEMENTS (objs); i++)
    {
      const char *v = json_string_value (json_object_get (json_object_get (objs[i], section), key));
      if (v != NULL)
        return v;
    }
  return fallback;
}

/* journald.conf's RateLimitIntervalSec= (in seconds) and RateLimitBurst=
 * in @path, when it sets them. */
static void
journald_limits (const char *path, double *interval, double *burst)
{
  _cleanup_fclose_ FILE *f = fopen (path, "re");
  char line[512];

  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    {
      char *v = strchr (line, '='), *end;
      double x;

      if (v == NULL)
        continue;
      *v++ = '\0';
      errno = 0;
      x = strtod (v, &end);
      if (errno != 0 || end == v || x < 0)
        continue;
      if (strcmp (line, "RateLimitBurst") == 0)
        *burst = x;
      else if (strcmp (line, "RateLimitIntervalSec") == 0 || strcmp (line, "RateLimitInterval") == 0)
        {
          end[strcspn (end, " \t\r\n")] = '\0';
          *interval = x * (strcmp (end, "ms") == 0 ? 0.001 : strcmp (end, "us") == 0 ? 0.000001
                           : strcmp (end, "min") == 0 || strcmp (end, "m") == 0 ? 60
                           : strcmp (end, "h") == 0 ? 3600 : 1);
        }
    }
}

static int
cmp_str (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* journald rate-limits each unit's senders per priority pool (crit, err,
 * warning, notice and info together, debug), and pam_bwsh's session-ended event
 * (info) comes from the session's unit, where tlog-rec writes what the
 * terminal shows: a session that floods its terminal could use up the
 * budget and have its end dropped (issue 36).  tlog's own limit (limit.rate,
 * limit.burst, with limit.action "delay" or "drop"; its default "pass"
 * limits nothing) bounds how many messages it writes; doctor compares that
 * with journald's RateLimitBurst= in one RateLimitIntervalSec=. */
void
check_journal_budget (Doctor *d)
{
  _cleanup_free_ char *conf_path = at_root (d, "/etc/tlog/tlog-rec.conf");
  _cleanup_free_ char *dflt_path = at_root (d, "/usr/share/tlog/tlog-rec.default.conf");
  _cleanup_free_ char *jd_path = at_root (d, "/etc/systemd/journald.conf");
  _cleanup_free_ char *jd_dir = at_root (d, "/etc/systemd/journald.conf.d");
  _cleanup_closedir_ DIR *dir = NULL;
  json_t *conf, *dflt;
  double interval = 30, burst = 10000, rate, tburst, payload, latency, msgs;
  const char *prio, *action;
  char *names[64];
  size_t n = 0;
  struct dirent *de;

  if (d->policy == NULL || d->policy->record_mode == BWSH_RECORD_OFF)
    return;
  journald_limits (jd_path, &interval, &burst);
  if ((dir = opendir (jd_dir)) != NULL)
    while ((de = readdir (dir)) != NULL && n < BWSH_N_ELEMENTS (names))
      if (fnmatch ("*.conf", de->d_name, 0) == 0 && (names[n] = at_root (d, "/etc/systemd/journald.conf.d/")) != NULL)
        {
          char *full = NULL;
          if (asprintf (&full, "%s%s", names[n], de->d_name) < 0)
            full = NULL;
          free (names[n]);
          if (full != NULL)
            names[n++] = full;
        }
  qsort (names, n, sizeof names[0], cmp_str);
  for (size_t i = 0; i < n; i++)
    {
      journald_limits (names[i], &interval, &burst);
      free (names[i]);
    }
  conf = json_file_with_comments (conf_path);
  dflt = json_file_with_comments (dflt_path);
  rate = tlog_number (conf, dflt, "limit", "rate", 16384);
  tburst = tlog_number (conf, dflt, "limit", "burst", 32768);
  payload = tlog_number (conf, dflt, NULL, "payload", 2048);
  latency = tlog_number (conf, dflt, NULL, "latency", 10);
  prio = tlog_string (conf, dflt, "journal", "priority", "info");
  action = tlog_string (conf, dflt, "limit", "action", "pass");
  if (interval <= 0 || burst <= 0)
    finding (d, LEVEL_OK, NULL, "journal budget: journald does not rate-limit (RateLimitIntervalSec=0 or RateLimitBurst=0)");
  else if (strcmp (prio, "notice") != 0 && strcmp (prio, "info") != 0)
    finding (d, LEVEL_OK, NULL, "journal budget: tlog-rec writes at priority %s, a rate-limit budget apart from the "
             "session-ended event's (info)", prio);
  else
    {
      /* Its messages carry at most payload bytes each; a flush at least
       * every latency seconds adds one.  limit.action "pass" (tlog's
       * default) applies no limit at all. */
      bool unlimited = strcasecmp (action, "pass") == 0 || rate <= 0 || payload <= 0;
      msgs = unlimited ? -1 : (rate * interval + tburst) / payload + interval / (latency > 0 ? latency : 1) + 1;
      if (unlimited)
        finding (d, LEVEL_WARNING,
                 "set \"limit\": { \"action\": \"delay\" } in /etc/tlog/tlog-rec.conf (a flood is slowed to limit.rate, "
                 "all of it recorded), or \"drop\" (what exceeds limit.rate is not recorded)",
                 "journal budget: tlog-rec's limit.action is \"%s\": it writes all a session prints, and journald takes "
                 "RateLimitBurst=%g in RateLimitIntervalSec=%gs from a unit at priority info: a recorded session that "
                 "floods its terminal can have its session-ended event dropped", action, burst, interval);
      else if (msgs * 2 > burst)
        finding (d, LEVEL_WARNING,
                 "lower limit.rate in /etc/tlog/tlog-rec.conf (16384 writes about 260 messages in 30 s), "
                 "or raise RateLimitBurst= in /etc/systemd/journald.conf.d/50-bwsh.conf to twice what tlog-rec writes",
                 "journal budget: tlog-rec may write %.0f messages in RateLimitIntervalSec=%gs (limit.rate %.0f, payload "
                 "%.0f), journald takes RateLimitBurst=%g from a unit at priority info: a recorded session that floods its "
                 "terminal can have its session-ended event dropped", msgs, interval, rate, payload, burst);
      else
        finding (d, LEVEL_OK, NULL, "journal budget: tlog-rec writes at most %.0f messages in RateLimitIntervalSec=%gs, "
                 "journald takes RateLimitBurst=%g from the session's unit: a flood leaves room for the session-ended "
                 "event", msgs, interval, burst);
    }
  json_decref (conf);
  json_decref (dflt);
}
