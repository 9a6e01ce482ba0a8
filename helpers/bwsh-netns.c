/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwsh-netns: the network helper of network = "private" (#14), a program of
 * its own (#26) so that core/ holds no process code.  It gives the
 * sandbox's own network namespace a link to the outside world through
 * slirp4netns (the only engine since #33).  The host's loopback, its
 * abstract unix sockets and its socket tables (/proc/net/unix,
 * /proc/net/tcp) all belong to the host's namespace, so none of them exists
 * inside; egress goes through slirp4netns's sockets on the host.
 *
 *   bwsh-netns --engine slirp4netns --path PATH --parent PID --info-fd N --block-fd M
 *
 * Who starts what, and who outlives whom:
 *
 *   bwsh ──spawn──► bwsh-netns ──fork──► slirp4netns (Landlock, seccomp-watched)
 *    │
 *    └─exec─► bwrap (monitor) ──clone──► sandbox pid 1 ──► shell
 *
 * bwsh (core/launch/launch.c) spawns the helper just before it execs bwrap, so the
 * helper becomes a child of bwrap's monitor process; bwsh itself stays what
 * the design asks, bwrap's cost plus one exec.  bwrap tells the helper the
 * sandbox's pid on --info-fd (fd N) as soon as it has cloned it, then builds
 * the mounts while the engine starts (see docs/performance.md).  The sandbox
 * blocks on --block-fd (fd M) just before it execs the shell, and only the
 * helper can release it, once the engine has configured the namespace (its
 * --ready-fd) and the host's addresses are kept out.
 *
 * Failing closed: the network namespace is the sandbox's own from the clone
 * on, so nothing inside ever sees the host's network.  If the engine exits
 * or does not come up in time, the helper kills the sandbox before the
 * shell starts, and says why on stderr (bwsh's, which bwrap's own errors
 * use too: the one way left to tell the user why the session ends); what
 * the engine itself says goes to the journal.  If it dies later, the helper
 * ends the session the same way.
 *
 * Lifetime: the engine runs with PR_SET_PDEATHSIG set to SIGTERM against
 * the helper, and the helper with SIGKILL against PID (bwsh, then bwrap's
 * monitor): when the session ends, both go.  The engine writes no file and
 * opens no socket on the host side but those of the connections the
 * sandbox makes (no API socket, no port forwarding).
 *
 * The engine's sockets are the host's, so a connection to any of the host's
 * own addresses would reach the host's services: every destination the
 * engine names waits for the helper's check against the host's routing at
 * that moment (engine_watch.c), and before the shell starts the helper adds
 * a "prohibit" route inside the sandbox for each address the host has, and
 * for each it gains later (netns_guard.c), as a second layer.  The
 * engine's side of the fork, confined and watched before its exec, is
 * engine_exec.c.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "engine_exec.h"
#include "engine_watch.h"
#include "netns_guard.h"
#include "netns_report.h"

/* How long the engine may take to configure the namespace before the session is
 * refused: ~20 ms on an idle machine.  In a login storm on 2 busy CPUs
 * (bench/storm.sh) a session that starts at all takes up to 12 s without a
 * network, and 10 s here refused most private ones: a slow login beats a
 * refused one, and sshd's LoginGraceTime still bounds it. */
#define ENGINE_READY_TIMEOUT_MS 60000
/* How long bwrap may take to write the namespace's user map (it does so
 * right after the clone; the engine must not join the namespace before). */
#define UID_MAP_TIMEOUT_MS 60000

typedef struct
{
  int info_fd;       /* read end of bwrap's --info-fd */
  int block_fd;      /* write end of bwrap's --block-fd */
  int parent_pidfd;  /* bwsh, then bwrap's monitor */
  int sandbox_pidfd; /* pid 1 of the sandbox, once known */
  pid_t sandbox_pid;
  pid_t engine_pid;
  pid_t parent_pid; /* bwsh's, in the journal's lines */
  int netns_fd;  /* the sandbox's network namespace, once checked */
  int userns_fd; /* the user namespace that owns it */
  HostGuard guard;
  EngineWatch watch;
  int engine_err_fd; /* slirp4netns's stderr: to the journal if it fails, else dropped */
  const char *engine_path;
  BwshNetEngine engine;
  const char *name; /* the engine's, in messages */
} Helper;

static long
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* "KEY": NUMBER in bwrap's --info-fd output. */
static int
info_number (const char *buf, const char *key, unsigned long long *ret)
{
  const char *s = strstr (buf, key);
  char *end = NULL;
  unsigned long long v;

  if (s == NULL)
    return -EBADMSG;
  s += strlen (key);
  while (*s == ' ' || *s == ':')
    s++;
  if (*s < '0' || *s > '9')
    return -EBADMSG;
  errno = 0;
  v = strtoull (s, &end, 10);
  if (errno != 0 || end == s || v == 0)
    return -EBADMSG;
  *ret = v;
  return 0;
}

/* bwrap writes the whole JSON object (flat: one '}', at its end), then
 * closes the fd.  The object's end is what counts, not the fd's: in a
 * recorded session tlog-rec, bwrap's parent, holds a copy of the write end
 * for as long as the session runs. */
static int
read_info (Helper *h, unsigned long long *ret_pid, unsigned long long *ret_netns)
{
  char buf[4096];
  size_t len = 0;
  ssize_t n;
  int r;

  for (;;)
    {
      n = read (h->info_fd, buf + len, sizeof buf - 1 - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -errno;
      if (n == 0 || (len += (size_t) n) == sizeof buf - 1 || memchr (buf, '}', len) != NULL)
        break;
    }
  buf[len] = '\0';
  if (len == 0)
    return -ECHILD; /* bwrap exited before cloning (it said why), or bwsh never exec'd it */
  r = info_number (buf, "\"child-pid\"", ret_pid);
  if (r >= 0)
    r = info_number (buf, "\"net-namespace\"", ret_netns);
  return r;
}

/* bwrap's child writes its user namespace's uid_map right after the clone;
 * the engine must join the namespace after that, not before, or it would run
 * as the overflow uid in it.  /proc offers nothing to wait on, so look
 * after 200 µs, then less and less often (up to every 20 ms): it takes a
 * few hundred microseconds on an idle machine, and in a storm the helpers'
 * polling must not take the CPU bwrap needs to get there. */
static int
wait_uid_map (pid_t pid)
{
  char path[64];
  long deadline = now_ms () + UID_MAP_TIMEOUT_MS, wait_ns = 200 * 1000;

  snprintf (path, sizeof path, "/proc/%d/uid_map", (int) pid);
  for (;;)
    {
      _cleanup_close_ int fd = open (path, O_RDONLY | O_CLOEXEC);
      struct timespec pause = { .tv_nsec = wait_ns };
      char c;
      ssize_t n;

      if (fd < 0)
        return -errno;
      n = read (fd, &c, 1);
      if (n > 0)
        return 0;
      if (n < 0 && errno != EINTR)
        return -errno;
      if (now_ms () > deadline)
        return -ETIMEDOUT;
      (void) nanosleep (&pause, NULL);
      if (wait_ns < 20 * 1000 * 1000)
        wait_ns *= 2;
    }
}

static void
kill_sandbox (Helper *h)
{
  /* SIGKILL to pid 1 of the sandbox's pid namespace takes every process in
   * it.  Through a pidfd, so that a recycled pid is never hit. */
  if (h->sandbox_pidfd >= 0)
    (void) syscall (SYS_pidfd_send_signal, h->sandbox_pidfd, SIGKILL, NULL, 0);
}

static const char *
status_string (int status, char *buf, size_t size)
{
  if (WIFEXITED (status))
    snprintf (buf, size, "exit status %d", WEXITSTATUS (status));
  else if (WIFSIGNALED (status))
    snprintf (buf, size, "killed by signal %d", WTERMSIG (status));
  else
    snprintf (buf, size, "status %d", status);
  return buf;
}

/* What slirp4netns wrote on stderr: to the journal (@show, it failed; at
 * most a few lines), named by the session's bwsh pid (its "sandbox
 * started" event has it), or dropped (it is up, and its "sent tapfd=5 for
 * tap0" is nobody's business).  Its own pipe, so it never writes into the
 * session: the user sees bwsh's own message only. */
static void
drain_engine_err (Helper *h, bool show)
{
  char buf[2048];
  size_t len = 0;
  ssize_t n;

  if (h->engine_err_fd < 0)
    return;
  while ((n = read (h->engine_err_fd, buf + len, sizeof buf - 1 - len)) != 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        break;
      if (!show || (len += (size_t) n) == sizeof buf - 1)
        len = 0; /* keep the last of it */
    }
  if (n == 0)
    {
      close (h->engine_err_fd); /* its end: nothing more will come */
      h->engine_err_fd = -1;
    }
  buf[len] = '\0';
  for (char *line = buf, *nl; show && *line != '\0'; line = nl)
    {
      nl = line + strcspn (line, "\n");
      if (*nl != '\0')
        *nl++ = '\0';
      if (*line != '\0' && strncmp (line, "sent tapfd=", 11) != 0 && strncmp (line, "received tapfd=", 15) != 0)
        syslog (LOG_AUTHPRIV | LOG_WARNING, "%s of the session of bwsh[%d]: %s", h->name, (int) h->parent_pid,
                line);
    }
}

/* The engine's listener is readable: a call of its waits for the word.
 * Hung up: the engine and its children are gone (its pidfd says so too). */
static int
engine_watch_serve (Helper *h, short revents)
{
  int r;

  if ((revents & POLLIN) == 0)
    {
      close (h->watch.notify_fd);
      h->watch.notify_fd = -1;
      return 0;
    }
  r = engine_watch_answer (&h->watch);
  if (r < 0)
    netns_report ("network: cannot answer %s's connection: %s", h->name, strerror (-r));
  return r;
}

/* Wait for the engine's exit (it was killed, or told to go): its status. */
static int
reap_engine (Helper *h)
{
  int status = 0;

  while (waitpid (h->engine_pid, &status, 0) < 0 && errno == EINTR)
    ;
  h->engine_pid = 0;
  return status;
}

/* The sandbox bwrap cloned, as bwrap tells it on --info-fd: its pidfd, its
 * network namespace, the user namespace that owns it, once mapped. */
static int
find_sandbox (Helper *h)
{
  unsigned long long pid = 0, netns_id = 0;
  struct stat st;
  char path[32];
  int r;

  r = read_info (h, &pid, &netns_id);
  if (r == -ECHILD)
    return r;
  if (r < 0 || pid > INT32_MAX)
    {
      netns_report ("network: cannot read the sandbox's pid from bwrap: %s", strerror (r < 0 ? -r : EBADMSG));
      return -EBADMSG;
    }
  h->sandbox_pid = (pid_t) pid;
  h->sandbox_pidfd = (int) syscall (SYS_pidfd_open, h->sandbox_pid, 0);
  if (h->sandbox_pidfd < 0)
    return -errno; /* gone already: bwrap reports how */

  /* The namespace is the one bwrap cloned (its inode is what bwrap told
   * us), so the pidfd opened before this check is that process too. */
  snprintf (path, sizeof path, "/proc/%d/ns/net", h->sandbox_pid);
  h->netns_fd = open (path, O_RDONLY | O_CLOEXEC);
  if (h->netns_fd < 0 || fstat (h->netns_fd, &st) < 0 || (unsigned long long) st.st_ino != netns_id)
    {
      netns_report ("network: the sandbox's network namespace is not the one bwrap made");
      return -ESRCH;
    }
  /* The engine needs CAP_NET_ADMIN over the namespace: it joins the user
   * namespace that owns it, the first one bwrap made, not the nested one
   * --disable-userns adds later. */
  h->userns_fd = ioctl (h->netns_fd, NS_GET_USERNS);
  if (h->userns_fd < 0)
    {
      r = -errno;
      netns_report ("network: cannot find the sandbox's user namespace: %s", strerror (-r));
      return r;
    }
  if (fcntl (h->userns_fd, F_SETFD, FD_CLOEXEC) < 0)
    return -errno;
  r = wait_uid_map (h->sandbox_pid);
  if (r < 0)
    {
      netns_report ("network: the sandbox's user namespace was never mapped: %s", strerror (-r));
      return r;
    }
  return 0;
}

/* Fork the engine, and take its seccomp listener before it execs
 * slirp4netns: nothing of the engine runs unwatched.  slirp4netns tells it
 * is up on a pipe (--ready-fd), whose read end goes to @ret_ready_fd, with
 * the engine's pidfd in @ret_engine_pidfd; what it says goes to a pipe of
 * its own; the sync pair hands its listener over.  A child that could not
 * install it said why and exits: end of file on the sync pair. */
static int
fork_engine (Helper *h, int *ret_ready_fd, int *ret_engine_pidfd)
{
  _cleanup_close_ int ready_fd = -1, ready_wfd = -1, err_wfd = -1, sync_fd = -1, child_sync_fd = -1;
  _cleanup_close_ int engine_pidfd = -1;
  pid_t helper_pid = getpid ();
  int p[2], e[2], sync[2], child_fd = -1, r;

  if (pipe2 (p, O_CLOEXEC) < 0)
    {
      r = -errno;
      netns_report ("network: cannot make a pipe: %s", strerror (-r));
      return r;
    }
  ready_fd = p[0];
  ready_wfd = p[1];
  if (pipe2 (e, O_CLOEXEC | O_NONBLOCK) < 0)
    {
      r = -errno;
      netns_report ("network: cannot make a pipe: %s", strerror (-r));
      return r;
    }
  h->engine_err_fd = e[0];
  err_wfd = e[1];
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sync) < 0)
    {
      r = -errno;
      netns_report ("network: cannot make a socket pair: %s", strerror (-r));
      return r;
    }
  sync_fd = sync[0];
  child_sync_fd = sync[1];
  h->engine_pid = fork ();
  if (h->engine_pid < 0)
    {
      r = -errno;
      netns_report ("network: cannot start %s: %s", h->name, strerror (-r));
      return r;
    }
  if (h->engine_pid == 0)
    engine_exec (h->engine_path, h->netns_fd, h->userns_fd, helper_pid, ready_wfd, err_wfd, child_sync_fd);
  close (steal_fd (&ready_wfd)); /* the engine's now: its end of file is its exit */
  close (steal_fd (&err_wfd));
  close (steal_fd (&child_sync_fd));
  engine_pidfd = (int) syscall (SYS_pidfd_open, h->engine_pid, 0);
  /* pidfd_getfd: Linux 5.6. */
  if (engine_pidfd < 0)
    r = -errno;
  else if (read (sync_fd, &child_fd, sizeof child_fd) != sizeof child_fd)
    r = -ECHILD;
  else if ((r = engine_watch_open (&h->watch, engine_pidfd, child_fd)) < 0)
    netns_report ("network: cannot watch %s's connections: %s", h->name, strerror (-r));
  else if (write (sync_fd, "1", 1) != 1)
    r = -errno;
  if (r < 0)
    {
      kill (h->engine_pid, SIGKILL);
      drain_engine_err (h, true);
      (void) reap_engine (h);
      netns_report ("network: %s could not configure the sandbox's network", h->name);
      return -ENETDOWN;
    }
  *ret_ready_fd = steal_fd (&ready_fd);
  *ret_engine_pidfd = steal_fd (&engine_pidfd);
  return 0;
}

/* What wait_engine_ready() returns when the engine failed before it was
 * ready: its caller reaps it once the ready pipe is closed. */
#define ENGINE_FAILED 1

/* slirp4netns writes to the ready pipe once the namespace is configured;
 * its exit first means it failed.  0, ENGINE_FAILED, or -ETIMEDOUT (the
 * engine killed and reaped). */
static int
wait_engine_ready (Helper *h, int ready_fd, int engine_pidfd)
{
  long deadline = now_ms () + ENGINE_READY_TIMEOUT_MS;
  char buf[32];
  int r;

  for (;;)
    {
      struct pollfd pfd[3] = { { .fd = ready_fd, .events = POLLIN },
                               { .fd = engine_pidfd, .events = POLLIN },
                               { .fd = h->watch.notify_fd, .events = POLLIN } };
      long left = deadline - now_ms ();
      ssize_t n;

      if (left <= 0)
        {
          kill (h->engine_pid, SIGKILL);
          (void) reap_engine (h);
          netns_report ("network: %s did not configure the sandbox's network within %d s", h->name,
                  ENGINE_READY_TIMEOUT_MS / 1000);
          return -ETIMEDOUT;
        }
      r = poll (pfd, 3, (int) left);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return ENGINE_FAILED;
      /* slirp4netns's own child hands it the tap device with sendmsg(). */
      if (pfd[2].revents != 0 && engine_watch_serve (h, pfd[2].revents) < 0)
        return ENGINE_FAILED;
      if (pfd[0].revents != 0)
        {
          n = read (ready_fd, buf, sizeof buf);
          if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
          return n > 0 ? 0 : ENGINE_FAILED;
        }
      if (pfd[1].revents != 0)
        return ENGINE_FAILED;
    }
}

/* The engine, forked and watched, until it is ready; its ready pipe and
 * pidfd closed on return. */
static int
engine_until_ready (Helper *h)
{
  _cleanup_close_ int ready_fd = -1, engine_pidfd = -1;
  int r;

  r = fork_engine (h, &ready_fd, &engine_pidfd);
  if (r < 0)
    return r;
  return wait_engine_ready (h, ready_fd, engine_pidfd);
}

/* Start slirp4netns on the sandbox's namespace, watched, and wait until it
 * has configured it. */
static int
start_engine (Helper *h)
{
  char status_buf[64];
  int r, status;

  r = find_sandbox (h);
  if (r < 0)
    return r;
  r = engine_until_ready (h);
  if (r != ENGINE_FAILED)
    return r;
  /* Its ready pipe is closed: an engine that still runs gets EPIPE if it
   * writes there now. */
  drain_engine_err (h, true);
  if (waitpid (h->engine_pid, &status, 0) == h->engine_pid)
    {
      h->engine_pid = 0;
      netns_report ("network: %s could not configure the sandbox's network (%s)", h->name,
              status_string (status, status_buf, sizeof status_buf));
    }
  else
    netns_report ("network: %s could not configure the sandbox's network", h->name);
  return -ENETDOWN;
}

/* The session cannot go on: the sandbox first (closing the block fd
 * unwritten would let bwrap go on), then the engine. */
static void
kill_session (Helper *h)
{
  kill_sandbox (h);
  if (h->engine_pid > 0)
    kill (h->engine_pid, SIGKILL);
}

/* Before the shell starts, the host's own addresses go out of reach
 * (netns_guard.c).  The host's changes are listened to before its table is
 * read, so none falls between the two.  On failure, what failed in @what. */
static int
keep_host_out (Helper *h, char *what, size_t size)
{
  int r;

  r = host_guard_listen (&h->guard);
  if (r < 0)
    snprintf (what, size, "the host's route changes");
  else if ((r = host_guard_enter (&h->guard, h->userns_fd, h->netns_fd)) < 0)
    snprintf (what, size, "the sandbox's network namespace");
  else
    r = host_guard_sync (&h->guard, what, size);
  return r;
}

/* Until the session ends (bwrap's monitor exits: 0) or the engine does, or
 * the engine's watch or the host guard fails (1). */
static int
watch_session (Helper *h)
{
  char status_buf[64], what[128] = "";
  int r, status = 0, engine_pidfd;

  engine_pidfd = (int) syscall (SYS_pidfd_open, h->engine_pid, 0);
  for (;;)
    {
      struct pollfd pfd[5] = { { .fd = h->parent_pidfd, .events = POLLIN },
                               { .fd = engine_pidfd, .events = POLLIN },
                               { .fd = h->guard.host_fd, .events = POLLIN },
                               { .fd = h->engine_err_fd, .events = POLLIN },
                               { .fd = h->watch.notify_fd, .events = POLLIN } };

      if (engine_pidfd < 0 || poll (pfd, 5, -1) < 0)
        {
          if (engine_pidfd >= 0 && errno == EINTR)
            continue;
          break;
        }
      if (pfd[0].revents != 0)
        {
          kill (h->engine_pid, SIGTERM);
          (void) reap_engine (h);
          return 0;
        }
      if (pfd[1].revents != 0)
        break;
      /* A call of the engine's that a listener that stopped working would
       * leave waiting for ever: the session ends instead. */
      if (pfd[4].revents != 0 && engine_watch_serve (h, pfd[4].revents) < 0)
        {
          kill_session (h);
          (void) reap_engine (h);
          netns_report ("network: ending the session");
          return 1;
        }
      if (pfd[3].revents != 0)
        drain_engine_err (h, false);
      /* The host gained an address: out of reach before anything else.
       * One that cannot be kept out ends the session. */
      if (pfd[2].revents != 0 && (r = host_guard_event (&h->guard, what, sizeof what)) < 0)
        {
          kill_session (h);
          (void) reap_engine (h);
          netns_report ("network: cannot keep the host's new address out of the sandbox: %s: %s; ending the session",
                  what, strerror (-r));
          return 1;
        }
    }
  /* The session without its engine would have no network at all, never the
   * host's; but a session that silently lost its network is a puzzle for
   * the user, so it ends, and says why. */
  status = reap_engine (h);
  drain_engine_err (h, true);
  kill_sandbox (h);
  netns_report ("network: %s ended (%s); ending the session", h->name,
          status_string (status, status_buf, sizeof status_buf));
  return 1;
}

static int
run (Helper *h)
{
  char what[128] = "";
  int r;

  r = start_engine (h);
  if (r < 0)
    {
      kill_session (h);
      if (r != -ECHILD)
        netns_report ("session refused: network = \"private\" could not be set up");
      return 1;
    }
  /* Up.  A host whose addresses cannot be kept out is one the session
   * does not start on. */
  r = keep_host_out (h, what, sizeof what);
  if (r < 0)
    {
      kill_session (h);
      netns_report ("network: cannot keep the host's own addresses out of the sandbox: %s: %s", what, strerror (-r));
      netns_report ("session refused: network = \"private\" could not be set up");
      return 1;
    }
  /* Let the sandbox exec the shell. */
  if (write (h->block_fd, "1", 1) != 1)
    {
      kill_session (h);
      return 1;
    }
  close (h->block_fd);
  return watch_session (h);
}

/* Close every fd from 3 up except @a and @b. */
static void
close_all_but (int a, int b)
{
  unsigned lo = (unsigned) (a < b ? a : b), hi = (unsigned) (a < b ? b : a);

  if (lo > 3)
    (void) syscall (SYS_close_range, 3U, lo - 1, 0);
  if (hi > lo + 1)
    (void) syscall (SYS_close_range, lo + 1, hi - 1, 0);
  (void) syscall (SYS_close_range, hi + 1, ~0U, 0);
}

static int
usage (void)
{
  dprintf (STDERR_FILENO, "usage: bwsh-netns --engine slirp4netns --path PATH --parent PID --info-fd N "
                          "--block-fd M\n"
                          "(started by bwsh for network = \"private\"; not for running by hand)\n");
  return 2;
}

int
main (int argc, char **argv)
{
  Helper h = { .info_fd = -1, .block_fd = -1, .parent_pidfd = -1, .sandbox_pidfd = -1, .netns_fd = -1,
               .userns_fd = -1, .guard = HOST_GUARD_INIT, .watch = ENGINE_WATCH_INIT, .engine_err_fd = -1,
               .engine = BWSH_NET_ENGINE_SLIRP4NETNS };
  long parent = 0, info = -1, block = -1;
  int devnull, r;

  for (int i = 1; i < argc; i += 2)
    {
      const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
      r = val == NULL ? -EINVAL : 0;

      if (r < 0)
        return usage ();
      /* pasta is refused before the helper starts (core/network.c). */
      if (strcmp (opt, "--engine") == 0 && strcmp (val, "slirp4netns") == 0)
        h.engine = BWSH_NET_ENGINE_SLIRP4NETNS;
      else if (strcmp (opt, "--path") == 0 && val[0] == '/')
        h.engine_path = val;
      else if (strcmp (opt, "--parent") == 0)
        r = bwsh_parse_decimal (val, 0, INT32_MAX, &parent);
      else if (strcmp (opt, "--info-fd") == 0)
        r = bwsh_parse_decimal (val, 0, INT_MAX, &info);
      else if (strcmp (opt, "--block-fd") == 0)
        r = bwsh_parse_decimal (val, 0, INT_MAX, &block);
      else
        r = -EINVAL;
      if (r < 0)
        return usage ();
    }
  if (h.engine_path == NULL || parent <= 1 || info < 3 || block < 3 || info == block)
    return usage ();
  h.name = bwsh_net_engine_to_string (h.engine);
  h.parent_pid = (pid_t) parent;
  openlog ("bwsh-netns", LOG_PID, LOG_AUTHPRIV);
  h.info_fd = (int) info;
  h.block_fd = (int) block;

  /* Gone with bwrap's monitor, which is what bwsh becomes.  Not by
   * PR_SET_PDEATHSIG alone: Landlock's signal scope, applied to bwsh after
   * this spawn, keeps the monitor from signalling us; the pidfd says it all
   * the same.  A parent that is gone already is no session to serve. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid () != (pid_t) parent)
    return 1;
  /* Hold nothing of the session's: not its stdin or stdout (sshd waits for
   * every copy of a session's pipes to close), nor anything else bwsh had
   * open (all O_CLOEXEC, this closes them again for good measure). */
  devnull = open ("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0 || dup2 (devnull, STDIN_FILENO) < 0 || dup2 (devnull, STDOUT_FILENO) < 0)
    return 1;
  close (devnull);
  close_all_but (h.info_fd, h.block_fd);
  if (fcntl (h.info_fd, F_SETFD, FD_CLOEXEC) < 0 || fcntl (h.block_fd, F_SETFD, FD_CLOEXEC) < 0)
    return 1;
  h.parent_pidfd = (int) syscall (SYS_pidfd_open, (pid_t) parent, 0);
  if (h.parent_pidfd < 0 || getppid () != (pid_t) parent)
    return 1;
  r = run (&h);
  engine_watch_close (&h.watch);
  return r;
}
