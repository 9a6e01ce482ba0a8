/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl doctor's parts: the command runner (doctor_run.c), the `sshd -T`
 * parser (doctor_sshd.c) and the PAM-stack walker (doctor_pam.c), apart from
 * the checks so that the parsers have unit tests (the bwshdoctor archive);
 * then the checks, by family: doctor.c (findings, the order of the checks,
 * the policy and the lock), doctor_sandbox.c, doctor_network.c,
 * doctor_record.c and doctor_services.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Output of the commands the doctor runs is small; anything larger is cut. */
#define CMD_OUTPUT_MAX (256 * 1024)
#define CMD_TIMEOUT_MS 10000
/* PAM stacks nest a few levels (@include common-session); more is a loop. */
#define PAM_DEPTH_MAX 8
#define PAM_LINE_MAX 4096

/* ------------------------------------------------------------- commands */

typedef struct
{
  char *out;
  size_t out_len;
  char *err;
  size_t err_len;
  int status;     /* waitpid() status */
  int exec_errno; /* the exec failed with this, 0 = ran */
  bool timed_out;
} CmdResult;

void cmd_result_clear (CmdResult *r);
bool cmd_succeeded (const CmdResult *r);
char *cmd_first_line (const CmdResult *r);
/* In a child: drop to @uid/@gid (groups first) when root.  0 or -errno. */
int drop_to (uid_t uid, gid_t gid);
int run_cmd (const char *const argv[], bool drop, uid_t uid, gid_t gid, CmdResult *ret);
/* The same, for a child that runs @fn(@data) after the drop instead: @fn
 * execs, or returns the errno of its failure (then in @ret->exec_errno).
 * stdin is /dev/null, stdout and stderr are captured. */
typedef int (*RunChildFn) (void *data);
int run_child (RunChildFn fn, void *data, bool drop, uid_t uid, gid_t gid, CmdResult *ret);
/* The fixed environment of every command the doctor runs. */
const char *const *run_environment (void);

/* ------------------------------------------------------------------ PAM */

typedef struct
{
  const char *service;
  size_t order;           /* session-phase modules seen so far */
  bool bwsh;              /* pam_bwsh.so as a session module */
  size_t bwsh_pos;
  bool bwsh_account;      /* pam_bwsh.so as an account module */
  bool common_session;    /* includes common-session*: pam-auth-update reaches it */
  bool readenv;           /* pam_env.so user_readenv=1 (auth or session) */
  size_t readenv_pos;     /* 0 for auth: before every session module */
  char *readenv_at;       /* FILE:LINE, NULL when out of memory */
  bool loop;
  /* The account stack up to pam_bwsh (account_may_end()): lines counted as
   * Linux-PAM counts jumps (includes inlined; a substack's own). */
  size_t acct_n;
  size_t substack;        /* depth of substacks being walked */
  size_t acct_jump_to;    /* the furthest line a jump before pam_bwsh reaches */
  char *acct_jump_at;     /* FILE:LINE (CONTROL MODULE) of that jump */
  char *acct_end_at;      /* the first line that ends the stack, or jumps, past pam_bwsh */
} PamStack;

void pam_stack_clear (PamStack *st);
const char *module_base (const char *path);
/* Walk ROOT/etc/pam.d/NAME (an absolute NAME as is, under ROOT), following
 * @include, include and substack, into @st.  -errno when NAME cannot be read. */
int walk_pam (const char *root, PamStack *st, const char *name, const char *type_filter, int depth);

/* ----------------------------------------------------------------- sshd */

typedef struct
{
  char **keys;
  char **values;
  size_t n;
} SshdConfig;

void sshd_config_clear (SshdConfig *c);
int sshd_config_parse (const char *out, SshdConfig *c);
const char *sshd_get (const SshdConfig *c, const char *key);
bool is_no (const char *v);

/* --------------------------------------------------------------- checks */

typedef enum
{
  LEVEL_OK,
  LEVEL_NOTE,
  LEVEL_WARNING,
  LEVEL_ERROR,
} Level;

typedef struct
{
  const char *root;  /* "" or a test build's --root */
  const char *sshd;  /* command */
  const char *bwrap; /* command */
  bool bwrap_overridden;
  const char *policy_path;
  const char *user;  /* --user */
  bool help;
  struct BwshIdentity *subject;
  struct BwshPolicy *policy;
  bool userns_ok;    /* the userns probe's bwrap ran as the probe identity */
  bool disable_userns;
  int warnings;
  int errors;
} Doctor;

/* doctor.c: one finding, printed as one escaped line (and its fix). */
void finding (Doctor *d, Level level, const char *fix, const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));
/* The path of a system file, below --root in a test build. */
char *at_root (const Doctor *d, const char *path);
/* First line of a small text file, without the newline.  NULL if unreadable
 * (errno set). */
char *read_first_line (const char *path);
/* Whom to try a sandbox as: the subject, the caller, or nobody. */
void probe_identity (const Doctor *d, uid_t *ret_uid, gid_t *ret_gid, const char **ret_name);

/* doctor_sandbox.c */
typedef struct
{
  bool present;
  bool disable_userns;
  bool ro_bind_fd;
} BwrapInfo;

typedef struct
{
  bool restricted;      /* apparmor_restrict_unprivileged_userns = 1 */
  bool profile_loaded;  /* the bwsh profile is in the kernel */
  bool profile_unknown; /* could not read the profile list */
} AppArmorInfo;

void check_bwrap (Doctor *d, BwrapInfo *info);
void check_apparmor (Doctor *d, AppArmorInfo *aa);
void check_userns (Doctor *d, const BwrapInfo *bw, const AppArmorInfo *aa);
void check_landlock (Doctor *d);
void check_tiocsti (Doctor *d);

/* doctor_network.c */
void check_network (Doctor *d);

/* doctor_record.c */
void check_recording (Doctor *d);
void check_journal_budget (Doctor *d);

/* doctor_services.c */
void check_shells (Doctor *d);
void check_pam (Doctor *d);
void check_sshd (Doctor *d);
