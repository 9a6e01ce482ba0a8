/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The live-session registry and session locks (registry.c).  The registry
 * (one file per session under BWSH_SESSIONS_DIR) and the locks (one file per
 * user or group under BWSH_LOCKS_DIR) are written by root only.
 *
 * Like the rest of core/: 0 or -errno, never a message on stderr.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "errors.h"
#include "identity.h"

/* What an entry's name PID-START-N says: the process that opened the
 * session and its start (clock ticks after boot). */
typedef struct BwshRegistryName
{
  pid_t pid;
  uint64_t start;
} BwshRegistryName;

typedef struct BwshSessionEntry
{
  char *id;              /* the file name */
  char *user;
  uid_t uid;
  char *service;
  char *rhost;
  char *tty;
  char *command;
  char *policy_path;
  char plan_digest[65];
  char policy_digest[65];
  int64_t start;         /* seconds since the epoch */
  pid_t pid;             /* the process that opened the PAM session; the sandbox runs below it */
  uint64_t pid_start;    /* its start time in clock ticks after boot (/proc/PID/stat field 22) */
  bool by_bwsh;          /* written by bwsh as the user (no pam_bwsh in the stack); pid is bwrap's */
  /* The session's home epoch (BwshPlan.home_epoch, ns since the epoch; 0:
   * none): written as the entry's mtime, where a login reads it with the
   * name alone (bwsh_registry_oldest_at()). */
  int64_t home_epoch;
} BwshSessionEntry;

typedef struct BwshSessionList
{
  BwshSessionEntry *items;
  size_t n;
} BwshSessionList;

void bwsh_session_entry_clear (BwshSessionEntry *e);
void bwsh_session_list_clear (BwshSessionList *l);

/* The registry directory, made root-owned 0755 if missing (by root; for
 * anyone else -ENOENT when missing).  Readable by all, like utmp: bwsh
 * counts its user's sessions as the user.  No lock: see
 * bwsh_registry_register().  @dir NULL: BWSH_SESSIONS_DIR. */
int bwsh_registry_open (const char *dir, int *ret_dirfd, BwshError *err);
#define BWSH_STATUS_DIR_NAME "status" /* how sessions ended: ended.h */

/* Every live entry, root's and those bwsh wrote as the user; entries whose
 * process is gone (or was reused) are removed on the way.  @dirfd from
 * bwsh_registry_open(). */
int bwsh_registry_list (int dirfd, BwshSessionList *ret, BwshError *err);

/* Write @e as a new file (atomically: a temporary file, then rename) and
 * set e->id.  @dirfd as above. */
int bwsh_registry_add (int dirfd, BwshSessionEntry *e, BwshError *err);

/* ------------------------------------------------------------------- locks */

/* Locks: BWSH_LOCKS_DIR (under /var/lib: a lock must survive a reboot, and
 * it is state that bwshctl writes, not configuration that configuration
 * management owns and may overwrite from its copy of /etc), one JSON file per
 * locked user or group, root-owned, readable by all: bwsh enforces the lock
 * itself, as the user. */
typedef struct BwshLock
{
  char *target;   /* "USER" or "@GROUP" */
  char *reason;
  char *by;       /* who locked it */
  int64_t since;
} BwshLock;

void bwsh_lock_clear (BwshLock *l);

/* @target is "USER" or "@GROUP": a name of 1 to 64 characters without "/",
 * not starting with "." or "-". */
bool bwsh_lock_target_valid (const char *target);
/* Write (or replace) the lock for @target.  @dir NULL: BWSH_LOCKS_DIR. */
int bwsh_lock_write (const char *dir, const BwshLock *l, BwshError *err);
/* -ENOENT when there was no such lock. */
int bwsh_lock_remove (const char *dir, const char *target, BwshError *err);
/* Whether the lock on @target ("USER" or "@GROUP") applies to @id: the one
 * definition, for logins and for bwshctl lock ending sessions. */
bool bwsh_lock_applies (const char *target, const BwshIdentity *id);
/* The lock that applies to @id (its name first, then its groups), or
 * -ENOENT when none does.  Readable as any user: bwsh enforces locks
 * itself.  A lock file that cannot be read still locks (empty reason). */
int bwsh_lock_find (const char *dir, const BwshIdentity *id, BwshLock *ret, BwshError *err);
int bwsh_lock_list (const char *dir, BwshLock **ret, size_t *ret_n, BwshError *err);
/* Every live entry (bwsh_registry_open() and _list() in one); no registry:
 * none. */
int bwsh_registry_read (const char *dir, BwshSessionList *ret, BwshError *err);

/* The live sessions of @uid, leaving out the entry @except_id (NULL: none).
 * No registry: 0 sessions. */
int bwsh_registry_count (const char *dir, uid_t uid, const char *except_id, size_t *ret_live, BwshError *err);

/* The earliest home epoch of @uid's live sessions, less what the clocks
 * leave unsure (registry_place.h, bwsh_registry_oldest_at()); INT64_MAX
 * when none is live or there is no registry.  @own: pam_bwsh's entry of
 * this very session (BwshAdmission.registered_as), or NULL. */
int bwsh_registry_oldest (const char *dir, uid_t uid, const BwshRegistryName *own, int64_t *ret_oldest,
                          BwshError *err);

/* Register @e, then count @e->uid's other live sessions; when @max_sessions
 * (0: no limit) were already live, remove @e again and return -EUSERS.
 * Written first and counted after, so that concurrent logins cannot both
 * take the last place (both may be refused), with no lock a user could
 * hold.  Root writes into the registry, anyone else (bwsh without pam_bwsh)
 * into its users' part.  *ret_live is the count without @e.  @dir NULL:
 * BWSH_SESSIONS_DIR. */
int bwsh_registry_register (const char *dir, BwshSessionEntry *e, unsigned max_sessions, size_t *ret_live,
                            BwshError *err);
/* Remove the entry @id (from a register); -ENOENT when already gone.  Root
 * (pam_bwsh's close) then removes the entries of the same uid whose process
 * is gone (registry_place.c). */
int bwsh_registry_unregister (const char *dir, const char *id);
