/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: network (network.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "argv.h"
#include "errors.h"
#include "policy.h"

/* network = "private": the helper program (bwsh-netns, under libexec) that
 * gives the sandbox's own network namespace its link to the outside through
 * its engine, slirp4netns or pasta (network_engine).  Spawned by bwsh_exec_plan() before the exec of bwrap; see
 * network.c and helpers/bwsh-netns.c. */
typedef struct BwshNetHelper
{
  pid_t pid;    /* the helper, a child of bwsh and so of bwrap after the exec */
  int info_fd;  /* bwrap --info-fd: the write end of the pipe the helper reads */
  int block_fd; /* bwrap --block-fd: the read end of the pipe the helper writes */
} BwshNetHelper;

/* Spawn the helper @helper_path for @engine.  It learns the sandbox's pid
 * from bwrap's --info-fd, starts the engine on that process's network
 * namespace, keeps the host's own addresses out of it, and releases
 * bwrap's --block-fd only once all that is done; otherwise it kills the
 * sandbox before anything runs in it.  Both fds in @ret are O_CLOEXEC. */
int bwsh_net_helper_start (const char *helper_path, BwshNetEngine engine, BwshNetHelper *ret, BwshError *err);
/* The engine's path (fixed at build time) and its Debian package. */
const char *bwsh_net_engine_path (BwshNetEngine e);
const char *bwsh_net_engine_package (BwshNetEngine e);
/* Can the engine open the tun node for this user?  Without udev (minimal
 * cloud images, many containers) /dev/net/tun is crw------- root and every
 * private session would fail inside the engine; this says why, and the
 * fix, before anything starts.  Part of bwsh_net_helper_start(). */
#define BWSH_TUN_PATH "/dev/net/tun"
int bwsh_net_tun_check (BwshNetEngine engine, BwshError *err);
/* "crw-------": a file's type and mode as ls shows them. */
void bwsh_mode_string (mode_t m, char ret[11]);
/* Append --info-fd and --block-fd for @h to bwrap's options @opts. */
int bwsh_net_bwrap_options (const BwshNetHelper *h, BwshArgv *opts);
/* Close bwsh's ends (the helper then exits without a word).  Idempotent. */
void bwsh_net_helper_close (BwshNetHelper *h);

/* The helper's command line: it serves bwsh (then bwrap's monitor) @parent. */
int bwsh_net_helper_argv (const char *helper_path, BwshNetEngine engine, const char *engine_path, pid_t parent,
                          int info_fd, int block_fd, BwshArgv *ret);
/* The slirp4netns command line the helper runs for namespace files @netns
 * and @userns; it writes to @ready_fd once the namespace is configured. */
int bwsh_net_slirp4netns_argv (const char *path, const char *netns, const char *userns, int ready_fd, BwshArgv *ret);
/* Compile-time paths (config.h), exposed for bwshctl. */
const char *bwsh_pasta_path (void);
const char *bwsh_slirp4netns_path (void);
const char *bwsh_netns_helper_path (void);
