/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwsh-landlock: the last step of a recorded session's launch (record =
 * "tty", core/launch/record.c).
 *
 *   bwsh-landlock FD PROGRAM [ARG...]
 *
 * Unrecorded, bwsh restricts itself with the session's Landlock ruleset and
 * execs bwrap.  Recorded, bwsh execs tlog-rec instead, which must run
 * unrestricted: it adds a utmp record through libutempter's setgid helper,
 * which no_new_privs would disarm.  tlog-rec runs this program as the one it
 * records; it restricts itself with the ruleset bwsh built (FD, inherited),
 * closes it and execs PROGRAM (bwrap) with an empty environment, exactly as
 * bwsh's own exec would have.  It parses nothing else and reads no file.
 * Any failure ends the session here, before bwrap runs: fail closed.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bwshcore.h"

int
main (int argc, char **argv)
{
  char *empty_env[] = { NULL };
  BwshError err = { 0 };
  long fd = -1;

  if (argc < 3 || bwsh_parse_decimal (argv[1], 3, INT_MAX, &fd) < 0 || argv[2][0] != '/')
    {
      dprintf (STDERR_FILENO, "usage: bwsh-landlock FD PROGRAM [ARG...] (started by bwsh, not by hand)\n");
      return 127;
    }
  if (bwsh_landlock_restrict ((int) fd, &err) < 0)
    {
      dprintf (STDERR_FILENO, "bwsh: session refused: %s\n", err.message);
      return 127;
    }
  close ((int) fd);
  execve (argv[2], &argv[2], empty_env);
  dprintf (STDERR_FILENO, "bwsh: session refused: cannot execute %s: %s\n", argv[2], strerror (errno));
  return 127;
}
