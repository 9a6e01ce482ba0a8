/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rules that make the user overlay safe to edit from inside the sandbox:
 * whatever the overlay selects lies within what the administrator allows,
 * so writing it from inside gains nothing (docs/security.md).
 *
 *   - what an overlay bind may use as its source (no host IPC, no other
 *     user's data, not the policy itself, no socket, FIFO or device);
 *   - what is never writable inside (what programs outside the sandbox read),
 *     and so never a place for the session's persistent state;
 *   - which PAM services run the login shell at all.
 *
 * Pure functions of their arguments, no I/O: core/plan/ calls them at each of
 * its validation points, on the path as written and as resolved.
 */
#include "config.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bind_list.h"
#include "cleanup.h"
#include "path.h"
#include "policy.h"
#include "rules.h"

/* Where the host keeps sockets, shared memory, spools and logs.  A
 * read-only bind does not stop connect(): an overlay bind of /run/user/UID
 * gave the sandbox the user's D-Bus session bus, and bus activation ran
 * code outside (issue 13).  Below each of these, sockets and other users'
 * files are the rule, not the exception. */
static const char *const host_ipc_prefixes[] = {
  "/run", "/var/run", "/tmp", "/var/tmp", "/dev/shm", "/var/spool", "/var/mail", "/var/log", "/root", "/home",
};

/* What programs running outside the sandbox, as the same user, read later:
 * a file written there from inside would run or configure code outside
 * (an administrator's `su -s /bin/bash USER`, `sudo -u USER bash`, sshd,
 * the MTA, the user manager, a desktop session).  The first defence is that
 * no read-write bind covers the home unless the administrator widens
 * rw_ceilings (issue 24); this set is the second, and it covers Debian's
 * own startup files (/etc/skel and what they source) and each family of
 * files that a program outside runs code from.  The policy's "protected"
 * list adds to it.  @state_owned: below a name the session's state provides
 * (.config, .local, ...), the state's own copy is used inside, not the real
 * one shown read-only: `pip install --user` and `git config --global` keep
 * working, and the state is never read outside. */
const BwshProtectedDefault bwsh_protected_defaults[] = {
  /* the sandbox's own rules, and what sshd and PAM read before it */
  { "~/.config/bwsh", true, false },
  { "~/.ssh", true, false },            /* authorized_keys, rc, environment */
  { "~/.pam_environment", false, false },
  { "~/.k5login", false, false },       /* who may log in with Kerberos */
  { "~/.k5users", false, false },
  { "~/.rhosts", false, false },
  { "~/.shosts", false, false },
  { "~/.netrc", false, false },         /* credentials, and ftp's macdef runs commands */
  { "~/.google_authenticator", false, false },
  { "~/.yubico", true, false },
  { "~/.config/Yubico", true, true },   /* pam_u2f's keys */
  /* the user manager, D-Bus activation and desktop sessions */
  { "~/.config/systemd", true, false },
  { "~/.local/share/systemd", true, false },
  { "~/.config/environment.d", true, false },
  { "~/.config/autostart", true, false },
  { "~/.local/share/dbus-1", true, true },
  { "~/.local/share/applications", true, true },
  { "~/.config/plasma-workspace", true, true }, /* env/ and shutdown/ scripts */
  { "~/.kde", true, false },
  { "~/.xsession", false, false },
  { "~/.xsessionrc", false, false },
  { "~/.xinitrc", false, false },
  { "~/.xprofile", false, false },
  { "~/.Xresources", false, false },
  /* mail: the MTA and delivery agents run these as the user */
  { "~/.forward", false, false },
  { "~/.procmailrc", false, false },
  { "~/.mailfilter", false, false },
  { "~/.qmail", false, false },
  { "~/.mailcap", false, false },
  /* shells: Debian's /etc/skel/.profile, .bashrc and what they source */
  { "~/.profile", false, false },
  { "~/.bashrc", false, false },
  { "~/.bash_aliases", false, false },
  { "~/.bash_profile", false, false },
  { "~/.bash_login", false, false },
  { "~/.bash_logout", false, false },
  { "~/.bash_completion", false, false },
  { "~/.local/share/bash-completion", true, true },
  { "~/.inputrc", false, false },
  { "~/.kshrc", false, false },
  { "~/.mkshrc", false, false },
  { "~/.zshenv", false, false },
  { "~/.zshrc", false, false },
  { "~/.zprofile", false, false },
  { "~/.zlogin", false, false },
  { "~/.zlogout", false, false },
  { "~/.cshrc", false, false },
  { "~/.tcshrc", false, false },
  { "~/.login", false, false },
  { "~/.logout", false, false },
  { "~/.config/fish", true, false },
  /* the PATH that /etc/skel/.profile puts first, and Python's user site */
  { "~/bin", true, false },
  { "~/.local/bin", true, true },
  { "~/.local/lib", true, true },
  /* programs whose configuration runs commands */
  { "~/.gnupg", true, false },          /* gpg-agent.conf: programs the agent runs */
  { "~/.gitconfig", false, true },      /* core.pager, core.fsmonitor, aliases with ! */
  { "~/.config/git", true, true },
  { "~/.selected_editor", false, true },/* what sensible-editor runs */
  { "~/.vimrc", false, false },
  { "~/.vim", true, false },
  { "~/.exrc", false, false },
  { "~/.config/nvim", true, true },
  { "~/.emacs", false, false },
  { "~/.emacs.d", true, false },
  { "~/.config/emacs", true, true },
  { "~/.tmux.conf", false, false },
  { "~/.config/tmux", true, true },
  { "~/.screenrc", false, false },
  { "~/.gdbinit", false, false },
  { "~/.lesskey", false, false },
  { "~/.config/lesskey", false, true },
  { "~/.muttrc", false, false },
  { "~/.mailrc", false, false },
  { "~/.psqlrc", false, false },
  { "~/.docker", true, false },         /* credential helpers */
  { "~/.kube", true, false },           /* exec credential plugins */
  { "~/.aws", true, false },            /* credential_process */
};
const size_t bwsh_n_protected_defaults = BWSH_N_ELEMENTS (bwsh_protected_defaults);

bool
bwsh_path_is_host_ipc_source (const char *path, const char *home)
{
  _cleanup_free_ char *copy = NULL;
  const char *parent;

  /* The user's own home is theirs, wherever it lives (homes under /tmp or
   * /var exist); other users' homes are not. */
  if (home != NULL && bwsh_path_has_prefix (path, home))
    return false;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (host_ipc_prefixes); i++)
    if (bwsh_path_has_prefix (path, host_ipc_prefixes[i]))
      return true;
  if (home == NULL || strcmp (home, "/") == 0)
    return false;
  /* Beside the home: /srv/homes/OTHER for /srv/homes/me. */
  copy = strdup (home);
  if (copy == NULL)
    return true; /* out of memory: refuse, never admit by accident */
  parent = dirname (copy);
  return strcmp (parent, "/") != 0 && bwsh_path_has_prefix (path, parent);
}

const char *
bwsh_rules_overlay_source (const char *path, const char *home, char *const *policy_dirs, size_t n_policy_dirs,
                           char *const *ceilings, size_t n_ceilings)
{
  bool granted = false;

  for (size_t i = 0; i < n_policy_dirs; i++)
    if (bwsh_path_has_prefix (path, policy_dirs[i]))
      return "holds the sandbox policy; an overlay may not bind it";
  /* A ceiling the administrator set inside one of these places
   * ("/tmp/shared", "/var/log/app") grants that place on purpose. */
  for (size_t i = 0; i < n_ceilings && !granted; i++)
    granted = bwsh_path_has_prefix (path, ceilings[i]) && bwsh_path_is_host_ipc_source (ceilings[i], home);
  if (!granted && bwsh_path_is_host_ipc_source (path, home))
    return "holds host IPC or other users' data (/run, /var/run, /tmp, /var/tmp, /dev/shm, /var/spool, "
           "/var/mail, /var/log, /root, other homes); only the policy may bind it";
  return NULL;
}

const char *
bwsh_rules_source_type (mode_t mode)
{
  if (S_ISSOCK (mode))
    return "is a socket; an overlay may not bind it (connect() works through a read-only bind)";
  if (S_ISFIFO (mode))
    return "is a FIFO; an overlay may not bind it";
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return "is a device node; an overlay may not bind it";
  return NULL;
}

const char *
bwsh_rules_overlaps_protected (const char *path, char *const *protected_paths, size_t n_protected,
                               const char *except)
{
  for (size_t i = 0; i < n_protected; i++)
    {
      const char *q = protected_paths[i];
      if (except != NULL && strcmp (q, except) == 0)
        continue;
      if (bwsh_path_has_prefix (path, q) || bwsh_path_has_prefix (q, path))
        return q;
    }
  return NULL;
}

/* Below $HOME, the places programs outside the sandbox read: a state
 * directory there would let the sandbox write what runs outside it. */
static const char *const home_read_outside[] = { "/.config", "/.local/share", "/.local/bin" };
/* Outside $HOME, places that are not the user's, or not kept. */
static const char *const state_refused_roots[] = { "/etc", "/usr", "/boot", "/run", "/tmp", "/var/tmp", "/dev/shm" };

const char *
bwsh_state_dir_refusal (char *const *protected_paths, size_t n_protected, const char *home, const char *project,
                        const char *dir)
{
  if (bwsh_path_is_forbidden (dir))
    return "is /, or lies in /proc, /dev or /sys";
  if (bwsh_path_has_prefix (home, dir))
    return "is $HOME or a directory above it";
  /* A home may itself lie below one of these (tests, /tmp homes): what is
   * under $HOME is judged by the rules for the home. */
  for (size_t i = 0; i < BWSH_N_ELEMENTS (state_refused_roots) && !bwsh_path_has_prefix (dir, home); i++)
    if (bwsh_path_has_prefix (dir, state_refused_roots[i]))
      return "lies in /etc, /usr, /boot, /run, /tmp, /var/tmp or /dev/shm";
  for (size_t i = 0; i < BWSH_N_ELEMENTS (home_read_outside); i++)
    {
      char place[PATH_MAX];
      snprintf (place, sizeof place, "%s%s", home, home_read_outside[i]);
      if (bwsh_path_has_prefix (dir, place))
        return "lies in ~/.config, ~/.local/share or ~/.local/bin, which programs outside the sandbox read";
    }
  if (bwsh_rules_overlaps_protected (dir, protected_paths, n_protected, NULL) != NULL)
    return "is, lies in or contains a protected path";
  if (project != NULL && (bwsh_path_has_prefix (dir, project) || bwsh_path_has_prefix (project, dir)))
    return "overlaps the project directory";
  return NULL;
}

const char *const *
bwsh_login_services (size_t *ret_n)
{
  /* The services that start the login shell, so that bwsh confines what
   * they run: pam_bwsh belongs in their session stacks. */
  static const char *const services[] = { "sshd", "login", "su", "su-l", "runuser-l" };

  *ret_n = BWSH_N_ELEMENTS (services);
  return services;
}

bool
bwsh_service_runs_login_shell (const BwshPolicy *pol, const char *service)
{
  size_t n;
  const char *const *login = bwsh_login_services (&n);

  /* Any other service (cron, atd, systemd-user, cockpit, samba, ftp,
   * display managers...) would run the subject's programs without bwsh. */
  if (service == NULL || service[0] == '\0')
    return false;
  for (size_t i = 0; i < n; i++)
    if (strcmp (service, login[i]) == 0)
      return true;
  return bwsh_bind_list_contains (&pol->allowed_services, service);
}

bool
bwsh_policy_reads_overlay (const BwshPolicy *pol)
{
  /* "user_overlay = false" is the older spelling of user_config_mode = "off". */
  return pol->user_overlay_allowed && pol->user_config_mode != BWSH_USER_CONFIG_OFF;
}
