/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Landlock for the session (#9): IPC scoping (abstract unix sockets,
 * signals) and TCP port rules, applied to bwsh itself right before it execs
 * bwrap, so they hold for bwrap and everything it starts.  No filesystem
 * rights are handled: bwrap's mount namespace already decides what exists.
 *
 * The kernel tells its Landlock ABI; each feature needs a minimum one.  In
 * best_effort mode what the kernel lacks is left out and named in the report;
 * in required mode a missing feature fails the session.
 *
 * The network helper's engine (slirp4netns) is confined by a filesystem
 * ruleset built here too (bwsh_landlock_fs_ruleset()): one place that
 * speaks Landlock's UAPI.
 */
/* syscall() */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bind_list.h"
#include "cleanup.h"
#include "errors.h"
#include "landlock.h"
#include "plan.h"
#include "policy.h"

/* Debian 12's <linux/landlock.h> stops at ABI 2: the net (ABI 4) and scope
 * (ABI 6) parts of the UAPI are spelled out here, with the kernel's values. */
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#define RULE_NET_PORT 2 /* LANDLOCK_RULE_NET_PORT, an enum value in newer headers */

#define ABI_TCP 4
#define ABI_SCOPE 6

/* struct landlock_ruleset_attr as of ABI 6.  An older kernel accepts the
 * larger size as long as the fields it does not know are zero, and ours are
 * whenever that kernel lacks them. */
typedef struct
{
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
} RulesetAttr;

/* struct landlock_net_port_attr (ABI 4). */
typedef struct
{
  uint64_t allowed_access;
  uint64_t port;
} NetPortAttr;

typedef struct
{
  uint64_t handled_net;
  uint64_t scoped;
  char missing[sizeof ((BwshLandlockReport *) 0)->missing];
  bool required;
} Request;

static int
kernel_abi (void)
{
  long abi;

  abi = syscall (SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 0)
    abi = 0; /* ENOSYS: not built in; EOPNOTSUPP: not enabled at boot */

#if BWSH_TEST_BUILD
  /* Test builds only: pretend an older kernel.  It can only lower the ABI,
   * never claim features the kernel does not have. */
  {
    const char *s = getenv ("BWSH_TEST_LANDLOCK_ABI");
    char *end = NULL;
    long v;

    if (s != NULL && *s >= '0' && *s <= '9')
      {
        errno = 0;
        v = strtol (s, &end, 10);
        if (errno == 0 && *end == '\0' && v < abi)
          abi = v;
      }
  }
#endif

  return abi > INT_MAX ? INT_MAX : (int) abi;
}

static int
parse_port (const char *s, uint64_t *ret_port)
{
  long v;

  if (bwsh_parse_decimal (s, 1, 65535, &v) < 0)
    return -EINVAL;
  *ret_port = (uint64_t) v;
  return 0;
}

static int
check_ports (const BwshBindList *l, const char *key, BwshError *err)
{
  uint64_t port;

  for (size_t i = 0; i < l->n; i++)
    if (parse_port (l->items[i].src, &port) < 0)
      return bwsh_error_set (err, -EINVAL, l->items[i].from.file, l->items[i].from.line,
                             l->items[i].from.column,
                             "landlock: %s: \"%s\" is not a port number (1-65535)", key,
                             l->items[i].src);
  return 0;
}

static void
note_missing (Request *req, const char *what, int needed)
{
  size_t len = strlen (req->missing);

  snprintf (req->missing + len, sizeof req->missing - len, "%s%s (needs ABI %d)",
            len > 0 ? ", " : "", what, needed);
}

/* Decide what the plan asks for and what @abi lets us apply. */
static int
plan_request (const BwshLandlockRequest *ask, int abi, Request *req, BwshError *err)
{
  int r;

  *req = (Request) { 0 };
  if (ask == NULL || ask->mode == BWSH_LANDLOCK_OFF)
    return 0;
  req->required = ask->mode == BWSH_LANDLOCK_REQUIRED;

  if (ask->tcp_connect_set)
    {
      r = check_ports (&ask->tcp_connect, "tcp_connect", err);
      if (r < 0)
        return r;
    }
  if (ask->tcp_bind_set)
    {
      r = check_ports (&ask->tcp_bind, "tcp_bind", err);
      if (r < 0)
        return r;
    }

  if (ask->scope_abstract_unix)
    {
      if (abi >= ABI_SCOPE)
        req->scoped |= LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
      else
        note_missing (req, "scope_abstract_unix", ABI_SCOPE);
    }
  if (ask->scope_signal)
    {
      if (abi >= ABI_SCOPE)
        req->scoped |= LANDLOCK_SCOPE_SIGNAL;
      else
        note_missing (req, "scope_signal", ABI_SCOPE);
    }
  if (ask->tcp_connect_set)
    {
      if (abi >= ABI_TCP)
        req->handled_net |= LANDLOCK_ACCESS_NET_CONNECT_TCP;
      else
        note_missing (req, "tcp_connect", ABI_TCP);
    }
  if (ask->tcp_bind_set)
    {
      if (abi >= ABI_TCP)
        req->handled_net |= LANDLOCK_ACCESS_NET_BIND_TCP;
      else
        note_missing (req, "tcp_bind", ABI_TCP);
    }

  if (req->required && req->missing[0] != '\0' && ask->for_shared_network)
    {
      char have[64];

      if (abi == 0)
        snprintf (have, sizeof have, "Landlock is not available in this kernel");
      else
        snprintf (have, sizeof have, "the kernel only has Landlock ABI %d", abi);
      return bwsh_error_set (err, -EOPNOTSUPP, NULL, 0, 0,
                             "landlock: network = \"shared\" requires %s, but %s; use network = \"private\", "
                             "or write landlock.mode = \"best_effort\" in the policy to accept the shared "
                             "network without it",
                             req->missing, have);
    }
  if (req->required && req->missing[0] != '\0')
    {
      if (abi == 0)
        return bwsh_error_set (err, -EOPNOTSUPP, NULL, 0, 0,
                               "landlock: the policy requires %s, but Landlock is not "
                               "available in this kernel",
                               req->missing);
      return bwsh_error_set (err, -EOPNOTSUPP, NULL, 0, 0,
                             "landlock: the policy requires %s, but the kernel only has "
                             "Landlock ABI %d",
                             req->missing, abi);
    }
  return 0;
}

static void
fill_report (BwshLandlockReport *rep, int abi, const Request *req)
{
  if (rep == NULL)
    return;
  *rep = (BwshLandlockReport) { 0 };
  rep->abi = abi;
  rep->scoped_abstract = (req->scoped & LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET) != 0;
  rep->scoped_signal = (req->scoped & LANDLOCK_SCOPE_SIGNAL) != 0;
  rep->tcp_connect = (req->handled_net & LANDLOCK_ACCESS_NET_CONNECT_TCP) != 0;
  rep->tcp_bind = (req->handled_net & LANDLOCK_ACCESS_NET_BIND_TCP) != 0;
  snprintf (rep->missing, sizeof rep->missing, "%s", req->missing);
}

int
bwsh_landlock_probe (const BwshLandlockRequest *ask, BwshLandlockReport *ret_report)
{
  Request req;
  int abi = kernel_abi ();
  int r;

  /* Required-but-missing is still a report here, not a failure: explain
   * and doctor show it; only a malformed port fails. */
  r = plan_request (ask, abi, &req, NULL);
  if (r < 0 && r != -EOPNOTSUPP)
    return r;
  fill_report (ret_report, abi, &req);
  return 0;
}

static int
add_port_rules (int ruleset_fd, const BwshBindList *l, uint64_t access, const char *key,
                BwshError *err)
{
  for (size_t i = 0; i < l->n; i++)
    {
      NetPortAttr attr = { .allowed_access = access };
      int r;

      r = parse_port (l->items[i].src, &attr.port);
      if (r < 0)
        return bwsh_error_set (err, r, NULL, 0, 0, "landlock: %s: bad port \"%s\"", key,
                               l->items[i].src);
      if (syscall (SYS_landlock_add_rule, ruleset_fd, RULE_NET_PORT, &attr, 0) < 0)
        {
          r = -errno;
          return bwsh_error_set (err, r, NULL, 0, 0, "landlock: allowing %s port %s: %s", key,
                                 l->items[i].src, strerror (-r));
        }
    }
  return 0;
}

int
bwsh_landlock_ruleset (const BwshLandlockRequest *ask, int *ret_fd, BwshLandlockReport *ret_report, BwshError *err)
{
  _cleanup_close_ int ruleset_fd = -1;
  RulesetAttr attr = { 0 };
  Request req;
  int abi = kernel_abi ();
  long fd;
  int r;

  *ret_fd = -1;
  r = plan_request (ask, abi, &req, err);
  if (r < 0)
    return r;

  if (req.handled_net == 0 && req.scoped == 0)
    {
      /* Nothing asked for, or nothing this kernel can do (best effort). */
      fill_report (ret_report, abi, &req);
      return 0;
    }

  attr.handled_access_net = req.handled_net;
  attr.scoped = req.scoped;
  fd = syscall (SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (fd < 0)
    {
      r = -errno;
      return bwsh_error_set (err, r, NULL, 0, 0, "landlock: creating the ruleset: %s",
                             strerror (-r));
    }
  ruleset_fd = (int) fd;

  /* With a TCP right handled and no rule, every port is refused: an empty
   * but set list means "no TCP connect" (or bind) at all. */
  if (req.handled_net & LANDLOCK_ACCESS_NET_CONNECT_TCP)
    {
      r = add_port_rules (ruleset_fd, &ask->tcp_connect, LANDLOCK_ACCESS_NET_CONNECT_TCP,
                          "tcp_connect", err);
      if (r < 0)
        return r;
    }
  if (req.handled_net & LANDLOCK_ACCESS_NET_BIND_TCP)
    {
      r = add_port_rules (ruleset_fd, &ask->tcp_bind, LANDLOCK_ACCESS_NET_BIND_TCP, "tcp_bind",
                          err);
      if (r < 0)
        return r;
    }

  fill_report (ret_report, abi, &req);
  *ret_fd = steal_fd (&ruleset_fd);
  return 0;
}

int
bwsh_landlock_restrict (int ruleset_fd, BwshError *err)
{
  int r;

  /* landlock_restrict_self() needs it unless we hold CAP_SYS_ADMIN, and
   * bwsh wants it anyway: nothing inside may gain privileges by exec. */
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    {
      r = -errno;
      return bwsh_error_set (err, r, NULL, 0, 0, "landlock: PR_SET_NO_NEW_PRIVS: %s",
                             strerror (-r));
    }

  if (syscall (SYS_landlock_restrict_self, ruleset_fd, 0) < 0)
    {
      r = -errno;
      return bwsh_error_set (err, r, NULL, 0, 0, "landlock: restricting the session: %s",
                             strerror (-r));
    }
  return 0;
}

int
bwsh_landlock_apply (const BwshLandlockRequest *ask, BwshLandlockReport *ret_report, BwshError *err)
{
  _cleanup_close_ int fd = -1;
  int r = bwsh_landlock_ruleset (ask, &fd, ret_report, err);

  if (r < 0 || fd < 0)
    return r;
  return bwsh_landlock_restrict (fd, err);
}

static int
allow_path (int ruleset_fd, const BwshLandlockPath *p, uint64_t handled, BwshError *err)
{
  struct landlock_path_beneath_attr rule = { .allowed_access = p->access & handled };
  _cleanup_close_ int fd = open (p->path, O_PATH | O_CLOEXEC);
  int r;

  if (fd < 0 && errno == ENOENT)
    return 0; /* no /lib64 here: nothing to allow */
  if (fd < 0)
    {
      r = -errno;
      return bwsh_error_set (err, r, NULL, 0, 0, "landlock: %s: %s", p->path, strerror (-r));
    }
  rule.parent_fd = fd;
  if (syscall (SYS_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0)
    {
      r = -errno;
      return bwsh_error_set (err, r, NULL, 0, 0, "landlock: allowing %s: %s", p->path, strerror (-r));
    }
  return 0;
}

int
bwsh_landlock_fs_ruleset (const BwshLandlockPath *paths, size_t n_paths, int *ret_fd, BwshError *err)
{
  RulesetAttr attr = { 0 };
  _cleanup_close_ int ruleset_fd = -1;
  long abi, fd;
  int r;

  *ret_fd = -1;
  /* The kernel's own answer, not kernel_abi()'s: a test build that
   * pretends an older kernel for the session still confines the engine. */
  abi = syscall (SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 0)
    {
      r = -errno;
      return bwsh_error_set (err, r, NULL, 0, 0, "landlock: %s", strerror (-r));
    }
  attr.handled_access_fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1: every right */
  if (abi >= 2)
    attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
  if (abi >= 3)
    attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
  if (abi >= 5)
    attr.handled_access_fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
#endif
  /* The filesystem part only (handled_access_fs is the ABI 1 struct's
   * first field). */
  fd = syscall (SYS_landlock_create_ruleset, &attr, sizeof attr.handled_access_fs, 0);
  if (fd < 0)
    {
      r = -errno;
      return bwsh_error_set (err, r, NULL, 0, 0, "landlock: creating the ruleset: %s", strerror (-r));
    }
  ruleset_fd = (int) fd;
  for (size_t i = 0; i < n_paths; i++)
    {
      r = allow_path (ruleset_fd, &paths[i], attr.handled_access_fs, err);
      if (r < 0)
        return r;
    }
  *ret_fd = steal_fd (&ruleset_fd);
  return 0;
}
