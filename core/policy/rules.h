/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: rules (rules.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "policy.h"

/* True when @path (normalised) lies where the host keeps IPC endpoints or
 * other users' data: /run, /var/run, /tmp, /var/tmp, /dev/shm, /var/spool,
 * /var/mail, /var/log, /root, /home, or beside @home in its parent, unless
 * it is @home itself or below it.  Compared element by element. */
bool bwsh_path_is_host_ipc_source (const char *path, const char *home);

/* Why an overlay bind may not use @path as its source (host IPC, other
 * users' data, a directory holding a policy file), or NULL.  For the path
 * as written and as resolved; a policy bind is trusted and never asks, and
 * a policy ceiling (@ceilings, the ones that apply to this bind) set
 * inside one of those places grants it. */
const char *bwsh_rules_overlay_source (const char *path, const char *home, char *const *policy_dirs,
                                       size_t n_policy_dirs, char *const *ceilings, size_t n_ceilings);

/* Why an overlay source of file type @mode (from fstat on its O_PATH fd)
 * is refused: a socket, FIFO or device node.  NULL for files and dirs. */
const char *bwsh_rules_source_type (mode_t mode);

/* The first of @protected_paths that @path is, lies in or contains
 * (compared element by element), skipping one equal to @except; NULL when
 * none.  The overlay's directory and a state_dir must not overlap one. */
const char *bwsh_rules_overlaps_protected (const char *path, char *const *protected_paths, size_t n_protected,
                                           const char *except);

/* NULL when @dir may hold a session's persistent state (policy state_dir),
 * else why not: it must never be a place that programs outside the sandbox
 * read ($HOME and above, ~/.config, ~/.local/share, ~/.local/bin, /etc, /usr,
 * /run, /tmp, ..., a protected path, one of their parents), nor overlap the
 * project directory.  @protected_paths and @project may be empty/NULL. */
const char *bwsh_state_dir_refusal (char *const *protected_paths, size_t n_protected, const char *home,
                                    const char *project, const char *dir);

/* The built-in protected set: what programs outside the sandbox read.
 * Never writable inside, even under a read-write parent, even before it
 * exists (@is_dir picks the placeholder: an empty directory or file). */
typedef struct BwshProtectedDefault
{
  const char *tmpl;
  bool is_dir;
  bool state_owned; /* below a state name: the state's copy, not the real one */
} BwshProtectedDefault;

extern const BwshProtectedDefault bwsh_protected_defaults[];
extern const size_t bwsh_n_protected_defaults;

/* The PAM services that run the login shell (sshd, login, su, ...): the
 * one list pam_bwsh's documentation and doctor's PAM checks use. */
const char *const *bwsh_login_services (size_t *ret_n);

/* True when the policy reads a user overlay at all (user_overlay and
 * user_config_mode != "off"). */
bool bwsh_policy_reads_overlay (const BwshPolicy *pol);

/* True when @service runs the login shell: sshd, login, su, su-l,
 * runuser-l, or one the policy's allowed_services names. */
bool bwsh_service_runs_login_shell (const BwshPolicy *pol, const char *service);
