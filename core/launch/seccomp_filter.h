/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: seccomp (seccomp_filter.c; the filter seccomp_gen compiles into bwsh). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "errors.h"

/* Build the session filter with libseccomp and export it as BPF into a
 * sealed memfd positioned at 0, ready for bwrap --seccomp FD.  The fd is
 * O_CLOEXEC; the caller clears that for the exec. */
int bwsh_seccomp_build_fd (int *ret_fd, BwshError *err);

extern const unsigned char bwsh_seccomp_bpf[];
extern const size_t bwsh_seccomp_bpf_len;
