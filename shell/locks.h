/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

/* bwshctl lock (@lock) or unlock: the exit code. */
int bwshctl_lock (int argc, char **argv, bool lock);
/* bwshctl locks: the exit code. */
int bwshctl_locks (int argc, char **argv);
