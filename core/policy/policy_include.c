/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy: one parsed document, and @include confined to the policy's folder.
 *
 * libconfig 1.5 has no config_set_include_func(), so @include is confined by
 * config_set_include_dir() plus our own scan of every buffer before libconfig
 * sees it (see scan_includes()).
 */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf, reallocarray */
#endif

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bind_list.h"
#include "bounds.h"
#include "cleanup.h"
#include "errors.h"
#include "format.h"
#include "policy_internal.h"
#include "safeopen.h"

/* ------------------------------------------------- one parsed document */

PolicyDoc *
policy_doc_free (PolicyDoc *d)
{
  if (d == NULL)
    return NULL;
  if (d->cfg_ready)
    config_destroy (&d->cfg);
  for (size_t i = 0; i < d->n_segs; i++)
    free (d->segs[i].name);
  free (d->segs);
  free (d->filename);
  free (d->dir);
  free (d);
  return NULL;
}

void
policy_doc_freep (PolicyDoc **d)
{
  policy_doc_free (*d);
}

int
policy_doc_new (const char *filename, const char *dir, PolicyDoc **ret)
{
  _cleanup_ (policy_doc_freep) PolicyDoc *d = NULL;

  d = calloc (1, sizeof *d);
  if (d == NULL)
    return -ENOMEM;
  d->filename = strdup (filename != NULL ? filename : "<policy>");
  if (d->filename == NULL)
    return -ENOMEM;
  if (dir != NULL && (d->dir = strdup (dir)) == NULL)
    return -ENOMEM;
  d->vline = 1;
  *ret = steal_pointer (&d);
  return 0;
}

static int
doc_push_segment (PolicyDoc *d, const char *name, int rstart)
{
  Segment *s;

  if (d->n_segs == d->cap_segs)
    {
      size_t cap = d->cap_segs == 0 ? 8 : d->cap_segs * 2;
      Segment *n = reallocarray (d->segs, cap, sizeof *n);
      if (n == NULL)
        return -ENOMEM;
      d->segs = n;
      d->cap_segs = cap;
    }
  s = &d->segs[d->n_segs];
  *s = (Segment) { .vstart = d->vline, .rstart = rstart };
  if (name != NULL && (s->name = strdup (name)) == NULL)
    return -ENOMEM;
  d->n_segs++;
  return 0;
}

/* Map libconfig's (file, virtual line) to the real file path (in d->where)
 * and line. */
char *
policy_doc_locate (PolicyDoc *d, const char *name, int vline, int *ret_line)
{
  const Segment *best = NULL;
  size_t dl = d->dir != NULL ? strlen (d->dir) : 0;

  /* libconfig 1.5 (Debian 12) names an included file as written in the
   * @include; 1.7 (Debian 13) joins it to the include directory first. */
  if (name != NULL && dl > 0 && strncmp (name, d->dir, dl) == 0 && name[dl] == '/')
    name += dl + 1;
  for (size_t i = 0; i < d->n_segs; i++)
    {
      const Segment *s = &d->segs[i];
      bool same = (s->name == NULL && name == NULL)
                  || (s->name != NULL && name != NULL && strcmp (s->name, name) == 0);
      if (same && s->vstart <= vline)
        best = s;
    }
  *ret_line = best != NULL ? best->rstart + (vline - best->vstart) : vline;
  if (name == NULL)
    snprintf (d->where, sizeof d->where, "%s", d->filename);
  else if (d->dir == NULL)
    snprintf (d->where, sizeof d->where, "%s", name);
  else
    snprintf (d->where, sizeof d->where, "%s/%s", d->dir, name);
  return d->where;
}

/* ------------------------------------------------------------ @include */

static bool
include_name_ok (const char *s, size_t n)
{
  if (n == 0 || n > NAME_MAX || s[0] == '.')
    return false;
  for (size_t i = 0; i < n; i++)
    if (!isalnum ((unsigned char) s[i]) && s[i] != '.' && s[i] != '_' && s[i] != '-')
      return false;
  return true;
}

/* The quoted name of the @include at @inc: *ret_start up to *ret_end, its
 * closing quote. */
static int
include_name (const char *inc, const char *shown, int line, const char **ret_start, const char **ret_end,
              BwshError *err)
{
  const char *q = inc + 8, *start;

  if (*q != ' ' && *q != '\t')
    return bwsh_error_set (err, -EINVAL, shown, line, 0, "malformed @include");
  while (*q == ' ' || *q == '\t')
    q++;
  if (*q != '"')
    return bwsh_error_set (err, -EINVAL, shown, line, 0, "malformed @include");
  start = ++q;
  while (*q != '\0' && *q != '"' && *q != '\n')
    q++;
  if (*q != '"')
    return bwsh_error_set (err, -EINVAL, shown, line, 0, "@include: missing closing quote");
  *ret_start = start;
  *ret_end = q;
  return 0;
}

typedef enum
{
  S_INITIAL,
  S_STRING,
  S_COMMENT,
} LexState;

/* One step of libconfig's lexer at @p, in *state: where the step ends (its
 * last character), whether its text is kept (*keep) or stands for a blank
 * (*blank). */
static const char *
lex_step (LexState *state, const char *p, bool *keep, bool *blank)
{
  switch (*state)
    {
    case S_INITIAL:
      if (*p == '"')
        *state = S_STRING;
      else if (p[0] == '/' && p[1] == '*')
        {
          *state = S_COMMENT;
          p++;
          *keep = false;
          *blank = true; /* keeps the tokens on either side apart */
        }
      else if (*p == '#' || (p[0] == '/' && p[1] == '/'))
        {
          p = strchrnul (p, '\n') - 1;
          *keep = false;
        }
      break;
    case S_STRING:
      if (p[0] == '\\' && (p[1] == '"' || p[1] == '\\'))
        p++;
      else if (*p == '"')
        *state = S_INITIAL;
      break;
    case S_COMMENT:
      *keep = *p == '\n';
      if (p[0] == '*' && p[1] == '/')
        {
          *state = S_INITIAL;
          p++;
        }
      break;
    default:
      break;
    }
  return p;
}

static int scan_includes (PolicyDoc *d, const char *buf, const char *name, const char *shown,
                          unsigned depth, BwshBindList *files, char *out, BwshError *err);

int
policy_record_file (BwshBindList *files, const char *path)
{
  const BwshSource from = { .origin = BWSH_ORIGIN_POLICY };

  if (files == NULL || bwsh_bind_list_contains (files, path))
    return 0;
  return bwsh_bind_list_add (files, path, NULL, &from);
}

/* Read a policy file the way the main file is read: root-owned, its whole
 * directory chain trusted, a regular file (not a symlink), bounded, no NUL. */
int
policy_read_file (const char *path, BwshTrustedDir *memo, char **ret_data, BwshError *err)
{
  _cleanup_free_ char *data = NULL;
  size_t len = 0;
  int r;

  r = bwsh_check_path_trusted_in (path, BWSH_OWNER_ROOT, 0, memo, err);
  if (r < 0)
    return r;
  r = bwsh_read_file_checked (path, BWSH_OWNER_ROOT, 0, BWSH_POLICY_FILE_MAX, &data, &len, err);
  if (r < 0)
    return r;
  if (strlen (data) != len)
    return bwsh_error_set (err, -EINVAL, path, 0, 0, "contains a NUL byte (refused)");
  *ret_data = steal_pointer (&data);
  return 0;
}

static int
include_one (PolicyDoc *d, const char *inc, size_t n, const char *shown, int line, unsigned depth,
             BwshBindList *files, BwshError *err)
{
  _cleanup_free_ char *name = NULL, *path = NULL, *data = NULL, *esc = NULL;
  int r;

  if (!include_name_ok (inc, n))
    {
      esc = bwsh_escape (inc, n);
      return bwsh_error_set (err, -EPERM, shown, line, 0,
                             "@include \"%s\" refused: only a plain file name in the policy's own "
                             "directory may be included",
                             esc != NULL ? esc : "?");
    }
  name = strndup (inc, n);
  if (name == NULL)
    return -ENOMEM;
  if (d->dir == NULL)
    return bwsh_error_set (err, -EPERM, shown, line, 0, "@include \"%s\" refused: no include directory",
                           name);
  if (depth >= INCLUDE_DEPTH_MAX)
    return bwsh_error_set (err, -ELOOP, shown, line, 0, "@include \"%s\": includes nested too deeply",
                           name);
  if (++d->n_includes > INCLUDES_MAX)
    return bwsh_error_set (err, -E2BIG, shown, line, 0, "more than %d @include directives",
                           INCLUDES_MAX);
  if ((path = bwsh_concat3 (d->dir, "/", name)) == NULL)
    return -ENOMEM;

  r = policy_read_file (path, NULL, &data, err);
  if (r == -ENOENT)
    return bwsh_error_set (err, -ENOENT, shown, line, 0, "@include \"%s\": no such file in %s", name,
                           d->dir);
  if (r < 0)
    return r;
  r = policy_record_file (files, path);
  if (r < 0)
    return r;
  return scan_includes (d, data, name, path, depth + 1, files, NULL, err);
}

/* If a line (from @p, after its blanks) is an @include, return the position
 * of the directive, else NULL. */
static const char *
line_include (const char *p)
{
  while (*p == ' ' || *p == '\t')
    p++;
  return strncmp (p, "@include", 8) == 0 ? p : NULL;
}

/*
 * Walk @buf the way libconfig 1.5's scanner does, for two reasons.
 *
 * Confinement: its rule is `^[ \t]*@include[ \t]+\"`, active outside comments
 * and strings; the name may hold escapes and "/", and libconfig opens
 * include_dir + "/" + name with fopen(), following symlinks.  We refuse
 * every name but a plain one, and read the file with the same trust checks
 * as the policy before libconfig opens it.  A root-owned, non-writable
 * directory means only root could swap it in between.  An @include line
 * inside a block comment or a string is refused rather than guessed at.
 *
 * Line numbers: see Segment.
 *
 * Cost: the shipped policy is four fifths comments, and libconfig's scanner
 * spent more instructions on them than bwsh on everything else.  With @out
 * (room for strlen (@buf) + 1) the same walk writes @buf without its
 * comments for libconfig to parse: a block comment becomes one blank plus
 * its newlines, a line comment nothing, so tokens stay apart and every
 * line keeps its number.  Strings are copied as they are.
 */
static int
scan_includes (PolicyDoc *d, const char *buf, const char *name, const char *shown, unsigned depth,
               BwshBindList *files, char *out, BwshError *err)
{
  LexState state = S_INITIAL;
  const char *p = buf;
  bool bol = true;
  int line = 1;
  int r;

  r = doc_push_segment (d, name, 1);
  if (r < 0)
    return r;

  while (*p != '\0')
    {
      if (bol)
        {
          const char *inc = line_include (p);

          bol = false;
          if (inc != NULL && state != S_INITIAL)
            return bwsh_error_set (err, -EPERM, shown, line, 0,
                                   "@include inside a comment or a string is refused");
          if (inc != NULL)
            {
              const char *q = NULL, *start = NULL;

              r = include_name (inc, shown, line, &start, &q, err);
              if (r < 0)
                return r;
              r = include_one (d, start, (size_t) (q - start), shown, line, depth, files, err);
              if (r < 0)
                return r;
              /* Back in this file, on the same line, after the closing quote. */
              r = doc_push_segment (d, name, line);
              if (r < 0)
                return r;
              if (out != NULL)
                out = mempcpy (out, p, (size_t) (q + 1 - p));
              p = q + 1;
              continue;
            }
        }

      /* Runs of characters that change nothing, in one step. */
      size_t run = strcspn (p, state == S_INITIAL ? "\"/#\n" : state == S_STRING ? "\"\\\n" : "*\n");
      if (run > 0)
        {
          if (out != NULL && state != S_COMMENT)
            out = mempcpy (out, p, run);
          p += run;
          continue;
        }

      /* This step reads [from, p]; @out gets it, or @blank, or nothing. */
      const char *from = p;
      bool keep = true, blank = false;

      p = lex_step (&state, p, &keep, &blank);
      if (out != NULL && keep && from == p)
        *out++ = *p;
      else if (out != NULL && keep)
        out = mempcpy (out, from, (size_t) (p + 1 - from));
      else if (out != NULL && blank)
        *out++ = ' ';
      if (*p == '\n')
        {
          line++;
          d->vline++;
          bol = true;
        }
      p++;
    }
  if (out != NULL)
    *out = '\0';
  return 0;
}

/* Line @n (1-based) of @text into @buf, without comments; false past the end. */
static bool
line_at (const char *text, int n, char *buf, size_t size)
{
  const char *p = text, *end;
  size_t len;

  for (int i = 1; i < n && p != NULL; i++)
    {
      p = strchr (p, '\n');
      if (p != NULL)
        p++;
    }
  if (p == NULL || n < 1)
    return false;
  end = strchr (p, '\n');
  len = end != NULL ? (size_t) (end - p) : strlen (p);
  if (len >= size)
    len = size - 1;
  memcpy (buf, p, len);
  buf[len] = '\0';
  for (char *c = buf; *c != '\0'; c++)
    if (*c == '#' || (c[0] == '/' && (c[1] == '/' || c[1] == '*')))
      {
        *c = '\0';
        break;
      }
  /* Trailing blanks; a comment cut above may have left nothing at all. */
  for (size_t k = strlen (buf); k > 0 && strchr (" \t\r", buf[k - 1]) != NULL; k--)
    buf[k - 1] = '\0';
  return true;
}

/* What libconfig's bare "syntax error" most likely means, from the text up
 * to the line it names (at the end of the text it names the line after the
 * last): what was expected there, in @buf.  False when no simple rule fits. */
static bool
syntax_hint (const char *code, int vline, char *buf, size_t size)
{
  char cur[512] = "";
  int n = vline, depth[3] = { 0 }, opened[3] = { 0 }, line = 1;
  static const char open_c[] = "{[(", close_c[] = "}])";
  static const char *const what[] = { "group", "list", "list" };
  const char *eq, *v;
  size_t quotes = 0;
  bool in_string = false;

  /* Brackets left open up to the error. */
  for (const char *c = code; *c != '\0' && line <= vline; c++)
    {
      if (*c == '\n')
        line++;
      else if (*c == '"' && (c == code || c[-1] != '\\'))
        in_string = !in_string;
      else if (!in_string && *c == '#')
        c += strcspn (c, "\n") - 1;
      else if (!in_string && strchr (open_c, *c) != NULL)
        {
          int k = (int) (strchr (open_c, *c) - open_c);
          if (depth[k]++ == 0)
            opened[k] = line;
        }
      else if (!in_string && strchr (close_c, *c) != NULL)
        depth[strchr (close_c, *c) - close_c]--;
    }
  while (n >= 1 && line_at (code, n, cur, sizeof cur) && cur[strspn (cur, " \t")] == '\0')
    n--;
  for (const char *c = cur; *c != '\0'; c++)
    if (*c == '"' && (c == cur || c[-1] != '\\'))
      quotes++;
  if (quotes % 2 == 1)
    {
      snprintf (buf, size, "a closing \" is missing on line %d (unterminated string)", n);
      return true;
    }
  for (int k = 0; k < 3; k++)
    if (depth[k] > 0)
      {
        snprintf (buf, size, "expected \"%c\" to close the %s opened on line %d", close_c[k], what[k], opened[k]);
        return true;
      }
  eq = strpbrk (cur, "=:");
  if (eq != NULL)
    {
      v = eq + 1 + strspn (eq + 1, " \t");
      if (*v == '\0' || *v == ';' || *v == ',')
        {
          snprintf (buf, size,
                    "expected a value after \"%c\": a number, a \"string\", true or false, [ a list ] or { a group }",
                    *eq);
          return true;
        }
    }
  if (strstr (cur, ";;") != NULL)
    {
      snprintf (buf, size, "\";\" twice: a setting is missing between them");
      return true;
    }
  if (eq == NULL && cur[0] != '\0' && strpbrk (cur, "{}()[]") == NULL)
    {
      snprintf (buf, size, "expected NAME = VALUE; on line %d", n);
      return true;
    }
  return false;
}

int
policy_doc_parse (PolicyDoc *d, const char *buf, BwshBindList *files, BwshError *err)
{
  _cleanup_free_ char *code = malloc (strlen (buf) + 1);
  const char *file;
  int line, r;

  if (code == NULL)
    return -ENOMEM;
  r = scan_includes (d, buf, NULL, d->filename, 0, files, code, err);
  if (r < 0)
    return r;

  config_init (&d->cfg);
  d->cfg_ready = true;
  /* Without a directory scan_includes() has refused every @include. */
  if (d->dir != NULL)
    config_set_include_dir (&d->cfg, d->dir);
  config_set_auto_convert (&d->cfg, CONFIG_FALSE);
  if (config_read_string (&d->cfg, code) != CONFIG_TRUE)
    {
      const char *text = config_error_text (&d->cfg) != NULL ? config_error_text (&d->cfg) : "parse error";
      /* Only in this buffer's own text: an included file is not in @code. */
      char hint_buf[256];
      const char *hint = config_error_file (&d->cfg) == NULL && strcmp (text, "syntax error") == 0
                                 && syntax_hint (code, config_error_line (&d->cfg), hint_buf, sizeof hint_buf)
                             ? hint_buf
                             : NULL;

      file = policy_doc_locate (d, config_error_file (&d->cfg), config_error_line (&d->cfg), &line);
      return bwsh_error_set (err, -EINVAL, file, line, 0, "%s%s%s", text, hint != NULL ? ": " : "",
                             hint != NULL ? hint : "");
    }
  return 0;
}

