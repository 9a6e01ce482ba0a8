/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy's lock groups (#39), and what bwshctl enforce needs: the lock
 * that covers a user now, and the note that tells pam_bwsh's close which
 * lock ended a session.
 *
 * lock_groups = [ "GROUP", ... ] is the declarative form of
 * `bwshctl lock @GROUP`: the same NSS matching (nested and supplementary
 * groups count), resolved with the subject check's group list
 * (policy_match.c) into BwshPolicy.lock_group.  A lock from the policy is a
 * BwshLock like a lock file's: target "@GROUP", the policy's lock_reason,
 * by "policy FILE:LINE", since 0.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "errors.h"
#include "identity.h"
#include "policy.h"
#include "registry.h"

/* The lock the policy's lock groups put on the identity it was loaded for,
 * or -ENOENT.  -ENOMEM. */
int bwsh_policy_lock (const BwshPolicy *pol, BwshLock *ret);

/* Whether @lock came from the policy's lock_groups (not a lock file). */
bool bwsh_lock_is_policy (const BwshLock *lock);

/* The lock that covers @id under @pol now: a lock file (bwsh_lock_find(),
 * which reads the groups it needs through NSS now), else the policy's lock
 * group.  -ENOENT when none does; another -errno when a lock file cannot
 * be read (the caller decides whether that locks). */
int bwsh_lock_covering (const char *locks_dir, const BwshPolicy *pol, const BwshIdentity *id, BwshLock *ret,
                        BwshError *err);

/* How many of @group's members (its NSS member list, which SSSD flattens
 * for nested groups) are subjects of @pol, and how many are not (root
 * counted in neither).  The first @names_max non-subjects' names are
 * copied into @ret_names (free each, then the array).  -ENOENT: NSS does
 * not know the group; other -errno: the lookup failed. */
int bwsh_lock_group_members (const BwshPolicy *pol, const char *group, size_t *ret_subjects,
                             size_t *ret_others, char ***ret_names, size_t names_max);

/* The lock that ended the session of the registry entry @registry_id, as
 * bwshctl enforce writes it before it ends the session, and pam_bwsh's
 * close takes it (reads and removes it): its session-ended event then says
 * end reason lock, with the lock's target, reason and source.  Root's
 * files, 0600, in the registry's status directory.  @dir NULL:
 * BWSH_SESSIONS_DIR.  take: -ENOENT when there is none. */
int bwsh_lock_note_write (const char *dir, const char *registry_id, const BwshLock *lock, BwshError *err);
int bwsh_lock_note_take (const char *dir, const char *registry_id, BwshLock *ret);
