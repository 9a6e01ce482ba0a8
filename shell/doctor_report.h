/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every check of bwshctl doctor shares (doctor_report.c): the
 * doctor's state, its findings, and where its files and probes are. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

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

/* One finding, printed as one escaped line (and its fix). */
void finding (Doctor *d, Level level, const char *fix, const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));
/* The path of a system file, below --root in a test build. */
char *at_root (const Doctor *d, const char *path);
/* First line of a small text file, without the newline.  NULL if unreadable
 * (errno set). */
char *read_first_line (const char *path);
/* Whom to try a sandbox as: the subject, the caller, or nobody. */
void probe_identity (const Doctor *d, uid_t *ret_uid, gid_t *ret_gid, const char **ret_name);
