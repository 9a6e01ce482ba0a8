/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: policy (policy.c, policy_*.c). */
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
  BWSH_NET_PRIVATE,    /* a new namespace with user-mode egress (the default) */
} BwshNetMode;

/* network_engine: what gives a private network its egress (#27). */
typedef enum
{
  BWSH_NET_ENGINE_PASTA = 0,  /* refused at the session's start (#33): its connections cannot be checked */
  BWSH_NET_ENGINE_SLIRP4NETNS, /* IPv4 only, ~2 MB a session (the default since #33) */
} BwshNetEngine;

/* record: interactive sessions recorded with tlog-rec, outside the sandbox
 * (core/launch/record.c). */
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

/* One name of an enum setting and its value; a table ends with { NULL, 0 }. */
typedef struct BwshEnumName
{
  const char *name;
  int value;
} BwshEnumName;

/* The name of @value in @names, "?" for none; @value for @name, or -EINVAL. */
const char *bwsh_enum_to_string (const BwshEnumName *names, int value);
int bwsh_enum_from_string (const BwshEnumName *names, const char *name, int *ret);

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
  BwshNetEngine net_engine;
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
  BwshBindList lock_groups;  /* lock_groups (#39): a subject in one of these is locked */
  char *lock_reason;         /* what a user of a lock group is told; NULL: "no reason given" */
  int lock_group;            /* resolved: the index in lock_groups that locks the identity, -1: none */
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

/* The names of the enum settings: one table each in policy.c, in the order
 * the docs and the parser's message give them; the schema row, the parser
 * (bwsh_policy_key_enum), these to-strings and the docs check all read it. */
const char *bwsh_run_mode_to_string (BwshRunMode m);
const char *bwsh_dev_mode_to_string (BwshDevMode m);
const char *bwsh_net_mode_to_string (BwshNetMode m);
const char *bwsh_net_engine_to_string (BwshNetEngine e);
const char *bwsh_record_mode_to_string (BwshRecordMode m);
const char *bwsh_start_dir_to_string (BwshStartDir d);
const char *bwsh_state_mode_to_string (BwshStateMode m);
const char *bwsh_user_config_mode_to_string (BwshUserConfigMode m);
const char *bwsh_landlock_mode_to_string (BwshLandlockMode m);

/* Every setting of the schema, groups flattened ("landlock.mode"); @choices
 * is the enum setting's table ({ NULL, 0 }-terminated), NULL for the
 * others; @offset its field in BwshPolicy.  Stops at @fn's first negative
 * return and returns it.  For the docs check and tests. */
typedef int (*BwshSettingFn) (const char *name, const BwshEnumName *choices, size_t offset, void *userdata);
int bwsh_policy_settings_foreach (BwshSettingFn fn, void *userdata);

/* The policy file, fixed at build time (config.h): policy_load.c. */
const char *bwsh_policy_path (void);
