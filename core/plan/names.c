/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The names of the plan's enums, as explain, the digest and the events write them. */
#include "config.h"

#include "cleanup.h"
#include "plan.h"

const char *
bwsh_mount_kind_to_string (BwshMountKind k)
{
  static const char *const names[] = {
    [BWSH_MOUNT_TMPFS] = "tmpfs",         [BWSH_MOUNT_RO_BIND] = "ro-bind",
    [BWSH_MOUNT_BIND] = "bind",           [BWSH_MOUNT_DEV] = "dev",
    [BWSH_MOUNT_DEV_BIND] = "dev-bind",   [BWSH_MOUNT_PROC] = "proc",
    [BWSH_MOUNT_SYMLINK] = "symlink",     [BWSH_MOUNT_DIR] = "dir",
    [BWSH_MOUNT_REMOUNT_RO] = "remount-ro",
  };
  return (size_t) k < BWSH_N_ELEMENTS (names) ? names[k] : "?";
}

const char *
bwsh_verdict_to_string (BwshVerdict v)
{
  static const char *const names[] = {
    [BWSH_VERDICT_ACCEPTED] = "accepted", [BWSH_VERDICT_REFUSED] = "refused",
    [BWSH_VERDICT_SKIPPED] = "skipped",   [BWSH_VERDICT_DISABLED] = "disabled",
    [BWSH_VERDICT_SHADOWED] = "shadowed", [BWSH_VERDICT_COALESCED] = "coalesced",
  };
  return (size_t) v < BWSH_N_ELEMENTS (names) ? names[v] : "?";
}
