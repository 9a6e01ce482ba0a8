/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Formatting into a new string (format.c). */
#pragma once

#include <stdarg.h>

/* vasprintf(3) as a value: the new string, or NULL when out of memory
 * (glibc leaves its pointer undefined then, so that every caller had to
 * reset it by hand).  Free it with free(). */
char *bwsh_vformat (const char *fmt, va_list ap) __attribute__ ((format (printf, 1, 0)));
char *bwsh_format (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
