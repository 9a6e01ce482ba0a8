/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The user overlay, ~/.config/bwsh/config.json, in the seed's format:
 *
 *   { "preferences": { "sandboxBwrapMounts": {
 *       "additionalROBinds": [...], "additionalBinds": [...],
 *       "disabledDefaultBinds": [...] },
 *     "sandboxProjectDir": "..." } }
 *
 * This file only turns JSON into lists.  Whether a path is allowed is the
 * plan's business (core/plan/), so that the same rules apply whatever the source.
 */
#include "config.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bind_list.h"
#include "bounds.h"
#include "cleanup.h"
#include "errors.h"
#include "safeopen.h"
#include "userconf.h"

BwshUserConfig *
bwsh_user_config_free (BwshUserConfig *uc)
{
  if (uc == NULL)
    return NULL;
  bwsh_bind_list_clear (&uc->ro_binds);
  bwsh_bind_list_clear (&uc->rw_binds);
  bwsh_bind_list_clear (&uc->disabled);
  free (uc->project_dir);
  free (uc->project_dir_from.file);
  free (uc->file);
  free (uc);
  return NULL;
}

static void
user_config_freep (BwshUserConfig **uc)
{
  bwsh_user_config_free (*uc);
}

/*
 * jansson keeps no positions for parsed values, so a warning about entry N
 * of a list finds it again in the text.  The document has already been
 * accepted by jansson, which bounds its depth; this scanner only needs to
 * skip values correctly.
 */
typedef struct
{
  const char *buf;
  size_t len;
  size_t pos;
} Scanner;

static void
scan_ws (Scanner *s)
{
  while (s->pos < s->len && strchr (" \t\r\n", s->buf[s->pos]) != NULL && s->buf[s->pos] != '\0')
    s->pos++;
}

static bool
scan_string (Scanner *s, size_t *ret_start, size_t *ret_len)
{
  size_t start;

  if (s->pos >= s->len || s->buf[s->pos] != '"')
    return false;
  start = ++s->pos;
  while (s->pos < s->len && s->buf[s->pos] != '"')
    s->pos += s->buf[s->pos] == '\\' ? 2 : 1;
  if (s->pos >= s->len)
    return false;
  if (ret_start != NULL)
    *ret_start = start;
  if (ret_len != NULL)
    *ret_len = s->pos - start;
  s->pos++;
  return true;
}

static bool
scan_value (Scanner *s)
{
  int depth = 0;

  scan_ws (s);
  if (s->pos >= s->len)
    return false;
  if (s->buf[s->pos] == '"')
    return scan_string (s, NULL, NULL);
  if (s->buf[s->pos] != '{' && s->buf[s->pos] != '[')
    {
      while (s->pos < s->len && strchr (",]} \t\r\n", s->buf[s->pos]) == NULL)
        s->pos++;
      return true;
    }
  /* Containers: count brackets, stepping over strings. */
  do
    {
      char c = s->buf[s->pos];
      if (c == '"')
        {
          if (!scan_string (s, NULL, NULL))
            return false;
          continue;
        }
      if (c == '{' || c == '[')
        depth++;
      else if (c == '}' || c == ']')
        depth--;
      s->pos++;
    }
  while (depth > 0 && s->pos < s->len);
  return depth == 0;
}

/* Position @s on the value of @key in the object at @s. */
static bool
scan_to_key (Scanner *s, const char *key)
{
  size_t klen = strlen (key);

  scan_ws (s);
  if (s->pos >= s->len || s->buf[s->pos] != '{')
    return false;
  s->pos++;
  for (;;)
    {
      size_t start, len;

      scan_ws (s);
      if (!scan_string (s, &start, &len))
        return false;
      scan_ws (s);
      if (s->pos >= s->len || s->buf[s->pos] != ':')
        return false;
      s->pos++;
      scan_ws (s);
      if (len == klen && memcmp (s->buf + start, key, klen) == 0)
        return true;
      if (!scan_value (s))
        return false;
      scan_ws (s);
      if (s->pos >= s->len || s->buf[s->pos] != ',')
        return false;
      s->pos++;
    }
}

/* Line and column (1-based, bytes) of offset @pos, counting from @from. */
static void
advance (const char *buf, size_t from, size_t pos, int *line, int *col)
{
  for (size_t i = from; i < pos; i++)
    {
      if (buf[i] == '\n')
        {
          (*line)++;
          *col = 1;
        }
      else
        (*col)++;
    }
}

/* Line and column of preferences[.SECTION].KEY, or 0:0. */
static void
locate (const char *buf, size_t len, const char *section, const char *key, int *ret_line, int *ret_col)
{
  Scanner s = { buf, len, 0 };
  int line = 1, col = 1;

  *ret_line = 0;
  *ret_col = 0;
  if (!scan_to_key (&s, "preferences") || (section != NULL && !scan_to_key (&s, section))
      || !scan_to_key (&s, key))
    return;
  advance (buf, 0, s.pos, &line, &col);
  *ret_line = line;
  *ret_col = col;
}

/* Positions of every element of the list preferences.sandboxBwrapMounts.KEY,
 * in one pass, so that a large overlay costs linear time. */
static int
locate_elements (const char *buf, size_t len, const char *key, size_t n, int **ret_pos)
{
  Scanner s = { buf, len, 0 };
  int line = 1, col = 1;
  size_t last = 0;
  int *pos = calloc (2 * n + 2, sizeof (int));

  if (pos == NULL)
    return -ENOMEM;
  *ret_pos = pos;
  if (!scan_to_key (&s, "preferences") || !scan_to_key (&s, "sandboxBwrapMounts") || !scan_to_key (&s, key))
    return 0;
  scan_ws (&s);
  if (s.pos >= s.len || s.buf[s.pos] != '[')
    return 0;
  s.pos++;
  for (size_t i = 0; i < n; i++)
    {
      scan_ws (&s);
      advance (buf, last, s.pos, &line, &col);
      last = s.pos;
      pos[2 * i] = line;
      pos[2 * i + 1] = col;
      if (!scan_value (&s))
        return 0;
      scan_ws (&s);
      if (s.pos >= s.len || s.buf[s.pos] != ',')
        return 0;
      s.pos++;
    }
  return 0;
}

typedef struct
{
  const char *buf;
  size_t len;
  char *file;
  BwshDiag *diag;
  size_t n_entries;
} Ctx;

static int
warn_entry (Ctx *c, const int *pos, const char *key, size_t index, const char *fmt, const char *detail)
{
  return bwsh_diag_add (c->diag, "%s:%d:%d: %s[%zu]: %s%s (entry ignored)", c->file, pos[2 * index],
                        pos[2 * index + 1], key, index, fmt, detail != NULL ? detail : "");
}

/* A string value without embedded NUL, or NULL. */
static const char *
plain_string (json_t *v)
{
  const char *s;

  if (!json_is_string (v))
    return NULL;
  s = json_string_value (v);
  if (strlen (s) != json_string_length (v))
    return NULL;
  return s;
}

/* The paths of the entry @i of the list @key: a string, or (@allow_object)
 * {"src", "dst"}.  1 with *ret_src (and *ret_dst, or NULL), borrowed from
 * @entry; 0 when the entry was warned about and is skipped. */
static int
entry_paths (Ctx *c, const int *pos, const char *key, size_t i, json_t *entry, bool allow_object,
             const char **ret_src, const char **ret_dst)
{
  int r;

  if (json_is_string (entry))
    {
      *ret_src = plain_string (entry);
      if (*ret_src == NULL)
        {
          r = warn_entry (c, pos, key, i, "path contains a NUL character", NULL);
          return r < 0 ? r : 0;
        }
    }
  else if (allow_object && json_is_object (entry))
    {
      const char *k;
      json_t *v;

      json_object_foreach (entry, k, v)
        {
          if (strcmp (k, "src") != 0 && strcmp (k, "dst") != 0)
            {
              _cleanup_free_ char *esc = bwsh_escape (k, strlen (k));
              r = warn_entry (c, pos, key, i, "unknown key ", esc);
              return r < 0 ? r : 0;
            }
        }
      *ret_src = plain_string (json_object_get (entry, "src"));
      if (json_object_get (entry, "dst") != NULL)
        {
          *ret_dst = plain_string (json_object_get (entry, "dst"));
          if (*ret_dst == NULL)
            *ret_src = NULL;
        }
      if (*ret_src == NULL)
        {
          r = warn_entry (c, pos, key, i, "\"src\" and \"dst\" must be strings without NUL characters", NULL);
          return r < 0 ? r : 0;
        }
    }
  else
    {
      r = warn_entry (c, pos, key, i, allow_object ? "expected a path or an object {\"src\", \"dst\"}"
                                              : "expected a path",
                      NULL);
      return r < 0 ? r : 0;
    }
  return 1;
}

static int
parse_list (Ctx *c, json_t *mounts, const char *key, bool allow_object, BwshBindList *out)
{
  json_t *list = json_object_get (mounts, key);
  _cleanup_free_ int *pos = NULL;
  json_t *entry;
  size_t i;
  int r;

  if (list == NULL || json_is_null (list))
    return 0;
  if (!json_is_array (list))
    {
      int line, col;
      locate (c->buf, c->len, "sandboxBwrapMounts", key, &line, &col);
      return bwsh_diag_add (c->diag, "%s:%d:%d: %s: expected a list (ignored)", c->file, line, col, key);
    }
  r = locate_elements (c->buf, c->len, key, json_array_size (list), &pos);
  if (r < 0)
    return r;

  json_array_foreach (list, i, entry)
    {
      const char *src = NULL, *dst = NULL;
      BwshSource from = { .origin = BWSH_ORIGIN_USER, .file = c->file };

      if (c->n_entries >= BWSH_ENTRIES_MAX)
        {
          r = warn_entry (c, pos, key, i, "more than " "1024" " entries in the overlay", NULL);
          if (r < 0)
            return r;
          break;
        }

      r = entry_paths (c, pos, key, i, entry, allow_object, &src, &dst);
      if (r < 0)
        return r;
      if (r == 0)
        continue;

      from.line = pos[2 * i];
      from.column = pos[2 * i + 1];
      r = bwsh_bind_list_add (out, src, dst, &from);
      if (r < 0)
        return r;
      c->n_entries++;
    }
  return 0;
}

static const char *
json_error_reason (const json_error_t *jerr)
{
  /* Fixed strings only: jansson's own text quotes the input, and the input
   * may be a file that is not the user's to show (a symlink to /etc/shadow). */
  switch (json_error_code (jerr))
    {
    case json_error_invalid_syntax:
      return "invalid JSON syntax";
    case json_error_invalid_utf8:
      return "invalid UTF-8";
    case json_error_premature_end_of_input:
      return "unexpected end of input";
    case json_error_end_of_input_expected:
      return "trailing data after the JSON document";
    case json_error_duplicate_key:
      return "duplicate key";
    case json_error_null_character:
      return "NUL character in input";
    case json_error_stack_overflow:
      return "nesting too deep";
    case json_error_numeric_overflow:
      return "number out of range";
    case json_error_item_not_found:
    case json_error_wrong_type:
      return "wrong type";
    case json_error_out_of_memory:
      return "out of memory";
    default:
      return "invalid JSON";
    }
}

/* preferences.sandboxBwrapMounts: the three lists; an unknown key is
 * named. */
static int
parse_mounts (Ctx *c, json_t *prefs, BwshUserConfig *uc)
{
  json_t *mounts;
  int r;

  mounts = json_object_get (prefs, "sandboxBwrapMounts");
  if (mounts != NULL && !json_is_object (mounts))
    {
      int line, col;
      locate (c->buf, c->len, NULL, "sandboxBwrapMounts", &line, &col);
      r = bwsh_diag_add (c->diag, "%s:%d:%d: sandboxBwrapMounts: must be an object (ignored)", c->file, line,
                         col);
      if (r < 0)
        return r;
      mounts = NULL;
    }
  if (mounts != NULL)
    {
      const char *k;
      json_t *v;

      /* A misspelt key would silently grant nothing; say so. */
      json_object_foreach (mounts, k, v)
        {
          if (strcmp (k, "additionalROBinds") != 0 && strcmp (k, "additionalBinds") != 0
              && strcmp (k, "disabledDefaultBinds") != 0)
            {
              _cleanup_free_ char *esc = bwsh_escape (k, strlen (k));
              if (esc == NULL)
                return -ENOMEM;
              r = bwsh_diag_add (c->diag, "%s: sandboxBwrapMounts: unknown key \"%s\" (ignored)", c->file, esc);
              if (r < 0)
                return r;
            }
        }
      r = parse_list (c, mounts, "additionalROBinds", true, &uc->ro_binds);
      if (r >= 0)
        r = parse_list (c, mounts, "additionalBinds", true, &uc->rw_binds);
      if (r >= 0)
        r = parse_list (c, mounts, "disabledDefaultBinds", false, &uc->disabled);
      if (r < 0)
        return r;
    }
  return 0;
}

/* preferences.sandboxProjectDir, checked later like a read-write bind. */
static int
parse_project (Ctx *c, json_t *prefs, BwshUserConfig *uc)
{
  json_t *project;
  int r;

  project = json_object_get (prefs, "sandboxProjectDir");
  if (project != NULL)
    {
      int line, col;
      const char *s = plain_string (project);

      locate (c->buf, c->len, NULL, "sandboxProjectDir", &line, &col);
      if (s == NULL)
        {
          r = bwsh_diag_add (c->diag, "%s:%d:%d: sandboxProjectDir: expected a path without NUL characters (ignored)",
                             c->file, line, col);
          if (r < 0)
            return r;
        }
      else
        {
          uc->project_dir = strdup (s);
          uc->project_dir_from = (BwshSource) { .origin = BWSH_ORIGIN_USER, .line = line, .column = col };
          uc->project_dir_from.file = strdup (c->file);
          if (uc->project_dir == NULL || uc->project_dir_from.file == NULL)
            return -ENOMEM;
        }
    }
  return 0;
}

int
bwsh_user_config_parse (const char *buf, size_t len, const char *filename, BwshUserConfig **ret,
                        BwshDiag *diag, BwshError *err)
{
  _cleanup_ (user_config_freep) BwshUserConfig *uc = NULL;
  json_auto_t *root = NULL;
  json_error_t jerr;
  json_t *prefs;
  Ctx c = { buf, len, NULL, diag, 0 };
  int r;

  uc = calloc (1, sizeof *uc);
  if (uc == NULL)
    return -ENOMEM;
  uc->file = strdup (filename);
  if (uc->file == NULL)
    return -ENOMEM;
  c.file = uc->file;

  /* JSON_ALLOW_NUL so that a "\u0000" inside one path costs that entry only;
   * every string is then checked for embedded NUL. */
  root = json_loadb (buf, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
  if (root == NULL)
    return bwsh_error_set (err, -EINVAL, filename, jerr.line > 0 ? jerr.line : 0,
                           jerr.column > 0 ? jerr.column : 0, "%s", json_error_reason (&jerr));
  if (!json_is_object (root))
    return bwsh_error_set (err, -EINVAL, filename, 1, 1, "the document must be a JSON object");

  prefs = json_object_get (root, "preferences");
  if (prefs != NULL && !json_is_object (prefs))
    {
      r = bwsh_diag_add (diag, "%s: \"preferences\" must be an object (ignored)", filename);
      if (r < 0)
        return r;
      prefs = NULL;
    }
  if (prefs == NULL)
    {
      *ret = steal_pointer (&uc);
      return 0;
    }

  r = parse_mounts (&c, prefs, uc);
  if (r >= 0)
    r = parse_project (&c, prefs, uc);
  if (r < 0)
    return r;

  *ret = steal_pointer (&uc);
  return 0;
}

int
bwsh_user_config_load (const char *path, uid_t uid, BwshUserConfig **ret, BwshDiag *diag, BwshError *err)
{
  _cleanup_free_ char *data = NULL;
  BwshError local = { 0 };
  size_t len = 0;
  int r;

  r = bwsh_read_file_checked (path, BWSH_OWNER_USER, uid, BWSH_USER_CONFIG_MAX, &data, &len, &local);
  if (r >= 0)
    {
      r = bwsh_user_config_parse (data, len, path, ret, diag, &local);
      if (r >= 0 || r == -ENOMEM)
        return r == -ENOMEM ? bwsh_error_set (err, r, NULL, 0, 0, "out of memory") : 0;
    }
  if (r == -ENOMEM)
    return bwsh_error_set (err, r, NULL, 0, 0, "out of memory");

  /* Missing, unsafe or broken: no additions, as the seed did, but say why
   * unless the file simply is not there. */
  if (r != -ENOENT)
    {
      _cleanup_free_ char *msg = bwsh_error_to_string (&local);
      if (msg == NULL || bwsh_diag_add (diag, "%s; user configuration ignored", msg) < 0)
        return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
    }
  /* What parsing "{}" gives, without jansson's table (and its seed read
   * from /dev/urandom) at each login without an overlay (#37). */
  {
    _cleanup_ (user_config_freep) BwshUserConfig *uc = calloc (1, sizeof *uc);
    if (uc == NULL || (uc->file = strdup (path)) == NULL)
      return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
    *ret = steal_pointer (&uc);
    return 0;
  }
}
