/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Drive a real libpam session stack from a service file in a temporary
 * directory (pam_start_confdir, Linux-PAM >= 1.5), the way sshd or login do.
 *
 *   pam_harness [--env NAME=VALUE]... [--rhost HOST] [--tty TTY] [--expect CODE]
 *               [--expect-close CODE] CONFDIR SERVICE USER
 *
 * Prints, one per line and in this order:
 *   conv: STYLE: MESSAGE    every message the modules sent through the conversation
 *   open=PAM_CODE           pam_open_session()'s result
 *   env: NAME=VALUE         the PAM environment after open
 *   close=PAM_CODE          pam_close_session()'s result (only after a successful open)
 *   fds_leaked=N            descriptors left open after pam_end()
 * and exits 1 when open or close did not give the expected code, or when
 * a descriptor leaked.  A module that blocks (a FIFO read) is stopped by
 * alarm() and the harness exits 124.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_appl.h>

#define HANG_TIMEOUT 30

static const struct
{
  int code;
  const char *name;
} codes[] = {
#define C(x) { x, #x }
  C (PAM_SUCCESS),     C (PAM_OPEN_ERR),    C (PAM_SYMBOL_ERR),  C (PAM_SERVICE_ERR),
  C (PAM_SYSTEM_ERR),  C (PAM_BUF_ERR),     C (PAM_PERM_DENIED), C (PAM_AUTH_ERR),
  C (PAM_USER_UNKNOWN), C (PAM_SESSION_ERR), C (PAM_CONV_ERR),   C (PAM_ABORT),
  C (PAM_IGNORE),      C (PAM_MODULE_UNKNOWN), C (PAM_BAD_ITEM),
#undef C
};

static const char *
code_name (int code)
{
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
    if (codes[i].code == code)
      return codes[i].name;
  return "PAM_UNKNOWN_CODE";
}

static int
code_from_name (const char *name)
{
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
    if (strcmp (codes[i].name, name) == 0)
      return codes[i].code;
  fprintf (stderr, "pam_harness: unknown code %s\n", name);
  exit (2);
}

static int
conv (int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
  (void) data;
  for (int i = 0; i < n; i++)
    {
      const char *style;
      switch (msg[i]->msg_style)
        {
        case PAM_ERROR_MSG:
          style = "error";
          break;
        case PAM_TEXT_INFO:
          style = "info";
          break;
        default:
          /* A session module has nothing to ask. */
          printf ("conv: prompt: %s\n", msg[i]->msg);
          return PAM_CONV_ERR;
        }
      printf ("conv: %s: %s\n", style, msg[i]->msg);
    }
  *resp = NULL;
  return PAM_SUCCESS;
}

static void
on_alarm (int sig)
{
  static const char m[] = "pam_harness: the session module blocked\n";
  (void) sig;
  (void) !write (STDERR_FILENO, m, sizeof m - 1);
  _exit (124);
}

static int
count_fds (void)
{
  DIR *d = opendir ("/proc/self/fd");
  struct dirent *de;
  int n = 0;

  if (d == NULL)
    return -1;
  while ((de = readdir (d)) != NULL)
    if (de->d_name[0] != '.')
      n++;
  closedir (d);
  return n - 1; /* the directory's own descriptor */
}

int
main (int argc, char **argv)
{
  struct pam_conv pc = { conv, NULL };
  pam_handle_t *pamh = NULL;
  const char *envs[64], *rhost = NULL, *tty = NULL;
  size_t n_envs = 0;
  int expect = -1, expect_close = PAM_SUCCESS, fds_before, fds_after, r, rc = 0;
  int i;

  for (i = 1; i < argc && strncmp (argv[i], "--", 2) == 0; i++)
    {
      if (strcmp (argv[i], "--env") == 0 && i + 1 < argc && n_envs < 64)
        envs[n_envs++] = argv[++i];
      else if (strcmp (argv[i], "--rhost") == 0 && i + 1 < argc)
        rhost = argv[++i];
      else if (strcmp (argv[i], "--tty") == 0 && i + 1 < argc)
        tty = argv[++i];
      else if (strcmp (argv[i], "--expect") == 0 && i + 1 < argc)
        expect = code_from_name (argv[++i]);
      else if (strcmp (argv[i], "--expect-close") == 0 && i + 1 < argc)
        expect_close = code_from_name (argv[++i]);
      else
        {
          fprintf (stderr, "pam_harness: bad argument %s\n", argv[i]);
          return 2;
        }
    }
  if (argc - i != 3)
    {
      fprintf (stderr, "usage: pam_harness [--env N=V]... [--expect CODE] CONFDIR SERVICE USER\n");
      return 2;
    }
  setvbuf (stdout, NULL, _IOLBF, 0);
  signal (SIGALRM, on_alarm);
  alarm (HANG_TIMEOUT);

  fds_before = count_fds ();
  r = pam_start_confdir (argv[i + 1], argv[i + 2], &pc, argv[i], &pamh);
  if (r != PAM_SUCCESS)
    {
      printf ("start=%s\n", code_name (r));
      return 1;
    }
  if ((rhost != NULL && pam_set_item (pamh, PAM_RHOST, rhost) != PAM_SUCCESS)
      || (tty != NULL && pam_set_item (pamh, PAM_TTY, tty) != PAM_SUCCESS))
    {
      fprintf (stderr, "pam_harness: pam_set_item failed\n");
      return 2;
    }
  for (size_t k = 0; k < n_envs; k++)
    if (pam_putenv (pamh, envs[k]) != PAM_SUCCESS)
      {
        fprintf (stderr, "pam_harness: pam_putenv %s failed\n", envs[k]);
        return 2;
      }

  r = pam_open_session (pamh, 0);
  printf ("open=%s\n", code_name (r));
  if (expect >= 0 && r != expect)
    {
      fprintf (stderr, "pam_harness: open_session gave %s, expected %s\n", code_name (r), code_name (expect));
      rc = 1;
    }
  {
    char **env = pam_getenvlist (pamh);
    for (char **e = env; e != NULL && *e != NULL; e++)
      {
        printf ("env: %s\n", *e);
        free (*e);
      }
    free (env);
  }
  if (r == PAM_SUCCESS)
    {
      int c = pam_close_session (pamh, 0);
      printf ("close=%s\n", code_name (c));
      if (c != expect_close)
        {
          fprintf (stderr, "pam_harness: close_session gave %s, expected %s\n", code_name (c),
                   code_name (expect_close));
          rc = 1;
        }
    }
  pam_end (pamh, r);
  /* glibc's syslog() keeps its /dev/log socket open for the process; that
   * one is shared state, not a descriptor a module forgot. */
  closelog ();
  fds_after = count_fds ();
  printf ("fds_leaked=%d\n", fds_after - fds_before);
  if (fds_after != fds_before)
    {
      char link[4096], target[4096];
      for (int fd = 3; fd < 1024; fd++)
        {
          ssize_t n;
          snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
          n = readlink (link, target, sizeof target - 1);
          if (n > 0)
            {
              target[n] = '\0';
              printf ("open fd %d: %s\n", fd, target);
            }
        }
      rc = 1;
    }
  return rc;
}
