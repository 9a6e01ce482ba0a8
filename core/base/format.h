/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Formatting into a new string (format.c). */
#pragma once

#include <stdarg.h>
#include <stdint.h>

/* vasprintf(3) as a value: the new string, or NULL when out of memory
 * (glibc leaves its pointer undefined then, so that every caller had to
 * reset it by hand).  Free it with free(). */
char *bwsh_vformat (const char *fmt, va_list ap) __attribute__ ((format (printf, 1, 0)));
char *bwsh_format (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* What "%" PRIu64 and "%" PRId64 write, into @num, without printf's cost on
 * the login's path (#37): a pointer into @num. */
char *bwsh_format_u64 (char num[24], uint64_t v);
char *bwsh_format_i64 (char num[24], int64_t v);

/* @a, @b and @c end to end in a new string, or NULL when out of memory:
 * what asprintf ("%s%s%s") gives, without printf's cost on the login's
 * path (#37).  Free it with free(). */
char *bwsh_concat3 (const char *a, const char *b, const char *c);
