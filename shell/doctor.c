/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwshctl doctor: what on this machine would weaken or break bwsh. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "bwsh.h"

int bwshctl_doctor (int argc, char **argv);

int
bwshctl_doctor (int argc, char **argv)
{
  (void) argc;
  (void) argv;
  fprintf (stderr, "bwshctl doctor: not implemented yet\n");
  return 2;
}
