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

#include "bwsh.h"
#include "cleanup.h"

/* Where the host keeps sockets, shared memory, spools and logs.  A
 * read-only bind does not stop connect(): an overlay bind of /run/user/UID
 * gave the sandbox the user's D-Bus session bus, and bus activation ran
 * code outside (issue 13).  Below each of these, sockets and other users'
 * files are the rule, not the exception. */
static const char *const host_ipc_prefixes[] = {
  "/run", "/var/run", "/tmp", "/var/tmp", "/dev/shm", "/var/spool", "/var/mail", "/var/log", "/root", "/home",
};

/* What programs running outside the sandbox, as the same user, read later:
 * a file written there from inside would run or configure code outside.
 * Always protected; the policy's "protected" list adds to it. */
const BwshProtectedDefault bwsh_protected_defaults[] = {
  { "~/.config/bwsh", true },           /* the overlay: the sandbox's own rules */
  { "~/.ssh", true },                   /* authorized_keys, rc, environment: read by sshd */
  { "~/.pam_environment", false },      /* pam_env user_readenv, before the sandbox */
  { "~/.config/systemd", true },        /* the user manager's units (systemd --user) */
  { "~/.local/share/systemd", true },
  { "~/.config/environment.d", true },  /* the user manager's environment */
  { "~/.config/autostart", true },      /* XDG autostart of a desktop session */
  { "~/.forward", false },              /* the MTA runs its pipes as the user */
  { "~/.procmailrc", false },
  { "~/.k5login", false },              /* who may log in with Kerberos */
  { "~/.gnupg", true },                 /* gpg-agent.conf: programs the agent runs */
  { "~/.profile", false },              /* startup files of a shell outside (ForceCommand accounts) */
  { "~/.bashrc", false },
  { "~/.bash_profile", false },
  { "~/.bash_login", false },
  { "~/.bash_logout", false },
  { "~/.zshenv", false },
  { "~/.zshrc", false },
  { "~/.zprofile", false },
  { "~/.zlogin", false },
  { "~/.zlogout", false },
  { "~/.cshrc", false },
  { "~/.tcshrc", false },
  { "~/.login", false },
  { "~/.logout", false },
  { "~/.config/fish", true },
  { "~/.xsession", false },             /* display manager sessions */
  { "~/.xsessionrc", false },
  { "~/.xinitrc", false },
  { "~/.xprofile", false },
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
