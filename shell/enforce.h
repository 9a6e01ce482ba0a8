/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

#include "audit.h"

/* bwshctl enforce [--policy FILE]: the exit code. */
int bwshctl_enforce (int argc, char **argv);

/* Append the lock_groups of the policy at @policy_path (NULL: the
 * installed one) to the locks @v, as locks from the policy
 * (lockgroups.h).  0, or -errno with the message printed. */
int bwshctl_policy_locks (const char *policy_path, BwshLock **v, size_t *n);
