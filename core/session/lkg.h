/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The last-known-good policy: a copy of the policy files (the main file, its
 * conf.d drop-ins and what they @include) as they last loaded cleanly as
 * root, kept under BWSH_LKG_DIR, one snapshot per policy path.  When the
 * policy cannot be read (a syntax error pushed to a drop-in), logins are
 * decided by this copy instead, so that one bad push confines the last good
 * policy's subjects and refuses nobody else (see bwsh_session_prepare()).
 *
 * Layout: BWSH_LKG_DIR/KEY is a symbolic link to KEY.DIGEST, a directory
 * holding the copies under their names relative to the policy's directory;
 * KEY is the start of the SHA-256 of the policy path, DIGEST that of the
 * policy (bwsh_policy_digest()).  A new snapshot is written to a temporary
 * directory, loaded once to prove it loads, renamed into place, and the
 * link replaced with rename(2): a reader sees the old copy or the new one,
 * never half of one.  Root-owned, readable by all: bwsh reads it as the user.
 */
#pragma once

#include <stdint.h>

#include "errors.h"
#include "identity.h"
#include "policy.h"

/* Save @pol (loaded cleanly from @policy_path for @id) as the last good
 * policy, unless that copy is already the current one.  Root only: for
 * anyone else 0 and nothing done. */
int bwsh_policy_lkg_save (const BwshPolicy *pol, const char *policy_path, const BwshIdentity *id, BwshError *err);

/* Load the last good policy of @policy_path for @id.  -ENOENT when there is
 * none.  *ret_saved: when it was saved (seconds since the epoch). */
int bwsh_policy_lkg_load (const char *policy_path, const BwshIdentity *id, BwshPolicy **ret, int64_t *ret_saved,
                          BwshError *err);

/* A broken policy is reported once per version, not at every login: its
 * version is the error (file, line, message) with the size and mtime of
 * the file it names, and BWSH_POLICY_ERRORS_DIR/SHA256 (root's, kept for
 * the boot, the error inside) marks it reported.  1: already reported (by
 * root); 0: not yet, and with @record, as root, marked now: the caller
 * reports it; -errno when the mark cannot be read or made (report it). */
int bwsh_policy_error_reported (const BwshError *policy_error, bool record);
