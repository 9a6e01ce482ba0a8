/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: paths (path.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

typedef enum
{
  BWSH_PATH_OK = 0,
  BWSH_PATH_EMPTY,
  BWSH_PATH_RELATIVE,
  BWSH_PATH_DOTDOT,
  BWSH_PATH_CONTROL_CHAR,
  BWSH_PATH_TOO_LONG,
  BWSH_PATH_COMPONENT_TOO_LONG,
} BwshPathStatus;

/* Normalise an absolute path: fold "//", drop "/./" and a trailing "/".
 * Refuses "..", control characters (including newline and tab), relative
 * paths and paths longer than PATH_MAX - 1. */
BwshPathStatus bwsh_path_normalize (const char *in, char **ret_out);
const char *bwsh_path_status_to_string (BwshPathStatus s);

/* True when @path equals @prefix or lies below it, compared element by
 * element: "/home/al" is not under "/home/a".  Both must be normalised. */
bool bwsh_path_has_prefix (const char *path, const char *prefix);
/* bwsh_path_has_prefix() against any of @n @prefixes. */
bool bwsh_path_under_any (const char *path, char *const *prefixes, size_t n);

/* Expand a policy template: "~" or "~/x" relative to @home, "$HOME" too.
 * The result is normalised.  Returns 0 or -EINVAL. */
int bwsh_path_expand (const char *tmpl, const char *home, char **ret_path);

/* Paths that must never be a source or destination of a user bind,
 * nor any path under them: "/", "/proc", "/dev", "/sys". */
bool bwsh_path_is_forbidden (const char *normalized);

/* Number of path elements: "/" is 0, "/a/b" is 2.  Used to order mounts. */
size_t bwsh_path_depth (const char *normalized);

/* @path, a program bwsh starts, fixed at build time; in test builds only,
 * the environment variable @test_env may name another (a missing pasta,
 * one that fails; the helper of a build tree that is not installed).  An
 * installed build has no such knob. */
const char *bwsh_program_path (const char *test_env, const char *path);
