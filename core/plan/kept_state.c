/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Resolution of a kept state (state = "persistent"): the state directory,
 * the real home's entries over it, and the closure that leaves out an entry
 * an older session of the user could swap while this one starts.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bind_list.h"
#include "cleanup.h"
#include "errors.h"
#include "ops.h"
#include "path.h"
#include "plan.h"
#include "plan_internal.h"
#include "rules.h"
#include "safeopen.h"

/* The state directory could not be used: the session still gets a
 * writable home, on a tmpfs, and says so. */
static int
state_fallback (BwshPlan *p, BwshMount *m, const char *why)
{
  _cleanup_free_ char *esc = bwsh_escape (m->src, strlen (m->src));
  int r;

  if (esc == NULL)
    return -ENOMEM;
  r = bwsh_diag_add (&p->diag, "state_dir %s: %s; the session's state is a tmpfs this time, gone at logout", esc,
                     why);
  if (r < 0)
    return r;
  if (m->fd >= 0)
    close (m->fd);
  m->fd = -1;
  free (m->src);
  m->src = NULL;
  m->kind = BWSH_MOUNT_TMPFS;
  m->size = p->tmp_tmpfs_size;
  p->state = "tmpfs";
  /* Gone at logout, so a file transfer gets it read-only, as with
   * state = "tmpfs" (bwsh_render_transfer_options()). */
  p->home_read_only = true;
  p->home_epoch = 0;
  return plan_set_reason (m, BWSH_VERDICT_ACCEPTED, "state = \"persistent\", but state_dir cannot be used");
}

int
bwsh_plan_state_to_tmpfs (BwshPlan *p, const char *why)
{
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      BwshMount *m = &p->mounts[i];
      if (m->state && m->kind == BWSH_MOUNT_BIND && m->verdict == BWSH_VERDICT_ACCEPTED && m->src != NULL)
        {
          int r = state_fallback (p, m, why);
          return r < 0 ? r : 1;
        }
    }
  return 0;
}

/* When the real home's entry @fd appeared there, as far as the file system
 * tells: its birth (statx), or its last change where the file system keeps
 * no birth time.  A file renamed into the home keeps its birth time but its
 * change time moves, and a file is what a swap turns into a host name
 * (docs/security.md): for a file the later of the two. */
static int64_t
entry_born (int fd)
{
  struct statx stx;
  int64_t born, changed;

  if (statx (fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_BTIME | STATX_CTIME, &stx) < 0)
    return INT64_MAX; /* unknown: as new as can be */
  changed = (int64_t) stx.stx_ctime.tv_sec * 1000000000 + stx.stx_ctime.tv_nsec;
  if ((stx.stx_mask & STATX_BTIME) == 0)
    return changed;
  born = (int64_t) stx.stx_btime.tv_sec * 1000000000 + stx.stx_btime.tv_nsec;
  return S_ISDIR (stx.stx_mode) || changed < born ? born : changed;
}

/* A real top-level entry that appeared after an older live session of the
 * user started is no mount point in that session, which may swap the kept
 * state's name for a symlink between this check and bwrap's mount, and
 * bwrap would create the file through it, on the host.  Such an entry is
 * not bound in this session; the state's entry shows, with a warning. */
static int
closure_skips (BwshPlan *p, BwshMount *m, bool *ret)
{
  int64_t born;

  *ret = false;
  if (m->kind == BWSH_MOUNT_SYMLINK || m->fd < 0)
    return 0; /* a symlink is no mount point: bwrap makes it with symlink(), which follows nothing */
  if (p->home_oldest == INT64_MAX)
    return 0;
#if BWSH_TEST_BUILD
  /* tests/overlay's control: the swap this closes, shown without it. */
  if (getenv ("BWSH_TEST_NO_HOME_CLOSURE") != NULL)
    return 0;
#endif
  born = entry_born (m->fd);
  /* home_oldest has the clocks' slack taken off already (registry_place.h). */
  if (born < p->home_oldest)
    return 0;
  *ret = true;
  if (born < p->home_epoch)
    p->home_epoch = born;
  close (m->fd);
  m->fd = -1;
  return plan_refuse (p, m, BWSH_VERDICT_SKIPPED, m->dest,
                      "appeared in your home after an older session of yours started, which could swap it while "
                      "this one starts; the kept state's entry shows instead (log out of your older sessions to see "
                      "it)");
}

/* The persistent state directory, resolved and checked again: it must be
 * the user's own directory, writable by nobody else, and still not a place
 * that programs outside the sandbox read once symlinks are followed. */
int
plan_resolve_state (BwshPlan *p, const Rules *rules, BwshMount *m, BwshResolveMode mode, bool *ret_unopened)
{
  _cleanup_free_ char *resolved = NULL;
  const char *why = NULL;
  char buf[BWSH_MESSAGE_MAX + 64];
  struct stat st;

  /* Without the live sessions' epoch the closure cannot decide
   * (plan_check_state_conflict()): not kept this time. */
  if (p->home_oldest == BWSH_HOME_OLDEST_UNKNOWN)
    return state_fallback (p, m, "the session registry cannot be read, so bwsh cannot tell what your other sessions "
                                 "can change");
  if (m->create_dir)
    {
      BwshError e = { 0 };
      bool would_create = false;
      int r = mode == BWSH_RESOLVE_DRY_RUN ? bwsh_mkdir_under_home_dry_run (p->home, m->src, &would_create, &e)
                                           : bwsh_mkdir_under_home (p->home, m->src, &e);
      if (r < 0)
        {
          snprintf (buf, sizeof buf, "%s", e.message);
          return state_fallback (p, m, buf);
        }
      /* Explain and check create nothing: the first login will. */
      if (would_create)
        {
          _cleanup_free_ char *planned = NULL;
          if (plan_dry_run_created (p, m->src, &planned, &e) >= 0 && planned != NULL)
            {
              free (m->src);
              m->src = steal_pointer (&planned);
            }
          *ret_unopened = true;
          return plan_set_reason (m, BWSH_VERDICT_ACCEPTED,
                                  "state = \"persistent\": does not exist yet, a session creates it (0700)");
        }
    }
  resolved = realpath (m->src, NULL);
  if (resolved == NULL)
    {
      snprintf (buf, sizeof buf, "cannot resolve: %s", strerror (errno));
      why = buf;
    }
  else if ((why = bwsh_state_dir_refusal (rules->protected_paths, rules->n_protected, p->home, p->project_dir, resolved))
           != NULL)
    {
      snprintf (buf, sizeof buf, "resolves to %s, which %s", resolved, why);
      why = buf;
    }
  else if (bwsh_open_path_nofollow (resolved, &m->fd) < 0)
    why = "changed while it was checked";
  else if (fstat (m->fd, &st) < 0 || !S_ISDIR (st.st_mode))
    why = "is not a directory";
  else if (st.st_uid != p->uid)
    why = "is not owned by the user";
  else if (bwsh_writable_by_others (&st, p->uid))
    why = "is group- or world-writable";
  if (why != NULL)
    return state_fallback (p, m, why);
  free (m->src);
  m->src = steal_pointer (&resolved);
  return 0;
}

/* Binding an entry of the real home over the persistent state leaves its
 * mount point there (bwrap creates it); one of another kind, or any
 * symlink, would make bwrap fail: the state's entry shows instead. */
int
plan_check_state_conflict (BwshPlan *p, BwshMount *m, int state_fd)
{
  const char *name = strrchr (m->dest, '/') + 1;
  struct stat st, real;
  bool skipped;
  int r;

  if (state_fd < 0)
    return 0;
  r = closure_skips (p, m, &skipped);
  if (r < 0 || skipped)
    return r;
  if (fstatat (state_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return 0;
  if (m->kind == BWSH_MOUNT_RO_BIND && !S_ISLNK (st.st_mode) && fstat (m->fd, &real) == 0
      && S_ISDIR (real.st_mode) == S_ISDIR (st.st_mode))
    return 0;
  /* Left out: this session's state shows the name, and it may change it;
   * later logins must leave the entry out too while this one lives. */
  if (m->fd >= 0)
    {
      int64_t born = entry_born (m->fd);
      if (born < p->home_epoch)
        p->home_epoch = born;
      close (m->fd);
    }
  m->fd = -1;
  if (m->kind == BWSH_MOUNT_SYMLINK && S_ISLNK (st.st_mode))
    {
      char target[PATH_MAX];
      ssize_t n = readlinkat (state_fd, name, target, sizeof target - 1);
      if (n > 0 && (target[n] = '\0', strcmp (target, m->src) == 0))
        return plan_set_reason (m, BWSH_VERDICT_COALESCED, "the persistent state has the same symlink");
    }
  /* It stays until the user moves it: say how, without losing what it
   * holds (a directory of the state may hold the user's work). */
  return plan_refuse (p, m, BWSH_VERDICT_SKIPPED, m->dest,
                      "the persistent state has an entry of another kind with this name, which shows instead "
                      "(move it aside in a session, e.g. to its name with .old added, to see the real one)");
}
