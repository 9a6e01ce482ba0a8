/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The floor for any login shell that starts bwrap: exec bwrap the way bwsh
 * does (the --args blob and the seccomp filter in sealed memfds, an empty
 * environment), with everything bwsh computes at each login computed once,
 * by bench/run.sh, into floor_data.h.  Nothing is read, checked or decided
 * here.  bench/run.sh builds it; it is not part of the project's build.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* floor_bwrap, floor_args[] (bwrap's options, each NUL-terminated, with
 * "--seccomp 3"), floor_seccomp[] (the BPF bwsh embeds) and their sizes. */
#include "floor_data.h"

/* -DFLOOR_BWRAP='"/nonexistent/bwrap"': fail at the exec like bwsh's noexec
 * build, so that callgrind can count what comes before it. */
#ifndef FLOOR_BWRAP
#define FLOOR_BWRAP floor_bwrap
#endif

/* -DFLOOR_FDS: each bind's source opened O_PATH and handed to bwrap by fd
 * (--ro-bind-fd, --bind-fd), as bwsh does.  -DFLOOR_CONFINE as well: what
 * bwsh sets on itself before the exec with the shipped policy (no core
 * dumps, no_new_privs, a Landlock domain with only its scopes: abstract
 * sockets and signals).  Each shows what it adds to bwrap's own time (#37). */
#ifdef FLOOR_FDS
#define FLOOR_ARGS floor_fd_args
#else
#define FLOOR_ARGS floor_args
#endif

#ifdef FLOOR_CONFINE
static void
confine (void)
{
  const struct rlimit none = { 0, 0 };
  /* struct landlock_ruleset_attr of ABI 6: handled_access_fs, _net, scoped. */
  const uint64_t attr[3] = { 0, 0, 3 };
  long fd;

  setrlimit (RLIMIT_CORE, &none);
  prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  fd = syscall (SYS_landlock_create_ruleset, attr, sizeof attr, 0);
  if (fd >= 0)
    {
      syscall (SYS_landlock_restrict_self, fd, 0);
      close ((int) fd);
    }
}
#endif

static int
sealed (const char *name, const void *data, size_t len)
{
  int fd = memfd_create (name, MFD_ALLOW_SEALING); /* inherited by bwrap */

  if (fd < 0 || write (fd, data, len) != (ssize_t) len || lseek (fd, 0, SEEK_SET) != 0
      || fcntl (fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
    return -1;
  return fd;
}

int
main (void)
{
  char num[16];
  char *argv[] = { (char *) FLOOR_BWRAP, (char *) "--args", num, (char *) "--", (char *) "/bin/bash",
                   (char *) "-c", (char *) "--", (char *) "true", NULL };
  char *envp[] = { NULL };
  int fd;

  if (sealed ("seccomp", floor_seccomp, sizeof floor_seccomp) != 3)
    return 126;
#ifdef FLOOR_FDS
  for (int i = 0; floor_fd_sources[i] != NULL; i++)
    {
      int src = open (floor_fd_sources[i], O_PATH); /* inherited by bwrap */
      if (src < 0 || (src != 4 + i && (dup2 (src, 4 + i) < 0 || close (src) < 0)))
        return 126;
    }
#endif
  if ((fd = sealed ("args", FLOOR_ARGS, sizeof FLOOR_ARGS)) < 0)
    return 126;
  snprintf (num, sizeof num, "%d", fd);
#ifdef FLOOR_CONFINE
  confine ();
#endif
  execve (FLOOR_BWRAP, argv, envp);
  return 127;
}
