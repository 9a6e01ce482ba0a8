/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <sys/types.h>

/* In the child bwsh-netns forked: run slirp4netns at @path on the
 * namespaces @netns_fd and @userns_fd, confined and watched, with
 * --ready-fd @ready_fd and its stderr on @err_fd; its seccomp listener goes
 * to the helper (@helper_pid, its parent) over @sync_fd first.  Never
 * returns: the exec, or _exit (127). */
_Noreturn void engine_exec (const char *path, int netns_fd, int userns_fd, pid_t helper_pid, int ready_fd, int err_fd,
                            int sync_fd);
