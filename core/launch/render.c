/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The plan as bwrap arguments: what bwsh execs, and what explain shows. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "bind_list.h"
#include "cleanup.h"
#include "format.h"
#include "plan.h"
#include "render.h"

static int
add2 (BwshArgv *a, const char *x, const char *y)
{
  int r = bwsh_argv_add (a, x);
  return r < 0 ? r : bwsh_argv_add (a, y);
}

static int
add3 (BwshArgv *a, const char *x, const char *y, const char *z)
{
  int r = add2 (a, x, y);
  return r < 0 ? r : bwsh_argv_add (a, z);
}

const BwshNamespaceInfo *
bwsh_namespace_info (BwshNamespace ns)
{
  /* cgroup namespaces are missing from some kernels; bwrap's -try skips
   * them there instead of failing the session. */
  static const BwshNamespaceInfo table[_BWSH_NS_MAX] = {
    [BWSH_NS_USER] = { "user", "--unshare-user", false },
    [BWSH_NS_PID] = { "pid", "--unshare-pid", false },
    [BWSH_NS_IPC] = { "ipc", "--unshare-ipc", false },
    [BWSH_NS_UTS] = { "uts", "--unshare-uts", false },
    [BWSH_NS_CGROUP] = { "cgroup", "--unshare-cgroup-try", true },
    [BWSH_NS_NET] = { "net", "--unshare-net", false },
  };
  return (size_t) ns < _BWSH_NS_MAX ? &table[ns] : NULL;
}

static int
render_mount (const BwshMount *m, BwshRenderMode mode, BwshArgv *a)
{
  char buf[24];
  const char *num = NULL;
  bool by_fd = mode == BWSH_RENDER_FDS && m->fd >= 0;
  int r;

  if (by_fd)
    num = bwsh_format_i64 (buf, m->fd);

  switch (m->kind)
    {
    case BWSH_MOUNT_TMPFS:
      if (m->size > 0)
        {
          r = add2 (a, "--size", bwsh_format_u64 (buf, m->size));
          if (r < 0)
            return r;
        }
      return add2 (a, "--tmpfs", m->dest);
    case BWSH_MOUNT_RO_BIND:
      return by_fd ? add3 (a, "--ro-bind-fd", num, m->dest) : add3 (a, "--ro-bind", m->src, m->dest);
    case BWSH_MOUNT_BIND:
      return by_fd ? add3 (a, "--bind-fd", num, m->dest) : add3 (a, "--bind", m->src, m->dest);
    case BWSH_MOUNT_DEV_BIND:
      /* bwrap has no --dev-bind-fd; the host /dev is the administrator's. */
      return add3 (a, "--dev-bind", m->src, m->dest);
    case BWSH_MOUNT_DEV:
      return add2 (a, "--dev", m->dest);
    case BWSH_MOUNT_PROC:
      return add2 (a, "--proc", m->dest);
    case BWSH_MOUNT_SYMLINK:
      return add3 (a, "--symlink", m->src, m->dest);
    case BWSH_MOUNT_DIR:
      return add2 (a, "--dir", m->dest);
    case BWSH_MOUNT_REMOUNT_RO:
      return add2 (a, "--remount-ro", m->dest);
    default:
      return -EINVAL;
    }
}

int
bwsh_render_options (const BwshPlan *p, BwshRenderMode mode, int seccomp_fd, BwshArgv *ret)
{
  BwshArgv a = { 0 };
  int r;

  for (BwshNamespace ns = 0; ns < _BWSH_NS_MAX; ns++)
    if (p->unshare[ns] && (r = bwsh_argv_add (&a, bwsh_namespace_info (ns)->bwrap_option)) < 0)
      goto fail;
  if (p->disable_userns && (r = bwsh_argv_add (&a, "--disable-userns")) < 0)
    goto fail;
  if ((r = bwsh_argv_add (&a, "--die-with-parent")) < 0)
    goto fail;
  if (p->hostname != NULL && (r = add2 (&a, "--hostname", p->hostname)) < 0)
    goto fail;

  if ((r = bwsh_argv_add (&a, "--clearenv")) < 0)
    goto fail;
  for (size_t i = 0; i < p->n_env; i++)
    {
      _cleanup_free_ char *name = NULL;
      const char *eq = strchr (p->env[i], '=');

      name = strndup (p->env[i], (size_t) (eq - p->env[i]));
      if (name == NULL)
        {
          r = -ENOMEM;
          goto fail;
        }
      if ((r = add3 (&a, "--setenv", name, eq + 1)) < 0)
        goto fail;
    }

  for (size_t i = 0; i < p->n_mounts; i++)
    {
      if (p->mounts[i].verdict != BWSH_VERDICT_ACCEPTED)
        continue;
      if ((r = render_mount (&p->mounts[i], mode, &a)) < 0)
        goto fail;
    }
  if (p->chdir != NULL && (r = add2 (&a, "--chdir", p->chdir)) < 0)
    goto fail;
  if (seccomp_fd >= 0)
    {
      char num[24];
      if ((r = add2 (&a, "--seccomp", bwsh_format_i64 (num, seccomp_fd))) < 0)
        goto fail;
    }
  *ret = a;
  return 0;
fail:
  bwsh_argv_clear (&a);
  return r;
}

bool
bwsh_plan_home_read_only (const BwshPlan *p)
{
  /* Only while the session's state is what $HOME is: a bind of $HOME
   * itself (an administrator's, or the user's within rw_ceilings)
   * replaces it, with its own flags. */
  if (!p->home_read_only || p->home == NULL)
    return false;
  for (size_t i = 0; i < p->n_mounts; i++)
    if (p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED && p->mounts[i].state && p->mounts[i].kind == BWSH_MOUNT_TMPFS
        && strcmp (p->mounts[i].dest, p->home) == 0)
      return true;
  return false;
}

int
bwsh_render_transfer_options (const BwshPlan *p, const BwshCommand *cmd, BwshArgv *opts)
{
  /* With state = "tmpfs" nothing a file transfer writes at the home's top
   * would outlive the session: it fails with EROFS instead, which scp -O,
   * rsync and sftp report on the client (issue 38).  Only this mount, after
   * every other: the project and the binds beneath keep their own flags.
   * An interactive session keeps a writable top, where programs that
   * replace their files by a rename in the home (vim's ~/.viminfo, less's
   * ~/.lesshst) keep working; the login notice says what is kept. */
  if (!bwsh_plan_home_read_only (p) || !bwsh_command_is_file_transfer (cmd))
    return 0;
  return add2 (opts, "--remount-ro", p->home);
}

/* The kept state's directory when $HOME is it, else NULL. */
static const char *
kept_state (const BwshPlan *p)
{
  for (size_t i = 0; i < p->n_mounts; i++)
    if (p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED && p->mounts[i].state && p->mounts[i].kind == BWSH_MOUNT_BIND
        && strcmp (p->mounts[i].dest, p->home) == 0)
      return p->mounts[i].src;
  return NULL;
}

/* state = "none": the real home, read-only, is what $HOME is. */
static bool
home_is_real_read_only (const BwshPlan *p)
{
  bool ro = false;

  if (p->state == NULL || strcmp (p->state, "none") != 0)
    return false;
  for (size_t i = 0; i < p->n_mounts; i++)
    if (p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED && strcmp (p->mounts[i].dest, p->home) == 0)
      ro = p->mounts[i].kind == BWSH_MOUNT_RO_BIND;
  return ro;
}

int
bwsh_home_notice (const BwshPlan *p, const BwshCommand *cmd, bool interactive, char **ret)
{
  const char *c, *rest, *state = NULL;
  bool gone;

  *ret = NULL;
  if (p->project_dir == NULL || p->home == NULL)
    return 0;
  gone = bwsh_plan_home_read_only (p);
  if (!gone && !home_is_real_read_only (p) && (state = kept_state (p)) == NULL)
    return 0;
  if (cmd->login || !cmd->has_command)
    {
      if (!interactive)
        return 0;
      if (state != NULL)
        return asprintf (ret, "what you save in the home is kept for your next login (in %s); %s is the real "
                              "directory, the rest of your real home is read-only",
                         state, p->project_dir)
                       < 0
                   ? -ENOMEM
                   : 0;
      rest = gone ? "keeps your work: what you save elsewhere in the home is gone at logout"
                  : "is writable: the rest of the home is read-only";
    }
  else
    {
      /* scp, sftp and rsync show the server's stderr on the client; git's
       * transfers never write at the home's top.  A kept state keeps what
       * they send: nothing to say. */
      c = cmd->command + strspn (cmd->command, " \t");
      if (state != NULL || !bwsh_command_is_file_transfer (cmd) || strncmp (c, "git-", 4) == 0)
        return 0;
      rest = "keeps files: the rest of the home is read-only for a transfer, and a file sent there fails "
             "(\"Read-only file system\")";
    }
  return asprintf (ret, "only %s %s", p->project_dir, rest) < 0 ? -ENOMEM : 0;
}

bool
bwsh_plan_guards_setup (const BwshPlan *p)
{
  if (p->strict)
    return false;
  for (size_t i = 0; i < p->n_mounts; i++)
    if (p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED && p->mounts[i].from.origin == BWSH_ORIGIN_USER)
      return true;
  return false;
}

bool
bwsh_command_is_file_transfer (const BwshCommand *cmd)
{
  static const char *const protocols[] = { "scp ", "rsync --server", "git-upload-pack", "git-receive-pack",
                                           "git-upload-archive", "internal-sftp" };
  const char *c = cmd->command, *base;

  if (!cmd->has_command || cmd->login || c == NULL)
    return false;
  c += strspn (c, " \t");
  for (size_t i = 0; i < BWSH_N_ELEMENTS (protocols); i++)
    if (strncmp (c, protocols[i], strlen (protocols[i])) == 0)
      return true;
  /* The sftp subsystem: sshd runs "SHELL -c /usr/lib/openssh/sftp-server". */
  base = strrchr (c, '/');
  base = base != NULL ? base + 1 : c;
  return strncmp (base, "sftp-server", strlen ("sftp-server")) == 0
         && (base[11] == '\0' || base[11] == ' ');
}

int
bwsh_render_command (const BwshPlan *p, const BwshCommand *cmd, BwshArgv *ret)
{
  BwshArgv a = { 0 };
  int r;

  /* "--" ends bwrap's options: whatever the user's command looks like
   * ("--bind / /host" included) it is only ever the shell's argument. */
  if ((r = bwsh_argv_add (&a, "--")) < 0)
    goto fail;
  /* With entries of the user's, bwsh waits to hear that bwrap has set the
   * sandbox up, to start again without them if it could not (issue 24):
   * the first thing that runs inside says so on BWSH_STARTED_FD, closes
   * it and becomes the shell. */
  if (bwsh_plan_guards_setup (p)
      && ((r = add3 (&a, "/bin/sh", "-c", BWSH_STARTED_STUB)) < 0 || (r = bwsh_argv_add (&a, "sh")) < 0))
    goto fail;
  if ((r = bwsh_argv_add (&a, p->shell)) < 0)
    goto fail;
  if (cmd->login && (r = bwsh_argv_add (&a, "-l")) < 0)
    goto fail;
  if (cmd->has_command)
    {
      /* "-c -- CMD": a command that starts with "-" is the command, not an
       * option of the inner shell (POSIX sh, bash and dash all take it). */
      if ((r = add3 (&a, "-c", "--", cmd->command)) < 0)
        goto fail;
      for (size_t i = 0; i < cmd->n_args; i++)
        if ((r = bwsh_argv_add (&a, cmd->args[i])) < 0)
          goto fail;
    }
  *ret = a;
  return 0;
fail:
  bwsh_argv_clear (&a);
  return r;
}

int
bwsh_render_blob (const BwshArgv *opts, char **ret_blob, size_t *ret_len)
{
  size_t len = 0, o = 0;
  char *blob;

  for (size_t i = 0; i < opts->n; i++)
    len += strlen (opts->v[i]) + 1;
  blob = malloc (len + 1);
  if (blob == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < opts->n; i++)
    {
      size_t n = strlen (opts->v[i]) + 1;
      memcpy (blob + o, opts->v[i], n);
      o += n;
    }
  *ret_blob = blob;
  *ret_len = len;
  return 0;
}

/* A byte a terminal acts on (C0, DEL, C1 and whatever is not UTF-8)
 * cannot be shown inside '...': it goes in $'...' as \xNN, which bash, zsh,
 * ksh and POSIX.1-2024 sh read back to the same byte. */
static bool
shell_unprintable (unsigned char c)
{
  return c < 0x20 || c >= 0x7f;
}

char *
bwsh_shell_quote (const char *s)
{
  size_t n = 3;
  char *out, *o;
  bool plain = s[0] != '\0', ansi = false;

  for (const char *p = s; *p != '\0'; p++)
    {
      if (strchr ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", *p) == NULL)
        plain = false;
      if (shell_unprintable ((unsigned char) *p))
        ansi = true;
      n += 4;
    }
  if (plain)
    return strdup (s);
  out = o = malloc (n + 1);
  if (out == NULL)
    return NULL;
  if (ansi)
    *o++ = '$';
  *o++ = '\'';
  for (const char *p = s; *p != '\0'; p++)
    {
      unsigned char c = (unsigned char) *p;

      if (ansi && shell_unprintable (c))
        o += snprintf (o, 5, "\\x%02x", c);
      else if (ansi && (c == '\\' || c == '\''))
        {
          *o++ = '\\';
          *o++ = (char) c;
        }
      else if (c == '\'')
        {
          memcpy (o, "'\\''", 4);
          o += 4;
        }
      else
        *o++ = (char) c;
    }
  *o++ = '\'';
  *o = '\0';
  return out;
}
