/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwshctl doctor's command runner (doctor_run.c): argv, a fixed
 * environment, stdin on /dev/null, a timeout; never a shell. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Output of the commands the doctor runs is small; anything larger is cut. */
#define CMD_OUTPUT_MAX (256 * 1024)
#define CMD_TIMEOUT_MS 10000

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
