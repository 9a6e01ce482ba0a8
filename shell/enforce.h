/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* bwshctl enforce [--policy FILE]: the exit code. */
int bwshctl_enforce (int argc, char **argv);
