/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * network = "private" (#14): the sandbox's own network namespace, given a
 * link to the outside world by its engine, slirp4netns (the default since
 * #33; pasta, Debian package passt, is refused), through the helper program
 * bwsh-netns (helpers/bwsh-netns.c, installed under libexec).
 * This file only checks what the helper needs, builds its command line and
 * pasta's, and spawns it; the helper is the process that waits, kills and
 * reports (#26: core holds no process code).  See bwsh-netns.c for who
 * starts what and who outlives whom.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "argv.h"
#include "cleanup.h"
#include "errors.h"
#include "network.h"
#include "path.h"
#include "policy.h"

const char *
bwsh_pasta_path (void)
{
  return bwsh_program_path ("BWSH_TEST_PASTA", BWSH_PASTA_PATH);
}

const char *
bwsh_slirp4netns_path (void)
{
  return bwsh_program_path ("BWSH_TEST_SLIRP4NETNS", BWSH_SLIRP4NETNS_PATH);
}

const char *
bwsh_net_engine_path (BwshNetEngine e)
{
  return e == BWSH_NET_ENGINE_PASTA ? bwsh_pasta_path () : bwsh_slirp4netns_path ();
}

const char *
bwsh_net_engine_package (BwshNetEngine e)
{
  return e == BWSH_NET_ENGINE_PASTA ? "passt" : "slirp4netns";
}

const char *
bwsh_netns_helper_path (void)
{
  return bwsh_program_path ("BWSH_TEST_NETNS_HELPER", BWSH_NETNS_HELPER_PATH);
}

int
bwsh_net_slirp4netns_argv (const char *path, const char *netns, const char *userns, int ready_fd, BwshArgv *ret)
{
  /* --configure: tap0 at 10.0.2.100/24, the default route through
   * 10.0.2.2.  --disable-host-loopback: 10.0.2.2 is a gateway, not a way
   * back to the host's loopback (slirp4netns's default maps it there).
   * --disable-dns: no resolver at 10.0.2.3; the sandbox reads the host's
   * /etc/resolv.conf and asks its resolvers directly, as with pasta.  No
   * --api-socket and no port forwarding: nothing on the host side but the
   * sockets of the connections the sandbox makes.  --enable-seccomp: its
   * own system call filter.  Not --enable-sandbox, which needs root in
   * the user namespace it runs in (podman's case, not a login's): the
   * helper confines it with Landlock instead (bwsh-netns.c).  The host's
   * other addresses are the helper's too (netns_guard.c). */
  char ready[32];
  const char *const argv[] = {
    path, "--configure", "--mtu=65520", "--disable-host-loopback", "--disable-dns", "--enable-seccomp",
    "--ready-fd", ready, "--netns-type=path", "--userns-path", userns, netns, "tap0",
  };
  int r;

  snprintf (ready, sizeof ready, "%d", ready_fd);
  for (size_t i = 0; i < BWSH_N_ELEMENTS (argv); i++)
    if ((r = bwsh_argv_add (ret, argv[i])) < 0)
      return r;
  return 0;
}

void
bwsh_mode_string (mode_t m, char ret[11])
{
  static const char rwx[] = "rwxrwxrwx";

  ret[0] = S_ISCHR (m) ? 'c' : S_ISBLK (m) ? 'b' : S_ISDIR (m) ? 'd' : S_ISREG (m) ? '-' : '?';
  for (int i = 0; i < 9; i++)
    ret[1 + i] = (m & (0400 >> i)) ? rwx[i] : '-';
  ret[10] = '\0';
}

int
bwsh_net_tun_check (BwshNetEngine engine, BwshError *err)
{
  _cleanup_close_ int fd = -1;
  char mode[11] = "", owner[32] = "", what[64] = "";
  struct stat st;
  const char *fix;
  int r;

  /* The engine opens the node from the sandbox's user namespace, where the
   * host's root owns nothing: the node's "other" bits decide, as they do
   * for the user here.  An open, not access(): a node without its driver
   * (no tun module) fails only then.  Opening tun attaches nothing. */
  fd = open (BWSH_TUN_PATH, O_RDWR | O_CLOEXEC | O_NOCTTY);
  if (fd >= 0)
    return 0;
  r = -errno;
  if (stat (BWSH_TUN_PATH, &st) == 0)
    {
      bwsh_mode_string (st.st_mode, mode);
      if (st.st_uid == 0)
        snprintf (owner, sizeof owner, "root");
      else
        snprintf (owner, sizeof owner, "uid %u", (unsigned) st.st_uid);
      snprintf (what, sizeof what, " (%s %s)", mode, owner);
    }
  if (r == -EACCES || r == -EPERM)
    fix = "give the node mode 0666 (Debian's udev rule does)";
  else if (r == -ENOENT)
    fix = "create it with mode 0666 (mknod -m 0666 " BWSH_TUN_PATH " c 10 200)";
  else
    fix = "load the tun module (modprobe tun)";
  return bwsh_error_set (err, r, BWSH_TUN_PATH, 0, 0,
                         "%s%s: %s opens it as the user for network = \"private\"; %s, or set network = "
                         "\"none\" in the policy",
                         strerror (-r), what, bwsh_net_engine_to_string (engine), fix);
}

int
bwsh_net_helper_argv (const char *helper_path, BwshNetEngine engine, const char *engine_path, pid_t parent,
                      int info_fd, int block_fd, BwshArgv *ret)
{
  char pid[32], info[32], block[32];
  const char *const argv[] = {
    helper_path, "--engine", bwsh_net_engine_to_string (engine), "--path", engine_path, "--parent", pid,
    "--info-fd", info, "--block-fd", block,
  };
  int r;

  snprintf (pid, sizeof pid, "%d", (int) parent);
  snprintf (info, sizeof info, "%d", info_fd);
  snprintf (block, sizeof block, "%d", block_fd);
  for (size_t i = 0; i < BWSH_N_ELEMENTS (argv); i++)
    if ((r = bwsh_argv_add (ret, argv[i])) < 0)
      return r;
  return 0;
}

int
bwsh_net_helper_start (const char *helper_path, BwshNetEngine engine, BwshNetHelper *ret, BwshError *err)
{
  const char *engine_path = bwsh_net_engine_path (engine);
  int info[2] = { -1, -1 }, block[2] = { -1, -1 };
  posix_spawn_file_actions_t fa;
  bool fa_ready = false;
  BwshArgv argv = { 0 };
  char *empty_env[] = { NULL };
  pid_t pid;
  int r;

  /* The helper checks every destination the engine names against the
   * host's routing (helpers/engine_watch.c), reading it from the engine's
   * memory; pasta makes itself undumpable, so no unprivileged helper can,
   * and a host address would stay within reach (#33). */
  if (engine == BWSH_NET_ENGINE_PASTA)
    return bwsh_error_set (err, -EPERM, NULL, 0, 0,
                           "network_engine = \"pasta\" is refused: bwsh cannot check the connections it "
                           "makes on the host, so the host's own addresses would be within reach; set "
                           "network_engine = \"slirp4netns\"");
  if (access (engine_path, X_OK) < 0)
    {
      r = -errno;
      return bwsh_error_set (err, r, NULL, 0, 0, "network = \"private\" needs %s (Debian package %s): %s: %s",
                             bwsh_net_engine_to_string (engine), bwsh_net_engine_package (engine), engine_path,
                             strerror (-r));
    }
  if (access (helper_path, X_OK) < 0)
    {
      r = -errno;
      return bwsh_error_set (err, r, NULL, 0, 0, "network = \"private\" needs bwsh's helper %s: %s (reinstall bwsh)",
                             helper_path, strerror (-r));
    }
  r = bwsh_net_tun_check (engine, err);
  if (r < 0)
    return r;
  if (pipe2 (info, O_CLOEXEC) < 0 || pipe2 (block, O_CLOEXEC) < 0)
    {
      r = -errno;
      goto fail;
    }
  r = bwsh_net_helper_argv (helper_path, engine, engine_path, getpid (), info[0], block[1], &argv);
  if (r < 0)
    goto fail;
  /* dup2 of an fd onto itself clears its FD_CLOEXEC in the child only
   * (POSIX 2017, glibc 2.29): the helper gets its two ends and nothing
   * else of bwsh's, all of which is O_CLOEXEC. */
  r = -posix_spawn_file_actions_init (&fa);
  if (r < 0)
    goto fail;
  fa_ready = true;
  if ((r = -posix_spawn_file_actions_adddup2 (&fa, info[0], info[0])) < 0
      || (r = -posix_spawn_file_actions_adddup2 (&fa, block[1], block[1])) < 0)
    goto fail;
  r = -posix_spawn (&pid, helper_path, &fa, NULL, argv.v, empty_env);
  if (r < 0)
    goto fail;
  posix_spawn_file_actions_destroy (&fa);
  bwsh_argv_clear (&argv);
  close (info[0]);
  close (block[1]);
  *ret = (BwshNetHelper) { .pid = pid, .info_fd = info[1], .block_fd = block[0] };
  return 0;

fail:
  if (fa_ready)
    posix_spawn_file_actions_destroy (&fa);
  bwsh_argv_clear (&argv);
  for (int i = 0; i < 2; i++)
    {
      if (info[i] >= 0)
        close (info[i]);
      if (block[i] >= 0)
        close (block[i]);
    }
  return bwsh_error_set (err, r, NULL, 0, 0, "network: cannot start the helper %s: %s", helper_path, strerror (-r));
}

int
bwsh_net_bwrap_options (const BwshNetHelper *h, BwshArgv *opts)
{
  char info[32], block[32];
  int r;

  snprintf (info, sizeof info, "%d", h->info_fd);
  snprintf (block, sizeof block, "%d", h->block_fd);
  if ((r = bwsh_argv_add (opts, "--info-fd")) < 0 || (r = bwsh_argv_add (opts, info)) < 0
      || (r = bwsh_argv_add (opts, "--block-fd")) < 0 || (r = bwsh_argv_add (opts, block)) < 0)
    return r;
  return 0;
}

void
bwsh_net_helper_close (BwshNetHelper *h)
{
  /* The helper sees EOF on the info pipe and exits without a word. */
  if (h->info_fd >= 0)
    close (h->info_fd);
  if (h->block_fd >= 0)
    close (h->block_fd);
  h->info_fd = h->block_fd = -1;
}
