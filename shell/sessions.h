/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* bwshctl sessions|lock|unlock: the exit code, or -1 when @cmd is none of them. */
int bwshctl_sessions (const char *cmd, int argc, char **argv);
