/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: render (render.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "argv.h"
#include "plan.h"

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
  int recorder_stderr_fd;  /* > 2: the recorder's stderr, a pipe the launch that forked this process reads
                            * for tlog's failure reports (shell/guard.c); bwrap gets tlog's pty instead */
} BwshCommand;

/* @cmd is the server side of a file transfer that sshd runs through the
 * login shell: scp -t/-f, sftp-server, rsync --server, git-*-pack. */
bool bwsh_command_is_file_transfer (const BwshCommand *cmd);

/* bwrap's argv from "--" on: the inner shell and @cmd: the user's command,
 * never a bwrap option. */
int bwsh_render_command (const BwshPlan *p, const BwshCommand *cmd, BwshArgv *ret);

/* state = "tmpfs": bwsh_render_options() ends the mounts with --remount-ro
 * $HOME, so a file written at the home's top (an upload, ~/notes.txt)
 * fails with EROFS instead of being gone at logout (issues 25, 38); the
 * project, the policy's binds and the state's directories beneath stay
 * writable. */
bool bwsh_plan_home_read_only (const BwshPlan *p);
/* --remount-ro of the home for a file transfer when the home is the
 * session's tmpfs state (appended after every mount option). */
int bwsh_render_transfer_options (const BwshPlan *p, const BwshCommand *cmd, BwshArgv *opts);

/* The one line that says where work is kept, in *ret (NULL: none), for the
 * state the session has (a kept state, a tmpfs gone at logout, the real
 * home read-only): at an interactive login (@interactive: a terminal), and
 * before scp, sftp and rsync, whose clients show it, where the home's top
 * is read-only for them. */
int bwsh_home_notice (const BwshPlan *p, const BwshCommand *cmd, bool interactive, char **ret);

/* A plan with entries of the user's, outside strict mode, is launched
 * guarded: bwsh runs bwrap as its child, and the inner command starts with
 * BWSH_STARTED_STUB, which writes a byte to BWSH_STARTED_FD once the sandbox
 * is set up.  When bwrap fails before that, bwsh starts the session again
 * without the user's entries (shell/guard.c): what no check foresaw never
 * locks the user out. */
#define BWSH_STARTED_FD 9
#define BWSH_STARTED_STUB "printf . >&9; exec 9>&-; exec \"$@\""
bool bwsh_plan_guards_setup (const BwshPlan *p);

/* Serialise @opts NUL-separated, as bwrap's --args expects. */
int bwsh_render_blob (const BwshArgv *opts, char **ret_blob, size_t *ret_len);

/* Shell-quote one word for display, the way a shell reads it back: '...', or
 * $'...' with \xNN escapes when it holds a byte a terminal acts on. */
char *bwsh_shell_quote (const char *s);

typedef struct BwshNamespaceInfo
{
  const char *name;          /* "user", "net", ... (explain, JSON) */
  const char *bwrap_option;  /* "--unshare-user", ... */
  bool if_supported;         /* bwrap's -try variant: skipped where the kernel lacks it */
} BwshNamespaceInfo;

const BwshNamespaceInfo *bwsh_namespace_info (BwshNamespace ns);
