/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pam_bwsh: the session module.  It makes bwsh's policy hold on every PAM
 * service, not only where the login shell runs, and it records each session.
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
#include <fnmatch.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#define PAM_SM_SESSION
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "bwsh.h"
#include "cleanup.h"

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
  size_t mounts;
  size_t refusals;
} SessionRecord;

typedef struct Ctx
{
  pam_handle_t *pamh;
  int flags;
  Options opt;
  const char *user;    /* PAM_USER, or NULL before it is known */
  const char *service; /* PAM_SERVICE */
  const char *rhost;   /* PAM_RHOST */
  const char *tty;     /* PAM_TTY */
} Ctx;

static void
identity_freep (BwshIdentity **p)
{
  bwsh_identity_free (*p);
}

static void
policy_freep (BwshPolicy **p)
{
  bwsh_policy_free (*p);
}

static void
user_config_freep (BwshUserConfig **p)
{
  bwsh_user_config_free (*p);
}

static void
plan_freep (BwshPlan **p)
{
  bwsh_plan_free (*p);
}

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
 * directory that cannot be made) refuses the session. */
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
      return PAM_SESSION_ERR;
    }
}

/* A message may carry a path the user chose: no control character of it
 * reaches a terminal or a log line. */
static void
neutralize_controls (char *s)
{
  for (; *s != '\0'; s++)
    if ((unsigned char) *s < 0x20 || (unsigned char) *s == 0x7f)
      *s = '?';
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
audit (const Ctx *c, const char *event, const char *outcome, const SessionRecord *rec)
{
  const char *user = or_dash (c->user), *service = or_dash (c->service);
  const char *rhost = or_dash (c->rhost), *tty = or_dash (c->tty);
  _cleanup_free_ char *e_user = bwsh_escape (user, strlen (user));
  _cleanup_free_ char *e_service = bwsh_escape (service, strlen (service));
  _cleanup_free_ char *e_rhost = bwsh_escape (rhost, strlen (rhost));
  _cleanup_free_ char *e_tty = bwsh_escape (tty, strlen (tty));

  pam_syslog (c->pamh, LOG_AUTHPRIV | LOG_INFO,
              "session %s user=\"%s\" service=\"%s\" rhost=\"%s\" tty=\"%s\" outcome=%s digest=%s "
              "mounts=%zu refusals=%zu",
              event, e_user != NULL ? e_user : "?", e_service != NULL ? e_service : "?",
              e_rhost != NULL ? e_rhost : "?", e_tty != NULL ? e_tty : "?", outcome,
              rec != NULL ? rec->digest : "-", rec != NULL ? rec->mounts : 0, rec != NULL ? rec->refusals : 0);
}

/* Refuse the session: one "bwsh: ..." line to the user, the same line plus
 * the core error in syslog, the audit record, and the PAM code.  The core
 * error names files and positions, never what a file contains. */
static int refuse (const Ctx *c, int r, const BwshError *err, const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));

static int
refuse (const Ctx *c, int r, const BwshError *err, const char *fmt, ...)
{
  char what[512];
  char detail[sizeof err->file + BWSH_MESSAGE_MAX + 32] = "";
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (what, sizeof what, fmt, ap);
  va_end (ap);
  neutralize_controls (what);
  if (err != NULL && (err->message[0] != '\0' || err->file[0] != '\0'))
    {
      bwsh_error_format (err, detail, sizeof detail);
      neutralize_controls (detail);
    }
  else if (r == -ENOMEM)
    snprintf (detail, sizeof detail, "out of memory");

  pam_syslog (c->pamh, LOG_ERR, "session refused for %s: %s%s%s", or_dash (c->user), what,
              detail[0] != '\0' ? ": " : "", detail);
  if ((c->flags & PAM_SILENT) == 0)
    pam_error (c->pamh, "bwsh: %s%s%s", what, detail[0] != '\0' ? ": " : "", detail);
  audit (c, "open", "refused", NULL);
  return core_error_to_pam (r < 0 ? r : -EPERM);
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

  *c = (Ctx) { .pamh = pamh, .flags = flags };
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
  return PAM_SUCCESS;
}

/* ----------------------------------------------- decisions (core helpers) */

/* --------------------------------------------------- environment scrub */

/* What the PAM environment must not carry into a subject's session: each of
 * these acts on bwsh (or on bwrap, or on a shell or script that runs before
 * the sandbox: sshrc, ~/.ssh/rc, pam_exec helpers) while it still runs on
 * the host.  Inside the sandbox bwrap's --clearenv plus the allow-list apply;
 * this is about the code before it.  Measured on Debian 12: sshd's stack has
 * pam_env user_readenv=1, and LD_PRELOAD in ~/.pam_environment ran code
 * outside a bwrap login shell.
 *
 * bwsh is not setuid, so glibc does not strip its "unsecure" variables for
 * it (AT_SECURE is off): the list starts from glibc's own UNSECURE_ENVVARS,
 * since bwsh is in the same position as a setuid program, trusted code run
 * on behalf of the adversary. */
static const char *const scrub_patterns[] = {
  "LD_*",            /* the dynamic loader: LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT load code into bwsh */
  "GLIBC_TUNABLES",  /* changes glibc's allocator and more in every process; CVE-2023-4911 parsed it */
  "MALLOC_*",        /* MALLOC_TRACE makes glibc write a file; MALLOC_CHECK_/PERTURB_ alter the heap */
  "GCONV_PATH",      /* iconv loads gconv modules (shared objects) from it: code execution */
  "GETCONF_DIR",     /* getconf runs helper programs found there */
  "LOCPATH",         /* locale data from a directory the user chose, parsed by glibc */
  "NLSPATH",         /* message catalogues: user-chosen printf formats in messages */
  "TZDIR",           /* tzfile(5) data parsed from a user-chosen directory */
  "TMPDIR",          /* temporary files of code before the sandbox must not follow the user; the
                      * sandbox has its own /tmp */
  "HOSTALIASES",     /* resolver behaviour (and a file read) chosen by the user */
  "LOCALDOMAIN",     /* ditto: search domains of the resolver */
  "RES_OPTIONS",     /* ditto: resolver options */
  "RESOLV_HOST_CONF", /* ditto: host.conf from a user-chosen path */
  "NIS_PATH",        /* NIS+ lookups from a user-chosen path */
  "BASH_ENV",        /* sourced by every non-interactive bash: a script before the sandbox runs it */
  "ENV",             /* the same for interactive POSIX sh */
  "BASH_FUNC_*",     /* exported bash functions override commands in any bash script before the sandbox */
  "SHELLOPTS",       /* set -o options (xtrace, ...) forced on every bash */
  "BASHOPTS",        /* shopt options forced on every bash */
  "PS4",             /* with xtrace its command substitutions execute code in every bash */
  "BWSH_*",          /* bwsh's own channel: only BWSH_PLAN as set below, and no test-build knobs */
};

static bool
must_scrub (const char *name)
{
  for (size_t i = 0; i < BWSH_N_ELEMENTS (scrub_patterns); i++)
    if (fnmatch (scrub_patterns[i], name, 0) == 0)
      return true;
  return false;
}

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
      if (!must_scrub (name))
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
  for (size_t i = 0; i < d->n; i++)
    {
      _cleanup_free_ char *e = bwsh_escape (d->lines[i], strlen (d->lines[i]));
      pam_syslog (c->pamh, LOG_WARNING, "%s: %s", or_dash (c->user), e != NULL ? e : "?");
    }
}

static void
record_free (pam_handle_t *pamh, void *data, int error_status)
{
  (void) pamh;
  (void) error_status;
  free (data);
}

/* ------------------------------------------------------------- entries */

BWSH_EXPORT int
pam_sm_open_session (pam_handle_t *pamh, int flags, int argc, const char **argv)
{
  _cleanup_ (identity_freep) BwshIdentity *id = NULL;
  _cleanup_ (policy_freep) BwshPolicy *pol = NULL;
  _cleanup_ (user_config_freep) BwshUserConfig *uc = NULL;
  _cleanup_ (plan_freep) BwshPlan *plan = NULL;
  _cleanup_ (strv_freep) char **envp = NULL;
  _cleanup_free_ SessionRecord *rec = NULL;
  PAM_MODUTIL_DEF_PRIVS (privs);
  BwshDiag diag = { 0 };
  BwshError err = { 0 };
  const struct passwd *pw;
  const char *what = "";
  const char *policy_path;
  char env_plan[sizeof "BWSH_PLAN=" + 64];
  Ctx c;
  int r, ret;

  ret = ctx_init (&c, pamh, flags, argc, argv);
  if (ret != PAM_SUCCESS)
    return ret;
  if (c.user == NULL || c.user[0] == '\0')
    return refuse (&c, -EINVAL, NULL, "no user name for the session");

  r = bwsh_identity_from_name (c.user, &id, &err);
  if (r < 0)
    return refuse (&c, r, &err, "cannot identify the user");

  /* As root, before anything is dropped: the policy is root's file, and
   * the loader refuses it unless root owns it and its directory chain. */
  policy_path = c.opt.policy_path != NULL ? c.opt.policy_path : bwsh_policy_path ();
  r = bwsh_policy_load (policy_path, id, &pol, &err);
  if (r < 0)
    return refuse (&c, r, &err, "the sandbox policy cannot be used");

  /* PAM_IGNORE, not PAM_SUCCESS: the module vouches for nothing about a
   * user it does not confine.  With "sufficient", "[success=N ...]" or a
   * stack where it is the only session module, a PAM_SUCCESS would count as
   * a positive verdict; PAM_IGNORE leaves the result to the other modules. */
  if (!pol->is_subject)
    {
      if (c.opt.debug)
        pam_syslog (pamh, LOG_DEBUG, "%s is not a subject of %s; ignored", c.user, policy_path);
      return PAM_IGNORE;
    }

  if (bwsh_policy_refuses_service (pol, c.service))
    return refuse (&c, -EPERM, NULL, "service %s never runs the login shell; refused for sandboxed user %s",
                   or_dash (c.service), c.user);
  if (pol->require_shell && !bwsh_shell_is_bwsh (id->shell, BWSH_BINARY))
    return refuse (&c, -EPERM, NULL, "the login shell of sandboxed user %s is %s, not %s (require_shell)",
                   c.user, or_dash (id->shell), BWSH_BINARY);

  r = scrub_environment (&c);
  if (r < 0)
    return refuse (&c, r, NULL, "cannot clean the session environment");
  envp = pam_getenvlist (pamh);
  if (envp == NULL)
    return refuse (&c, -ENOMEM, NULL, "cannot read the session environment");

  pw = pam_modutil_getpwnam (pamh, c.user);
  if (pw == NULL || pw->pw_uid != id->uid)
    return refuse (&c, -ENOENT, NULL, "cannot identify the user");
  if (pam_modutil_drop_priv (pamh, &privs, pw) != 0)
    return refuse (&c, -EPERM, NULL, "cannot drop privileges to %s", c.user);
  r = bwsh_session_plan (id, pol, envp, &uc, &plan, &diag, &what, &err);
  if (pam_modutil_regain_priv (pamh, &privs) != 0)
    {
      /* The process is in a state nobody planned for; say so and stop. */
      bwsh_diag_clear (&diag);
      return refuse (&c, -EPERM, NULL, "cannot regain privileges after reading %s's files", c.user);
    }
  log_warnings (&c, &diag);
  bwsh_diag_clear (&diag);
  if (plan != NULL)
    log_warnings (&c, &plan->diag);
  if (r < 0)
    return refuse (&c, r, &err, "%s", what);

  rec = calloc (1, sizeof *rec);
  if (rec == NULL)
    return refuse (&c, -ENOMEM, NULL, "cannot record the session");
  bwsh_plan_digest (plan, rec->digest);
  for (size_t i = 0; i < plan->n_mounts; i++)
    if (plan->mounts[i].verdict == BWSH_VERDICT_ACCEPTED)
      rec->mounts++;
  rec->refusals = plan->n_refused;

  snprintf (env_plan, sizeof env_plan, "BWSH_PLAN=%s", rec->digest);
  if (pam_putenv (pamh, env_plan) != PAM_SUCCESS)
    return refuse (&c, -ENOMEM, NULL, "cannot export BWSH_PLAN");
  if (pam_set_data (pamh, DATA_KEY, rec, record_free) != PAM_SUCCESS)
    return refuse (&c, -ENOMEM, NULL, "cannot record the session");
  audit (&c, "open", "accepted", rec);
  rec = NULL; /* owned by pamh now */
  return PAM_SUCCESS;
}

BWSH_EXPORT int
pam_sm_close_session (pam_handle_t *pamh, int flags, int argc, const char **argv)
{
  const void *data = NULL;
  Ctx c;
  int ret;

  ret = ctx_init (&c, pamh, flags, argc, argv);
  if (ret != PAM_SUCCESS)
    return ret;
  /* No record: open_session ignored this user (not a subject) or refused
   * the session, and there is nothing to close. */
  if (pam_get_data (pamh, DATA_KEY, &data) != PAM_SUCCESS || data == NULL)
    return PAM_IGNORE;
  audit (&c, "close", "closed", data);
  return PAM_SUCCESS;
}
