/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* bwshctl sessions [--json]: the exit code. */
int bwshctl_sessions (int argc, char **argv);
