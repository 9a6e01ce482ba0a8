/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every check of bwshctl doctor shares, below them all and below
 * doctor.c, which orders them: one finding, printed as one escaped line,
 * the path of a system file (below --root in a test build), a small file's
 * first line, and whom to try a sandbox as.
 */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "doctor_report.h"

/* ------------------------------------------------------------- findings */

void
finding (Doctor *d, Level level, const char *fix, const char *fmt, ...)
{
  static const char *const names[] = { "ok", "note", "warning", "error" };
  _cleanup_free_ char *msg = NULL, *e_msg = NULL, *e_fix = NULL;
  va_list ap;

  va_start (ap, fmt);
  msg = bwsh_vformat (fmt, ap);
  va_end (ap);
  /* One choke point: a name or an output line that came from a user or a
   * command reaches the administrator's terminal as one escaped line. */
  e_msg = msg != NULL ? bwsh_escape_message (msg) : NULL;
  e_fix = fix != NULL ? bwsh_escape_message (fix) : NULL;
  printf ("%s: %s\n", names[level], e_msg != NULL ? e_msg : "out of memory");
  if (fix != NULL && level >= LEVEL_WARNING)
    printf ("  fix: %s\n", e_fix != NULL ? e_fix : "out of memory");
  if (level == LEVEL_WARNING)
    d->warnings++;
  else if (level == LEVEL_ERROR)
    d->errors++;
}

/* The path of a system file, below --root in a test build. */
char *
at_root (const Doctor *d, const char *path)
{
  char *s = NULL;

  if (asprintf (&s, "%s%s", d->root, path) < 0)
    {
      perror ("bwshctl doctor");
      exit (2);
    }
  return s;
}

/* First line of a small text file, without the newline.  NULL if unreadable
 * (errno set). */
char *
read_first_line (const char *path)
{
  _cleanup_fclose_ FILE *f = fopen (path, "re");
  char buf[256];

  if (f == NULL)
    return NULL;
  if (fgets (buf, sizeof buf, f) == NULL)
    {
      errno = ferror (f) ? EIO : ENODATA;
      return NULL;
    }
  buf[strcspn (buf, "\n")] = '\0';
  return strdup (buf);
}

/* ------------------------------------------------------- probe identity */

/* Whom to try a user namespace as: the subject, or nobody. */
void
probe_identity (const Doctor *d, uid_t *ret_uid, gid_t *ret_gid, const char **ret_name)
{
  struct passwd *pw;

  if (getuid () != 0)
    {
      *ret_uid = getuid ();
      *ret_gid = getgid ();
      *ret_name = "the caller";
      return;
    }
  if (d->subject != NULL && d->subject->uid != 0)
    {
      *ret_uid = d->subject->uid;
      *ret_gid = d->subject->gid;
      *ret_name = d->subject->name;
      return;
    }
  pw = getpwnam ("nobody");
  *ret_uid = pw != NULL ? pw->pw_uid : 65534;
  *ret_gid = pw != NULL ? pw->pw_gid : 65534;
  *ret_name = "an unprivileged account (nobody)";
}
