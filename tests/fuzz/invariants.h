/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What must hold for every plan, whatever the user's JSON or the policy text
 * said.  Each check abort()s with a one-line reason on stderr, so libFuzzer
 * keeps the input that broke it.
 */
#pragma once

#include "bwshcore.h"

/* A hand-built identity: no NSS, no real home (plan_build only lstat()s). */
#define FUZZ_USER "bwshfuzz"
#define FUZZ_HOME "/home/bwshfuzz"
#define FUZZ_UID 4242

void fuzz_identity (BwshIdentity *id);

/* The caller's environment as an attacker would set it. */
extern char *const fuzz_hostile_env[];

/* Build the plan of @pol x @uc, render it (and with @explain, explain it)
 * and check every invariant.  Returns normally when the plan was refused as
 * a whole (that is fine) or when everything held. */
void fuzz_check_plan (const BwshIdentity *id, const BwshPolicy *pol, const BwshUserConfig *uc, bool explain);
