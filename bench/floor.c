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
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* floor_bwrap, floor_args[] (bwrap's options, each NUL-terminated, with
 * "--seccomp 3"), floor_seccomp[] (the BPF bwsh embeds) and their sizes. */
#include "floor_data.h"

/* -DFLOOR_BWRAP='"/nonexistent/bwrap"': fail at the exec like bwsh's noexec
 * build, so that callgrind can count what comes before it. */
#ifndef FLOOR_BWRAP
#define FLOOR_BWRAP floor_bwrap
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

  if (sealed ("seccomp", floor_seccomp, sizeof floor_seccomp) != 3
      || (fd = sealed ("args", floor_args, sizeof floor_args)) < 0)
    return 126;
  snprintf (num, sizeof num, "%d", fd);
  execve (FLOOR_BWRAP, argv, envp);
  return 127;
}
