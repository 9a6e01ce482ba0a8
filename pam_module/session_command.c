/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the service that loaded pam_bwsh is about to run for the user, for
 * the audit record: sshd and login run the passwd shell, but root's
 * `su -s /bin/bash USER` runs bash, unsandboxed, after the session opened.
 * The module cannot stop root; it must not record that as a sandbox.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "session_command.h"

/* /proc/self/cmdline as an argv, at most 64 KiB and 256 words. */
static int
read_own_argv (char **ret_buf, char ***ret_argv, size_t *ret_argc)
{
  _cleanup_close_ int fd = open ("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  _cleanup_free_ char *buf = NULL;
  _cleanup_free_ char **argv = NULL;
  size_t len = 0, argc = 0, cap = 64 * 1024;
  ssize_t n;

  if (fd < 0)
    return -errno;
  buf = malloc (cap + 1);
  argv = calloc (257, sizeof *argv);
  if (buf == NULL || argv == NULL)
    return -ENOMEM;
  while (len < cap && (n = read (fd, buf + len, cap - len)) > 0)
    len += (size_t) n;
  buf[len] = '\0';
  for (size_t i = 0; i < len && argc < 256; i += strlen (buf + i) + 1)
    argv[argc++] = buf + i;
  *ret_buf = steal_pointer (&buf);
  *ret_argv = steal_pointer (&argv);
  *ret_argc = argc;
  return 0;
}

static bool
shell_listed (const char *shell)
{
  _cleanup_fclose_ FILE *f = fopen ("/etc/shells", "re");
  char line[4096];

  if (f == NULL || shell == NULL)
    return false;
  while (fgets (line, sizeof line, f) != NULL)
    {
      line[strcspn (line, "\n")] = '\0';
      if (line[0] != '#' && strcmp (line, shell) == 0)
        return true;
    }
  return false;
}

int
pam_bwsh_session_command (const char *passwd_shell, char **ret)
{
  _cleanup_free_ char *buf = NULL;
  _cleanup_free_ char **argv = NULL;
  const char *prog = program_invocation_short_name, *cmd = passwd_shell;
  size_t argc = 0;
  bool su = strcmp (prog, "su") == 0, runuser = strcmp (prog, "runuser") == 0;

  /* Only su and runuser take a shell or a command from their caller; every
   * other service (sshd, login, ...) runs the passwd shell. */
  if ((su || runuser) && read_own_argv (&buf, &argv, &argc) >= 0)
    bwsh_su_command (argv, argc, runuser, getuid () == 0, shell_listed (passwd_shell), passwd_shell,
                     getenv ("SHELL"), &cmd);
  *ret = strdup (cmd != NULL ? cmd : "");
  return *ret == NULL ? -ENOMEM : 0;
}
