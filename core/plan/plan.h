/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: the plan (the files of core/plan/). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "bind_list.h"
#include "errors.h"
#include "identity.h"
#include "policy.h"
#include "userconf.h"

/* The namespaces a session may unshare, in the order bwrap is told about
 * them.  One table (bwsh_namespace_info()) names each for render and explain. */
typedef enum
{
  BWSH_NS_USER,
  BWSH_NS_PID,
  BWSH_NS_IPC,
  BWSH_NS_UTS,
  BWSH_NS_CGROUP,
  BWSH_NS_NET,
  _BWSH_NS_MAX,
} BwshNamespace;

/* What the session asks of Landlock: a copy of the policy's settings, so
 * that the plan (and its digest) carries it and nothing borrows the policy. */
typedef struct BwshLandlockRequest
{
  BwshLandlockMode mode;
  bool scope_abstract_unix;
  bool scope_signal;
  bool tcp_connect_set;      /* unset = unrestricted, set and empty = nothing allowed */
  bool tcp_bind_set;
  bool for_shared_network;   /* required because the network is shared (#14), not by mode */
  BwshBindList tcp_connect;  /* port numbers as strings, with where they were written */
  BwshBindList tcp_bind;
} BwshLandlockRequest;

/* True when the policy's mode is the default best effort but its shared
 * network makes Landlock required (#14): only landlock.mode written in the
 * policy, "best_effort" or "off", lets such a session run without it. */
bool bwsh_landlock_required_by_network (const BwshPolicy *pol);
int bwsh_landlock_request_from_policy (const BwshPolicy *pol, BwshLandlockRequest *ret);
void bwsh_landlock_request_clear (BwshLandlockRequest *req);

typedef enum
{
  BWSH_SECCOMP_SESSION = 0, /* the filter compiled into bwsh (seccomp_gen) */
} BwshSeccompChoice;

typedef enum
{
  BWSH_MOUNT_TMPFS,
  BWSH_MOUNT_RO_BIND,
  BWSH_MOUNT_BIND,
  BWSH_MOUNT_DEV,
  BWSH_MOUNT_DEV_BIND,
  BWSH_MOUNT_PROC,
  BWSH_MOUNT_SYMLINK,  /* src is the link target */
  BWSH_MOUNT_DIR,
  BWSH_MOUNT_REMOUNT_RO,
} BwshMountKind;

typedef enum
{
  BWSH_VERDICT_ACCEPTED,
  BWSH_VERDICT_REFUSED,   /* invalid or against policy */
  BWSH_VERDICT_SKIPPED,   /* source missing */
  BWSH_VERDICT_DISABLED,  /* a default the user disabled */
  BWSH_VERDICT_SHADOWED,  /* same destination from a higher origin */
  BWSH_VERDICT_COALESCED, /* already covered by an identical parent bind */
} BwshVerdict;

typedef struct BwshMount
{
  BwshMountKind kind;
  char *src;        /* as written (normalised); for binds the resolved path after resolve */
  char *dest;
  BwshSource from;
  BwshVerdict verdict;
  char *reason;     /* NULL when accepted without remark */
  uint64_t size;    /* tmpfs only, 0 = default */
  int fd;           /* O_PATH fd of the validated source, or -1 */
  bool optional;    /* a missing source is skipped, not fatal */
  bool create_dir;  /* created (0700, as the user) under $HOME at resolve if missing */
  bool state;       /* the session's state mounted at $HOME: never disabled, checked at resolve */
  bool home_entry;  /* an entry of the real home, bound read-only over the state */
  bool exact_source; /* refused when the source resolves anywhere but itself (no symlink on the way) */
  bool file_placeholder; /* protected and missing: an empty read-only file, not a directory */
  bool guard;       /* holds a protected path read-only: if it cannot be mounted, the read-write mount around it goes */
} BwshMount;

/* Everything the launch uses, and nothing borrowed: render, explain, the
 * digest and the exec read only this. */
typedef struct BwshPlan
{
  BwshMount *mounts;
  size_t n_mounts;
  size_t cap_mounts;
  char **env;        /* "KEY=VALUE", NULL-terminated */
  size_t n_env;
  char *chdir;
  char *hostname;
  char *shell;       /* inner shell */
  char *home;
  char *project_dir;
  bool project_dir_missing; /* explain/check: the first login would create it */
  bool project_dir_chosen;  /* the user's sandboxProjectDir, not the policy's project_dir */
  /* Host trees that some session of the user can write while this one
   * starts (rw_ceilings, every project directory, the kept state, the
   * editable overlay, the policy's read-write binds): no mount point of an
   * entry lies in them (docs/design.md).  default_project_dir is the
   * policy's project_dir, expanded; with users_choose_project_dir, every
   * directory below a non-hidden entry of $HOME is one too. */
  char *default_project_dir;
  bool users_choose_project_dir;
  bool unshare[_BWSH_NS_MAX];
  bool disable_userns;
  BwshNetMode network;
  BwshNetEngine net_engine; /* with network = private */
  BwshRecordMode record;
  const char *term_fallback; /* the TERM the session got for a client's TERM that is not a terminal name; NULL: none */
  BwshLandlockRequest landlock;
  BwshSeccompChoice seccomp;
  uint64_t root_tmpfs_size; /* bytes, 0 = bwrap's default */
  uint64_t tmp_tmpfs_size;
  const char *start_dir; /* "home" or "project", for explain */
  const char *state;     /* "tmpfs", "persistent" or "none", for explain */
  bool home_read_only;   /* state = "tmpfs": the home's top read-only (bwsh_plan_home_read_only()) */
  /* A kept state's closure (docs/security.md, "The home"): home_oldest is
   * the earliest home epoch of the user's live sessions (ns since the
   * epoch; INT64_MAX: none; BWSH_HOME_OLDEST_UNKNOWN: the registry cannot be
   * read), less the clocks' slack, set by the session before resolution; a
   * real top-level entry born since is not bound over the kept state.  home_epoch is this
   * session's, for its registry entry: no later than the listing of the
   * home nor the birth of any entry it left out. */
  int64_t home_oldest;
  int64_t home_epoch;
  int64_t rlimit_core;
  int64_t rlimit_nproc;
  int64_t rlimit_nofile;
  size_t n_refused;
  bool strict;
  unsigned max_mounts; /* mounts that may reach bwrap; resolution cuts user binds past it */
  /* The rules resolution re-checks resolved sources against, expanded for
   * this user (read-write and read-only ceilings, protected paths). */
  char **rw_ceilings;
  size_t n_rw_ceilings;
  char **ro_ceilings;
  size_t n_ro_ceilings;
  char **protected_paths;
  size_t n_protected;
  char **policy_dirs;  /* directories holding a policy file: never an overlay source */
  size_t n_policy_dirs;
  char *shell_file;    /* where the policy set the shell, for its error; NULL: the default */
  int shell_line;
  BwshDiag diag;     /* one warning per refusal/skip, "PATH: reason" */
  uid_t uid;         /* the user's: a persistent state directory must be theirs */
} BwshPlan;

#define BWSH_HOME_OLDEST_UNKNOWN INT64_MIN

BwshPlan *bwsh_plan_free (BwshPlan *p);

/* The kept state cannot be used after all (a session bwsh cannot register,
 * so no later login would know what it leaves out): the session's state
 * becomes a tmpfs, as for an unusable state_dir, with a warning saying @why.
 * 1 when it changed the plan, 0 when the state was not kept. */
int bwsh_plan_state_to_tmpfs (BwshPlan *p, const char *why);

/* The pure part: identity, policy and overlay to a plan with verdicts.  No
 * filesystem access beyond reading /etc/resolv.conf's link, probing the
 * host's /bin,/lib* layout and listing $HOME (each entry opened O_PATH, to be
 * bound read-only over the session's state), run as the user.  @envp is the caller's environment, filtered
 * through the allow-list. */
int bwsh_plan_build (const BwshIdentity *id, const BwshPolicy *pol, const BwshUserConfig *uc,
                     char *const *envp, BwshPlan **ret, BwshError *err);

typedef enum
{
  BWSH_RESOLVE_CREATE = 0, /* a session: create what the plan needs (0700, as the user) */
  BWSH_RESOLVE_DRY_RUN,    /* explain/check: create nothing, say what would be created */
} BwshResolveMode;

/* The I/O part, run as the user: resolve each accepted bind's source,
 * re-check the resolved path against the same rules, open it with
 * bwsh_open_path_nofollow() and keep the fd.  A missing source becomes
 * SKIPPED with a warning; a resolved path that breaks a rule becomes REFUSED.
 * Then binds a parent bind already shows become COALESCED, max_mounts cuts
 * the user's binds that still reach bwrap, and if RLIMIT_NOFILE (soft raised
 * up to hard) cannot hold an fd per bind, the last user binds are REFUSED
 * with one warning, or -EMFILE if the others alone do not fit.
 * In strict mode any refusal fails with -EPERM.  In a dry run a directory the
 * plan would create is resolved as if it existed, and nothing is opened. */
int bwsh_plan_resolve (BwshPlan *p, BwshResolveMode mode, BwshError *err);

/* The plan's inner shell exists and is executable; the error names the
 * policy file and line that set it.  Part of bwsh_plan_resolve(). */
int bwsh_plan_check_shell (const BwshPlan *p, BwshError *err);

/* True when @entry ("NAME" or "NAME=VALUE") is one of the variables the
 * session sets from NSS and the policy (HOME, USER, LOGNAME, SHELL, PATH). */
bool bwsh_env_is_session_variable (const char *entry);

/* The names of the plan's enums (names.c). */
const char *bwsh_mount_kind_to_string (BwshMountKind k);
const char *bwsh_verdict_to_string (BwshVerdict v);

/* True when @term is a terminal name a session's TERM may carry (and its
 * recorder record): 1 to 64 of [A-Za-z0-9._+-], starting alphanumeric.
 * Another client TERM becomes "dumb" (BwshPlan.term_fallback). */
bool bwsh_term_is_name (const char *term);
