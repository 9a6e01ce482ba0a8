/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: identity (identity.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "errors.h"

typedef struct BwshIdentity
{
  uid_t uid;
  gid_t gid;
  char *name;
  char *home;   /* pw_dir, normalised */
  char *shell;  /* pw_shell, as in the passwd database */
  /* Group names.  Left NULL by the NSS constructors: getgrouplist() has to
   * ask every NSS module (LDAP, SSSD, systemd...), which costs more than the
   * rest of session start, so it runs only when a policy asks about a group.
   * Tests may fill these by hand. */
  char **groups;
  size_t n_groups;
  struct BwshGroupCache *group_cache; /* filled on first bwsh_identity_in_group() */
} BwshIdentity;

/* Identity of @uid from NSS (getpwuid_r, getgrouplist), never the environment. */
int bwsh_identity_from_uid (uid_t uid, BwshIdentity **ret, BwshError *err);
int bwsh_identity_from_name (const char *name, BwshIdentity **ret, BwshError *err);
BwshIdentity *bwsh_identity_free (BwshIdentity *id);
static inline void
bwsh_identity_freep (BwshIdentity **id)
{
  bwsh_identity_free (*id);
}
bool bwsh_identity_in_group (const BwshIdentity *id, const char *group);
/* Load the group list now, so that an NSS failure refuses the session
 * instead of silently skipping a restrictive group block.  Idempotent. */
int bwsh_identity_load_groups (const BwshIdentity *id, BwshError *err);
