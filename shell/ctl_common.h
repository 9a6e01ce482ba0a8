/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "audit.h"

/* "bwshctl: WHAT: MESSAGE" on stderr. */
void bwshctl_print_error (const char *what, const BwshError *err);
/* 0 as root; else -1 with the message printed. */
int bwshctl_need_root (const char *cmd);

/* A process as /proc/PID/status shows it. */
typedef struct
{
  pid_t pid, ppid;
  uid_t uid;
  uint64_t start; /* set by signal_subtree(): with pid, one process */
} Proc;

/* Every process in /proc, in *@ret (freed by the caller): 0 or -errno. */
int bwshctl_read_procs (Proc **ret, size_t *ret_n);

/* End the sessions of @l whose @mine is set, as bwshctl lock and enforce
 * do: every process of theirs is gone when this returns.  Returns how many. */
size_t bwshctl_end_sessions (const BwshSessionList *l, const bool *mine);

/* Append the lock_groups of the policy at @policy_path (NULL: the
 * installed one) to the locks @v, as locks from the policy
 * (lockgroups.h).  0, or -errno with the message printed. */
int bwshctl_policy_locks (const char *policy_path, BwshLock **v, size_t *n);
