/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rendering (core/launch/render.c): the plan as bwrap options, the --args blob, the
 * inner command after "--", and shell quoting for display, checked against
 * a real /bin/sh.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bwshcore.h"
#include "unit.h"

/* Every path here is a short mkdtemp name under /tmp plus a few elements;
 * GCC cannot know that and warns about PATH_MAX buffers. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

typedef UnitPlanFx Fx;

static int
setup (void **state)
{
  static const char *const subdirs[] = { "docs", NULL };
  Fx *f = unit_plan_fx_new ("render", "/usr/local/bin/bwsh", subdirs, false);

  if (f == NULL)
    return -1;
  /* Some cases bind $HOME read-write, which the administrator allows. */
  {
    const BwshSource from = { .origin = BWSH_ORIGIN_POLICY };
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

static BwshPlan *
plan_with (const Fx *f, const char *json_fmt, char *const *envp, bool do_resolve)
{
  BwshUserConfig *uc = NULL;
  BwshPlan *p = NULL;
  BwshError err = { 0 };
  BwshDiag diag = { 0 };

  if (json_fmt != NULL)
    {
      /* every "@H" is the home */
      char *doc = unit_plan_fx_subst (f, json_fmt);
      assert_non_null (doc);
      assert_int_equal (bwsh_user_config_parse (doc, strlen (doc), "/cfg.json", &uc, &diag, &err), 0);
      assert_int_equal (diag.n, 0);
      free (doc);
    }
  if (bwsh_plan_build (f->id, f->pol, uc, envp, &p, &err) != 0)
    fail_msg ("build: %s", err.message);
  bwsh_user_config_free (uc);
  if (do_resolve && bwsh_plan_resolve (p, BWSH_RESOLVE_CREATE, &err) != 0)
    fail_msg ("resolve: %s", err.message);
  return p;
}

static ssize_t
argv_find (const BwshArgv *a, size_t from, const char *s)
{
  for (size_t i = from; i < a->n; i++)
    if (strcmp (a->v[i], s) == 0)
      return (ssize_t) i;
  return -1;
}

/* Index of the sequence x y (z) in @a, or -1. */
static ssize_t
argv_find_seq (const BwshArgv *a, const char *x, const char *y, const char *z)
{
  for (size_t i = 0; i + 1 < a->n; i++)
    if (strcmp (a->v[i], x) == 0 && strcmp (a->v[i + 1], y) == 0
        && (z == NULL || (i + 2 < a->n && strcmp (a->v[i + 2], z) == 0)))
      return (ssize_t) i;
  return -1;
}

static void
dump_argv (const BwshArgv *a)
{
  for (size_t i = 0; i < a->n; i++)
    print_message ("  argv[%zu] = %s\n", i, a->v[i]);
}

static BwshArgv
render (const BwshPlan *p, BwshRenderMode mode, int seccomp_fd)
{
  BwshArgv a = { 0 };
  assert_int_equal (bwsh_render_options (p, mode, seccomp_fd, &a), 0);
  assert_non_null (a.v);
  assert_null (a.v[a.n]);
  return a;
}

/* ------------------------------------------------------------ options */

static void
test_options_confine_namespaces_and_environment (void **state)
{
  Fx *f = *state;
  BwshPlan *p = plan_with (f, NULL, NULL, true);
  BwshArgv a = render (p, BWSH_RENDER_FDS, -1);
  static const char *const must[] = {
    "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
    "--disable-userns", "--die-with-parent", "--clearenv",
  };
  ssize_t clearenv;

  for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
    if (argv_find (&a, 0, must[i]) < 0)
      {
        dump_argv (&a);
        fail_msg ("%s missing", must[i]);
      }
  /* a private network by default (#14); never the host's namespaces wholesale */
  assert_true (argv_find (&a, 0, "--unshare-net") >= 0);
  assert_int_equal (argv_find (&a, 0, "--share-net"), -1);
  assert_int_equal (argv_find (&a, 0, "--seccomp"), -1);
  /* "--" and the command come only from bwsh_render_command */
  assert_int_equal (argv_find (&a, 0, "--"), -1);
  for (size_t i = 0; i < a.n; i++)
    if (strcmp (a.v[i], f->pol->shell) == 0 && !(i >= 2 && strcmp (a.v[i - 1], "SHELL") == 0))
      fail_msg ("the inner shell appears among the options at %zu", i);
  /* every --setenv comes after --clearenv */
  clearenv = argv_find (&a, 0, "--clearenv");
  for (size_t i = 0; i < a.n; i++)
    if (strcmp (a.v[i], "--setenv") == 0)
      assert_true ((ssize_t) i > clearenv);
  assert_true (argv_find_seq (&a, "--setenv", "HOME", f->home) > clearenv);
  assert_true (argv_find_seq (&a, "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin") > clearenv);
  assert_true (argv_find_seq (&a, "--dev", "/dev", NULL) >= 0);
  assert_true (argv_find_seq (&a, "--proc", "/proc", NULL) >= 0);
  /* relative scp, sftp, rsync and git paths are relative to $HOME */
  assert_true (argv_find_seq (&a, "--chdir", f->home, NULL) >= 0);
  bwsh_argv_clear (&a);
  bwsh_plan_free (p);
}

static void
test_unshare_net_unless_network_shared (void **state)
{
  Fx *f = *state;
  static const struct
  {
    BwshNetMode mode;
    bool unshare;
  } cases[] = { { BWSH_NET_NONE, true }, { BWSH_NET_PRIVATE, true }, { BWSH_NET_SHARED, false } };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      BwshPlan *p;
      BwshArgv a;
      f->pol->net_mode = cases[i].mode;
      p = plan_with (f, NULL, NULL, false);
      a = render (p, BWSH_RENDER_PATHS, -1);
      assert_int_equal (argv_find (&a, 0, "--unshare-net") >= 0, cases[i].unshare);
      bwsh_argv_clear (&a);
      bwsh_plan_free (p);
    }
}

static void
test_seccomp_and_hostname_rendered_when_set (void **state)
{
  Fx *f = *state;
  BwshPlan *p;
  BwshArgv a;

  f->pol->hostname = strdup ("sandbox");
  p = plan_with (f, NULL, NULL, false);
  a = render (p, BWSH_RENDER_PATHS, 7);
  assert_true (argv_find_seq (&a, "--seccomp", "7", NULL) >= 0);
  assert_true (argv_find_seq (&a, "--hostname", "sandbox", NULL) >= 0);
  bwsh_argv_clear (&a);
  bwsh_plan_free (p);
  free (f->pol->hostname);
  f->pol->hostname = NULL;
}

static void
test_size_precedes_its_tmpfs (void **state)
{
  Fx *f = *state;
  BwshPlan *p = plan_with (f, "{\"preferences\": {\"sandboxBwrapMounts\": {\"additionalBinds\": [\"@H\"]}}}", NULL,
                           true);
  BwshArgv a = render (p, BWSH_RENDER_FDS, -1);
  char size[32];
  ssize_t i;

  snprintf (size, sizeof size, "%" PRIu64, f->pol->root_tmpfs_size);
  i = argv_find_seq (&a, "--tmpfs", "/", NULL);
  assert_true (i >= 2);
  assert_string_equal (a.v[i - 2], "--size");
  assert_string_equal (a.v[i - 1], size);
  snprintf (size, sizeof size, "%" PRIu64, f->pol->tmp_tmpfs_size);
  i = argv_find_seq (&a, "--tmpfs", "/tmp", NULL);
  assert_true (i >= 2);
  assert_string_equal (a.v[i - 2], "--size");
  assert_string_equal (a.v[i - 1], size);
  /* the protected, missing directory ~/.gnupg: a tmpfs without --size, then remount-ro */
  {
    char gnupg[PATH_MAX + 32];
    ssize_t t, r;
    snprintf (gnupg, sizeof gnupg, "%s/.gnupg", f->home);
    t = argv_find_seq (&a, "--tmpfs", gnupg, NULL);
    r = argv_find_seq (&a, "--remount-ro", gnupg, NULL);
    assert_true (t >= 0);
    assert_true (r > t);
  }
  bwsh_argv_clear (&a);
  bwsh_plan_free (p);
}

static void
test_unresolved_plan_never_reaches_bwrap (void **state)
{
  /* An unresolved plan renders bind sources as paths; the launcher must
   * refuse it before anything is exec'd.  The bwrap path names nothing, so
   * without the check the exec fails with ENOENT instead and this fails. */
  Fx *f = *state;
  BwshPlan *p = plan_with (f, NULL, NULL, false);
  BwshCommand cmd = { .has_command = true, .command = "true" };
  BwshError err = { 0 };

  assert_int_equal (bwsh_exec_plan (p, &cmd, "/nonexistent/bwrap", &err), -EINVAL);
  assert_non_null (strstr (err.message, "has no validated source: the plan was not resolved"));
  bwsh_plan_free (p);
}

static void
test_binds_rendered_by_fd_not_path (void **state)
{
  /* What bwsh execs names each validated source by its O_PATH fd. */
  Fx *f = *state;
  BwshPlan *p = plan_with (f, "{\"preferences\": {\"sandboxBwrapMounts\": {\"additionalROBinds\": "
                              "[{\"src\": \"@H/docs\", \"dst\": \"/mnt/docs\"}]}}}",
                           NULL, true);
  BwshArgv a = render (p, BWSH_RENDER_FDS, -1);
  BwshArgv b = render (p, BWSH_RENDER_PATHS, -1);
  size_t n_fd = 0;

  for (size_t i = 0; i < p->n_mounts; i++)
    {
      const BwshMount *m = &p->mounts[i];
      char num[32];

      if (m->verdict != BWSH_VERDICT_ACCEPTED || (m->kind != BWSH_MOUNT_RO_BIND && m->kind != BWSH_MOUNT_BIND))
        continue;
      assert_true (m->fd >= 0);
      assert_true (fcntl (m->fd, F_GETFD) >= 0);
      snprintf (num, sizeof num, "%d", m->fd);
      if (argv_find_seq (&a, m->kind == BWSH_MOUNT_BIND ? "--bind-fd" : "--ro-bind-fd", num, m->dest) < 0)
        {
          dump_argv (&a);
          fail_msg ("%s is not bound by fd %s", m->dest, num);
        }
      if (argv_find_seq (&b, m->kind == BWSH_MOUNT_BIND ? "--bind" : "--ro-bind", m->src, m->dest) < 0)
        fail_msg ("paths mode lacks %s %s", m->src, m->dest);
      n_fd++;
    }
  assert_true (n_fd >= 4); /* /usr, /etc, $HOME, project, /mnt/docs */
  for (size_t i = 0; i < a.n; i++)
    if (strcmp (a.v[i], "--ro-bind") == 0 || strcmp (a.v[i], "--bind") == 0)
      fail_msg ("path bind in fd mode: %s %s %s", a.v[i], a.v[i + 1], a.v[i + 2]);
  bwsh_argv_clear (&a);
  bwsh_argv_clear (&b);
  bwsh_plan_free (p);
}

static void
test_options_follow_plan_order_and_skip_refused (void **state)
{
  Fx *f = *state;
  BwshPlan *p = plan_with (f, "{\"preferences\": {\"sandboxBwrapMounts\": {"
                              "\"additionalROBinds\": [\"@H/docs/deep\", \"/proc/kcore\", \"@H/missing\"],"
                              "\"disabledDefaultBinds\": [\"/run\"]}}}",
                           NULL, true);
  BwshArgv a = render (p, BWSH_RENDER_PATHS, -1);
  size_t at = 0;
  char missing[PATH_MAX + 16];

  snprintf (missing, sizeof missing, "%s/missing", f->home);
  /* each accepted mount's destination appears, in plan order */
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      const BwshMount *m = &p->mounts[i];
      ssize_t k;
      if (m->verdict != BWSH_VERDICT_ACCEPTED)
        continue;
      k = argv_find (&a, at, m->dest);
      if (k < 0)
        {
          dump_argv (&a);
          fail_msg ("%s missing or out of order", m->dest);
        }
      at = (size_t) k + 1;
    }
  assert_int_equal (argv_find (&a, 0, "/proc/kcore"), -1);
  assert_int_equal (argv_find (&a, 0, missing), -1);
  assert_int_equal (argv_find_seq (&a, "--tmpfs", "/run", NULL), -1);
  /* $HOME before the project below it */
  {
    char project[PATH_MAX + 16];
    snprintf (project, sizeof project, "%s/project", f->home);
    assert_true (argv_find_seq (&a, "--ro-bind", f->home, f->home) < argv_find_seq (&a, "--bind", project, project));
  }
  bwsh_argv_clear (&a);
  bwsh_plan_free (p);
}

static void
test_host_layout_symlinks_rendered (void **state)
{
  Fx *f = *state;
  BwshPlan *p = plan_with (f, NULL, NULL, false);
  BwshArgv a = render (p, BWSH_RENDER_PATHS, -1);
  struct stat st;

  if (lstat ("/bin", &st) == 0 && S_ISLNK (st.st_mode))
    {
      char target[PATH_MAX];
      ssize_t n = readlink ("/bin", target, sizeof target - 1);
      assert_true (n > 0);
      target[n] = '\0';
      assert_true (argv_find_seq (&a, "--symlink", target, "/bin") >= 0);
    }
  else
    assert_true (argv_find_seq (&a, "--ro-bind", "/bin", "/bin") >= 0);
  bwsh_argv_clear (&a);
  bwsh_plan_free (p);
}

/* ------------------------------------------------------------ the blob */

static void
test_args_blob_is_nul_separated (void **state)
{
  Fx *f = *state;
  char *const envp[] = { S ("TZ=with space\nand newline"), S ("LANG="), NULL };
  BwshPlan *p = plan_with (f, NULL, envp, true);
  BwshArgv a = render (p, BWSH_RENDER_FDS, 3);
  char *blob = NULL;
  size_t len = 0, want = 0, o = 0;

  assert_int_equal (bwsh_render_blob (&a, &blob, &len), 0);
  for (size_t i = 0; i < a.n; i++)
    want += strlen (a.v[i]) + 1;
  assert_int_equal (len, want);
  assert_int_equal (blob[len - 1], '\0');
  /* split on NUL: the same arguments, the empty value included */
  for (size_t i = 0; i < a.n; i++)
    {
      assert_true (o < len);
      assert_string_equal (blob + o, a.v[i]);
      o += strlen (blob + o) + 1;
    }
  assert_int_equal (o, len);
  assert_true (argv_find_seq (&a, "--setenv", "TZ", "with space\nand newline") >= 0);
  assert_true (argv_find_seq (&a, "--setenv", "LANG", "") >= 0);
  free (blob);
  bwsh_argv_clear (&a);

  /* no options: an empty blob */
  {
    BwshArgv empty = { 0 };
    assert_int_equal (bwsh_render_blob (&empty, &blob, &len), 0);
    assert_int_equal (len, 0);
    free (blob);
  }
  bwsh_plan_free (p);
}

/* --------------------------------------------------------- the command */

typedef struct
{
  const char *name;
  bool login;
  bool has_command;
  const char *command;
  const char *args[4];
  const char *want[10]; /* after "--" and the shell */
} CommandCase;

static const CommandCase command_cases[] = {
  { "interactive", false, false, NULL, { NULL }, { NULL } },
  { "login", true, false, NULL, { NULL }, { "-l", NULL } },
  { "-c only", false, true, "exit 7", { NULL }, { "-c", "--", "exit 7", NULL } },
  { "-c NAME ARGS", false, true, "printf '%s|' \"$0\" \"$1\"", { "a", "b", NULL },
    { "-c", "--", "printf '%s|' \"$0\" \"$1\"", "a", "b", NULL } },
  { "login and -c", true, true, "id", { "x", NULL }, { "-l", "-c", "--", "id", "x", NULL } },
  { "command that looks like bwrap options", false, true, "--bind / /host", { "--", "--dev-bind", NULL },
    { "-c", "--", "--bind / /host", "--", "--dev-bind", NULL } },
  { "empty command", false, true, "", { "", NULL }, { "-c", "--", "", "", NULL } },
};

static void
test_command_only_after_double_dash (void **state)
{
  Fx *f = *state;
  BwshPlan *p = plan_with (f, NULL, NULL, false);
  BwshArgv opts = render (p, BWSH_RENDER_FDS, -1);

  for (size_t i = 0; i < sizeof command_cases / sizeof command_cases[0]; i++)
    {
      const CommandCase *c = &command_cases[i];
      BwshCommand cmd = { .login = c->login, .has_command = c->has_command, .command = c->command };
      BwshArgv a = { 0 };
      size_t n_args = 0, n_want = 0;

      while (c->args[n_args] != NULL)
        n_args++;
      while (c->want[n_want] != NULL)
        n_want++;
      char *args[4] = { NULL };
      for (size_t k = 0; k < n_args; k++)
        args[k] = (char *) (uintptr_t) c->args[k];
      cmd.args = args;
      cmd.n_args = n_args;
      assert_int_equal (bwsh_render_command (p, &cmd, &a), 0);
      if (a.n != 2 + n_want)
        {
          dump_argv (&a);
          fail_msg ("%s: %zu words, want %zu", c->name, a.n, 2 + n_want);
        }
      assert_string_equal (a.v[0], "--");
      assert_string_equal (a.v[1], p->shell);
      for (size_t k = 0; k < n_want; k++)
        assert_string_equal (a.v[2 + k], c->want[k]);
      assert_null (a.v[a.n]);
      /* The user's words never reach bwrap's option parser. */
      if (c->command != NULL)
        assert_int_equal (argv_find (&opts, 0, c->command), -1);
      bwsh_argv_clear (&a);
    }
  bwsh_argv_clear (&opts);
  bwsh_plan_free (p);
}

/* With the session's state on a tmpfs the home's top is read-only for a
 * file transfer (issue 38): --remount-ro $HOME ends bwrap's options, after
 * every mount, and the argv from "--" on is the user's command alone (what
 * BWSH_COMMAND records).  Not with a state that persists.  The notice that
 * says where work is kept: at an interactive login, and before scp, sftp
 * and rsync, whose clients show it; not before git or a shell command. */
static void
test_home_read_only_with_tmpfs_state (void **state)
{
  static const struct
  {
    const char *command;
    bool login;
    const char *state;
    bool remount;
    bool notice;
  } cases[] = {
    { "scp -t up", false, "tmpfs", true, true },
    { "/usr/lib/openssh/sftp-server", false, "tmpfs", true, true },
    { "rsync --server -logDtpre.iLsfxCIvu . rs/", false, "tmpfs", true, true },
    { "git-receive-pack 'project/repo.git'", false, "tmpfs", true, false },
    { "echo hi > ~/notes.txt", false, "tmpfs", false, false },
    { NULL, true, "tmpfs", false, true },
    { "scp -t up", false, "persistent", false, false },
    { NULL, true, "persistent", false, false },
    { "scp -t up", false, "none", false, false },
  };
  Fx *f = *state;
  BwshPlan *p = plan_with (f, NULL, NULL, false);

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      BwshCommand cmd = { .login = cases[i].login, .has_command = cases[i].command != NULL, .command = cases[i].command };
      BwshArgv a = { 0 }, opts = { 0 };
      char *notice = NULL, *quiet = NULL;

      p->state = cases[i].state;
      p->home_read_only = strcmp (cases[i].state, "tmpfs") == 0;
      assert_int_equal (bwsh_render_options (p, BWSH_RENDER_PATHS, -1, &opts), 0);
      assert_int_equal (bwsh_render_transfer_options (p, &cmd, &opts), 0);
      assert_int_equal (bwsh_render_command (p, &cmd, &a), 0);
      assert_string_equal (a.v[0], "--");
      assert_int_equal (argv_find (&a, 0, "--remount-ro"), -1);
      if (cases[i].remount)
        {
          ssize_t at = -1;
          /* the last one: placeholders of protected paths have their own */
          for (ssize_t k = argv_find (&opts, 0, "--remount-ro"); k >= 0; k = argv_find (&opts, (size_t) k + 1, "--remount-ro"))
            at = k;
          assert_true (at >= 0);
          assert_string_equal (opts.v[at + 1], p->home);
          /* after every mount */
          for (size_t k = (size_t) at + 2; k < opts.n; k++)
            assert_true (strncmp (opts.v[k], "--", 2) != 0 || strcmp (opts.v[k], "--chdir") == 0
                         || strcmp (opts.v[k], "--seccomp") == 0);
        }
      else
        for (ssize_t k = argv_find (&opts, 0, "--remount-ro"); k >= 0; k = argv_find (&opts, (size_t) k + 1, "--remount-ro"))
          assert_string_not_equal (opts.v[k + 1], p->home);
      assert_int_equal (bwsh_home_notice (p, &cmd, true, &notice), 0);
      assert_true ((notice != NULL) == cases[i].notice);
      if (notice != NULL)
        assert_non_null (strstr (notice, p->project_dir));
      /* an ssh command or a login without a terminal gets none */
      assert_int_equal (bwsh_home_notice (p, &cmd, false, &quiet), 0);
      if (cases[i].command == NULL)
        assert_null (quiet);
      free (notice);
      free (quiet);
      bwsh_argv_clear (&a);
      bwsh_argv_clear (&opts);
    }
  bwsh_plan_free (p);
}

/* ------------------------------------------------------- shell quoting */

/* Run SHELL -c SCRIPT and return its stdout. */
static char *
run_shell (const char *shell, const char *script)
{
  int fds[2];
  pid_t pid;
  char *out = NULL;
  size_t len = 0, cap = 0;
  int status;

  assert_int_equal (pipe2 (fds, O_CLOEXEC), 0);
  pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      char *const argv[] = { (char *) (uintptr_t) shell, S ("-c"), (char *) (uintptr_t) script, NULL };
      char *const envp[] = { S ("PATH=/usr/bin:/bin"), S ("HOME=/nonexistent-home"), NULL };
      dup2 (fds[1], 1);
      execve (shell, argv, envp);
      _exit (127);
    }
  close (fds[1]);
  for (;;)
    {
      ssize_t n;
      if (len + 256 > cap)
        {
          cap = cap ? cap * 2 : 1024;
          out = realloc (out, cap);
          assert_non_null (out);
        }
      n = read (fds[0], out + len, cap - len - 1);
      if (n <= 0)
        break;
      len += (size_t) n;
    }
  out[len] = '\0';
  close (fds[0]);
  assert_int_equal (waitpid (pid, &status, 0), pid);
  assert_true (WIFEXITED (status));
  assert_int_equal (WEXITSTATUS (status), 0);
  return out;
}

static char *
run_sh (const char *script)
{
  return run_shell ("/bin/sh", script);
}

static const char *const quote_cases[] = {
  "plain", "/usr/bin/bwrap", "--ro-bind", "", "with space", "it's", "''", "'", "\"double\"", "$HOME",
  "${PATH}", "`id`", "$(id)", "a\nb", "tab\there", "back\\slash", "\\", "*", "?", "[a]", "~", "~root", "-n",
  "--bind / /host", ";rm -rf /", "a|b&c>d<e", "#comment", "!", "{a,b}", "caf\xc3\xa9", "=x", "a=b", "%s",
  "\x01\x7f", " leading", "trailing ", "x'y\"z$w`v\\u",
  /* Names a user makes in the home, from inside, for root's terminal. */
  "a\x1b]0;title\x07b", "c\x1b[2Jd", "e\naccepted ro-bind /fake -> /fake", "f\xffg", "\x9b" "31m", "\x1b'\\x1b",
};

/* What a terminal acts on: C0, DEL, C1 and what is not UTF-8. */
static bool
has_terminal_bytes (const char *s)
{
  for (; *s != '\0'; s++)
    if ((unsigned char) *s < 0x20 || (unsigned char) *s >= 0x7f)
      return true;
  return false;
}

static void
test_shell_quote_round_trips_through_sh (void **state)
{
  (void) state;
  for (size_t i = 0; i < sizeof quote_cases / sizeof quote_cases[0]; i++)
    {
      const char *s = quote_cases[i];
      char *q = bwsh_shell_quote (s);
      char *script = NULL, *out, *want = NULL;

      assert_non_null (q);
      assert_true (asprintf (&script, "printf '%%s\\n' %s", q) > 0);
      if (has_terminal_bytes (q))
        fail_msg ("quote(%s) = %s holds a byte a terminal acts on", s, q);
      /* $'...' (bash, zsh, ksh, POSIX.1-2024 sh; not dash 0.5.12) carries
       * those; the other cases read back with /bin/sh. */
      out = has_terminal_bytes (s) ? run_shell ("/bin/bash", script) : run_sh (script);
      assert_true (asprintf (&want, "%s\n", s) > 0);
      if (strcmp (out, want) != 0)
        fail_msg ("quote(%s) = %s; sh read back \"%s\"", s, q, out);
      free (want);
      free (out);
      free (script);
      free (q);
    }
}

static void
test_shell_quoted_words_stay_separate (void **state)
{
  /* A whole command line, as explain prints it: each word read back alone. */
  static const char *const words[] = { "a b", "", "c;d", "$(x)", "e" };
  char *script = strdup ("printf '<%s>'");
  char *out;
  (void) state;

  assert_non_null (script);
  for (size_t i = 0; i < 5; i++)
    {
      char *q = bwsh_shell_quote (words[i]), *n = NULL;
      assert_true (asprintf (&n, "%s %s", script, q) > 0);
      free (script);
      free (q);
      script = n;
    }
  out = run_sh (script);
  assert_string_equal (out, "<a b><><c;d><$(x)><e>");
  free (out);
  free (script);
}

int
main (void)
{
#define T(fn) cmocka_unit_test_setup_teardown (fn, setup, teardown)
  const struct CMUnitTest tests[] = {
    T (test_options_confine_namespaces_and_environment),
    T (test_unshare_net_unless_network_shared),
    T (test_seccomp_and_hostname_rendered_when_set),
    T (test_size_precedes_its_tmpfs),
    T (test_unresolved_plan_never_reaches_bwrap),
    T (test_binds_rendered_by_fd_not_path),
    T (test_options_follow_plan_order_and_skip_refused),
    T (test_host_layout_symlinks_rendered),
    T (test_args_blob_is_nul_separated),
    T (test_command_only_after_double_dash),
    T (test_home_read_only_with_tmpfs_state),
    cmocka_unit_test (test_shell_quote_round_trips_through_sh),
    cmocka_unit_test (test_shell_quoted_words_stay_separate),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
