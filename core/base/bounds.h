/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: limits (constants, no code). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The user overlay is small by nature; 64 KiB caps parser work and memory. */
#define BWSH_USER_CONFIG_MAX (64 * 1024)
/* Policy files are bigger, but still not unbounded. */
#define BWSH_POLICY_FILE_MAX (1024 * 1024)
/* bwrap refuses more than 9000 arguments (MAX_ARGS, against CVE-2017-5226-era
 * argument floods); a mount is at most 3 args, so 1024 entries stay far below it.
 * The policy lowers this further (max_mounts, default 256) because bwrap's
 * start-up cost grows quadratically with the number of binds. */
#define BWSH_ENTRIES_MAX 1024
#define BWSH_DEFAULT_MAX_MOUNTS 256
/* RLIMIT_NPROC counts every task (threads too) of the user's real uid on the
 * host, across all their sessions; bwrap's user namespace keeps the limit set
 * before it.  Inherited, it is threads-max / 2 (96363 on a 2-core, 6 GiB
 * host): a fork bomb fills the pid space and the RAM before it stops.  1024
 * leaves room for a build with make -j and a language server in each of a few
 * sessions, and stops a fork bomb after 1024 tasks; the policy raises it. */
#define BWSH_DEFAULT_NPROC 1024
/* max_sessions is a count of logins, not of processes. */
#define BWSH_MAX_SESSIONS_MAX 100000
/* One environment value may not exceed this; ARG_MAX is shared by all of them. */
#define BWSH_ENV_VALUE_MAX (32 * 1024)
