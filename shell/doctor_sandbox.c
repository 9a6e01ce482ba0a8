/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl doctor: what the sandbox itself stands on.  bwrap and its
 * features, unprivileged user namespaces (and AppArmor's restriction of
 * them), Landlock's ABI against the policy, and TIOCSTI in the kernel.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "doctor_report.h"
#include "doctor_run.h"
#include "doctor_sandbox.h"

/* ------------------------------------------------------------------ bwrap */

void
check_bwrap (Doctor *d, BwrapInfo *info)
{
  const char *const version_argv[] = { d->bwrap, "--version", NULL };
  const char *const help_argv[] = { d->bwrap, "--help", NULL };
  _cleanup_free_ char *version = NULL, *why = NULL;
  CmdResult res = { 0 };
  BwshError err = { 0 };
  struct stat st;
  const char *missing[2];
  size_t n_missing = 0;

  *info = (BwrapInfo) { 0 };
  if (stat (d->bwrap, &st) < 0)
    {
      finding (d, LEVEL_ERROR, "install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)",
               "bwrap: %s: %s; bwsh cannot start any session", d->bwrap, strerror (errno));
      return;
    }
  if (!S_ISREG (st.st_mode) || (st.st_mode & 0111) == 0)
    {
      finding (d, LEVEL_ERROR, "reinstall bubblewrap", "bwrap: %s is not an executable file; bwsh cannot start any session",
               d->bwrap);
      return;
    }
  /* The compiled-in path is trusted only as root's: whoever can replace it
   * runs code as every bwsh user, outside the sandbox. */
  if (!d->bwrap_overridden && bwsh_check_path_trusted (d->bwrap, BWSH_OWNER_ROOT, 0, &err) < 0)
    finding (d, LEVEL_ERROR, "make bwrap and every directory above it owned by root and not group- or world-writable",
             "bwrap: %s: %s", d->bwrap, err.message);
  if (st.st_mode & S_ISUID)
    finding (d, LEVEL_WARNING, "chmod u-s on bwrap (bwsh uses unprivileged user namespaces and does not need setuid)",
             "bwrap: %s is setuid; bwsh does not need that, and a setuid bwrap is attack surface for every local user",
             d->bwrap);

  if (run_cmd (version_argv, false, 0, 0, &res) < 0 || !cmd_succeeded (&res) || res.out == NULL
      || strncmp (res.out, "bubblewrap ", 11) != 0)
    {
      why = cmd_first_line (&res);
      finding (d, LEVEL_ERROR, "reinstall bubblewrap", "bwrap: `%s --version` failed: %s", d->bwrap,
               why != NULL ? why : "?");
      cmd_result_clear (&res);
      return;
    }
  version = bwsh_escape (res.out + 11, strcspn (res.out + 11, "\n"));
  cmd_result_clear (&res);

  /* Features by name in --help: 0.8.0 is the first with --disable-userns. */
  if (run_cmd (help_argv, false, 0, 0, &res) < 0 || res.exec_errno != 0 || res.out == NULL)
    {
      why = cmd_first_line (&res);
      finding (d, LEVEL_ERROR, "reinstall bubblewrap", "bwrap: `%s --help` failed: %s", d->bwrap,
               why != NULL ? why : "?");
      cmd_result_clear (&res);
      return;
    }
  info->present = true;
  info->disable_userns = strstr (res.out, "--disable-userns") != NULL;
  info->ro_bind_fd = strstr (res.out, "--ro-bind-fd") != NULL;
  cmd_result_clear (&res);
  if (!info->disable_userns)
    missing[n_missing++] = "--disable-userns";
  if (!info->ro_bind_fd)
    missing[n_missing++] = "--ro-bind-fd";
  if (n_missing > 0)
    finding (d, LEVEL_ERROR, "install bubblewrap 0.8.0 or later",
             "bwrap: %s (bubblewrap %s) lacks %s%s%s, which every bwsh session uses; sessions will fail", d->bwrap,
             version, missing[0], n_missing > 1 ? " and " : "", n_missing > 1 ? missing[1] : "");
  else
    finding (d, LEVEL_OK, NULL, "bwrap: %s, bubblewrap %s, with --disable-userns and --ro-bind-fd", d->bwrap, version);
}

/* --------------------------------------------------------- user namespaces */

/* Can an unprivileged process create a user namespace at all?  0 or errno. */
static int
kernel_userns_errno (uid_t uid, gid_t gid)
{
  int st;
  pid_t pid = fork ();

  if (pid < 0)
    return errno;
  if (pid == 0)
    {
      if (drop_to (uid, gid) < 0)
        _exit (255);
      _exit (unshare (CLONE_NEWUSER) < 0 ? (errno & 0x7f) : 0);
    }
  while (waitpid (pid, &st, 0) < 0)
    if (errno != EINTR)
      return errno;
  if (!WIFEXITED (st) || WEXITSTATUS (st) == 255)
    return ECHILD;
  return WEXITSTATUS (st);
}

void
check_apparmor (Doctor *d, AppArmorInfo *aa)
{
  _cleanup_free_ char *knob = at_root (d, "/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  _cleanup_free_ char *profiles = at_root (d, "/sys/kernel/security/apparmor/profiles");
  _cleanup_free_ char *value = read_first_line (knob);
  _cleanup_fclose_ FILE *f = NULL;
  char line[512];

  *aa = (AppArmorInfo) { 0 };
  if (value == NULL)
    {
      finding (d, LEVEL_OK, NULL, "apparmor: no kernel.apparmor_restrict_unprivileged_userns; user namespaces are not restricted by AppArmor");
      return;
    }
  if (strcmp (value, "1") != 0)
    {
      finding (d, LEVEL_OK, NULL, "apparmor: kernel.apparmor_restrict_unprivileged_userns = %s; not restricted",
               value[0] != '\0' ? value : "(empty)");
      return;
    }
  aa->restricted = true;
  f = fopen (profiles, "re");
  if (f == NULL)
    {
      aa->profile_unknown = true;
      finding (d, LEVEL_WARNING, "run `bwshctl doctor` as root, or check with `aa-status | grep bwsh`",
               "apparmor: unprivileged user namespaces are restricted (kernel.apparmor_restrict_unprivileged_userns = 1) "
               "and the list of loaded profiles is unreadable (%s); bwsh works only if its profile is loaded",
               strerror (errno));
      return;
    }
  while (fgets (line, sizeof line, f) != NULL)
    {
      /* "NAME (MODE)" */
      if (strncmp (line, "bwsh ", 5) == 0)
        aa->profile_loaded = true;
    }
  if (aa->profile_loaded)
    finding (d, LEVEL_OK, NULL,
             "apparmor: unprivileged user namespaces are restricted, and the bwsh profile (which lets bwsh's bwrap create "
             "them) is loaded");
  else
    finding (d, LEVEL_ERROR,
             "install the profile: cp /usr/share/bwsh/apparmor/bwsh /etc/apparmor.d/bwsh && apparmor_parser -r "
             "/etc/apparmor.d/bwsh",
             "apparmor: unprivileged user namespaces are restricted (kernel.apparmor_restrict_unprivileged_userns = 1) and "
             "the bwsh profile is not loaded; bwrap cannot start any bwsh session");
}

/* The bare bwrap failed and AppArmor is not why: what the kernel says. */
static void
userns_refused_finding (Doctor *d, const char *who, uid_t uid, gid_t gid, const char *why)
{
  _cleanup_free_ char *knob_path = NULL, *knob = NULL, *max_path = NULL, *max = NULL;
  int kerr;

  kerr = kernel_userns_errno (uid, gid);
  knob_path = at_root (d, "/proc/sys/kernel/unprivileged_userns_clone");
  knob = read_first_line (knob_path);
  max_path = at_root (d, "/proc/sys/user/max_user_namespaces");
  max = read_first_line (max_path);
  if (kerr == 0)
    finding (d, LEVEL_ERROR, "run the probe by hand to see why: su -s /bin/sh nobody -c 'bwrap --unshare-user --ro-bind / / true'",
             "userns: %s cannot start bwrap in a new user namespace: %s (the kernel itself allows one, so bwrap fails "
             "for another reason)", who, why != NULL ? why : "?");
  else if (knob != NULL && strcmp (knob, "0") == 0)
    finding (d, LEVEL_ERROR,
             "sysctl -w kernel.unprivileged_userns_clone=1, and make it permanent in /etc/sysctl.d/bwsh.conf",
             "userns: %s cannot start bwrap in a new user namespace: %s (kernel.unprivileged_userns_clone = 0)", who,
             why != NULL ? why : "?");
  else if (max != NULL && strcmp (max, "0") == 0)
    finding (d, LEVEL_ERROR,
             "sysctl -w user.max_user_namespaces=10000, and make it permanent in /etc/sysctl.d/bwsh.conf",
             "userns: %s cannot start bwrap in a new user namespace: %s (user.max_user_namespaces = 0)", who,
             why != NULL ? why : "?");
  else
    finding (d, LEVEL_ERROR,
             "allow unprivileged user namespaces (check user.max_user_namespaces, kernel.unprivileged_userns_clone, "
             "and any LSM or container runtime that forbids them)",
             "userns: %s cannot start bwrap in a new user namespace: %s (the kernel refuses: %s)", who,
             why != NULL ? why : "?", strerror (kerr));
}

void
check_userns (Doctor *d, const BwrapInfo *bw, const AppArmorInfo *aa)
{
  const char *argv[12];
  size_t n = 0;
  uid_t uid;
  gid_t gid;
  const char *who;
  CmdResult res = { 0 };
  _cleanup_free_ char *why = NULL;
  int kerr;

  probe_identity (d, &uid, &gid, &who);
  if (!bw->present)
    {
      kerr = kernel_userns_errno (uid, gid);
      if (kerr == 0)
        finding (d, LEVEL_NOTE, NULL, "userns: %s can create a user namespace (bwrap itself could not be tried)", who);
      else
        finding (d, LEVEL_ERROR, "allow unprivileged user namespaces (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone)",
                 "userns: %s cannot create a user namespace: %s", who, strerror (kerr));
      return;
    }

  argv[n++] = d->bwrap;
  argv[n++] = "--unshare-user";
  if (bw->disable_userns)
    argv[n++] = "--disable-userns";
  argv[n++] = "--ro-bind";
  argv[n++] = "/";
  argv[n++] = "/";
  argv[n++] = "--";
  argv[n++] = "true";
  argv[n] = NULL;
  if (run_cmd (argv, true, uid, gid, &res) < 0)
    {
      finding (d, LEVEL_ERROR, NULL, "userns: cannot run the probe: %s", strerror (errno));
      return;
    }
  if (cmd_succeeded (&res))
    {
      d->userns_ok = true;
      d->disable_userns = bw->disable_userns;
      finding (d, LEVEL_OK, NULL, "userns: %s can start bwrap in a new user namespace", who);
      cmd_result_clear (&res);
      return;
    }
  why = cmd_first_line (&res);
  cmd_result_clear (&res);

  if (aa->restricted && aa->profile_loaded)
    {
      /* The probe is not bwsh, so AppArmor does not give it bwsh's profile. */
      finding (d, LEVEL_NOTE, NULL,
               "userns: a bare bwrap run as %s fails (%s); expected under AppArmor's restriction, which bwsh's profile lifts "
               "for bwsh only", who, why != NULL ? why : "?");
      return;
    }
  if (aa->restricted)
    {
      finding (d, LEVEL_ERROR, "load the bwsh AppArmor profile (see the apparmor finding above)",
               "userns: %s cannot start bwrap in a new user namespace: %s", who, why != NULL ? why : "?");
      return;
    }

  userns_refused_finding (d, who, uid, gid, why);
}

/* ------------------------------------------------------------- terminal */

void
check_tiocsti (Doctor *d)
{
  _cleanup_free_ char *path = at_root (d, "/proc/sys/dev/tty/legacy_tiocsti");
  _cleanup_free_ char *value = read_first_line (path);

  if (value == NULL)
    finding (d, LEVEL_NOTE, NULL,
             "tiocsti: no dev.tty.legacy_tiocsti (a kernel older than 6.2): TIOCSTI always works in this kernel, "
             "and bwsh's seccomp filter is what refuses it inside the sandbox");
  else if (strcmp (value, "0") == 0)
    finding (d, LEVEL_OK, NULL, "tiocsti: dev.tty.legacy_tiocsti = 0; the kernel refuses TIOCSTI terminal injection");
  else
    finding (d, LEVEL_WARNING,
             "sysctl -w dev.tty.legacy_tiocsti=0, and make it permanent: echo dev.tty.legacy_tiocsti=0 > "
             "/etc/sysctl.d/60-tiocsti.conf",
             "tiocsti: dev.tty.legacy_tiocsti = %s: the kernel lets a process push input into its terminal (TIOCSTI); "
             "only bwsh's seccomp filter stops a sandboxed process typing into the shell outside", value);
}

/* ------------------------------------------------------------- landlock */

void
check_landlock (Doctor *d)
{
  BwshLandlockReport rep = { 0 };
  BwshLandlockRequest req = { 0 };
  int r;

  if (d->policy == NULL)
    return;
  r = bwsh_landlock_request_from_policy (d->policy, &req);
  if (r >= 0)
    r = bwsh_landlock_probe (&req, &rep);
  bwsh_landlock_request_clear (&req);
  if (r < 0)
    {
      finding (d, LEVEL_ERROR, "correct the landlock group of the policy", "landlock: %s", strerror (-r));
      return;
    }
  if (d->policy->landlock == BWSH_LANDLOCK_OFF)
    {
      finding (d, LEVEL_NOTE, NULL, "landlock: off in the policy (kernel ABI %d)", rep.abi);
      return;
    }
  if (rep.missing[0] == '\0')
    {
      finding (d, LEVEL_OK, NULL, "landlock: ABI %d; everything the policy asks for is enforced", rep.abi);
      return;
    }
  if (bwsh_landlock_required_by_network (d->policy))
    finding (d, LEVEL_ERROR,
             "set network = \"private\", run a kernel with Landlock ABI 6 or later (Linux 6.12), or write "
             "landlock.mode = \"best_effort\" to accept the shared network without it",
             "landlock: network = \"shared\" requires %s, but the kernel has Landlock ABI %d: every session is "
             "refused", rep.missing, rep.abi);
  else if (d->policy->landlock == BWSH_LANDLOCK_REQUIRED)
    finding (d, LEVEL_ERROR, "run a kernel with Landlock ABI 6 or later (Linux 6.12), or set landlock.mode = \"best_effort\"",
             "landlock: the policy requires %s, but the kernel has Landlock ABI %d: every session is refused",
             rep.missing, rep.abi);
  else if (!rep.scoped_abstract && d->policy->scope_abstract_unix && d->policy->net_mode == BWSH_NET_SHARED)
    finding (d, LEVEL_WARNING,
             "run a kernel with Landlock ABI 6 or later (Linux 6.12), or network = \"private\" in the policy",
             "landlock: ABI %d lacks %s: with a shared network, sessions can connect to the host's abstract unix "
             "sockets (X11, D-Bus, ...)", rep.abi, rep.missing);
  else
    finding (d, LEVEL_NOTE, NULL, "landlock: ABI %d; best effort leaves out %s", rep.abi, rep.missing);
}
