/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine's connections, checked where they are made (#33).
 *
 * The engine makes the sandbox's connections from sockets on the host, so
 * a destination that is the host itself reaches the host's services.  The
 * routes netns_guard.c adds inside the sandbox cannot close that: a
 * link-local destination with a scope id (fe80::HOST%eth0) is looked up
 * with strict interface matching and passes a "prohibit" route on lo, and
 * an address the host gains is open until the guard hears of it.
 *
 * So the helper installs, before the exec, a seccomp filter that stops
 * every system call of the engine that names a destination (connect,
 * sendto with an address, sendmsg, sendmmsg) and waits for the helper's
 * word (SECCOMP_RET_USER_NOTIF).  The helper reads the address from the
 * engine's memory, checks the request is still pending, and asks the
 * host's kernel how it would route it, at that moment, with the scope id as
 * the output interface: only a unicast route to another host passes.  Local
 * (any address of any host interface, loopback, 0.0.0.0 and ::),
 * broadcast, multicast, anycast and unroutable destinations are refused
 * with EACCES, IPv4-mapped IPv6 is judged as IPv4, a unix socket by path
 * is refused, netlink passes.  An address the host gains is local in its
 * table from its first moment, so the first connect after it is refused.
 *
 * What is left, documented in docs/security.md: the answer lets the
 * engine's call go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE), so the kernel
 * reads the address again and routes it again.  The engine is Debian's
 * binary, single-threaded, and not the adversary: the sandbox cannot
 * change the engine's memory between the two reads.  The host gaining the
 * very address between the helper's lookup and the kernel's (microseconds,
 * not something the sandbox can cause) is the one window, and the routes
 * inside the sandbox close it for every address the guard has seen.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine_watch.h"
#include "netns_guard.h"

/* The kernel sends at most this many messages in one sendmmsg(). */
#define WATCH_MMSG_MAX 1024

int
engine_watch_install (void)
{
  /* Spelt out: clang's -Wmissing-field-initializers fires on SCMP_A4(). */
  const struct scmp_arg_cmp has_dest = { .arg = 4, .op = SCMP_CMP_NE, .datum_a = 0, .datum_b = 0 };
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_ALLOW);
  int r, fd;

  if (ctx == NULL)
    return -ENOMEM;
  /* send()/sendto() without an address goes on a connected socket, whose
   * connect() was checked: it need not wait (TCP's every segment). */
  if ((r = seccomp_rule_add (ctx, SCMP_ACT_NOTIFY, SCMP_SYS (connect), 0)) < 0
      || (r = seccomp_rule_add_array (ctx, SCMP_ACT_NOTIFY, SCMP_SYS (sendto), 1, &has_dest)) < 0
      || (r = seccomp_rule_add (ctx, SCMP_ACT_NOTIFY, SCMP_SYS (sendmsg), 0)) < 0
      || (r = seccomp_rule_add (ctx, SCMP_ACT_NOTIFY, SCMP_SYS (sendmmsg), 0)) < 0
      /* io_uring's connect and sendmsg would pass no filter at all. */
      || (r = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (io_uring_setup), 0)) < 0
      || (r = seccomp_load (ctx)) < 0)
    {
      seccomp_release (ctx);
      return r;
    }
  fd = seccomp_notify_fd (ctx);
  seccomp_release (ctx);
  return fd >= 0 ? fd : -EBADF;
}

int
engine_watch_open (EngineWatch *w, int pidfd, int fd)
{
  int r;

  w->route_fd = host_route_open ();
  if (w->route_fd < 0)
    return w->route_fd;
  w->notify_fd = (int) syscall (SYS_pidfd_getfd, pidfd, fd, 0);
  if (w->notify_fd < 0)
    return -errno;
  r = seccomp_notify_alloc (&w->req, &w->resp);
  return r < 0 ? r : 0;
}

void
engine_watch_close (EngineWatch *w)
{
  if (w->req != NULL)
    seccomp_notify_free (w->req, w->resp);
  w->req = NULL;
  w->resp = NULL;
  if (w->notify_fd >= 0)
    close (w->notify_fd);
  if (w->route_fd >= 0)
    close (w->route_fd);
  w->notify_fd = w->route_fd = -1;
}

static int
peek (pid_t pid, uint64_t addr, void *buf, size_t len)
{
  struct iovec local = { .iov_base = buf, .iov_len = len };
  struct iovec remote = { .iov_base = (void *) (uintptr_t) addr, .iov_len = len };
  ssize_t n = process_vm_readv (pid, &local, 1, &remote, 1, 0);

  if (n < 0)
    return -errno;
  return (size_t) n == len ? 0 : -EFAULT;
}

static int
judge_route (EngineWatch *w, int family, const void *dst, uint32_t oif)
{
  unsigned char type = RTN_UNSPEC;
  int r = host_route_type (w->route_fd, ++w->seq, family, dst, oif, &type);

  if (r < 0)
    return r == -EACCES || r == -ENETUNREACH || r == -EHOSTUNREACH || r == -ENODEV ? r : -EACCES;
  return type == RTN_UNICAST ? 0 : -EACCES;
}

static int
judge_v4 (EngineWatch *w, const struct in_addr *a)
{
  /* 0.0.0.0/8 is "this host" to connect(). */
  if ((ntohl (a->s_addr) >> 24) == 0)
    return -EACCES;
  return judge_route (w, AF_INET, a, 0);
}

/* 0 if the engine may reach @sa, else the errno its call fails with. */
static int
judge (EngineWatch *w, const struct sockaddr_storage *sa, size_t len)
{
  if (len < sizeof sa->ss_family)
    return -EINVAL;
  switch (sa->ss_family)
    {
    case AF_UNSPEC:  /* connect(): dissolve the association */
    case AF_NETLINK: /* the kernel of the engine's own namespaces */
      return 0;
    case AF_INET:
      {
        const struct sockaddr_in *in = (const struct sockaddr_in *) sa;

        return len < sizeof *in ? -EINVAL : judge_v4 (w, &in->sin_addr);
      }
    case AF_INET6:
      {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) sa;
        struct in_addr v4;
        uint32_t oif = 0;

        /* 24 bytes (RFC 2133, no scope id) is what the kernel takes at least. */
        if (len < offsetof (struct sockaddr_in6, sin6_scope_id))
          return -EINVAL;
        if (IN6_IS_ADDR_V4MAPPED (&in6->sin6_addr))
          {
            memcpy (&v4, &in6->sin6_addr.s6_addr[12], sizeof v4);
            return judge_v4 (w, &v4);
          }
        if (IN6_IS_ADDR_UNSPECIFIED (&in6->sin6_addr))
          return -EACCES;
        /* The kernel takes the scope id as the interface only where the
         * address needs one (__ipv6_addr_needs_scope_id()); elsewhere it is
         * ignored, and so here: a strict lookup on the engine's say-so
         * would answer for a route the connection does not take. */
        if (len >= sizeof *in6
            && (IN6_IS_ADDR_LINKLOCAL (&in6->sin6_addr) || IN6_IS_ADDR_MC_LINKLOCAL (&in6->sin6_addr)
                || IN6_IS_ADDR_MC_NODELOCAL (&in6->sin6_addr)))
          oif = in6->sin6_scope_id;
        return judge_route (w, AF_INET6, &in6->sin6_addr, oif);
      }
    default: /* a unix socket by path, and every other family */
      return -EACCES;
    }
}

static int
judge_name (EngineWatch *w, pid_t pid, uint64_t addr, uint64_t len)
{
  struct sockaddr_storage sa = { 0 };
  int r;

  if (addr == 0)
    return 0; /* a connected socket's: its connect() was judged */
  if (len > sizeof sa)
    return -EINVAL;
  r = peek (pid, addr, &sa, (size_t) len);
  return r < 0 ? r : judge (w, &sa, (size_t) len);
}

static int
judge_request (EngineWatch *w, const struct seccomp_notif *req)
{
  static struct mmsghdr mm[WATCH_MMSG_MAX];
  const __u64 *a = req->data.args;
  struct msghdr mh;
  int nr = req->data.nr, r;

  if (nr == SCMP_SYS (connect))
    return a[1] == 0 ? -EFAULT : judge_name (w, req->pid, a[1], a[2]);
  if (nr == SCMP_SYS (sendto))
    return judge_name (w, req->pid, a[4], a[5]);
  if (nr == SCMP_SYS (sendmsg))
    {
      r = peek (req->pid, a[1], &mh, sizeof mh);
      return r < 0 ? r : judge_name (w, req->pid, (uintptr_t) mh.msg_name, mh.msg_namelen);
    }
  if (nr == SCMP_SYS (sendmmsg))
    {
      size_t n = a[2] > WATCH_MMSG_MAX ? WATCH_MMSG_MAX : (size_t) a[2];

      if (n == 0)
        return 0;
      r = peek (req->pid, a[1], mm, n * sizeof mm[0]);
      for (size_t i = 0; r == 0 && i < n; i++)
        r = judge_name (w, req->pid, (uintptr_t) mm[i].msg_hdr.msg_name, mm[i].msg_hdr.msg_namelen);
      return r;
    }
  return -EACCES;
}

int
engine_watch_answer (EngineWatch *w)
{
  int r, verdict;

  memset (w->req, 0, sizeof *w->req);
  /* libseccomp says -ECANCELED for any failure of the kernel's; errno
   * tells which. */
  r = seccomp_notify_receive (w->notify_fd, w->req);
  if (r < 0 && (errno == ENOENT || errno == EINTR))
    return 0; /* the engine's call was interrupted, or it died meanwhile */
  if (r < 0)
    return -errno;
  verdict = judge_request (w, w->req);
  /* What was read is the pending call's, not a recycled pid's. */
  if (seccomp_notify_id_valid (w->notify_fd, w->req->id) < 0)
    return 0;
  memset (w->resp, 0, sizeof *w->resp);
  w->resp->id = w->req->id;
  if (verdict == 0)
    w->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  else
    w->resp->error = verdict;
  r = seccomp_notify_respond (w->notify_fd, w->resp);
  return r < 0 && errno != ENOENT ? -errno : 0;
}
