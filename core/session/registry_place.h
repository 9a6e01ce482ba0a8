/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The registry's places, keyed by what a login asks: "uid/UID" holds
 * pam_bwsh's entries (root's), "user/UID" bwsh's own (the user's, in root's
 * sticky user/).  An entry is named PID-START-N and its id is its path below
 * the registry ("uid/1000/4242-99-0").  A login's questions (an ancestor's
 * session, the user's count) read these names and /proc only, never an
 * entry's JSON nor another user's place.
 */
#pragma once

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "errors.h"
#include "registry.h"

#define BWSH_REGISTRY_ROOT_PART "uid"
#define BWSH_REGISTRY_USER_PART "user"

/* @path, a directory root owns with @mode (01777: sticky and world-writable,
 * like /tmp; else writable by root only); made with its missing ancestors
 * when @make and root. */
int bwsh_root_dir_open (const char *path, mode_t mode, bool make, int *ret_fd, BwshError *err);
/* A DIR stream of its own over @dirfd (which stays open). */
int bwsh_registry_dir_stream (int dirfd, DIR **ret);
/* The part @name of the registry below @dirfd, root's with exactly @mode,
 * made by root when @make: "user" (01777) and "status" (0755). */
int bwsh_registry_subdir (int dirfd, const char *name, mode_t mode, bool make, int *ret_fd);
/* Remove the entry @id (a path below the registry @dirfd). */
int bwsh_registry_remove (int dirfd, const char *id);

/* The part @part below the registry @dirfd, root's (made by root when @make). */
int bwsh_registry_part_open (int dirfd, const char *part, bool make, int *ret_fd);
/* @uid's place in the part @partfd; made when @make by root (@root_part) or by
 * @uid itself.  -EEXIST: user/UID is somebody else's (squatted). */
int bwsh_registry_place_open_in (int partfd, bool root_part, uid_t uid, bool make, int *ret_fd);
int bwsh_registry_place_open (int dirfd, const char *part, uid_t uid, bool make, int *ret_fd);
/* PID-START-N: the pid and start time an entry's name gives; -EINVAL else. */
int bwsh_registry_name_parse (const char *name, pid_t *ret_pid, uint64_t *ret_start);
/* The live entries of @uid (both places; not @except_id), from their names
 * and /proc; those of gone processes are removed where this process may. */
int bwsh_registry_count_at (int dirfd, uid_t uid, const char *except_id, size_t *ret_live);
/* The earliest home epoch among the live entries of @uid (both places),
 * less what the clocks leave unsure: a real entry born before it is in the
 * listing of every live session.  For each entry, its process's start or
 * its mtime (BwshSessionEntry.home_epoch), whichever is earlier, less 50
 * ms; for @own (pam_bwsh's entry of this very session, or NULL), its mtime
 * alone, less a tick of the coarse clock.  INT64_MAX when none is live.
 * Names and inodes only, no entry's JSON: a kept state's closure asks it
 * at every login. */
int bwsh_registry_oldest_at (int dirfd, uid_t uid, const BwshRegistryName *own, int64_t *ret_oldest);
/* Whether the place *@placefd (taken) names @pid or one of its ancestors,
 * @depth processes at most, with the start time /proc gives now (a match is
 * live); the name matched in @ret_name (may be NULL).  The chain is read
 * only when the place names a process that exists. */
int bwsh_registry_place_holds (int *placefd, pid_t pid, size_t depth, bool *ret, BwshRegistryName *ret_name);
/* After root removed the entry @id ("uid/UID/..."): UID's entries whose
 * process is gone go too (pam_bwsh's close). */
void bwsh_registry_sweep (int dirfd, const char *id);
