/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: launcher (launch.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "errors.h"
#include "plan.h"
#include "render.h"

/* Everything between plan and exec, shared by bwsh and tests: build the
 * seccomp filter, write the --args blob into a memfd, apply rlimits and
 * Landlock, and execve() bwrap with an empty environment.  Returns only on
 * failure. */
int bwsh_exec_plan (const BwshPlan *p, const BwshCommand *cmd, const char *bwrap_path,
                    BwshError *err);

/* Compile-time paths (config.h), exposed for bwshctl. */
const char *bwsh_bwrap_path (void);

/* The same filter, compiled at build time by seccomp_gen and embedded: what
 * a session uses.  Same fd contract as bwsh_seccomp_build_fd() (seccomp.h). */
int bwsh_seccomp_embedded_fd (int *ret_fd, BwshError *err);
