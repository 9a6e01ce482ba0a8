/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwsh-netns: every destination the engine names, checked against the
 * host's routing at the moment it names it (engine_watch.c). */
#pragma once

#include <stdint.h>

struct seccomp_notif;
struct seccomp_notif_resp;

typedef struct
{
  int notify_fd; /* the engine's seccomp listener, once fetched */
  int route_fd;  /* rtnetlink in the host's namespace: route lookups */
  uint32_t seq;
  struct seccomp_notif *req;
  struct seccomp_notif_resp *resp;
} EngineWatch;

#define ENGINE_WATCH_INIT { .notify_fd = -1, .route_fd = -1 }

/* In the engine's child, after NO_NEW_PRIVS and before the exec: its
 * connect(), sendto() with a destination, sendmsg() and sendmmsg() wait
 * for the helper's word.  Returns the listener's fd (O_CLOEXEC). */
int engine_watch_install (void);
/* In the helper: its route socket (in the host's namespace, where the
 * engine's sockets are) and the listener fetched from the engine's child
 * @pidfd, where it is @fd. */
int engine_watch_open (EngineWatch *w, int pidfd, int fd);
/* The listener is readable: answer one request.  A negative return is a
 * listener that no longer works (the engine is gone). */
int engine_watch_answer (EngineWatch *w);
/* Free what engine_watch_open() allocated and close its fds.  Idempotent. */
void engine_watch_close (EngineWatch *w);
