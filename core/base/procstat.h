/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What /proc/PID/stat says of a process (procstat.c).
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

/* Start time of @pid (field 22 of /proc/PID/stat), to tell a live process
 * from a later one that reused its number. */
int bwsh_pid_start_time (pid_t pid, uint64_t *ret);

/* The same, and the state letter of /proc/PID/stat (field 3: 'R', 'S',
 * 'Z', ...) in @ret_state unless NULL. */
int bwsh_pid_stat (pid_t pid, uint64_t *ret_start, char *ret_state);
/* The parent of @pid (field 4 of /proc/PID/stat). */
int bwsh_pid_parent (pid_t pid, pid_t *ret);
/* Its parent and its start time, from one read (the walk up a session's
 * ancestors, admission.c). */
int bwsh_pid_parent_start (pid_t pid, pid_t *ret_parent, uint64_t *ret_start);
