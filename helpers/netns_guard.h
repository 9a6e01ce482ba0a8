/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwsh-netns: the host's own addresses, kept out of the sandbox's reach
 * (netns_guard.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct
{
  int host_fd;    /* rtnetlink in the host's namespace: dumps and route events */
  int sandbox_fd; /* rtnetlink in the sandbox's namespace: where routes are added */
  uint32_t seq;
} HostGuard;

#define HOST_GUARD_INIT { .host_fd = -1, .sandbox_fd = -1 }

/* Subscribe to the host's route changes.  Before the engine starts, so
 * that no address the host gains meanwhile goes unseen. */
int host_guard_listen (HostGuard *g);
/* Open the socket the routes are added through, in the sandbox's network
 * namespace (a child joins it; the helper stays in the host's). */
int host_guard_enter (HostGuard *g, int userns_fd, int netns_fd);
/* Dump the host's local routing table and add, in the sandbox, a
 * "prohibit" route for each of its destinations. */
int host_guard_sync (HostGuard *g, char *what, size_t what_size);
/* The host socket is readable: add what the host gained.  On error, @what
 * names the address that could not be kept out. */
int host_guard_event (HostGuard *g, char *what, size_t what_size);
/* A socket for host_route_type(), in the helper's (the host's) namespace. */
int host_route_open (void);
/* How the host would route @dst (@oif: a link-local scope, or 0): the
 * route's type (RTN_UNICAST, RTN_LOCAL, ...) or the kernel's error. */
int host_route_type (int fd, uint32_t seq, int family, const void *dst, uint32_t oif, unsigned char *ret_type);
