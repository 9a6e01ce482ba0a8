/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pam_bwsh's cost per session: pam_open_session + pam_close_session through
 * a real libpam stack (pam_start_confdir) holding only pam_bwsh, for a
 * subject user.  Prints the medians, in nanoseconds, of ITER sessions: wall
 * time, then CPU time (user + system), which a busy machine inflates less.
 *
 *   pam_cost CONFDIR SERVICE USER ITER      (as root, like sshd)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <security/pam_appl.h>

static int
quiet_conv (int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
  (void) n;
  (void) msg;
  (void) data;
  *resp = NULL;
  return PAM_SUCCESS;
}

static int
cmp (const void *a, const void *b)
{
  long long x = *(const long long *) a, y = *(const long long *) b;
  return x < y ? -1 : x > y;
}

static long long
ns_between (const struct timespec *a, const struct timespec *b)
{
  return (b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

int
main (int argc, char **argv)
{
  struct pam_conv conv = { quiet_conv, NULL };
  long long *t, *cpu;
  char *end;
  long iters;

  if (argc != 5)
    {
      fprintf (stderr, "usage: pam_cost CONFDIR SERVICE USER ITER\n");
      return 2;
    }
  iters = strtol (argv[4], &end, 10);
  if (*end != '\0' || iters < 1 || iters > 100000)
    return 2;
  t = calloc ((size_t) iters, sizeof *t);
  cpu = calloc ((size_t) iters, sizeof *cpu);
  if (t == NULL || cpu == NULL)
    return 1;
  for (long i = 0; i < iters; i++)
    {
      pam_handle_t *pamh = NULL;
      struct timespec a, b, ca, cb;
      int r;

      if (pam_start_confdir (argv[2], argv[3], &conv, argv[1], &pamh) != PAM_SUCCESS)
        return 1;
      clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ca);
      clock_gettime (CLOCK_MONOTONIC, &a);
      r = pam_open_session (pamh, 0);
      if (r == PAM_SUCCESS)
        r = pam_close_session (pamh, 0);
      clock_gettime (CLOCK_MONOTONIC, &b);
      clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &cb);
      pam_end (pamh, r);
      if (r != PAM_SUCCESS)
        {
          fprintf (stderr, "pam_cost: session failed: %s\n", pam_strerror (NULL, r));
          return 1;
        }
      t[i] = ns_between (&a, &b);
      cpu[i] = ns_between (&ca, &cb);
    }
  qsort (t, (size_t) iters, sizeof *t, cmp);
  qsort (cpu, (size_t) iters, sizeof *cpu, cmp);
  printf ("%lld %lld\n", t[iters / 2], cpu[iters / 2]);
  free (t);
  free (cpu);
  return 0;
}
