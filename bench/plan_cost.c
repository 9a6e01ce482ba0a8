/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What bwsh itself costs before the exec of bwrap, without the exec:
 *   plan_cost plan N ITER       policy defaults + an overlay of N entries, parsed,
 *                               built, rendered; prints the median ns per plan
 *   plan_cost session N ITER DIR  the same with N existing directories DIR/dK
 *                               bound at /srv/bench/dK (none redundant), resolved
 *                               and opened as for a session; for callgrind,
 *                               --toggle-collect=plan_once counts one plan
 *   plan_cost seccomp ITER      the seccomp filter build, median ns
 *   plan_cost seccomp-out FILE  write the session's BPF to FILE (for bare bwrap)
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

/* @dir NULL: "HOME/data/dK", never resolved; else DIR/dK at /srv/bench/dK. */
static char *
make_overlay (const char *home, const char *dir, int n)
{
  size_t cap = 256 + (size_t) n * (strlen (dir != NULL ? dir : home) + 96);
  char *buf = malloc (cap);
  size_t o = 0;

  o += (size_t) snprintf (buf + o, cap - o, "{\"preferences\":{\"sandboxBwrapMounts\":{\"additionalROBinds\":[");
  for (int i = 0; i < n; i++)
    if (dir == NULL)
      o += (size_t) snprintf (buf + o, cap - o, "%s\"%s/data/d%d\"", i ? "," : "", home, i);
    else
      o += (size_t) snprintf (buf + o, cap - o, "%s{\"src\":\"%s/d%d\",\"dst\":\"/srv/bench/d%d\"}", i ? "," : "",
                              dir, i, i);
  o += (size_t) snprintf (buf + o, cap - o, "]}}}");
  return buf;
}

static __attribute__ ((noinline)) int
plan_once (const BwshIdentity *id, const BwshPolicy *pol, const char *json, bool resolve)
{
  BwshUserConfig *uc = NULL;
  BwshPlan *p = NULL;
  BwshDiag diag = { 0 };
  BwshError err = { 0 };
  BwshArgv opts = { 0 };
  BwshCommand cmd = { .login = true };
  BwshArgv tail = { 0 };
  _cleanup_free_ char *blob = NULL;
  size_t len;
  char digest[65];
  int r;

  r = bwsh_user_config_parse (json, strlen (json), "bench.json", &uc, &diag, &err);
  if (r >= 0)
    r = bwsh_plan_build (id, pol, uc, NULL, &p, &err);
  if (r >= 0 && resolve)
    r = bwsh_plan_resolve (p, BWSH_RESOLVE_CREATE, &err);
  if (r >= 0)
    r = bwsh_render_options (p, BWSH_RENDER_FDS, 3, &opts);
  if (r >= 0)
    r = bwsh_render_command (p, &cmd, &tail);
  if (r >= 0)
    r = bwsh_render_blob (&opts, &blob, &len);
  if (r >= 0)
    bwsh_plan_digest (p, digest);
  bwsh_argv_clear (&opts);
  bwsh_argv_clear (&tail);
  bwsh_plan_free (p);
  bwsh_user_config_free (uc);
  bwsh_diag_clear (&diag);
  return r;
}

int
main (int argc, char **argv)
{
  BwshIdentity *id = NULL;
  BwshPolicy *pol = NULL;
  BwshError err = { 0 };
  int iters;

  if (argc >= 3 && strcmp (argv[1], "seccomp-out") == 0)
    {
      int fd, out;
      char buf[65536];
      ssize_t n;

      if (bwsh_seccomp_build_fd (&fd, &err) < 0)
        return 1;
      out = open (argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (out < 0)
        return 1;
      while ((n = read (fd, buf, sizeof buf)) > 0)
        if (write (out, buf, (size_t) n) != n)
          return 1;
      return close (out) < 0;
    }
  if (argc < 3)
    {
      fprintf (stderr, "usage: plan_cost plan N ITER | session N ITER DIR | seccomp ITER | seccomp-out FILE\n");
      return 2;
    }
  if (bwsh_identity_from_uid (getuid (), &id, &err) < 0 || bwsh_policy_new_defaults (&pol) < 0)
    return 1;

  if (strcmp (argv[1], "seccomp") == 0)
    {
      iters = atoi (argv[2]) > 0 ? atoi (argv[2]) : 100;
      uint64_t *t = calloc ((size_t) iters, sizeof *t);
      for (int i = 0; i < iters; i++)
        {
          int fd;
          uint64_t t0 = now_ns ();
          if (bwsh_seccomp_build_fd (&fd, &err) < 0)
            return 1;
          t[i] = now_ns () - t0;
          close (fd);
        }
      qsort (t, (size_t) iters, sizeof *t, cmp_u64);
      printf ("%llu\n", (unsigned long long) t[iters / 2]);
      return 0;
    }

  bool session = strcmp (argv[1], "session") == 0;
  int n = atoi (argv[2]);
  iters = argc > 3 && atoi (argv[3]) > 0 ? atoi (argv[3]) : 200;
  if (n < 0 || n > BWSH_ENTRIES_MAX || (session && argc < 5))
    return 2;
  pol->max_mounts = BWSH_ENTRIES_MAX;
  char *json = make_overlay (id->home, session ? argv[4] : NULL, n);
  uint64_t *t = calloc ((size_t) iters, sizeof *t);
  for (int i = 0; i < iters; i++)
    {
      uint64_t t0 = now_ns ();
      if (plan_once (id, pol, json, session) < 0)
        return 1;
      t[i] = now_ns () - t0;
    }
  qsort (t, (size_t) iters, sizeof *t, cmp_u64);
  printf ("%llu\n", (unsigned long long) t[iters / 2]);
  free (t);
  free (json);
  bwsh_policy_free (pol);
  bwsh_identity_free (id);
  return 0;
}
