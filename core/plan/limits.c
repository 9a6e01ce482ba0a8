/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Resolution, what reaches bwrap: binds coalesced into their parents,
 * max_mounts, and the file descriptors every bind needs.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bind_list.h"
#include "cleanup.h"
#include "errors.h"
#include "ops.h"
#include "path.h"
#include "plan.h"
#include "plan_internal.h"

bool
plan_is_bind (BwshMountKind k)
{
  return k == BWSH_MOUNT_RO_BIND || k == BWSH_MOUNT_BIND || k == BWSH_MOUNT_DEV_BIND;
}

/* Whether @q (a bind over a parent of @m's destination) already shows what
 * @m would bind: same kind, and @m's source lies at the same offset below
 * @q's source as its destination does below @q's destination. */
static bool
shows_same (const BwshMount *q, const BwshMount *m)
{
  if (q->kind != m->kind || q->src == NULL || !bwsh_path_has_prefix (m->src, q->src))
    return false;
  const char *dtail = m->dest + (strcmp (q->dest, "/") == 0 ? 0 : strlen (q->dest));
  const char *stail = m->src + (strcmp (q->src, "/") == 0 ? 0 : strlen (q->src));
  return strcmp (dtail, stail) == 0;
}

/* Drop a bind that an accepted parent bind of the same kind already shows
 * identically: bwrap's cost grows with every mount.  The mounts are in
 * depth order, so the deepest earlier mount covering a destination is the
 * last one entered for the nearest of its parents.  @ret_parent[i] is the
 * bind that now shows mount i, or NO_PARENT. */
int
plan_coalesce (BwshPlan *p, size_t *ret_parent)
{
  DestTable map = { 0 };
  int r = 0;

  for (size_t i = 0; i < p->n_mounts && r >= 0; i++)
    {
      BwshMount *m = &p->mounts[i];

      ret_parent[i] = NO_PARENT;
      if (m->verdict != BWSH_VERDICT_ACCEPTED)
        continue;
      if (plan_is_bind (m->kind) && m->from.origin != BWSH_ORIGIN_POLICY)
        {
          size_t q = plan_dest_table_cover (&map, p->mounts, m->dest);
          if (q != NO_PARENT && shows_same (&p->mounts[q], m))
            {
              r = plan_set_reason (m, BWSH_VERDICT_COALESCED, "already visible through the bind of %s",
                                   p->mounts[q].dest);
              ret_parent[i] = q;
              continue;
            }
        }
      r = plan_dest_table_set (&map, p->mounts, i);
    }
  plan_dest_table_clear (&map);
  return r;
}

/* A coalesced bind was left to its parent: if the parent does not reach
 * bwrap after all, neither does it. */
bool
plan_parent_dropped (const BwshPlan *p, const size_t *parent, size_t i)
{
  return p->mounts[i].verdict == BWSH_VERDICT_COALESCED && parent[i] != NO_PARENT
         && p->mounts[parent[i]].verdict != BWSH_VERDICT_ACCEPTED;
}

/* max_mounts counts what reaches bwrap: after resolution and coalescing, so
 * that entries bwrap never sees cost nothing and warn about nothing.  The
 * defaults and the policy's own binds are never cut. */
int
plan_enforce_mount_limit (BwshPlan *p, const size_t *parent)
{
  size_t accepted = 0;

  for (size_t i = 0; i < p->n_mounts; i++)
    accepted += p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED && p->mounts[i].from.origin != BWSH_ORIGIN_USER;
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      BwshMount *m = &p->mounts[i];
      bool orphan = plan_parent_dropped (p, parent, i);

      if (!orphan && (m->verdict != BWSH_VERDICT_ACCEPTED || m->from.origin != BWSH_ORIGIN_USER))
        continue;
      if (!orphan && ++accepted <= p->max_mounts)
        continue;
      int r = plan_refuse (p, m, BWSH_VERDICT_REFUSED, m->dest, "the policy's limit of %u mounts is reached",
                           p->max_mounts);
      if (r < 0)
        return r;
    }
  return 0;
}

/* Descriptors kept free for what follows the binds: the seccomp and --args
 * memfds, syslog, the journal, libc and NSS. */
#define FD_RESERVE 16

static size_t
count_open_fds (void)
{
  _cleanup_close_ int dfd = open ("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  char buf[4096];
  size_t n = 0;
  ssize_t len;

  if (dfd < 0)
    return FD_RESERVE; /* a guess; a real shortage still fails with EMFILE */
  while ((len = syscall (SYS_getdents64, dfd, buf, sizeof buf)) > 0)
    for (ssize_t o = 0; o < len;)
      {
        const struct dirent64 *e = (const struct dirent64 *) (buf + o);
        n += e->d_name[0] != '.';
        o += e->d_reclen;
      }
  return n > 0 ? n - 1 : 0; /* not dfd itself */
}

static size_t
count_fd_binds (const BwshPlan *p, bool user_only)
{
  size_t n = 0;

  for (size_t i = 0; i < p->n_mounts; i++)
    n += p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED && plan_is_bind (p->mounts[i].kind)
         && (!user_only || p->mounts[i].from.origin == BWSH_ORIGIN_USER);
  return n;
}

/*
 * Every bind reaches bwrap as an O_PATH fd, held from here to the exec.
 * Count them up front rather than fail bind by bind: the soft
 * RLIMIT_NOFILE is raised as far as the hard one allows (any process may do
 * that; the session inherits it, unless the policy sets rlimits.nofile); if
 * that is still too few, the user's last binds are left out with one
 * warning (degraded, like max_mounts: an overlay cannot lock its owner out,
 * and a strict policy refuses), and a plan whose defaults and policy binds
 * alone do not fit is refused.  bwsh and pam_bwsh both come here.
 */
int
plan_reserve_fds (BwshPlan *p, const size_t *parent, BwshError *err)
{
  size_t need = count_fd_binds (p, false), in_use, avail, drop;
  struct rlimit rl;

  if (getrlimit (RLIMIT_NOFILE, &rl) < 0)
    return 0;
  /* The common case costs no syscall more: far below the soft limit. */
  if (rl.rlim_cur == RLIM_INFINITY || need * 2 + 4 * FD_RESERVE <= rl.rlim_cur)
    return 0;
  in_use = count_open_fds ();
  if (in_use + need + FD_RESERVE > rl.rlim_cur && rl.rlim_cur < rl.rlim_max)
    {
      struct rlimit raised = { .rlim_max = rl.rlim_max };
      raised.rlim_cur = in_use + need + FD_RESERVE;
      if (rl.rlim_max != RLIM_INFINITY && raised.rlim_cur > rl.rlim_max)
        raised.rlim_cur = rl.rlim_max;
      if (setrlimit (RLIMIT_NOFILE, &raised) == 0)
        rl.rlim_cur = raised.rlim_cur;
    }
  avail = rl.rlim_cur > in_use + FD_RESERVE ? rl.rlim_cur - in_use - FD_RESERVE : 0;
  if (need <= avail)
    return 0;
  if (need - count_fd_binds (p, true) > avail)
    return bwsh_error_set (err, -EMFILE, NULL, 0, 0,
                           "the sandbox needs %zu open files for its binds, the open file limit "
                           "(ulimit -n, hard %llu) leaves %zu",
                           need, (unsigned long long) rl.rlim_max, avail);

  /* The last user binds go, as with max_mounts; then what they covered. */
  drop = need - avail;
  for (size_t i = p->n_mounts; i-- > 0 && drop > 0;)
    {
      BwshMount *m = &p->mounts[i];
      if (m->verdict != BWSH_VERDICT_ACCEPTED || !plan_is_bind (m->kind) || m->from.origin != BWSH_ORIGIN_USER)
        continue;
      if (plan_set_reason (m, BWSH_VERDICT_REFUSED, "left out: no file descriptor for it under the open file limit") < 0)
        return -ENOMEM;
      p->n_refused++;
      drop--;
    }
  for (size_t i = 0; i < p->n_mounts; i++)
    if (plan_parent_dropped (p, parent, i))
      {
        if (plan_set_reason (&p->mounts[i], BWSH_VERDICT_REFUSED,
                             "left out: no file descriptor for it under the open file limit") < 0)
          return -ENOMEM;
        p->n_refused++;
      }
  return bwsh_diag_add (&p->diag,
                        "%zu of the user's binds left out: the open file limit (ulimit -n, hard %llu) leaves "
                        "file descriptors for %zu binds",
                        need - avail, (unsigned long long) rl.rlim_max, avail);
}
