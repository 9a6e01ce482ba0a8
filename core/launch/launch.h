/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: launcher (launch.c, path.c).  bwshcore.h includes every part. */
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

/* @path, a program bwsh starts, fixed at build time; in test builds only,
 * the environment variable @test_env may name another (a missing pasta,
 * one that fails; the helper of a build tree that is not installed).  An
 * installed build has no such knob. */
const char *bwsh_program_path (const char *test_env, const char *path);

/* Compile-time paths (config.h), exposed for bwshctl. */
const char *bwsh_bwrap_path (void);
const char *bwsh_pasta_path (void);
const char *bwsh_slirp4netns_path (void);
const char *bwsh_netns_helper_path (void);
const char *bwsh_policy_path (void);
