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
#include <sys/syscall.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "engine_exec.h"
#include "engine_watch.h"
#include "netns_report.h"

static int
allow_path (int ruleset_fd, const char *path, uint64_t access)
{
  struct landlock_path_beneath_attr rule = { .allowed_access = access };
  _cleanup_close_ int fd = open (path, O_PATH | O_CLOEXEC);

  if (fd < 0)
    return errno == ENOENT ? 0 : -errno; /* no /lib64 here: nothing to allow */
  rule.parent_fd = fd;
  if (syscall (SYS_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0)
    return -errno;
  return 0;
}

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
  struct landlock_ruleset_attr attr = { 0 };
  uint64_t tun = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE;
  _cleanup_close_ int ruleset_fd = -1;
  long abi;
  int r;

  abi = syscall (SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 0)
    return -errno;
  attr.handled_access_fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1: every right */
  if (abi >= 2)
    attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
  if (abi >= 3)
    attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
  if (abi >= 5)
    {
      attr.handled_access_fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
      tun |= LANDLOCK_ACCESS_FS_IOCTL_DEV; /* TUNSETIFF */
    }
#endif
  ruleset_fd = (int) syscall (SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset_fd < 0)
    return -errno;
  if ((r = allow_path (ruleset_fd, "/usr", rx)) < 0 || (r = allow_path (ruleset_fd, "/lib", rx)) < 0
      || (r = allow_path (ruleset_fd, "/lib64", rx)) < 0
      || (r = allow_path (ruleset_fd, "/etc/ld.so.cache", LANDLOCK_ACCESS_FS_READ_FILE)) < 0
      || (r = allow_path (ruleset_fd, BWSH_TUN_PATH, tun)) < 0)
    return r;
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall (SYS_landlock_restrict_self, ruleset_fd, 0) < 0)
    return -errno;
  return 0;
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
