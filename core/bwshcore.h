/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bwsh core: identity, policy, user overlay, validation, the plan, rendering.
 *
 * Data flows one way:
 *
 *   identity -> policy -> user overlay -> plan -> render -> exec bwrap / verdict / explain
 *
 * Everything here returns 0 or a negative errno and, on failure, fills a
 * BwshError.  Nothing here prints, exits or calls die(): the front ends do.
 * Warnings that do not stop a session (a refused entry, a missing source)
 * are collected in a BwshDiag so each front end reports them its own way.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

/* ------------------------------------------------------------------ errors */

#define BWSH_MESSAGE_MAX 512

/* Which step of a session failed, the way bubblewrap's bind_mount() results
 * name theirs.  bwsh_error_to_string() is the one place that turns a code
 * into words; the message then says what went wrong in that step. */
typedef enum
{
  BWSH_ERROR_NONE = 0,    /* no step to name: the message says it all */
  BWSH_ERROR_IDENTITY,    /* NSS does not know the user */
  BWSH_ERROR_POLICY,      /* the policy is unreadable, unsafe or invalid */
  BWSH_ERROR_SERVICE,     /* pam_bwsh: a service that never runs the login shell */
  BWSH_ERROR_SHELL,       /* pam_bwsh: require_shell and the passwd shell is not bwsh */
  BWSH_ERROR_PRIVILEGES,  /* cannot become the user, or come back */
  BWSH_ERROR_USER_CONFIG, /* the overlay cannot be read at all */
  BWSH_ERROR_PLAN,        /* the plan cannot be built */
  BWSH_ERROR_HOME,        /* the home directory is missing */
  BWSH_ERROR_PROJECT_DIR, /* the project directory cannot be created */
  BWSH_ERROR_RESOLVE,     /* resolution refused the plan (strict, swapped default) */
  BWSH_ERROR_LAUNCH,      /* between the plan and the exec of bwrap */
  BWSH_ERROR_NETWORK,     /* the private network cannot start on this host (no pasta, no usable tun) */
  BWSH_ERROR_LOCKED,      /* admission: bwshctl lock, or a lock that cannot be read */
  BWSH_ERROR_LIMIT,       /* admission: max_sessions, or sessions that cannot be counted */
  BWSH_ERROR_RECORD,      /* record = "required" and the recorder cannot run */
} BwshErrorCode;

typedef struct BwshError
{
  BwshErrorCode code;
  int errnum;      /* the positive errno of the failure, 0 = unknown */
  char file[4096]; /* PATH_MAX: the file the error is about, or "" */
  int line;        /* 1-based, 0 = unknown */
  int column;      /* 1-based, 0 = unknown */
  char message[BWSH_MESSAGE_MAX];
} BwshError;

/* Fill @err (may be NULL) and return @r, which must be a negative errno.
 * The step (code) is left as it was: the session names it. */
int bwsh_error_set (BwshError *err, int r, const char *file, int line, int column,
                    const char *fmt, ...) __attribute__ ((format (printf, 6, 7)));

/* Name the step of a failure @r: sets @err's code, and when the lower layer
 * left no message (out of memory, a bare errno), the errno's text.  So a
 * failure is never reported with nothing after the colon.  Returns @r. */
int bwsh_error_step (BwshError *err, BwshErrorCode code, int r);

/* The step's words ("the sandbox policy cannot be used"), or NULL for NONE. */
const char *bwsh_error_code_to_string (BwshErrorCode code);

/* A plain decimal in [@min, @max]: digits only (no blanks, no sign, which
 * strtol() would take), nothing after them.  0 or -EINVAL; @ret untouched
 * on failure. */
int bwsh_parse_decimal (const char *s, long min, long max, long *ret);

/* The one formatter: "STEP: FILE:LINE:COL: message", each part only when
 * known, never the file's content.  NULL only when out of memory. */
char *bwsh_error_to_string (const BwshError *err);

/* "FILE:LINE:COL: ", "FILE:LINE: ", "FILE: " or "" for @from (a source
 * position); NULL only when out of memory. */
char *bwsh_source_prefix (const char *file, int line, int column);

typedef struct BwshDiag
{
  char **lines; /* one human line each: "PATH: reason" or "FILE:LINE:COL: ..." */
  size_t n;
  size_t cap;
} BwshDiag;

int bwsh_diag_add (BwshDiag *d, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
void bwsh_diag_clear (BwshDiag *d);

/* A copy of @s (of @len bytes) safe to print on one log line: control
 * characters, quotes, backslashes and bytes >= 0x7f become \xNN escapes, and
 * the copy is cut with "..." at BWSH_ESCAPE_MAX characters, escapes counted,
 * so that it fits in a message with room left for the reason.  Never NULL
 * unless out of memory. */
#define BWSH_ESCAPE_MAX 256
char *bwsh_escape (const char *s, size_t len);
/* The same for what an administrator's terminal shows, whole: the escaped
 * form of a path or name the user chose (lossless: backslashes and quotes
 * escaped too, so it reads back to the exact bytes), and of a message, whose
 * data is escaped already (only what a terminal acts on, C0, DEL and bytes
 * >= 0x80, becomes \xNN).  A string with nothing to escape is copied as is. */
char *bwsh_escape_data (const char *s);
char *bwsh_escape_message (const char *s);

/* ------------------------------------------------------------------ limits */

/* The user overlay is small by nature; 64 KiB caps parser work and memory. */
#define BWSH_USER_CONFIG_MAX (64 * 1024)
/* Policy files are bigger, but still not unbounded. */
#define BWSH_POLICY_FILE_MAX (1024 * 1024)
/* bwrap refuses more than 9000 arguments (MAX_ARGS, against CVE-2017-5226-era
 * argument floods); a mount is at most 3 args, so 1024 entries stay far below it.
 * The policy lowers this further (max_mounts, default 256) because bwrap's
 * start-up cost grows quadratically with the number of binds. */
#define BWSH_ENTRIES_MAX 1024
#define BWSH_DEFAULT_MAX_MOUNTS 256
/* RLIMIT_NPROC counts every task (threads too) of the user's real uid on the
 * host, across all their sessions; bwrap's user namespace keeps the limit set
 * before it.  Inherited, it is threads-max / 2 (96363 on a 2-core, 6 GiB
 * host): a fork bomb fills the pid space and the RAM before it stops.  1024
 * leaves room for a build with make -j and a language server in each of a few
 * sessions, and stops a fork bomb after 1024 tasks; the policy raises it. */
#define BWSH_DEFAULT_NPROC 1024
/* max_sessions is a count of logins, not of processes. */
#define BWSH_MAX_SESSIONS_MAX 100000
/* One environment value may not exceed this; ARG_MAX is shared by all of them. */
#define BWSH_ENV_VALUE_MAX (32 * 1024)

/* ------------------------------------------------------------------ paths */

typedef enum
{
  BWSH_PATH_OK = 0,
  BWSH_PATH_EMPTY,
  BWSH_PATH_RELATIVE,
  BWSH_PATH_DOTDOT,
  BWSH_PATH_CONTROL_CHAR,
  BWSH_PATH_TOO_LONG,
  BWSH_PATH_COMPONENT_TOO_LONG,
} BwshPathStatus;

/* Normalise an absolute path: fold "//", drop "/./" and a trailing "/".
 * Refuses "..", control characters (including newline and tab), relative
 * paths and paths longer than PATH_MAX - 1. */
BwshPathStatus bwsh_path_normalize (const char *in, char **ret_out);
const char *bwsh_path_status_to_string (BwshPathStatus s);

/* True when @path equals @prefix or lies below it, compared element by
 * element: "/home/al" is not under "/home/a".  Both must be normalised. */
bool bwsh_path_has_prefix (const char *path, const char *prefix);
/* bwsh_path_has_prefix() against any of @n @prefixes. */
bool bwsh_path_under_any (const char *path, char *const *prefixes, size_t n);

/* Expand a policy template: "~" or "~/x" relative to @home, "$HOME" too.
 * The result is normalised.  Returns 0 or -EINVAL. */
int bwsh_path_expand (const char *tmpl, const char *home, char **ret_path);

/* Paths that must never be a source or destination of a user bind,
 * nor any path under them: "/", "/proc", "/dev", "/sys". */
bool bwsh_path_is_forbidden (const char *normalized);

/* Number of path elements: "/" is 0, "/a/b" is 2.  Used to order mounts. */
size_t bwsh_path_depth (const char *normalized);

/* ------------------------------------------------------------------ rules */

/* True when @path (normalised) lies where the host keeps IPC endpoints or
 * other users' data: /run, /var/run, /tmp, /var/tmp, /dev/shm, /var/spool,
 * /var/mail, /var/log, /root, /home, or beside @home in its parent, unless
 * it is @home itself or below it.  Compared element by element. */
bool bwsh_path_is_host_ipc_source (const char *path, const char *home);

/* Why an overlay bind may not use @path as its source (host IPC, other
 * users' data, a directory holding a policy file), or NULL.  For the path
 * as written and as resolved; a policy bind is trusted and never asks, and
 * a policy ceiling (@ceilings, the ones that apply to this bind) set
 * inside one of those places grants it. */
const char *bwsh_rules_overlay_source (const char *path, const char *home, char *const *policy_dirs,
                                       size_t n_policy_dirs, char *const *ceilings, size_t n_ceilings);

/* Why an overlay source of file type @mode (from fstat on its O_PATH fd)
 * is refused: a socket, FIFO or device node.  NULL for files and dirs. */
const char *bwsh_rules_source_type (mode_t mode);

/* The first of @protected_paths that @path is, lies in or contains
 * (compared element by element), skipping one equal to @except; NULL when
 * none.  The overlay's directory and a state_dir must not overlap one. */
const char *bwsh_rules_overlaps_protected (const char *path, char *const *protected_paths, size_t n_protected,
                                           const char *except);

/* NULL when @dir may hold a session's persistent state (policy state_dir),
 * else why not: it must never be a place that programs outside the sandbox
 * read ($HOME and above, ~/.config, ~/.local/share, ~/.local/bin, /etc, /usr,
 * /run, /tmp, ..., a protected path, one of their parents), nor overlap the
 * project directory.  @protected_paths and @project may be empty/NULL. */
const char *bwsh_state_dir_refusal (char *const *protected_paths, size_t n_protected, const char *home,
                                    const char *project, const char *dir);

/* The built-in protected set: what programs outside the sandbox read.
 * Never writable inside, even under a read-write parent, even before it
 * exists (@is_dir picks the placeholder: an empty directory or file). */
typedef struct BwshProtectedDefault
{
  const char *tmpl;
  bool is_dir;
  bool state_owned; /* below a state name: the state's copy, not the real one */
} BwshProtectedDefault;

extern const BwshProtectedDefault bwsh_protected_defaults[];
extern const size_t bwsh_n_protected_defaults;

/* --------------------------------------------------------------- identity */

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

/* ----------------------------------------------------------- safe opening */

typedef enum
{
  BWSH_OWNER_USER,         /* must be owned by @uid */
  BWSH_OWNER_ROOT,         /* must be owned by root */
  BWSH_OWNER_ROOT_OR_USER, /* either */
} BwshOwnerRule;

/* Open @path O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC, check it is a regular
 * file with the owner rule, not group/world-writable, at most @max_size
 * bytes, and read it whole (NUL-terminated).  -ENOENT when missing.  The
 * error never quotes the file's content. */
int bwsh_read_file_checked (const char *path, BwshOwnerRule rule, uid_t uid, size_t max_size,
                            char **ret_data, size_t *ret_len, BwshError *err);

/* True when someone other than @uid may write the file @st describes: it
 * is world-writable, or group-writable by any group but @uid's own private
 * group (its primary group, of its name, with nobody else in it). */
bool bwsh_writable_by_others (const struct stat *st, uid_t uid);

/* Check that @path and each parent directory up to "/" are owned by root
 * (or @uid where the rule allows it) and not group/world-writable, the way
 * OpenSSH's safe_path() does. */
int bwsh_check_path_trusted (const char *path, BwshOwnerRule rule, uid_t uid, BwshError *err);

/* For bwshctl run inside a sandbox, and for nothing that decides: when
 * this process's user namespace does not map uid 0 (bwsh's sandbox maps
 * only the user), root's files show as the overflow uid (nobody) and "/"
 * is the sandbox's own tmpfs.  Then, for the rest of the process, the
 * overflow uid counts as root, and directories owned by the caller (the
 * sandbox's tmpfs skeleton, "/" first) are accepted on the way, so that
 * `bwshctl check` and `explain` can read the read-only policy inside.
 * Neither decides anything: the next login re-reads everything outside,
 * with the full checks.  Sets *@ret_inside; 0 or -errno. */
int bwsh_trust_unmapped_root (bool *ret_inside);

/* uid 0, or the overflow uid once bwsh_trust_unmapped_root() found the
 * process inside a sandbox: root's, for the readers of root's files. */
bool bwsh_uid_is_root (uid_t uid);

/* Open the already-resolved, normalised @path one element at a time from "/",
 * with O_PATH|O_NOFOLLOW|O_CLOEXEC on each: a symlink anywhere in it, even
 * one swapped in after validation, fails with -ELOOP/-ENOTDIR. */
int bwsh_open_path_nofollow (const char *resolved, int *ret_fd);

/* Create @path (an absolute path under @home) and its missing parents up to
 * @home with mode 0700, refusing to follow symlinks on the way. */
int bwsh_mkdir_under_home (const char *home, const char *path, BwshError *err);
/* The same walk, creating nothing: *ret_would_create tells whether
 * bwsh_mkdir_under_home() would create something; the errors are the ones it
 * would fail with (an element that is a symlink or not a directory). */
int bwsh_mkdir_under_home_dry_run (const char *home, const char *path, bool *ret_would_create, BwshError *err);

/* A memfd holding @data, sealed against any change and positioned at 0, so
 * whoever holds the fd (bwrap) reads exactly what was written. O_CLOEXEC. */
int bwsh_sealed_memfd (const char *name, const void *data, size_t len, int *ret_fd);

/* ------------------------------------------------------------------ policy */

typedef enum
{
  BWSH_ORIGIN_DEFAULT = 0,
  BWSH_ORIGIN_USER = 1,
  BWSH_ORIGIN_POLICY = 2, /* higher wins on the same destination */
} BwshOrigin;

typedef struct BwshSource
{
  BwshOrigin origin;
  char *file; /* NULL for built-in defaults */
  int line;
  int column;
} BwshSource;

/* A path or a bind.  For a plain path list only @src is set. */
typedef struct BwshBindSpec
{
  char *src;
  char *dst; /* NULL means same as src */
  BwshSource from;
} BwshBindSpec;

typedef struct BwshBindList
{
  BwshBindSpec *items;
  size_t n;
  size_t cap;
} BwshBindList;

int bwsh_bind_list_add (BwshBindList *l, const char *src, const char *dst, const BwshSource *from);
int bwsh_bind_list_copy (BwshBindList *dst, const BwshBindList *src);
void bwsh_bind_list_clear (BwshBindList *l);
bool bwsh_bind_list_contains (const BwshBindList *l, const char *src);

typedef enum
{
  BWSH_RUN_TMPFS = 0, /* fresh tmpfs /run plus the resolv.conf directory */
  BWSH_RUN_HOST,      /* the seed's host /run, read-only (sockets stay connectable) */
} BwshRunMode;

typedef enum
{
  BWSH_DEV_MINIMAL = 0, /* --dev /dev */
  BWSH_DEV_HOST,        /* --dev-bind /dev /dev */
} BwshDevMode;

typedef enum
{
  BWSH_NET_SHARED = 0, /* the host's network namespace: its loopback, its abstract sockets */
  BWSH_NET_NONE,       /* a new namespace with loopback only */
  BWSH_NET_PRIVATE,    /* a new namespace with user-mode egress through pasta (the default) */
} BwshNetMode;

/* record: interactive sessions recorded with tlog-rec, outside the sandbox
 * (core/record.c). */
typedef enum
{
  BWSH_RECORD_OFF = 0,  /* nothing recorded */
  BWSH_RECORD_TTY,      /* recorded when tlog-rec can run; else the session runs and its event says so */
  BWSH_RECORD_REQUIRED, /* recorded, or refused */
} BwshRecordMode;

/* Where a session starts.  OpenSSH clients resolve relative paths (scp,
 * sftp, rsync, git) against the home directory, so that is the default. */
typedef enum
{
  BWSH_START_HOME = 0,
  BWSH_START_PROJECT,
} BwshStartDir;

/* Where the shell's own state (history, caches, ~/.gitconfig, pip --user)
 * goes.  Never into the real home: $HOME inside is the state, with the real
 * home's entries bound read-only on top of it. */
typedef enum
{
  BWSH_STATE_TMPFS = 0, /* a per-session tmpfs: nothing persists */
  BWSH_STATE_PERSISTENT,/* the policy's state_dir */
  BWSH_STATE_NONE,      /* the seed's read-only $HOME, nothing writable but the project */
} BwshStateMode;

typedef enum
{
  BWSH_USER_CONFIG_EDITABLE = 0, /* its directory is writable inside; applies at the next login */
  BWSH_USER_CONFIG_READONLY,     /* read at login, read-only inside */
  BWSH_USER_CONFIG_OFF,          /* never read */
} BwshUserConfigMode;

typedef enum
{
  BWSH_LANDLOCK_BEST_EFFORT = 0,
  BWSH_LANDLOCK_REQUIRED,
  BWSH_LANDLOCK_OFF,
} BwshLandlockMode;

#define BWSH_RLIMIT_UNSET ((int64_t) -2)
#define BWSH_RLIMIT_INFINITY ((int64_t) -1)

typedef struct BwshPolicy
{
  char *shell;               /* inner shell, absolute path */
  char *project_dir;         /* template, "~/project" */
  bool user_may_choose_project;
  char *user_config;         /* template, "~/.config/bwsh/config.json" */
  bool user_overlay_allowed;
  BwshUserConfigMode user_config_mode;
  BwshSource shell_from;     /* where "shell" was set; file NULL for the default */
  BwshRunMode run_mode;
  BwshDevMode dev_mode;
  BwshNetMode net_mode;
  BwshRecordMode record_mode;
  uint64_t root_tmpfs_size;  /* bytes, 0 = bwrap's default */
  uint64_t tmp_tmpfs_size;   /* /tmp, /var/tmp, /dev/shm and the state tmpfs */
  BwshStartDir start_dir;
  BwshStateMode state_mode;
  char *state_dir;           /* template, "%u" is the user name; for BWSH_STATE_PERSISTENT */
  BwshBindList rw_ceilings;  /* templates; read-write binds only under these */
  BwshBindList ro_ceilings;  /* empty = anything not forbidden */
  BwshBindList protected_paths; /* templates; never writable inside */
  BwshBindList locked;       /* destinations users cannot disable */
  BwshBindList ro_binds;     /* administrator-forced */
  BwshBindList rw_binds;
  BwshBindList env_allow;    /* extra variable names (src only); "LC_*" style globs allowed */
  int64_t rlimit_core;       /* BWSH_RLIMIT_UNSET, _INFINITY or a value */
  int64_t rlimit_nproc;
  int64_t rlimit_nofile;
  bool strict;
  char *hostname;            /* NULL = keep bwrap's (a fresh uts namespace) */
  unsigned max_mounts;
  unsigned max_sessions;     /* live sessions per user (pam_bwsh), 0 = no limit */
  /* session module (pam_bwsh) */
  bool subject_all;          /* everybody is a subject */
  BwshBindList subject_users;
  BwshBindList subject_groups;
  bool is_subject;           /* resolved for the identity the policy was loaded for */
  BwshBindList match_users;  /* every "match" block's user names, with file:line, */
  BwshBindList match_groups; /* applied or not (for bwsh_nss_check) */
  bool require_shell;
  BwshBindList refused_services;
  BwshBindList allowed_services; /* beyond sshd, login, su, su-l, runuser-l */
  /* landlock (#9) */
  BwshLandlockMode landlock;
  bool landlock_mode_set;    /* landlock.mode written in the policy (#14: shared needs it) */
  bool scope_abstract_unix;
  bool scope_signal;
  BwshBindList tcp_connect;  /* port numbers as strings; meaningful when tcp_connect_set:
                              * unset = unrestricted, set and empty = nothing allowed */
  BwshBindList tcp_bind;
  bool tcp_connect_set;
  bool tcp_bind_set;
  BwshBindList files;        /* every policy file read, for explain */
} BwshPolicy;

/* Built-in defaults; equal to the shipped conf/bwsh.conf. */
int bwsh_policy_new_defaults (BwshPolicy **ret);
BwshPolicy *bwsh_policy_free (BwshPolicy *p);

/* Read @path (the main policy) and the files matching conf.d/NAME.conf beside it in lexical
 * order, then apply the match blocks that fit @id.  A missing main file means
 * built-in defaults.  A file that is not root-owned, or whose directory chain
 * is group/world-writable, is refused with -EPERM.  Parse errors carry the
 * file and line. */
int bwsh_policy_load (const char *path, const BwshIdentity *id, BwshPolicy **ret, BwshError *err);

/* Parse one policy buffer on top of @p (used by load, the fuzzer and tests).
 * @dir confines @include. */
int bwsh_policy_parse_buffer (BwshPolicy *p, const char *buf, const char *filename,
                              const char *dir, const BwshIdentity *id, BwshError *err);

/* ------------------------------------------------------- names and NSS */

/* One user or group name the policy uses to choose whom it concerns. */
typedef struct BwshNssName
{
  char *name;
  bool is_group;
  const char *key;  /* "subjects.users", "subjects.groups", "match.user", "match.group" */
  BwshSource from;  /* where the name is written */
  int lookup;       /* 0: NSS knows it; -ENOENT: NSS does not; other -errno: the lookup failed */
  long members;     /* groups, with @resolve: how many users hold it; -1 otherwise */
} BwshNssName;

typedef struct BwshNssReport
{
  BwshNssName *items; /* each name once, in policy order: subjects, then match blocks */
  size_t n;
  size_t n_unknown;   /* items whose lookup is not 0 */
} BwshNssReport;

/* Look up through NSS every user and group name of @p's "subjects" and of
 * its "match" blocks: a name NSS does not know confines nobody, so it is
 * most likely a typo.  With @resolve, count the users of each group: its
 * member list (SSSD flattens nested groups into it) plus the accounts NSS
 * enumerates whose primary group it is (SSSD enumerates no directory users
 * unless "enumerate = true", so those are local accounts).  The report
 * borrows its file names from @p: clear it before freeing @p.  Never prints. */
int bwsh_nss_check (const BwshPolicy *p, bool resolve, BwshNssReport *ret, BwshError *err);
void bwsh_nss_report_clear (BwshNssReport *r);

/* ------------------------------------------------------------ user overlay */

typedef struct BwshUserConfig
{
  BwshBindList ro_binds;       /* additionalROBinds */
  BwshBindList rw_binds;       /* additionalBinds */
  BwshBindList disabled;       /* disabledDefaultBinds */
  char *project_dir;           /* preferences.sandboxProjectDir, or NULL */
  BwshSource project_dir_from;
  char *file;
} BwshUserConfig;

BwshUserConfig *bwsh_user_config_free (BwshUserConfig *uc);

/* Parse the overlay from memory.  Bad entries are warned about in @diag
 * (file, line, column and the entry) and skipped; a document that is not
 * JSON, or not an object, fails with -EINVAL and a position in @err. */
int bwsh_user_config_parse (const char *buf, size_t len, const char *filename,
                            BwshUserConfig **ret, BwshDiag *diag, BwshError *err);

/* Read @path safely as @uid (see bwsh_read_file_checked) and parse it.
 * A missing file gives an empty overlay and returns 0.  A file that exists
 * but is unsafe or broken gives an empty overlay, a warning in @diag, and 0:
 * the seed's "bad file means no additions".  Only allocation failure fails. */
int bwsh_user_config_load (const char *path, uid_t uid, BwshUserConfig **ret, BwshDiag *diag,
                           BwshError *err);

/* -------------------------------------------------------------------- plan */

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

typedef struct BwshNamespaceInfo
{
  const char *name;          /* "user", "net", ... (explain, JSON) */
  const char *bwrap_option;  /* "--unshare-user", ... */
  bool if_supported;         /* bwrap's -try variant: skipped where the kernel lacks it */
} BwshNamespaceInfo;

const BwshNamespaceInfo *bwsh_namespace_info (BwshNamespace ns);

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
  bool unshare[_BWSH_NS_MAX];
  bool disable_userns;
  BwshNetMode network;
  BwshRecordMode record;
  BwshLandlockRequest landlock;
  BwshSeccompChoice seccomp;
  uint64_t root_tmpfs_size; /* bytes, 0 = bwrap's default */
  uint64_t tmp_tmpfs_size;
  const char *start_dir; /* "home" or "project", for explain */
  const char *state;     /* "tmpfs", "persistent" or "none", for explain */
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

BwshPlan *bwsh_plan_free (BwshPlan *p);

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

/* A stable digest of what the plan does (mounts with verdicts, shell,
 * working directory, namespaces, network, Landlock, seccomp, limits, the
 * session's fixed variables): 64 hex characters plus NUL.  The variables
 * passed through from the caller are left out on purpose: pam_bwsh computes
 * the digest at session open, before sshd sets SSH_TTY and friends, and the
 * same plan must give the same digest in bwsh. */
void bwsh_plan_digest (const BwshPlan *p, char ret_hex[65]);

/* True when @entry ("NAME" or "NAME=VALUE") is one of the variables the
 * session sets from NSS and the policy (HOME, USER, LOGNAME, SHELL, PATH). */
bool bwsh_env_is_session_variable (const char *entry);

/* SHA-256 of @data as 64 lowercase hex characters plus NUL (FIPS 180-4). */
void bwsh_sha256_hex (const void *data, size_t len, char ret_hex[65]);

/* ------------------------------------------------------------------ render */

typedef struct BwshArgv
{
  char **v;   /* NULL-terminated */
  size_t n;
  size_t cap;
} BwshArgv;

int bwsh_argv_add (BwshArgv *a, const char *s);
void bwsh_argv_clear (BwshArgv *a);

typedef enum
{
  BWSH_RENDER_FDS = 0,  /* --ro-bind-fd N: what bwsh execs */
  BWSH_RENDER_PATHS,    /* --ro-bind SRC: a command an administrator can run */
} BwshRenderMode;

/* The bwrap options of the plan (everything that goes into --args), without
 * "--" and the command.  @seccomp_fd < 0 leaves out --seccomp. */
int bwsh_render_options (const BwshPlan *p, BwshRenderMode mode, int seccomp_fd, BwshArgv *ret);

/* The inner command after "--": shell, and its -l / -c CMD NAME ARGS. */
typedef struct BwshCommand
{
  bool login;
  bool has_command;
  const char *command;     /* -c CMD */
  char *const *args;       /* NAME ARGS..., may be NULL */
  size_t n_args;
  const char *recorder;    /* tlog-rec, which the launch runs bwrap under; NULL: not recorded */
  const char *term;        /* TERM of the recording (tlog's "term"), may be NULL */
  int status_fd;           /* bwrap's --json-status-fd: the session's status file (audit.h), or in a
                            * recorded session the pipe on which the launch that forked this process
                            * learns that bwrap started, and which it copies to that file
                            * (shell/guard.c); 0 to 2: none */
} BwshCommand;

/* @cmd is the server side of a file transfer that sshd runs through the
 * login shell: scp -t/-f, sftp-server, rsync --server, git-*-pack. */
bool bwsh_command_is_file_transfer (const BwshCommand *cmd);

/* bwrap's argv from "--" on: the inner shell and @cmd.  A file transfer
 * with state = "tmpfs" gets a read-only $HOME before it (--remount-ro):
 * an upload outside the project would land in the session's tmpfs, report
 * success and be gone at logout; it fails with EROFS instead (issue 25). */
int bwsh_render_command (const BwshPlan *p, const BwshCommand *cmd, BwshArgv *ret);

/* A plan with entries of the user's, outside strict mode, is launched
 * guarded: bwsh runs bwrap as its child, and the inner command starts with
 * BWSH_STARTED_STUB, which writes a byte to BWSH_STARTED_FD once the sandbox
 * is set up.  When bwrap fails before that, bwsh starts the session again
 * without the user's entries (shell/guard.c): what no check foresaw never
 * locks the user out. */
#define BWSH_STARTED_FD 9
#define BWSH_STARTED_STUB "printf . >&9; exec 9>&-; exec \"$@\""
bool bwsh_plan_guards_setup (const BwshPlan *p);

/* ------------------------------------------------------------- recording */

/* What record = "tty" or "required" does for one session (core/record.c). */
typedef enum
{
  BWSH_RECORDING_OFF = 0,     /* record = "off" */
  BWSH_RECORDING_ON,          /* tlog-rec records the session's terminal */
  BWSH_RECORDING_COMMAND,     /* a command, or no terminal: not recorded; its event names the command */
  BWSH_RECORDING_UNAVAILABLE, /* record = "tty" and tlog-rec cannot run: the session runs unrecorded */
} BwshRecording;

/* tlog-rec's path, fixed at build time (-DBWSH_TLOG_REC_PATH), and the
 * helper that restricts a recorded session's bwrap (bwsh-landlock). */
const char *bwsh_tlog_rec_path (void);
const char *bwsh_landlock_helper_path (void);
const char *bwsh_recording_to_string (BwshRecording r);

/* Whether the session @cmd of @p is recorded: an interactive shell with a
 * terminal (@have_tty), under a policy that records.  With record =
 * "required", a recorder that cannot run is an error (BWSH_ERROR_RECORD);
 * with "tty", BWSH_RECORDING_UNAVAILABLE. */
int bwsh_recording_decide (const BwshPlan *p, const BwshCommand *cmd, bool have_tty, BwshRecording *ret,
                           BwshError *err);

/* The recording id tlog-rec gives its recording when it runs as process
 * @pid (tlog's TLOG_REC field and "rec" member): the boot id's hex digits,
 * the pid and the process's start time in clock ticks, in hex.  exec keeps
 * both, so the process that is about to exec tlog-rec knows it. */
#define BWSH_TLOG_REC_ID_MAX 64
int bwsh_tlog_rec_id (pid_t pid, char ret[BWSH_TLOG_REC_ID_MAX]);

/* The recorder's argv up to the program it records: tlog-rec writing to
 * the journal, then "--", then bwsh-landlock with @landlock_fd unless it is
 * -1.  bwrap's argv follows. */
int bwsh_render_recorder (const char *recorder, int landlock_fd, BwshArgv *ret);

/* Serialise @opts NUL-separated, as bwrap's --args expects. */
int bwsh_render_blob (const BwshArgv *opts, char **ret_blob, size_t *ret_len);

/* Shell-quote one word for display, the way a shell reads it back: '...', or
 * $'...' with \xNN escapes when it holds a byte a terminal acts on. */
char *bwsh_shell_quote (const char *s);

/* Human and JSON explanations of @p.  @refusal (NULL when the session
 * would run) is why a session with this plan would be refused.  A value JSON
 * cannot carry (not UTF-8) fails with -EILSEQ and says which. */
int bwsh_explain_text (const BwshPlan *p, const BwshCommand *cmd, const char *refusal, char **ret, BwshError *err);
int bwsh_explain_json (const BwshPlan *p, const BwshCommand *cmd, const char *refusal, char **ret, BwshError *err);

const char *bwsh_mount_kind_to_string (BwshMountKind k);
const char *bwsh_verdict_to_string (BwshVerdict v);
const char *bwsh_origin_to_string (BwshOrigin o);
const char *bwsh_net_mode_to_string (BwshNetMode m);
const char *bwsh_record_mode_to_string (BwshRecordMode m);

/* ----------------------------------------------------------------- seccomp */

/* Build the session filter with libseccomp and export it as BPF into a
 * sealed memfd positioned at 0, ready for bwrap --seccomp FD.  The fd is
 * O_CLOEXEC; the caller clears that for the exec. */
int bwsh_seccomp_build_fd (int *ret_fd, BwshError *err);

/* The same filter, compiled at build time by seccomp_gen and embedded: what
 * a session uses.  Same fd contract as bwsh_seccomp_build_fd(). */
int bwsh_seccomp_embedded_fd (int *ret_fd, BwshError *err);
extern const unsigned char bwsh_seccomp_bpf[];
extern const size_t bwsh_seccomp_bpf_len;

/* --------------------------------------------------------------- landlock */

typedef struct BwshLandlockReport
{
  int abi;                 /* 0 = unavailable */
  bool scoped_abstract;
  bool scoped_signal;
  bool tcp_connect;
  bool tcp_bind;
  char missing[256];       /* what best_effort left out, "" when nothing */
} BwshLandlockReport;

/* Apply the plan's Landlock request to the calling thread (just before the
 * exec of bwrap).  -EOPNOTSUPP when required and unavailable. */
int bwsh_landlock_apply (const BwshLandlockRequest *req, BwshLandlockReport *ret_report, BwshError *err);
/* The same in two steps, for a recorded session, whose recorder runs
 * unrestricted and whose bwrap is restricted by bwsh-landlock: the ruleset
 * (*ret_fd, O_CLOEXEC; -1 when there is nothing to restrict) and its
 * enforcement on the calling thread, with no_new_privs. */
int bwsh_landlock_ruleset (const BwshLandlockRequest *req, int *ret_fd, BwshLandlockReport *ret_report,
                           BwshError *err);
int bwsh_landlock_restrict (int ruleset_fd, BwshError *err);
int bwsh_landlock_probe (const BwshLandlockRequest *req, BwshLandlockReport *ret_report);
/* True when the policy's mode is the default best effort but its shared
 * network makes Landlock required (#14): only landlock.mode written in the
 * policy, "best_effort" or "off", lets such a session run without it. */
bool bwsh_landlock_required_by_network (const BwshPolicy *pol);

/* ----------------------------------------------------------------- session */

/* The one orchestration.  bwsh, pam_bwsh and bwshctl all prepare a session
 * here, so what explain shows is what bwsh runs, by construction:
 *
 *   identity -> policy -> [pam_bwsh: subject, service, shell]
 *   -> (as the user) overlay -> plan -> home -> [RUN: project directory]
 *   -> resolution
 *
 * RUN creates what a session needs and fails on the first refusal.
 * EXPLAIN and CHECK create nothing, resolve as far as they can, and report
 * every verdict: what a first login would create, what resolution would
 * refuse (BwshSession.refusal). */
typedef enum
{
  BWSH_SESSION_RUN = 0,
  BWSH_SESSION_EXPLAIN,
  BWSH_SESSION_CHECK,
} BwshSessionMode;

typedef struct BwshSessionRequest
{
  BwshSessionMode mode;
  const char *user;         /* by name (pam_bwsh, bwshctl --user), or NULL for @uid */
  uid_t uid;
  const char *policy_path;  /* NULL: the compiled-in one */
  const char *user_config;  /* EXPLAIN/CHECK: read this overlay instead of the policy's; it must exist */
  char *const *envp;        /* the caller's environment, filtered by the allow-list */
  bool pam;                 /* pam_bwsh: stop for non-subjects, check @service and the shell */
  pid_t session_pid;        /* bwsh: getpid(), to find pam_bwsh's registration (admission.h) */
  const char *service;      /* PAM_SERVICE */
  const char *bwsh_binary;  /* what require_shell compares the passwd shell with */
  /* Become the user for the steps that read the user's files, and come back
   * (pam_bwsh: pam_modutil_drop_priv; bwshctl as root: setresuid).  NULL
   * when the caller already is the user. */
  int (*become_user) (void *userdata, const BwshIdentity *id, BwshError *err);
  int (*become_caller) (void *userdata, BwshError *err);
  void *userdata;
} BwshSessionRequest;

typedef struct BwshSession
{
  BwshSessionMode mode;
  BwshIdentity *id;
  BwshPolicy *policy;
  char *user_config_path;       /* the overlay read, or NULL */
  BwshUserConfig *user_config;
  BwshPlan *plan;
  BwshDiag diag;                /* overlay warnings; the plan has its own */
  bool is_subject;              /* pam: false means "not confined, nothing else was done" */
  struct BwshAdmission *admission; /* the admission verdict (admission.h), once the policy is loaded */
  /* RUN: the policy could not be used (policy_error says why and where);
   * the last good copy decided (policy_last_good, saved at policy_saved),
   * or, with none, root and non-bwsh accounts were left alone (pam) or the
   * session refused.  The front end logs it at crit (lkg.h). */
  bool policy_fallback;
  bool policy_last_good;
  int64_t policy_saved;
  BwshError policy_error;
  /* EXPLAIN/CHECK: why RUN would refuse this session (code BWSH_ERROR_NONE
   * when it would run). */
  BwshError refusal;
} BwshSession;

/* Prepare a session.  Returns 0 or -errno with @err filled and its code
 * naming the step.  *ret is set in both cases once anything was loaded, so
 * that the front end can report every warning; free it with
 * bwsh_session_free(). */
int bwsh_session_prepare (const BwshSessionRequest *req, BwshSession **ret, BwshError *err);
BwshSession *bwsh_session_free (BwshSession *s);
static inline void
bwsh_session_freep (BwshSession **s)
{
  bwsh_session_free (*s);
}

/* The PAM services that run the login shell (sshd, login, su, ...): the
 * one list pam_bwsh's documentation and doctor's PAM checks use. */
const char *const *bwsh_login_services (size_t *ret_n);

/* True when the policy reads a user overlay at all (user_overlay and
 * user_config_mode != "off"). */
bool bwsh_policy_reads_overlay (const BwshPolicy *pol);

/* True when @service runs the login shell: sshd, login, su, su-l,
 * runuser-l, or one the policy's allowed_services names. */
bool bwsh_service_runs_login_shell (const BwshPolicy *pol, const char *service);

/* True when @service (PAM_SERVICE) is refused for subjects: it does not run
 * the login shell, or refused_services names it. */
bool bwsh_policy_refuses_service (const BwshPolicy *pol, const char *service);

/* The one definition of "this shell is bwsh", for pam_bwsh's require_shell
 * and every doctor check: @shell names @bwsh_binary, as written (normalised)
 * or after resolving symlinks.  A file merely called "bwsh" is not bwsh. */
bool bwsh_shell_is_bwsh (const char *shell, const char *bwsh_binary);

/* ---------------------------------------------------- what acts before it */

/* The variables that act on bwsh, bwrap or a shell before the sandbox
 * exists (core/scrub.c): a fnmatch() pattern and one name it matches. */
typedef struct BwshScrubEntry
{
  const char *pattern;
  const char *example;
} BwshScrubEntry;

const BwshScrubEntry *bwsh_env_scrub_list (size_t *ret_n);
/* True when pam_bwsh must remove @name from a subject's environment. */
bool bwsh_env_must_scrub (const char *name);
/* The first entry of the list that some name matching @pattern (an
 * AcceptEnv pattern: "*" and "?") falls under, or NULL when none does:
 * "LD_LIBRARY_PATH", "L*" and "*" all fall under "LD_*". */
const BwshScrubEntry *bwsh_env_pattern_scrubbed (const char *pattern);

/* ----------------------------------------------------------------- network */

/* network = "private": the helper program (bwsh-netns, under libexec) that
 * gives the sandbox's own network namespace its link to the outside through
 * pasta.  Spawned by bwsh_exec_plan() before the exec of bwrap; see
 * network.c and helpers/bwsh-netns.c. */
typedef struct BwshNetHelper
{
  pid_t pid;    /* the helper, a child of bwsh and so of bwrap after the exec */
  int info_fd;  /* bwrap --info-fd: the write end of the pipe the helper reads */
  int block_fd; /* bwrap --block-fd: the read end of the pipe the helper writes */
} BwshNetHelper;

/* Spawn the helper @helper_path for pasta @pasta_path.  It learns the
 * sandbox's pid from bwrap's --info-fd, starts pasta on that process's
 * network namespace, and releases bwrap's --block-fd only once pasta has
 * configured it; otherwise it kills the sandbox before anything runs in it.
 * Both fds in @ret are O_CLOEXEC. */
int bwsh_net_helper_start (const char *helper_path, const char *pasta_path, BwshNetHelper *ret,
                           BwshError *err);
/* Can pasta open the tun node for this user?  Without udev (minimal cloud
 * images, many containers) /dev/net/tun is crw------- root and every
 * private session would fail inside pasta; this says why, and the fix,
 * before anything starts.  Part of bwsh_net_helper_start(). */
#define BWSH_TUN_PATH "/dev/net/tun"
int bwsh_net_tun_check (BwshError *err);
/* "crw-------": a file's type and mode as ls shows them. */
void bwsh_mode_string (mode_t m, char ret[11]);
/* Append --info-fd and --block-fd for @h to bwrap's options @opts. */
int bwsh_net_bwrap_options (const BwshNetHelper *h, BwshArgv *opts);
/* Close bwsh's ends (the helper then exits without a word).  Idempotent. */
void bwsh_net_helper_close (BwshNetHelper *h);

/* The helper's command line: it serves bwsh (then bwrap's monitor) @parent. */
int bwsh_net_helper_argv (const char *helper_path, const char *pasta_path, pid_t parent, int info_fd,
                          int block_fd, BwshArgv *ret);
/* The pasta command line the helper runs for namespace files @netns and @userns. */
int bwsh_net_pasta_argv (const char *pasta_path, const char *netns, const char *userns, const char *ready,
                         BwshArgv *ret);

/* ---------------------------------------------------------------- launcher */

/* Everything between plan and exec, shared by bwsh and tests: build the
 * seccomp filter, write the --args blob into a memfd, apply rlimits and
 * Landlock, and execve() bwrap with an empty environment.  Returns only on
 * failure. */
int bwsh_exec_plan (const BwshPlan *p, const BwshCommand *cmd, const char *bwrap_path,
                    BwshError *err);

/* @path, a program bwsh starts, fixed at build time; in test builds only,
 * the environment variable @test_env may name another (a missing pasta,
 * one that fails; the helper of a build tree that is not installed).  An
 * installed build has no such knob. */
const char *bwsh_program_path (const char *test_env, const char *path);

/* Compile-time paths (config.h), exposed for bwshctl. */
const char *bwsh_bwrap_path (void);
const char *bwsh_pasta_path (void);
const char *bwsh_netns_helper_path (void);
const char *bwsh_policy_path (void);
