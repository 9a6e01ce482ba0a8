/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sessions of other users in the registry, as a login makes them (#37):
 *   registry_fill pam UID PID...   as root: one entry per PID, as pam_bwsh
 *                                  registers a session of UID
 *   registry_fill bwsh UID PID...  as UID (root drops to it first): as bwsh
 *                                  registers its own under a stack without
 *                                  pam_bwsh
 * through the build's own bwsh_registry_register(), so that the same source
 * fills the registry of any layout (bench/load.sh builds an earlier tree too).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* bench/load.sh builds this against earlier trees too, where audit.h held
 * the registry's declarations. */
#if __has_include("registry.h")
#include "bwshcore.h"
#else
#include "audit.h"
#endif

int
main (int argc, char **argv)
{
  unsigned long uid;
  char *end;

  if (argc < 3 || (strcmp (argv[1], "pam") != 0 && strcmp (argv[1], "bwsh") != 0))
    {
      fprintf (stderr, "usage: registry_fill pam|bwsh UID PID...\n");
      return 2;
    }
  errno = 0;
  uid = strtoul (argv[2], &end, 10);
  if (errno != 0 || *end != '\0' || uid == 0 || uid >= 65535)
    {
      fprintf (stderr, "registry_fill: not a uid: %s\n", argv[2]);
      return 2;
    }
  if (strcmp (argv[1], "bwsh") == 0 && (setresgid (uid, uid, uid) < 0 || setresuid (uid, uid, uid) < 0))
    {
      perror ("registry_fill: setresuid");
      return 1;
    }
  for (int i = 3; i < argc; i++)
    {
      BwshSessionEntry e = { .uid = (uid_t) uid, .start = (int64_t) time (NULL) };
      BwshError err = { 0 };
      char user[32];
      size_t live;
      long pid;

      errno = 0;
      pid = strtol (argv[i], &end, 10);
      if (errno != 0 || *end != '\0' || pid <= 1)
        {
          fprintf (stderr, "registry_fill: not a pid: %s\n", argv[i]);
          return 2;
        }
      snprintf (user, sizeof user, "bench%lu", uid);
      e.pid = (pid_t) pid;
      e.user = strdup (user);
      e.service = strdup ("sshd");
      e.command = strdup ("/bin/sh -c sleep");
      if (e.user == NULL || e.service == NULL || e.command == NULL || bwsh_pid_start_time (e.pid, &e.pid_start) < 0
          || bwsh_registry_register (NULL, &e, 0, &live, &err) < 0)
        {
          fprintf (stderr, "registry_fill: pid %ld: %s\n", pid, err.message[0] != '\0' ? err.message : "failed");
          bwsh_session_entry_clear (&e);
          return 1;
        }
      bwsh_session_entry_clear (&e);
    }
  return 0;
}
