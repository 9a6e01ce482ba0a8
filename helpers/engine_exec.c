/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine's side of bwsh-netns's fork: signals back to their defaults,
 * slirp4netns confined by Landlock to its program, its libraries and the
 * tun node, its calls that name a destination handed to the helper's
 * seccomp listener (engine_watch.c), then the exec.  Whatever fails, the
 * child says why on bwsh's stderr and exits 127: the helper sees the end of
 * its sync socket or of its ready pipe, and the session is refused.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "engine_exec.h"
#include "engine_watch.h"
#include "netns_report.h"

/* slirp4netns runs outside the sandbox as the user, in the host's network
 * namespace; its --enable-sandbox needs root in its user namespace, which
 * a login does not have.  So the helper confines it before the exec: it
 * may read and execute /usr (its program and libraries) and open the tun
 * node, and nothing else of the file system: not the user's files, not
 * /tmp, not /run.  Its namespaces are opened through /proc's links to
 * nsfs, which Landlock leaves alone.  Without Landlock it does not run:
 * the session is refused. */
static int
confine_slirp4netns (void)
{
  const uint64_t rx = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
  const BwshLandlockPath allowed[] = {
    { "/usr", rx },
    { "/lib", rx },
    { "/lib64", rx },
    { "/etc/ld.so.cache", LANDLOCK_ACCESS_FS_READ_FILE },
    { BWSH_TUN_PATH, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
                         | LANDLOCK_ACCESS_FS_IOCTL_DEV /* TUNSETIFF */
#endif
    },
  };
  _cleanup_close_ int ruleset_fd = -1;
  BwshError err = { 0 };
  int r;

  r = bwsh_landlock_fs_ruleset (allowed, sizeof allowed / sizeof allowed[0], &ruleset_fd, &err);
  if (r >= 0)
    r = bwsh_landlock_restrict (ruleset_fd, &err);
  return r;
}

/* slirp4netns joins the namespaces by their files: the helper's
 * descriptors of both, inherited, as /proc/self/fd/N (under Landlock it
 * may not look into another process's /proc/PID).  It writes to
 * @ready_fd once the namespace is configured, and what it says on stderr
 * (a line per start) to @err_fd, for the helper to show only if it fails. */
static _Noreturn void
exec_slirp4netns (const char *path, int netns_fd, int userns_fd, int ready_fd, int err_fd, int sync_fd)
{
  char netns[64], userns[64];
  BwshArgv argv = { 0 };
  char *empty_env[] = { NULL };
  int r, user_err;

  snprintf (netns, sizeof netns, "/proc/self/fd/%d", netns_fd);
  snprintf (userns, sizeof userns, "/proc/self/fd/%d", userns_fd);
  if (fcntl (ready_fd, F_SETFD, 0) < 0 || fcntl (netns_fd, F_SETFD, 0) < 0 || fcntl (userns_fd, F_SETFD, 0) < 0
      || bwsh_net_slirp4netns_argv (path, netns, userns, ready_fd, &argv) < 0)
    _exit (127);
  r = confine_slirp4netns ();
  if (r < 0)
    {
      netns_report ("network: cannot confine slirp4netns with Landlock: %s", strerror (-r));
      _exit (127);
    }
  /* Its calls that name a destination wait for the helper's word from
   * here on (engine_watch.c): the helper takes the listener, then lets it
   * go on.  write() and read(), not sendmsg(), which would wait for a
   * listener nobody holds yet. */
  r = engine_watch_install ();
  if (r < 0)
    {
      netns_report ("network: cannot watch slirp4netns's connections with seccomp: %s", strerror (-r));
      _exit (127);
    }
  {
    char ack;

    if (write (sync_fd, &r, sizeof r) != sizeof r || read (sync_fd, &ack, 1) != 1)
      _exit (127);
  }
  /* Its stderr is its pipe; bwsh's own word, if the exec fails, goes
   * where bwsh's go. */
  user_err = fcntl (STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  if (user_err < 0 || dup2 (err_fd, STDERR_FILENO) < 0)
    _exit (127);
  execve (path, argv.v, empty_env);
  r = errno;
  (void) dup2 (user_err, STDERR_FILENO);
  netns_report ("network: cannot execute %s: %s", path, strerror (r));
  _exit (127);
}

_Noreturn void
engine_exec (const char *path, int netns_fd, int userns_fd, pid_t helper_pid, int ready_fd, int err_fd, int sync_fd)
{
  sigset_t none;

  /* The engine goes when the helper goes, whatever the reason. */
  if (prctl (PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0 || getppid () != helper_pid)
    _exit (127);
  /* Whatever bwsh's caller left ignored or blocked would stay so across
   * the exec (Python's subprocesses ignore SIGPIPE). */
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  for (int sig = 1; sig < NSIG; sig++)
    if (sig != SIGKILL && sig != SIGSTOP)
      (void) signal (sig, SIG_DFL);
  exec_slirp4netns (path, netns_fd, userns_fd, ready_fd, err_fd, sync_fd);
}
