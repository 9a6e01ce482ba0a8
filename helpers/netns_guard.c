/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host's own addresses, out of the sandbox's reach (#27).
 *
 * The second layer since #33: engine_watch.c checks every destination where
 * the engine names it.  These routes still fail a connect() inside at once,
 * before any packet reaches the engine, and close the watch's one window
 * (the host gaining the very address between its lookup and the kernel's)
 * for every address already seen.
 *
 * The engine connects on the sandbox's behalf from sockets on the
 * host, so a destination that is one of the host's own addresses reaches
 * the host's services: everything listening on 0.0.0.0 or ::, at the
 * address of a second interface, a bridge (docker0's 172.17.0.1), a VPN,
 * an address on lo.  The host's loopback (127.0.0.0/8, ::1) and its main
 * address are handled by the engine's own options; no list of them can be
 * complete, so this is an allow-list the other way round: whatever the
 * kernel itself calls local on the host (the "local" routing table: type
 * local, broadcast and anycast) gets a "prohibit" route inside the
 * sandbox's namespace before the shell starts, and so does every such
 * route the host gains while the session runs.  A connect() there fails at
 * once with EACCES inside the sandbox and no packet reaches the engine.
 *
 * The sandbox's own local table is looked up first, so an address the
 * engine gives the namespace stays the namespace's own.  Nobody in the sandbox can remove the routes: they
 * run without capabilities in a user namespace that does not own the
 * network namespace (--disable-userns adds a nested one).
 *
 * Routes the host loses are left in place: the sandbox cannot reach that
 * address until the session ends, which fails closed.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netns_guard.h"

#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK 12
#endif
#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

typedef struct
{
  struct nlmsghdr nh;
  struct rtmsg rt;
  char attrs[64];
} RouteRequest;

static int
rtnl_socket (unsigned groups)
{
  struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = groups };
  int fd, one = 1, rcvbuf = 1 << 20;

  fd = socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0)
    return -errno;
  /* Dumps filtered by the kernel (4.20 and later): a router's main table
   * can hold a million routes, and only the local one matters here.
   * Without it, the filter below does the same work. */
  (void) setsockopt (fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof one);
  /* A burst of changes larger than this is caught by ENOBUFS and a new dump. */
  (void) setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  if (bind (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
    {
      int r = -errno;
      close (fd);
      return r;
    }
  return fd;
}

int
host_guard_listen (HostGuard *g)
{
  int fd = rtnl_socket (RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE);

  if (fd < 0)
    return fd;
  g->host_fd = fd;
  return 0;
}

int
host_guard_enter (HostGuard *g, int userns_fd, int netns_fd)
{
  char cbuf[CMSG_SPACE (sizeof (int))] __attribute__ ((aligned (__alignof__ (struct cmsghdr)))) = { 0 };
  char byte = 0;
  struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
  struct cmsghdr *cm;
  int sv[2], status, r = 0;
  pid_t pid;

  /* The socket is made in the sandbox's namespace by a child that joins
   * them (as their owner, it gets CAP_NET_ADMIN over the sandbox's network
   * and nothing on the host), and handed back.  The helper itself stays in
   * the host's namespaces: it reads the engine's memory and asks the
   * host's routing for it (engine_watch.c), which a process in another
   * user namespace may not do.  Routes added through the socket count as
   * the namespace owner's: the helper is it. */
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
    return -errno;
  pid = fork ();
  if (pid < 0)
    {
      r = -errno;
      close (sv[0]);
      close (sv[1]);
      return r;
    }
  if (pid == 0)
    {
      int fd;

      if (setns (userns_fd, CLONE_NEWUSER) < 0 || setns (netns_fd, CLONE_NEWNET) < 0)
        _exit (1);
      fd = rtnl_socket (0);
      if (fd < 0 || (cm = CMSG_FIRSTHDR (&msg)) == NULL)
        _exit (1);
      cm->cmsg_level = SOL_SOCKET;
      cm->cmsg_type = SCM_RIGHTS;
      cm->cmsg_len = CMSG_LEN (sizeof (int));
      memcpy (CMSG_DATA (cm), &fd, sizeof fd);
      _exit (sendmsg (sv[1], &msg, 0) == 1 ? 0 : 1);
    }
  close (sv[1]);
  if (recvmsg (sv[0], &msg, MSG_CMSG_CLOEXEC) != 1 || (cm = CMSG_FIRSTHDR (&msg)) == NULL
      || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN (sizeof (int)))
    r = -EPERM; /* the child could not join the namespaces */
  else
    memcpy (&g->sandbox_fd, CMSG_DATA (cm), sizeof g->sandbox_fd);
  close (sv[0]);
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  return r;
}

static void
add_attr (RouteRequest *req, unsigned short type, const void *data, size_t len)
{
  struct rtattr *rta = (struct rtattr *) ((char *) req + NLMSG_ALIGN (req->nh.nlmsg_len));

  rta->rta_type = type;
  rta->rta_len = (unsigned short) RTA_LENGTH (len);
  memcpy (RTA_DATA (rta), data, len);
  req->nh.nlmsg_len = NLMSG_ALIGN (req->nh.nlmsg_len) + RTA_ALIGN (rta->rta_len);
}

static void
describe (int family, const void *dst, unsigned dst_len, char *what, size_t what_size)
{
  char addr[INET6_ADDRSTRLEN] = "?";

  (void) inet_ntop (family, dst, addr, sizeof addr);
  snprintf (what, what_size, "%s/%u", addr, dst_len);
}

/* The kernel's answer to request @seq on @fd: 0, or its negative errno. */
static int
read_ack (int fd, uint32_t seq)
{
  char buf[8192] __attribute__ ((aligned (__alignof__ (struct nlmsghdr))));

  for (;;)
    {
      ssize_t n = recv (fd, buf, sizeof buf, 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -errno;
      for (struct nlmsghdr *nh = (struct nlmsghdr *) buf; NLMSG_OK (nh, (size_t) n); nh = NLMSG_NEXT (nh, n))
        if (nh->nlmsg_seq == seq && nh->nlmsg_type == NLMSG_ERROR)
          {
            const struct nlmsgerr *e = NLMSG_DATA (nh);

            if (nh->nlmsg_len < NLMSG_LENGTH (sizeof *e))
              return -EBADMSG;
            return e->error;
          }
    }
}

static int
add_prohibit (HostGuard *g, int family, const void *dst, unsigned dst_len)
{
  RouteRequest req = {
    .nh = { .nlmsg_len = NLMSG_LENGTH (sizeof (struct rtmsg)),
            .nlmsg_type = RTM_NEWROUTE,
            .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
            .nlmsg_seq = ++g->seq },
    .rt = { .rtm_family = (unsigned char) family,
            .rtm_dst_len = (unsigned char) dst_len,
            .rtm_table = RT_TABLE_MAIN,
            .rtm_protocol = RTPROT_STATIC,
            .rtm_scope = RT_SCOPE_UNIVERSE,
            .rtm_type = RTN_PROHIBIT },
  };
  int r;

  add_attr (&req, RTA_DST, dst, family == AF_INET ? 4 : 16);
  if (send (g->sandbox_fd, &req, req.nh.nlmsg_len, 0) < 0)
    return -errno;
  r = read_ack (g->sandbox_fd, req.nh.nlmsg_seq);
  if (r == -EEXIST) /* the same address twice (dump and event), or local and broadcast */
    return 0;
  return r;
}

/* One message from the host: a route in its local table is kept out.
 * Returns 1 when a dump (request @dump_seq) is complete. */
static int
host_message (HostGuard *g, struct nlmsghdr *nh, uint32_t dump_seq, char *what, size_t what_size)
{
  /* Not const: the kernel's NLMSG_ and RTA_ macros cast it away. */
  struct rtmsg *rt = NLMSG_DATA (nh);
  const void *dst = NULL;
  unsigned table, len;
  int r;

  if (nh->nlmsg_type == NLMSG_DONE)
    return dump_seq != 0 && nh->nlmsg_seq == dump_seq ? 1 : 0;
  if (nh->nlmsg_type == NLMSG_ERROR)
    {
      const struct nlmsgerr *e = NLMSG_DATA (nh);

      if (dump_seq == 0 || nh->nlmsg_seq != dump_seq)
        return 0;
      if (nh->nlmsg_len < NLMSG_LENGTH (sizeof *e))
        return -EBADMSG;
      snprintf (what, what_size, "the host's local routing table");
      return e->error < 0 ? e->error : 1;
    }
  if (nh->nlmsg_type != RTM_NEWROUTE || nh->nlmsg_len < NLMSG_LENGTH (sizeof *rt))
    return 0;
  if (rt->rtm_family != AF_INET && rt->rtm_family != AF_INET6)
    return 0;
  if (rt->rtm_type != RTN_LOCAL && rt->rtm_type != RTN_BROADCAST && rt->rtm_type != RTN_ANYCAST)
    return 0;
  table = rt->rtm_table;
  len = (unsigned) RTM_PAYLOAD (nh);
  for (struct rtattr *a = RTM_RTA (rt); RTA_OK (a, len); a = RTA_NEXT (a, len))
    if (a->rta_type == RTA_TABLE && RTA_PAYLOAD (a) == sizeof (uint32_t))
      memcpy (&table, RTA_DATA (a), sizeof table);
    else if (a->rta_type == RTA_DST && RTA_PAYLOAD (a) == (rt->rtm_family == AF_INET ? 4U : 16U))
      dst = RTA_DATA (a);
  /* Only what the host's kernel delivers to itself.  A local route
   * without a destination would be every address: none exists, and
   * prohibiting it all would be a network outage, not a guard. */
  if (table != RT_TABLE_LOCAL || dst == NULL || rt->rtm_dst_len == 0)
    return 0;
  r = add_prohibit (g, rt->rtm_family, dst, rt->rtm_dst_len);
  if (r < 0)
    describe (rt->rtm_family, dst, rt->rtm_dst_len, what, what_size);
  return r < 0 ? r : 0;
}

/* Read what the host sent.  With @dump_seq, until that dump is done;
 * without, until nothing is left to read. */
static int
host_read (HostGuard *g, uint32_t dump_seq, char *what, size_t what_size)
{
  char buf[32768] __attribute__ ((aligned (__alignof__ (struct nlmsghdr))));

  for (;;)
    {
      struct sockaddr_nl from = { 0 };
      socklen_t from_len = sizeof from;
      ssize_t n;

      n = recvfrom (g->host_fd, buf, sizeof buf, dump_seq != 0 ? 0 : MSG_DONTWAIT, (struct sockaddr *) &from,
                    &from_len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN && dump_seq == 0)
        return 0;
      if (n < 0)
        {
          snprintf (what, what_size, "the host's route changes");
          return -errno; /* ENOBUFS: changes were lost, the caller dumps again */
        }
      if (from.nl_pid != 0) /* only the kernel speaks here */
        continue;
      for (struct nlmsghdr *nh = (struct nlmsghdr *) buf; NLMSG_OK (nh, (size_t) n); nh = NLMSG_NEXT (nh, n))
        {
          int r = host_message (g, nh, dump_seq, what, what_size);

          if (r < 0)
            return r;
          if (r > 0)
            return 0;
        }
    }
}

static int
dump_family (HostGuard *g, int family, char *what, size_t what_size)
{
  RouteRequest req = {
    .nh = { .nlmsg_len = NLMSG_LENGTH (sizeof (struct rtmsg)),
            .nlmsg_type = RTM_GETROUTE,
            .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
            .nlmsg_seq = ++g->seq },
    .rt = { .rtm_family = (unsigned char) family, .rtm_table = RT_TABLE_LOCAL },
  };
  int r;

  if (send (g->host_fd, &req, req.nh.nlmsg_len, 0) < 0)
    {
      snprintf (what, what_size, "the host's local routing table");
      return -errno;
    }
  r = host_read (g, req.nh.nlmsg_seq, what, what_size);
  /* A host without IPv6 has no IPv6 table, and no IPv6 address either. */
  if (family == AF_INET6 && (r == -EAFNOSUPPORT || r == -ENOENT))
    return 0;
  return r;
}

int
host_guard_sync (HostGuard *g, char *what, size_t what_size)
{
  int r = dump_family (g, AF_INET, what, what_size);

  if (r >= 0)
    r = dump_family (g, AF_INET6, what, what_size);
  return r;
}

int
host_route_open (void)
{
  return rtnl_socket (0);
}

int
host_route_type (int fd, uint32_t seq, int family, const void *dst, uint32_t oif, unsigned char *ret_type)
{
  RouteRequest req = {
    .nh = { .nlmsg_len = NLMSG_LENGTH (sizeof (struct rtmsg)),
            .nlmsg_type = RTM_GETROUTE,
            .nlmsg_flags = NLM_F_REQUEST,
            .nlmsg_seq = seq },
    .rt = { .rtm_family = (unsigned char) family, .rtm_dst_len = family == AF_INET ? 32 : 128 },
  };
  /* The engine's uid: a host that routes by uid routes its sockets so. */
  uint32_t uid = (uint32_t) getuid ();
  char buf[8192] __attribute__ ((aligned (__alignof__ (struct nlmsghdr))));

  add_attr (&req, RTA_DST, dst, family == AF_INET ? 4 : 16);
  if (oif != 0)
    add_attr (&req, RTA_OIF, &oif, sizeof oif);
  add_attr (&req, RTA_UID, &uid, sizeof uid);
  if (send (fd, &req, req.nh.nlmsg_len, 0) < 0)
    return -errno;
  for (;;)
    {
      ssize_t n = recv (fd, buf, sizeof buf, 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -errno;
      for (struct nlmsghdr *nh = (struct nlmsghdr *) buf; NLMSG_OK (nh, (size_t) n); nh = NLMSG_NEXT (nh, n))
        {
          if (nh->nlmsg_seq != seq)
            continue; /* an answer to a request given up on */
          if (nh->nlmsg_type == NLMSG_ERROR)
            {
              const struct nlmsgerr *e = NLMSG_DATA (nh);

              if (nh->nlmsg_len < NLMSG_LENGTH (sizeof *e))
                return -EBADMSG;
              return e->error < 0 ? e->error : -EBADMSG;
            }
          if (nh->nlmsg_type == RTM_NEWROUTE && nh->nlmsg_len >= NLMSG_LENGTH (sizeof (struct rtmsg)))
            {
              const struct rtmsg *rt = NLMSG_DATA (nh);

              *ret_type = rt->rtm_type;
              return 0;
            }
        }
    }
}

int
host_guard_event (HostGuard *g, char *what, size_t what_size)
{
  int r = host_read (g, 0, what, what_size);

  if (r == -ENOBUFS)
    r = host_guard_sync (g, what, what_size);
  return r;
}
