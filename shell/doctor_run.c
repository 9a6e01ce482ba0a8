/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwshctl doctor: running a command with an argv vector, a fixed
 * environment, stdin on /dev/null, captured output and a timeout. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <grp.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "doctor_run.h"



void
cmd_result_clear (CmdResult *r)
{
  free (r->out);
  free (r->err);
  *r = (CmdResult) { 0 };
}

bool
cmd_succeeded (const CmdResult *r)
{
  return r->exec_errno == 0 && !r->timed_out && WIFEXITED (r->status) && WEXITSTATUS (r->status) == 0;
}

/* The first line of what the command said on stderr (or stdout), for a
 * message: escaped, so a hostile binary cannot forge more findings. */
char *
cmd_first_line (const CmdResult *r)
{
  const char *s = r->err_len > 0 ? r->err : (r->out != NULL ? r->out : "");
  size_t n = strcspn (s, "\r\n");

  if (r->exec_errno != 0)
    return strdup (strerror (r->exec_errno));
  if (r->timed_out)
    return strdup ("timed out");
  if (n == 0)
    {
      char *m = NULL;
      if (WIFSIGNALED (r->status))
        return asprintf (&m, "killed by signal %d", WTERMSIG (r->status)) < 0 ? NULL : m;
      return asprintf (&m, "exit status %d", WEXITSTATUS (r->status)) < 0 ? NULL : m;
    }
  return bwsh_escape (s, n);
}

static int
append (char **buf, size_t *len, const char *data, size_t n)
{
  char *p;

  if (*len + n > CMD_OUTPUT_MAX)
    n = CMD_OUTPUT_MAX - *len;
  p = realloc (*buf, *len + n + 1);
  if (p == NULL)
    return -ENOMEM;
  memcpy (p + *len, data, n);
  *len += n;
  p[*len] = '\0';
  *buf = p;
  return 0;
}

static long
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Drop to @uid/@gid in a child: groups first, then gid, then uid. */
int
drop_to (uid_t uid, gid_t gid)
{
  if (getuid () != 0)
    return 0;
  if (setgroups (0, NULL) < 0 || setresgid (gid, gid, gid) < 0 || setresuid (uid, uid, uid) < 0)
    return -errno;
  return 0;
}

static const char *const run_envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };

const char *const *
run_environment (void)
{
  return run_envp;
}

static int
exec_argv (void *data)
{
  const char *const *argv = data;

  /* execve() takes char *const[] for historical reasons; it writes nothing. */
  execve (argv[0], (char *const *) (uintptr_t) argv, (char *const *) (uintptr_t) run_envp);
  return errno;
}

/* Run @argv (argv[0] an absolute path) with stdout and stderr captured.
 * @drop: run as @uid/@gid (when root).  Returns -errno only when the doctor
 * itself could not fork or pipe; a failing command is in @ret. */
int
run_cmd (const char *const argv[], bool drop, uid_t uid, gid_t gid, CmdResult *ret)
{
  return run_child (exec_argv, (void *) (uintptr_t) argv, drop, uid, gid, ret);
}

static void
close_pipes (int (*pipes)[2], size_t n)
{
  for (size_t i = 0; i < n; i++)
    for (int j = 0; j < 2; j++)
      if (pipes[i][j] >= 0)
        {
          close (pipes[i][j]);
          pipes[i][j] = -1;
        }
}

/* The child's side: stdin from /dev/null, stdout and stderr into the
 * pipes, as @uid/@gid when @drop, then @fn; the errno it fails with (or
 * drop_to()'s) goes back through @status_fd. */
static _Noreturn void
child_side (RunChildFn fn, void *data, bool drop, uid_t uid, gid_t gid, int out_fd, int err_fd, int status_fd)
{
  int null = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  int e;

  if (null < 0 || dup2 (null, 0) < 0 || dup2 (out_fd, 1) < 0 || dup2 (err_fd, 2) < 0)
    _exit (127);
  if (drop && drop_to (uid, gid) < 0)
    {
      e = errno;
      (void) !write (status_fd, &e, sizeof e);
      _exit (127);
    }
  e = fn (data);
  (void) !write (status_fd, &e, sizeof e);
  _exit (127);
}

/* The child's stdout and stderr into @ret until both end, or until
 * CMD_TIMEOUT_MS have passed: then the child is killed.  Closes both. */
static void
collect_output (pid_t pid, int out_fd, int err_fd, CmdResult *ret)
{
  int fd[2] = { out_fd, err_fd };
  long deadline = now_ms () + CMD_TIMEOUT_MS;

  for (;;)
    {
      struct pollfd fds[2] = { { fd[0], POLLIN, 0 }, { fd[1], POLLIN, 0 } };
      long left = deadline - now_ms ();
      char buf[4096];
      int n;

      if (fds[0].fd < 0 && fds[1].fd < 0)
        break;
      if (left <= 0)
        {
          ret->timed_out = true;
          kill (pid, SIGKILL);
          break;
        }
      n = poll (fds, 2, (int) left);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        break;
      for (int i = 0; i < 2; i++)
        {
          if (fds[i].fd < 0 || fds[i].revents == 0)
            continue;
          ssize_t k = read (fds[i].fd, buf, sizeof buf);
          if (k < 0 && errno == EINTR)
            continue;
          if (k <= 0)
            {
              close (fds[i].fd);
              fd[i] = -1;
              continue;
            }
          if (i == 0)
            (void) append (&ret->out, &ret->out_len, buf, (size_t) k);
          else
            (void) append (&ret->err, &ret->err_len, buf, (size_t) k);
        }
    }
  for (int i = 0; i < 2; i++)
    if (fd[i] >= 0)
      close (fd[i]);
}

int
run_child (RunChildFn fn, void *data, bool drop, uid_t uid, gid_t gid, CmdResult *ret)
{
  int pipes[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } }; /* stdout, stderr, @fn's errno */
  pid_t pid;
  int e;

  *ret = (CmdResult) { 0 };
  if (pipe2 (pipes[0], O_CLOEXEC) < 0 || pipe2 (pipes[1], O_CLOEXEC) < 0 || pipe2 (pipes[2], O_CLOEXEC) < 0)
    {
      e = -errno;
      close_pipes (pipes, 3);
      return e;
    }

  pid = fork ();
  if (pid < 0)
    {
      e = -errno;
      close_pipes (pipes, 3);
      return e;
    }
  if (pid == 0)
    child_side (fn, data, drop, uid, gid, pipes[0][1], pipes[1][1], pipes[2][1]);

  close (pipes[0][1]);
  close (pipes[1][1]);
  close (pipes[2][1]);
  collect_output (pid, pipes[0][0], pipes[1][0], ret);
  while (waitpid (pid, &ret->status, 0) < 0 && errno == EINTR)
    ;
  e = 0;
  if (read (pipes[2][0], &e, sizeof e) == (ssize_t) sizeof e)
    ret->exec_errno = e;
  close (pipes[2][0]);
  return 0;
}

