/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: errors (errors.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

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
