/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bwsh_plan_resolve(): every bind source resolved as the user, checked
 * again against the plan's rules and opened O_PATH|O_NOFOLLOW.
 */
#include "config.h"

#include <errno.h>
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

int
bwsh_plan_check_shell (const BwshPlan *p, BwshError *err)
{
  struct stat st;
  int e = 0;

  /* The host's /usr and /bin are the sandbox's: a shell missing here is
   * missing inside, and bwrap would fail after the login was accepted. */
  if (stat (p->shell, &st) < 0)
    e = errno;
  else if (!S_ISREG (st.st_mode) || access (p->shell, X_OK) < 0)
    e = S_ISREG (st.st_mode) ? errno : EACCES;
  if (e == 0)
    return 0;
  return bwsh_error_set (err, -e, p->shell_file, p->shell_line, 0, "the shell %s cannot be run: %s", p->shell,
                         strerror (e));
}

/* A failure that ends a session.  A dry run (explain, check) keeps going to
 * report every entry, marks this one refused, and returns the first failure
 * at the end. */
static int
fatal (BwshPlan *p, BwshMount *m, BwshResolveMode mode, int r, BwshError *first, BwshError *err)
{
  if (mode != BWSH_RESOLVE_DRY_RUN)
    {
      *first = *err;
      return r;
    }
  if (first->errnum == 0)
    *first = *err;
  if (plan_set_reason (m, BWSH_VERDICT_REFUSED, "%s", err->message) < 0)
    return bwsh_error_set (first, -ENOMEM, NULL, 0, 0, "out of memory");
  p->n_refused++;
  return 0;
}

/* Open each bind's resolved source: bwrap gets the fd, never the path.
 * Parents come first, so a coalesced bind knows whether its parent made it. */
static int
open_sources (BwshPlan *p, const size_t *parent, const bool *unopened, BwshResolveMode mode, BwshError *first)
{
  size_t opened = 0;

  for (size_t i = 0; i < p->n_mounts; i++)
    {
      BwshMount *m = &p->mounts[i];
      BwshError e = { 0 };
      int r;

      if (plan_parent_dropped (p, parent, i))
        {
          r = plan_refuse (p, m, BWSH_VERDICT_REFUSED, m->src, "%s, which showed it, could not be bound",
                           p->mounts[parent[i]].dest);
          if (r < 0)
            return r;
          continue;
        }
      if (m->verdict != BWSH_VERDICT_ACCEPTED || !plan_is_bind (m->kind) || unopened[i])
        continue;
      /* The real home's entries (opened from the home at plan time) and
       * the persistent state (opened when it was checked) have theirs. */
      if (m->fd >= 0)
        {
          opened++;
          continue;
        }
      r = bwsh_open_path_nofollow (m->src, &m->fd);
      if (r == -EMFILE || r == -ENFILE)
        /* Counted above, so only a process that came with its descriptors
         * used up gets here. */
        return bwsh_error_set (first, r, NULL, 0, 0, "out of file descriptors after %zu binds (ulimit -n)",
                               opened);
      if (r < 0 && m->from.origin == BWSH_ORIGIN_DEFAULT && !m->optional)
        {
          r = bwsh_error_set (&e, r, NULL, 0, 0, "cannot open %s: %s", m->src, strerror (-r));
          if ((r = fatal (p, m, mode, r, first, &e)) < 0)
            return r;
          continue;
        }
      if (r < 0)
        {
          r = plan_refuse (p, m, BWSH_VERDICT_REFUSED, m->src, "changed while it was checked (%s)", strerror (-r));
          if (r < 0)
            return r;
          continue;
        }
      /* What the fd names, not what the name named a moment ago: an
       * overlay never binds a socket, FIFO or device node. */
      if (m->from.origin == BWSH_ORIGIN_USER)
        {
          struct stat st;
          const char *why = fstat (m->fd, &st) < 0 ? "cannot be examined" : bwsh_rules_source_type (st.st_mode);
          if (why != NULL)
            {
              close (m->fd);
              m->fd = -1;
              r = plan_refuse (p, m, BWSH_VERDICT_REFUSED, m->src, "%s", why);
              if (r < 0)
                return r;
              continue;
            }
        }
      opened++;
    }
  return 0;
}

/*
 * realpath() reads every element of a path as a possible link: six system
 * calls for ~/data/d1, most of the system time of a session with many
 * binds.  Entries side by side usually share their directory; once that is
 * known to resolve to itself, an entry in it that is not a link resolves to
 * itself too, and one readlink() says so.  Anything else takes the full
 * walk.  The result is checked and then opened with every link refused, as
 * realpath()'s is.
 */
typedef struct
{
  char *dir; /* a directory that resolved to itself, or NULL */
} ResolveMemo;

static char *
resolve_source (const char *src, ResolveMemo *memo)
{
  const char *slash = strrchr (src, '/');
  size_t n = slash != NULL ? (size_t) (slash - src) : 0;
  char *resolved;
  char c;

  if (memo->dir != NULL && n > 0 && strncmp (memo->dir, src, n) == 0 && memo->dir[n] == '\0'
      && readlink (src, &c, 1) < 0 && errno == EINVAL)
    return strdup (src);
  resolved = realpath (src, NULL);
  if (resolved != NULL && n > 0 && strcmp (resolved, src) == 0
      && (memo->dir == NULL || strncmp (memo->dir, src, n) != 0 || memo->dir[n] != '\0'))
    {
      free (memo->dir);
      memo->dir = strndup (src, n); /* NULL: no memo, still correct */
    }
  return resolved;
}

/* The source of @m does not resolve (@e): skipped when optional, refused
 * when the user's; the policy's or a default's is fatal. */
static int
unresolved (BwshPlan *p, BwshMount *m, BwshResolveMode mode, int e, BwshError *first)
{
  BwshError e_mount = { 0 };
  int r;

  if (e == ENOENT && m->optional)
    {
      r = plan_refuse (p, m, BWSH_VERDICT_SKIPPED, m->src, "source does not exist (skipped)");
      return r < 0 ? r : 0;
    }
  if (m->from.origin == BWSH_ORIGIN_USER)
    {
      r = plan_refuse (p, m, BWSH_VERDICT_REFUSED, m->src, "cannot resolve: %s", strerror (e));
      return r < 0 ? r : 0;
    }
  r = bwsh_error_set (&e_mount, -e, NULL, 0, 0, "%s: %s", m->src, strerror (e));
  r = fatal (p, m, mode, r, first, &e_mount);
  return r < 0 ? r : 0;
}

/* The same rules again, on what the source @resolved really names: why it
 * may not be bound, or NULL.  The project directory is a default but lives
 * in the user's home: it is checked too. */
static const char *
objection (const Rules *rules, const BwshPlan *p, const BwshMount *m, const char *resolved)
{
  const char *why = NULL;

  if (m->exact_source)
    ; /* its own place only: resolve_bind() */
  else if (m->from.origin == BWSH_ORIGIN_USER)
    why = plan_merge_source_objection (rules, p->home, resolved, m->kind == BWSH_MOUNT_BIND);
  else if (m->from.origin == BWSH_ORIGIN_DEFAULT && m->kind == BWSH_MOUNT_BIND)
    why = plan_check_path_rules (rules, resolved, true);
  if (why == NULL && m->kind == BWSH_MOUNT_BIND && m->from.origin != BWSH_ORIGIN_POLICY
      && strcmp (resolved, m->dest) != 0)
    for (size_t k = 0; k < rules->n_protected; k++)
      if (bwsh_path_has_prefix (rules->protected_paths[k], resolved))
        why = "contains a protected path and is not bound at its own place";
  return why;
}

/* One accepted bind: its source made (under the home) or resolved, the
 * rules checked again on what it really names, and the resolved path kept
 * for the open.  0, with the mount refused or skipped when it must be; a
 * fatal error is recorded in @first (fatal()); -errno ends the resolution. */
static int
resolve_bind (BwshPlan *p, const Rules *rules, BwshMount *m, BwshResolveMode mode, ResolveMemo *memo,
              bool *ret_unopened, BwshError *first)
{
  _cleanup_free_ char *resolved = NULL;
  BwshError e_mount = { 0 };
  bool planned = false;
  const char *why;
  int r;

  if (m->create_dir && bwsh_path_has_prefix (m->src, p->home))
    {
      if (mode == BWSH_RESOLVE_DRY_RUN)
        r = plan_dry_run_created (p, m->src, &resolved, &e_mount);
      else
        r = bwsh_mkdir_under_home (p->home, m->src, &e_mount);
      /* The editable overlay's directory is a convenience: if it
       * cannot be made (a symlink on the way), it stays read-only, as
       * explain shows; no entry of the user's was refused. */
      if (r < 0 && m->exact_source && r != -ENOMEM)
        {
          r = plan_set_reason (m, BWSH_VERDICT_SKIPPED, "%s (left read-only)", e_mount.message);
          return r < 0 ? r : 0;
        }
      if (r < 0 && (r = fatal (p, m, mode, r, first, &e_mount)) < 0)
        return r;
      if (m->verdict != BWSH_VERDICT_ACCEPTED)
        return 0;
      planned = resolved != NULL;
    }
  if (resolved == NULL)
    resolved = resolve_source (m->src, memo);
  if (resolved == NULL)
    return unresolved (p, m, mode, errno, first);

  /* The overlay's directory is the one protected path left writable:
   * only at its own place, never through a symlink. */
  if (m->exact_source && strcmp (resolved, m->src) != 0)
    {
      r = plan_set_reason (m, BWSH_VERDICT_SKIPPED, "resolves to %s: must not be a symbolic link "
                           "(left read-only)", resolved);
      return r < 0 ? r : 0;
    }
  why = objection (rules, p, m, resolved);
  if (why != NULL && m->from.origin == BWSH_ORIGIN_DEFAULT)
    {
      /* The project directory (or $HOME) was swapped for a symlink:
       * there is no safe plan to fall back to. */
      r = bwsh_error_set (&e_mount, -EPERM, NULL, 0, 0, "%s resolves to %s: %s", m->src, resolved, why);
      r = fatal (p, m, mode, r, first, &e_mount);
      return r < 0 ? r : 0;
    }
  if (why != NULL)
    {
      r = plan_refuse (p, m, BWSH_VERDICT_REFUSED, m->src, "resolves to %s: %s", resolved, why);
      return r < 0 ? r : 0;
    }

  if (planned)
    {
      /* Explain and check create nothing: the first login will. */
      if (strcmp (m->src, p->project_dir) == 0)
        p->project_dir_missing = true;
      r = plan_set_reason (m, BWSH_VERDICT_ACCEPTED, "does not exist yet: a session creates it (0700)");
      if (r < 0)
        return r;
      *ret_unopened = true;
    }
  /* Opened below, once coalescing and the limits have said which
   * binds reach bwrap: the open refuses any symlink on the way, so the
   * checked path is what gets bound. */
  free (m->src);
  m->src = steal_pointer (&resolved);
  return 0;
}

int
bwsh_plan_resolve (BwshPlan *p, BwshResolveMode mode, BwshError *err)
{
  /* The rules for re-checking resolved sources, borrowed from the plan. */
  const Rules rules = plan_rules_of_plan (p);
  BwshError first = { 0 };
  /* parent: see plan_coalesce(); unopened: a dry run's directories to be created */
  _cleanup_free_ size_t *parent = calloc (p->n_mounts + 1, sizeof *parent);
  _cleanup_free_ bool *unopened = calloc (p->n_mounts + 1, sizeof *unopened);
  ResolveMemo memo = { NULL };
  int state_fd = -1;
  int r = 0;

  if (parent == NULL || unopened == NULL)
    {
      r = -ENOMEM;
      goto out;
    }
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      BwshMount *m = &p->mounts[i];

      if (m->verdict != BWSH_VERDICT_ACCEPTED)
        continue;
      /* Sorted parents first: the state comes before the home's entries. */
      if (m->state && m->kind == BWSH_MOUNT_BIND)
        {
          r = plan_resolve_state (p, &rules, m, mode, &unopened[i]);
          if (r < 0)
            goto out;
          state_fd = m->kind == BWSH_MOUNT_BIND ? m->fd : -1;
          continue;
        }
      if (m->home_entry)
        {
          r = plan_check_state_conflict (p, m, state_fd);
          if (r < 0)
            goto out;
          continue;
        }
      if (!plan_is_bind (m->kind))
        continue;

      r = resolve_bind (p, &rules, m, mode, &memo, &unopened[i], &first);
      if (r < 0)
        goto out;
    }

  if ((r = plan_coalesce (p, parent)) < 0 || (r = plan_enforce_mount_limit (p, parent)) < 0
      || (r = plan_reserve_fds (p, parent, &first)) < 0 || (r = open_sources (p, parent, unopened, mode, &first)) < 0
      || (r = plan_prepare_destinations (p, mode)) < 0)
    goto out;

  /* Last, so that a dry run still reports every entry first. */
  if (first.errnum == 0 && bwsh_plan_check_shell (p, &first) < 0)
    {
      r = -first.errnum;
      goto out;
    }
  if (first.errnum != 0)
    {
      r = -first.errnum;
      goto out;
    }
  if (p->strict && p->n_refused > 0)
    {
      r = bwsh_error_set (&first, -EPERM, NULL, 0, 0, "strict policy: %zu configuration entr%s refused",
                          p->n_refused, p->n_refused == 1 ? "y was" : "ies were");
      goto out;
    }
  r = 0;
out:
  if (r == -ENOMEM && first.message[0] == '\0')
    bwsh_error_set (&first, r, NULL, 0, 0, "out of memory");
  if (r < 0 && err != NULL)
    *err = first;
  free (memo.dir);
  return r;
}
