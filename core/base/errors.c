/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Error records, warning lists and escaping for messages. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "errors.h"
#include "format.h"
#include "grow.h"

int
bwsh_error_set (BwshError *err, int r, const char *file, int line, int column, const char *fmt, ...)
{
  va_list ap;

  if (err == NULL)
    return r;

  err->errnum = r < 0 ? -r : 0;
  snprintf (err->file, sizeof err->file, "%s", file != NULL ? file : "");
  err->line = line;
  err->column = column;
  va_start (ap, fmt);
  vsnprintf (err->message, sizeof err->message, fmt, ap);
  va_end (ap);
  return r;
}

int
bwsh_error_step (BwshError *err, BwshErrorCode code, int r)
{
  if (err == NULL)
    return r;
  err->code = code;
  if (err->message[0] == '\0')
    {
      /* Out of memory deep in a lower layer, or a bare -errno: still say
       * what happened, never "...cannot be used: " and nothing. */
      err->errnum = r < 0 ? -r : err->errnum;
      snprintf (err->message, sizeof err->message, "%s",
                r == -ENOMEM ? "out of memory" : strerror (err->errnum != 0 ? err->errnum : EIO));
    }
  return r;
}

const char *
bwsh_error_code_to_string (BwshErrorCode code)
{
  static const char *const names[] = {
    [BWSH_ERROR_NONE] = NULL,
    [BWSH_ERROR_IDENTITY] = "cannot identify the user",
    [BWSH_ERROR_POLICY] = "the sandbox policy cannot be used",
    [BWSH_ERROR_SERVICE] = NULL, /* the message names service and user */
    [BWSH_ERROR_SHELL] = NULL,   /* the message names user and shell */
    [BWSH_ERROR_PRIVILEGES] = NULL,
    [BWSH_ERROR_USER_CONFIG] = "cannot read the user configuration",
    [BWSH_ERROR_PLAN] = "cannot build the sandbox",
    [BWSH_ERROR_HOME] = NULL,    /* "home directory X does not exist" */
    [BWSH_ERROR_PROJECT_DIR] = "cannot create the project directory",
    [BWSH_ERROR_RESOLVE] = "cannot build the sandbox",
    [BWSH_ERROR_LAUNCH] = "cannot start the sandbox",
    [BWSH_ERROR_NETWORK] = "cannot start the sandbox's network",
    [BWSH_ERROR_LOCKED] = NULL,  /* "sessions of X are locked: REASON" */
    [BWSH_ERROR_LIMIT] = NULL,   /* "X has N sessions open, at most M ..." */
    [BWSH_ERROR_RECORD] = "cannot record the session",
  };
  return (size_t) code < BWSH_N_ELEMENTS (names) ? names[code] : NULL;
}

int
bwsh_parse_decimal (const char *s, long min, long max, long *ret)
{
  char *end = NULL;
  long v;

  if (s == NULL || *s < '0' || *s > '9')
    return -EINVAL;
  errno = 0;
  v = strtol (s, &end, 10);
  if (errno != 0 || *end != '\0' || v < min || v > max)
    return -EINVAL;
  *ret = v;
  return 0;
}

char *
bwsh_source_prefix (const char *file, int line, int column)
{
  char *s = NULL;
  int r;

  if (file == NULL || file[0] == '\0')
    r = asprintf (&s, "%s", "");
  else if (line > 0 && column > 0)
    r = asprintf (&s, "%s:%d:%d: ", file, line, column);
  else if (line > 0)
    r = asprintf (&s, "%s:%d: ", file, line);
  else
    r = asprintf (&s, "%s: ", file);
  return r < 0 ? NULL : s;
}

char *
bwsh_error_to_string (const BwshError *err)
{
  _cleanup_free_ char *where = bwsh_source_prefix (err->file, err->line, err->column);
  const char *step = bwsh_error_code_to_string (err->code);
  const char *msg = err->message[0] != '\0' ? err->message : strerror (err->errnum != 0 ? err->errnum : EIO);
  char *s = NULL;

  if (where == NULL)
    return NULL;
  if (asprintf (&s, "%s%s%s%s", step != NULL ? step : "", step != NULL ? ": " : "", where, msg) < 0)
    return NULL;
  return s;
}

int
bwsh_diag_add (BwshDiag *d, const char *fmt, ...)
{
  va_list ap;
  char *line, **lines;

  lines = bwsh_grow (d->lines, &d->cap, d->n, sizeof (char *));
  if (lines == NULL)
    return -ENOMEM;
  d->lines = lines;
  va_start (ap, fmt);
  line = bwsh_vformat (fmt, ap);
  va_end (ap);
  if (line == NULL)
    return -ENOMEM;
  d->lines[d->n++] = line;
  return 0;
}

void
bwsh_diag_clear (BwshDiag *d)
{
  for (size_t i = 0; i < d->n; i++)
    free (d->lines[i]);
  free (d->lines);
  *d = (BwshDiag) { 0 };
}

/* A byte a terminal may act on: C0 controls, DEL, and every byte >= 0x80
 * (C1 controls such as 0x9b, CSI, and what is not UTF-8).  Data also gets its
 * backslashes and quotes escaped, so that the escaped form reads back to the
 * exact bytes and cannot close a quoted field; a message keeps both: its
 * quotes are its own, and the data in it is escaped already. */
static bool
must_escape (unsigned char c, bool message)
{
  return c < 0x20 || c >= 0x7f || (!message && (c == '\\' || c == '"'));
}

/* @s escaped as \xNN where must_escape() says so, at most @max characters
 * (then "..."). */
static char *
escape (const char *s, size_t len, size_t max, bool message)
{
  char *out;
  size_t o = 0, i, need = 0;

  for (i = 0; i < len && need <= max; i++)
    need += must_escape ((unsigned char) s[i], message) ? 4 : 1;
  out = malloc ((need < max ? need : max) + 4);
  if (out == NULL)
    return NULL;
  for (i = 0; i < len; i++)
    {
      unsigned char c = (unsigned char) s[i];
      bool esc = must_escape (c, message);

      if (o + (esc ? 4 : 1) > max)
        break;
      if (esc)
        o += (size_t) snprintf (out + o, 5, "\\x%02x", c);
      else
        out[o++] = (char) c;
    }
  if (i < len)
    {
      memcpy (out + o, "...", 3);
      o += 3;
    }
  out[o] = '\0';
  return out;
}

char *
bwsh_escape (const char *s, size_t len)
{
  /* At most BWSH_ESCAPE_MAX characters, escapes included, so that a value
   * quoted in a BwshError message (512 bytes) never pushes out the reason
   * that follows it. */
  return escape (s, len, BWSH_ESCAPE_MAX, false);
}

char *
bwsh_escape_data (const char *s)
{
  return escape (s, strlen (s), SIZE_MAX - 4, false);
}

char *
bwsh_escape_message (const char *s)
{
  return escape (s, strlen (s), SIZE_MAX - 4, true);
}
