/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Validation and merge (core/plan/): identity x policy x overlay -> mounts
 * with verdicts, then bwsh_plan_resolve() on real files.  The identity is
 * built by hand with its home in a mkdtemp directory, so symlinks planted
 * there are resolved for real.  Every rule has an accepted and a refused
 * case, and every refusal must give exactly one warning line naming the
 * path and the reason.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bwshcore.h"
#include "unit.h"

/* Every path here is a short mkdtemp name under /tmp plus a few elements;
 * GCC cannot know that and warns about PATH_MAX buffers. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

typedef UnitPlanFx Fx;

/* cmocka's failures longjmp out; abort() tells the compiler so. */
#define REQUIRE(x)                                                                                           \
  do                                                                                                         \
    {                                                                                                        \
      if ((x) == NULL)                                                                                       \
        {                                                                                                    \
          fail_msg ("%s is NULL", #x);                                                                       \
          abort ();                                                                                          \
        }                                                                                                    \
    }                                                                                                        \
  while (0)

static int
setup (void **state)
{
  Fx *f = unit_plan_fx_new ("plan", "/usr/local/bin/bwsh", NULL, true);

  if (f == NULL)
    return -1;
  /* The rules below are about binds around a read-only $HOME; the state
   * layer over it (the default) has tests of its own. */
  f->pol->state_mode = BWSH_STATE_NONE;
  /* The outside directory lies in /tmp, where an overlay may bind nothing
   * unless the policy grants it: a ceiling there does (and "/" keeps every
   * other source allowed, as with no ceilings at all). */
  {
    const BwshSource from = { .origin = BWSH_ORIGIN_POLICY };
    if (bwsh_bind_list_add (&f->pol->ro_ceilings, "/", NULL, &from) < 0
        || bwsh_bind_list_add (&f->pol->ro_ceilings, f->outside, NULL, &from) < 0)
      return -1;
    /* Most rules below are about read-write binds that an administrator
     * allows under $HOME (rw_ceilings = [ "~" ]); the built-in allow-list,
     * the project directory alone, has tests of its own. */
    if (bwsh_bind_list_add (&f->pol->rw_ceilings, "~", NULL, &from) < 0)
      return -1;
  }
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  return unit_plan_fx_free (*state);
}

/* "@H" in @tmpl becomes the home, "@O" the outside directory. */
static char *
subst (const Fx *f, const char *tmpl)
{
  char *out = unit_plan_fx_subst (f, tmpl);

  assert_non_null (out);
  return out;
}

static BwshUserConfig *
overlay (const Fx *f, const char *tmpl)
{
  char *doc = subst (f, tmpl);
  BwshUserConfig *uc = NULL;
  BwshDiag diag = { 0 };
  BwshError err = { 0 };

  if (bwsh_user_config_parse (doc, strlen (doc), "/cfg.json", &uc, &diag, &err) != 0)
    fail_msg ("test overlay does not parse: %s (%s)", err.message, doc);
  if (diag.n != 0)
    fail_msg ("test overlay warns: %s", diag.lines[0]);
  free (doc);
  return uc;
}

#define MOUNTS(x) "{\"preferences\": {\"sandboxBwrapMounts\": {" x "}}}"

static BwshPlan *
build_env (const Fx *f, const BwshUserConfig *uc, char *const *envp)
{
  BwshPlan *p = NULL;
  BwshError err = { 0 };
  int r = bwsh_plan_build (f->id, f->pol, uc, envp, &p, &err);

  if (r != 0)
    fail_msg ("bwsh_plan_build: %d %s", r, err.message);
  assert_non_null (p);
  return p;
}

static BwshPlan *
build (const Fx *f, const BwshUserConfig *uc)
{
  return build_env (f, uc, NULL);
}

static void dump (const BwshPlan *p);

/*
 * The coalescing rule as first written: for each accepted bind not from the
 * policy, the deepest earlier accepted mount covering its destination (the
 * later one on a tie) shows it if it is a bind of the same kind and the
 * source lies at the same offset.  Quadratic, so a reference only: every
 * plan resolve() sees must come out the same from bwsh's linear version.
 * Plans with mounts cut by a limit are left out (the limit applies after).
 */
static void
assert_coalesced_as_reference (const BwshPlan *p)
{
  BwshVerdict *v = calloc (p->n_mounts + 1, sizeof *v);

  REQUIRE (v);
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      const char *why = p->mounts[i].reason;
      if (why != NULL && (strstr (why, "limit") != NULL || strstr (why, "could not be bound") != NULL))
        {
          free (v);
          return;
        }
      v[i] = p->mounts[i].verdict == BWSH_VERDICT_COALESCED ? BWSH_VERDICT_ACCEPTED : p->mounts[i].verdict;
    }
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      const BwshMount *m = &p->mounts[i];
      bool bind = m->kind == BWSH_MOUNT_RO_BIND || m->kind == BWSH_MOUNT_BIND || m->kind == BWSH_MOUNT_DEV_BIND;
      ssize_t parent = -1;

      if (v[i] != BWSH_VERDICT_ACCEPTED || !bind || m->from.origin == BWSH_ORIGIN_POLICY)
        continue;
      for (size_t j = 0; j < i; j++)
        if (v[j] == BWSH_VERDICT_ACCEPTED && bwsh_path_has_prefix (m->dest, p->mounts[j].dest)
            && (parent < 0 || bwsh_path_depth (p->mounts[j].dest) >= bwsh_path_depth (p->mounts[parent].dest)))
          parent = (ssize_t) j;
      if (parent < 0)
        continue;
      const BwshMount *q = &p->mounts[parent];
      if (q->kind != m->kind || q->src == NULL || !bwsh_path_has_prefix (m->src, q->src))
        continue;
      const char *dtail = m->dest + (strcmp (q->dest, "/") == 0 ? 0 : strlen (q->dest));
      const char *stail = m->src + (strcmp (q->src, "/") == 0 ? 0 : strlen (q->src));
      if (strcmp (dtail, stail) == 0)
        v[i] = BWSH_VERDICT_COALESCED;
    }
  for (size_t i = 0; i < p->n_mounts; i++)
    if ((v[i] == BWSH_VERDICT_COALESCED) != (p->mounts[i].verdict == BWSH_VERDICT_COALESCED))
      {
        dump (p);
        fail_msg ("mount %zu (%s): %s, the reference rule says %s", i, p->mounts[i].dest,
                  bwsh_verdict_to_string (p->mounts[i].verdict), bwsh_verdict_to_string (v[i]));
      }
  free (v);
}

static void
resolve (BwshPlan *p)
{
  BwshError err = { 0 };
  int r = bwsh_plan_resolve (p, BWSH_RESOLVE_CREATE, &err);
  if (r != 0)
    fail_msg ("bwsh_plan_resolve: %d %s", r, err.message);
  assert_coalesced_as_reference (p);
}

/* Build from the overlay text (with @H/@O), free the overlay. */
static BwshPlan *
build_json (const Fx *f, const char *tmpl)
{
  BwshUserConfig *uc = overlay (f, tmpl);
  BwshPlan *p = build (f, uc);
  bwsh_user_config_free (uc);
  return p;
}

static char *
hp (const Fx *f, const char *rel)
{
  char *s = NULL;
  assert_true (asprintf (&s, "%s/%s", f->home, rel) > 0);
  return s;
}

static void
mkdirs_under (const char *base, const char *rel)
{
  char path[PATH_MAX * 2];
  snprintf (path, sizeof path, "%s/%s", base, rel);
  assert_int_equal (unit_mkdirs (path), 0);
}

static void
mkdirs (const Fx *f, const char *rel)
{
  mkdirs_under (f->home, rel);
}

static void
symlink_in_home (const Fx *f, const char *target, const char *rel)
{
  char *t = subst (f, target), *l = hp (f, rel);
  assert_int_equal (symlink (t, l), 0);
  free (t);
  free (l);
}

/* The mount of @kind (or any kind when -1) at @dest, or NULL; @nth counts from 0. */
static BwshMount *
find_nth (const BwshPlan *p, const char *dest, int kind, int nth)
{
  for (size_t i = 0; i < p->n_mounts; i++)
    if (strcmp (p->mounts[i].dest, dest) == 0 && (kind < 0 || (int) p->mounts[i].kind == kind) && nth-- == 0)
      return &p->mounts[i];
  return NULL;
}

static BwshMount *
find (const BwshPlan *p, const char *dest, int kind)
{
  return find_nth (p, dest, kind, 0);
}

static BwshMount *
find_h (const Fx *f, const BwshPlan *p, const char *dest_tmpl, int kind)
{
  char *d = subst (f, dest_tmpl);
  BwshMount *m = find (p, d, kind);
  free (d);
  return m;
}

static BwshMount *
must (BwshMount *m)
{
  REQUIRE (m);
  return m;
}

static ssize_t
index_of (const BwshPlan *p, const BwshMount *m)
{
  REQUIRE (m);
  return m - p->mounts;
}

static void
dump (const BwshPlan *p)
{
  for (size_t i = 0; i < p->n_mounts; i++)
    print_message ("  [%zu] %-10s %-9s %-7s %s -> %s%s%s\n", i, bwsh_mount_kind_to_string (p->mounts[i].kind),
                   bwsh_verdict_to_string (p->mounts[i].verdict), bwsh_origin_to_string (p->mounts[i].from.origin),
                   p->mounts[i].src ? p->mounts[i].src : "-", p->mounts[i].dest,
                   p->mounts[i].reason ? "  # " : "", p->mounts[i].reason ? p->mounts[i].reason : "");
  for (size_t i = 0; i < p->diag.n; i++)
    print_message ("  diag: %s\n", p->diag.lines[i]);
}

static size_t
diag_count (const BwshPlan *p, const char *needle)
{
  size_t n = 0;
  for (size_t i = 0; i < p->diag.n; i++)
    n += strstr (p->diag.lines[i], needle) != NULL;
  return n;
}

static void
assert_one_line_each (const BwshPlan *p)
{
  for (size_t i = 0; i < p->diag.n; i++)
    if (strchr (p->diag.lines[i], '\n') != NULL)
      fail_msg ("diag line spans lines: %s", p->diag.lines[i]);
}

/* Exactly one warning in the plan, containing @path and @reason. */
static void
expect_single_warning (const BwshPlan *p, const char *path, const char *reason)
{
  assert_one_line_each (p);
  if (p->diag.n != 1 || strstr (p->diag.lines[0], path) == NULL || strstr (p->diag.lines[0], reason) == NULL)
    {
      dump (p);
      fail_msg ("want exactly one warning with \"%s\" and \"%s\", have %zu", path, reason, p->diag.n);
    }
}

static void
assert_parents_first (const BwshPlan *p)
{
  for (size_t i = 1; i < p->n_mounts; i++)
    if (bwsh_path_depth (p->mounts[i - 1].dest) > bwsh_path_depth (p->mounts[i].dest))
      {
        dump (p);
        fail_msg ("mount %zu (%s) is deeper than mount %zu (%s)", i - 1, p->mounts[i - 1].dest, i,
                  p->mounts[i].dest);
      }
}

static bool
is_bind_kind (BwshMountKind k)
{
  return k == BWSH_MOUNT_BIND || k == BWSH_MOUNT_RO_BIND || k == BWSH_MOUNT_DEV_BIND;
}

/* ------------------------------------------------------ the default plan */

static void
test_default_plan_is_the_seed_sandbox (void **state)
{
  Fx *f = *state;
  BwshPolicy *def = NULL;
  BwshPlan *p;
  char *project = hp (f, "project");
  BwshMount *m;

  assert_int_equal (bwsh_policy_new_defaults (&def), 0);
  REQUIRE (def);
  assert_int_equal (def->state_mode, BWSH_STATE_TMPFS);
  assert_int_equal (def->start_dir, BWSH_START_HOME);
  f->pol->state_mode = def->state_mode;
  bwsh_policy_free (def);
  p = build (f, NULL);

  assert_int_equal (p->diag.n, 0);
  assert_int_equal (p->n_refused, 0);
  m = must (find (p, "/", BWSH_MOUNT_TMPFS));
  REQUIRE (m);
  assert_int_equal (m->size, f->pol->root_tmpfs_size);
  assert_int_equal (index_of (p, m), 0);
  assert_non_null (find (p, "/usr", BWSH_MOUNT_RO_BIND));
  assert_non_null (find (p, "/etc", BWSH_MOUNT_RO_BIND));
  assert_non_null (find (p, "/run", BWSH_MOUNT_TMPFS));
  assert_null (find (p, "/run", BWSH_MOUNT_RO_BIND));
  assert_non_null (find (p, "/dev", BWSH_MOUNT_DEV));
  assert_null (find (p, "/dev", BWSH_MOUNT_DEV_BIND));
  assert_non_null (find (p, "/proc", BWSH_MOUNT_PROC));
  m = must (find (p, "/tmp", BWSH_MOUNT_TMPFS));
  REQUIRE (m);
  assert_int_equal (m->size, f->pol->tmp_tmpfs_size);
  m = must (find (p, "/var/tmp", BWSH_MOUNT_TMPFS));
  REQUIRE (m);
  assert_int_equal (m->size, f->pol->tmp_tmpfs_size);
  /* $HOME is the session's state, a sized tmpfs; never the real home read-write. */
  m = must (find (p, f->home, BWSH_MOUNT_TMPFS));
  REQUIRE (m);
  assert_true (m->state);
  assert_int_equal (m->size, f->pol->tmp_tmpfs_size);
  assert_null (find (p, f->home, BWSH_MOUNT_BIND));
  assert_non_null (find (p, project, BWSH_MOUNT_BIND));
  assert_string_equal (p->chdir, f->home);
  assert_string_equal (p->start_dir, "home");
  assert_string_equal (p->state, "tmpfs");
  assert_string_equal (p->project_dir, project);
  assert_string_equal (p->shell, f->pol->shell);
  assert_int_equal (p->network, BWSH_NET_PRIVATE);
  assert_true (p->unshare[BWSH_NS_NET]);
  /* /bin, /sbin, /lib* copied the way the host has them. */
  static const char *const layout[] = { "/bin", "/sbin", "/lib", "/lib64" };
  for (size_t i = 0; i < 4; i++)
    {
      struct stat st;
      if (lstat (layout[i], &st) < 0)
        continue;
      if (S_ISLNK (st.st_mode))
        {
          char target[PATH_MAX];
          ssize_t n = readlink (layout[i], target, sizeof target - 1);
          assert_true (n > 0);
          target[n] = '\0';
          m = must (find (p, layout[i], BWSH_MOUNT_SYMLINK));
          REQUIRE (m);
          assert_string_equal (m->src, target);
        }
      else
        assert_non_null (find (p, layout[i], BWSH_MOUNT_RO_BIND));
    }
  for (size_t i = 0; i < p->n_mounts; i++)
    assert_int_equal (p->mounts[i].verdict, BWSH_VERDICT_ACCEPTED);
  assert_parents_first (p);
  resolve (p);
  for (size_t i = 0; i < p->n_mounts; i++)
    if (is_bind_kind (p->mounts[i].kind) && p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED)
      assert_true (p->mounts[i].fd >= 0);
  free (project);
  bwsh_plan_free (p);
}

/* ------------------------------------------- one entry, one verdict */

typedef struct
{
  const char *name;
  const char *json;       /* overlay, @H = home, @O = outside */
  const char *dest;       /* mount to look at, @H/@O */
  BwshVerdict verdict;    /* after build */
  const char *warn_path;  /* NULL = no warning; else path substring (@H/@O) */
  const char *reason;
} EntryCase;

static const EntryCase entry_cases[] = {
  /* forbidden as written */
  { "ro bind of /", MOUNTS ("\"additionalROBinds\": [\"/\"]"), "/", BWSH_VERDICT_REFUSED, "/",
    "/, /proc, /dev, /sys and paths under them cannot be bound" },
  { "ro bind of /proc", MOUNTS ("\"additionalROBinds\": [\"/proc\"]"), "/proc", BWSH_VERDICT_REFUSED, "/proc",
    "cannot be bound" },
  { "ro bind of /proc/1/root", MOUNTS ("\"additionalROBinds\": [\"/proc/1/root\"]"), "/proc/1/root",
    BWSH_VERDICT_REFUSED, "/proc/1/root", "cannot be bound" },
  { "ro bind of //proc/./self/", MOUNTS ("\"additionalROBinds\": [\"//proc/./self/\"]"), "/proc/self",
    BWSH_VERDICT_REFUSED, "/proc/self", "cannot be bound" },
  { "ro bind of /dev/shm", MOUNTS ("\"additionalROBinds\": [\"/dev/shm\"]"), "/dev/shm", BWSH_VERDICT_REFUSED,
    "/dev/shm", "cannot be bound" },
  { "ro bind of /sys/kernel", MOUNTS ("\"additionalROBinds\": [\"/sys/kernel\"]"), "/sys/kernel",
    BWSH_VERDICT_REFUSED, "/sys/kernel", "cannot be bound" },
  { "rw bind of /proc/sys", MOUNTS ("\"additionalBinds\": [\"/proc/sys\"]"), "/proc/sys", BWSH_VERDICT_REFUSED,
    "/proc/sys", "cannot be bound" },
  { "ro bind onto /proc", MOUNTS ("\"additionalROBinds\": [{\"src\": \"@H/p\", \"dst\": \"/proc/sys\"}]"),
    "/proc/sys", BWSH_VERDICT_REFUSED, "/proc/sys", "cannot be replaced" },
  { "ro bind onto /usr", MOUNTS ("\"additionalROBinds\": [{\"src\": \"@H/u\", \"dst\": \"/usr\"}]"), "/usr",
    BWSH_VERDICT_REFUSED, "/usr", "cannot be replaced" },
  { "ro bind onto /etc/", MOUNTS ("\"additionalROBinds\": [{\"src\": \"@H/e\", \"dst\": \"/etc/\"}]"), "/etc",
    BWSH_VERDICT_REFUSED, "/etc", "cannot be replaced" },
  { "ro bind onto /", MOUNTS ("\"additionalROBinds\": [{\"src\": \"@H/r\", \"dst\": \"/\"}]"), "/",
    BWSH_VERDICT_REFUSED, "/", "cannot be replaced" },
  /* neighbours that are fine */
  { "ro bind of /procfs-data", MOUNTS ("\"additionalROBinds\": [\"/procfs-data\"]"), "/procfs-data",
    BWSH_VERDICT_ACCEPTED, NULL, NULL },
  { "ro bind of /usr/share/doc", MOUNTS ("\"additionalROBinds\": [\"/usr/share/doc\"]"), "/usr/share/doc",
    BWSH_VERDICT_ACCEPTED, NULL, NULL },
  { "ro bind outside home", MOUNTS ("\"additionalROBinds\": [\"/srv/data\"]"), "/srv/data", BWSH_VERDICT_ACCEPTED,
    NULL, NULL },
  { "ro bind of //srv//./data/", MOUNTS ("\"additionalROBinds\": [\"//srv//./data/\"]"), "/srv/data",
    BWSH_VERDICT_ACCEPTED, NULL, NULL },
  /* malformed paths */
  { "relative", MOUNTS ("\"additionalROBinds\": [\"srv/data\"]"), "srv/data", BWSH_VERDICT_REFUSED, "srv/data",
    "not absolute" },
  { "dotdot", MOUNTS ("\"additionalROBinds\": [\"@H/../../etc\"]"), "@H/../../etc", BWSH_VERDICT_REFUSED,
    "@H/../../etc", "\"..\"" },
  { "newline", MOUNTS ("\"additionalROBinds\": [\"/srv/a\\nb\"]"), "/srv/a\nb", BWSH_VERDICT_REFUSED,
    "/srv/a\\x0ab", "control character" },
  { "tab in dst", MOUNTS ("\"additionalROBinds\": [{\"src\": \"/srv/a\", \"dst\": \"/mnt/a\\tb\"}]"), "/mnt/a\tb",
    BWSH_VERDICT_REFUSED, "/mnt/a\\x09b", "control character" },
  /* read-write only under $HOME, component-wise */
  { "rw bind under home", MOUNTS ("\"additionalBinds\": [\"@H/work\"]"), "@H/work", BWSH_VERDICT_ACCEPTED, NULL,
    NULL },
  { "rw bind under home, spelled //./", MOUNTS ("\"additionalBinds\": [\"@H//./work/\"]"), "@H/work",
    BWSH_VERDICT_ACCEPTED, NULL, NULL },
  { "rw bind outside home", MOUNTS ("\"additionalBinds\": [\"/srv/data\"]"), "/srv/data", BWSH_VERDICT_REFUSED,
    "/srv/data", "read-write binds are only allowed" },
  { "rw bind of /tmp (parent of home)", MOUNTS ("\"additionalBinds\": [\"/tmp\"]"), "/tmp", BWSH_VERDICT_REFUSED,
    "/tmp", "read-write binds are only allowed" },
  { "rw bind of a sibling sharing the home's prefix", MOUNTS ("\"additionalBinds\": [\"@Hx\"]"), "@Hx",
    BWSH_VERDICT_REFUSED, "@Hx", "read-write binds are only allowed" },
  { "rw bind of /etc", MOUNTS ("\"additionalBinds\": [\"/etc/cron.d\"]"), "/etc/cron.d", BWSH_VERDICT_REFUSED,
    "/etc/cron.d", "read-write binds are only allowed" },
  { "rw bind from home onto outside", MOUNTS ("\"additionalBinds\": [{\"src\": \"@H/w\", \"dst\": \"/srv/w\"}]"),
    "/srv/w", BWSH_VERDICT_REFUSED, "/srv/w", "destination read-write binds are only allowed" },
  { "rw bind from outside onto home", MOUNTS ("\"additionalBinds\": [{\"src\": \"/srv/w\", \"dst\": \"@H/w\"}]"),
    "@H/w", BWSH_VERDICT_REFUSED, "/srv/w", "read-write binds are only allowed" },
  /* protected paths are never writable */
  { "rw bind of ~/.ssh", MOUNTS ("\"additionalBinds\": [\"@H/.ssh\"]"), "@H/.ssh", BWSH_VERDICT_REFUSED, "@H/.ssh",
    "protected path" },
  { "rw bind under ~/.ssh", MOUNTS ("\"additionalBinds\": [\"@H/.ssh/keys\"]"), "@H/.ssh/keys",
    BWSH_VERDICT_REFUSED, "@H/.ssh/keys", "protected path" },
  { "rw bind of ~/.config/bwsh", MOUNTS ("\"additionalBinds\": [\"@H/.config/bwsh/\"]"), "@H/.config/bwsh",
    BWSH_VERDICT_REFUSED, "@H/.config/bwsh", "protected path" },
  { "rw bind of ~/.pam_environment", MOUNTS ("\"additionalBinds\": [\"@H/.pam_environment\"]"),
    "@H/.pam_environment", BWSH_VERDICT_REFUSED, "@H/.pam_environment", "protected path" },
  { "rw bind onto ~/.ssh", MOUNTS ("\"additionalBinds\": [{\"src\": \"@H/keys\", \"dst\": \"@H/.ssh\"}]"),
    "@H/.ssh", BWSH_VERDICT_REFUSED, "@H/.ssh", "protected path" },
  { "rw bind of ~/.config (parent of protected)", MOUNTS ("\"additionalBinds\": [\"@H/.config\"]"), "@H/.config",
    BWSH_VERDICT_ACCEPTED, NULL, NULL },
  { "rw bind of ~/.sshx (sibling of protected)", MOUNTS ("\"additionalBinds\": [\"@H/.sshx\"]"), "@H/.sshx",
    BWSH_VERDICT_ACCEPTED, NULL, NULL },
  { "ro bind of ~/.ssh", MOUNTS ("\"additionalROBinds\": [{\"src\": \"@H/.ssh\", \"dst\": \"/mnt/ssh\"}]"),
    "/mnt/ssh", BWSH_VERDICT_ACCEPTED, NULL, NULL },
  /* host IPC and other users' data: never an overlay source (issue 13) */
#define IPC_CASE(name, src) \
  { name, MOUNTS ("\"additionalROBinds\": [\"" src "\"]"), src, BWSH_VERDICT_REFUSED, src, "holds host IPC" }
  IPC_CASE ("ro bind of /run/user/1000 (the D-Bus session bus)", "/run/user/1000"),
  IPC_CASE ("ro bind of /run", "/run"),
  IPC_CASE ("ro bind of /var/run/dbus", "/var/run/dbus"),
  IPC_CASE ("ro bind of /tmp/.X11-unix", "/tmp/.X11-unix"),
  IPC_CASE ("ro bind of /var/tmp", "/var/tmp"),
  IPC_CASE ("ro bind of /var/spool/cron", "/var/spool/cron"),
  IPC_CASE ("ro bind of /var/mail", "/var/mail"),
  IPC_CASE ("ro bind of /var/log", "/var/log"),
  IPC_CASE ("ro bind of /root", "/root"),
  IPC_CASE ("ro bind of another user's home", "/home/other"),
  IPC_CASE ("ro bind of /home", "/home"),
  IPC_CASE ("ro bind beside the home (its parent)", "/tmp"),
  { "ro bind of /run at another destination", MOUNTS ("\"additionalROBinds\": [{\"src\": \"/run\", \"dst\": \"@H/project/r\"}]"),
    "@H/project/r", BWSH_VERDICT_REFUSED, "/run", "holds host IPC" },
  { "ro bind of /run, spelled //run/./user/", MOUNTS ("\"additionalROBinds\": [\"//run/./user/\"]"),
    "/run/user", BWSH_VERDICT_REFUSED, "/run/user", "holds host IPC" },
  { "ro bind of /runx is not /run", MOUNTS ("\"additionalROBinds\": [\"/runx\"]"), "/runx", BWSH_VERDICT_ACCEPTED,
    NULL, NULL },
  { "ro bind of the policy's directory", MOUNTS ("\"additionalROBinds\": [\"" BWSH_SYSCONFDIR "\"]"),
    BWSH_SYSCONFDIR, BWSH_VERDICT_REFUSED, BWSH_SYSCONFDIR, "holds the sandbox policy" },
};

static void
test_each_rule_accepts_and_refuses_one_entry (void **state)
{
  Fx *f = *state;

  for (size_t i = 0; i < sizeof entry_cases / sizeof entry_cases[0]; i++)
    {
      const EntryCase *c = &entry_cases[i];
      BwshPlan *p = build_json (f, c->json);
      char *dest = subst (f, c->dest);
      BwshMount *m = NULL;

      /* the user's mount, not the default one at the same destination */
      for (size_t k = 0; k < p->n_mounts; k++)
        if (strcmp (p->mounts[k].dest, dest) == 0 && p->mounts[k].from.origin == BWSH_ORIGIN_USER)
          m = &p->mounts[k];
      if (m == NULL || m->verdict != c->verdict)
        {
          dump (p);
          fail_msg ("%s: %s has verdict %s, want %s", c->name, dest, m ? bwsh_verdict_to_string (m->verdict) : "none",
                    bwsh_verdict_to_string (c->verdict));
        }
      if (c->warn_path == NULL)
        {
          if (p->diag.n != 0 || p->n_refused != 0)
            {
              dump (p);
              fail_msg ("%s: unexpected warning", c->name);
            }
        }
      else
        {
          char *wp = subst (f, c->warn_path);
          print_message ("%s\n", c->name);
          expect_single_warning (p, wp, c->reason);
          assert_int_equal (p->n_refused, 1);
          /* The warning names the overlay file and the entry's position. */
          assert_int_equal (strncmp (p->diag.lines[0], "/cfg.json:1:", 12), 0);
          assert_non_null (m->reason);
          free (wp);
        }
      /* A refused mount is never rendered. */
      if (c->verdict == BWSH_VERDICT_REFUSED)
        assert_int_equal (m->fd, -1);
      free (dest);
      bwsh_plan_free (p);
    }
}

/* -------------------------------------------------- rules after resolving */

typedef struct
{
  const char *name;
  const char *link;       /* relative to home */
  const char *target;     /* @H/@O */
  const char *json;
  const char *dest;
  BwshVerdict verdict;    /* after resolve */
  const char *reason;     /* substring of the warning */
  const char *src;        /* the source when it is not @dest */
} ResolveCase;

static const ResolveCase resolve_cases[] = {
  { "ro symlink to /proc", "to-proc", "/proc", MOUNTS ("\"additionalROBinds\": [\"@H/to-proc\"]"), "@H/to-proc",
    BWSH_VERDICT_REFUSED, "resolves to /proc: /, /proc, /dev, /sys", NULL },
  { "ro symlink to /", "to-root", "/", MOUNTS ("\"additionalROBinds\": [\"@H/to-root\"]"), "@H/to-root",
    BWSH_VERDICT_REFUSED, "resolves to /: /, /proc, /dev, /sys", NULL },
  { "ro symlink to /sys/kernel", "to-sys", "/sys/kernel", MOUNTS ("\"additionalROBinds\": [\"@H/to-sys\"]"),
    "@H/to-sys", BWSH_VERDICT_REFUSED, "resolves to /sys/kernel", NULL },
  { "ro path through a symlink to /", "to-root", "/", MOUNTS ("\"additionalROBinds\": [\"@H/to-root/dev\"]"),
    "@H/to-root/dev", BWSH_VERDICT_REFUSED, "resolves to /dev", NULL },
  /* A source through a symlink is fine; a destination through one is
   * not: bwrap would follow it while it builds the new root (issue 24). */
  { "ro symlink to /etc as a source is fine", "to-etc", "/etc",
    MOUNTS ("\"additionalROBinds\": [{\"src\": \"@H/to-etc\", \"dst\": \"/mnt/etc\"}]"), "/mnt/etc",
    BWSH_VERDICT_ACCEPTED, NULL, "@H/to-etc" },
  { "ro symlink to /etc as its own destination skipped", "to-etc", "/etc",
    MOUNTS ("\"additionalROBinds\": [\"@H/to-etc\"]"), "@H/to-etc", BWSH_VERDICT_SKIPPED,
    "destination runs through the symlink", NULL },
  { "rw symlink under home to outside", "escape", "@O", MOUNTS ("\"additionalBinds\": [\"@H/escape\"]"),
    "@H/escape", BWSH_VERDICT_REFUSED, "read-write binds are only allowed", NULL },
  { "rw symlink under home to /etc", "escape", "/etc", MOUNTS ("\"additionalBinds\": [\"@H/escape\"]"), "@H/escape",
    BWSH_VERDICT_REFUSED, "resolves to /etc: read-write binds", NULL },
  { "rw symlink under home to ~/.ssh", "sneaky", "@H/.ssh", MOUNTS ("\"additionalBinds\": [\"@H/sneaky\"]"),
    "@H/sneaky", BWSH_VERDICT_REFUSED, "protected path", NULL },
  { "rw symlink under home to ~/.config/bwsh", "sneaky", "@H/.config/bwsh",
    MOUNTS ("\"additionalBinds\": [\"@H/sneaky\"]"), "@H/sneaky", BWSH_VERDICT_REFUSED, "protected path", NULL },
  /* Its source is fine, but its mount point lies in the project, where
   * another session can swap a directory for a symlink (issue 35). */
  { "rw symlink inside home as a source, mount point in the project", "inner", "@H/realdir",
    MOUNTS ("\"additionalBinds\": [{\"src\": \"@H/inner\", \"dst\": \"@H/project/inner\"}]"), "@H/project/inner",
    BWSH_VERDICT_SKIPPED, "where another session of yours can swap a directory for a symlink", NULL },
  { "rw symlink inside home as its own destination skipped", "inner", "@H/realdir",
    MOUNTS ("\"additionalBinds\": [\"@H/inner\"]"), "@H/inner", BWSH_VERDICT_SKIPPED,
    "destination runs through the symlink", NULL },
  { "missing ro source skipped", NULL, NULL, MOUNTS ("\"additionalROBinds\": [\"@H/missing\"]"), "@H/missing",
    BWSH_VERDICT_SKIPPED, "does not exist", NULL },
  { "missing rw source skipped", NULL, NULL, MOUNTS ("\"additionalBinds\": [\"@H/missing\"]"), "@H/missing",
    BWSH_VERDICT_SKIPPED, "does not exist", NULL },
  { "missing outside source skipped", NULL, NULL, MOUNTS ("\"additionalROBinds\": [\"/nonexistent/bwsh/x\"]"),
    "/nonexistent/bwsh/x", BWSH_VERDICT_SKIPPED, "does not exist", NULL },
  { "dangling symlink skipped", "dangling", "@H/nowhere", MOUNTS ("\"additionalROBinds\": [\"@H/dangling\"]"),
    "@H/dangling", BWSH_VERDICT_SKIPPED, "does not exist", NULL },
  { "ro symlink under home to /run", "to-run", "/run", MOUNTS ("\"additionalROBinds\": [\"@H/to-run\"]"),
    "@H/to-run", BWSH_VERDICT_REFUSED, "resolves to /run: holds host IPC", NULL },
  { "ro path through a symlink to /var", "to-var", "/var", MOUNTS ("\"additionalROBinds\": [\"@H/to-var/log\"]"),
    "@H/to-var/log", BWSH_VERDICT_REFUSED, "resolves to /var/log: holds host IPC", NULL },
  { "existing source accepted", NULL, NULL,
    MOUNTS ("\"additionalROBinds\": [{\"src\": \"@H/realdir\", \"dst\": \"/mnt/realdir\"}]"), "/mnt/realdir",
    BWSH_VERDICT_ACCEPTED, NULL, "@H/realdir" },
};

static void
test_rules_apply_again_after_resolving_symlinks (void **state)
{
  Fx *f = *state;

  mkdirs (f, "realdir");
  mkdirs (f, ".ssh");
  mkdirs (f, ".config/bwsh");
  for (size_t i = 0; i < sizeof resolve_cases / sizeof resolve_cases[0]; i++)
    {
      const ResolveCase *c = &resolve_cases[i];
      char *l = c->link ? hp (f, c->link) : NULL;
      char *dest = subst (f, c->dest);
      BwshPlan *p;
      BwshMount *m = NULL;

      if (l != NULL)
        symlink_in_home (f, c->target, c->link);
      p = build_json (f, c->json);
      for (size_t k = 0; k < p->n_mounts; k++)
        if (strcmp (p->mounts[k].dest, dest) == 0 && p->mounts[k].from.origin == BWSH_ORIGIN_USER)
          m = &p->mounts[k];
      REQUIRE (m);
      /* As written, every one of these is acceptable. */
      assert_int_equal (m->verdict, BWSH_VERDICT_ACCEPTED);
      assert_int_equal (p->diag.n, 0);
      resolve (p);
      if (m->verdict != c->verdict)
        {
          dump (p);
          fail_msg ("%s: verdict %s after resolve, want %s", c->name, bwsh_verdict_to_string (m->verdict),
                    bwsh_verdict_to_string (c->verdict));
        }
      if (c->reason != NULL)
        {
          char *orig = subst (f, c->dest);
          expect_single_warning (p, orig, c->reason);
          assert_int_equal (m->fd, -1);
          assert_int_equal (p->n_refused, c->verdict == BWSH_VERDICT_REFUSED ? 1 : 0);
          free (orig);
        }
      else
        {
          char *src = subst (f, c->src != NULL ? c->src : c->dest);
          char *real = realpath (src, NULL);
          free (src);
          struct stat a, b;
          assert_int_equal (p->diag.n, 0);
          assert_true (m->fd >= 0);
          assert_non_null (real);
          assert_string_equal (m->src, real);
          assert_int_equal (fstat (m->fd, &a), 0);
          assert_int_equal (stat (real, &b), 0);
          assert_int_equal (a.st_ino, b.st_ino);
          free (real);
        }
      bwsh_plan_free (p);
      if (l != NULL)
        assert_int_equal (unlink (l), 0);
      free (l);
      free (dest);
    }
}

/* A socket, FIFO or device node is refused as an overlay source, checked
 * on the opened fd: a read-only bind never stops connect(). */
static void
test_socket_fifo_device_sources_refused (void **state)
{
  static const struct
  {
    const char *rel;
    const char *reason;
  } cases[] = {
    { "sock", "is a socket; an overlay may not bind it" },
    { "fifo", "is a FIFO; an overlay may not bind it" },
    { "null", "is a device node; an overlay may not bind it" },
  };
  Fx *f = *state;
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  char *path;
  int fd;

  path = hp (f, "sock");
  assert_true (strlen (path) < sizeof sa.sun_path);
  strcpy (sa.sun_path, path);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  assert_true (fd >= 0);
  assert_int_equal (bind (fd, (struct sockaddr *) &sa, sizeof sa), 0);
  free (path);
  path = hp (f, "fifo");
  assert_int_equal (mkfifo (path, 0600), 0);
  free (path);
  path = hp (f, "null");
  if (mknod (path, S_IFCHR | 0600, makedev (1, 3)) < 0)
    print_message ("mknod: %s (not root?): device case skipped\n", strerror (errno));
  free (path);

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      char json[PATH_MAX * 2];
      BwshPlan *p;
      BwshMount *m;
      char *src = hp (f, cases[i].rel);

      if (access (src, F_OK) < 0)
        {
          free (src);
          continue;
        }
      snprintf (json, sizeof json, MOUNTS ("\"additionalROBinds\": [{\"src\": \"%s\", \"dst\": \"/mnt/x\"}]"), src);
      p = build_json (f, json);
      m = must (find (p, "/mnt/x", BWSH_MOUNT_RO_BIND));
      assert_int_equal (m->verdict, BWSH_VERDICT_ACCEPTED);
      resolve (p);
      assert_int_equal (m->verdict, BWSH_VERDICT_REFUSED);
      assert_int_equal (m->fd, -1);
      expect_single_warning (p, src, cases[i].reason);
      bwsh_plan_free (p);
      free (src);
    }
  close (fd);
}

/* Destinations are resolved by bwsh, never by bwrap, and leave nothing in
 * the real home (issue 24).  A mount point on the project, which another
 * session can change while this one starts, is skipped and nothing is
 * made there (issue 35); one in the real home, read-only inside, and
 * one under /usr are skipped with a warning and nothing is created; strict
 * mode refuses instead.  On a tmpfs state bwrap makes it, inside. */
static void
test_destination_prepared_or_skipped (void **state)
{
  Fx *f = *state;
  BwshPlan *p;
  BwshMount *m;
  char *in_home = hp (f, "new-dir"), *in_project = hp (f, "project/new/dir"), *file_dst = hp (f, "project/new-file");
  char json[PATH_MAX * 4];
  struct stat st;

  mkdirs (f, "data");
  snprintf (json, sizeof json,
            MOUNTS ("\"additionalROBinds\": [{\"src\": \"@H/data\", \"dst\": \"@H/new-dir\"}, "
                    "{\"src\": \"@H/data\", \"dst\": \"@H/project/new/dir\"}, "
                    "{\"src\": \"/etc/hostname\", \"dst\": \"@H/project/new-file\"}, "
                    "{\"src\": \"@H/data\", \"dst\": \"/usr/bwsh-no-such-dir\"}]"));

  /* explain/check: nothing is created, each entry says what login does */
  p = build_json (f, json);
  {
    BwshError err = { 0 };
    assert_int_equal (bwsh_plan_resolve (p, BWSH_RESOLVE_DRY_RUN, &err), 0);
  }
  assert_int_equal (access (in_project, F_OK), -1);
  assert_int_equal (must (find (p, in_project, BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_SKIPPED);
  assert_int_equal (must (find (p, file_dst, BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_SKIPPED);
  assert_non_null (strstr (must (find (p, file_dst, BWSH_MOUNT_RO_BIND))->reason,
                           "where another session of yours can swap a directory for a symlink"));
  assert_int_equal (must (find (p, in_home, BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_SKIPPED);
  assert_int_equal (must (find (p, "/usr/bwsh-no-such-dir", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_SKIPPED);
  assert_int_equal (p->n_refused, 0);
  bwsh_plan_free (p);

  /* run: nothing new in the project nor in the real home */
  p = build_json (f, json);
  resolve (p);
  assert_int_equal (lstat (in_project, &st), -1);
  assert_int_equal (lstat (file_dst, &st), -1);
  assert_int_equal (access (in_home, F_OK), -1);
  assert_int_equal (must (find (p, in_project, BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_SKIPPED);
  m = must (find (p, in_home, BWSH_MOUNT_RO_BIND));
  assert_int_equal (m->verdict, BWSH_VERDICT_SKIPPED);
  assert_non_null (strstr (m->reason, "is read-only inside the sandbox (skipped)"));
  m = must (find (p, "/usr/bwsh-no-such-dir", BWSH_MOUNT_RO_BIND));
  assert_int_equal (m->verdict, BWSH_VERDICT_SKIPPED);
  assert_non_null (strstr (m->reason, "destination cannot be made: /usr is read-only inside the sandbox (skipped)"));
  bwsh_plan_free (p);

  /* strict: the same entries refuse the session */
  f->pol->strict = true;
  p = build_json (f, json);
  {
    BwshError err = { 0 };
    assert_int_equal (bwsh_plan_resolve (p, BWSH_RESOLVE_CREATE, &err), -EPERM);
  }
  f->pol->strict = false;
  bwsh_plan_free (p);

  /* state = "tmpfs": a mount point on the state is bwrap's to make, inside;
   * one below an entry of the real home (read-only) is skipped, and
   * nothing is created there */
  f->pol->state_mode = BWSH_STATE_TMPFS;
  {
    char *below = hp (f, "data/new-sub");

    snprintf (json, sizeof json,
              MOUNTS ("\"additionalROBinds\": [{\"src\": \"/etc\", \"dst\": \"@H/new-dir\"}, "
                      "{\"src\": \"/etc\", \"dst\": \"@H/data/new-sub\"}]"));
    p = build_json (f, json);
    resolve (p);
    assert_int_equal (access (in_home, F_OK), -1);
    assert_int_equal (access (below, F_OK), -1);
    assert_int_equal (must (find (p, in_home, BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
    assert_int_equal (must (find (p, below, BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_SKIPPED);
    bwsh_plan_free (p);
    free (below);
  }
  f->pol->state_mode = BWSH_STATE_NONE;
  free (in_home);
  free (in_project);
  free (file_dst);
}

/* A policy shell that does not exist fails at resolve, with the policy's
 * file and line, before bwrap could fail after an accepted login. */
static void
test_missing_shell_named_with_policy_line (void **state)
{
  Fx *f = *state;
  BwshPolicy *pol = NULL;
  BwshPlan *p = NULL;
  BwshError err = { 0 };
  char *msg;

  assert_int_equal (bwsh_policy_new_defaults (&pol), 0);
  assert_int_equal (bwsh_policy_parse_buffer (pol, "# a comment\nshell = \"/bin/bwsh-no-such-shell\";\n",
                                              "/etc/bwsh/test.conf", NULL, f->id, &err),
                    0);
  assert_int_equal (bwsh_plan_build (f->id, pol, NULL, NULL, &p, &err), 0);
  assert_int_equal (bwsh_plan_resolve (p, BWSH_RESOLVE_CREATE, &err), -ENOENT);
  msg = bwsh_error_to_string (&err);
  assert_string_equal (msg, "/etc/bwsh/test.conf:2: the shell /bin/bwsh-no-such-shell cannot be run: "
                            "No such file or directory");
  free (msg);
  bwsh_plan_free (p);
  bwsh_policy_free (pol);
}

/* ---------------------------------------------------------- disabling */

typedef struct
{
  const char *entry;     /* @H */
  const char *dest;      /* the default mount concerned, @H; NULL = none */
  BwshVerdict verdict;   /* of that default mount */
  const char *reason;    /* NULL = no warning */
} DisableCase;

static const DisableCase disable_cases[] = {
  { "/", "/", BWSH_VERDICT_ACCEPTED, "is locked and cannot be disabled" },
  { "/dev", "/dev", BWSH_VERDICT_ACCEPTED, "is locked and cannot be disabled" },
  { "/proc", "/proc", BWSH_VERDICT_ACCEPTED, "is locked and cannot be disabled" },
  { "/usr", "/usr", BWSH_VERDICT_ACCEPTED, "is locked and cannot be disabled" },
  { "/etc", "/etc", BWSH_VERDICT_ACCEPTED, "is locked and cannot be disabled" },
  { "/etc/", "/etc", BWSH_VERDICT_ACCEPTED, "is locked and cannot be disabled" },
  { "//usr/./", "/usr", BWSH_VERDICT_ACCEPTED, "is locked and cannot be disabled" },
  { "/proc/", "/proc", BWSH_VERDICT_ACCEPTED, "is locked and cannot be disabled" },
  { "/tmp", "/tmp", BWSH_VERDICT_ACCEPTED, "is locked and cannot be disabled" },
  { "/tmp/", "/tmp", BWSH_VERDICT_ACCEPTED, "is locked and cannot be disabled" },
  { "/var/tmp", "/var/tmp", BWSH_VERDICT_ACCEPTED, "is locked and cannot be disabled" },
  { "/run", "/run", BWSH_VERDICT_DISABLED, NULL },
  { "@H", "@H", BWSH_VERDICT_DISABLED, NULL },
  { "@H/", "@H", BWSH_VERDICT_DISABLED, NULL },
  { "/nonexistent/default", NULL, BWSH_VERDICT_ACCEPTED, "no default bind has this destination" },
  { "@H/other", NULL, BWSH_VERDICT_ACCEPTED, "no default bind has this destination" },
  { "tmp", NULL, BWSH_VERDICT_ACCEPTED, "not absolute" },
  { "/etc/../tmp", NULL, BWSH_VERDICT_ACCEPTED, "\"..\"" },
};

static void
test_disable_defaults_locked_and_normalised (void **state)
{
  Fx *f = *state;

  for (size_t i = 0; i < sizeof disable_cases / sizeof disable_cases[0]; i++)
    {
      const DisableCase *c = &disable_cases[i];
      char json[PATH_MAX + 128];
      BwshPlan *p;

      snprintf (json, sizeof json, MOUNTS ("\"disabledDefaultBinds\": [\"%s\"]"), c->entry);
      p = build_json (f, json);
      if (c->dest != NULL)
        {
          char *d = subst (f, c->dest);
          BwshMount *m = NULL;
          for (size_t k = 0; k < p->n_mounts; k++)
            if (strcmp (p->mounts[k].dest, d) == 0 && p->mounts[k].from.origin == BWSH_ORIGIN_DEFAULT)
              m = &p->mounts[k];
          REQUIRE (m);
          if (m->verdict != c->verdict)
            {
              dump (p);
              fail_msg ("disable %s: %s is %s", c->entry, d, bwsh_verdict_to_string (m->verdict));
            }
          free (d);
        }
      if (c->reason == NULL)
        assert_int_equal (p->diag.n, 0);
      else
        {
          char *e = subst (f, c->entry);
          expect_single_warning (p, e, c->reason);
          assert_non_null (strstr (p->diag.lines[0], "disabledDefaultBinds"));
          free (e);
        }
      bwsh_plan_free (p);
    }
}

static void
test_disabled_home_is_not_rendered (void **state)
{
  Fx *f = *state;
  BwshPlan *p = build_json (f, MOUNTS ("\"disabledDefaultBinds\": [\"@H\"]"));
  BwshArgv a = { 0 };

  resolve (p);
  assert_int_equal (must (find (p, f->home, BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_DISABLED);
  assert_int_equal (must (find (p, f->home, BWSH_MOUNT_RO_BIND))->fd, -1);
  assert_int_equal (bwsh_render_options (p, BWSH_RENDER_PATHS, -1, &a), 0);
  for (size_t i = 0; i + 2 < a.n; i++)
    if ((strncmp (a.v[i], "--ro-bind", 9) == 0 || strncmp (a.v[i], "--bind", 6) == 0)
        && strcmp (a.v[i + 2], f->home) == 0)
      fail_msg ("the disabled home is still mounted: %s %s %s", a.v[i], a.v[i + 1], a.v[i + 2]);
  bwsh_argv_clear (&a);
  bwsh_plan_free (p);
}

/* --------------------------------------------------------------- order */

static void
test_child_bind_never_shadowed_by_later_parent (void **state)
{
  Fx *f = *state;
  BwshPlan *p;
  ssize_t ih, ia, iab, iabc, iz, iy;

  mkdirs (f, "a/b/c");
  mkdirs (f, "z");
  mkdirs (f, "y");
  p = build_json (f, MOUNTS ("\"additionalROBinds\": [\"@H/a/b/c\", \"@H/z\", \"@H/a\", \"@H/y\"],"
                             "\"additionalBinds\": [\"@H/a/b\"]"));
  assert_parents_first (p);
  ih = index_of (p, find (p, f->home, BWSH_MOUNT_RO_BIND));
  ia = index_of (p, find_h (f, p, "@H/a", BWSH_MOUNT_RO_BIND));
  iab = index_of (p, find_h (f, p, "@H/a/b", BWSH_MOUNT_BIND));
  iabc = index_of (p, find_h (f, p, "@H/a/b/c", BWSH_MOUNT_RO_BIND));
  iz = index_of (p, find_h (f, p, "@H/z", BWSH_MOUNT_RO_BIND));
  iy = index_of (p, find_h (f, p, "@H/y", BWSH_MOUNT_RO_BIND));
  assert_true (index_of (p, find (p, "/tmp", BWSH_MOUNT_TMPFS)) < ih);
  assert_true (ih < ia);
  assert_true (ia < iab);
  assert_true (iab < iabc);
  /* same depth: the order as written */
  assert_true (iz < ia);
  assert_true (ia < iy);
  /* and tmpfs "/" stays first */
  assert_int_equal (index_of (p, find (p, "/", BWSH_MOUNT_TMPFS)), 0);
  bwsh_plan_free (p);
}

/* issue 35: bwrap looks every element of a destination up again by name.
 * An entry, the user's or the policy's, is mounted only where each element
 * lies in a mount bwrap makes itself or in a host directory no session of
 * the user can write: not in the project, not below a non-hidden entry of
 * the real home (another session's project), not under rw_ceilings. */
static void
test_entries_never_mounted_where_a_session_can_swap (void **state)
{
  Fx *f = *state;
  BwshSource pol_src = { .origin = BWSH_ORIGIN_POLICY, .file = S ("/etc/bwsh/bwsh.conf"), .line = 9 };
  const char *race = "where another session of yours can swap a directory for a symlink";
  char *in_project = hp (f, "project/pol"), *docs_x = hp (f, "docs/x"), *hidden_x = hp (f, ".hidden/x");
  char *on_state = hp (f, "ro-data");
  BwshPlan *p;
  BwshMount *m;

  mkdirs (f, "project");
  mkdirs (f, "docs/x");
  mkdirs (f, ".hidden/x");
  f->pol->state_mode = BWSH_STATE_TMPFS;
  bwsh_bind_list_clear (&f->pol->rw_ceilings);
  assert_int_equal (bwsh_bind_list_add (&f->pol->ro_binds, "/etc", in_project, &pol_src), 0);
  assert_int_equal (bwsh_bind_list_add (&f->pol->ro_binds, "/etc", "/opt/pol", &pol_src), 0);
  p = build_json (f, MOUNTS ("\"additionalROBinds\": [{\"src\": \"/etc\", \"dst\": \"@H/ro-data\"},"
                             " {\"src\": \"/etc\", \"dst\": \"@H/docs/x\"},"
                             " {\"src\": \"/etc\", \"dst\": \"@H/.hidden/x\"}]"));
  resolve (p);
  m = must (find (p, in_project, BWSH_MOUNT_RO_BIND));
  assert_int_equal (m->verdict, BWSH_VERDICT_SKIPPED);
  assert_non_null (strstr (m->reason, race));
  assert_int_equal (must (find (p, "/opt/pol", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  /* on $HOME's tmpfs: bwrap's own */
  assert_int_equal (must (find (p, on_state, BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  /* below ~/docs, which can be another session's project */
  m = must (find_nth (p, docs_x, BWSH_MOUNT_RO_BIND, 0));
  assert_int_equal (m->verdict, BWSH_VERDICT_SKIPPED);
  assert_non_null (strstr (m->reason, race));
  /* below a hidden entry, which no session can write */
  assert_int_equal (must (find_nth (p, hidden_x, BWSH_MOUNT_RO_BIND, 0))->verdict, BWSH_VERDICT_ACCEPTED);
  assert_int_equal (diag_count (p, race), 2);
  bwsh_plan_free (p);

  /* Without user_project_dir, ~/docs is nobody's project any more. */
  f->pol->user_may_choose_project = false;
  p = build_json (f, MOUNTS ("\"additionalROBinds\": [{\"src\": \"/etc\", \"dst\": \"@H/docs/x\"}]"));
  resolve (p);
  assert_int_equal (must (find_nth (p, docs_x, BWSH_MOUNT_RO_BIND, 0))->verdict, BWSH_VERDICT_ACCEPTED);
  bwsh_plan_free (p);
  f->pol->user_may_choose_project = true;

  bwsh_bind_list_clear (&f->pol->ro_binds);
  assert_int_equal (bwsh_bind_list_add (&f->pol->rw_ceilings, "~", NULL, &pol_src), 0);
  f->pol->state_mode = BWSH_STATE_NONE;
  free (in_project);
  free (docs_x);
  free (hidden_x);
  free (on_state);
}

/* ----------------------------------------------- same destination twice */

static void
test_same_destination_higher_origin_wins (void **state)
{
  Fx *f = *state;
  BwshSource pol_src = { .origin = BWSH_ORIGIN_POLICY, .file = S ("/etc/bwsh/bwsh.conf"), .line = 7 };
  BwshPlan *p;
  BwshMount *m;

  assert_int_equal (bwsh_bind_list_add (&f->pol->ro_binds, "/srv/policy", "/mnt/x", &pol_src), 0);

  /* policy > user */
  p = build_json (f, MOUNTS ("\"additionalROBinds\": [{\"src\": \"/srv/user\", \"dst\": \"/mnt/x\"}]"));
  m = must (find (p, "/mnt/x", BWSH_MOUNT_RO_BIND));
  assert_int_equal (m->from.origin, BWSH_ORIGIN_POLICY);
  assert_int_equal (m->verdict, BWSH_VERDICT_ACCEPTED);
  m = must (find_nth (p, "/mnt/x", BWSH_MOUNT_RO_BIND, 1));
  REQUIRE (m);
  assert_int_equal (m->from.origin, BWSH_ORIGIN_USER);
  assert_int_equal (m->verdict, BWSH_VERDICT_SHADOWED);
  expect_single_warning (p, "/mnt/x", "also bound by the policy, which wins");
  bwsh_plan_free (p);

  /* user > default: a read-write $HOME replaces the read-only default */
  p = build_json (f, MOUNTS ("\"additionalBinds\": [\"@H\"]"));
  m = must (find (p, f->home, BWSH_MOUNT_RO_BIND));
  assert_int_equal (m->from.origin, BWSH_ORIGIN_DEFAULT);
  assert_int_equal (m->verdict, BWSH_VERDICT_SHADOWED);
  m = must (find (p, f->home, BWSH_MOUNT_BIND));
  assert_int_equal (m->from.origin, BWSH_ORIGIN_USER);
  assert_int_equal (m->verdict, BWSH_VERDICT_ACCEPTED);
  assert_int_equal (diag_count (p, "replaces the default bind on the same destination"), 1);
  bwsh_plan_free (p);

  /* user > default on a tmpfs */
  mkdirs (f, "t");
  p = build_json (f, MOUNTS ("\"additionalROBinds\": [{\"src\": \"@H/t\", \"dst\": \"/tmp\"}]"));
  assert_int_equal (must (find (p, "/tmp", BWSH_MOUNT_TMPFS))->verdict, BWSH_VERDICT_SHADOWED);
  assert_int_equal (must (find (p, "/tmp", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  expect_single_warning (p, "/tmp", "replaces the default bind");
  bwsh_plan_free (p);

  /* policy > default */
  bwsh_bind_list_clear (&f->pol->ro_binds);
  assert_int_equal (bwsh_bind_list_add (&f->pol->ro_binds, "/srv/policy", "/run", &pol_src), 0);
  p = build (f, NULL);
  assert_int_equal (must (find (p, "/run", BWSH_MOUNT_TMPFS))->verdict, BWSH_VERDICT_SHADOWED);
  assert_int_equal (must (find (p, "/run", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  bwsh_plan_free (p);
  bwsh_bind_list_clear (&f->pol->ro_binds);
}

/* ----------------------------------------------------- protected paths */

/* The invariant the protected paths exist for: no accepted read-write bind
 * shows a protected path (as named or as resolved) writable at any
 * destination, unless a read-only mount later in the plan covers exactly
 * that spot. */
static void
assert_protected_never_writable (const Fx *f, const BwshPlan *p)
{
  for (size_t r = 0; r < bwsh_n_protected_defaults; r++)
    for (int resolved = 0; resolved < 2; resolved++)
      {
        char *prot = hp (f, bwsh_protected_defaults[r].tmpl + 2);
        char *real = resolved ? realpath (prot, NULL) : NULL;
        const char *P = resolved ? real : prot;

        if (P == NULL)
          {
            free (prot);
            continue;
          }
        for (size_t i = 0; i < p->n_mounts; i++)
          {
            const BwshMount *m = &p->mounts[i];
            char *spot = NULL;
            bool covered = false;
            size_t sl;

            if (m->verdict != BWSH_VERDICT_ACCEPTED || m->kind != BWSH_MOUNT_BIND || m->src == NULL)
              continue;
            if (!bwsh_path_has_prefix (P, m->src))
              continue;
            /* user_config_mode = "editable": the overlay's directory, at its
             * own place only, is the one deliberate exception. */
            if (m->exact_source && strcmp (m->src, P) == 0 && strcmp (m->dest, P) == 0)
              continue;
            sl = strcmp (m->src, "/") == 0 ? 0 : strlen (m->src);
            assert_true (asprintf (&spot, "%s%s", strcmp (m->dest, "/") == 0 ? "" : m->dest, P + sl) > 0);
            for (size_t j = i + 1; j < p->n_mounts; j++)
              {
                const BwshMount *q = &p->mounts[j];
                if (q->verdict == BWSH_VERDICT_ACCEPTED
                    && (q->kind == BWSH_MOUNT_RO_BIND || q->kind == BWSH_MOUNT_REMOUNT_RO
                        || (q->exact_source && strcmp (q->dest, P) == 0 && strcmp (spot, P) == 0))
                    && bwsh_path_has_prefix (spot, q->dest))
                  covered = true;
              }
            if (!covered)
              {
                dump (p);
                fail_msg ("protected %s is writable inside at %s through the bind %s -> %s", P, spot, m->src,
                          m->dest);
              }
            free (spot);
          }
        free (real);
        free (prot);
      }
}

static void
test_protected_paths_rebound_read_only_under_rw_home (void **state)
{
  Fx *f = *state;
  BwshPlan *p;
  BwshMount *home, *m, *t, *ro;
  char *pam = hp (f, ".pam_environment");

  mkdirs (f, ".ssh");
  mkdirs (f, ".config/bwsh");

  /* Default plan: $HOME is read-only, nothing extra is needed. */
  p = build (f, NULL);
  assert_null (find_h (f, p, "@H/.ssh", -1));
  assert_null (find_h (f, p, "@H/.pam_environment", -1));
  assert_protected_never_writable (f, p);
  bwsh_plan_free (p);

  /* The user asks for a writable $HOME. */
  p = build_json (f, MOUNTS ("\"additionalBinds\": [\"@H\"]"));
  home = must (find (p, f->home, BWSH_MOUNT_BIND));
  assert_non_null (home);
  assert_int_equal (home->verdict, BWSH_VERDICT_ACCEPTED);
  /* existing: read-only binds, after the home */
  m = must (find_h (f, p, "@H/.ssh", BWSH_MOUNT_RO_BIND));
  REQUIRE (m);
  assert_int_equal (m->verdict, BWSH_VERDICT_ACCEPTED);
  assert_int_equal (m->from.origin, BWSH_ORIGIN_POLICY);
  assert_true (index_of (p, m) > index_of (p, home));
  /* user_config_mode = "editable" (the default): the overlay's directory
   * is bound read-write onto itself, at its own place only. */
  m = must (find_h (f, p, "@H/.config/bwsh", BWSH_MOUNT_BIND));
  REQUIRE (m);
  assert_true (m->exact_source);
  assert_true (index_of (p, m) > index_of (p, home));
  /* a missing file: an empty read-only file in its place */
  m = must (find (p, pam, BWSH_MOUNT_RO_BIND));
  REQUIRE (m);
  assert_string_equal (m->src, "/dev/null");
  assert_true (index_of (p, home) < index_of (p, m));
  /* a missing directory: a tmpfs, then remount read-only, so it cannot be created */
  free (pam);
  pam = hp (f, ".gnupg");
  t = must (find (p, pam, BWSH_MOUNT_TMPFS));
  ro = must (find (p, pam, BWSH_MOUNT_REMOUNT_RO));
  assert_non_null (t);
  assert_non_null (ro);
  assert_true (index_of (p, home) < index_of (p, t));
  assert_true (index_of (p, t) < index_of (p, ro));
  assert_parents_first (p);
  resolve (p);
  assert_true (must (find_h (f, p, "@H/.ssh", BWSH_MOUNT_RO_BIND))->fd >= 0);
  assert_protected_never_writable (f, p);
  bwsh_plan_free (p);

  /* A writable ~/.config, user_config_mode = "readonly": ~/.config/bwsh
   * is bound read-only again, and so are ~/.config/systemd & co. */
  f->pol->user_config_mode = BWSH_USER_CONFIG_READONLY;
  p = build_json (f, MOUNTS ("\"additionalBinds\": [\"@H/.config\"]"));
  f->pol->user_config_mode = BWSH_USER_CONFIG_EDITABLE;
  assert_non_null (find_h (f, p, "@H/.config/bwsh", BWSH_MOUNT_RO_BIND));
  /* The session above made ~/.config/systemd's mount point under the
   * read-write home (bwsh makes a protected path's placeholder itself, no
   * longer bwrap): it is the real one now, read-only. */
  assert_non_null (find_h (f, p, "@H/.config/systemd", BWSH_MOUNT_RO_BIND));
  assert_null (find_h (f, p, "@H/.ssh", -1));
  resolve (p);
  assert_protected_never_writable (f, p);
  bwsh_plan_free (p);
  free (pam);
}

static void
test_protected_symlink_target_protected_too (void **state)
{
  /* ~/.ssh -> ~/dotfiles/ssh under a read-write $HOME: no bind can pin the
   * symlink, so the session could replace it (rm ~/.ssh; mkdir ~/.ssh) and
   * write what sshd reads.  The read-write $HOME is refused (issue 24). */
  Fx *f = *state;
  BwshPlan *p;
  BwshMount *home;

  mkdirs (f, "dotfiles/ssh");
  symlink_in_home (f, "@H/dotfiles/ssh", ".ssh");
  p = build_json (f, MOUNTS ("\"additionalBinds\": [\"@H\"]"));
  home = must (find (p, f->home, BWSH_MOUNT_BIND));
  assert_int_equal (home->verdict, BWSH_VERDICT_REFUSED);
  assert_non_null (strstr (home->reason, "behind a symlink, which the session could replace"));
  resolve (p);
  assert_protected_never_writable (f, p);
  bwsh_plan_free (p);
}

static void
test_rw_alias_of_home_does_not_expose_protected_paths (void **state)
{
  /* {"src": $HOME, "dst": $HOME/alias} is read-write and under $HOME on both
   * sides, but inside it $HOME/alias/.ssh is the host's ~/.ssh, writable,
   * unless the protection follows the source as well as the destination. */
  Fx *f = *state;
  BwshPlan *p;

  mkdirs (f, ".ssh");
  mkdirs (f, ".config/bwsh");
  p = build_json (f, MOUNTS ("\"additionalBinds\": [{\"src\": \"@H\", \"dst\": \"@H/alias\"}]"));
  resolve (p);
  assert_protected_never_writable (f, p);
  bwsh_plan_free (p);
}

static void
test_rw_symlink_to_home_does_not_expose_protected_paths (void **state)
{
  /* ~/mirror -> ~ resolves under $HOME and is not itself protected, but it
   * contains ~/.ssh. */
  Fx *f = *state;
  BwshPlan *p;

  mkdirs (f, ".ssh");
  symlink_in_home (f, "@H", "mirror");
  p = build_json (f, MOUNTS ("\"additionalBinds\": [\"@H/mirror\"]"));
  resolve (p);
  assert_protected_never_writable (f, p);
  bwsh_plan_free (p);
}

/* ------------------------------------------------------ project directory */

static void
test_project_dir_choice_checked_like_rw_bind (void **state)
{
  Fx *f = *state;
  static const struct
  {
    const char *value;
    const char *reason; /* NULL = accepted */
  } cases[] = {
    { "@H/work", NULL },
    { "@H//work/./", NULL },
    { "@H/.config", "must not be hidden" },
    { "@H/work/.hidden/p", "must not be hidden" },
    { "/srv/project", "must lie under $HOME" },
    { "@H", "must lie under $HOME" },
    { "@Hx/p", "must lie under $HOME" },
    { "@H/.ssh", "protected path" },
    { "@H/.config/bwsh/x", "protected path" },
    { "@H/../x", "not a valid absolute path" },
    { "relative/p", "not a valid absolute path" },
    { "/proc/self/cwd", "must lie under $HOME" },
    /* issue 35: what a login could not create, and what it would reach
     * through a directory another session can swap */
    { "@H/afile", "cannot create @H/afile: an element is not a directory" },
    { "@H/afile/p", "cannot create @H/afile/p: an element is not a directory" },
    { "@H/alink", "cannot create @H/alink: an element is not a directory" },
    { "@H/work/deeper", "must lie directly in $HOME: deeper, another session of yours can swap" },
  };

  {
    char *file = hp (f, "afile"), *link = hp (f, "alink");
    FILE *fp = fopen (file, "w");
    assert_non_null (fp);
    fclose (fp);
    assert_int_equal (symlink ("/tmp", link), 0);
    free (file);
    free (link);
  }

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      char json[PATH_MAX + 128];
      char *def = hp (f, "project"), *want = NULL, *v = subst (f, cases[i].value);
      BwshPlan *p;

      snprintf (json, sizeof json, "{\"preferences\": {\"sandboxProjectDir\": \"%s\"}}", cases[i].value);
      p = build_json (f, json);
      if (cases[i].reason == NULL)
        {
          assert_int_equal (bwsh_path_normalize (v, &want), BWSH_PATH_OK);
          assert_int_equal (p->diag.n, 0);
          assert_string_equal (p->project_dir, want);
          assert_string_equal (p->chdir, f->home);
          assert_non_null (find (p, want, BWSH_MOUNT_BIND));
          assert_null (find (p, def, BWSH_MOUNT_BIND));
        }
      else
        {
          char *reason = subst (f, cases[i].reason);
          expect_single_warning (p, "sandboxProjectDir", reason);
          free (reason);
          assert_non_null (strstr (p->diag.lines[0], "using the default"));
          assert_int_equal (p->n_refused, 1);
          assert_string_equal (p->project_dir, def);
          assert_string_equal (p->chdir, f->home);
        }
      free (want);
      free (def);
      free (v);
      bwsh_plan_free (p);
    }

  /* A policy that does not let users choose. */
  f->pol->user_may_choose_project = false;
  {
    BwshPlan *p = build_json (f, "{\"preferences\": {\"sandboxProjectDir\": \"@H/work\"}}");
    char *def = hp (f, "project");
    expect_single_warning (p, "sandboxProjectDir", "does not let users choose");
    assert_string_equal (p->project_dir, def);
    free (def);
    bwsh_plan_free (p);
  }
  f->pol->user_may_choose_project = true;
}

/* No accepted bind (of any origin) may end up read-write on a forbidden
 * path or outside $HOME once resolved. */
static void
assert_no_rw_escape (const Fx *f, const BwshPlan *p)
{
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      const BwshMount *m = &p->mounts[i];
      if (m->verdict != BWSH_VERDICT_ACCEPTED || m->kind != BWSH_MOUNT_BIND)
        continue;
      if (bwsh_path_is_forbidden (m->src) || !bwsh_path_has_prefix (m->src, f->home))
        {
          dump (p);
          fail_msg ("read-write bind of %s at %s accepted", m->src, m->dest);
        }
    }
}

static void
test_project_dir_swapped_for_symlink_to_root_refused (void **state)
{
  /* bwsh creates ~/project with bwsh_mkdir_under_home(), which refuses a
   * symlink; but the user owns ~ and can swap ~/project for a symlink to "/"
   * between that and bwsh_plan_resolve().  The project bind is read-write:
   * resolve must check it like any user-controlled bind, or the host's "/"
   * (with /run and its D-Bus sockets) is mounted writable at ~/project. */
  Fx *f = *state;
  char *project = hp (f, "project");
  BwshError err = { 0 };
  BwshPlan *p;
  int r;

  p = build (f, NULL);
  assert_int_equal (rmdir (project), 0);
  assert_int_equal (symlink ("/", project), 0);
  r = bwsh_plan_resolve (p, BWSH_RESOLVE_CREATE, &err);
  if (r == 0)
    assert_no_rw_escape (f, p);
  bwsh_plan_free (p);
  free (project);
}

static void
test_chosen_project_dir_symlink_outside_home_refused (void **state)
{
  Fx *f = *state;
  BwshError err = { 0 };
  BwshPlan *p;
  int r;

  symlink_in_home (f, "@O", "work");
  p = build_json (f, "{\"preferences\": {\"sandboxProjectDir\": \"@H/work\"}}");
  r = bwsh_plan_resolve (p, BWSH_RESOLVE_CREATE, &err);
  if (r == 0)
    assert_no_rw_escape (f, p);
  bwsh_plan_free (p);
}

/* --------------------------------------------------------- mount limit */

static size_t
count_verdict (const BwshPlan *p, BwshVerdict v, int origin)
{
  size_t n = 0;
  for (size_t i = 0; i < p->n_mounts; i++)
    n += p->mounts[i].verdict == v && (origin < 0 || (int) p->mounts[i].from.origin == origin);
  return n;
}

/* What reaches bwrap with no overlay: the limit is set relative to it. */
static size_t
base_mounts (const Fx *f)
{
  BwshPlan *p = build (f, NULL);
  size_t n;

  resolve (p);
  n = count_verdict (p, BWSH_VERDICT_ACCEPTED, -1);
  bwsh_plan_free (p);
  return n;
}

/* An overlay of @n read-only binds "@H/@rel/dK" or "@O/@rel/dK" (K < @n), made. */
static char *
overlay_of_dirs (const Fx *f, bool outside, const char *rel, size_t n)
{
  size_t cap = 128 + n * (strlen (outside ? f->outside : f->home) + strlen (rel) + 32);
  char *json = malloc (cap);
  size_t o = 0;

  REQUIRE (json);
  o += (size_t) snprintf (json + o, cap - o, MOUNTS ("\"additionalROBinds\": ["));
  o -= 3; /* reopen the list: MOUNTS() closed it */
  for (size_t i = 0; i < n; i++)
    {
      char d[64];
      snprintf (d, sizeof d, "%s/d%zu", rel, i);
      if (outside)
        mkdirs_under (f->outside, d);
      else
        mkdirs (f, d);
      o += (size_t) snprintf (json + o, cap - o, "%s\"%s/%s\"", i ? "," : "", outside ? f->outside : f->home, d);
    }
  snprintf (json + o, cap - o, "]}}}");
  return json;
}

static void
test_mount_flood_refused_beyond_policy_limit (void **state)
{
  Fx *f = *state;
  BwshPlan *p;
  size_t defaults = base_mounts (f), user_ok = 0, user_refused = 0;
  char *json = overlay_of_dirs (f, true, "srv", 5);

  /* Under the limit: all five accepted. */
  p = build_json (f, json);
  resolve (p);
  assert_int_equal (p->n_refused, 0);
  assert_int_equal (p->diag.n, 0);
  assert_int_equal (count_verdict (p, BWSH_VERDICT_ACCEPTED, BWSH_ORIGIN_USER), 5);
  bwsh_plan_free (p);

  f->pol->max_mounts = (unsigned) defaults + 2;
  p = build_json (f, json);
  resolve (p);
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      if (p->mounts[i].from.origin != BWSH_ORIGIN_USER)
        {
          assert_int_equal (p->mounts[i].verdict, BWSH_VERDICT_ACCEPTED);
          continue;
        }
      user_ok += p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED;
      user_refused += p->mounts[i].verdict == BWSH_VERDICT_REFUSED;
    }
  if (count_verdict (p, BWSH_VERDICT_ACCEPTED, -1) > f->pol->max_mounts || user_ok != 2)
    {
      dump (p);
      fail_msg ("max_mounts %u: %zu mounts accepted (%zu of them the user's)", f->pol->max_mounts,
                count_verdict (p, BWSH_VERDICT_ACCEPTED, -1), user_ok);
    }
  assert_int_equal (user_refused, 3);
  assert_int_equal (p->n_refused, 3);
  assert_int_equal (p->diag.n, 3);
  {
    char limit[64];
    snprintf (limit, sizeof limit, "limit of %zu mounts", defaults + 2);
    assert_int_equal (diag_count (p, limit), 3);
  }
  assert_int_equal (diag_count (p, "/srv/d2"), 1);
  assert_int_equal (diag_count (p, "/srv/d4"), 1);
  bwsh_plan_free (p);
  free (json);

  /* Defaults are never cut, even by an absurd limit. */
  f->pol->max_mounts = 1;
  p = build (f, NULL);
  resolve (p);
  for (size_t i = 0; i < p->n_mounts; i++)
    assert_true (p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED || p->mounts[i].verdict == BWSH_VERDICT_SKIPPED);
  bwsh_plan_free (p);
  f->pol->max_mounts = BWSH_DEFAULT_MAX_MOUNTS;
}

static void
test_redundant_binds_do_not_count_toward_max_mounts (void **state)
{
  /* 1,000 binds already visible through the read-only $HOME never reach
   * bwrap: they neither use up the limit nor warn about it. */
  Fx *f = *state;
  size_t defaults = base_mounts (f);
  char *json = overlay_of_dirs (f, false, "data", 1000);
  BwshPlan *p;

  f->pol->max_mounts = (unsigned) defaults + 1;
  p = build_json (f, json);
  resolve (p);
  assert_int_equal (count_verdict (p, BWSH_VERDICT_COALESCED, BWSH_ORIGIN_USER), 1000);
  assert_int_equal (count_verdict (p, BWSH_VERDICT_ACCEPTED, -1), defaults);
  assert_int_equal (p->n_refused, 0);
  assert_int_equal (p->diag.n, 0);
  for (size_t i = 0; i < p->n_mounts; i++)
    assert_int_equal (p->mounts[i].fd >= 0, p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED
                                                && (p->mounts[i].kind == BWSH_MOUNT_RO_BIND
                                                    || p->mounts[i].kind == BWSH_MOUNT_BIND));
  bwsh_plan_free (p);
  f->pol->max_mounts = BWSH_DEFAULT_MAX_MOUNTS;
  free (json);
}

static void
test_bind_covered_by_a_bind_over_the_limit_is_cut_too (void **state)
{
  /* @O/a at /mnt/a shows @O/a/b at /mnt/a/b, so the second is coalesced;
   * when the limit cuts /mnt/a, /mnt/a/b must not silently vanish with it. */
  static const char overlay[] = MOUNTS ("\"additionalROBinds\": [{\"src\": \"@O/z\", \"dst\": \"/mnt/0\"},"
                                        " {\"src\": \"@O/a/b\", \"dst\": \"/mnt/a/b\"},"
                                        " {\"src\": \"@O/a\", \"dst\": \"/mnt/a\"}]");
  Fx *f = *state;
  size_t defaults = base_mounts (f);
  BwshPlan *p;

  mkdirs_under (f->outside, "a/b");
  mkdirs_under (f->outside, "z");
  f->pol->max_mounts = (unsigned) defaults + 1;
  p = build_json (f, overlay);
  resolve (p);
  assert_int_equal (must (find (p, "/mnt/0", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  assert_int_equal (must (find (p, "/mnt/a", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_REFUSED);
  assert_int_equal (must (find (p, "/mnt/a/b", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_REFUSED);
  assert_int_equal (diag_count (p, "/mnt/a: the policy's limit"), 1);
  assert_int_equal (diag_count (p, "/mnt/a/b: the policy's limit"), 1);
  bwsh_plan_free (p);

  /* With room for both, the child is coalesced into its parent. */
  f->pol->max_mounts = (unsigned) defaults + 2;
  p = build_json (f, overlay);
  resolve (p);
  assert_int_equal (must (find (p, "/mnt/a", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  assert_int_equal (must (find (p, "/mnt/a/b", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_COALESCED);
  assert_int_equal (p->diag.n, 0);
  bwsh_plan_free (p);
  f->pol->max_mounts = BWSH_DEFAULT_MAX_MOUNTS;
}

/* ----------------------------------------------------------- coalescing */

static void
test_redundant_ro_bind_coalesced_only_under_identical_parent (void **state)
{
  Fx *f = *state;
  BwshPlan *p;
  BwshMount *m;

  mkdirs (f, "docs");
  mkdirs (f, "project/sub");
  p = build_json (f, MOUNTS ("\"additionalROBinds\": [\"@H/docs\", \"@H/project/sub\","
                             " {\"src\": \"@H/docs\", \"dst\": \"/mnt/docs\"}]"));
  resolve (p);
  /* under the read-only $HOME, bound onto itself: already visible */
  m = must (find_h (f, p, "@H/docs", BWSH_MOUNT_RO_BIND));
  assert_int_equal (m->verdict, BWSH_VERDICT_COALESCED);
  assert_int_equal (m->fd, -1);
  assert_non_null (strstr (m->reason, f->home));
  /* under the read-write project: not coalesced, and skipped because its
   * mount point lies where another session can rename it (issue 35) */
  m = must (find_h (f, p, "@H/project/sub", BWSH_MOUNT_RO_BIND));
  assert_int_equal (m->verdict, BWSH_VERDICT_SKIPPED);
  assert_non_null (strstr (m->reason, "where another session of yours can swap"));
  /* elsewhere: not covered */
  m = must (find (p, "/mnt/docs", BWSH_MOUNT_RO_BIND));
  assert_int_equal (m->verdict, BWSH_VERDICT_ACCEPTED);
  assert_int_equal (p->diag.n, 1);
  bwsh_plan_free (p);
}

static void
test_coalescing_follows_nearest_parent_whatever_the_order (void **state)
{
  /* Listed children first, duplicated, renamed, through a symlink: the
   * verdicts are those of the reference rule (checked in resolve()), and
   * these spell out the ones that matter. */
  Fx *f = *state;
  BwshPlan *p;
  char *docs;

  mkdirs_under (f->outside, "t/a/b/c");
  mkdirs_under (f->outside, "t/e");
  /* /mnt/x/e is a mount point inside the read-only bind of t/a: it has to
   * exist there, or the entry is skipped (bwrap could not make it). */
  mkdirs_under (f->outside, "t/a/e");
  mkdirs (f, "project/w/v");
  mkdirs (f, "docs");
  symlink_in_home (f, "@O/t/a", "alias");
  p = build_json (f, MOUNTS ("\"additionalROBinds\": ["
                             " {\"src\": \"@O/t/a/b/c\", \"dst\": \"/mnt/x/b/c\"},"   /* grandchild first */
                             " {\"src\": \"@O/t/a/b\", \"dst\": \"/mnt/x/b\"},"
                             " {\"src\": \"@O/t/a\", \"dst\": \"/mnt/x\"},"
                             " {\"src\": \"@O/t/e\", \"dst\": \"/mnt/x/e\"},"       /* other offset */
                             " {\"src\": \"@O/t/a/b\", \"dst\": \"/mnt/x/b\"},"     /* duplicate */
                             " \"@H/alias\", \"@H/docs\", \"@H/docs\"],"
                             " \"additionalBinds\": [\"@H/project/w/v\", \"@H/project/w\"]"));
  resolve (p);
  assert_int_equal (must (find (p, "/mnt/x", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  assert_int_equal (must (find_nth (p, "/mnt/x/b", BWSH_MOUNT_RO_BIND, 1))->verdict, BWSH_VERDICT_COALESCED);
  assert_int_equal (must (find (p, "/mnt/x/b/c", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_COALESCED);
  assert_non_null (strstr (must (find (p, "/mnt/x/b/c", BWSH_MOUNT_RO_BIND))->reason, "bind of /mnt/x"));
  assert_int_equal (must (find (p, "/mnt/x/e", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  /* the same destination twice from the same origin: the later one wins */
  assert_int_equal (must (find (p, "/mnt/x/b", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_SHADOWED);
  /* its own destination is a symlink in the real home: bwrap would follow
   * it, so the entry is skipped (issue 24) */
  assert_int_equal (must (find_h (f, p, "@H/alias", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_SKIPPED);
  docs = subst (f, "@H/docs");
  assert_int_equal (must (find_nth (p, docs, BWSH_MOUNT_RO_BIND, 0))->verdict, BWSH_VERDICT_SHADOWED);
  assert_int_equal (must (find_nth (p, docs, BWSH_MOUNT_RO_BIND, 1))->verdict, BWSH_VERDICT_COALESCED);
  free (docs);
  /* read-write under read-write: the project already shows both */
  assert_int_equal (must (find_h (f, p, "@H/project/w", BWSH_MOUNT_BIND))->verdict, BWSH_VERDICT_COALESCED);
  assert_int_equal (must (find_h (f, p, "@H/project/w/v", BWSH_MOUNT_BIND))->verdict, BWSH_VERDICT_COALESCED);
  bwsh_plan_free (p);
}

static void
test_symlink_next_to_a_plain_directory_still_resolved (void **state)
{
  /* Entries in one directory are resolved with one readlink() each once the
   * directory is known to resolve to itself: a link among them must still
   * be followed and checked, wherever it comes in the list. */
  Fx *f = *state;
  BwshPlan *p;

  mkdirs (f, "project/a");
  mkdirs (f, "project/c");
  symlink_in_home (f, "@O", "project/b");
  p = build_json (f, MOUNTS ("\"additionalBinds\": [{\"src\": \"@H/project/a\", \"dst\": \"@H/project/x/a\"},"
                             " {\"src\": \"@H/project/b\", \"dst\": \"@H/project/x/b\"},"
                             " {\"src\": \"@H/project/c\", \"dst\": \"@H/project/x/c\"}]"));
  resolve (p);
  /* The sources are what this test is about; the mount points, in the
   * project, are skipped afterwards (issue 35). */
  assert_int_equal (must (find_h (f, p, "@H/project/x/a", BWSH_MOUNT_BIND))->verdict, BWSH_VERDICT_SKIPPED);
  assert_int_equal (must (find_h (f, p, "@H/project/x/b", BWSH_MOUNT_BIND))->verdict, BWSH_VERDICT_REFUSED);
  assert_non_null (strstr (must (find_h (f, p, "@H/project/x/b", BWSH_MOUNT_BIND))->reason, f->outside));
  assert_int_equal (must (find_h (f, p, "@H/project/x/c", BWSH_MOUNT_BIND))->verdict, BWSH_VERDICT_SKIPPED);
  assert_int_equal (diag_count (p, "resolves to"), 1);
  assert_int_equal (diag_count (p, "where another session of yours can swap"), 2);
  bwsh_plan_free (p);
}

/* --------------------------------------------------- file descriptors */

/* Build and resolve @json (NULL: no overlay) in a child process under
 * ulimit -n @soft (hard @hard), since only root may raise a hard limit
 * again; fail with what the child reports unless every check of @check held. */
typedef const char *(*PlanCheck) (const Fx *f, BwshPlan *p, int r, const BwshError *err);

static void
assert_under_nofile (const Fx *f, const char *json, rlim_t soft, rlim_t hard, PlanCheck check)
{
  char buf[512] = "";
  int pipefd[2], status;
  ssize_t n;
  pid_t pid;

  assert_int_equal (pipe2 (pipefd, O_CLOEXEC), 0);
  pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      struct rlimit rl = { soft, hard };
      BwshUserConfig *uc = NULL;
      BwshDiag diag = { 0 };
      BwshError err = { 0 };
      BwshPlan *p = NULL;
      const char *what;
      int r;

      close (pipefd[0]);
      if (json != NULL && bwsh_user_config_parse (json, strlen (json), "u.json", &uc, &diag, &err) < 0)
        what = "overlay does not parse";
      else if (bwsh_plan_build (f->id, f->pol, uc, NULL, &p, &err) < 0)
        what = "build failed";
      else if (setrlimit (RLIMIT_NOFILE, &rl) < 0)
        what = "setrlimit failed";
      else
        {
          r = bwsh_plan_resolve (p, BWSH_RESOLVE_CREATE, &err);
          what = check (f, p, r, &err);
        }
      if (write (pipefd[1], what, strlen (what)) < 0)
        _exit (2);
      _exit (0);
    }
  close (pipefd[1]);
  n = read (pipefd[0], buf, sizeof buf - 1);
  close (pipefd[0]);
  assert_int_equal (waitpid (pid, &status, 0), pid);
  assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  buf[n > 0 ? n : 0] = '\0';
  if (buf[0] != '\0')
    fail_msg ("ulimit -Sn %llu -Hn %llu: %s", (unsigned long long) soft, (unsigned long long) hard, buf);
}

static bool
holds_fd_if_bound (const BwshPlan *p)
{
  for (size_t i = 0; i < p->n_mounts; i++)
    if (p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED
        && (p->mounts[i].kind == BWSH_MOUNT_RO_BIND || p->mounts[i].kind == BWSH_MOUNT_BIND) && p->mounts[i].fd < 0)
      return false;
  return true;
}

static const char *
check_degraded_one_warning (const Fx *f, BwshPlan *p, int r, const BwshError *err)
{
  size_t accepted = count_verdict (p, BWSH_VERDICT_ACCEPTED, BWSH_ORIGIN_USER);
  size_t refused = count_verdict (p, BWSH_VERDICT_REFUSED, BWSH_ORIGIN_USER);
  char first[PATH_MAX + 16], last[PATH_MAX + 16];
  const BwshMount *m0, *m999;

  (void) err;
  snprintf (first, sizeof first, "%s/many/d0", f->outside);
  snprintf (last, sizeof last, "%s/many/d999", f->outside);
  m0 = find (p, first, BWSH_MOUNT_RO_BIND);
  m999 = find (p, last, BWSH_MOUNT_RO_BIND);
  if (r != 0)
    return "resolve failed";
  if (accepted + refused != 1000 || accepted < 400 || accepted >= 512 || p->n_refused != refused)
    return "not the expected split of accepted and left-out binds";
  if (p->diag.n != 1 || strstr (p->diag.lines[0], "of the user's binds left out: the open file limit "
                                                   "(ulimit -n, hard 512)") == NULL)
    return p->diag.n > 0 ? p->diag.lines[0] : "no warning";
  if (diag_count (p, "changed while it was checked") != 0)
    return "a misleading \"changed while it was checked\"";
  if (!holds_fd_if_bound (p))
    return "an accepted bind without its fd";
  if (m0 == NULL || m0->verdict != BWSH_VERDICT_ACCEPTED || m999 == NULL || m999->verdict != BWSH_VERDICT_REFUSED)
    return "not the last entries left out";
  return "";
}

static const char *
check_all_bound (const Fx *f, BwshPlan *p, int r, const BwshError *err)
{
  (void) f;
  (void) err;
  if (r != 0)
    return "resolve failed";
  if (count_verdict (p, BWSH_VERDICT_ACCEPTED, BWSH_ORIGIN_USER) != 1000 || p->diag.n != 0)
    return "binds left out although the hard limit had room";
  return holds_fd_if_bound (p) ? "" : "an accepted bind without its fd";
}

static const char *
check_strict_refused (const Fx *f, BwshPlan *p, int r, const BwshError *err)
{
  (void) f;
  (void) p;
  return r == -EPERM && strstr (err->message, "strict policy") != NULL ? "" : "strict policy not refused";
}

static const char *
check_defaults_refused (const Fx *f, BwshPlan *p, int r, const BwshError *err)
{
  (void) f;
  (void) p;
  if (r != -EMFILE)
    return "not refused with EMFILE";
  return strstr (err->message, "the open file limit (ulimit -n, hard 24)") != NULL ? "" : err->message;
}

static void
test_fd_exhaustion_one_message_and_user_binds_left_out (void **state)
{
  /* 1,000 binds that each need an fd, under ulimit -n 512: one warning
   * naming the limit, the last user binds left out, every accepted bind
   * holding its fd, and no "changed while it was checked". */
  Fx *f = *state;
  char *json = overlay_of_dirs (f, true, "many", 1000);

  f->pol->max_mounts = BWSH_ENTRIES_MAX;
  assert_under_nofile (f, json, 512, 512, check_degraded_one_warning);
  /* A soft limit below the hard one is raised instead: nothing left out. */
  assert_under_nofile (f, json, 256, 2048, check_all_bound);
  /* Strict: degraded is not good enough. */
  f->pol->strict = true;
  assert_under_nofile (f, json, 512, 512, check_strict_refused);
  f->pol->strict = false;
  /* Too few even for the defaults: refused, with one message. */
  assert_under_nofile (f, NULL, 24, 24, check_defaults_refused);

  f->pol->max_mounts = BWSH_DEFAULT_MAX_MOUNTS;
  free (json);
}

/* ---------------------------------------------------------- environment */

static bool
env_has (const BwshPlan *p, const char *kv)
{
  for (size_t i = 0; i < p->n_env; i++)
    if (strcmp (p->env[i], kv) == 0)
      return true;
  return false;
}

static size_t
env_count_name (const BwshPlan *p, const char *name)
{
  size_t n = 0, l = strlen (name);
  for (size_t i = 0; i < p->n_env; i++)
    n += strncmp (p->env[i], name, l) == 0 && p->env[i][l] == '=';
  return n;
}

static void
test_environment_allow_list_and_fixed_identity (void **state)
{
  Fx *f = *state;
  char *const envp[] = {
    S ("TERM=xterm-256color"),
    S ("LANG=C.UTF-8"),
    S ("LC_ALL=de_DE.UTF-8"),
    S ("LC_CTYPE=C"),
    S ("TZ=Europe/Berlin"),
    S ("COLORTERM=truecolor"),
    S ("SSH_CONNECTION=127.0.0.1 1 127.0.0.1 22"),
    S ("SSH_CLIENT=127.0.0.1 1 22"),
    S ("SSH_TTY=/dev/pts/3"),
    S ("LD_PRELOAD=/tmp/evil.so"),
    S ("LD_LIBRARY_PATH=/tmp"),
    S ("BASH_ENV=/tmp/evil.sh"),
    S ("ENV=/tmp/evil.sh"),
    S ("PATH=/tmp/evil:/usr/bin"),
    S ("HOME=/"),
    S ("SHELL=/x"),
    S ("USER=root"),
    S ("LOGNAME=root"),
    S ("DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/0/bus"),
    S ("XDG_RUNTIME_DIR=/run/user/0"),
    S ("SSH_AUTH_SOCK=/tmp/agent"),
    S ("LCX=no"),
    S ("=nameless"),
    S ("NOEQUALS"),
    NULL,
  };
  static const char *const passed[] = {
    "TERM=xterm-256color", "LANG=C.UTF-8", "LC_ALL=de_DE.UTF-8", "LC_CTYPE=C", "TZ=Europe/Berlin",
    "COLORTERM=truecolor", "SSH_CONNECTION=127.0.0.1 1 127.0.0.1 22", "SSH_CLIENT=127.0.0.1 1 22",
    /* bwrap binds the session's terminal at /dev/console; its /dev/pts
     * is a devpts of its own, where /dev/pts/3 does not exist. */
    "SSH_TTY=/dev/console",
  };
  static const char *const dropped[] = { "LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV", "ENV", "DBUS_SESSION_BUS_ADDRESS",
                                         "XDG_RUNTIME_DIR", "SSH_AUTH_SOCK", "LCX", "NOEQUALS" };
  BwshPlan *p = build_env (f, NULL, envp);
  char kv[PATH_MAX + 16];

  for (size_t i = 0; i < sizeof passed / sizeof passed[0]; i++)
    if (!env_has (p, passed[i]))
      fail_msg ("%s did not pass the allow-list", passed[i]);
  for (size_t i = 0; i < sizeof dropped / sizeof dropped[0]; i++)
    if (env_count_name (p, dropped[i]) != 0)
      fail_msg ("%s got into the sandbox", dropped[i]);
  /* fixed from identity and policy, exactly once each */
  snprintf (kv, sizeof kv, "HOME=%s", f->home);
  assert_true (env_has (p, kv));
  assert_true (env_has (p, "USER=tester"));
  assert_true (env_has (p, "LOGNAME=tester"));
  snprintf (kv, sizeof kv, "SHELL=%s", f->pol->shell);
  assert_true (env_has (p, kv));
  assert_true (env_has (p, "PATH=/usr/local/bin:/usr/bin:/bin"));
  static const char *const fixed[] = { "HOME", "USER", "LOGNAME", "SHELL", "PATH" };
  for (size_t i = 0; i < 5; i++)
    assert_int_equal (env_count_name (p, fixed[i]), 1);
  assert_null (p->env[p->n_env]);
  bwsh_plan_free (p);

  /* The policy may allow more names, globs included. */
  assert_int_equal (bwsh_bind_list_add (&f->pol->env_allow, "MY_*", NULL, NULL), 0);
  {
    char *const e2[] = { S ("MY_VAR=1"), S ("OTHER=2"), NULL };
    p = build_env (f, NULL, e2);
    assert_true (env_has (p, "MY_VAR=1"));
    assert_int_equal (env_count_name (p, "OTHER"), 0);
    bwsh_plan_free (p);
  }
  bwsh_bind_list_clear (&f->pol->env_allow);
  /* A pattern that starts with a glob character matches as fnmatch() says
   * (env.c asks fnmatch() only where a literal first character agrees). */
  assert_int_equal (bwsh_bind_list_add (&f->pol->env_allow, "*_EDITOR", NULL, NULL), 0);
  assert_int_equal (bwsh_bind_list_add (&f->pol->env_allow, "?AGER", NULL, NULL), 0);
  assert_int_equal (bwsh_bind_list_add (&f->pol->env_allow, "[VW]ISUAL", NULL, NULL), 0);
  assert_int_equal (bwsh_bind_list_add (&f->pol->env_allow, "\\EDIT", NULL, NULL), 0);
  {
    char *const e4[] = { S ("GIT_EDITOR=vi"), S ("PAGER=less"), S ("VISUAL=vi"), S ("EDIT=1"),
                         S ("XISUAL=no"), S ("MANPAGER=no"), NULL };
    p = build_env (f, NULL, e4);
    assert_true (env_has (p, "GIT_EDITOR=vi"));
    assert_true (env_has (p, "PAGER=less"));
    assert_true (env_has (p, "VISUAL=vi"));
    assert_true (env_has (p, "EDIT=1"));
    assert_int_equal (env_count_name (p, "XISUAL"), 0);
    assert_int_equal (env_count_name (p, "MANPAGER"), 0);
    bwsh_plan_free (p);
  }
  bwsh_bind_list_clear (&f->pol->env_allow);

  /* With the host's /dev the session's pts exists at its own name. */
  f->pol->dev_mode = BWSH_DEV_HOST;
  {
    char *const e3[] = { S ("SSH_TTY=/dev/pts/3"), NULL };
    p = build_env (f, NULL, e3);
    assert_true (env_has (p, "SSH_TTY=/dev/pts/3"));
    bwsh_plan_free (p);
  }
}

static char *
big_var (const char *name, size_t value_len)
{
  size_t n = strlen (name);
  char *s = malloc (n + 1 + value_len + 1);
  assert_non_null (s);
  memcpy (s, name, n);
  s[n] = '=';
  memset (s + n + 1, 'x', value_len);
  s[n + 1 + value_len] = '\0';
  return s;
}

static void
test_oversized_allowed_variable_fails_e2big (void **state)
{
  Fx *f = *state;
  /* LANG: a TERM of any size that is not a terminal name becomes "dumb"
   * (test_term_not_a_terminal_name_becomes_dumb). */
  char *term = big_var ("LANG", 140 * 1024);
  char *ok = big_var ("LANG", BWSH_ENV_VALUE_MAX);
  char *junk = big_var ("LD_PRELOAD", 140 * 1024);
  char *const e1[] = { term, NULL };
  char *const e2[] = { ok, junk, NULL };
  BwshPlan *p = (BwshPlan *) 0x1;
  BwshError err = { 0 };

  assert_int_equal (bwsh_plan_build (f->id, f->pol, NULL, e1, &p, &err), -E2BIG);
  assert_ptr_equal (p, (BwshPlan *) 0x1);
  assert_non_null (strstr (err.message, "LANG"));
  assert_non_null (strstr (err.message, "longer than 32768 bytes"));
  /* at the limit: fine; an oversized variable that is not allowed: ignored */
  p = build_env (f, NULL, e2);
  assert_true (env_has (p, ok));
  assert_int_equal (env_count_name (p, "LD_PRELOAD"), 0);
  bwsh_plan_free (p);
  free (term);
  free (ok);
  free (junk);
}

/* A client's TERM reaches the sandbox and tlog-rec only as a terminal
 * name; a TERM of 3,000 bytes emptied a required recording, one that is
 * not UTF-8 stopped tlog-rec (issue 36). */
static void
test_term_not_a_terminal_name_becomes_dumb (void **state)
{
  Fx *f = *state;
  static const struct
  {
    const char *term;
    bool kept;
  } cases[] = {
    { "xterm-256color", true }, { "screen.xterm-256color", true }, { "rxvt-unicode+x", true },
    { "vt100", true },          { "xterm\xff\xfe", false },       { "", false },
    { "-x", false },            { "..", false },                   { "xterm color", false },
    { "xterm\n", false },       { "a$(id)", false },
  };
  char *long_term = big_var ("TERM", 3000);
  char *max_term = big_var ("TERM", 64);
  char *over_term = big_var ("TERM", 65);

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      char *entry = NULL;
      assert_true (asprintf (&entry, "TERM=%s", cases[i].term) > 0);
      char *const e[] = { entry, NULL };
      BwshPlan *p = build_env (f, NULL, e);
      assert_true (env_has (p, cases[i].kept ? entry : "TERM=dumb"));
      assert_int_equal (env_count_name (p, "TERM"), 1);
      if (cases[i].kept)
        assert_null (p->term_fallback);
      else
        assert_string_equal (p->term_fallback, "dumb");
      bwsh_plan_free (p);
      free (entry);
    }
  {
    char *const e[] = { long_term, NULL };
    BwshPlan *p = build_env (f, NULL, e);
    assert_true (env_has (p, "TERM=dumb"));
    bwsh_plan_free (p);
  }
  {
    char *const e[] = { max_term, NULL };
    BwshPlan *p = build_env (f, NULL, e);
    assert_true (env_has (p, max_term));
    bwsh_plan_free (p);
  }
  {
    char *const e[] = { over_term, NULL };
    BwshPlan *p = build_env (f, NULL, e);
    assert_true (env_has (p, "TERM=dumb"));
    bwsh_plan_free (p);
  }
  free (long_term);
  free (max_term);
  free (over_term);
}

/* ----------------------------------------------------- policy switches */

static void
test_strict_policy_fails_resolve_on_any_refusal (void **state)
{
  Fx *f = *state;
  BwshError err = { 0 };
  BwshPlan *p;

  f->pol->strict = true;
  p = build_json (f, MOUNTS ("\"additionalROBinds\": [\"/proc\"]"));
  assert_int_equal (bwsh_plan_resolve (p, BWSH_RESOLVE_CREATE, &err), -EPERM);
  assert_non_null (strstr (err.message, "strict policy: 1 configuration entry was refused"));
  bwsh_plan_free (p);
  p = build_json (f, MOUNTS ("\"additionalROBinds\": [\"/srv\"]"));
  assert_int_equal (bwsh_plan_resolve (p, BWSH_RESOLVE_CREATE, &err), 0);
  bwsh_plan_free (p);
  f->pol->strict = false;
}

static void
test_overlay_ignored_when_policy_forbids_it (void **state)
{
  Fx *f = *state;
  BwshPlan *p;

  f->pol->user_overlay_allowed = false;
  p = build_json (f, "{\"preferences\": {\"sandboxProjectDir\": \"@H/work\", \"sandboxBwrapMounts\": "
                     "{\"additionalBinds\": [\"@H\"], \"disabledDefaultBinds\": [\"/tmp\"]}}}");
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      assert_int_not_equal (p->mounts[i].from.origin, BWSH_ORIGIN_USER);
      assert_int_equal (p->mounts[i].verdict, BWSH_VERDICT_ACCEPTED);
    }
  assert_non_null (strstr (p->project_dir, "/project"));
  bwsh_plan_free (p);
  f->pol->user_overlay_allowed = true;
}

static void
test_network_mode_copied_from_policy (void **state)
{
  Fx *f = *state;
  static const BwshNetMode modes[] = { BWSH_NET_NONE, BWSH_NET_SHARED, BWSH_NET_PRIVATE };

  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
    {
      BwshPlan *p;
      f->pol->net_mode = modes[i];
      p = build (f, NULL);
      assert_int_equal (p->network, modes[i]);
      assert_int_equal (p->unshare[BWSH_NS_NET], modes[i] != BWSH_NET_SHARED);
      bwsh_plan_free (p);
    }
}

/* ------------------------------------------------------------ identity */

/* ------------------------------------------------------------- the home */

static void
touch_in_home (const Fx *f, const char *rel)
{
  char *p = hp (f, rel);
  int fd = open (p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  assert_true (fd >= 0);
  close (fd);
  free (p);
}

/* ~/.bashrc -> project/bashrc: bash outside reads a file that the session
 * writes through the read-write project.  The home's listing, which lets
 * the build skip the lookup of a protected path whose first element the
 * home lacks (issue 27), holds .bashrc: its target is found and bound
 * read-only. */
static void
test_protected_symlink_into_project_read_only_over_tmpfs_state (void **state)
{
  Fx *f = *state;
  char *target = hp (f, "project/bashrc");
  BwshPlan *p;

  f->pol->state_mode = BWSH_STATE_TMPFS;
  mkdirs (f, "project");
  touch_in_home (f, "project/bashrc");
  symlink_in_home (f, "@H/project/bashrc", ".bashrc");
  p = build (f, NULL);
  assert_string_equal (p->state, "tmpfs");
  assert_int_equal (must (find (p, target, BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  resolve (p);
  assert_protected_never_writable (f, p);
  bwsh_plan_free (p);
  free (target);
}

static void
test_home_entries_read_only_over_tmpfs_state (void **state)
{
  Fx *f = *state;
  char *fifo = hp (f, "fifo");
  BwshPlan *p;
  BwshMount *m;
  struct stat st;

  f->pol->state_mode = BWSH_STATE_TMPFS;
  mkdirs (f, "docs");
  mkdirs (f, ".cache");
  mkdirs (f, ".config/bwsh");
  mkdirs (f, ".config/systemd");
  touch_in_home (f, "notes");
  touch_in_home (f, ".bash_history");
  touch_in_home (f, ".gitconfig");
  symlink_in_home (f, "/etc/hostname", "link");
  assert_int_equal (mkfifo (fifo, 0600), 0);
  p = build (f, NULL);
  assert_string_equal (p->state, "tmpfs");
  m = must (find (p, f->home, BWSH_MOUNT_TMPFS));
  assert_true (m->state);
  assert_int_equal (m->size, f->pol->tmp_tmpfs_size);
  /* the real home's entries: read-only, by an O_PATH fd opened now */
  for (size_t i = 0; i < 2; i++)
    {
      char *d = hp (f, i == 0 ? "docs" : "notes");
      m = must (find (p, d, BWSH_MOUNT_RO_BIND));
      assert_true (m->home_entry);
      assert_true (m->fd >= 0);
      assert_int_equal (fstat (m->fd, &st), 0);
      assert_true (i == 0 ? S_ISDIR (st.st_mode) : S_ISREG (st.st_mode));
      assert_null (find (p, d, BWSH_MOUNT_BIND));
      free (d);
    }
  m = must (find_h (f, p, "@H/link", BWSH_MOUNT_SYMLINK));
  assert_string_equal (m->src, "/etc/hostname");
  /* a FIFO is no bind source; the state provides the names of programs' state */
  assert_null (find_h (f, p, "@H/fifo", -1));
  assert_null (find_h (f, p, "@H/.cache", -1));
  assert_null (find_h (f, p, "@H/.bash_history", -1));
  assert_null (find_h (f, p, "@H/.gitconfig", -1));
  assert_null (find_h (f, p, "@H/.config", -1));
  /* a protected path below a state name is the real one, read-only */
  m = must (find_h (f, p, "@H/.config/systemd", BWSH_MOUNT_RO_BIND));
  assert_int_equal (m->verdict, BWSH_VERDICT_ACCEPTED);
  /* ... but the overlay's directory, editable (the default), is the real
   * one read-write over the state's ~/.config: an edit reaches the file */
  assert_null (find_h (f, p, "@H/.config/bwsh", BWSH_MOUNT_RO_BIND));
  m = must (find_h (f, p, "@H/.config/bwsh", BWSH_MOUNT_BIND));
  assert_int_equal (m->verdict, BWSH_VERDICT_ACCEPTED);
  assert_true (m->exact_source);
  assert_true (index_of (p, find (p, f->home, BWSH_MOUNT_TMPFS)) < index_of (p, m));
  /* a protected path missing from the real home gets no placeholder: a
   * write lands in the state, which no program outside reads */
  assert_null (find_h (f, p, "@H/.bashrc", -1));
  assert_null (find_h (f, p, "@H/.gnupg", -1));
  assert_null (find_h (f, p, "@H/.config/autostart", -1));
  /* the project is read-write over all of it, and parents come first */
  m = must (find_h (f, p, "@H/project", BWSH_MOUNT_BIND));
  assert_true (index_of (p, find (p, f->home, BWSH_MOUNT_TMPFS)) < index_of (p, m));
  assert_null (find_h (f, p, "@H/project", BWSH_MOUNT_RO_BIND));
  resolve (p);
  bwsh_plan_free (p);

  /* the first login creates the overlay's directory between pam_bwsh's
   * plan and bwsh's: the plan must not depend on it */
  {
    char before[65], after[65], *dir = hp (f, ".config/bwsh");
    assert_int_equal (unit_rm_rf (dir), 0);
    p = build (f, NULL);
    bwsh_plan_digest (p, before);
    bwsh_plan_free (p);
    mkdirs (f, ".config/bwsh");
    p = build (f, NULL);
    bwsh_plan_digest (p, after);
    bwsh_plan_free (p);
    assert_string_equal (before, after);
    free (dir);
  }

  /* readonly: the real directory, read-only; off: not shown at all */
  f->pol->user_config_mode = BWSH_USER_CONFIG_READONLY;
  p = build (f, NULL);
  assert_int_equal (must (find_h (f, p, "@H/.config/bwsh", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  assert_null (find_h (f, p, "@H/.config/bwsh", BWSH_MOUNT_BIND));
  bwsh_plan_free (p);
  f->pol->user_config_mode = BWSH_USER_CONFIG_OFF;
  p = build (f, NULL);
  assert_null (find_h (f, p, "@H/.config/bwsh", -1));
  assert_non_null (find_h (f, p, "@H/.config/systemd", BWSH_MOUNT_RO_BIND));
  bwsh_plan_free (p);
  f->pol->user_config_mode = BWSH_USER_CONFIG_EDITABLE;

  /* disabling $HOME hides the real home, the state stays */
  p = build_json (f, MOUNTS ("\"disabledDefaultBinds\": [\"@H\"]"));
  assert_int_equal (must (find (p, f->home, BWSH_MOUNT_TMPFS))->verdict, BWSH_VERDICT_ACCEPTED);
  assert_int_equal (must (find_h (f, p, "@H/docs", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_DISABLED);
  assert_int_equal (must (find_h (f, p, "@H/.config/systemd", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_DISABLED);
  bwsh_plan_free (p);

  /* a read-write bind of the whole home replaces state and entries */
  p = build_json (f, MOUNTS ("\"additionalBinds\": [\"@H\"]"));
  assert_int_equal (must (find (p, f->home, BWSH_MOUNT_TMPFS))->verdict, BWSH_VERDICT_SHADOWED);
  assert_int_equal (must (find_h (f, p, "@H/docs", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_SHADOWED);
  assert_int_equal (must (find (p, f->home, BWSH_MOUNT_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  bwsh_plan_free (p);

  /* a bind over one entry: no conflict, the entry stays below it */
  p = build_json (f, MOUNTS ("\"additionalBinds\": [\"@H/docs\"]"));
  assert_int_equal (p->diag.n, 0);
  assert_int_equal (must (find_h (f, p, "@H/docs", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  assert_int_equal (must (find_h (f, p, "@H/docs", BWSH_MOUNT_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  bwsh_plan_free (p);

  /* more entries than max_mounts: the seed's read-only home, with a warning */
  f->pol->max_mounts = 16;
  p = build (f, NULL);
  assert_string_equal (p->state, "none");
  assert_non_null (find (p, f->home, BWSH_MOUNT_RO_BIND));
  assert_null (find (p, f->home, BWSH_MOUNT_TMPFS));
  expect_single_warning (p, f->home, "the home is read-only and the shell's state is not writable");
  bwsh_plan_free (p);
  free (fifo);
}

static const struct
{
  const char *dir;
  const char *reason; /* NULL: accepted */
} state_dir_cases[] = {
  { "~/.local/state/bwsh", NULL },
  { "/var/lib/bwsh/state/%u", NULL },
  { "~", "is $HOME or a directory above it" },
  { "/", "is /, or lies in /proc, /dev or /sys" },
  { "~/.config", "lies in ~/.config, ~/.local/share or ~/.local/bin" },
  { "~/.config/state", "lies in ~/.config, ~/.local/share or ~/.local/bin" },
  { "~/.local/share/bwsh", "lies in ~/.config, ~/.local/share or ~/.local/bin" },
  { "~/.ssh/state", "is, lies in or contains a protected path" },
  { "~/.pam_environment", "is, lies in or contains a protected path" },
  { "~/project/state", "overlaps the project directory" },
  { "/tmp/state/%u", "lies in /etc, /usr, /boot, /run, /tmp, /var/tmp or /dev/shm" },
  { "/etc/bwsh/state", "lies in /etc, /usr, /boot, /run, /tmp, /var/tmp or /dev/shm" },
};

static void
test_state_dir_never_where_programs_outside_read (void **state)
{
  Fx *f = *state;

  f->pol->state_mode = BWSH_STATE_PERSISTENT;
  /* a parent of a protected path is refused too */
  assert_int_equal (bwsh_bind_list_add (&f->pol->protected_paths, "~/st/keys", NULL, NULL), 0);
  for (size_t i = 0; i <= sizeof state_dir_cases / sizeof state_dir_cases[0]; i++)
    {
      const char *dir = i < sizeof state_dir_cases / sizeof state_dir_cases[0] ? state_dir_cases[i].dir : "~/st";
      const char *reason = i < sizeof state_dir_cases / sizeof state_dir_cases[0]
                             ? state_dir_cases[i].reason
                             : "is, lies in or contains a protected path";
      BwshError err = { 0 };
      BwshPlan *p = NULL;
      int r;

      free (f->pol->state_dir);
      f->pol->state_dir = strdup (dir);
      r = bwsh_plan_build (f->id, f->pol, NULL, NULL, &p, &err);
      if (reason == NULL)
        {
          if (r != 0)
            fail_msg ("state_dir %s: %s", dir, err.message);
          assert_string_equal (p->state, "persistent");
          BwshMount *m = must (find (p, f->home, BWSH_MOUNT_BIND));
          assert_true (m->state);
          if (strstr (dir, "%u") != NULL)
            assert_string_equal (m->src, "/var/lib/bwsh/state/tester");
          bwsh_plan_free (p);
          continue;
        }
      if (r != -EPERM || strstr (err.message, reason) == NULL)
        fail_msg ("state_dir %s: %d \"%s\", want \"%s\"", dir, r, err.message, reason);
      assert_null (p);
    }
}

static void
test_persistent_state_resolved_and_checked_again (void **state)
{
  Fx *f = *state;
  char *dir = hp (f, ".local/state/bwsh");
  BwshPlan *p;
  BwshMount *m;
  struct stat st;

  f->pol->state_mode = BWSH_STATE_PERSISTENT;
  p = build (f, NULL);
  resolve (p);
  /* created as the user, 0700, bound by fd */
  assert_int_equal (stat (dir, &st), 0);
  assert_int_equal (st.st_mode & 07777, 0700);
  m = must (find (p, f->home, BWSH_MOUNT_BIND));
  assert_string_equal (m->src, dir);
  assert_true (m->fd >= 0);
  assert_string_equal (p->state, "persistent");
  /* the state is the user's directory on the host, but never one a program
   * outside reads (state_dir's rules): a missing protected path may be
   * created there, and gets no placeholder */
  assert_null (find_h (f, p, "@H/.bashrc", -1));
  assert_null (find_h (f, p, "@H/.ssh", -1));
  bwsh_plan_free (p);

  /* a mount point bwrap left for a real entry is fine; one of another kind
   * makes the state's entry show instead */
  mkdirs (f, "docs");
  touch_in_home (f, "notes");
  mkdirs (f, ".local/state/bwsh/docs");
  mkdirs (f, ".local/state/bwsh/notes");
  p = build (f, NULL);
  resolve (p);
  assert_int_equal (must (find_h (f, p, "@H/docs", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  assert_int_equal (must (find_h (f, p, "@H/notes", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_SKIPPED);
  expect_single_warning (p, "notes", "the persistent state has an entry of another kind with this name, which shows "
                         "instead (move it aside in a session, e.g. to its name with .old added, to see the real one)");
  bwsh_plan_free (p);

  /* what the warning says to do works: moved aside, the real entry binds */
  {
    _cleanup_free_ char *from = hp (f, ".local/state/bwsh/notes"), *to = hp (f, ".local/state/bwsh/notes.old");
    assert_int_equal (rename (from, to), 0);
  }
  p = build (f, NULL);
  resolve (p);
  assert_int_equal (must (find_h (f, p, "@H/notes", BWSH_MOUNT_RO_BIND))->verdict, BWSH_VERDICT_ACCEPTED);
  assert_int_equal (p->diag.n, 0);
  bwsh_plan_free (p);

  /* swapped for a symlink into ~/.config after the plan: the walk that
   * creates it as the user follows no symlink, and a tmpfs is used instead */
  mkdirs (f, ".config/elsewhere");
  p = build (f, NULL);
  assert_int_equal (unit_rm_rf (dir), 0);
  symlink_in_home (f, "@H/.config/elsewhere", ".local/state/bwsh");
  resolve (p);
  m = must (find (p, f->home, BWSH_MOUNT_TMPFS));
  assert_true (m->state);
  assert_string_equal (p->state, "tmpfs");
  expect_single_warning (p, "state_dir", "an element is not a directory; the session's state is a tmpfs");
  bwsh_plan_free (p);
  free (dir);
}

static void
test_identity_from_nss_not_environment (void **state)
{
  struct passwd *pw = getpwuid (getuid ());
  BwshIdentity *id = NULL;
  BwshError err = { 0 };
  char *want = NULL;
  (void) state;

  assert_non_null (pw);
  setenv ("HOME", "/", 1);
  setenv ("USER", "root-impostor", 1);
  setenv ("SHELL", "/tmp/evil", 1);
  assert_int_equal (bwsh_identity_from_uid (getuid (), &id, &err), 0);
  assert_int_equal (id->uid, pw->pw_uid);
  assert_string_equal (id->name, pw->pw_name);
  assert_int_equal (bwsh_path_normalize (pw->pw_dir, &want), BWSH_PATH_OK);
  assert_string_equal (id->home, want);
  assert_string_equal (id->shell, pw->pw_shell);
  bwsh_identity_free (id);
  free (want);

  assert_int_equal (bwsh_identity_from_name ("root", &id, &err), 0);
  assert_int_equal (id->uid, 0);
  assert_true (bwsh_identity_in_group (id, "root"));
  assert_false (bwsh_identity_in_group (id, "no-such-group-bwsh"));
  bwsh_identity_free (id);

  id = NULL;
  assert_int_equal (bwsh_identity_from_name ("no-such-user-bwsh", &id, &err), -ENOENT);
  assert_null (id);
  assert_non_null (strstr (err.message, "no such user"));
  assert_int_equal (bwsh_identity_from_uid (4000000000u, &id, &err), -ENOENT);
  assert_null (bwsh_identity_free (NULL));
}

int
main (void)
{
#define T(fn) cmocka_unit_test_setup_teardown (fn, setup, teardown)
  const struct CMUnitTest tests[] = {
    T (test_default_plan_is_the_seed_sandbox),
    T (test_each_rule_accepts_and_refuses_one_entry),
    T (test_rules_apply_again_after_resolving_symlinks),
    T (test_disable_defaults_locked_and_normalised),
    T (test_disabled_home_is_not_rendered),
    T (test_child_bind_never_shadowed_by_later_parent),
    T (test_same_destination_higher_origin_wins),
    T (test_protected_paths_rebound_read_only_under_rw_home),
    T (test_protected_symlink_target_protected_too),
    T (test_rw_alias_of_home_does_not_expose_protected_paths),
    T (test_rw_symlink_to_home_does_not_expose_protected_paths),
    T (test_project_dir_choice_checked_like_rw_bind),
    T (test_project_dir_swapped_for_symlink_to_root_refused),
    T (test_chosen_project_dir_symlink_outside_home_refused),
    T (test_mount_flood_refused_beyond_policy_limit),
    T (test_redundant_binds_do_not_count_toward_max_mounts),
    T (test_bind_covered_by_a_bind_over_the_limit_is_cut_too),
    T (test_redundant_ro_bind_coalesced_only_under_identical_parent),
    T (test_coalescing_follows_nearest_parent_whatever_the_order),
    T (test_symlink_next_to_a_plain_directory_still_resolved),
    T (test_fd_exhaustion_one_message_and_user_binds_left_out),
    T (test_socket_fifo_device_sources_refused),
    T (test_destination_prepared_or_skipped),
    T (test_entries_never_mounted_where_a_session_can_swap),
    T (test_missing_shell_named_with_policy_line),
    T (test_environment_allow_list_and_fixed_identity),
    T (test_oversized_allowed_variable_fails_e2big),
    T (test_term_not_a_terminal_name_becomes_dumb),
    T (test_strict_policy_fails_resolve_on_any_refusal),
    T (test_overlay_ignored_when_policy_forbids_it),
    T (test_network_mode_copied_from_policy),
    T (test_home_entries_read_only_over_tmpfs_state),
    T (test_protected_symlink_into_project_read_only_over_tmpfs_state),
    T (test_state_dir_never_where_programs_outside_read),
    T (test_persistent_state_resolved_and_checked_again),
    cmocka_unit_test (test_identity_from_nss_not_environment),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
