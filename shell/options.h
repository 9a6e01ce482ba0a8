/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwshctl's option parser: long options spelled out in full, never abbreviated. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct CtlOption
{
  const char *name; /* "user" for --user; a single letter for -h */
  bool has_arg;
  int id;
} CtlOption;

/* Parse @argv[1..] (argv[0] is the subcommand) against @opts, in any order
 * with the operands: "--name VALUE", "--name=VALUE", "-h", "--" ends the
 * options.  getopt_long() would take "--use" for "--user-config"; an option
 * must be written exactly as it is named.  @fn gets each option; operands go
 * to @ret_operands (borrowed from argv, at most @max).  On a usage error
 * prints "bwshctl CMD: ..." and returns -1. */
int ctl_parse_options (int argc, char **argv, const CtlOption *opts, size_t n_opts,
                       int (*fn) (void *userdata, int id, const char *arg), void *userdata,
                       const char **ret_operands, size_t max, size_t *ret_n);
