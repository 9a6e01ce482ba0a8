/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pam_bwsh: the session module.  It makes bwsh's policy hold on every PAM
 * service, not only where the login shell runs, and it records each session.
 *
 * pam_sm_acct_mgmt decides admission first (policy, service, shell, lock,
 * max_sessions, the plan), where a refusal still reaches every client:
 * sshd sends what the account stage says as a banner, which ssh, scp, sftp
 * and rsync print on stderr.  What the session stage says, sshd prints on
 * the session's stdout, after the motd: inside the sftp protocol it reads
 * "Received message too long 1651995496", the bytes "bwsh".  The session
 * stage decides all of it again (a stack may lack the account line, and
 * max_sessions is only final when the session registers).
 *
 * For a subject of the policy, pam_sm_open_session:
 *   - refuses services that never run the login shell (cron, atd, ...);
 *   - refuses a passwd shell that is not bwsh (require_shell);
 *   - scrubs the PAM environment of what acts on bwsh before the sandbox;
 *   - reads the user overlay and builds the plan exactly as bwsh will, as
 *     the user (pam_modutil_drop_priv), and creates the project directory;
 *   - exports the plan's digest as BWSH_PLAN and writes one audit line.
 *
 * It is a thin front end over core/: no decision lives only here.  The module
 * runs inside sshd, login and su as root, so it never exits or aborts, frees
 * everything it allocates, and turns every core error into a PAM code in
 * exactly one place (core_error_to_pam()).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define PAM_SM_ACCOUNT
#define PAM_SM_SESSION
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "session_command.h"

#define BWSH_EXPORT __attribute__ ((visibility ("default")))
#define DATA_KEY "pam_bwsh_session"
#define BWSH_BINARY BWSH_BINDIR "/bwsh"

typedef struct Options
{
  bool debug;
  const char *policy_path; /* NULL: the compiled-in one */
} Options;

/* What open_session hands to close_session through pam_set_data(). */
typedef struct SessionRecord
{
  char digest[65];
  char policy_digest[65];
  size_t mounts;
  size_t refusals;
  BwshNetMode network;
  int64_t uid;
  char *command;     /* what the service runs for the user */
  char *registry_id; /* the entry in BWSH_SESSIONS_DIR */
  char session_id[BWSH_SESSION_ID_LEN + 1]; /* BWSH_SESSION_ID, in every event of the session */
  int64_t start;     /* when it opened, for the duration at close */
  int64_t home_epoch; /* the plan's, for the registry (plan.h) */
} SessionRecord;

typedef struct Ctx
{
  pam_handle_t *pamh;
  int flags;
  bool account;        /* the account stage, not the session */
  Options opt;
  const char *user;    /* PAM_USER, or NULL before it is known */
  const char *service; /* PAM_SERVICE */
  const char *rhost;   /* PAM_RHOST */
  const char *ruser;   /* PAM_RUSER: who asked (su's and sudo's caller) */
  const char *tty;     /* PAM_TTY */
  int64_t uid;         /* the user's, once known; -1 before */
} Ctx;

static void
strv_freep (char ***p)
{
  if (*p == NULL)
    return;
  for (char **e = *p; *e != NULL; e++)
    {
      /* pam_getenvlist() hands out copies of the values; they may be secrets. */
      explicit_bzero (*e, strlen (*e));
      free (*e);
    }
  free (*p);
}

/* The single mapping from core's -errno to PAM.  Out of memory is the only
 * failure PAM has a more precise code for; everything else (unsafe or
 * invalid policy, strict refusal, an identity NSS does not know, a project
 * directory that cannot be made) refuses the session, with PAM_PERM_DENIED
 * in both stages: sudo takes a PAM_SESSION_ERR from pam_open_session() as
 * non-fatal and runs the command anyway (sudo -u SUBJECT, unsandboxed);
 * every service fails on PAM_PERM_DENIED. */
static int
core_error_to_pam (int r)
{
  switch (r)
    {
    case 0:
      return PAM_SUCCESS;
    case -ENOMEM:
      return PAM_BUF_ERR;
    default:
      return PAM_PERM_DENIED;
    }
}

static const char *
or_dash (const char *s)
{
  return s != NULL && s[0] != '\0' ? s : "-";
}

/* One line per open and per close, keyed so that a log search can rely on
 * it.  Values an outsider can influence (rhost comes from DNS or the client,
 * tty from the service) are escaped. */
static void
audit (const Ctx *c, const char *event, const char *outcome, const SessionRecord *rec, BwshEvent *ev)
{
  const char *user = or_dash (c->user), *service = or_dash (c->service);
  const char *rhost = or_dash (c->rhost), *tty = or_dash (c->tty);
  _cleanup_free_ char *e_user = bwsh_escape (user, strlen (user));
  _cleanup_free_ char *e_service = bwsh_escape (service, strlen (service));
  _cleanup_free_ char *e_rhost = bwsh_escape (rhost, strlen (rhost));
  _cleanup_free_ char *e_tty = bwsh_escape (tty, strlen (tty));
  const char *command = rec != NULL && rec->command != NULL ? rec->command : "-";
  _cleanup_free_ char *e_command = bwsh_escape (command, strlen (command));
  _cleanup_free_ char *line = NULL;
  char end[64] = "";

  /* The end of a session: why, and the status bwrap reported (or "-"). */
  if (ev->end_reason != NULL)
    {
      char status[16] = "-";
      if (ev->exit_status >= 0)
        snprintf (status, sizeof status, "%d", ev->exit_status);
      snprintf (end, sizeof end, " end=%s exit=%s", ev->end_reason, status);
    }
  if (asprintf (&line,
                "session %s user=\"%s\" service=\"%s\" rhost=\"%s\" tty=\"%s\" outcome=%s digest=%s "
                "mounts=%zu refusals=%zu command=\"%s\"%s",
                event, e_user != NULL ? e_user : "?", e_service != NULL ? e_service : "?",
                e_rhost != NULL ? e_rhost : "?", e_tty != NULL ? e_tty : "?", outcome,
                rec != NULL ? rec->digest : "-", rec != NULL ? rec->mounts : 0, rec != NULL ? rec->refusals : 0,
                e_command != NULL ? e_command : "?", end)
      < 0)
    line = NULL;

  /* The journal when there is one: typed fields and a MESSAGE_ID (see
   * bwsh-audit(7)); else the syslog line, as before there were fields. */
  ev->origin = "pam_bwsh";
  ev->message = line;
  ev->user = c->user;
  ev->service = c->service;
  ev->rhost = c->rhost;
  ev->tty = c->tty;
  ev->ruser = c->ruser;
  ev->outcome = outcome;
  if (ev->uid < 0)
    ev->uid = rec != NULL ? rec->uid : c->uid;
  if (rec != NULL)
    {
      ev->plan_digest = rec->digest;
      ev->policy_digest = rec->policy_digest[0] != '\0' ? rec->policy_digest : NULL;
      ev->mounts = (int64_t) rec->mounts;
      ev->refusals = (int64_t) rec->refusals;
      ev->network = bwsh_net_mode_to_string (rec->network);
      ev->command = rec->command;
      ev->session_id = rec->session_id[0] != '\0' ? rec->session_id : NULL;
    }
  if (bwsh_event_send (ev) >= 0)
    return;
  pam_syslog (c->pamh, LOG_AUTHPRIV | LOG_INFO, "%s", line != NULL ? line : "session audit: out of memory");
}

/* Refuse the session: one "bwsh: ..." line to the user, the same line plus
 * the core error in syslog, the audit record, and the PAM code.  The core
 * error names files and positions, never what a file contains. */
static int refuse_event (const Ctx *c, BwshEvent *ev, int r, const BwshError *err, const char *fmt, ...)
  __attribute__ ((format (printf, 5, 6)));

static int
refuse_event (const Ctx *c, BwshEvent *ev, int r, const BwshError *err, const char *fmt, ...)
{
  _cleanup_free_ char *raw_what = NULL, *raw_detail = NULL, *what = NULL, *detail = NULL, *reason = NULL;
  va_list ap;
  int k;

  va_start (ap, fmt);
  k = vasprintf (&raw_what, fmt, ap);
  va_end (ap);
  if (k < 0)
    raw_what = NULL;
  if (err != NULL && (err->code != BWSH_ERROR_NONE || err->message[0] != '\0'))
    raw_detail = bwsh_error_to_string (err);
  /* A message may carry a path the user chose: what a terminal or a log
   * reader acts on is escaped, as everywhere else. */
  if (raw_what != NULL)
    what = bwsh_escape_message (raw_what);
  if (raw_detail != NULL)
    detail = bwsh_escape_message (raw_detail);
  /* Out of memory on the way here: still one complete line. */
  const char *w = what != NULL && what[0] != '\0' ? what : NULL;
  const char *d = detail != NULL ? detail : (err != NULL || r == -ENOMEM) ? "out of memory" : NULL;

  pam_syslog (c->pamh, LOG_ERR, "session refused for %s: %s%s%s", or_dash (c->user), w != NULL ? w : "",
              w != NULL && d != NULL ? ": " : "", d != NULL ? d : "");
  /* The administrator's file, line and parse error are for the journal:
   * the user hears that the policy is broken, in one line, bwsh's (a
   * policy error refuses only where no last good policy decides). */
  if ((c->flags & PAM_SILENT) == 0 && err != NULL && err->code == BWSH_ERROR_POLICY)
    pam_error (c->pamh, "bwsh: the sandbox policy cannot be used (the administrator has the details); no last good "
                        "policy: refused");
  else if ((c->flags & PAM_SILENT) == 0)
    pam_error (c->pamh, "bwsh: %s%s%s", w != NULL ? w : "", w != NULL && d != NULL ? ": " : "", d != NULL ? d : "");
  if (asprintf (&reason, "%s%s%s", w != NULL ? w : "", w != NULL && d != NULL ? ": " : "", d != NULL ? d : "") < 0)
    reason = NULL;
  ev->reason = reason;
  if (ev->uid < 0)
    ev->uid = c->uid;
  audit (c, "open", "refused", NULL, ev);
  return core_error_to_pam (r < 0 ? r : -EPERM);
}

#define refuse(c, r, err, ...)                                                                               \
  refuse_event ((c), &(BwshEvent) BWSH_EVENT_INIT (BWSH_EVENT_REFUSED), (r), (err), __VA_ARGS__)

/* Refuse with what core says, its step named by the error's code. */
static int
refuse_error (const Ctx *c, int r, const BwshError *err)
{
  return refuse (c, r, err, "%s", "");
}

static int
parse_options (pam_handle_t *pamh, int flags, int argc, const char **argv, Options *ret)
{
  Options o = { 0 };

  for (int i = 0; i < argc; i++)
    {
      const char *a = argv[i];

      if (strcmp (a, "debug") == 0)
        o.debug = true;
      else if (strncmp (a, "policy=", 7) == 0 && a[7] == '/')
        o.policy_path = a + 7;
      else
        {
          /* A typo ("polcy=", "policy=relative") must not silently fall
           * back to another policy, or to none. */
          _cleanup_free_ char *e = bwsh_escape (a, strlen (a));
          pam_syslog (pamh, LOG_ERR, "unknown or invalid option \"%s\"; refusing the session",
                      e != NULL ? e : "?");
          if ((flags & PAM_SILENT) == 0)
            pam_error (pamh, "bwsh: the session module is misconfigured; see the system log");
          return PAM_SERVICE_ERR;
        }
    }
  *ret = o;
  return PAM_SUCCESS;
}

static int
ctx_init (Ctx *c, pam_handle_t *pamh, int flags, int argc, const char **argv)
{
  const void *item;
  int r;

  *c = (Ctx) { .pamh = pamh, .flags = flags, .uid = -1 };
  r = parse_options (pamh, flags, argc, argv, &c->opt);
  if (r != PAM_SUCCESS)
    return r;
  if (pam_get_item (pamh, PAM_USER, &item) == PAM_SUCCESS)
    c->user = item;
  if (pam_get_item (pamh, PAM_SERVICE, &item) == PAM_SUCCESS)
    c->service = item;
  if (pam_get_item (pamh, PAM_RHOST, &item) == PAM_SUCCESS)
    c->rhost = item;
  if (pam_get_item (pamh, PAM_TTY, &item) == PAM_SUCCESS)
    c->tty = item;
  if (pam_get_item (pamh, PAM_RUSER, &item) == PAM_SUCCESS)
    c->ruser = item;
  return PAM_SUCCESS;
}

/* ----------------------------------------------- decisions (core helpers) */

/* --------------------------------------------------- environment scrub */

/* What the PAM environment must not carry into a subject's session: the
 * list is core's (bwsh_env_must_scrub()), shared with bwshctl doctor. */
static int
scrub_environment (const Ctx *c)
{
  _cleanup_ (strv_freep) char **env = pam_getenvlist (c->pamh);

  if (env == NULL)
    return -ENOMEM;
  for (char **e = env; *e != NULL; e++)
    {
      char *eq = strchr (*e, '=');
      _cleanup_free_ char *name = eq != NULL ? strndup (*e, (size_t) (eq - *e)) : strdup (*e);
      _cleanup_free_ char *esc = NULL;

      if (name == NULL)
        return -ENOMEM;
      if (!bwsh_env_must_scrub (name))
        continue;
      /* pam_putenv("NAME") without "=" deletes NAME. */
      if (pam_putenv (c->pamh, name) != PAM_SUCCESS)
        return -EIO;
      esc = bwsh_escape (name, strlen (name));
      pam_syslog (c->pamh, LOG_NOTICE, "removed %s from the PAM environment of %s (acts before the sandbox)",
                  esc != NULL ? esc : "?", or_dash (c->user));
    }
  return 0;
}

static void
log_warnings (const Ctx *c, const BwshDiag *d)
{
  /* The same text bwsh prints, quotes and all (escaped only where a
   * terminal or a log reader would act on a byte). */
  for (size_t i = 0; i < d->n; i++)
    {
      _cleanup_free_ char *e = bwsh_escape_message (d->lines[i]);
      pam_syslog (c->pamh, LOG_WARNING, "%s: %s", or_dash (c->user), e != NULL ? e : "?");
    }
}

static SessionRecord *
record_free_ptr (SessionRecord *rec)
{
  if (rec != NULL)
    {
      free (rec->command);
      free (rec->registry_id);
      free (rec);
    }
  return NULL;
}

static void
recordp_free (SessionRecord **p)
{
  record_free_ptr (*p);
}

static void
record_free (pam_handle_t *pamh, void *data, int error_status)
{
  (void) pamh;
  (void) error_status;
  record_free_ptr (data);
}

/* The policy cannot be read (a bad push): say so at crit, with the file
 * and line, and what decided instead (lkg.h); once per broken version, not
 * at every login: each refusal has its own event. */
static void
policy_fallback_event (const Ctx *c, const BwshSession *s, int r)
{
  BwshEvent ev = BWSH_EVENT_INIT (BWSH_EVENT_POLICY);
  _cleanup_free_ char *raw = bwsh_error_to_string (&s->policy_error), *line = NULL;
  _cleanup_free_ char *why = raw != NULL ? bwsh_escape_message (raw) : NULL;
  const char *outcome = r < 0 ? "refused" : s->policy_last_good ? "last-good" : "ignored";

  if (bwsh_policy_error_reported (&s->policy_error, true) == 1)
    return;

  if (asprintf (&line, "%s; %s", why != NULL ? why : "the sandbox policy cannot be used",
                r < 0                  ? "no last good policy: the session of a bwsh account is refused"
                : s->policy_last_good ? "the session is decided by the last policy that loaded cleanly"
                                      : "root or an account whose shell is not bwsh: left alone")
      < 0)
    line = NULL;
  pam_syslog (c->pamh, LOG_CRIT, "%s: %s", or_dash (c->user), line != NULL ? line : "policy cannot be used");
  ev.origin = "pam_bwsh";
  ev.message = line;
  ev.user = c->user;
  ev.uid = s->id != NULL ? (int64_t) s->id->uid : -1;
  ev.service = c->service;
  ev.rhost = c->rhost;
  ev.tty = c->tty;
  ev.outcome = outcome;
  ev.reason = s->policy_error.message;
  ev.policy_file = s->policy_error.file[0] != '\0' ? s->policy_error.file : NULL;
  ev.policy_line = s->policy_error.line > 0 ? s->policy_error.line : -1;
  (void) bwsh_event_send (&ev);
}

/* Admission refused the session (admission.h): the lock and the limit
 * have events of their own. */
static int
refuse_admission (const Ctx *c, const BwshSession *s, int r, const BwshError *err)
{
  const BwshAdmission *a = s != NULL ? s->admission : NULL;
  BwshEvent ev = BWSH_EVENT_INIT (BWSH_EVENT_REFUSED);

  if (a != NULL && a->verdict == BWSH_ADMIT_LOCKED && a->lock.target != NULL)
    {
      ev.lock_target = a->lock.target;
      ev.lock_by = a->lock.by; /* a lock group of the policy: "policy FILE:LINE" */
    }
  else if (a != NULL && a->verdict == BWSH_ADMIT_MAX_SESSIONS && r == -EPERM)
    {
      ev = (BwshEvent) BWSH_EVENT_INIT (BWSH_EVENT_LIMIT);
      ev.sessions = (int64_t) a->live;
      ev.max_sessions = a->max_sessions;
    }
  return refuse_event (c, &ev, r, err, "%s", "");
}

/* Register the session for bwshctl sessions/lock, within max_sessions. */
static int
register_session (const Ctx *c, const BwshIdentity *id, const BwshPolicy *pol, const char *policy_path,
                  SessionRecord *rec)
{
  BwshSessionEntry e = { 0 };
  BwshError err = { 0 };
  size_t live = 0;
  int r;

  e.uid = id->uid;
  e.start = rec->start;
  e.pid = getpid ();
  e.home_epoch = rec->home_epoch;
  memcpy (e.plan_digest, rec->digest, sizeof e.plan_digest);
  memcpy (e.policy_digest, rec->policy_digest, sizeof e.policy_digest);
  if ((e.user = strdup (c->user)) == NULL || (e.service = strdup (or_dash (c->service))) == NULL
      || (e.rhost = strdup (or_dash (c->rhost))) == NULL || (e.tty = strdup (or_dash (c->tty))) == NULL
      || (e.command = strdup (rec->command)) == NULL || (e.policy_path = strdup (policy_path)) == NULL)
    r = -ENOMEM;
  else
    r = bwsh_pid_start_time (e.pid, &e.pid_start);
  if (r >= 0)
    r = bwsh_registry_register (NULL, &e, pol->max_sessions, &live, &err);
  rec->registry_id = steal_pointer (&e.id);
  bwsh_session_entry_clear (&e);
  if (r == -EUSERS)
    {
      BwshEvent ev = BWSH_EVENT_INIT (BWSH_EVENT_LIMIT);
      ev.sessions = (int64_t) live;
      ev.max_sessions = pol->max_sessions;
      return refuse_event (c, &ev, r, NULL, "%s has %zu sessions open, at most %u are allowed (max_sessions)",
                           c->user, live, pol->max_sessions);
    }
  if (r < 0)
    return refuse (c, r, &err, "cannot register the session");
  return PAM_SUCCESS;
}

/* ------------------------------------------------------------- entries */

typedef struct
{
  pam_handle_t *pamh;
  const char *user;
  struct pam_modutil_privs *privs;
} Privs;

/* The user's files are read as the user (core calls these around the steps
 * that read them). */
static int
drop_privileges (void *userdata, const BwshIdentity *id, BwshError *err)
{
  Privs *p = userdata;
  const struct passwd *pw = pam_modutil_getpwnam (p->pamh, p->user);

  if (pw == NULL || pw->pw_uid != id->uid)
    return bwsh_error_set (err, -ENOENT, NULL, 0, 0, "cannot identify the user");
  if (pam_modutil_drop_priv (p->pamh, p->privs, pw) != 0)
    return bwsh_error_set (err, -EPERM, NULL, 0, 0, "cannot drop privileges to %s", p->user);
  return 0;
}

static int
regain_privileges (void *userdata, BwshError *err)
{
  Privs *p = userdata;

  /* The process is in a state nobody planned for; say so and stop. */
  if (pam_modutil_regain_priv (p->pamh, p->privs) != 0)
    return bwsh_error_set (err, -EPERM, NULL, 0, 0, "cannot regain privileges after reading %s's files", p->user);
  return 0;
}

/* Both stages: the user, the environment as it stands, and core's one
 * bwsh_session_prepare() in @mode, reading the user's files as the user.
 * PAM_SUCCESS with *ret set, or the refusal's PAM code. */
static int
prepare (Ctx *c, BwshSessionMode mode, BwshSession **ret)
{
  _cleanup_ (strv_freep) char **envp = NULL;
  PAM_MODUTIL_DEF_PRIVS (privs);
  BwshError err = { 0 };
  Privs pv = { .pamh = c->pamh, .privs = &privs, .user = c->user };
  BwshSessionRequest req = {
    .mode = mode,
    .pam = true,
    .bwsh_binary = BWSH_BINARY,
    .become_user = drop_privileges,
    .become_caller = regain_privileges,
    .userdata = &pv,
  };
  int r;

  if (c->user == NULL || c->user[0] == '\0')
    return refuse (c, -EINVAL, NULL, "no user name for the session");
  /* The caller's environment as it stands; what the scrub removes later is
   * never on the plan's allow-list. */
  envp = pam_getenvlist (c->pamh);
  if (envp == NULL)
    return refuse (c, -ENOMEM, NULL, "cannot read the session environment");
  req.user = c->user;
  req.service = c->service;
  req.policy_path = c->opt.policy_path;
  req.envp = envp;

  r = bwsh_session_prepare (&req, ret, &err);
  if (*ret != NULL && (*ret)->id != NULL)
    c->uid = (*ret)->id->uid;
  /* Once per login: the session stage logs the warnings and events, or
   * the account stage when it refuses (there is no session stage then). */
  if (*ret != NULL && (*ret)->policy_fallback && (!c->account || r < 0))
    policy_fallback_event (c, *ret, r);
  if (r >= 0 && *ret != NULL && (*ret)->policy != NULL && !(*ret)->policy_fallback)
    {
      /* A clean load: keep it as the last good policy (only rewritten when
       * it changed).  Failing to keep it refuses nobody. */
      BwshError lerr = { 0 };
      if (bwsh_policy_lkg_save ((*ret)->policy, c->opt.policy_path != NULL ? c->opt.policy_path : bwsh_policy_path (),
                                (*ret)->id, &lerr)
          < 0)
        pam_syslog (c->pamh, LOG_WARNING, "cannot keep the last good policy: %s", lerr.message);
    }
  if (*ret != NULL && !c->account)
    {
      log_warnings (c, &(*ret)->diag);
      if ((*ret)->plan != NULL)
        log_warnings (c, &(*ret)->plan->diag);
    }
  if (r < 0 && (err.code == BWSH_ERROR_LOCKED || err.code == BWSH_ERROR_LIMIT))
    return refuse_admission (c, *ret, r, &err);
  if (r < 0)
    return refuse_error (c, r, &err);
  return PAM_SUCCESS;
}

/* Admission where the client still hears the reason (see the top of the
 * file): everything the session stage would refuse before it registers,
 * decided by the same core call in CHECK mode, which creates nothing. */
BWSH_EXPORT int
pam_sm_acct_mgmt (pam_handle_t *pamh, int flags, int argc, const char **argv)
{
  _cleanup_ (bwsh_session_freep) BwshSession *s = NULL;
  Ctx c;
  int ret;

  ret = ctx_init (&c, pamh, flags, argc, argv);
  if (ret != PAM_SUCCESS)
    return ret;
  c.account = true;
  ret = prepare (&c, BWSH_SESSION_CHECK, &s);
  if (ret != PAM_SUCCESS)
    return ret;
  /* Lock and max_sessions: core's admission step, in prepare(). */
  if (!s->is_subject)
    return PAM_IGNORE;
  if (s->refusal.code != BWSH_ERROR_NONE)
    return refuse_error (&c, -EPERM, &s->refusal);
  return PAM_SUCCESS;
}

BWSH_EXPORT int
pam_sm_open_session (pam_handle_t *pamh, int flags, int argc, const char **argv)
{
  _cleanup_ (bwsh_session_freep) BwshSession *s = NULL;
  _cleanup_ (recordp_free) SessionRecord *rec = NULL;
  BwshError err = { 0 };
  char env_plan[sizeof "BWSH_PLAN=" + 64];
  char env_id[sizeof "BWSH_SESSION_ID=" + BWSH_SESSION_ID_LEN];
  BwshEvent ev_open = BWSH_EVENT_INIT (BWSH_EVENT_ALLOWED);
  const char *policy_path;
  Ctx c;
  int r, ret;

  ret = ctx_init (&c, pamh, flags, argc, argv);
  if (ret != PAM_SUCCESS)
    return ret;
  {
    /* The module twice in one stack (Debian's su-l includes su): the
     * session is admitted and registered once. */
    const void *data = NULL;
    if (pam_get_data (pamh, DATA_KEY, &data) == PAM_SUCCESS && data != NULL)
      return PAM_SUCCESS;
  }
  ret = prepare (&c, BWSH_SESSION_RUN, &s);
  if (ret != PAM_SUCCESS)
    return ret;

  /* PAM_IGNORE, not PAM_SUCCESS: the module vouches for nothing about a
   * user it does not confine.  With "sufficient", "[success=N ...]" or a
   * stack where it is the only session module, a PAM_SUCCESS would count as
   * a positive verdict; PAM_IGNORE leaves the result to the other modules. */
  if (!s->is_subject)
    {
      if (c.opt.debug)
        pam_syslog (pamh, LOG_DEBUG, "%s is not a subject of %s; ignored", c.user,
                    c.opt.policy_path != NULL ? c.opt.policy_path : bwsh_policy_path ());
      return PAM_IGNORE;
    }

  r = scrub_environment (&c);
  if (r < 0)
    return refuse (&c, r, NULL, "cannot clean the session environment");

  rec = calloc (1, sizeof *rec);
  if (rec == NULL)
    return refuse (&c, -ENOMEM, NULL, "cannot record the session");
  bwsh_plan_digest (s->plan, rec->digest);
  rec->home_epoch = s->plan->home_epoch;
  for (size_t i = 0; i < s->plan->n_mounts; i++)
    if (s->plan->mounts[i].verdict == BWSH_VERDICT_ACCEPTED)
      rec->mounts++;
  rec->refusals = s->plan->n_refused;
  rec->network = s->plan->network;
  rec->uid = s->id->uid;
  r = bwsh_policy_digest (s->policy, rec->policy_digest, &err);
  if (r < 0)
    return refuse_error (&c, r, &err);
  r = pam_bwsh_session_command (s->id->shell, &rec->command);
  if (r < 0)
    return refuse (&c, r, NULL, "cannot record the session");
  /* One id joins the session's events: this module's allowed and ended,
   * and bwsh's command event (it reads BWSH_SESSION_ID from its
   * environment, which the service builds from the PAM environment). */
  r = bwsh_session_id_new (rec->session_id);
  if (r < 0)
    return refuse (&c, r, NULL, "cannot record the session");
  rec->start = (int64_t) time (NULL);
  policy_path = c.opt.policy_path != NULL ? c.opt.policy_path : bwsh_policy_path ();
  ret = register_session (&c, s->id, s->policy, policy_path, rec);
  if (ret != PAM_SUCCESS)
    return ret;
  /* Where the session's bwrap will report its program's exit status
   * (audit.h): without it the ended event has no status, nothing else. */
  r = bwsh_status_file_create (NULL, rec->session_id, s->id->uid, s->id->gid, &err);
  if (r < 0)
    pam_syslog (pamh, LOG_WARNING, "no exit status will be recorded for this session of %s: %s", c.user,
                err.message);

  snprintf (env_plan, sizeof env_plan, "BWSH_PLAN=%s", rec->digest);
  snprintf (env_id, sizeof env_id, "BWSH_SESSION_ID=%s", rec->session_id);
  if (pam_putenv (pamh, env_plan) != PAM_SUCCESS || pam_putenv (pamh, env_id) != PAM_SUCCESS
      || pam_set_data (pamh, DATA_KEY, rec, record_free) != PAM_SUCCESS)
    {
      BwshStatusReport ignored;
      (void) bwsh_registry_unregister (NULL, rec->registry_id);
      (void) bwsh_status_file_take (NULL, rec->session_id, s->id->uid, &ignored); /* removes it */
      return refuse (&c, -ENOMEM, NULL, "cannot record the session");
    }
  /* Root's `su -s /bin/bash USER` passed every check above and runs bash:
   * say so instead of recording a sandbox. */
  ev_open.session_pid = getpid ();
  audit (&c, "open", bwsh_shell_is_bwsh (rec->command, BWSH_BINARY) ? "accepted" : "unsandboxed", rec, &ev_open);
  rec = NULL; /* owned by pamh now */
  return PAM_SUCCESS;
}

BWSH_EXPORT int
pam_sm_close_session (pam_handle_t *pamh, int flags, int argc, const char **argv)
{
  const void *data = NULL;
  const SessionRecord *rec;
  BwshEvent ev = BWSH_EVENT_INIT (BWSH_EVENT_ENDED);
  _cleanup_ (bwsh_lock_clear) BwshLock lock = { 0 };
  BwshStatusReport report = { .exit_status = -1 };
  Ctx c;
  int ret;

  ret = ctx_init (&c, pamh, flags, argc, argv);
  if (ret != PAM_SUCCESS)
    return ret;
  /* No record: open_session ignored this user (not a subject) or refused
   * the session, and there is nothing to close. */
  if (pam_get_data (pamh, DATA_KEY, &data) != PAM_SUCCESS || data == NULL)
    return PAM_IGNORE;
  rec = data;
  /* Already gone when bwshctl lock ended the session and pruned it. */
  (void) bwsh_registry_unregister (NULL, rec->registry_id);
  ev.session_pid = getpid ();
  ev.duration = (int64_t) time (NULL) - rec->start;
  if (ev.duration < 0)
    ev.duration = -1; /* the clock went back: no duration */
  /* What bwrap reported; nothing when it ended before its program did (a
   * disconnect's SIGHUP, a lock's kill) or the file is not what bwrap wrote.
   * And what bwsh wrote there when it refused the session or ended it for
   * its recording: bwsh runs as the user, so this event is the one root
   * sends about it (issue 38). */
  if (rec->uid >= 0 && bwsh_status_file_take (NULL, rec->session_id, (uid_t) rec->uid, &report) >= 0)
    ev.exit_status = report.exit_status;
  /* The lock bwshctl enforce ended the session for (its note), or a lock
   * set while the session ran, still there: bwshctl lock ended it (or
   * will: the session is locked either way). */
  if (bwsh_lock_note_take (NULL, rec->registry_id, &lock) >= 0
      || (c.user != NULL && bwsh_lock_since (NULL, c.user, rec->start, &lock) >= 0))
    {
      ev.end_reason = "lock";
      ev.lock_target = lock.target;
      ev.lock_reason = lock.reason;
      ev.lock_by = lock.by;
    }
  else if (report.end != BWSH_END_NONE)
    {
      ev.end_reason = bwsh_end_to_string (report.end);
      ev.reason = report.reason[0] != '\0' ? report.reason : NULL;
    }
  else
    ev.end_reason = "logout";
  audit (&c, "close", "closed", rec, &ev);
  return PAM_SUCCESS;
}
