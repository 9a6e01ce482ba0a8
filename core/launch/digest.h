/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: SHA-256 and the plan's digest (digest.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"

/* A stable digest of what the plan does (mounts with verdicts, shell,
 * working directory, namespaces, network and its engine, Landlock, seccomp,
 * limits, the session's fixed variables: the rows of bwsh_plan_fields below
 * with digest set): 64 hex characters plus NUL.  The variables
 * passed through from the caller are left out on purpose: pam_bwsh computes
 * the digest at session open, before sshd sets SSH_TTY and friends, and the
 * same plan must give the same digest in bwsh. */
void bwsh_plan_digest (const BwshPlan *p, char ret_hex[65]);

/* SHA-256 of @data as 64 lowercase hex characters plus NUL (FIPS 180-4). */
void bwsh_sha256_hex (const void *data, size_t len, char ret_hex[65]);

/* How the digest reads a field of the plan. */
typedef enum
{
  BWSH_PLAN_FIELD_STRING,     /* char * or const char * (NULL hashes as "") */
  BWSH_PLAN_FIELD_BOOL,
  BWSH_PLAN_FIELD_INT,        /* an enum or an int */
  BWSH_PLAN_FIELD_UNSIGNED,
  BWSH_PLAN_FIELD_U64,
  BWSH_PLAN_FIELD_I64,
  BWSH_PLAN_FIELD_LENGTH,     /* the length of the list just before it, hashed with that list */
  BWSH_PLAN_FIELD_MOUNTS,     /* kind, verdict, source, destination and size of each mount */
  BWSH_PLAN_FIELD_ENV,        /* the variables the session sets itself, not the caller's */
  BWSH_PLAN_FIELD_NAMESPACES, /* unshare[] */
  BWSH_PLAN_FIELD_LANDLOCK,   /* the Landlock request */
  BWSH_PLAN_FIELD_OTHER,      /* not hashed */
} BwshPlanFieldKind;

/* One field of BwshPlan: the one list of them.  The digest hashes the rows
 * with @digest set, in this order; explain shows each row with an @explain
 * key (its JSON key; the text has the same section); @left_out says why a
 * row is not in the digest, or not in explain, or both (one of the reasons
 * named in digest.c: the caller's pass-through variables, run-time
 * descriptors, diagnostics, inputs of resolution).  tests/unit/test_digest.c
 * fails on a member of BwshPlan (plan.h) with no row. */
typedef struct BwshPlanField
{
  const char *name;   /* the member of BwshPlan */
  size_t offset;
  size_t size;
  BwshPlanFieldKind kind;
  bool digest;
  const char *explain;
  const char *left_out;
} BwshPlanField;

extern const BwshPlanField bwsh_plan_fields[];
extern const size_t bwsh_plan_fields_n;
