/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: seccomp (seccomp.c, seccomp_gen.c).  bwshcore.h includes every part. */
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

/* The same filter, compiled at build time by seccomp_gen and embedded: what
 * a session uses.  Same fd contract as bwsh_seccomp_build_fd(). */
int bwsh_seccomp_embedded_fd (int *ret_fd, BwshError *err);
extern const unsigned char bwsh_seccomp_bpf[];
extern const size_t bwsh_seccomp_bpf_len;
