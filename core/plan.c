/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plan: identity x policy x user overlay -> a mount table with verdicts.
 *
 * bwsh_plan_build() decides from the inputs alone (plus two lstat()s of the
 * host layout), so it can be tested and explained without root.  Then
 * bwsh_plan_resolve() runs as the user, resolves every bind source, checks
 * the resolved path against the same rules and opens it O_PATH|O_NOFOLLOW:
 * bwrap gets the fd, never a path that could be swapped after the check.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bwsh.h"
#include "cleanup.h"

/* Destinations the user can never disable or mount over: without them the
 * sandbox either does not start or stops being one (the seed let users
 * disable /usr and /etc, and the shell then ran from whatever was left). */
static const char *const critical_dests[] = { "/", "/dev", "/proc", "/usr", "/etc" };

/* Destinations the user cannot disable, though the policy may bind over
 * them: programs expect a writable /tmp and /var/tmp (the seed accepted
 * "disabledDefaultBinds": ["/tmp"] and left no /tmp at all). */
static const char *const always_locked[] = { "/tmp", "/var/tmp" };

/* Entries of $HOME that hold a program's own state, written by programs
 * whether or not they honour XDG_*_HOME: inside, the session's state
 * (tmpfs or state_dir) provides them, never the real home, read-only. */
static const char *const state_names[] = {
  ".bash_history", ".cache",   ".config",  ".gitconfig", ".lesshst", ".local",
  ".python_history", ".viminfo", ".wget-hsts", ".npm",    ".cargo",   ".selected_editor",
};

/* Variables passed through from the caller's environment. */
static const char *const env_allow_default[] = {
  "TERM", "LANG", "LC_*", "TZ", "COLORTERM", "SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY",
};

static void
strv_free (char **v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (v[i]);
  free (v);
}

static void
mount_clear (BwshMount *m)
{
  free (m->src);
  free (m->dest);
  free (m->reason);
  free (m->from.file);
  if (m->fd >= 0)
    close (m->fd);
}

BwshPlan *
bwsh_plan_free (BwshPlan *p)
{
  if (p == NULL)
    return NULL;
  for (size_t i = 0; i < p->n_mounts; i++)
    mount_clear (&p->mounts[i]);
  free (p->mounts);
  for (size_t i = 0; i < p->n_env; i++)
    free (p->env[i]);
  free (p->env);
  free (p->chdir);
  free (p->hostname);
  free (p->shell);
  free (p->home);
  free (p->project_dir);
  bwsh_landlock_request_clear (&p->landlock);
  strv_free (p->rw_ceilings, p->n_rw_ceilings);
  strv_free (p->ro_ceilings, p->n_ro_ceilings);
  strv_free (p->protected_paths, p->n_protected);
  strv_free (p->policy_dirs, p->n_policy_dirs);
  free (p->shell_file);
  bwsh_diag_clear (&p->diag);
  free (p);
  return NULL;
}

static void
plan_freep (BwshPlan **p)
{
  bwsh_plan_free (*p);
}

static int set_reason (BwshMount *m, BwshVerdict v, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

static int
set_reason (BwshMount *m, BwshVerdict v, const char *fmt, ...)
{
  va_list ap;
  char *s = NULL;
  int r;

  va_start (ap, fmt);
  r = vasprintf (&s, fmt, ap);
  va_end (ap);
  if (r < 0)
    return -ENOMEM;
  free (m->reason);
  m->reason = s;
  m->verdict = v;
  return 0;
}

static const BwshSource default_source = { .origin = BWSH_ORIGIN_DEFAULT };

/* "FILE:LINE:COL: " for a diagnostic about @from, or "" for defaults. */
static char *
format_from (const BwshSource *from)
{
  return bwsh_source_prefix (from->file, from->line, from->column);
}

/* Mark @m refused (or skipped) and add the one-line warning. */
static int refuse (BwshPlan *p, BwshMount *m, BwshVerdict v, const char *what, const char *fmt, ...)
  __attribute__ ((format (printf, 5, 6)));

static int
refuse (BwshPlan *p, BwshMount *m, BwshVerdict v, const char *what, const char *fmt, ...)
{
  _cleanup_free_ char *reason = NULL, *esc = NULL, *where = NULL;
  va_list ap;
  int r;

  va_start (ap, fmt);
  r = vasprintf (&reason, fmt, ap);
  va_end (ap);
  if (r < 0)
    return -ENOMEM;
  where = format_from (&m->from);
  esc = bwsh_escape (what, strlen (what));
  if (where == NULL || esc == NULL)
    return -ENOMEM;
  r = bwsh_diag_add (&p->diag, "%s%s: %s", where, esc, reason);
  if (r < 0)
    return r;
  if (v == BWSH_VERDICT_REFUSED)
    p->n_refused++;
  free (m->reason);
  m->reason = steal_pointer (&reason);
  m->verdict = v;
  return 0;
}

/* Destination -> mount indices, so that merging N entries costs O(N). */
typedef struct
{
  size_t *slots; /* index + 1, 0 = empty */
  size_t cap;    /* power of two */
  size_t n;
} DestIndex;

typedef struct
{
  const BwshIdentity *id;
  const BwshPolicy *pol;
  BwshPlan *p;
  DestIndex dests;
  /* expanded templates */
  char **rw_ceilings;
  size_t n_rw;
  char **ro_ceilings;
  size_t n_ro;
  char **protected_paths;
  bool *protected_is_dir;
  size_t n_protected;
  char **policy_dirs;   /* directories holding a policy file: never an overlay source */
  size_t n_policy_dirs;
  char *overlay_dir;    /* user_config_mode = "editable": the one protected path left writable */
  char **locked;
  size_t n_locked;
} Ctx;

/* djb2 over the first @n bytes of @s (a destination or one of its parents),
 * then mixed: paths that differ only in their last characters, such as
 * ~/data/d1 ... ~/data/d999, would otherwise fill neighbouring slots and the
 * linear probing would compare each with most of the others. */
static size_t
hash_path_n (const char *s, size_t n)
{
  uint64_t h = 5381;

  for (size_t i = 0; i < n; i++)
    h = h * 33 + (unsigned char) s[i];
  h ^= h >> 33;
  h *= UINT64_C (0xff51afd7ed558ccd);
  h ^= h >> 33;
  return (size_t) h;
}

static size_t
hash_path (const char *s)
{
  return hash_path_n (s, strlen (s));
}

static int
dest_index_add (DestIndex *d, const BwshMount *mounts, size_t idx)
{
  if ((d->n + 1) * 2 > d->cap)
    {
      size_t cap = d->cap == 0 ? 64 : d->cap * 2;
      size_t *slots = calloc (cap, sizeof *slots);

      if (slots == NULL)
        return -ENOMEM;
      for (size_t i = 0; i < d->cap; i++)
        if (d->slots[i] != 0)
          {
            size_t k = hash_path (mounts[d->slots[i] - 1].dest) & (cap - 1);
            while (slots[k] != 0)
              k = (k + 1) & (cap - 1);
            slots[k] = d->slots[i];
          }
      free (d->slots);
      d->slots = slots;
      d->cap = cap;
    }
  size_t k = hash_path (mounts[idx].dest) & (d->cap - 1);
  while (d->slots[k] != 0)
    k = (k + 1) & (d->cap - 1);
  d->slots[k] = idx + 1;
  d->n++;
  return 0;
}

/* Loop over the index i of every mount whose destination is @want; the
 * order is the hash table's, so callers that care compare indices. */
#define FOREACH_DEST(c, want, i)                                                                     \
  for (size_t _k = (c)->dests.cap ? hash_path (want) & ((c)->dests.cap - 1) : 0, _n = 0, i = 0;      \
       (c)->dests.cap && (c)->dests.slots[_k] != 0 && _n < (c)->dests.cap;                         \
       _k = (_k + 1) & ((c)->dests.cap - 1), _n++)                                                   \
    if ((i = (c)->dests.slots[_k] - 1, strcmp ((c)->p->mounts[i].dest, (want)) == 0))

/* Append a mount.  @src may be NULL.  Returns the index or -errno. */
static ssize_t
add_mount (Ctx *c, BwshMountKind kind, const char *src, const char *dest, const BwshSource *from)
{
  BwshPlan *p = c->p;
  BwshMount *m;
  int r;

  if (p->n_mounts == p->cap_mounts)
    {
      size_t cap = p->cap_mounts == 0 ? 32 : p->cap_mounts * 2;
      BwshMount *n = realloc (p->mounts, cap * sizeof *n);
      if (n == NULL)
        return -ENOMEM;
      p->mounts = n;
      p->cap_mounts = cap;
    }
  m = &p->mounts[p->n_mounts];
  *m = (BwshMount) { .kind = kind, .fd = -1, .verdict = BWSH_VERDICT_ACCEPTED };
  if (from != NULL)
    m->from = *from;
  m->from.file = NULL;
  if ((src != NULL && (m->src = strdup (src)) == NULL) || (m->dest = strdup (dest)) == NULL
      || (from != NULL && from->file != NULL && (m->from.file = strdup (from->file)) == NULL))
    {
      mount_clear (m);
      return -ENOMEM;
    }
  r = dest_index_add (&c->dests, p->mounts, p->n_mounts);
  if (r < 0)
    {
      mount_clear (m);
      return r;
    }
  return (ssize_t) p->n_mounts++;
}

/* A bind's destination is only known after normalising what the user wrote. */
static int
set_dest (Ctx *c, size_t idx, char *dest)
{
  DestIndex *d = &c->dests;
  size_t k = hash_path (c->p->mounts[idx].dest) & (d->cap - 1);

  while (d->slots[k] != idx + 1)
    k = (k + 1) & (d->cap - 1);
  /* Remove by re-inserting the rest of the cluster (linear probing). */
  d->slots[k] = 0;
  d->n--;
  for (size_t j = (k + 1) & (d->cap - 1); d->slots[j] != 0; j = (j + 1) & (d->cap - 1))
    {
      size_t v = d->slots[j];
      d->slots[j] = 0;
      d->n--;
      if (dest_index_add (d, c->p->mounts, v - 1) < 0)
        return -ENOMEM;
    }
  free (c->p->mounts[idx].dest);
  c->p->mounts[idx].dest = dest;
  return dest_index_add (d, c->p->mounts, idx);
}

static void
ctx_clear (Ctx *c)
{
  free (c->dests.slots);
  strv_free (c->rw_ceilings, c->n_rw);
  strv_free (c->ro_ceilings, c->n_ro);
  strv_free (c->protected_paths, c->n_protected);
  free (c->protected_is_dir);
  strv_free (c->policy_dirs, c->n_policy_dirs);
  free (c->overlay_dir);
  strv_free (c->locked, c->n_locked);
}

static int
expand_list (const BwshBindList *l, const char *home, char ***ret, size_t *ret_n, BwshError *err)
{
  char **v = calloc (l->n + 1, sizeof (char *));

  if (v == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < l->n; i++)
    {
      int r = bwsh_path_expand (l->items[i].src, home, &v[i]);
      if (r < 0)
        {
          strv_free (v, i);
          return bwsh_error_set (err, r, l->items[i].from.file, l->items[i].from.line, 0,
                                 "invalid path template \"%s\"", l->items[i].src);
        }
    }
  *ret = v;
  *ret_n = l->n;
  return 0;
}

/* The built-in protected set, then what the policy adds. */
static int
expand_protected (Ctx *c, const char *home, BwshError *err)
{
  const BwshBindList *l = &c->pol->protected_paths;
  size_t n = bwsh_n_protected_defaults + l->n, k = 0;
  int r;

  c->protected_paths = calloc (n + 1, sizeof (char *));
  c->protected_is_dir = calloc (n + 1, sizeof (bool));
  if (c->protected_paths == NULL || c->protected_is_dir == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < bwsh_n_protected_defaults; i++, k++)
    {
      r = bwsh_path_expand (bwsh_protected_defaults[i].tmpl, home, &c->protected_paths[k]);
      if (r < 0)
        return bwsh_error_set (err, r, NULL, 0, 0, "invalid home directory \"%s\"", home);
      c->protected_is_dir[k] = bwsh_protected_defaults[i].is_dir;
      c->n_protected = k + 1;
    }
  for (size_t i = 0; i < l->n; i++, k++)
    {
      r = bwsh_path_expand (l->items[i].src, home, &c->protected_paths[k]);
      if (r < 0)
        return bwsh_error_set (err, r, l->items[i].from.file, l->items[i].from.line, 0,
                               "invalid path template \"%s\"", l->items[i].src);
      c->protected_is_dir[k] = true;
      c->n_protected = k + 1;
    }
  return 0;
}

static int
add_dir_of (char ***v, size_t *n, const char *file)
{
  _cleanup_free_ char *dir = NULL;
  const char *slash = strrchr (file, '/');
  char **nv;

  /* A policy at the root itself would make every path "the policy's". */
  if (slash == NULL || slash == file || file[0] != '/')
    return 0;
  if (bwsh_path_normalize (strndupa (file, (size_t) (slash - file)), &dir) != BWSH_PATH_OK)
    return 0;
  if (bwsh_path_under_any (dir, *v, *n))
    return 0;
  nv = realloc (*v, (*n + 2) * sizeof (char *));
  if (nv == NULL)
    return -ENOMEM;
  *v = nv;
  (*v)[(*n)++] = steal_pointer (&dir);
  (*v)[*n] = NULL;
  return 0;
}

/* The policy's own directory (and that of every file it was read from,
 * @include and conf.d too), so that no overlay shows it anywhere. */
static int
collect_policy_dirs (Ctx *c)
{
  int r = add_dir_of (&c->policy_dirs, &c->n_policy_dirs, bwsh_policy_path ());

  for (size_t i = 0; r >= 0 && i < c->pol->files.n; i++)
    r = add_dir_of (&c->policy_dirs, &c->n_policy_dirs, c->pol->files.items[i].src);
  return r;
}

/* A rule context: expanded ceilings, protected paths and policy dirs. */
static int
ctx_rules (Ctx *c, const char *home, BwshError *err)
{
  int r;

  if ((r = expand_list (&c->pol->rw_ceilings, home, &c->rw_ceilings, &c->n_rw, err)) < 0
      || (r = expand_list (&c->pol->ro_ceilings, home, &c->ro_ceilings, &c->n_ro, err)) < 0
      || (r = expand_protected (c, home, err)) < 0 || (r = collect_policy_dirs (c)) < 0)
    return r;
  return 0;
}

/* True when @s is one of the @n strings of @v. */
static bool
str_in (const char *s, const char *const *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (s, v[i]) == 0)
      return true;
  return false;
}

static bool
is_critical (const char *dest)
{
  return str_in (dest, critical_dests, BWSH_N_ELEMENTS (critical_dests));
}

static bool
is_locked (const Ctx *c, const char *dest)
{
  if (is_critical (dest))
    return true;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (always_locked); i++)
    if (strcmp (dest, always_locked[i]) == 0)
      return true;
  for (size_t i = 0; i < c->n_locked; i++)
    if (strcmp (dest, c->locked[i]) == 0)
      return true;
  return false;
}

/* The rules for one path as the user wrote it or as it resolved.  Returns
 * NULL when fine, else the reason. */
static const char *
check_path_rules (const Ctx *c, const char *path, bool rw, bool is_source)
{
  if (bwsh_path_is_forbidden (path))
    return "/, /proc, /dev, /sys and paths under them cannot be bound";
  if (rw)
    {
      if (!bwsh_path_under_any (path, c->rw_ceilings, c->n_rw))
        return "read-write binds are only allowed under the read-write ceilings (by default $HOME)";
      if (bwsh_path_under_any (path, c->protected_paths, c->n_protected))
        return "is a protected path and never writable inside the sandbox";
    }
  else if (is_source && c->n_ro > 0 && !bwsh_path_under_any (path, c->ro_ceilings, c->n_ro))
    return "read-only binds are only allowed under the policy's read-only ceilings";
  return NULL;
}

/* ------------------------------------------------------------ the default */

static int
add_host_layout (Ctx *c)
{
  /* On merged-/usr hosts /bin, /sbin and /lib* are symlinks into /usr; copy
   * them as symlinks.  Elsewhere they are directories: bind them read-only. */
  static const char *const dirs[] = { "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32" };

  for (size_t i = 0; i < BWSH_N_ELEMENTS (dirs); i++)
    {
      struct stat st;
      ssize_t idx;

      if (lstat (dirs[i], &st) < 0)
        continue;
      if (S_ISLNK (st.st_mode))
        {
          char target[PATH_MAX];
          ssize_t n = readlink (dirs[i], target, sizeof target - 1);
          if (n <= 0)
            continue;
          target[n] = '\0';
          idx = add_mount (c, BWSH_MOUNT_SYMLINK, target, dirs[i], &default_source);
        }
      else if (S_ISDIR (st.st_mode))
        idx = add_mount (c, BWSH_MOUNT_RO_BIND, dirs[i], dirs[i], &default_source);
      else
        continue;
      if (idx < 0)
        return (int) idx;
    }
  return 0;
}

static int
add_run (Ctx *c)
{
  char target[PATH_MAX];
  _cleanup_free_ char *dir = NULL;
  ssize_t n, idx;

  if (c->pol->run_mode == BWSH_RUN_HOST)
    {
      idx = add_mount (c, BWSH_MOUNT_RO_BIND, "/run", "/run", &default_source);
      if (idx < 0)
        return (int) idx;
      return set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED,
                         "policy run = \"host\": host sockets under /run stay connectable");
    }

  idx = add_mount (c, BWSH_MOUNT_TMPFS, NULL, "/run", &default_source);
  if (idx < 0)
    return (int) idx;
  /* Runtime data is small; an unsized tmpfs could take half the RAM. */
  c->p->mounts[idx].size = c->pol->root_tmpfs_size;

  /* systemd-resolved and NetworkManager keep resolv.conf under /run and
   * point /etc/resolv.conf at it; bind just that directory so name
   * resolution works without the rest of the host's /run. */
  n = readlink ("/etc/resolv.conf", target, sizeof target - 1);
  if (n <= 0)
    return 0;
  target[n] = '\0';
  if (target[0] != '/')
    {
      _cleanup_free_ char *abs = NULL;
      if (asprintf (&abs, "/etc/%s", target) < 0)
        return -ENOMEM;
      _cleanup_free_ char *resolved = realpath (abs, NULL);
      if (resolved == NULL)
        return 0;
      snprintf (target, sizeof target, "%s", resolved);
    }
  if (bwsh_path_normalize (target, &dir) != BWSH_PATH_OK)
    return 0;
  if (!bwsh_path_has_prefix (dir, "/run") || strcmp (dir, "/run") == 0)
    return 0;
  *strrchr (dir, '/') = '\0';
  if (strcmp (dir, "/run") == 0)
    return 0;
  idx = add_mount (c, BWSH_MOUNT_RO_BIND, dir, dir, &default_source);
  if (idx < 0)
    return (int) idx;
  c->p->mounts[idx].optional = true;
  return 0;
}

static int
choose_project_dir (Ctx *c, const BwshUserConfig *uc, char **ret, BwshError *err)
{
  _cleanup_free_ char *def = NULL, *mine = NULL;
  int r;

  r = bwsh_path_expand (c->pol->project_dir, c->id->home, &def);
  if (r < 0 || bwsh_path_is_forbidden (def))
    return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "invalid project directory \"%s\" in the policy",
                           c->pol->project_dir);

  if (uc != NULL && uc->project_dir != NULL)
    {
      _cleanup_free_ char *where = format_from (&uc->project_dir_from);
      const char *why = NULL;

      if (where == NULL)
        return -ENOMEM;
      if (!c->pol->user_may_choose_project)
        why = "the policy does not let users choose the project directory";
      else if (bwsh_path_expand (uc->project_dir, c->id->home, &mine) < 0)
        why = "not a valid absolute path (no \"..\", no control characters)";
      else if (!bwsh_path_has_prefix (mine, c->id->home) || strcmp (mine, c->id->home) == 0)
        why = "the project directory must lie under $HOME";
      else
        why = check_path_rules (c, mine, true, true);

      if (why == NULL)
        {
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
static int
choose_state_dir (Ctx *c, const char *project, char **ret, BwshError *err)
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
  why = bwsh_state_dir_refusal (c->protected_paths, c->n_protected, c->id->home, project, dir);
  if (why != NULL)
    return bwsh_error_set (err, -EPERM, NULL, 0, 0, "state_dir %s: %s", dir, why);
  *ret = steal_pointer (&dir);
  return 0;
}

static bool
is_state_name (const Ctx *c, const char *path)
{
  const char *name = strrchr (path, '/') + 1;

  /* A protected path always comes from the real home. */
  if (str_in (path, (const char *const *) c->protected_paths, c->n_protected))
    return false;
  return str_in (name, state_names, BWSH_N_ELEMENTS (state_names));
}

static int
cmp_str (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The names in the real $HOME, sorted, without "." and "..", at most @max
 * of them plus one (a home with more is not bound entry by entry, and is
 * not read further).  A home that cannot be read gives none: the session
 * step after the plan refuses a missing home with its own message. */
static int
list_home (const char *home, size_t max, char ***ret, size_t *ret_n)
{
  _cleanup_close_ int fd = -1;
  char **v = NULL;
  size_t n = 0, cap = 0;
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
  while (n <= max && (de = readdir (d)) != NULL)
    {
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
  return 0;
oom:
  closedir (d);
  strv_free (v, n);
  return -ENOMEM;
}

/* One entry of the real home, read-only over the state: a directory or a
 * file by an O_PATH fd opened now, from the home directory, without
 * following a symlink; a symlink as the same symlink.  Sockets, FIFOs and
 * devices stay out, as they do for every bind. */
static int
add_home_entry (Ctx *c, int home_fd, const char *name)
{
  _cleanup_free_ char *dest = NULL;
  _cleanup_close_ int fd = -1;
  struct stat st;
  ssize_t idx;

  if (asprintf (&dest, "%s/%s", c->id->home, name) < 0)
    return -ENOMEM;
  if (fstatat (home_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return 0;
  if (S_ISLNK (st.st_mode))
    {
      char target[PATH_MAX];
      ssize_t len = readlinkat (home_fd, name, target, sizeof target - 1);
      if (len <= 0)
        return 0;
      target[len] = '\0';
      idx = add_mount (c, BWSH_MOUNT_SYMLINK, target, dest, &default_source);
      if (idx < 0)
        return (int) idx;
      c->p->mounts[idx].home_entry = true;
      return 0;
    }
  if (!S_ISDIR (st.st_mode) && !S_ISREG (st.st_mode))
    return 0;
  fd = openat (home_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) < 0 || (!S_ISDIR (st.st_mode) && !S_ISREG (st.st_mode)))
    return 0;
  idx = add_mount (c, BWSH_MOUNT_RO_BIND, dest, dest, &default_source);
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
  if (bwsh_rules_overlaps_protected (dir, c->protected_paths, c->n_protected, dir) != NULL)
    return "lies inside or around another protected path";
  return NULL;
}

/* $HOME inside: the session's state (a tmpfs, or the policy's state_dir)
 * with every entry of the real home bound read-only over it, except the
 * names that hold a program's own state; then the project directory
 * read-write.  Programs write history, caches and dotfiles where they
 * always do, and none of it reaches the real home.  A kernel with
 * overlayfs in user namespaces and bwrap >= 0.9 could do this with
 * --overlay, but Debian 12's bwrap 0.8 cannot. */
static int
add_home (Ctx *c, const char *project, const char *state_dir)
{
  const BwshPolicy *pol = c->pol;
  const char *home = c->id->home;
  _cleanup_free_ char *overlay_dir = NULL;
  char **names = NULL;
  size_t n_names = 0;
  _cleanup_close_ int home_fd = -1;
  ssize_t idx;
  int r = 0;

  c->p->state = pol->state_mode == BWSH_STATE_NONE ? "none" : state_dir != NULL ? "persistent" : "tmpfs";
  if (pol->state_mode != BWSH_STATE_NONE)
    {
      r = list_home (home, pol->max_mounts, &names, &n_names);
      if (r < 0)
        return r;
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
      if ((idx = add_mount (c, BWSH_MOUNT_RO_BIND, home, home, &default_source)) < 0)
        r = (int) idx;
      goto project;
    }

  if (state_dir != NULL)
    {
      idx = add_mount (c, BWSH_MOUNT_BIND, state_dir, home, &default_source);
      if (idx < 0)
        {
          r = (int) idx;
          goto out;
        }
      c->p->mounts[idx].create_dir = bwsh_path_has_prefix (state_dir, home);
      r = set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED, "state = \"persistent\": the session's own state");
    }
  else
    {
      idx = add_mount (c, BWSH_MOUNT_TMPFS, NULL, home, &default_source);
      if (idx < 0)
        {
          r = (int) idx;
          goto out;
        }
      c->p->mounts[idx].size = pol->tmp_tmpfs_size;
      r = set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED, "state = \"tmpfs\": the session's own state, gone at logout");
    }
  if (r < 0)
    goto out;
  c->p->mounts[idx].state = true;

  home_fd = open (home, O_PATH | O_DIRECTORY | O_CLOEXEC);
  for (size_t i = 0; home_fd >= 0 && i < n_names && r >= 0; i++)
    {
      _cleanup_free_ char *path = NULL;
      if (asprintf (&path, "%s/%s", home, names[i]) < 0)
        r = -ENOMEM;
      else if (strcmp (path, project) != 0 && !is_state_name (c, path))
        r = add_home_entry (c, home_fd, names[i]);
    }
  if (r < 0)
    goto out;

  /* A protected path below a name the state provides is still the real
   * one, read-only, when it exists.  The overlay's directory only in
   * readonly mode (or when editable mode cannot make it writable):
   * add_overlay_dir() binds it read-write in editable mode, and off mode
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
  for (size_t i = 0; i < c->n_protected && r >= 0; i++)
    {
      const char *q = c->protected_paths[i];
      _cleanup_free_ char *top = NULL;
      struct stat st;

      if (!bwsh_path_has_prefix (q, home) || strcmp (q, home) == 0 || bwsh_path_has_prefix (q, project)
          || (overlay_dir != NULL && strcmp (q, overlay_dir) == 0))
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
      if ((idx = add_mount (c, BWSH_MOUNT_RO_BIND, q, q, &default_source)) < 0)
        r = (int) idx;
      else
        {
          c->p->mounts[idx].optional = true;
          r = set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED, "protected path, from the real home");
        }
    }
  if (r < 0)
    goto out;

project:
  if (r >= 0 && (idx = add_mount (c, BWSH_MOUNT_BIND, project, project, &default_source)) < 0)
    r = (int) idx;
  else if (r >= 0)
    c->p->mounts[idx].create_dir = true; /* a first login creates it (as the user, before resolution) */
out:
  strv_free (names, n_names);
  return r;
}

static int
add_defaults (Ctx *c, const char *project, const char *state_dir)
{
  const BwshPolicy *pol = c->pol;
  ssize_t idx;
  int r;

  idx = add_mount (c, BWSH_MOUNT_TMPFS, NULL, "/", &default_source);
  if (idx < 0)
    return (int) idx;
  c->p->mounts[idx].size = pol->root_tmpfs_size;
  if ((idx = add_mount (c, BWSH_MOUNT_RO_BIND, "/usr", "/usr", &default_source)) < 0)
    return (int) idx;
  r = add_host_layout (c);
  if (r < 0)
    return r;
  if ((idx = add_mount (c, BWSH_MOUNT_RO_BIND, "/etc", "/etc", &default_source)) < 0)
    return (int) idx;
  r = add_run (c);
  if (r < 0)
    return r;
  if (pol->dev_mode == BWSH_DEV_HOST)
    {
      if ((idx = add_mount (c, BWSH_MOUNT_DEV_BIND, "/dev", "/dev", &default_source)) < 0)
        return (int) idx;
      r = set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED, "policy dev = \"host\": every host device node");
      if (r < 0)
        return r;
    }
  else
    {
      /* bwrap's --dev is a tmpfs of the kernel's default size (half the
       * RAM), and so would /dev/shm in it be: give shared memory a sized
       * tmpfs of its own, and make the rest of /dev read-only. */
      if ((idx = add_mount (c, BWSH_MOUNT_DEV, NULL, "/dev", &default_source)) < 0)
        return (int) idx;
      if ((idx = add_mount (c, BWSH_MOUNT_REMOUNT_RO, NULL, "/dev", &default_source)) < 0)
        return (int) idx;
      if ((idx = add_mount (c, BWSH_MOUNT_TMPFS, NULL, "/dev/shm", &default_source)) < 0)
        return (int) idx;
      c->p->mounts[idx].size = pol->tmp_tmpfs_size;
    }
  if ((idx = add_mount (c, BWSH_MOUNT_PROC, NULL, "/proc", &default_source)) < 0)
    return (int) idx;
  if ((idx = add_mount (c, BWSH_MOUNT_TMPFS, NULL, "/tmp", &default_source)) < 0)
    return (int) idx;
  c->p->mounts[idx].size = pol->tmp_tmpfs_size;
  /* /var is the root tmpfs's; only /var/tmp, the one place programs write. */
  if ((idx = add_mount (c, BWSH_MOUNT_TMPFS, NULL, "/var/tmp", &default_source)) < 0)
    return (int) idx;
  c->p->mounts[idx].size = pol->tmp_tmpfs_size;
  return add_home (c, project, state_dir);
}

/* ------------------------------------------------------------- additions */

/* A mount of the real home's layer over the state: an entry of the real
 * home, or a protected path shown below a name the state provides. */
static bool
from_real_home (const Ctx *c, const BwshMount *m)
{
  return m->home_entry
         || (m->from.origin == BWSH_ORIGIN_DEFAULT && m->kind == BWSH_MOUNT_RO_BIND
             && bwsh_path_has_prefix (m->dest, c->id->home) && strcmp (m->dest, c->id->home) != 0);
}

/* A bind of $HOME itself replaces the state and the real home's layer. */
static int
shadow_home_layer (Ctx *c, const char *why)
{
  for (size_t i = 0; i < c->p->n_mounts; i++)
    {
      BwshMount *m = &c->p->mounts[i];
      if (m->verdict == BWSH_VERDICT_ACCEPTED && from_real_home (c, m))
        {
          int r = set_reason (m, BWSH_VERDICT_SHADOWED, "%s", why);
          if (r < 0)
            return r;
        }
    }
  return 0;
}

/* The first accepted mount before @before with destination @dest.  An
 * entry of the real home does not count: a bind over it hides it as a bind
 * below the read-only $HOME did, and a bind refused at resolve leaves it. */
static ssize_t
find_dest (Ctx *c, const char *dest, size_t before)
{
  ssize_t best = -1;

  FOREACH_DEST (c, dest, i)
    {
      if (i < before && c->p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED && !c->p->mounts[i].home_entry
          && (best < 0 || (size_t) best > i))
        best = (ssize_t) i;
    }
  return best;
}

static int
add_bind (Ctx *c, const BwshBindSpec *b, bool rw, const char *what_list)
{
  _cleanup_free_ char *src = NULL, *dst = NULL;
  BwshPathStatus st;
  const char *why;
  ssize_t idx;
  int r;

  idx = add_mount (c, rw ? BWSH_MOUNT_BIND : BWSH_MOUNT_RO_BIND, b->src, b->dst ? b->dst : b->src, &b->from);
  if (idx < 0)
    return (int) idx;
  BwshMount *m = &c->p->mounts[idx];
  m->optional = true;

  /* Policy binds may use "~"; the user's may not: the seed format is absolute paths. */
  if (b->from.origin == BWSH_ORIGIN_POLICY)
    {
      if (bwsh_path_expand (b->src, c->id->home, &src) < 0
          || bwsh_path_expand (b->dst ? b->dst : b->src, c->id->home, &dst) < 0)
        return refuse (c->p, m, BWSH_VERDICT_REFUSED, b->src, "%s: not a valid absolute path", what_list);
    }
  else
    {
      st = bwsh_path_normalize (b->src, &src);
      if (st != BWSH_PATH_OK)
        return refuse (c->p, m, BWSH_VERDICT_REFUSED, b->src, "%s", bwsh_path_status_to_string (st));
      st = bwsh_path_normalize (b->dst ? b->dst : b->src, &dst);
      if (st != BWSH_PATH_OK)
        return refuse (c->p, m, BWSH_VERDICT_REFUSED, b->dst, "destination %s", bwsh_path_status_to_string (st));
    }
  free (m->src);
  m->src = steal_pointer (&src);
  r = set_dest (c, (size_t) idx, steal_pointer (&dst));
  if (r < 0)
    return r;
  m = &c->p->mounts[idx];

  if ((why = check_path_rules (c, m->src, rw && b->from.origin == BWSH_ORIGIN_USER, true)) != NULL)
    return refuse (c->p, m, BWSH_VERDICT_REFUSED, m->src, "%s", why);
  if (b->from.origin == BWSH_ORIGIN_USER
      && (why = bwsh_rules_overlay_source (m->src, c->id->home, c->policy_dirs, c->n_policy_dirs,
                                           rw ? c->rw_ceilings : c->ro_ceilings, rw ? c->n_rw : c->n_ro))
             != NULL)
    return refuse (c->p, m, BWSH_VERDICT_REFUSED, m->src, "%s", why);
  if (bwsh_path_is_forbidden (m->dest) || is_critical (m->dest))
    return refuse (c->p, m, BWSH_VERDICT_REFUSED, m->dest,
                   "destination is /, /usr, /etc or under /proc, /dev or /sys; it cannot be replaced");
  if (b->from.origin == BWSH_ORIGIN_USER && rw
      && (why = check_path_rules (c, m->dest, true, false)) != NULL)
    return refuse (c->p, m, BWSH_VERDICT_REFUSED, m->dest, "destination %s", why);

  /* The same destination twice: the higher origin wins. */
  idx = find_dest (c, m->dest, (size_t) (m - c->p->mounts));
  if (idx >= 0)
    {
      BwshMount *old = &c->p->mounts[idx];
      _cleanup_free_ char *where = NULL;

      if (old->from.origin > m->from.origin)
        return refuse (c->p, m, BWSH_VERDICT_SHADOWED, m->dest, "also bound by the %s, which wins",
                       bwsh_origin_to_string (old->from.origin));
      where = format_from (&m->from);
      if (where == NULL)
        return -ENOMEM;
      r = set_reason (old, BWSH_VERDICT_SHADOWED, "replaced by a %s bind on the same destination",
                      bwsh_origin_to_string (m->from.origin));
      if (r >= 0 && old->state)
        r = shadow_home_layer (c, "$HOME is replaced by a bind");
      if (r < 0)
        return r;
      _cleanup_free_ char *esc = bwsh_escape (m->dest, strlen (m->dest));
      if (esc == NULL)
        return -ENOMEM;
      return bwsh_diag_add (&c->p->diag, "%s%s: replaces the %s bind on the same destination", where, esc,
                            bwsh_origin_to_string (old->from.origin));
    }
  return 0;
}

static int
apply_disable (Ctx *c, const BwshBindSpec *b)
{
  _cleanup_free_ char *dest = NULL, *esc = NULL, *where = format_from (&b->from);
  BwshPathStatus st;
  const char *why = NULL;
  bool found = false;

  if (where == NULL)
    return -ENOMEM;
  st = bwsh_path_normalize (b->src, &dest);
  if (st != BWSH_PATH_OK)
    why = bwsh_path_status_to_string (st);
  else if (is_locked (c, dest))
    why = "is locked and cannot be disabled";

  if (why == NULL)
    FOREACH_DEST (c, dest, i)
      {
        BwshMount *m = &c->p->mounts[i];
        if (m->verdict != BWSH_VERDICT_ACCEPTED || m->state)
          continue;
        if (m->from.origin == BWSH_ORIGIN_POLICY)
          {
            why = "is set by the policy and cannot be disabled";
            break;
          }
        if (m->from.origin != BWSH_ORIGIN_DEFAULT)
          continue;
        int r = set_reason (m, BWSH_VERDICT_DISABLED, "disabled by %s:%d", b->from.file ? b->from.file : "?",
                            b->from.line);
        if (r < 0)
          return r;
        found = true;
      }

  /* Disabling $HOME hides the real home; the state stays, as the
   * shell needs a home to start in. */
  if (why == NULL && strcmp (dest, c->id->home) == 0)
    for (size_t i = 0; i < c->p->n_mounts; i++)
      {
        BwshMount *m = &c->p->mounts[i];
        if (m->verdict != BWSH_VERDICT_ACCEPTED || !from_real_home (c, m))
          continue;
        int r = set_reason (m, BWSH_VERDICT_DISABLED, "disabled by %s:%d", b->from.file ? b->from.file : "?",
                            b->from.line);
        if (r < 0)
          return r;
        found = true;
      }
  if (why == NULL && found)
    return 0;
  esc = bwsh_escape (b->src, strlen (b->src));
  if (esc == NULL)
    return -ENOMEM;
  if (why == NULL)
    return bwsh_diag_add (&c->p->diag, "%sdisabledDefaultBinds %s: no default bind has this destination (ignored)",
                          where, esc);
  c->p->n_refused++;
  return bwsh_diag_add (&c->p->diag, "%sdisabledDefaultBinds %s: %s", where, esc, why);
}

/* Directories between the read-write mount @rw_dest and the protected path
 * @q become mount points (a read-write bind onto themselves): rename(2)
 * refuses to move a mount point, so nobody inside can rename ~/.config away
 * and put a new ~/.config/bwsh in its place.  A missing one is created as
 * the user at resolve time, as bwrap would have created it anyway. */
static int
pin_ancestors (Ctx *c, const char *rw_dest, const char *q)
{
  _cleanup_free_ char *a = strdup (q);
  size_t base = strcmp (rw_dest, "/") == 0 ? 0 : strlen (rw_dest);
  BwshSource from = { .origin = BWSH_ORIGIN_POLICY };

  if (a == NULL)
    return -ENOMEM;
  for (char *slash = a + base + 1; (slash = strchr (slash, '/')) != NULL; slash++)
    {
      bool have = false;
      ssize_t idx;

      *slash = '\0';
      FOREACH_DEST (c, a, j)
        {
          if (c->p->mounts[j].verdict == BWSH_VERDICT_ACCEPTED)
            have = true;
        }
      if (!have)
        {
          idx = add_mount (c, BWSH_MOUNT_BIND, a, a, &from);
          if (idx < 0)
            return (int) idx;
          c->p->mounts[idx].create_dir = true;
          int r = set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED,
                              "pinned: the way to a protected path cannot be renamed");
          if (r < 0)
            return r;
        }
      *slash = '/';
    }
  return 0;
}

/* user_config_mode = "editable": the overlay's directory is bound
 * read-write onto itself, so the user edits the file from inside and the
 * next login reads it.  Safe because nothing the overlay selects lies
 * outside the policy's ceilings (docs/security.md).  Refused, with a
 * warning, where that directory would open more than the overlay: outside
 * $HOME, or inside or around another protected path. */
static int
add_overlay_dir (Ctx *c)
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
  idx = add_mount (c, BWSH_MOUNT_BIND, dir, dir, &from);
  if (idx < 0)
    return (int) idx;
  c->p->mounts[idx].create_dir = true;
  c->p->mounts[idx].exact_source = true;
  c->overlay_dir = steal_pointer (&dir);
  return set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED,
                     "user_config_mode = \"editable\": the overlay, writable; read at the next login");
}

/* A protected path below a read-write mount is bound again read-only, at
 * its own path and at the path it resolves to, so neither name leads to a
 * writable copy of the sandbox's own rules. */
static int
add_protected (Ctx *c)
{
  size_t n = c->p->n_mounts;

  for (size_t i = 0; i < c->n_protected; i++)
    {
      const char *path = c->protected_paths[i];
      _cleanup_free_ char *resolved = NULL;
      const char *cands[2] = { path, NULL };

      if (c->overlay_dir != NULL && strcmp (path, c->overlay_dir) == 0)
        continue;
      cands[1] = resolved = realpath (path, NULL);

      for (size_t k = 0; k < 2; k++)
        {
          const char *q = cands[k];
          const char *rw_dest = NULL;
          BwshSource from = { .origin = BWSH_ORIGIN_POLICY };
          ssize_t idx;
          int r;

          if (q == NULL || (k == 1 && strcmp (q, path) == 0))
            continue;
          /* The deepest read-write mount above it is the one to pin from. */
          for (size_t j = 0; j < n; j++)
            {
              const BwshMount *m = &c->p->mounts[j];
              /* Not the state: what is written there reaches no program
               * outside, and its paths are not the real home's. */
              if (m->verdict == BWSH_VERDICT_ACCEPTED && m->kind == BWSH_MOUNT_BIND && !m->state
                  && bwsh_path_has_prefix (q, m->dest)
                  && (rw_dest == NULL || strlen (m->dest) > strlen (rw_dest)))
                rw_dest = c->p->mounts[j].dest;
            }
          if (rw_dest == NULL)
            continue;
          if (strcmp (rw_dest, q) != 0)
            {
              _cleanup_free_ char *rw = strdup (rw_dest);
              if (rw == NULL)
                return -ENOMEM;
              r = pin_ancestors (c, rw, q);
              if (r < 0)
                return r;
            }
          if (access (q, F_OK) == 0)
            idx = add_mount (c, BWSH_MOUNT_RO_BIND, q, q, &from);
          else if (!c->protected_is_dir[i])
            {
              /* A missing file (~/.forward, ~/.bashrc): an empty read-only
               * one in its place, so it cannot be created inside. */
              idx = add_mount (c, BWSH_MOUNT_RO_BIND, "/dev/null", q, &from);
              if (idx >= 0)
                c->p->mounts[idx].file_placeholder = true;
            }
          else
            {
              /* Missing: an empty read-only tmpfs keeps anyone from
               * creating it inside. */
              idx = add_mount (c, BWSH_MOUNT_TMPFS, NULL, q, &from);
              if (idx >= 0)
                idx = add_mount (c, BWSH_MOUNT_REMOUNT_RO, NULL, q, &from);
            }
          if (idx < 0)
            return (int) idx;
          r = set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED, "protected path");
          if (r < 0)
            return r;
        }
    }
  return 0;
}

/* Parents first: a child bind must never be hidden by a later parent bind.
 * Ties keep their order (a tmpfs before its remount-ro), hence the index in
 * the key: qsort() itself is not stable. */
typedef struct
{
  size_t depth;
  size_t index;
} SortKey;

static int
cmp_sort_key (const void *a, const void *b)
{
  const SortKey *x = a, *y = b;

  if (x->depth != y->depth)
    return x->depth < y->depth ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static int
sort_by_depth (BwshPlan *p)
{
  _cleanup_free_ SortKey *keys = calloc (p->n_mounts + 1, sizeof *keys);
  _cleanup_free_ BwshMount *sorted = calloc (p->n_mounts + 1, sizeof *sorted);

  if (keys == NULL || sorted == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < p->n_mounts; i++)
    keys[i] = (SortKey) { bwsh_path_depth (p->mounts[i].dest), i };
  qsort (keys, p->n_mounts, sizeof *keys, cmp_sort_key);
  for (size_t i = 0; i < p->n_mounts; i++)
    sorted[i] = p->mounts[keys[i].index];
  memcpy (p->mounts, sorted, p->n_mounts * sizeof *sorted);
  return 0;
}

/* ------------------------------------------------------------ environment */

static bool
env_name_allowed (const BwshPolicy *pol, const char *name)
{
  for (size_t i = 0; i < BWSH_N_ELEMENTS (env_allow_default); i++)
    if (fnmatch (env_allow_default[i], name, 0) == 0)
      return true;
  for (size_t i = 0; i < pol->env_allow.n; i++)
    if (fnmatch (pol->env_allow.items[i].src, name, 0) == 0)
      return true;
  return false;
}

static int
env_add (BwshPlan *p, const char *name, const char *value)
{
  char **n = realloc (p->env, (p->n_env + 2) * sizeof (char *));

  if (n == NULL)
    return -ENOMEM;
  p->env = n;
  if (asprintf (&p->env[p->n_env], "%s=%s", name, value) < 0)
    {
      p->env[p->n_env] = NULL;
      return -ENOMEM;
    }
  p->env[++p->n_env] = NULL;
  return 0;
}

/* Variables that name the session are set from NSS and the policy; a
 * caller's HOME=/ or SHELL=/tmp/evil never gets in. */
static const char *const env_fixed[] = { "HOME", "USER", "LOGNAME", "SHELL", "PATH" };

bool
bwsh_env_is_session_variable (const char *entry)
{
  size_t n = strcspn (entry, "=");

  for (size_t k = 0; k < BWSH_N_ELEMENTS (env_fixed); k++)
    if (strlen (env_fixed[k]) == n && strncmp (entry, env_fixed[k], n) == 0)
      return true;
  return false;
}

static int
build_env (const BwshIdentity *id, const BwshPolicy *pol, char *const *envp, BwshPlan *p, BwshError *err)
{
  int r;

  if ((r = env_add (p, "HOME", id->home)) < 0 || (r = env_add (p, "USER", id->name)) < 0
      || (r = env_add (p, "LOGNAME", id->name)) < 0 || (r = env_add (p, "SHELL", pol->shell)) < 0
      || (r = env_add (p, "PATH", "/usr/local/bin:/usr/bin:/bin")) < 0)
    return r;

  for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
    {
      const char *eq = strchr (envp[i], '=');
      _cleanup_free_ char *name = NULL;

      if (eq == NULL || eq == envp[i])
        continue;
      name = strndup (envp[i], (size_t) (eq - envp[i]));
      if (name == NULL)
        return -ENOMEM;
      if (bwsh_env_is_session_variable (name) || !env_name_allowed (pol, name))
        continue;
      /* Refuse rather than truncate: a shortened value is a different one. */
      if (strlen (eq + 1) > BWSH_ENV_VALUE_MAX)
        return bwsh_error_set (err, -E2BIG, NULL, 0, 0,
                               "environment variable %s is longer than %d bytes", name, BWSH_ENV_VALUE_MAX);
      /* bwrap's --dev has a devpts of its own, without the session's
       * pts, and binds the session's terminal at /dev/console: name that,
       * so that SSH_TTY and tty(1) agree on a device that exists. */
      if (strcmp (name, "SSH_TTY") == 0 && pol->dev_mode == BWSH_DEV_MINIMAL)
        r = env_add (p, name, "/dev/console");
      else
        r = env_add (p, name, eq + 1);
      if (r < 0)
        return r;
    }
  return 0;
}

/* ------------------------------------------------------------------ merge */

/*
 * Policy x user overlay, in one table, the way OpenSSH's sshauthopt_merge()
 * reads.  The defaults are in place (add_defaults()); the entries below are
 * merged over them in this order, and every rule of the merge is applied by
 * the step named here, nowhere else:
 *
 *   precedence  policy > user > default on the same destination; the lower
 *               one is SHADOWED with a warning (add_bind(), find_dest())
 *   ceilings    a user's read-write bind only under rw_ceilings, a user's
 *               read-only bind only under ro_ceilings when set, never /,
 *               /proc, /dev, /sys, as written and as resolved
 *               (check_path_rules(), again in bwsh_plan_resolve())
 *   locks       /, /dev, /proc, /usr, /etc and the policy's "locked" cannot
 *               be disabled; a policy bind cannot be disabled (apply_disable())
 *   protection  protected paths under a read-write mount are bound again
 *               read-only, at their path and at their resolution, and the
 *               way to them is pinned (add_protected(), after the merge)
 *   project     the user's sandboxProjectDir replaces the policy's only if
 *               user_project_dir allows it, checked like a read-write bind
 *               (choose_project_dir(), before the defaults)
 *   limits      user entries past max_mounts are refused (enforce_mount_limit())
 *   coalescing  a user bind an identical parent bind already shows is
 *               COALESCED (coalesce(), after resolution)
 *
 * The policy's entries are trusted (they may bind anything but /, /proc,
 * /dev, /sys); the user's are checked.  A refused entry is reported and the
 * rest still applies; only strict mode refuses the session.
 */
typedef enum
{
  MERGE_RO_BIND,
  MERGE_RW_BIND,
  MERGE_DISABLE,
} MergeOp;

typedef struct
{
  BwshOrigin origin;
  size_t list;      /* offset of the BwshBindList in BwshPolicy or BwshUserConfig */
  MergeOp op;
  const char *key;  /* as the administrator or the user wrote it */
} MergeEntry;

static const MergeEntry merge_table[] = {
  { BWSH_ORIGIN_POLICY, offsetof (BwshPolicy, ro_binds), MERGE_RO_BIND, "ro_binds" },
  { BWSH_ORIGIN_POLICY, offsetof (BwshPolicy, rw_binds), MERGE_RW_BIND, "rw_binds" },
  { BWSH_ORIGIN_USER, offsetof (BwshUserConfig, ro_binds), MERGE_RO_BIND, "additionalROBinds" },
  { BWSH_ORIGIN_USER, offsetof (BwshUserConfig, rw_binds), MERGE_RW_BIND, "additionalBinds" },
  { BWSH_ORIGIN_USER, offsetof (BwshUserConfig, disabled), MERGE_DISABLE, "disabledDefaultBinds" },
};

/* @uc is NULL when the policy allows no overlay. */
static int
merge (Ctx *c, const BwshUserConfig *uc)
{
  for (size_t t = 0; t < BWSH_N_ELEMENTS (merge_table); t++)
    {
      const MergeEntry *e = &merge_table[t];
      const void *from = e->origin == BWSH_ORIGIN_POLICY ? (const void *) c->pol : (const void *) uc;
      const BwshBindList *l;

      if (from == NULL)
        continue;
      l = (const BwshBindList *) (const void *) ((const char *) from + e->list);
      for (size_t i = 0; i < l->n; i++)
        {
          int r = e->op == MERGE_DISABLE ? apply_disable (c, &l->items[i])
                                         : add_bind (c, &l->items[i], e->op == MERGE_RW_BIND, e->key);
          if (r < 0)
            return r;
        }
    }
  return 0;
}

/* ------------------------------------------------------------------ build */

int
bwsh_plan_build (const BwshIdentity *id, const BwshPolicy *pol, const BwshUserConfig *uc, char *const *envp,
                 BwshPlan **ret, BwshError *err)
{
  _cleanup_ (plan_freep) BwshPlan *p = NULL;
  _cleanup_free_ char *project = NULL, *state_dir = NULL;
  Ctx c = { .id = id, .pol = pol };
  int r;

  if (pol->shell == NULL || pol->shell[0] != '/')
    return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "the inner shell must be an absolute path");

  p = calloc (1, sizeof *p);
  if (p == NULL)
    return -ENOMEM;
  c.p = p;
  p->uid = id->uid;
  p->strict = pol->strict;
  /* A fresh user namespace that cannot make another one (nested user
   * namespaces were the way back to mount() and friends), plus every
   * namespace that hides host state. */
  p->unshare[BWSH_NS_USER] = p->unshare[BWSH_NS_PID] = p->unshare[BWSH_NS_IPC] = true;
  p->unshare[BWSH_NS_UTS] = p->unshare[BWSH_NS_CGROUP] = true;
  p->network = pol->net_mode;
  p->unshare[BWSH_NS_NET] = pol->net_mode != BWSH_NET_SHARED;
  p->disable_userns = true;
  p->seccomp = BWSH_SECCOMP_SESSION;
  p->root_tmpfs_size = pol->root_tmpfs_size;
  p->tmp_tmpfs_size = pol->tmp_tmpfs_size;
  r = bwsh_landlock_request_from_policy (pol, &p->landlock);
  if (r < 0)
    return bwsh_error_set (err, r, NULL, 0, 0, "out of memory");
  p->rlimit_core = pol->rlimit_core;
  p->rlimit_nproc = pol->rlimit_nproc;
  p->rlimit_nofile = pol->rlimit_nofile;
  p->max_mounts = pol->max_mounts;
  if ((p->shell = strdup (pol->shell)) == NULL || (p->home = strdup (id->home)) == NULL
      || (pol->hostname != NULL && (p->hostname = strdup (pol->hostname)) == NULL))
    return -ENOMEM;

  if ((r = ctx_rules (&c, id->home, err)) < 0
      || (r = expand_list (&pol->locked, id->home, &c.locked, &c.n_locked, err)) < 0)
    goto out;

  r = choose_project_dir (&c, bwsh_policy_reads_overlay (pol) ? uc : NULL, &project, err);
  if (r < 0)
    goto out;
  r = choose_state_dir (&c, project, &state_dir, err);
  if (r < 0)
    goto out;
  p->start_dir = pol->start_dir == BWSH_START_PROJECT ? "project" : "home";
  if ((p->project_dir = strdup (project)) == NULL
      || (p->chdir = strdup (pol->start_dir == BWSH_START_PROJECT ? project : id->home)) == NULL)
    {
      r = -ENOMEM;
      goto out;
    }

  r = add_defaults (&c, project, state_dir);
  if (r < 0)
    goto out;

  r = merge (&c, bwsh_policy_reads_overlay (pol) ? uc : NULL);
  if (r < 0)
    goto out;

  r = add_overlay_dir (&c);
  if (r < 0)
    goto out;
  r = add_protected (&c);
  if (r < 0)
    goto out;
  r = sort_by_depth (p);
  if (r < 0)
    goto out;
  r = build_env (id, pol, envp, p, err);
  if (r < 0)
    goto out;

  /* Resolution re-checks resolved sources against the same rules: they
   * travel with the plan, expanded for this user. */
  p->rw_ceilings = steal_pointer (&c.rw_ceilings);
  p->n_rw_ceilings = c.n_rw;
  p->ro_ceilings = steal_pointer (&c.ro_ceilings);
  p->n_ro_ceilings = c.n_ro;
  p->protected_paths = steal_pointer (&c.protected_paths);
  p->policy_dirs = steal_pointer (&c.policy_dirs);
  p->n_policy_dirs = c.n_policy_dirs;
  c.n_policy_dirs = 0;
  if (pol->shell_from.file != NULL && (p->shell_file = strdup (pol->shell_from.file)) == NULL)
    {
      r = -ENOMEM;
      goto out;
    }
  p->shell_line = pol->shell_from.line;
  p->n_protected = c.n_protected;
  c.n_rw = c.n_ro = c.n_protected = 0;

  *ret = steal_pointer (&p);
  r = 0;
out:
  ctx_clear (&c);
  if (r == -ENOMEM)
    bwsh_error_set (err, r, NULL, 0, 0, "out of memory");
  return r;
}

/* ---------------------------------------------------------------- resolve */

static bool
is_bind (BwshMountKind k)
{
  return k == BWSH_MOUNT_RO_BIND || k == BWSH_MOUNT_BIND || k == BWSH_MOUNT_DEV_BIND;
}

/* "No parent" in the covering-mount table of coalesce(). */
#define NO_PARENT SIZE_MAX

/* Destination -> the last accepted mount with that destination, probed with
 * a prefix of another destination so that no parent path is copied. */
typedef struct
{
  const BwshMount *mounts;
  size_t *slots; /* index + 1, 0 = empty */
  size_t cap;    /* power of two, at least twice the number of mounts */
} DestMap;

static size_t *
dest_map_slot (DestMap *d, const char *dest, size_t n)
{
  size_t k = hash_path_n (dest, n) & (d->cap - 1);

  for (;; k = (k + 1) & (d->cap - 1))
    {
      const char *have;

      if (d->slots[k] == 0)
        return &d->slots[k];
      have = d->mounts[d->slots[k] - 1].dest;
      if (strncmp (have, dest, n) == 0 && have[n] == '\0')
        return &d->slots[k];
    }
}

/* The deepest mount in @d whose destination is @dest or a parent of it:
 * at most one probe per path element, whatever the size of the plan. */
static size_t
dest_map_cover (DestMap *d, const char *dest)
{
  size_t n = strlen (dest);

  for (;;)
    {
      size_t v = *dest_map_slot (d, dest, n);
      if (v != 0)
        return v - 1;
      if (n <= 1)
        return NO_PARENT;
      while (n > 1 && dest[n - 1] != '/')
        n--;
      if (n > 1)
        n--; /* "/a/b" -> "/a"; "/a" -> "/" */
    }
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
static int
coalesce (BwshPlan *p, size_t *ret_parent)
{
  DestMap map = { .mounts = p->mounts, .cap = 64 };
  int r = 0;

  while (map.cap < p->n_mounts * 2)
    map.cap *= 2;
  map.slots = calloc (map.cap, sizeof *map.slots);
  if (map.slots == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < p->n_mounts && r >= 0; i++)
    {
      BwshMount *m = &p->mounts[i];

      ret_parent[i] = NO_PARENT;
      if (m->verdict != BWSH_VERDICT_ACCEPTED)
        continue;
      if (is_bind (m->kind) && m->from.origin != BWSH_ORIGIN_POLICY)
        {
          size_t q = dest_map_cover (&map, m->dest);
          if (q != NO_PARENT && shows_same (&p->mounts[q], m))
            {
              r = set_reason (m, BWSH_VERDICT_COALESCED, "already visible through the bind of %s",
                              p->mounts[q].dest);
              ret_parent[i] = q;
              continue;
            }
        }
      *dest_map_slot (&map, m->dest, strlen (m->dest)) = i + 1;
    }
  free (map.slots);
  return r;
}

/* A coalesced bind was left to its parent: if the parent does not reach
 * bwrap after all, neither does it. */
static bool
parent_dropped (const BwshPlan *p, const size_t *parent, size_t i)
{
  return p->mounts[i].verdict == BWSH_VERDICT_COALESCED && parent[i] != NO_PARENT
         && p->mounts[parent[i]].verdict != BWSH_VERDICT_ACCEPTED;
}

/* max_mounts counts what reaches bwrap: after resolution and coalescing, so
 * that entries bwrap never sees cost nothing and warn about nothing.  The
 * defaults and the policy's own binds are never cut. */
static int
enforce_mount_limit (BwshPlan *p, const size_t *parent)
{
  size_t accepted = 0;

  for (size_t i = 0; i < p->n_mounts; i++)
    accepted += p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED && p->mounts[i].from.origin != BWSH_ORIGIN_USER;
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      BwshMount *m = &p->mounts[i];
      bool orphan = parent_dropped (p, parent, i);

      if (!orphan && (m->verdict != BWSH_VERDICT_ACCEPTED || m->from.origin != BWSH_ORIGIN_USER))
        continue;
      if (!orphan && ++accepted <= p->max_mounts)
        continue;
      int r = refuse (p, m, BWSH_VERDICT_REFUSED, m->dest, "the policy's limit of %u mounts is reached",
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
    n += p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED && is_bind (p->mounts[i].kind)
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
static int
reserve_fds (BwshPlan *p, const size_t *parent, BwshError *err)
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
      if (m->verdict != BWSH_VERDICT_ACCEPTED || !is_bind (m->kind) || m->from.origin != BWSH_ORIGIN_USER)
        continue;
      if (set_reason (m, BWSH_VERDICT_REFUSED, "left out: no file descriptor for it under the open file limit") < 0)
        return -ENOMEM;
      p->n_refused++;
      drop--;
    }
  for (size_t i = 0; i < p->n_mounts; i++)
    if (parent_dropped (p, parent, i))
      {
        if (set_reason (&p->mounts[i], BWSH_VERDICT_REFUSED,
                        "left out: no file descriptor for it under the open file limit") < 0)
          return -ENOMEM;
        p->n_refused++;
      }
  return bwsh_diag_add (&p->diag,
                        "%zu of the user's binds left out: the open file limit (ulimit -n, hard %llu) leaves "
                        "file descriptors for %zu binds",
                        need - avail, (unsigned long long) rl.rlim_max, avail);
}

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
  return set_reason (m, BWSH_VERDICT_ACCEPTED, "state = \"persistent\", but state_dir cannot be used");
}

static int dry_run_created (const BwshPlan *p, const char *path, char **ret, BwshError *err);

/* The persistent state directory, resolved and checked again: it must be
 * the user's own directory, writable by nobody else, and still not a place
 * that programs outside the sandbox read once symlinks are followed. */
static int
resolve_state (BwshPlan *p, const Ctx *c, BwshMount *m, BwshResolveMode mode, bool *ret_unopened)
{
  _cleanup_free_ char *resolved = NULL;
  const char *why = NULL;
  char buf[BWSH_MESSAGE_MAX + 64];
  struct stat st;

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
          if (dry_run_created (p, m->src, &planned, &e) >= 0 && planned != NULL)
            {
              free (m->src);
              m->src = steal_pointer (&planned);
            }
          *ret_unopened = true;
          return set_reason (m, BWSH_VERDICT_ACCEPTED,
                             "state = \"persistent\": does not exist yet, a session creates it (0700)");
        }
    }
  resolved = realpath (m->src, NULL);
  if (resolved == NULL)
    {
      snprintf (buf, sizeof buf, "cannot resolve: %s", strerror (errno));
      why = buf;
    }
  else if ((why = bwsh_state_dir_refusal (c->protected_paths, c->n_protected, p->home, p->project_dir, resolved))
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
static int
check_state_conflict (BwshPlan *p, BwshMount *m, int state_fd)
{
  const char *name = strrchr (m->dest, '/') + 1;
  struct stat st, real;

  if (state_fd < 0 || fstatat (state_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return 0;
  if (m->kind == BWSH_MOUNT_RO_BIND && !S_ISLNK (st.st_mode) && fstat (m->fd, &real) == 0
      && S_ISDIR (real.st_mode) == S_ISDIR (st.st_mode))
    return 0;
  if (m->fd >= 0)
    close (m->fd);
  m->fd = -1;
  if (m->kind == BWSH_MOUNT_SYMLINK && S_ISLNK (st.st_mode))
    {
      char target[PATH_MAX];
      ssize_t n = readlinkat (state_fd, name, target, sizeof target - 1);
      if (n > 0 && (target[n] = '\0', strcmp (target, m->src) == 0))
        return set_reason (m, BWSH_VERDICT_COALESCED, "the persistent state has the same symlink");
    }
  return refuse (p, m, BWSH_VERDICT_SKIPPED, m->dest,
                 "the persistent state has an entry of another kind with this name, which shows instead");
}

/* Dry run: where @path, which bwsh would create under $HOME, would be.
 * NULL in *ret when it exists (resolve it as usual). */
static int
dry_run_created (const BwshPlan *p, const char *path, char **ret, BwshError *err)
{
  _cleanup_free_ char *home = NULL;
  bool would_create = false;
  int r;

  *ret = NULL;
  if (!bwsh_path_has_prefix (path, p->home))
    return 0;
  r = bwsh_mkdir_under_home_dry_run (p->home, path, &would_create, err);
  if (r < 0 || !would_create)
    return r;
  home = realpath (p->home, NULL);
  if (home == NULL)
    return bwsh_error_set (err, -errno, NULL, 0, 0, "home directory %s: %s", p->home, strerror (errno));
  if (asprintf (ret, "%s%s", strcmp (home, "/") == 0 ? "" : home, path + strlen (p->home)) < 0)
    {
      *ret = NULL;
      return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
    }
  return 0;
}

/* The deepest accepted mount before @before whose destination holds @dest:
 * the file system bwrap has to create @dest's mount point in. */
static ssize_t
covering_mount (const BwshPlan *p, const char *dest, size_t before)
{
  ssize_t best = -1;

  for (size_t j = 0; j < before; j++)
    {
      const BwshMount *q = &p->mounts[j];
      if (q->verdict != BWSH_VERDICT_ACCEPTED || q->kind == BWSH_MOUNT_SYMLINK || q->kind == BWSH_MOUNT_REMOUNT_RO
          || strcmp (q->dest, dest) == 0 || !bwsh_path_has_prefix (dest, q->dest))
        continue;
      if (best < 0 || bwsh_path_depth (q->dest) >= bwsh_path_depth (p->mounts[best].dest))
        best = (ssize_t) j;
    }
  return best;
}

/* Create the missing mount point @path (a directory, or an empty file when
 * @is_dir is false) as the user, below @home, following no symlink. */
static int
make_mount_point (const char *home, const char *path, bool is_dir, BwshError *err)
{
  _cleanup_free_ char *parent = strdup (path);
  _cleanup_close_ int dfd = -1, fd = -1;
  char *slash;
  int r;

  if (is_dir)
    return bwsh_mkdir_under_home (home, path, err);
  if (parent == NULL)
    return -ENOMEM;
  slash = strrchr (parent, '/');
  *slash = '\0';
  r = bwsh_mkdir_under_home (home, parent, err);
  if (r < 0)
    return r;
  r = bwsh_open_path_nofollow (parent, &dfd);
  if (r < 0)
    return bwsh_error_set (err, r, NULL, 0, 0, "%s: %s", parent, strerror (-r));
  fd = openat (dfd, slash + 1, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0)
    return bwsh_error_set (err, -errno, NULL, 0, 0, "%s: %s", path, strerror (errno));
  return 0;
}

/* A bind whose mount point is missing under a read-only mount (an RO bind
 * to ~/data inside the read-only real home of state = "none", or to
 * ~/src/new below an entry of the real home shown over the state) would
 * fail inside bwrap and refuse every login.  On the state itself, or any
 * tmpfs or read-write bind, bwrap makes the mount point and nothing is
 * reported.  Where the user may create it, below $HOME, bwsh does so as
 * the user in the run mode; anywhere else the entry is skipped with a
 * warning.  Only strict mode refuses the session. */
static int
prepare_destinations (BwshPlan *p, BwshResolveMode mode)
{
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      BwshMount *m = &p->mounts[i];
      _cleanup_free_ char *host = NULL;
      struct stat st;
      ssize_t k;
      bool is_dir = true;
      const BwshMount *q;
      int r;

      /* Defaults and what resolve creates itself (create_dir) are not entries. */
      if (m->verdict != BWSH_VERDICT_ACCEPTED || !is_bind (m->kind) || m->from.origin == BWSH_ORIGIN_DEFAULT
          || m->file_placeholder || m->create_dir)
        continue;
      k = covering_mount (p, m->dest, i);
      if (k < 0)
        continue;
      q = &p->mounts[k];
      if (q->kind != BWSH_MOUNT_RO_BIND || q->src == NULL)
        continue; /* a tmpfs or a read-write bind: bwrap makes the mount point */
      if (asprintf (&host, "%s%s", strcmp (q->src, "/") == 0 ? "" : q->src,
                    m->dest + (strcmp (q->dest, "/") == 0 ? 0 : strlen (q->dest))) < 0)
        return -ENOMEM;
      if (lstat (host, &st) == 0)
        continue;
      if (stat (m->src, &st) == 0)
        is_dir = S_ISDIR (st.st_mode);

      if (!bwsh_path_has_prefix (host, p->home) || strcmp (host, p->home) == 0)
        r = -EROFS;
      else if (mode == BWSH_RESOLVE_DRY_RUN)
        {
          _cleanup_free_ char *esc = bwsh_escape (m->dest, strlen (m->dest));
          _cleanup_free_ char *where = format_from (&m->from);
          if (esc == NULL || where == NULL)
            return -ENOMEM;
          r = bwsh_diag_add (&p->diag, "%s%s: mount point does not exist yet; bwsh creates it at login", where, esc);
          if (r < 0)
            return r;
          continue;
        }
      else
        {
          BwshError e = { 0 };
          r = make_mount_point (p->home, host, is_dir, &e);
          if (r == -ENOMEM)
            return r;
          if (r >= 0)
            continue;
        }
      r = refuse (p, m, p->strict ? BWSH_VERDICT_REFUSED : BWSH_VERDICT_SKIPPED, m->dest,
                  "destination cannot be made: %s is read-only inside the sandbox (%s)", q->dest,
                  r == -EROFS ? "skipped" : strerror (-r));
      if (r < 0)
        return r;
      if (m->fd >= 0)
        {
          close (m->fd);
          m->fd = -1;
        }
    }
  return 0;
}

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
  if (set_reason (m, BWSH_VERDICT_REFUSED, "%s", err->message) < 0)
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

      if (parent_dropped (p, parent, i))
        {
          r = refuse (p, m, BWSH_VERDICT_REFUSED, m->src, "%s, which showed it, could not be bound",
                      p->mounts[parent[i]].dest);
          if (r < 0)
            return r;
          continue;
        }
      if (m->verdict != BWSH_VERDICT_ACCEPTED || !is_bind (m->kind) || unopened[i])
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
          r = refuse (p, m, BWSH_VERDICT_REFUSED, m->src, "changed while it was checked (%s)", strerror (-r));
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
              r = refuse (p, m, BWSH_VERDICT_REFUSED, m->src, "%s", why);
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

int
bwsh_plan_resolve (BwshPlan *p, BwshResolveMode mode, BwshError *err)
{
  /* The rule context for re-checking resolved sources, borrowed from the plan. */
  Ctx c = {
    .p = p,
    .rw_ceilings = p->rw_ceilings, .n_rw = p->n_rw_ceilings,
    .ro_ceilings = p->ro_ceilings, .n_ro = p->n_ro_ceilings,
    .protected_paths = p->protected_paths, .n_protected = p->n_protected,
    .policy_dirs = p->policy_dirs, .n_policy_dirs = p->n_policy_dirs,
  };
  BwshError first = { 0 }, e_mount = { 0 };
  /* parent: see coalesce(); unopened: a dry run's directories to be created */
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
      _cleanup_free_ char *resolved = NULL;
      bool planned = false;
      const char *why;
      int e;

      if (m->verdict != BWSH_VERDICT_ACCEPTED)
        continue;
      /* Sorted parents first: the state comes before the home's entries. */
      if (m->state && m->kind == BWSH_MOUNT_BIND)
        {
          r = resolve_state (p, &c, m, mode, &unopened[i]);
          if (r < 0)
            goto out;
          state_fd = m->kind == BWSH_MOUNT_BIND ? m->fd : -1;
          continue;
        }
      if (m->home_entry)
        {
          r = check_state_conflict (p, m, state_fd);
          if (r < 0)
            goto out;
          continue;
        }
      if (!is_bind (m->kind))
        continue;

      e_mount = (BwshError) { 0 };
      if (m->create_dir && bwsh_path_has_prefix (m->src, p->home))
        {
          if (mode == BWSH_RESOLVE_DRY_RUN)
            r = dry_run_created (p, m->src, &resolved, &e_mount);
          else
            r = bwsh_mkdir_under_home (p->home, m->src, &e_mount);
          /* The editable overlay's directory is a convenience: if it
           * cannot be made (a symlink on the way), it stays read-only, as
           * explain shows; no entry of the user's was refused. */
          if (r < 0 && m->exact_source && r != -ENOMEM)
            {
              r = set_reason (m, BWSH_VERDICT_SKIPPED, "%s (left read-only)", e_mount.message);
              if (r < 0)
                goto out;
              continue;
            }
          if (r < 0 && (r = fatal (p, m, mode, r, &first, &e_mount)) < 0)
            goto out;
          if (m->verdict != BWSH_VERDICT_ACCEPTED)
            continue;
          planned = resolved != NULL;
        }
      if (resolved == NULL)
        resolved = resolve_source (m->src, &memo);
      if (resolved == NULL)
        {
          e = errno;
          if (e == ENOENT && m->optional)
            {
              r = refuse (p, m, BWSH_VERDICT_SKIPPED, m->src, "source does not exist (skipped)");
              if (r < 0)
                goto out;
              continue;
            }
          if (m->from.origin == BWSH_ORIGIN_USER)
            {
              r = refuse (p, m, BWSH_VERDICT_REFUSED, m->src, "cannot resolve: %s", strerror (e));
              if (r < 0)
                goto out;
              continue;
            }
          r = bwsh_error_set (&e_mount, -e, NULL, 0, 0, "%s: %s", m->src, strerror (e));
          if ((r = fatal (p, m, mode, r, &first, &e_mount)) < 0)
            goto out;
          continue;
        }

      /* The same rules again, on what the path really names.  The project
       * directory is a default but lives in the user's home: check it too. */
      why = NULL;
      if (m->exact_source)
        {
          /* The overlay's directory is the one protected path left
           * writable: only at its own place, never through a symlink. */
          if (strcmp (resolved, m->src) != 0)
            {
              r = set_reason (m, BWSH_VERDICT_SKIPPED, "resolves to %s: must not be a symbolic link "
                              "(left read-only)", resolved);
              if (r < 0)
                goto out;
              continue;
            }
        }
      else if (m->from.origin == BWSH_ORIGIN_USER || (m->from.origin == BWSH_ORIGIN_DEFAULT && m->kind == BWSH_MOUNT_BIND))
        why = check_path_rules (&c, resolved, m->kind == BWSH_MOUNT_BIND, true);
      if (why == NULL && m->from.origin == BWSH_ORIGIN_USER)
        why = bwsh_rules_overlay_source (resolved, p->home, c.policy_dirs, c.n_policy_dirs,
                                         m->kind == BWSH_MOUNT_BIND ? c.rw_ceilings : c.ro_ceilings,
                                         m->kind == BWSH_MOUNT_BIND ? c.n_rw : c.n_ro);
      if (why == NULL && m->kind == BWSH_MOUNT_BIND && m->from.origin != BWSH_ORIGIN_POLICY
          && strcmp (resolved, m->dest) != 0)
        for (size_t k = 0; k < c.n_protected; k++)
          if (bwsh_path_has_prefix (c.protected_paths[k], resolved))
            why = "contains a protected path and is not bound at its own place";
      if (why != NULL && m->from.origin == BWSH_ORIGIN_DEFAULT)
        {
          /* The project directory (or $HOME) was swapped for a symlink:
           * there is no safe plan to fall back to. */
          r = bwsh_error_set (&e_mount, -EPERM, NULL, 0, 0, "%s resolves to %s: %s", m->src, resolved, why);
          if ((r = fatal (p, m, mode, r, &first, &e_mount)) < 0)
            goto out;
          continue;
        }
      if (why != NULL)
        {
          r = refuse (p, m, BWSH_VERDICT_REFUSED, m->src, "resolves to %s: %s", resolved, why);
          if (r < 0)
            goto out;
          continue;
        }

      if (planned)
        {
          /* Explain and check create nothing: the first login will. */
          if (strcmp (m->src, p->project_dir) == 0)
            p->project_dir_missing = true;
          r = set_reason (m, BWSH_VERDICT_ACCEPTED, "does not exist yet: a session creates it (0700)");
          if (r < 0)
            goto out;
          unopened[i] = true;
        }
      /* Opened below, once coalescing and the limits have said which
       * binds reach bwrap: the open refuses any symlink on the way, so the
       * checked path is what gets bound. */
      free (m->src);
      m->src = steal_pointer (&resolved);
    }

  if ((r = coalesce (p, parent)) < 0 || (r = enforce_mount_limit (p, parent)) < 0
      || (r = reserve_fds (p, parent, &first)) < 0 || (r = open_sources (p, parent, unopened, mode, &first)) < 0
      || (r = prepare_destinations (p, mode)) < 0)
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
