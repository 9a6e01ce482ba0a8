/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The invariants of issue #6, checked on every plan the fuzzers reach:
 *   - the critical mounts are present, accepted and never replaced;
 *   - no read-write mount lies outside the ceilings;
 *   - protected paths are read-only even under a read-write parent;
 *   - the command comes only after "--", and the options are a well-formed
 *     bwrap option list (so nothing the user wrote can become an option).
 * Plus what keeps the output honest: parents are mounted before children,
 * every accepted mount is rendered exactly once, the session variables are
 * ours and not the caller's, diagnostics stay on one line, and the JSON
 * explanation is JSON.
 */
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "invariants.h"

static void violation (const char *fmt, ...) __attribute__ ((noreturn, format (printf, 1, 2)));

static void
violation (const char *fmt, ...)
{
  va_list ap;

  fputs ("INVARIANT VIOLATED: ", stderr);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  abort ();
}

/* Writable copies: the core's structs hold char *, not const char *. */
static char fuzz_name[] = FUZZ_USER, fuzz_home[] = FUZZ_HOME, fuzz_shell[] = "/usr/bin/bwsh";
static char fuzz_group_own[] = "bwshfuzz", fuzz_group_users[] = "users";
static char *fuzz_groups[] = { fuzz_group_own, fuzz_group_users, NULL };

void
fuzz_identity (BwshIdentity *id)
{
  *id = (BwshIdentity) {
    .uid = FUZZ_UID,
    .gid = FUZZ_UID,
    .name = fuzz_name,
    .home = fuzz_home,
    .shell = fuzz_shell,
    .groups = fuzz_groups,
    .n_groups = 2,
  };
}

/* What an attacker leaves in the environment of the login shell. */
static char env_ld_preload[] = "LD_PRELOAD=/tmp/evil.so", env_ld_path[] = "LD_LIBRARY_PATH=/tmp",
            env_bash_env[] = "BASH_ENV=/tmp/evil.sh", env_env[] = "ENV=/tmp/evil.sh",
            env_path[] = "PATH=/tmp/evil:/usr/bin", env_home[] = "HOME=/", env_shell[] = "SHELL=/tmp/evil",
            env_user[] = "USER=root", env_logname[] = "LOGNAME=root", env_term[] = "TERM=xterm-256color",
            env_lc[] = "LC_ALL=C.UTF-8", env_noname[] = "=novalue", env_noeq[] = "NOEQUALS";
char *const fuzz_hostile_env[] = {
  env_ld_preload, env_ld_path, env_bash_env, env_env, env_path, env_home, env_shell,
  env_user, env_logname, env_term, env_lc, env_noname, env_noeq, NULL,
};

/* Variables only the plan may set, with the values it must give them. */
static const char *const fixed_env_names[] = { "HOME", "USER", "LOGNAME", "SHELL", "PATH" };

static bool
has_control (const char *s)
{
  for (; *s != '\0'; s++)
    if ((unsigned char) *s < 0x20 || *s == 0x7f)
      return true;
  return false;
}

typedef struct
{
  char **v;
  size_t n;
} Paths;

static void
paths_clear (Paths *p)
{
  for (size_t i = 0; i < p->n; i++)
    free (p->v[i]);
  free (p->v);
  *p = (Paths) { 0 };
}

/* Expand a policy list the way core/plan/ must have; false if one does not expand
 * (then plan_build had to fail, which the caller checks). */
static bool
expand (const BwshBindList *l, const char *home, Paths *ret)
{
  Paths p = { calloc (l->n + 1, sizeof (char *)), 0 };

  if (p.v == NULL)
    abort ();
  for (size_t i = 0; i < l->n; i++)
    {
      if (bwsh_path_expand (l->items[i].src, home, &p.v[i]) < 0)
        {
          paths_clear (&p);
          return false;
        }
      p.n++;
    }
  *ret = p;
  return true;
}

/* The protected set the plan must hold: the built-in one plus the policy's. */
static bool
expand_protected (const BwshBindList *l, const char *home, Paths *ret)
{
  Paths p;

  if (!expand (l, home, &p))
    return false;
  char **v = realloc (p.v, (p.n + bwsh_n_protected_defaults + 1) * sizeof (char *));
  if (v == NULL)
    abort ();
  p.v = v;
  for (size_t i = 0; i < bwsh_n_protected_defaults; i++)
    {
      if (bwsh_path_expand (bwsh_protected_defaults[i].tmpl, home, &p.v[p.n]) < 0)
        {
          paths_clear (&p);
          return false;
        }
      p.n++;
    }
  p.v[p.n] = NULL;
  *ret = p;
  return true;
}

static bool
accepted (const BwshMount *m)
{
  return m->verdict == BWSH_VERDICT_ACCEPTED;
}

static bool
is_normalized (const char *path)
{
  char *n = NULL;
  bool ok;

  if (path == NULL || bwsh_path_normalize (path, &n) != BWSH_PATH_OK)
    return false;
  ok = strcmp (n, path) == 0;
  free (n);
  return ok;
}

/* ------------------------------------------------------------ mounts */

static void
check_critical (const BwshPlan *p, const BwshPolicy *pol)
{
  static const struct
  {
    const char *dest;
    BwshMountKind kind;
    const char *src;
  } crit[] = {
    { "/", BWSH_MOUNT_TMPFS, NULL },
    { "/usr", BWSH_MOUNT_RO_BIND, "/usr" },
    { "/etc", BWSH_MOUNT_RO_BIND, "/etc" },
    { "/dev", BWSH_MOUNT_DEV, NULL },
    { "/proc", BWSH_MOUNT_PROC, NULL },
  };
  ssize_t first_accepted = -1;

  for (size_t i = 0; i < p->n_mounts; i++)
    if (accepted (&p->mounts[i]))
      {
        first_accepted = (ssize_t) i;
        break;
      }
  if (first_accepted < 0 || p->mounts[first_accepted].kind != BWSH_MOUNT_TMPFS
      || strcmp (p->mounts[first_accepted].dest, "/") != 0)
    violation ("the first accepted mount is not the tmpfs on /");

  for (size_t c = 0; c < BWSH_N_ELEMENTS (crit); c++)
    {
      BwshMountKind kind = crit[c].kind;
      const char *src = crit[c].src;
      size_t found = 0;

      if (strcmp (crit[c].dest, "/dev") == 0 && pol->dev_mode == BWSH_DEV_HOST)
        {
          kind = BWSH_MOUNT_DEV_BIND;
          src = "/dev";
        }
      for (size_t i = 0; i < p->n_mounts; i++)
        {
          const BwshMount *m = &p->mounts[i];
          if (!accepted (m) || strcmp (m->dest, crit[c].dest) != 0)
            continue;
          /* The default makes the rest of bwrap's /dev read-only after it
           * is built: that narrows the mount, it does not replace it. */
          if (m->kind == BWSH_MOUNT_REMOUNT_RO && m->from.origin == BWSH_ORIGIN_DEFAULT
              && strcmp (m->dest, "/dev") == 0 && pol->dev_mode == BWSH_DEV_MINIMAL)
            continue;
          if (m->kind != kind || m->from.origin != BWSH_ORIGIN_DEFAULT
              || (src != NULL && (m->src == NULL || strcmp (m->src, src) != 0)))
            violation ("critical mount %s is replaced by a %s mount from the %s (src %s)", crit[c].dest,
                       bwsh_mount_kind_to_string (m->kind), bwsh_origin_to_string (m->from.origin),
                       m->src ? m->src : "-");
          found++;
        }
      if (found != 1)
        violation ("critical mount %s is present %zu times (want exactly once, accepted)", crit[c].dest, found);
    }
}

static void
check_order_and_form (const BwshPlan *p)
{
  size_t last_depth = 0;

  for (size_t i = 0; i < p->n_mounts; i++)
    {
      const BwshMount *m = &p->mounts[i];
      size_t d;

      if (!accepted (m))
        continue;
      if (!is_normalized (m->dest))
        violation ("accepted mount %zu has a destination that is not a normalised absolute path", i);
      if ((m->kind == BWSH_MOUNT_RO_BIND || m->kind == BWSH_MOUNT_BIND || m->kind == BWSH_MOUNT_DEV_BIND)
          && !is_normalized (m->src))
        violation ("accepted bind on %s has a source that is not a normalised absolute path", m->dest);
      d = bwsh_path_depth (m->dest);
      if (d < last_depth)
        violation ("mount on %s (depth %zu) comes after a deeper one: a parent would hide it", m->dest, d);
      last_depth = d;
    }
}

static void
check_rw (const BwshPlan *p, const BwshPolicy *pol, const Paths *ceilings, const Paths *protected_paths,
          const char *default_project, bool all_under_home)
{
  bool user_chose_project = strcmp (p->project_dir, default_project) != 0;
  size_t n_rw_default = 0;

  for (size_t i = 0; i < p->n_mounts; i++)
    {
      const BwshMount *m = &p->mounts[i];
      bool check;

      if (!accepted (m))
        continue;
      if (m->kind == BWSH_MOUNT_DEV_BIND)
        {
          if (pol->dev_mode != BWSH_DEV_HOST || strcmp (m->dest, "/dev") != 0)
            violation ("a --dev-bind on %s that the policy did not ask for", m->dest);
          continue;
        }
      if (m->kind != BWSH_MOUNT_BIND)
        continue;

      if (m->from.origin == BWSH_ORIGIN_DEFAULT && m->state)
        {
          /* The kept state (state = "persistent"): state_dir at $HOME,
           * never the real home itself, the project or a protected path. */
          if (pol->state_mode != BWSH_STATE_PERSISTENT || strcmp (m->dest, p->home) != 0
              || strcmp (m->src, p->home) == 0 || bwsh_path_has_prefix (m->src, p->project_dir)
              || bwsh_path_has_prefix (p->project_dir, m->src)
              || bwsh_path_under_any (m->src, protected_paths->v, protected_paths->n))
            violation ("the kept state's bind %s -> %s is not state_dir at $HOME %s", m->src, m->dest, p->home);
          continue;
        }
      if (m->from.origin == BWSH_ORIGIN_DEFAULT)
        {
          /* The one default read-write bind is the project directory. */
          if (++n_rw_default > 1 || strcmp (m->dest, p->project_dir) != 0 || strcmp (m->src, p->project_dir) != 0)
            violation ("default read-write bind %s -> %s is not the project directory %s", m->src, m->dest,
                       p->project_dir);
          /* The project directory is the built-in read-write ceiling
           * (issue 24): one the user chose lies below $HOME, and not under
           * a hidden name that programs outside read. */
          if (user_chose_project && (!bwsh_path_has_prefix (m->dest, p->home) || strcmp (m->dest, p->home) == 0))
            violation ("the user's project directory %s is not below $HOME", m->dest);
          if (user_chose_project && strstr (m->dest + strlen (p->home), "/.") != NULL)
            violation ("the user's project directory %s is hidden", m->dest);
          check = false;
        }
      else
        check = m->from.origin == BWSH_ORIGIN_USER;

      if (all_under_home && (!bwsh_path_has_prefix (m->src, p->home) || !bwsh_path_has_prefix (m->dest, p->home)))
        violation ("read-write bind %s -> %s lies outside $HOME", m->src, m->dest);
      if (!check)
        continue; /* the administrator's own rw_binds and project_dir */
      if (bwsh_path_is_forbidden (m->src) || bwsh_path_is_forbidden (m->dest))
        violation ("user read-write bind %s -> %s touches /, /proc, /dev or /sys", m->src, m->dest);
      if (!bwsh_path_under_any (m->src, ceilings->v, ceilings->n) || !bwsh_path_under_any (m->dest, ceilings->v, ceilings->n))
        violation ("user read-write bind %s -> %s lies outside the read-write ceilings", m->src, m->dest);
      if (bwsh_path_under_any (m->src, protected_paths->v, protected_paths->n)
          || bwsh_path_under_any (m->dest, protected_paths->v, protected_paths->n))
        violation ("user read-write bind %s -> %s is a protected path or below one", m->src, m->dest);
    }
}

static void
check_protected (const BwshPlan *p, const Paths *protected_paths)
{
  for (size_t k = 0; k < protected_paths->n; k++)
    {
      const char *path = protected_paths->v[k];
      ssize_t last_cover = -1, first_rw = -1;

      for (size_t i = 0; i < p->n_mounts; i++)
        {
          const BwshMount *m = &p->mounts[i];
          if (!accepted (m) || !bwsh_path_has_prefix (path, m->dest))
            continue;
          /* The kept state at $HOME (check_rw() holds it to state_dir):
           * what it shows at a protected path is state_dir's, never the
           * host's protected path, whose real entry, if any, is bound
           * read-only over it like every entry of the real home. */
          if (m->kind == BWSH_MOUNT_BIND && m->state)
            continue;
          last_cover = (ssize_t) i;
          if (m->kind == BWSH_MOUNT_BIND && first_rw < 0)
            first_rw = (ssize_t) i;
        }
      if (first_rw < 0)
        continue;
      const BwshMount *last = &p->mounts[last_cover];
      /* user_config_mode = "editable": the overlay's directory, bound onto
       * itself, is the one deliberate exception. */
      if (last->kind == BWSH_MOUNT_BIND && last->exact_source && strcmp (last->dest, path) == 0
          && last->src != NULL && strcmp (last->src, path) == 0)
        continue;
      if (last_cover <= first_rw || strcmp (last->dest, path) != 0
          || (last->kind != BWSH_MOUNT_RO_BIND && last->kind != BWSH_MOUNT_REMOUNT_RO))
        violation ("protected path %s lies under the read-write mount of %s and is not re-bound read-only after "
                   "it (last mount covering it: %s %s)",
                   path, p->mounts[first_rw].dest, bwsh_mount_kind_to_string (last->kind), last->dest);
      if (last->kind == BWSH_MOUNT_REMOUNT_RO
          && (last_cover == 0 || p->mounts[last_cover - 1].kind != BWSH_MOUNT_TMPFS
              || strcmp (p->mounts[last_cover - 1].dest, path) != 0))
        violation ("protected path %s is remounted read-only without its own tmpfs before", path);
    }
}

static void
check_diag (const BwshDiag *d, const char *what)
{
  for (size_t i = 0; i < d->n; i++)
    if (has_control (d->lines[i]))
      violation ("%s diagnostic %zu contains a control character (a forged log line)", what, i);
}

/* ------------------------------------------------------------ render */

typedef struct
{
  const char *name;
  int nargs;
  bool mount;
} BwrapOption;

/* Every option bwsh may give bwrap, with its arity. */
static const BwrapOption bwrap_options[] = {
  { "--unshare-user", 0, false },   { "--unshare-pid", 0, false },  { "--unshare-ipc", 0, false },
  { "--unshare-uts", 0, false },    { "--unshare-cgroup-try", 0, false }, { "--unshare-net", 0, false },
  { "--disable-userns", 0, false }, { "--die-with-parent", 0, false }, { "--clearenv", 0, false },
  { "--hostname", 1, false },       { "--setenv", 2, false },        { "--chdir", 1, false },
  { "--seccomp", 1, false },        { "--size", 1, false },          { "--tmpfs", 1, true },
  { "--ro-bind", 2, true },         { "--ro-bind-fd", 2, true },     { "--bind", 2, true },
  { "--bind-fd", 2, true },         { "--dev-bind", 2, true },       { "--dev", 1, true },
  { "--proc", 1, true },            { "--symlink", 2, true },        { "--dir", 1, true },
  { "--remount-ro", 1, true },
};

static const BwrapOption *
find_option (const char *s)
{
  for (size_t i = 0; i < BWSH_N_ELEMENTS (bwrap_options); i++)
    if (strcmp (bwrap_options[i].name, s) == 0)
      return &bwrap_options[i];
  return NULL;
}

static void
check_options (const BwshPlan *p, const BwshPolicy *pol, const BwshArgv *a)
{
  static const char *const required[] = { "--unshare-user", "--unshare-pid", "--unshare-ipc",
                                          "--disable-userns", "--die-with-parent", "--clearenv" };
  bool seen[BWSH_N_ELEMENTS (required)] = { false };
  size_t fixed_seen[BWSH_N_ELEMENTS (fixed_env_names)] = { 0 };
  size_t mount_index = 0;

  if (a->v == NULL || a->v[a->n] != NULL)
    violation ("options argv is not NULL-terminated");
  for (size_t i = 0; i < a->n; i++)
    if (a->v[i] == NULL || strcmp (a->v[i], "--") == 0)
      violation ("options argv element %zu is \"--\" or NULL: the command could start early", i);

  for (size_t i = 0; i < a->n;)
    {
      const BwrapOption *o = find_option (a->v[i]);

      if (o == NULL)
        violation ("options argv element %zu (\"%.64s\") is not a bwrap option bwsh uses", i, a->v[i]);
      if (i + (size_t) o->nargs >= a->n + (o->nargs > 0 ? 0 : 1))
        violation ("option %s at %zu lacks its %d argument(s)", o->name, i, o->nargs);
      for (size_t k = 0; k < BWSH_N_ELEMENTS (required); k++)
        seen[k] = seen[k] || strcmp (o->name, required[k]) == 0;

      if (strcmp (o->name, "--setenv") == 0)
        {
          const char *name = a->v[i + 1], *value = a->v[i + 2];
          for (size_t k = 0; k < BWSH_N_ELEMENTS (fixed_env_names); k++)
            if (strcmp (name, fixed_env_names[k]) == 0)
              fixed_seen[k]++;
          if (strcmp (name, "HOME") == 0 && strcmp (value, p->home) != 0)
            violation ("HOME is %.64s, not the identity's home", value);
          if (strcmp (name, "SHELL") == 0 && strcmp (value, pol->shell) != 0)
            violation ("SHELL is %.64s, not the policy's shell", value);
          if ((strcmp (name, "USER") == 0 || strcmp (name, "LOGNAME") == 0) && strcmp (value, FUZZ_USER) != 0)
            violation ("%s is %.64s, not the identity's name", name, value);
          if (strcmp (name, "PATH") == 0 && strstr (value, "/tmp/evil") != NULL)
            violation ("the caller's PATH reached the sandbox");
          if (pol->env_allow.n == 0
              && (strncmp (name, "LD_", 3) == 0 || strcmp (name, "BASH_ENV") == 0 || strcmp (name, "ENV") == 0))
            violation ("%s reached the sandbox without the policy allowing it", name);
        }

      if (o->mount)
        {
          /* The n-th mount option must be the n-th accepted mount. */
          while (mount_index < p->n_mounts && !accepted (&p->mounts[mount_index]))
            mount_index++;
          if (mount_index >= p->n_mounts)
            violation ("more mount options than accepted mounts (%s)", o->name);
          const BwshMount *m = &p->mounts[mount_index++];
          const char *dest = a->v[i + (size_t) o->nargs];
          if (strcmp (dest, m->dest) != 0)
            violation ("mount option %s renders destination %.64s, the plan says %.64s", o->name, dest, m->dest);
          if (dest[0] != '/')
            violation ("mount option %s has a relative destination", o->name);
          if (m->kind == BWSH_MOUNT_BIND && strcmp (o->name, "--bind") != 0 && strcmp (o->name, "--bind-fd") != 0)
            violation ("read-write mount %s rendered as %s", m->dest, o->name);
          if (m->kind == BWSH_MOUNT_RO_BIND && strcmp (o->name, "--ro-bind") != 0
              && strcmp (o->name, "--ro-bind-fd") != 0)
            violation ("read-only mount %s rendered as %s", m->dest, o->name);
        }
      i += 1 + (size_t) o->nargs;
    }

  while (mount_index < p->n_mounts && !accepted (&p->mounts[mount_index]))
    mount_index++;
  if (mount_index != p->n_mounts)
    violation ("accepted mount %s is missing from the options", p->mounts[mount_index].dest);
  for (size_t k = 0; k < BWSH_N_ELEMENTS (required); k++)
    if (!seen[k])
      violation ("options lack %s", required[k]);
  for (size_t k = 0; k < BWSH_N_ELEMENTS (fixed_env_names); k++)
    if (fixed_seen[k] != 1)
      violation ("%s is set %zu times (want exactly once, by the plan)", fixed_env_names[k], fixed_seen[k]);
}

static void
check_command (const BwshPlan *p)
{
  /* The command of issue #6, item 5: given as the user's command it must
   * stay the shell's argument. */
  static char a0[] = "--bind", a1[] = "/", a2[] = "/host";
  static char *args[] = { a0, a1, a2, NULL };
  BwshCommand cmd = { .login = true, .has_command = true, .command = "--bind / /host", .args = args, .n_args = 3 };
  BwshArgv a = { 0 };
  /* A guarded launch (the plan has entries of the user's) runs bwsh's
   * stub first: -- /bin/sh -c STUB sh SHELL ... (render.c). */
  size_t o = bwsh_plan_guards_setup (p) ? 4 : 0;

  if (bwsh_render_command (p, &cmd, &a) < 0)
    violation ("render_command failed");
  if (a.n != 9 + o || strcmp (a.v[0], "--") != 0
      || (o > 0
          && (strcmp (a.v[1], "/bin/sh") != 0 || strcmp (a.v[2], "-c") != 0
              || strcmp (a.v[3], BWSH_STARTED_STUB) != 0 || strcmp (a.v[4], "sh") != 0))
      || strcmp (a.v[o + 1], p->shell) != 0 || strcmp (a.v[o + 2], "-l") != 0 || strcmp (a.v[o + 3], "-c") != 0
      || strcmp (a.v[o + 4], "--") != 0 || strcmp (a.v[o + 5], cmd.command) != 0
      || strcmp (a.v[o + 6], "--bind") != 0 || strcmp (a.v[o + 7], "/") != 0 || strcmp (a.v[o + 8], "/host") != 0
      || a.v[o + 9] != NULL)
    violation ("the command is not exactly -- [STUB] SHELL -l -c -- CMD ARGS...");
  bwsh_argv_clear (&a);
}

static void
check_render (const BwshPlan *p, const BwshPolicy *pol)
{
  BwshArgv a = { 0 };
  char *blob = NULL;
  size_t len = 0, want = 0;

  for (int mode = BWSH_RENDER_FDS; mode <= BWSH_RENDER_PATHS; mode++)
    {
      if (bwsh_render_options (p, (BwshRenderMode) mode, mode == BWSH_RENDER_FDS ? 7 : -1, &a) < 0)
        violation ("render_options failed on a plan that was built");
      check_options (p, pol, &a);
      if (bwsh_render_blob (&a, &blob, &len) < 0)
        violation ("render_blob failed");
      for (size_t i = 0; i < a.n; i++)
        want += strlen (a.v[i]) + 1;
      if (len != want || (len > 0 && blob[len - 1] != '\0'))
        violation ("the --args blob is %zu bytes, want %zu, NUL-terminated", len, want);
      free (blob);
      blob = NULL;
      want = 0;
      bwsh_argv_clear (&a);
    }
  check_command (p);
}

static void
check_explain (const BwshPlan *p)
{
  BwshCommand cmd = { .login = true };
  char *out = NULL;
  char hex[65];
  json_error_t jerr;
  json_t *doc;

  BwshError err = { 0 };
  int r;

  if (bwsh_explain_text (p, &cmd, NULL, &out, &err) < 0 || out == NULL)
    violation ("explain_text failed on a plan that was built");
  free (out);
  out = NULL;
  r = bwsh_explain_json (p, &cmd, NULL, &out, &err);
  /* A byte string that is not UTF-8 is carried escaped (listed in
   * "escaped"): every plan that was built gives a document. */
  if (r < 0 || out == NULL)
    violation ("explain_json failed on a plan that was built: %d, %s", r, err.message);
  doc = json_loads (out, 0, &jerr);
  if (doc == NULL)
    violation ("explain_json is not JSON: %s at %d:%d", jerr.text, jerr.line, jerr.column);
  json_decref (doc);
  free (out);
  bwsh_plan_digest (p, hex);
  if (strlen (hex) != 64)
    violation ("the plan digest is not 64 hex characters");
}

/* ------------------------------------------------------------ entry */

void
fuzz_check_plan (const BwshIdentity *id, const BwshPolicy *pol, const BwshUserConfig *uc, bool explain)
{
  BwshPlan *p = NULL;
  BwshError err = { 0 };
  Paths ceilings = { 0 }, protected_paths = { 0 };
  char *default_project = NULL;
  bool ok_templates;
  int r;

  ok_templates = expand (&pol->rw_ceilings, id->home, &ceilings)
                 && expand_protected (&pol->protected_paths, id->home, &protected_paths)
                 && bwsh_path_expand (pol->project_dir, id->home, &default_project) >= 0;

  r = bwsh_plan_build (id, pol, uc, fuzz_hostile_env, &p, &err);
  if (r < 0)
    {
      if (p != NULL)
        violation ("plan_build failed (%d) but returned a plan", r);
      if (err.message[0] == '\0' && r != -ENOMEM)
        violation ("plan_build failed (%d) without a message", r);
      if (has_control (err.message))
        violation ("plan_build's error message contains a control character");
      goto out;
    }
  if (!ok_templates)
    violation ("plan_build accepted a policy whose templates do not expand");

  if (strcmp (p->home, id->home) != 0 || strcmp (p->shell, pol->shell) != 0)
    violation ("the plan's home or shell are not the inputs'");
  /* Where OpenSSH users expect it: $HOME, or the project directory where
   * the policy says start_dir = "project" (issue 15). */
  if (p->chdir == NULL
      || strcmp (p->chdir, pol->start_dir == BWSH_START_PROJECT ? p->project_dir : p->home) != 0)
    violation ("the session does not start where the policy's start_dir says");
  /* The built-in read-write ceiling: the project directory (issue 24). */
  {
    char **grown = realloc (ceilings.v, (ceilings.n + 2) * sizeof (char *));
    if (grown == NULL || (grown[ceilings.n] = strdup (p->project_dir)) == NULL)
      abort ();
    ceilings.v = grown;
    grown[++ceilings.n] = NULL;
  }
  check_critical (p, pol);
  check_order_and_form (p);
  /* With the shipped policy (no rw_ceilings, no rw_binds) nothing outside
   * $HOME may be writable: the project directory lies below it. */
  check_rw (p, pol, &ceilings, &protected_paths, default_project,
            pol->rw_ceilings.n == 0 && pol->rw_binds.n == 0 && bwsh_path_has_prefix (default_project, id->home));
  check_protected (p, &protected_paths);
  /* max_mounts is no invariant of the built plan: it counts what reaches
   * bwrap, after coalescing, so bwsh_plan_resolve() applies it (issue 20);
   * tests/unit/test_plan.c holds that rule against resolved plans. */
  check_diag (&p->diag, "plan");
  check_render (p, pol);
  if (explain)
    check_explain (p);

out:
  bwsh_plan_free (p);
  paths_clear (&ceilings);
  paths_clear (&protected_paths);
  free (default_project);
}
