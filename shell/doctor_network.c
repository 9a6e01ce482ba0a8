/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl doctor: the session's network.  For network = "private", the
 * engine is there and a probe starts it for a sandbox as a login does; for
 * "shared", what the host leaves within reach.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "doctor_network.h"
#include "doctor_report.h"
#include "doctor_run.h"

/* -------------------------------------------------------------- network */

typedef struct
{
  const char *bwrap;
  bool disable_userns;
  BwshNetEngine engine;
} NetProbe;

/* In a child, as the probe identity: what bwsh_exec_plan() does for the
 * network of a session, around the smallest sandbox that has one.  The
 * helper, the engine and its options are the session's; so is the tun
 * check. */
static int
net_probe_child (void *data)
{
  const NetProbe *np = data;
  BwshNetHelper net = { .pid = 0, .info_fd = -1, .block_fd = -1 };
  BwshArgv argv = { 0 };
  BwshError err = { 0 };
  const char *const head[] = { np->bwrap, "--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent",
                               "--ro-bind", "/", "/" };
  const char *const tail[] = { "--", "true" };
  int r;

  if (bwsh_net_helper_start (bwsh_netns_helper_path (), np->engine, &net, &err) < 0)
    {
      _cleanup_free_ char *msg = bwsh_error_to_string (&err);
      fprintf (stderr, "%s\n", msg != NULL ? msg : err.message);
      return 0;
    }
  for (size_t i = 0; i < BWSH_N_ELEMENTS (head); i++)
    if ((r = bwsh_argv_add (&argv, head[i])) < 0)
      return -r;
  if (np->disable_userns && (r = bwsh_argv_add (&argv, "--disable-userns")) < 0)
    return -r;
  if ((r = bwsh_net_bwrap_options (&net, &argv)) < 0)
    return -r;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (tail); i++)
    if ((r = bwsh_argv_add (&argv, tail[i])) < 0)
      return -r;
  if (fcntl (net.info_fd, F_SETFD, 0) < 0 || fcntl (net.block_fd, F_SETFD, 0) < 0)
    return errno;
  execve (np->bwrap, argv.v, (char *const *) (uintptr_t) run_environment ());
  return errno;
}

/* Why the probe failed, in one line: the engine's last word before the
 * helper's own "bwsh: network: ..." (an engine's own words go to the
 * journal since #33; kept for a helper that prints any), or the first line. */
static char *
probe_reason (const CmdResult *res)
{
  const char *s = res->err_len > 0 ? res->err : NULL, *prev = NULL;

  for (const char *l = s; s != NULL && l != NULL && *l != '\0';)
    {
      const char *nl = strchr (l, '\n');
      if (strncmp (l, "bwsh: ", 6) == 0)
        {
          if (prev != NULL)
            return bwsh_escape (prev, strcspn (prev, "\r\n"));
          break;
        }
      prev = l;
      l = nl != NULL ? nl + 1 : NULL;
    }
  return cmd_first_line (res);
}

/* The tun node as every user sees it: "other" may read and write.  If
 * not, its mode and owner in @ret_what ("crw------- root", or "missing"). */
static bool
tun_open_to_all (char *ret_what, size_t size)
{
  struct stat st;
  char mode[11];

  if (stat (BWSH_TUN_PATH, &st) < 0)
    {
      snprintf (ret_what, size, "missing");
      return false;
    }
  bwsh_mode_string (st.st_mode, mode);
  if (st.st_uid == 0)
    snprintf (ret_what, size, "%s root", mode);
  else
    snprintf (ret_what, size, "%s uid %u", mode, (unsigned) st.st_uid);
  return S_ISCHR (st.st_mode) && (st.st_mode & 0006) == 0006;
}

static void
probe_network (Doctor *d, BwshNetEngine engine, const char *path)
{
  NetProbe np = { .bwrap = d->bwrap, .disable_userns = d->disable_userns, .engine = engine };
  const char *name = bwsh_net_engine_to_string (engine);
  _cleanup_free_ char *why = NULL;
  CmdResult res = { 0 };
  char tun[64];
  uid_t uid;
  gid_t gid;
  const char *who;

  probe_identity (d, &uid, &gid, &who);
  if (!d->userns_ok)
    {
      finding (d, LEVEL_NOTE, NULL, "network: private, egress through %s; not tried, since %s cannot start bwrap "
               "here (see the userns finding)", path, who);
      return;
    }
  if (run_child (net_probe_child, &np, true, uid, gid, &res) < 0)
    {
      finding (d, LEVEL_ERROR, NULL, "network: cannot run the probe: %s", strerror (errno));
      return;
    }
  if (cmd_succeeded (&res))
    {
      finding (d, LEVEL_OK, NULL,
               "network: private, egress through %s (%s), which configured a sandbox's network for %s as it "
               "does at a login, confined and watched; blocks the host's loopback services, every address of "
               "its interfaces, link-local ones included, its gateway mapping, its abstract unix sockets and its "
               "socket tables; connections to other hosts are not filtered",
               name, path, who);
      cmd_result_clear (&res);
      return;
    }
  why = probe_reason (&res);
  cmd_result_clear (&res);
  if (!tun_open_to_all (tun, sizeof tun))
    /* The cause in words of its own: the probe's line repeats the fix. */
    finding (d, LEVEL_ERROR,
             "chmod 0666 " BWSH_TUN_PATH " and keep that mode at boot (Debian's udev rule sets it; without udev, "
             "for example a systemd-tmpfiles line \"z " BWSH_TUN_PATH " 0666 - - -\"), or set network = \"none\" "
             "in the policy",
             "network: private cannot start for %s: " BWSH_TUN_PATH " is %s, and %s must open it as the "
             "session's user; every subject's session is refused", who, tun, name);
  else
    finding (d, LEVEL_ERROR, "fix what the network engine reports, or set network = \"none\" in the policy",
             "network: private cannot start for %s: %s; every subject's session is refused", who,
             why != NULL ? why : "?");
}

void
check_network (Doctor *d)
{
  BwshLandlockRequest req = { 0 };
  BwshLandlockReport rep = { 0 };

  if (d->policy == NULL)
    return;
  switch (d->policy->net_mode)
    {
    case BWSH_NET_PRIVATE:
      {
        BwshNetEngine engine = d->policy->net_engine;
        const char *path = bwsh_net_engine_path (engine), *pkg = bwsh_net_engine_package (engine);
        char fix[128];

        snprintf (fix, sizeof fix, "install %s (Debian, Ubuntu: apt-get install %s; Fedora: dnf install %s)", pkg,
                  pkg, pkg);
        if (engine == BWSH_NET_ENGINE_PASTA)
          /* #33: the helper cannot check pasta's connections on the host. */
          finding (d, LEVEL_ERROR, "set network_engine = \"slirp4netns\" in the policy",
                   "network: private through pasta is refused: bwsh cannot check the connections it makes on the "
                   "host, so the host's own addresses would be within reach; every session is refused");
        else if (access (path, X_OK) < 0)
          finding (d, LEVEL_ERROR, fix, "network: private needs %s: %s: %s; every session is refused",
                   bwsh_net_engine_to_string (engine), path, strerror (errno));
        else
          probe_network (d, engine, path);
        break;
      }
    case BWSH_NET_NONE:
      finding (d, LEVEL_OK, NULL, "network: none, loopback only; nothing outside the sandbox is reachable");
      break;
    case BWSH_NET_SHARED:
      if (bwsh_landlock_request_from_policy (d->policy, &req) >= 0)
        (void) bwsh_landlock_probe (&req, &rep);
      bwsh_landlock_request_clear (&req);
      finding (d, LEVEL_WARNING, "set network = \"private\" in the policy",
               "network: shared with the host: every service on the host's loopback is reachable and "
               "/proc/net lists the host's sockets; the host's abstract unix sockets are %s",
               rep.scoped_abstract ? "scoped out by Landlock on this kernel" : "reachable too");
      break;
    }
}
