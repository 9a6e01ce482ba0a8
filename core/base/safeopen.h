/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: safe opening (safeopen.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "errors.h"

typedef enum
{
  BWSH_OWNER_USER,         /* must be owned by @uid */
  BWSH_OWNER_ROOT,         /* must be owned by root */
  BWSH_OWNER_ROOT_OR_USER, /* either */
} BwshOwnerRule;

/* Open @path O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC, check it is a regular
 * file with the owner rule, not group/world-writable, at most @max_size
 * bytes, and read it whole (NUL-terminated).  -ENOENT when missing.  The
 * error never quotes the file's content. */
int bwsh_read_file_checked (const char *path, BwshOwnerRule rule, uid_t uid, size_t max_size,
                            char **ret_data, size_t *ret_len, BwshError *err);

/* True when someone other than @uid may write the file @st describes: it
 * is world-writable, or group-writable by any group but @uid's own private
 * group (its primary group, of its name, with nobody else in it). */
bool bwsh_writable_by_others (const struct stat *st, uid_t uid);

/* Check that @path and each parent directory up to "/" are owned by root
 * (or @uid where the rule allows it) and not group/world-writable, the way
 * OpenSSH's safe_path() does. */
int bwsh_check_path_trusted (const char *path, BwshOwnerRule rule, uid_t uid, BwshError *err);

/* The directory of the last path bwsh_check_path_trusted_in() found
 * trusted, held open: a later path in it (the policy's conf.d, a drop-in
 * beside another) has only its own element left to check, from that
 * directory, the way the walk checks its last element.  One memo serves
 * one loader; bwsh_trusted_dir_clear() closes it. */
typedef struct BwshTrustedDir
{
  char *path;
  int fd;
  BwshOwnerRule rule;
  uid_t uid;
} BwshTrustedDir;
#define BWSH_TRUSTED_DIR_INIT { .path = NULL, .fd = -1 }
int bwsh_check_path_trusted_in (const char *path, BwshOwnerRule rule, uid_t uid, BwshTrustedDir *memo,
                                BwshError *err);
void bwsh_trusted_dir_clear (BwshTrustedDir *memo);

/* For bwshctl run inside a sandbox, and for nothing that decides: when
 * this process's user namespace does not map uid 0 (bwsh's sandbox maps
 * only the user), root's files show as the overflow uid (nobody) and "/"
 * is the sandbox's own tmpfs.  Then, for the rest of the process, the
 * overflow uid counts as root, and directories owned by the caller (the
 * sandbox's tmpfs skeleton, "/" first) are accepted on the way, so that
 * `bwshctl check` and `explain` can read the read-only policy inside.
 * Neither decides anything: the next login re-reads everything outside,
 * with the full checks.  Sets *@ret_inside; 0 or -errno. */
int bwsh_trust_unmapped_root (bool *ret_inside);

/* uid 0, or the overflow uid once bwsh_trust_unmapped_root() found the
 * process inside a sandbox: root's, for the readers of root's files. */
bool bwsh_uid_is_root (uid_t uid);

/* Open the already-resolved, normalised @path one element at a time from "/",
 * with O_PATH|O_NOFOLLOW|O_CLOEXEC on each: a symlink anywhere in it, even
 * one swapped in after validation, fails with -ELOOP/-ENOTDIR. */
int bwsh_open_path_nofollow (const char *resolved, int *ret_fd);

/* Create @path (an absolute path under @home) and its missing parents up to
 * @home with mode 0700, refusing to follow symlinks on the way. */
int bwsh_mkdir_under_home (const char *home, const char *path, BwshError *err);
/* The same walk, creating nothing: *ret_would_create tells whether
 * bwsh_mkdir_under_home() would create something; the errors are the ones it
 * would fail with (an element that is a symlink or not a directory). */
int bwsh_mkdir_under_home_dry_run (const char *home, const char *path, bool *ret_would_create, BwshError *err);

/* A memfd holding @data, sealed against any change and positioned at 0, so
 * whoever holds the fd (bwrap) reads exactly what was written. O_CLOEXEC. */
int bwsh_sealed_memfd (const char *name, const void *data, size_t len, int *ret_fd);
