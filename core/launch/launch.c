/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* From a resolved plan to the exec of bwrap.  The last step of every session. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "argv.h"
#include "cleanup.h"
#include "errors.h"
#include "landlock.h"
#include "launch.h"
#include "network.h"
#include "path.h"
#include "plan.h"
#include "policy.h"
#include "record.h"
#include "render.h"
#include "safeopen.h"
#include "seccomp_filter.h"

const char *
bwsh_bwrap_path (void)
{
  /* A test build runs $BWSH_TEST_BWRAP instead: tests/overlay's stand-in
   * for another session acting between bwsh's checks and bwrap's mounts. */
  return bwsh_program_path ("BWSH_TEST_BWRAP", BWSH_BWRAP_PATH);
}

/* FD_CLOEXEC is the only descriptor flag: no F_GETFD first, one syscall
 * less for each fd of the plan (issue 27). */
static int
clear_cloexec (int fd)
{
  if (fcntl (fd, F_SETFD, 0) < 0)
    return -errno;
  return 0;
}

/* Here rather than in seccomp_filter.c, so that bwsh does not pull libseccomp in
 * at run time: the filter was compiled when bwsh was built. */
int
bwsh_seccomp_embedded_fd (int *ret_fd, BwshError *err)
{
  int r = bwsh_sealed_memfd ("bwsh-seccomp", bwsh_seccomp_bpf, bwsh_seccomp_bpf_len, ret_fd);

  if (r < 0)
    return bwsh_error_set (err, r, NULL, 0, 0, "seccomp: cannot prepare the filter: %s", strerror (-r));
  return 0;
}

static int
set_limit (int resource, int64_t value, const char *name, BwshError *err)
{
  struct rlimit rl;

  if (value == BWSH_RLIMIT_UNSET)
    return 0;
  rl.rlim_cur = rl.rlim_max = value == BWSH_RLIMIT_INFINITY ? RLIM_INFINITY : (rlim_t) value;
  if (setrlimit (resource, &rl) < 0)
    {
      /* Lowering always works; raising past the hard limit may not.  Then
       * keep the hard limit and set the soft one as close as allowed. */
      struct rlimit cur;
      if (getrlimit (resource, &cur) < 0)
        return bwsh_error_set (err, -errno, NULL, 0, 0, "cannot read the %s limit: %m", name);
      if (cur.rlim_max != RLIM_INFINITY && (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > cur.rlim_max))
        {
          rl.rlim_cur = rl.rlim_max = cur.rlim_max;
          if (setrlimit (resource, &rl) == 0)
            return 0;
        }
      return bwsh_error_set (err, -errno, NULL, 0, 0, "cannot set the %s limit: %m", name);
    }
  return 0;
}

/* Only a resolved plan may run: rendering falls back to the path of a bind
 * that has no fd (bwshctl explain needs that), and a path is what a swapped
 * symlink redirects. */
static int
check_resolved (const BwshPlan *p, BwshError *err)
{
  for (size_t i = 0; i < p->n_mounts; i++)
    {
      const BwshMount *m = &p->mounts[i];
      if (m->verdict == BWSH_VERDICT_ACCEPTED && (m->kind == BWSH_MOUNT_RO_BIND || m->kind == BWSH_MOUNT_BIND)
          && m->fd < 0)
        return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "%s has no validated source: the plan was not resolved",
                               m->dest);
    }
  return 0;
}

/* bwrap's options through a sealed memfd (*ret_args_fd), and the command
 * the sandbox runs (@command). */
static int
render_args (const BwshPlan *p, const BwshCommand *cmd, int seccomp_fd, const BwshNetHelper *net, BwshArgv *command,
             int *ret_args_fd, BwshError *err)
{
  _cleanup_ (bwsh_argv_clear) BwshArgv opts = { 0 };
  _cleanup_free_ char *blob = NULL;
  char num[32];
  size_t len;
  int r;

  r = bwsh_render_options (p, BWSH_RENDER_FDS, seccomp_fd, &opts);
  if (r >= 0)
    r = bwsh_render_transfer_options (p, cmd, &opts);
  if (r >= 0 && net->pid > 0)
    /* The helper learns the sandbox's pid here, and releases it here once
     * its network is up (helpers/bwsh-netns.c). */
    r = bwsh_net_bwrap_options (net, &opts);
  if (r >= 0 && cmd->status_fd > 2)
    {
      /* bwrap writes { "child-pid": N } once it has cloned the sandbox
       * and its monitor appends { "exit-code": N } when the program in the
       * sandbox exits; the sandbox itself never gets the fd.  In a
       * recorded session the first says that tlog-rec got as far as
       * starting bwrap: until then, bwsh cannot tell a session from a
       * recorder that failed on its way (shell/guard.c). */
      snprintf (num, sizeof num, "%d", cmd->status_fd);
      if ((r = bwsh_argv_add (&opts, "--json-status-fd")) >= 0)
        r = bwsh_argv_add (&opts, num);
    }
  if (r >= 0)
    r = bwsh_render_command (p, cmd, command);
  if (r >= 0)
    r = bwsh_render_blob (&opts, &blob, &len);
  if (r >= 0)
    /* The --args blob goes through a sealed memfd: no pipe buffer to
     * deadlock on, nothing on disk, and /proc/1/cmdline inside the sandbox
     * shows "--args N" instead of every mount. */
    r = bwsh_sealed_memfd ("bwsh-args", blob, len, ret_args_fd);
  if (r < 0)
    {
      if (r == -ENOMEM)
        return bwsh_error_set (err, r, NULL, 0, 0, "out of memory");
      return bwsh_error_set (err, r, NULL, 0, 0, "cannot prepare the bwrap arguments: %s", strerror (-r));
    }

  return 0;
}

/* Only the fds bwrap is told about survive the exec; bwrap closes each once
 * used, so none reaches the inner shell. */
static int
keep_fds (const BwshPlan *p, const BwshCommand *cmd, const BwshNetHelper *net, int seccomp_fd, int args_fd)
{
  int r;

  if ((r = clear_cloexec (seccomp_fd)) < 0 || (r = clear_cloexec (args_fd)) < 0)
    return r;
  if (net->pid > 0 && ((r = clear_cloexec (net->info_fd)) < 0 || (r = clear_cloexec (net->block_fd)) < 0))
    return r;
  if (cmd->status_fd > 2 && (r = clear_cloexec (cmd->status_fd)) < 0)
    return r;
  for (size_t i = 0; i < p->n_mounts; i++)
    if (p->mounts[i].verdict == BWSH_VERDICT_ACCEPTED && p->mounts[i].fd >= 0
        && (r = clear_cloexec (p->mounts[i].fd)) < 0)
      return r;
  return 0;
}

/* The recorder, which runs bwrap (tlog-rec), with TERM and a UTF-8 locale
 * alone, and Landlock's ruleset for bwsh-landlock.  Returns only on
 * failure, -errno. */
static int
exec_recorder (const BwshCommand *cmd, const BwshArgv *argv, int landlock_fd, BwshError *err)
{
  _cleanup_free_ char *term = NULL;
  char lang[] = "LANG=C.UTF-8";
  char *rec_env[] = { lang, NULL, NULL };
  int r;

  if (landlock_fd >= 0 && (r = clear_cloexec (landlock_fd)) < 0)
    return r;
  if (cmd->term != NULL && cmd->term[0] != '\0' && asprintf (&term, "TERM=%s", cmd->term) >= 0)
    rec_env[1] = term;
  /* fd 2 of the recorder it execs, last, so that the network engine keeps
   * the session's and nothing but tlog-rec holds the pipe; tlog's child
   * gets its pty. */
  if (cmd->recorder_stderr_fd > 2 && dup2 (cmd->recorder_stderr_fd, 2) < 0)
    {
      r = -errno;
      return bwsh_error_set (err, r, NULL, 0, 0, "cannot give the recorder its standard error: %s", strerror (-r));
    }
  execve (cmd->recorder, argv->v, rec_env);
  r = -errno;
  return bwsh_error_set (err, r, NULL, 0, 0, "cannot execute the recorder %s: %s", cmd->recorder, strerror (-r));
}

int
bwsh_exec_plan (const BwshPlan *p, const BwshCommand *cmd, const char *bwrap_path, BwshError *err)
{
  _cleanup_close_ int seccomp_fd = -1, args_fd = -1, landlock_fd = -1;
  BwshNetHelper net = { .pid = 0, .info_fd = -1, .block_fd = -1 };
  BwshArgv command = { 0 }, argv = { 0 };
  BwshLandlockReport ll = { 0 };
  char num[32];
  char *empty_env[] = { NULL };
  int r;

  r = check_resolved (p, err);
  if (r < 0)
    return r;

  /* Before the limits and Landlock, which are the sandbox's, not the
   * network engine's. */
  if (p->network == BWSH_NET_PRIVATE)
    {
      r = bwsh_net_helper_start (bwsh_netns_helper_path (), p->net_engine, &net, err);
      if (r < 0)
        {
          bwsh_error_step (err, BWSH_ERROR_NETWORK, r);
          goto out;
        }
    }

  r = bwsh_seccomp_embedded_fd (&seccomp_fd, err);
  if (r < 0)
    goto out;

  r = render_args (p, cmd, seccomp_fd, &net, &command, &args_fd, err);
  if (r < 0)
    goto out;

  /* Landlock's ruleset now, enforced just before the exec: on this process
   * and so on bwrap; or, recorded, by bwsh-landlock on bwrap alone. */
  r = bwsh_landlock_ruleset (&p->landlock, &landlock_fd, &ll, err);
  if (r < 0)
    goto out;

  snprintf (num, sizeof num, "%d", args_fd);
  /* A recorded session: tlog-rec runs bwrap on a terminal of its own and
   * keeps this process's pid, which is what its recording id says (a
   * guarded launch's child: shell/guard.c). */
  if (cmd->recorder != NULL && (r = bwsh_render_recorder (cmd->recorder, landlock_fd, &argv)) < 0)
    goto out;
  if ((r = bwsh_argv_add (&argv, bwrap_path)) < 0 || (r = bwsh_argv_add (&argv, "--args")) < 0
      || (r = bwsh_argv_add (&argv, num)) < 0)
    goto out;
  for (size_t i = 0; i < command.n; i++)
    if ((r = bwsh_argv_add (&argv, command.v[i])) < 0)
      goto out;

  r = keep_fds (p, cmd, &net, seccomp_fd, args_fd);
  if (r < 0)
    goto out;

  if ((r = set_limit (RLIMIT_CORE, p->rlimit_core, "core", err)) < 0
      || (r = set_limit (RLIMIT_NPROC, p->rlimit_nproc, "nproc", err)) < 0
      || (r = set_limit (RLIMIT_NOFILE, p->rlimit_nofile, "nofile", err)) < 0)
    goto out;

  /* An empty environment: bwrap sets the sandbox's own with --setenv, and
   * nothing the caller had (LD_PRELOAD, say) acts on bwrap itself.  The
   * recorder gets TERM and a UTF-8 locale alone: none of tlog's TLOG_REC_*
   * settings, whatever the client sent. */
  if (cmd->recorder != NULL)
    {
      r = exec_recorder (cmd, &argv, landlock_fd, err);
      goto out;
    }
  if (landlock_fd >= 0 && (r = bwsh_landlock_restrict (landlock_fd, err)) < 0)
    goto out;
  execve (bwrap_path, argv.v, empty_env);
  r = -errno;
  bwsh_error_set (err, r, NULL, 0, 0, "cannot execute %s: %s", bwrap_path, strerror (errno));
out:
  bwsh_net_helper_close (&net);
  if (r == -ENOMEM)
    bwsh_error_set (err, r, NULL, 0, 0, "out of memory");
  bwsh_argv_clear (&command);
  bwsh_argv_clear (&argv);
  return r;
}
