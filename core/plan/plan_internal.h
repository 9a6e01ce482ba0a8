/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plan's private header: what the files of core/plan/ share and nothing
 * outside them sees.  The plan's public API (bwsh_plan_build(),
 * bwsh_plan_resolve(), ...) is in ../plan.h.
 *
 *   build.c         the plan's life and the order of its steps
 *   ops.c           below every step: plan_add_mount(), plan_refuse(), plan_set_reason() (ops.h)
 *   dest_table.c    the one destination table, for build and resolve
 *   context.c       the rules context (build and resolve), the build's locks
 *   defaults.c      the default plan: host layout, /run, /dev, /proc, /tmp
 *   home.c          the project directory, the state, the home's layers
 *   merge.c         the policy's and the user's lists over the defaults
 *   protect.c       protected paths bound again read-only after the merge
 *   env.c           the session's environment
 *   limits.c        resolution: coalescing, max_mounts, file descriptors
 *   kept_state.c    resolution: a kept state directory, the closure
 *   mount_points.c  resolution: mount points, destinations
 *   resolve.c       bwsh_plan_resolve()
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "bind_list.h"
#include "errors.h"
#include "identity.h"
#include "plan.h"
#include "policy.h"
#include "userconf.h"

/* Destination -> mount indices (dest_table.c). */
typedef struct
{
  size_t *slots; /* index + 1, 0 = empty */
  size_t cap;    /* power of two, at least twice n */
  size_t n;
} DestTable;

/* The rules context: what a path is checked against, expanded once for
 * one user.  The build expands it (plan_ctx_rules()) and hands it to the plan
 * (plan_rules_to_plan()); the resolution checks resolved paths against the
 * same rules, borrowed back from the plan (plan_rules_of_plan()).  It holds no
 * identity and no policy: resolution has none, and a helper that needs
 * them does not compile there. */
typedef struct
{
  char **rw_ceilings;
  size_t n_rw;
  char **ro_ceilings;
  size_t n_ro;
  char **protected_paths;
  size_t n_protected;
  char **policy_dirs;   /* directories holding a policy file: never an overlay source */
  size_t n_policy_dirs;
} Rules;

/* The build's context: the inputs, the plan being built, its
 * destination table and the rules. */
typedef struct
{
  const BwshIdentity *id;
  const BwshPolicy *pol;
  BwshPlan *p;
  DestTable dests;
  Rules rules;
  bool *protected_is_dir; /* one per rules.protected_paths */
  bool *protected_state_owned; /* below a state name: the state's copy (BwshProtectedDefault) */
  char *overlay_dir;      /* user_config_mode = "editable": the one protected path left writable */
  char **locked;
  size_t n_locked;
  /* The names in the real $HOME, sorted, when plan_add_home() read all of them
   * (home_listed): what is not among them does not exist there. */
  char **home_names;
  size_t n_home_names;
  bool home_listed;
} Ctx;

/* Loop over the index i of every mount whose destination is @want; the
 * order is the hash table's, so callers that care compare indices. */
#define FOREACH_DEST(c, want, i)                                                                     \
  for (size_t _k = (c)->dests.cap ? plan_hash_path (want) & ((c)->dests.cap - 1) : 0, _n = 0, i = 0;      \
       (c)->dests.cap && (c)->dests.slots[_k] != 0 && _n < (c)->dests.cap;                         \
       _k = (_k + 1) & ((c)->dests.cap - 1), _n++)                                                   \
    if ((i = (c)->dests.slots[_k] - 1, strcmp ((c)->p->mounts[i].dest, (want)) == 0))

/* "No parent" in the covering-mount table of plan_coalesce(). */
#define NO_PARENT SIZE_MAX

/* dest_table.c */
size_t plan_hash_path (const char *s);
int plan_dest_table_add (DestTable *d, const BwshMount *mounts, size_t idx);
int plan_dest_table_set (DestTable *d, const BwshMount *mounts, size_t idx);
size_t plan_dest_table_cover (const DestTable *d, const BwshMount *mounts, const char *dest);
void plan_dest_table_clear (DestTable *d);
/* Every mount whose destination is the first @n bytes of @dest, one per
 * call, in the table's order (a table filled by plan_dest_table_add()): start
 * with *@pos = SIZE_MAX; NO_PARENT when there is none left. */
size_t plan_dest_table_next (const DestTable *d, const BwshMount *mounts, const char *dest, size_t n, size_t *pos);
int plan_set_dest (Ctx *c, size_t idx, char *dest);

/* context.c */
void plan_ctx_clear (Ctx *c);
int plan_expand_list (const BwshBindList *l, const char *home, char ***ret, size_t *ret_n, BwshError *err);
int plan_ctx_rules (Ctx *c, const char *home, BwshError *err);
bool plan_str_in (const char *s, const char *const *v, size_t n);
bool plan_is_critical (const char *dest);
bool plan_is_locked (const Ctx *c, const char *dest);
void plan_rules_to_plan (Rules *rules, BwshPlan *p);
Rules plan_rules_of_plan (const BwshPlan *p);
const char *plan_check_path_rules (const Rules *rules, const char *path, bool rw);
const char *plan_check_ro_ceilings (const Rules *rules, const char *path);
int plan_rules_add_builtin_ceilings (Rules *rules, const char *project, const char *home);

/* defaults.c, home.c */
int plan_add_defaults (Ctx *c, const char *project, const char *state_dir);
int plan_choose_project_dir (Ctx *c, const BwshUserConfig *uc, char **ret, BwshError *err);
int plan_choose_state_dir (Ctx *c, const char *project, char **ret, BwshError *err);
int plan_add_home (Ctx *c, const char *project, const char *state_dir);
/* Whether @path lies below the real $HOME in an entry that the home's
 * listing does not hold: then it does not exist.  False when unsure. */
bool plan_home_lacks (const Ctx *c, const char *path);
int plan_add_overlay_dir (Ctx *c);

/* merge.c, protect.c */
int plan_merge (Ctx *c, const BwshUserConfig *uc);
/* The rows of the merge's table on a user's source (ceilings, overlay
 * source, read-only ceilings), in their order, on @src alone: resolution
 * runs them again on the resolved path.  The first objection, or NULL. */
const char *plan_merge_source_objection (const Rules *rules, const char *home, const char *src, bool rw);
int plan_sort_by_depth (BwshPlan *p);
int plan_add_protected (Ctx *c);

/* env.c */
int plan_build_env (const BwshIdentity *id, const BwshPolicy *pol, char *const *envp, BwshPlan *p, BwshError *err);

/* limits.c */
bool plan_is_bind (BwshMountKind k);
int plan_coalesce (BwshPlan *p, size_t *ret_parent);
bool plan_parent_dropped (const BwshPlan *p, const size_t *parent, size_t i);
int plan_enforce_mount_limit (BwshPlan *p, const size_t *parent);
int plan_reserve_fds (BwshPlan *p, const size_t *parent, BwshError *err);

/* kept_state.c */
int plan_resolve_state (BwshPlan *p, const Rules *rules, BwshMount *m, BwshResolveMode mode, bool *ret_unopened);
int plan_check_state_conflict (BwshPlan *p, BwshMount *m, int state_fd);

/* mount_points.c */
int plan_dry_run_created (const BwshPlan *p, const char *path, char **ret, BwshError *err);
int plan_prepare_destinations (BwshPlan *p, BwshResolveMode mode);
