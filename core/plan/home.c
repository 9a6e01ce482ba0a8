/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * $HOME inside: the project directory, the session's state, the real
 * home's entries layered over it, and the user overlay's directory.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bind_list.h"
#include "cleanup.h"
#include "errors.h"
#include "format.h"
#include "ops.h"
#include "path.h"
#include "plan.h"
#include "plan_internal.h"
#include "policy.h"
#include "rules.h"
#include "safeopen.h"
#include "userconf.h"

/* Entries of $HOME that hold a program's own state, written by programs
 * whether or not they honour XDG_*_HOME: inside, the session's state
 * (tmpfs or state_dir) provides them, never the real home, read-only.  The
 * home's top stays writable for them in a session; a file transfer gets it
 * read-only (bwsh_render_transfer_options()).  The one list of them. */
static const char *const state_names[] = {
  ".bash_history", ".cache", ".config",  ".gitconfig", ".lesshst",        ".local",
  ".python_history", ".viminfo", ".wget-hsts", ".npm", ".cargo",       ".selected_editor",
};

int
plan_choose_project_dir (Ctx *c, const BwshUserConfig *uc, char **ret, BwshError *err)
{
  _cleanup_free_ char *def = NULL, *mine = NULL;
  int r;

  r = bwsh_path_expand (c->pol->project_dir, c->id->home, &def);
  if (r < 0 || bwsh_path_is_forbidden (def))
    return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "invalid project directory \"%s\" in the policy",
                           c->pol->project_dir);
  if ((c->p->default_project_dir = strdup (def)) == NULL)
    return -ENOMEM;
  c->p->users_choose_project_dir = bwsh_policy_reads_overlay (c->pol) && c->pol->user_may_choose_project;

  if (uc != NULL && uc->project_dir != NULL)
    {
      _cleanup_free_ char *where = plan_format_from (&uc->project_dir_from);
      const char *why = NULL;
      char buf[BWSH_MESSAGE_MAX];
      BwshError e = { 0 };
      bool would_create = false;

      if (where == NULL)
        return -ENOMEM;
      if (!c->pol->user_may_choose_project)
        why = "the policy does not let users choose the project directory";
      else if (bwsh_path_expand (uc->project_dir, c->id->home, &mine) < 0)
        why = "not a valid absolute path (no \"..\", no control characters)";
      else if (!bwsh_path_has_prefix (mine, c->id->home) || strcmp (mine, c->id->home) == 0)
        why = "the project directory must lie under $HOME";
      else if ((why = plan_check_path_rules (&c->rules, mine, false)) != NULL)
        ;
      else if (bwsh_path_under_any (mine, c->rules.protected_paths, c->rules.n_protected))
        why = "is a protected path and never writable inside the sandbox";
      else if (strstr (mine + strlen (c->id->home), "/.") != NULL)
        why = "the project directory must not be hidden: programs outside the sandbox read what lies under "
              "a name that starts with \".\"";
      else if (bwsh_mkdir_under_home_dry_run (c->id->home, mine, &would_create, &e) < 0)
        {
          /* A FIFO, a socket, a file or a symlink on the way (or at the
           * end) would fail every login at the mkdir: the default instead. */
          snprintf (buf, sizeof buf, "%s", e.message);
          why = buf;
        }
      else if (bwsh_path_depth (mine) > bwsh_path_depth (c->id->home) + 1)
        /* Any directory directly in $HOME can be another session's project,
         * where that session renames what it holds: bwrap, looking a deeper
         * project up by name, would follow a symlink swapped in there or
         * fail the login on a FIFO (docs/design.md, "Mount points nothing
         * can race").  Directly in $HOME, bwrap looks it up on the state's
         * tmpfs, which is its own. */
        why = "must lie directly in $HOME: deeper, another session of yours can swap a directory on the way "
              "while this one starts";

      if (why == NULL)
        {
          c->p->project_dir_chosen = true;
          *ret = steal_pointer (&mine);
          return 0;
        }
      _cleanup_free_ char *esc = bwsh_escape (uc->project_dir, strlen (uc->project_dir));
      if (esc == NULL)
        return -ENOMEM;
      r = bwsh_diag_add (&c->p->diag, "%ssandboxProjectDir %s: %s (using the default)", where, esc, why);
      if (r < 0)
        return r;
      c->p->n_refused++;
    }
  *ret = steal_pointer (&def);
  return 0;
}

/* --------------------------------------------------------------- the home */

/* The policy's state_dir with "%u" replaced by the user name, expanded and
 * checked; NULL in *ret unless the state is persistent. */
int
plan_choose_state_dir (Ctx *c, const char *project, char **ret, BwshError *err)
{
  const BwshPolicy *pol = c->pol;
  _cleanup_free_ char *tmpl = NULL, *dir = NULL;
  const char *why;
  size_t n = 0;

  *ret = NULL;
  if (pol->state_mode != BWSH_STATE_PERSISTENT)
    return 0;
  if (pol->state_dir == NULL)
    return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "state = \"persistent\" needs a state_dir");
  if (strchr (c->id->name, '/') != NULL)
    return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "state_dir: user name %s cannot be a path element",
                           c->id->name);
  tmpl = malloc (strlen (pol->state_dir) * (strlen (c->id->name) + 1) + 1);
  if (tmpl == NULL)
    return -ENOMEM;
  for (const char *q = pol->state_dir; *q != '\0'; q++)
    if (q[0] == '%' && q[1] == 'u')
      {
        memcpy (tmpl + n, c->id->name, strlen (c->id->name));
        n += strlen (c->id->name);
        q++;
      }
    else
      tmpl[n++] = *q;
  tmpl[n] = '\0';
  if (bwsh_path_expand (tmpl, c->id->home, &dir) < 0)
    return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "state_dir \"%s\": not a valid absolute path", pol->state_dir);
  why = bwsh_state_dir_refusal (c->rules.protected_paths, c->rules.n_protected, c->id->home, project, dir);
  if (why != NULL)
    return bwsh_error_set (err, -EPERM, NULL, 0, 0, "state_dir %s: %s", dir, why);
  *ret = steal_pointer (&dir);
  return 0;
}

static bool
is_state_name (const Ctx *c, const char *path)
{
  const char *name = strrchr (path, '/') + 1;

  /* The short list first: most names are no state's (#37). */
  if (!plan_str_in (name, state_names, BWSH_N_ELEMENTS (state_names)))
    return false;
  /* A protected path comes from the real home, unless the state owns it. */
  for (size_t i = 0; i < c->rules.n_protected; i++)
    if (strcmp (path, c->rules.protected_paths[i]) == 0 && !c->protected_state_owned[i])
      return false;
  return true;
}

static int
cmp_str (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

bool
plan_home_lacks (const Ctx *c, const char *path)
{
  const char *home = c->id->home, *rest;
  char first[NAME_MAX + 1];
  const char *key = first;
  size_t len;

  if (!c->home_listed || strcmp (home, "/") == 0 || !bwsh_path_has_prefix (path, home)
      || path[strlen (home)] != '/')
    return false;
  rest = path + strlen (home) + 1;
  len = strcspn (rest, "/");
  if (len == 0 || len > NAME_MAX)
    return false;
  if (c->n_home_names == 0)
    return true; /* an empty home lacks every name (and bsearch() takes no NULL array) */
  memcpy (first, rest, len);
  first[len] = '\0';
  return bsearch (&key, c->home_names, c->n_home_names, sizeof *c->home_names, cmp_str) == NULL;
}

/* The names in the real $HOME, sorted, without "." and "..", at most @max
 * of them plus one (a home with more is not bound entry by entry, and is
 * not read further).  A home that cannot be read gives none: the session
 * step after the plan refuses a missing home with its own message.  1 when
 * every name was read, else 0. */
static int
list_home (const char *home, size_t max, char ***ret, size_t *ret_n)
{
  _cleanup_close_ int fd = -1;
  char **v = NULL;
  size_t n = 0, cap = 0;
  bool complete = false;
  struct dirent *de;
  DIR *d;

  *ret = NULL;
  *ret_n = 0;
  fd = open (home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  d = fdopendir (fd);
  if (d == NULL)
    return 0;
  fd = -1;
  while (n <= max)
    {
      errno = 0;
      if ((de = readdir (d)) == NULL)
        {
          complete = errno == 0;
          break;
        }
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      if (n + 1 >= cap)
        {
          size_t ncap = cap == 0 ? 32 : cap * 2;
          char **nv = realloc (v, ncap * sizeof *nv);
          if (nv == NULL)
            goto oom;
          v = nv;
          cap = ncap;
        }
      if ((v[n] = strdup (de->d_name)) == NULL)
        goto oom;
      n++;
    }
  closedir (d);
  if (n > 0)
    qsort (v, n, sizeof *v, cmp_str);
  *ret = v;
  *ret_n = n;
  return complete ? 1 : 0;
oom:
  closedir (d);
  plan_strv_free (v, n);
  return -ENOMEM;
}

/* One entry of the real home, read-only over the state: a directory or a
 * file by an O_PATH fd opened now, from the home directory, without
 * following a symlink; a symlink as the same symlink.  Sockets, FIFOs and
 * devices stay out, as they do for every bind.  The fd is opened first and
 * everything is decided on what it holds: an O_PATH open opens no device or
 * FIFO, and a symlink opens as itself (issue 27: no fstatat() before). */
static int
add_home_entry (Ctx *c, int home_fd, const char *name)
{
  _cleanup_free_ char *dest = NULL;
  _cleanup_close_ int fd = -1;
  struct stat st;
  ssize_t idx;

  if ((dest = bwsh_concat3 (c->id->home, "/", name)) == NULL)
    return -ENOMEM;
  fd = openat (home_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) < 0)
    return 0;
  if (S_ISLNK (st.st_mode))
    {
      char target[PATH_MAX];
      ssize_t len = readlinkat (fd, "", target, sizeof target - 1);
      if (len <= 0)
        return 0;
      target[len] = '\0';
      idx = plan_add_mount (c, BWSH_MOUNT_SYMLINK, target, dest, &plan_default_source);
      if (idx < 0)
        return (int) idx;
      c->p->mounts[idx].home_entry = true;
      return 0;
    }
  if (!S_ISDIR (st.st_mode) && !S_ISREG (st.st_mode))
    return 0;
  idx = plan_add_mount (c, BWSH_MOUNT_RO_BIND, dest, dest, &plan_default_source);
  if (idx < 0)
    return (int) idx;
  c->p->mounts[idx].home_entry = true;
  c->p->mounts[idx].optional = true;
  c->p->mounts[idx].fd = steal_fd (&fd);
  return 0;
}

/* The directory holding the user overlay, expanded: 1 and *ret set, or 0
 * when the policy's user_config has none. */
static int
overlay_dir_of (const Ctx *c, char **ret)
{
  _cleanup_free_ char *file = NULL;
  char *slash;

  *ret = NULL;
  if (bwsh_path_expand (c->pol->user_config, c->id->home, &file) < 0 || (slash = strrchr (file, '/')) == NULL)
    return 0;
  *ret = strndup (file, (size_t) (slash - file));
  return *ret == NULL ? -ENOMEM : 1;
}

/* Why the overlay's directory @dir may not be made writable in editable
 * mode (it would open more than the overlay), or NULL. */
static const char *
overlay_dir_refusal (const Ctx *c, const char *dir)
{
  if (!bwsh_path_has_prefix (dir, c->id->home) || strcmp (dir, c->id->home) == 0)
    return "is not a directory below $HOME";
  if (bwsh_rules_overlaps_protected (dir, c->rules.protected_paths, c->rules.n_protected, dir) != NULL)
    return "lies inside or around another protected path";
  return NULL;
}

/* The session's state over the home: the kept directory, or a tmpfs. */
static int
add_state (Ctx *c, const char *state_dir)
{
  const char *home = c->id->home;
  ssize_t idx;
  int r;

  if (state_dir != NULL)
    {
      idx = plan_add_mount (c, BWSH_MOUNT_BIND, state_dir, home, &plan_default_source);
      if (idx < 0)
        return (int) idx;
      c->p->mounts[idx].create_dir = bwsh_path_has_prefix (state_dir, home);
      r = plan_set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED, "state = \"persistent\": the session's own state");
    }
  else
    {
      idx = plan_add_mount (c, BWSH_MOUNT_TMPFS, NULL, home, &plan_default_source);
      if (idx < 0)
        return (int) idx;
      c->p->mounts[idx].size = c->pol->tmp_tmpfs_size;
      r = plan_set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED,
                           "state = \"tmpfs\": the session's own state, gone at logout (read-only for a file transfer)");
      c->p->home_read_only = true;
    }
  if (r < 0)
    return r;
  c->p->mounts[idx].state = true;
  return 0;
}

/* Protected paths below a name the state provides, still the real ones. */
static int
add_protected_under_state (Ctx *c, const char *project)
{
  const BwshPolicy *pol = c->pol;
  const char *home = c->id->home;
  _cleanup_free_ char *overlay_dir = NULL;
  ssize_t idx;
  int r;

  /* A protected path below a name the state provides is still the real
   * one, read-only, when it exists.  The overlay's directory only in
   * readonly mode (or when editable mode cannot make it writable):
   * plan_add_overlay_dir() binds it read-write in editable mode, and off mode
   * does not show it.  That choice never depends on whether the directory
   * exists yet, which the first login changes: pam_bwsh's plan and bwsh's
   * must be the same. */
  if ((r = overlay_dir_of (c, &overlay_dir)) > 0)
    {
      r = 0;
      if (bwsh_policy_reads_overlay (pol)
          && (pol->user_config_mode == BWSH_USER_CONFIG_READONLY || overlay_dir_refusal (c, overlay_dir) != NULL))
        {
          free (overlay_dir);
          overlay_dir = NULL;
        }
    }
  for (size_t i = 0; i < c->rules.n_protected && r >= 0; i++)
    {
      const char *q = c->rules.protected_paths[i];
      _cleanup_free_ char *top = NULL;
      struct stat st;

      if (!bwsh_path_has_prefix (q, home) || strcmp (q, home) == 0 || bwsh_path_has_prefix (q, project)
          || (overlay_dir != NULL && strcmp (q, overlay_dir) == 0) || c->protected_state_owned[i])
        continue;
      top = strdup (q);
      if (top == NULL)
        {
          r = -ENOMEM;
          break;
        }
      char *slash = strchr (top + strlen (home) + 1, '/');
      if (slash == NULL)
        continue; /* top-level: an entry of its own above */
      *slash = '\0';
      if (!is_state_name (c, top) || lstat (q, &st) < 0)
        continue;
      if ((idx = plan_add_mount (c, BWSH_MOUNT_RO_BIND, q, q, &plan_default_source)) < 0)
        r = (int) idx;
      else
        {
          c->p->mounts[idx].optional = true;
          r = plan_set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED, "protected path, from the real home");
        }
    }
  return r;
}

/* $HOME inside: the session's state (a tmpfs, or the policy's state_dir)
 * with every entry of the real home bound read-only over it, except the
 * names that hold a program's own state; then the project directory
 * read-write.  Programs write history, caches and dotfiles where they
 * always do, and none of it reaches the real home.  A kernel with
 * overlayfs in user namespaces and bwrap >= 0.9 could do this with
 * --overlay, but Debian 12's bwrap 0.8 cannot. */
int
plan_add_home (Ctx *c, const char *project, const char *state_dir)
{
  const BwshPolicy *pol = c->pol;
  const char *home = c->id->home;
  char **names = NULL;
  size_t n_names = 0;
  _cleanup_close_ int home_fd = -1;
  ssize_t idx;
  int r = 0;

  c->p->state = pol->state_mode == BWSH_STATE_NONE ? "none" : state_dir != NULL ? "persistent" : "tmpfs";
  if (state_dir != NULL)
    {
      /* What appears in the real home after this listing is not bound in
       * this session: later logins must know (plan.h, home_epoch). */
      struct timespec now;
      if (clock_gettime (CLOCK_REALTIME, &now) == 0)
        c->p->home_epoch = (int64_t) now.tv_sec * 1000000000 + now.tv_nsec;
    }
  if (pol->state_mode != BWSH_STATE_NONE)
    {
      r = list_home (home, pol->max_mounts, &names, &n_names);
      if (r < 0)
        return r;
      c->home_listed = r > 0;
      r = 0;
      /* Every entry is a bind, and bwrap's cost grows with each one. */
      if (c->p->n_mounts + n_names + 2 > pol->max_mounts)
        {
          r = bwsh_diag_add (&c->p->diag,
                             "%s: more entries than max_mounts lets bwsh bind one by one; "
                             "the home is read-only and the shell's state is not writable this session",
                             home);
          if (r < 0)
            goto out;
          c->p->state = "none";
        }
    }
  if (strcmp (c->p->state, "none") == 0)
    {
      if ((idx = plan_add_mount (c, BWSH_MOUNT_RO_BIND, home, home, &plan_default_source)) < 0)
        r = (int) idx;
      goto project;
    }

  r = add_state (c, state_dir);
  if (r < 0)
    goto out;

  home_fd = open (home, O_PATH | O_DIRECTORY | O_CLOEXEC);
  for (size_t i = 0; home_fd >= 0 && i < n_names && r >= 0; i++)
    {
      _cleanup_free_ char *path = NULL;
      if ((path = bwsh_concat3 (home, "/", names[i])) == NULL)
        r = -ENOMEM;
      else if (strcmp (path, project) != 0 && !is_state_name (c, path))
        r = add_home_entry (c, home_fd, names[i]);
    }
  if (r < 0)
    goto out;

  r = add_protected_under_state (c, project);
  if (r < 0)
    goto out;

project:
  if (r >= 0 && (idx = plan_add_mount (c, BWSH_MOUNT_BIND, project, project, &plan_default_source)) < 0)
    r = (int) idx;
  else if (r >= 0)
    c->p->mounts[idx].create_dir = true; /* a first login creates it (as the user, before resolution) */
out:
  /* Kept for plan_add_protected(), which need not look for a protected path
   * whose first element the home does not hold. */
  c->home_names = names;
  c->n_home_names = n_names;
  return r;
}

/* user_config_mode = "editable": the overlay's directory is bound
 * read-write onto itself, so the user edits the file from inside and the
 * next login reads it.  Safe because nothing the overlay selects lies
 * outside the policy's ceilings (docs/security.md).  Refused, with a
 * warning, where that directory would open more than the overlay: outside
 * $HOME, or inside or around another protected path. */
int
plan_add_overlay_dir (Ctx *c)
{
  _cleanup_free_ char *dir = NULL;
  const BwshSource from = { .origin = BWSH_ORIGIN_POLICY };
  const char *why = NULL;
  ssize_t idx;
  int r;

  if (!bwsh_policy_reads_overlay (c->pol) || c->pol->user_config_mode != BWSH_USER_CONFIG_EDITABLE)
    return 0;
  r = overlay_dir_of (c, &dir);
  if (r <= 0)
    return r;
  why = overlay_dir_refusal (c, dir);
  if (why != NULL)
    {
      _cleanup_free_ char *esc = bwsh_escape (dir, strlen (dir));
      if (esc == NULL)
        return -ENOMEM;
      return bwsh_diag_add (&c->p->diag, "%s: user_config_mode = \"editable\": the overlay's directory %s; "
                            "it stays read-only", esc, why);
    }
  FOREACH_DEST (c, dir, i)
    {
      if (c->p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED)
        return 0; /* the policy binds it already */
    }
  idx = plan_add_mount (c, BWSH_MOUNT_BIND, dir, dir, &from);
  if (idx < 0)
    return (int) idx;
  c->p->mounts[idx].create_dir = true;
  c->p->mounts[idx].exact_source = true;
  c->overlay_dir = steal_pointer (&dir);
  return plan_set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED,
                          "user_config_mode = \"editable\": the overlay, writable; read at the next login");
}
