/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "audit.h"

/* bwshctl sessions|lock|unlock: the exit code, or -1 when @cmd is none of them. */
int bwshctl_sessions (const char *cmd, int argc, char **argv);

/* End the sessions of @l whose @mine is set, as bwshctl lock does: every
 * process of theirs is gone when this returns.  Returns how many. */
size_t bwshctl_end_sessions (const BwshSessionList *l, const bool *mine);

/* "bwshctl: WHAT: MESSAGE" on stderr. */
void bwshctl_print_error (const char *what, const BwshError *err);
/* 0 as root; else -1 with the message printed. */
int bwshctl_need_root (const char *cmd);
