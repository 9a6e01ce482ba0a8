/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What /proc/PID/stat says of a process: its parent, state and start time.
 * The registry tells a live session from a later process with the same
 * number by the start time; bwshctl lock walks parents.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "procstat.h"

/* /proc/PID/stat into @buf; *ret_fields points at the ")" that ends comm
 * (comm may hold spaces and parentheses: fields count after the last one). */
static int
read_proc_stat (pid_t pid, char *buf, size_t size, const char **ret_fields)
{
  char path[64];
  _cleanup_close_ int fd = -1;
  ssize_t n;

  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  n = read (fd, buf, size - 1);
  if (n <= 0)
    return n < 0 ? -errno : -EIO;
  buf[n] = '\0';
  *ret_fields = strrchr (buf, ')');
  return *ret_fields != NULL ? 0 : -EIO;
}

int
bwsh_pid_parent (pid_t pid, pid_t *ret)
{
  char buf[1024];
  const char *p = NULL;
  int ppid, r = read_proc_stat (pid, buf, sizeof buf, &p);

  /* ") S PPID ...": field 4. */
  if (r < 0)
    return r;
  if (sscanf (p + 1, " %*c %d", &ppid) != 1)
    return -EIO;
  *ret = (pid_t) ppid;
  return 0;
}

/* The state, parent and start time of @pid, from one read. */
static int
pid_stat (pid_t pid, char *ret_state, pid_t *ret_parent, uint64_t *ret_start)
{
  char buf[1024];
  const char *p = NULL;
  unsigned long long start;
  char state;
  int ppid, r = read_proc_stat (pid, buf, sizeof buf, &p);

  if (r < 0)
    return r;
  if (sscanf (p + 1, " %c %d", &state, &ppid) != 2)
    return -EIO;
  /* p is at ") S ppid ...": the space after it starts field 3 (the state);
   * start time is field 22, 19 spaces further. */
  p++;
  for (int field = 3; field < 22; field++)
    {
      p = strchr (p + 1, ' ');
      if (p == NULL)
        return -EIO;
    }
  if (sscanf (p, " %llu", &start) != 1)
    return -EIO;
  *ret_start = start;
  if (ret_state != NULL)
    *ret_state = state;
  if (ret_parent != NULL)
    *ret_parent = (pid_t) ppid;
  return 0;
}

int
bwsh_pid_stat (pid_t pid, uint64_t *ret_start, char *ret_state)
{
  return pid_stat (pid, ret_state, NULL, ret_start);
}

int
bwsh_pid_parent_start (pid_t pid, pid_t *ret_parent, uint64_t *ret_start)
{
  return pid_stat (pid, NULL, ret_parent, ret_start);
}

int
bwsh_pid_start_time (pid_t pid, uint64_t *ret)
{
  return bwsh_pid_stat (pid, ret, NULL);
}
