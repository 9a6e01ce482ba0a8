/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl doctor: the ways in, service by service.  /etc/shells (su -s,
 * chsh), each PAM service's stack (pam_bwsh, pam_env user_readenv) and the
 * list of every service with what it does with a subject, and sshd's
 * effective configuration for a subject.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "doctor_pam.h"
#include "doctor_report.h"
#include "doctor_run.h"
#include "doctor_services.h"
#include "doctor_sshd.h"

#define BWSH_SHELL_PATH BWSH_BINDIR "/bwsh"

/* ---------------------------------------------------------------- shells */

void
check_shells (Doctor *d)
{
  _cleanup_free_ char *path = at_root (d, "/etc/shells");
  _cleanup_fclose_ FILE *f = fopen (path, "re");
  char line[PAM_LINE_MAX];
  int lineno = 0;
  bool listed = false;
  int listed_line = 0;

  if (f == NULL)
    {
      finding (d, LEVEL_OK, NULL, "shells: /etc/shells: %s; bwsh is not listed", strerror (errno));
      return;
    }
  while (fgets (line, sizeof line, f) != NULL)
    {
      char *s = line, *e;

      lineno++;
      s += strspn (s, " \t");
      if (*s == '#')
        continue;
      e = s + strcspn (s, " \t\n#");
      *e = '\0';
      if (bwsh_shell_is_bwsh (s, BWSH_SHELL_PATH) && !listed)
        {
          listed = true;
          listed_line = lineno;
        }
    }
  if (listed)
    finding (d, LEVEL_WARNING, "remove-shell " BWSH_SHELL_PATH " (or delete that line from /etc/shells)",
             "shells: /etc/shells lists bwsh (line %d): another account that knows a bwsh user's password can then run "
             "`su -s /bin/bash USER` and get an unsandboxed shell, and the user can chsh away from bwsh",
             listed_line);
  else
    finding (d, LEVEL_OK, NULL,
             "shells: bwsh is not in /etc/shells, so su refuses -s for bwsh users and chsh refuses to change their shell");
}

/* ------------------------------------------------------------------ PAM */

/* Whether the host's stacks are pam-auth-update's (Debian, Ubuntu): then
 * the package changes PAM only through it, and doctor never asks for a
 * pam_bwsh line by hand, which would outlive the package: after a purge
 * every login through that stack fails ("Module is unknown"). */
static bool
pam_auth_update_host (const Doctor *d)
{
  _cleanup_free_ char *p = at_root (d, "/etc/pam.d/common-session");
  return p != NULL && access (p, F_OK) == 0;
}

/* runuser and runuser-l: util-linux's run-as tool for root alone. */
static bool
root_only_service (const char *service)
{
  return strcmp (service, "runuser") == 0 || strcmp (service, "runuser-l") == 0;
}

static char *
pam_line_fix (const Doctor *d, const char *type, const char *service)
{
  char *fix = NULL;

  if (pam_auth_update_host (d))
    {
      if (strcmp (type, "account") == 0)
        return strdup ("pam-auth-update --enable bwsh");
      if (asprintf (&fix,
                    "make /etc/pam.d/%s include common-session (common-session-noninteractive for a service without a "
                    "terminal) as Debian's own stacks do, then pam-auth-update --enable bwsh; a pam_bwsh line written "
                    "there by hand would outlive the package and fail every login through %s after a purge",
                    service, service)
          < 0)
        return NULL;
      return fix;
    }
  if (asprintf (&fix,
                "add \"%s required pam_bwsh.so\" to /etc/pam.d/%s, and take it out again before removing bwsh (a line "
                "naming a missing module fails every login through that stack)",
                type, service)
      < 0)
    fix = NULL;
  return fix;
}

/* pam_bwsh in @st's session stack, or what its absence leaves open. */
static void
pam_session_finding (Doctor *d, const char *service, const PamStack *st, bool refused)
{
  _cleanup_free_ char *fix = NULL;

  if (!st->bwsh && root_only_service (service) && !st->common_session)
    /* Debian 12's runuser-l includes runuser, not common-session: there
     * pam-auth-update changes nothing, and nothing needs to. */
    finding (d, LEVEL_NOTE, NULL,
             "pam: %s has no pam_bwsh in its session stack: only root can run runuser, and root is outside bwsh's "
             "boundary (it can change any account); `runuser -l USER` starts the login shell, so a subject still gets "
             "bwsh, unchecked and unrecorded, and `runuser -u USER` runs a command unsandboxed. Nothing to fix: "
             "pam-auth-update does not reach this stack, and a pam_bwsh line written there by hand would outlive the "
             "package and fail every `runuser -l` after a purge",
             service);
  else if (!st->bwsh)
    {
      fix = st->common_session ? strdup ("pam-auth-update --enable bwsh") : pam_line_fix (d, "session", service);
      if (refused)
        finding (d, LEVEL_WARNING, fix,
                 "pam: %s has no pam_bwsh in its session stack: a subject's %s jobs run without the login shell, "
                 "outside the sandbox, and nothing refuses them",
                 service, service);
      else
        finding (d, LEVEL_WARNING, fix,
                 "pam: %s has no pam_bwsh in its session stack: %s sessions are not checked against the policy "
                 "(require_shell, refused services) and not audited",
                 service, service);
    }
  else
    finding (d, LEVEL_OK, NULL, "pam: %s has pam_bwsh in its session stack", service);
}

/* pam_env user_readenv=1 in @st: what a subject's ~/.pam_environment can
 * reach, by where pam_bwsh stands. */
static void
pam_readenv_finding (Doctor *d, const char *service, const PamStack *st)
{
  _cleanup_free_ char *fix = NULL;

  if (asprintf (&fix, "remove user_readenv=1 from %s (Debian's default; Linux-PAM deprecates it)",
                st->readenv_at != NULL ? st->readenv_at : "?")
      < 0)
    fix = NULL;
  if (st->bwsh && st->readenv_pos > st->bwsh_pos)
    finding (d, LEVEL_WARNING, fix,
             "pam: %s runs pam_env user_readenv=1 (%s) after pam_bwsh: LD_PRELOAD=... in a subject's "
             "~/.pam_environment would be set after pam_bwsh's scrub and run code outside the sandbox; the sandbox "
             "keeps that file read-only, so only one written outside it (by another account, or before the "
             "account was confined) can",
             service, st->readenv_at != NULL ? st->readenv_at : "?");
  else if (st->bwsh)
    finding (d, LEVEL_WARNING, fix,
             "pam: %s reads ~/.pam_environment (pam_env user_readenv=1, %s) before the sandbox starts; pam_bwsh "
             "scrubs the dangerous variables (LD_*, BASH_ENV, ENV, ...) but every other one reaches bwsh",
             service, st->readenv_at != NULL ? st->readenv_at : "?");
  else
    finding (d, LEVEL_WARNING, fix,
             "pam: %s reads ~/.pam_environment (pam_env user_readenv=1, %s) and has no pam_bwsh to scrub it: "
             "LD_PRELOAD=... in a subject's file would run code outside the sandbox; the sandbox keeps that file "
             "read-only, so only one written outside it (by another account, or before the account was "
             "confined) can",
             service, st->readenv_at != NULL ? st->readenv_at : "?");
}

/* A line before pam_bwsh's account line that ends the account stack with
 * success, or jumps past it (issue 38): SSSD's profile puts "sufficient
 * pam_localuser.so" there, and then a local subject's refusal waits for
 * the session stage, where sshd prints it on stdout after the motd. */
static void
check_pam_account_order (Doctor *d, const char *service, const PamStack *st)
{
  if (!st->bwsh_account || st->acct_end_at == NULL)
    return;
  finding (d, LEVEL_WARNING,
           pam_auth_update_host (d) ? "pam-auth-update --package (bwsh's profile, Priority 1024, puts pam_bwsh first "
                                      "in common-account's Additional block); a line written by hand before it, or a "
                                      "profile of a higher Priority, still comes first: move that line after pam_bwsh"
                                    : "put \"account required pam_bwsh.so\" before that line",
           "pam: %s: %s can end the account stack before pam_bwsh: a local subject it lets through (a lock, a broken "
           "policy) is refused only at the session stage, after the motd, on stdout",
           service, st->acct_end_at);
}

static void
check_pam_service (Doctor *d, const char *service, bool refused)
{
  _cleanup_ (pam_stack_clear) PamStack st = { .service = service };
  int r = walk_pam (d->root, &st, service, NULL, 0);

  if (r == -ENOENT)
    return; /* not installed here */
  if (r < 0)
    {
      finding (d, LEVEL_WARNING, "check the file's permissions", "pam: /etc/pam.d/%s: %s", service, strerror (-r));
      return;
    }
  if (st.loop)
    finding (d, LEVEL_WARNING, "remove the include loop", "pam: /etc/pam.d/%s: includes nest deeper than %d levels",
             service, PAM_DEPTH_MAX);

  pam_session_finding (d, service, &st, refused);

  /* sshd sends what the account stage says to the client's stderr, what the
   * session stage says to the session's stdout (see pam_bwsh.c). */
  if (st.bwsh && !st.bwsh_account && strcmp (service, "sshd") == 0)
    {
      _cleanup_free_ char *afix = pam_line_fix (d, "account", service);
      finding (d, LEVEL_WARNING, afix,
               "pam: sshd has no pam_bwsh in its account stack: a refused subject's ssh command gets the reason on "
               "stdout after the motd, and scp and sftp get \"Received message too long\" instead of it");
    }

  check_pam_account_order (d, service, &st);

  /* A refused service never starts the login shell; its environment does
   * not reach bwsh.  The fix is the line's own option: a pam_bwsh line
   * added after it would outlive the package. */
  if (st.readenv && !refused)
    pam_readenv_finding (d, service, &st);
}

static int
cmp_strp (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static void
list_append (char *buf, size_t size, const char *name, const char *note)
{
  size_t len = strlen (buf);
  snprintf (buf + len, size - len, "%s%s%s", len > 0 ? ", " : "", name, note);
}

/* Every PAM service of the host, and what it does with a subject: a
 * service that runs the login shell sandboxes (bwsh), one the policy
 * refuses is refused by pam_bwsh with an event, and one without pam_bwsh
 * in its stack does neither: nothing refuses there and nothing records. */
static void
list_pam_services (Doctor *d, const char *dir)
{
  BwshPolicy *defaults = NULL;
  const BwshPolicy *pol = d->policy;
  char sandboxed[4096] = "", refused[8192] = "", bare[8192] = "";
  char **names = NULL;
  size_t n = 0;
  struct dirent *de;
  DIR *dh;

  if (pol == NULL && bwsh_policy_new_defaults (&defaults) < 0)
    return;
  if (pol == NULL)
    pol = defaults;
  dh = opendir (dir);
  if (dh == NULL)
    {
      bwsh_policy_free (defaults);
      return;
    }
  while ((de = readdir (dh)) != NULL && n < 4096)
    {
      char **v;
      /* common-auth, common-session, ...: files the services include, not
       * services; and what dpkg and editors leave beside a file. */
      if (de->d_name[0] == '.' || de->d_type == DT_DIR || strncmp (de->d_name, "common-", 7) == 0
          || strstr (de->d_name, ".dpkg-") != NULL || strstr (de->d_name, ".ucf-") != NULL
          || de->d_name[strlen (de->d_name) - 1] == '~' || (v = realloc (names, (n + 1) * sizeof *v)) == NULL)
        continue;
      names = v;
      if ((names[n] = strdup (de->d_name)) != NULL)
        n++;
    }
  closedir (dh);
  if (n > 0)
    qsort (names, n, sizeof *names, cmp_strp);
  for (size_t i = 0; i < n; i++)
    {
      _cleanup_ (pam_stack_clear) PamStack st = { .service = names[i] };
      bool login = !bwsh_policy_refuses_service (pol, names[i]);

      (void) walk_pam (d->root, &st, names[i], NULL, 0);
      if (st.bwsh && login)
        list_append (sandboxed, sizeof sandboxed, names[i], "");
      else if (st.bwsh)
        list_append (refused, sizeof refused, names[i], "");
      else
        list_append (bare, sizeof bare, names[i],
                     root_only_service (names[i]) ? " (root only)"
                     : login                      ? " (starts the login shell, unchecked)"
                                                  : " (unsandboxed)");
      free (names[i]);
    }
  free (names);
  bwsh_policy_free (defaults);
  finding (d, LEVEL_NOTE, NULL,
           "pam: services that sandbox a subject (they start the login shell, bwsh; pam_bwsh checks and records each "
           "session): %s",
           sandboxed[0] != '\0' ? sandboxed : "(none)");
  finding (d, LEVEL_NOTE, NULL,
           "pam: services that refuse a subject, with an event (allowed_services in the policy allows one): %s",
           refused[0] != '\0' ? refused : "(none)");
  finding (d, LEVEL_NOTE, NULL,
           "pam: services without pam_bwsh, where nothing refuses a subject and nothing records an event: %s",
           bare[0] != '\0' ? bare : "(none)");
}

void
check_pam (Doctor *d)
{
  size_t n_services;
  const char *const *services = bwsh_login_services (&n_services);
  _cleanup_free_ char *dir = at_root (d, "/etc/pam.d");
  struct stat st;

  if (stat (dir, &st) < 0)
    {
      finding (d, LEVEL_NOTE, NULL, "pam: /etc/pam.d: %s; PAM stacks not checked", strerror (errno));
      return;
    }
  for (size_t i = 0; i < n_services; i++)
    check_pam_service (d, services[i], false);
  /* Services that never run the login shell: only pam_bwsh can refuse them. */
  for (size_t i = 0; d->policy != NULL && i < d->policy->refused_services.n; i++)
    {
      const char *s = d->policy->refused_services.items[i].src;
      if (strchr (s, '/') == NULL && s[0] != '.')
        check_pam_service (d, s, true);
    }
  list_pam_services (d, dir);
}

/* ------------------------------------------------------------------ sshd */

/* What sshd forwards for @user itself, outside the sandbox. */
static void
sshd_forwarding_finding (Doctor *d, const SshdConfig *c, const char *user)
{
  char forwards[512] = "";

  if (sshd_get (c, "disableforwarding") == NULL || strcasecmp (sshd_get (c, "disableforwarding"), "yes") != 0)
    {
      static const char *const keys[][2] = {
        { "allowtcpforwarding", "AllowTcpForwarding" },
        { "allowstreamlocalforwarding", "AllowStreamLocalForwarding" },
        { "allowagentforwarding", "AllowAgentForwarding" },
        { "x11forwarding", "X11Forwarding" },
        { "permittunnel", "PermitTunnel" },
      };
      for (size_t i = 0; i < BWSH_N_ELEMENTS (keys); i++)
        {
          const char *val = sshd_get (c, keys[i][0]);
          if (val != NULL && !is_no (val))
            {
              size_t used = strlen (forwards);
              snprintf (forwards + used, sizeof forwards - used, "%s%s %s", used > 0 ? ", " : "", keys[i][1], val);
            }
        }
    }
  /* An error, not a warning: a forwarded port or agent is a way past the
   * sandbox (and its private network) that no sandbox setting closes. */
  if (forwards[0] != '\0')
    finding (d, LEVEL_ERROR,
             "in a Match block for subjects: DisableForwarding yes, PermitTunnel no (the shipped snippet "
             "/usr/share/doc/bwsh/examples/sshd_config.d/bwsh.conf does this)",
             "sshd: %s may forward (%s): forwarding is done by sshd itself, outside the sandbox, whatever the login shell",
             user, forwards);
  else
    finding (d, LEVEL_OK, NULL, "sshd: no forwarding for %s", user);
}

/* AcceptEnv patterns that admit a variable pam_bwsh scrubs. */
static void
sshd_acceptenv_finding (Doctor *d, const SshdConfig *c)
{
  char bad[512] = "";

  for (size_t i = 0; i < c->n; i++)
    {
      if (strcmp (c->keys[i], "acceptenv") != 0)
        continue;
      _cleanup_free_ char *copy = strdup (c->values[i]);
      char *save = NULL;
      if (copy == NULL)
        continue;
      /* Every name a pattern admits, against every pattern pam_bwsh
       * scrubs (the list is core's): named by the entry's example where
       * the pattern admits it, else by the entry's own pattern. */
      for (char *pat = strtok_r (copy, " \t", &save); pat != NULL; pat = strtok_r (NULL, " \t", &save))
        {
          const BwshScrubEntry *hit = bwsh_env_pattern_scrubbed (pat);
          size_t used = strlen (bad);
          _cleanup_free_ char *esc = NULL;
          if (hit == NULL)
            continue;
          esc = bwsh_escape (pat, strlen (pat));
          snprintf (bad + used, sizeof bad - used, "%s%s (%s)", used > 0 ? ", " : "", esc != NULL ? esc : "?",
                    fnmatch (pat, hit->example, 0) == 0 ? hit->example : hit->pattern);
        }
    }
  if (bad[0] != '\0')
    finding (d, LEVEL_ERROR, "AcceptEnv LANG LC_* (only names that cannot act on a program's start-up)",
             "sshd: AcceptEnv lets the client set variables that act on bwsh before the sandbox starts: %s", bad);
  else
    finding (d, LEVEL_OK, NULL, "sshd: AcceptEnv admits no variable that acts on bwsh's start-up");
}

static void
check_sshd_for (Doctor *d, const SshdConfig *c, const char *user, const char *login_shell)
{
  const char *v;
  bool forced_bwsh = false;

  v = sshd_get (c, "usepam");
  if (v != NULL && strcasecmp (v, "no") == 0)
    finding (d, LEVEL_WARNING, "UsePAM yes in sshd_config",
             "sshd: UsePAM no: pam_bwsh never sees SSH sessions (no policy check, no audit line)");

  /* internal-sftp runs inside sshd: the login shell never starts. */
  bool internal = false;
  for (size_t i = 0; i < c->n; i++)
    if (strcmp (c->keys[i], "subsystem") == 0 && strstr (c->values[i], "internal-sftp") != NULL)
      internal = true;
  v = sshd_get (c, "forcecommand");
  if (v != NULL && strstr (v, "internal-sftp") != NULL)
    internal = true;
  if (internal)
    finding (d, LEVEL_ERROR,
             "serve sftp with the external server: \"Subsystem sftp /usr/lib/openssh/sftp-server\" (see "
             "/usr/share/doc/bwsh/examples/sshd_config.d/bwsh.conf), and no ForceCommand internal-sftp for subjects",
             "sshd: sftp for %s is internal-sftp, which runs inside sshd and never starts the login shell: file transfers "
             "are not sandboxed", user);
  else
    finding (d, LEVEL_OK, NULL, "sshd: sftp for %s goes through the login shell", user);

  if (v != NULL && !is_no (v) && strstr (v, "bwsh") != NULL)
    forced_bwsh = true;

  sshd_forwarding_finding (d, c, user);

  v = sshd_get (c, "permituserenvironment");
  if (v != NULL && !is_no (v))
    finding (d, LEVEL_ERROR, "PermitUserEnvironment no",
             "sshd: PermitUserEnvironment %s for %s: sshd applies ~/.ssh/environment before bwsh starts, and "
             "LD_PRELOAD=... there runs code outside the sandbox", v, user);
  else
    finding (d, LEVEL_OK, NULL, "sshd: PermitUserEnvironment no for %s", user);

  sshd_acceptenv_finding (d, c);

  /* sshd runs ~/.ssh/rc as `SHELL -c '/bin/sh ~/.ssh/rc'`, with the login
   * shell, and not at all under ForceCommand (session.c, do_rc_files). */
  v = sshd_get (c, "permituserrc");
  bool shell_is_bwsh = bwsh_shell_is_bwsh (login_shell, BWSH_SHELL_PATH);
  if (v != NULL && strcasecmp (v, "yes") == 0 && !shell_is_bwsh && !forced_bwsh)
    finding (d, LEVEL_WARNING, "PermitUserRC no in a Match block for this user",
             "sshd: PermitUserRC yes and %s's login shell is %s, not bwsh: ~/.ssh/rc runs outside the sandbox", user,
             login_shell != NULL ? login_shell : "unknown");
  else if (v != NULL && strcasecmp (v, "yes") == 0)
    finding (d, LEVEL_OK, NULL, "sshd: ~/.ssh/rc of %s runs %s", user,
             forced_bwsh && !shell_is_bwsh ? "not at all (ForceCommand)" : "through bwsh, inside the sandbox");
  else
    finding (d, LEVEL_OK, NULL, "sshd: PermitUserRC no for %s", user);

  if (forced_bwsh && !shell_is_bwsh)
    finding (d, LEVEL_NOTE, NULL,
             "sshd: %s is in ForceCommand mode: the outer login shell (%s) and its start-up files run before bwsh, "
             "outside the sandbox", user, login_shell != NULL ? login_shell : "unknown");
  else if (!shell_is_bwsh && d->policy != NULL && d->policy->is_subject)
    finding (d, LEVEL_ERROR, "chsh -s " BWSH_SHELL_PATH " USER (or, for directory accounts, ForceCommand " BWSH_SHELL_PATH ")",
             "sshd: %s is a subject, but the login shell is %s and there is no ForceCommand bwsh: SSH sessions are not "
             "sandboxed", user, login_shell != NULL ? login_shell : "unknown");
}

void
check_sshd (Doctor *d)
{
  const char *user = NULL;
  const char *login_shell = NULL;
  _cleanup_free_ char *spec = NULL, *why = NULL;
  struct stat st;
  CmdResult res = { 0 };
  SshdConfig c = { 0 };

  if (stat (d->sshd, &st) < 0)
    {
      finding (d, LEVEL_NOTE, NULL, "sshd: %s: %s; the SSH server is not checked", d->sshd, strerror (errno));
      return;
    }
  if (d->subject != NULL)
    {
      user = d->subject->name;
      login_shell = d->subject->shell;
    }
  else if (d->policy != NULL && d->policy->subject_users.n > 0)
    user = d->policy->subject_users.items[0].src;
  if (user == NULL)
    {
      finding (d, LEVEL_NOTE, NULL,
               "sshd: no subject to check; run `bwshctl doctor --user USER` to check sshd's configuration for USER");
      return;
    }
  if (login_shell == NULL)
    {
      struct passwd *pw = getpwnam (user);
      if (pw != NULL)
        login_shell = pw->pw_shell;
    }
  /* A name with "," or "=" would smuggle more -C criteria in. */
  if (strpbrk (user, ",= \t\n") != NULL)
    {
      finding (d, LEVEL_WARNING, "use a plain user name", "sshd: user name \"%s\" cannot be passed to sshd -C", user);
      return;
    }
  if (asprintf (&spec, "user=%s,host=localhost,addr=127.0.0.1", user) < 0)
    return;

  const char *const argv[] = { d->sshd, "-T", "-C", spec, NULL };
  if (run_cmd (argv, false, 0, 0, &res) < 0 || !cmd_succeeded (&res) || res.out == NULL)
    {
      why = cmd_first_line (&res);
      finding (d, LEVEL_WARNING,
               "run `bwshctl doctor` as root, and fix what sshd reports (sshd -T needs its host keys and /run/sshd)",
               "sshd: cannot read the effective configuration (%s -T -C %s): %s", d->sshd, spec, why != NULL ? why : "?");
      cmd_result_clear (&res);
      return;
    }
  if (sshd_config_parse (res.out, &c) < 0)
    finding (d, LEVEL_ERROR, NULL, "sshd: out of memory");
  else
    check_sshd_for (d, &c, user, login_shell);
  sshd_config_clear (&c);
  cmd_result_clear (&res);
}
