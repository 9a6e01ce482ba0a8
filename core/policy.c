/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The administrator's policy: bwsh.conf plus conf.d/NAME.conf, in libconfig syntax.
 *
 * The policy sets the ceilings the user overlay cannot widen, so a typo here
 * must never weaken the sandbox: every unknown name, wrong type or bad value
 * is an error with its file and line, and the session is refused.
 *
 * Precedence, lowest first:
 *   1. the built-in defaults (equal to the shipped conf/bwsh.conf);
 *   2. the top-level settings of each file, bwsh.conf then conf.d in lexical order;
 *   3. the "match" blocks with a group selector that fit, in the same file order;
 *   4. the "match" blocks with a user selector that fit, in the same file order.
 * Each step overrides the earlier ones setting by setting (a list is replaced
 * as a whole; in a group such as "landlock" each key is its own setting).
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

#include "bwsh.h"
#include "cleanup.h"

/* libconfig itself stops at 10 nested includes; stop a little earlier so the
 * error is ours, with a file and line. */
#define INCLUDE_DEPTH_MAX 8
#define INCLUDES_MAX 64
/* Drop-ins in conf.d: configuration management may add many, but not without bound. */
#define CONFD_FILES_MAX 256
#define MATCH_BLOCKS_MAX 1024
#define NAME_LEN_MAX 256
#define HOSTNAME_LEN_MAX 63

/* A dummy home directory, only to validate "~" templates lexically. */
#define CHECK_HOME "/home/bwsh-policy-check"

/* ------------------------------------------------------ policy lifetime */

static const size_t list_fields[] = {
  offsetof (BwshPolicy, rw_ceilings),    offsetof (BwshPolicy, ro_ceilings),
  offsetof (BwshPolicy, protected_paths), offsetof (BwshPolicy, locked),
  offsetof (BwshPolicy, ro_binds),       offsetof (BwshPolicy, rw_binds),
  offsetof (BwshPolicy, env_allow),      offsetof (BwshPolicy, subject_users),
  offsetof (BwshPolicy, subject_groups), offsetof (BwshPolicy, refused_services),
  offsetof (BwshPolicy, tcp_connect),    offsetof (BwshPolicy, tcp_bind),
  offsetof (BwshPolicy, files),
};

static const size_t string_fields[] = {
  offsetof (BwshPolicy, shell),
  offsetof (BwshPolicy, project_dir),
  offsetof (BwshPolicy, user_config),
  offsetof (BwshPolicy, hostname),
};

#define FIELD(p, off, type) ((type *) (void *) ((char *) (p) + (off)))
#define CFIELD(p, off, type) ((const type *) (const void *) ((const char *) (p) + (off)))

static void
policy_clear (BwshPolicy *p)
{
  for (size_t i = 0; i < BWSH_N_ELEMENTS (list_fields); i++)
    bwsh_bind_list_clear (FIELD (p, list_fields[i], BwshBindList));
  for (size_t i = 0; i < BWSH_N_ELEMENTS (string_fields); i++)
    {
      char **s = FIELD (p, string_fields[i], char *);
      free (*s);
      *s = NULL;
    }
}

BwshPolicy *
bwsh_policy_free (BwshPolicy *p)
{
  if (p == NULL)
    return NULL;
  policy_clear (p);
  free (p);
  return NULL;
}

static void
policy_freep (BwshPolicy **p)
{
  bwsh_policy_free (*p);
}

static int
policy_dup (const BwshPolicy *p, BwshPolicy **ret)
{
  _cleanup_ (policy_freep) BwshPolicy *q = NULL;

  q = malloc (sizeof *q);
  if (q == NULL)
    return -ENOMEM;
  *q = *p;
  /* Detach every owned pointer first, so a failure below frees only copies. */
  for (size_t i = 0; i < BWSH_N_ELEMENTS (list_fields); i++)
    *FIELD (q, list_fields[i], BwshBindList) = (BwshBindList) { 0 };
  for (size_t i = 0; i < BWSH_N_ELEMENTS (string_fields); i++)
    *FIELD (q, string_fields[i], char *) = NULL;

  for (size_t i = 0; i < BWSH_N_ELEMENTS (list_fields); i++)
    {
      int r = bwsh_bind_list_copy (FIELD (q, list_fields[i], BwshBindList),
                              CFIELD (p, list_fields[i], BwshBindList));
      if (r < 0)
        return r;
    }
  for (size_t i = 0; i < BWSH_N_ELEMENTS (string_fields); i++)
    {
      const char *s = *(char *const *) (const void *) ((const char *) p + string_fields[i]);
      if (s != NULL && (*FIELD (q, string_fields[i], char *) = strdup (s)) == NULL)
        return -ENOMEM;
    }
  *ret = steal_pointer (&q);
  return 0;
}

static int
add_default (BwshBindList *l, const char *src)
{
  const BwshSource from = { .origin = BWSH_ORIGIN_DEFAULT };
  return bwsh_bind_list_add (l, src, NULL, &from);
}

int
bwsh_policy_new_defaults (BwshPolicy **ret)
{
  _cleanup_ (policy_freep) BwshPolicy *p = NULL;
  static const char *const protected[] = { "~/.config/bwsh", "~/.ssh", "~/.pam_environment" };
  static const char *const services[] = { "cron", "atd" };
  int r;

  p = calloc (1, sizeof *p);
  if (p == NULL)
    return -ENOMEM;
  p->shell = strdup ("/bin/bash");
  p->project_dir = strdup ("~/project");
  p->user_config = strdup ("~/.config/bwsh/config.json");
  if (p->shell == NULL || p->project_dir == NULL || p->user_config == NULL)
    return -ENOMEM;
  p->user_may_choose_project = true;
  p->user_overlay_allowed = true;
  p->run_mode = BWSH_RUN_TMPFS;
  p->dev_mode = BWSH_DEV_MINIMAL;
  p->net_mode = BWSH_NET_SHARED;
  p->root_tmpfs_size = UINT64_C (64) * 1024 * 1024;
  p->tmp_tmpfs_size = UINT64_C (1024) * 1024 * 1024;
  r = add_default (&p->rw_ceilings, "~");
  if (r < 0)
    return r;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (protected); i++)
    if ((r = add_default (&p->protected_paths, protected[i])) < 0)
      return r;
  p->rlimit_core = 0;
  p->rlimit_nproc = BWSH_RLIMIT_UNSET;
  p->rlimit_nofile = BWSH_RLIMIT_UNSET;
  p->strict = false;
  p->hostname = NULL;
  p->max_mounts = BWSH_DEFAULT_MAX_MOUNTS;
  p->subject_all = false;
  p->is_subject = false;
  p->require_shell = true;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (services); i++)
    if ((r = add_default (&p->refused_services, services[i])) < 0)
      return r;
  p->landlock = BWSH_LANDLOCK_BEST_EFFORT;
  p->scope_abstract_unix = true;
  p->scope_signal = true;
  p->tcp_connect_set = false;
  p->tcp_bind_set = false;
  *ret = steal_pointer (&p);
  return 0;
}

/* ------------------------------------------------- one parsed document */

/* libconfig 1.5 counts lines with one counter across @include (it does not
 * save the line number when it switches files), so a setting in or after an
 * included file carries a "virtual" line.  scan_includes() follows the same
 * walk and records where each stretch of virtual lines came from. */
typedef struct Segment
{
  char *name;   /* the file as libconfig names it: NULL for the top buffer */
  int vstart;   /* first virtual line of the stretch */
  int rstart;   /* its real line in that file */
} Segment;

typedef struct PolicyDoc
{
  config_t cfg;
  bool cfg_ready;
  char *filename; /* the top buffer's name, for messages */
  char *dir;      /* @include confinement; NULL: no @include at all */
  Segment *segs;
  size_t n_segs, cap_segs;
  unsigned n_includes;
  int vline;      /* the scan's copy of libconfig's line counter */
  char where[PATH_MAX + 1];
} PolicyDoc;

static PolicyDoc *
doc_free (PolicyDoc *d)
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

static void
doc_freep (PolicyDoc **d)
{
  doc_free (*d);
}

static int
doc_new (const char *filename, const char *dir, PolicyDoc **ret)
{
  _cleanup_ (doc_freep) PolicyDoc *d = NULL;

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
static char *
doc_locate (PolicyDoc *d, const char *name, int vline, int *ret_line)
{
  const Segment *best = NULL;

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

static int scan_includes (PolicyDoc *d, const char *buf, const char *name, const char *shown,
                          unsigned depth, BwshBindList *files, BwshError *err);

static int
record_file (BwshBindList *files, const char *path)
{
  const BwshSource from = { .origin = BWSH_ORIGIN_POLICY };

  if (files == NULL || bwsh_bind_list_contains (files, path))
    return 0;
  return bwsh_bind_list_add (files, path, NULL, &from);
}

/* Read a policy file the way the main file is read: root-owned, its whole
 * directory chain trusted, a regular file (not a symlink), bounded, no NUL. */
static int
read_policy_file (const char *path, char **ret_data, BwshError *err)
{
  _cleanup_free_ char *data = NULL;
  size_t len = 0;
  int r;

  r = bwsh_check_path_trusted (path, BWSH_OWNER_ROOT, 0, err);
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
  if (asprintf (&path, "%s/%s", d->dir, name) < 0)
    return -ENOMEM;

  r = read_policy_file (path, &data, err);
  if (r == -ENOENT)
    return bwsh_error_set (err, -ENOENT, shown, line, 0, "@include \"%s\": no such file in %s", name,
                           d->dir);
  if (r < 0)
    return r;
  r = record_file (files, path);
  if (r < 0)
    return r;
  return scan_includes (d, data, name, path, depth + 1, files, err);
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
 */
static int
scan_includes (PolicyDoc *d, const char *buf, const char *name, const char *shown, unsigned depth,
               BwshBindList *files, BwshError *err)
{
  enum { S_INITIAL, S_STRING, S_COMMENT } state = S_INITIAL;
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
                return bwsh_error_set (err, -EINVAL, shown, line, 0,
                                       "@include: missing closing quote");
              r = include_one (d, start, (size_t) (q - start), shown, line, depth, files, err);
              if (r < 0)
                return r;
              /* Back in this file, on the same line, after the closing quote. */
              r = doc_push_segment (d, name, line);
              if (r < 0)
                return r;
              p = q + 1;
              continue;
            }
        }

      switch (state)
        {
        case S_INITIAL:
          if (*p == '"')
            state = S_STRING;
          else if (p[0] == '/' && p[1] == '*')
            {
              state = S_COMMENT;
              p++;
            }
          else if (*p == '#' || (p[0] == '/' && p[1] == '/'))
            {
              while (p[1] != '\0' && p[1] != '\n')
                p++;
            }
          break;
        case S_STRING:
          if (p[0] == '\\' && (p[1] == '"' || p[1] == '\\'))
            p++;
          else if (*p == '"')
            state = S_INITIAL;
          break;
        case S_COMMENT:
          if (p[0] == '*' && p[1] == '/')
            {
              state = S_INITIAL;
              p++;
            }
          break;
        default:
          break;
        }
      if (*p == '\n')
        {
          line++;
          d->vline++;
          bol = true;
        }
      p++;
    }
  return 0;
}

static int
doc_parse (PolicyDoc *d, const char *buf, BwshBindList *files, BwshError *err)
{
  const char *file;
  int line, r;

  r = scan_includes (d, buf, NULL, d->filename, 0, files, err);
  if (r < 0)
    return r;

  config_init (&d->cfg);
  d->cfg_ready = true;
  /* Without a directory scan_includes() has refused every @include. */
  if (d->dir != NULL)
    config_set_include_dir (&d->cfg, d->dir);
  config_set_auto_convert (&d->cfg, CONFIG_FALSE);
  if (config_read_string (&d->cfg, buf) != CONFIG_TRUE)
    {
      file = doc_locate (d, config_error_file (&d->cfg), config_error_line (&d->cfg), &line);
      return bwsh_error_set (err, -EINVAL, file, line, 0, "%s",
                             config_error_text (&d->cfg) != NULL ? config_error_text (&d->cfg)
                                                                 : "parse error");
    }
  return 0;
}

/* ----------------------------------------------------------- settings */

typedef struct Ctx
{
  PolicyDoc *doc;
  BwshError *err;
} Ctx;

static void
where (Ctx *c, const config_setting_t *s, BwshSource *ret)
{
  char *file;
  int line;

  file = doc_locate (c->doc, config_setting_source_file (s), (int) config_setting_source_line (s),
                     &line);
  *ret = (BwshSource) { .origin = BWSH_ORIGIN_POLICY, .file = file, .line = line };
}

static int fail (Ctx *c, const config_setting_t *s, int r, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static int
fail (Ctx *c, const config_setting_t *s, int r, const char *fmt, ...)
{
  char msg[BWSH_MESSAGE_MAX];
  BwshSource at;
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  where (c, s, &at);
  return bwsh_error_set (c->err, r, at.file, at.line, 0, "%s", msg);
}

static const char *
type_name (const config_setting_t *s)
{
  switch (config_setting_type (s))
    {
    case CONFIG_TYPE_GROUP:
      return "a group";
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
      return "an integer";
    case CONFIG_TYPE_FLOAT:
      return "a float";
    case CONFIG_TYPE_STRING:
      return "a string";
    case CONFIG_TYPE_BOOL:
      return "a boolean";
    case CONFIG_TYPE_ARRAY:
      return "an array";
    case CONFIG_TYPE_LIST:
      return "a list";
    default:
      return "of unknown type";
    }
}

static bool
is_int (const config_setting_t *s)
{
  return config_setting_type (s) == CONFIG_TYPE_INT || config_setting_type (s) == CONFIG_TYPE_INT64;
}

static bool
is_vector (const config_setting_t *s)
{
  return config_setting_type (s) == CONFIG_TYPE_ARRAY || config_setting_type (s) == CONFIG_TYPE_LIST;
}

static char *
escaped (const char *s)
{
  return bwsh_escape (s, strlen (s));
}

/* Validate a path template and return its canonical form: "/a/b", "~" or
 * "~/a/b" ("$HOME" is accepted as a synonym of "~").  Returns NULL with
 * *ret_why set when it is not acceptable. */
static int
canon_path (const char *v, bool allow_home, char **ret, const char **ret_why)
{
  _cleanup_free_ char *norm = NULL, *expanded = NULL;
  const char *rest = v;
  bool home = false;
  BwshPathStatus st;

  if (strcmp (v, "~") == 0 || strcmp (v, "$HOME") == 0)
    rest = "/", home = true;
  else if (strncmp (v, "~/", 2) == 0)
    rest = v + 1, home = true;
  else if (strncmp (v, "$HOME/", 6) == 0)
    rest = v + 5, home = true;

  if (home && !allow_home)
    {
      *ret_why = "must be an absolute path";
      return -EINVAL;
    }
  st = bwsh_path_normalize (rest, &norm);
  if (st == BWSH_PATH_RELATIVE)
    {
      *ret_why = allow_home ? "must be an absolute path or start with \"~/\"" : "must be an absolute path";
      return -EINVAL;
    }
  if (st != BWSH_PATH_OK)
    {
      *ret_why = bwsh_path_status_to_string (st);
      return -EINVAL;
    }
  /* The plan expands templates with bwsh_path_expand(): make sure it agrees. */
  if (bwsh_path_expand (v, CHECK_HOME, &expanded) < 0)
    {
      *ret_why = "is not a valid path template";
      return -EINVAL;
    }
  if (!home)
    {
      *ret = steal_pointer (&norm);
      return 0;
    }
  if (asprintf (ret, "~%s", strcmp (norm, "/") == 0 ? "" : norm) < 0)
    return -ENOMEM;
  return 0;
}

static int
get_path (Ctx *c, const config_setting_t *s, const char *name, bool allow_home, bool forbid,
          char **ret)
{
  _cleanup_free_ char *canon = NULL, *esc = NULL, *expanded = NULL;
  const char *why = NULL;
  const char *v;
  int r;

  if (config_setting_type (s) != CONFIG_TYPE_STRING)
    return fail (c, s, -EINVAL, "\"%s\" must be a string (a path), not %s", name, type_name (s));
  v = config_setting_get_string (s);
  r = canon_path (v, allow_home, &canon, &why);
  if (r == -ENOMEM)
    return r;
  if (r < 0)
    {
      esc = escaped (v);
      return fail (c, s, -EINVAL, "\"%s\": %s: \"%s\"", name, why, esc != NULL ? esc : "?");
    }
  if (forbid)
    {
      r = bwsh_path_expand (canon, CHECK_HOME, &expanded);
      if (r < 0)
        return r;
      if (bwsh_path_is_forbidden (expanded))
        return fail (c, s, -EPERM, "\"%s\": \"%s\" is forbidden (/, /proc, /dev, /sys and below)", name,
                     canon);
    }
  *ret = steal_pointer (&canon);
  return 0;
}

typedef struct Key Key;
typedef int (*KeyFn) (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name,
                      const Key *k);

struct Key
{
  const char *name;
  KeyFn fn;
  size_t off;
  long long aux;   /* a minimum, or a second field's offset */
  const Key *sub;  /* for groups */
};

static int
key_bool (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  if (config_setting_type (s) != CONFIG_TYPE_BOOL)
    return fail (c, s, -EINVAL, "\"%s\" must be true or false, not %s", name, type_name (s));
  *FIELD (p, k->off, bool) = config_setting_get_bool (s);
  return 0;
}

static int
set_string (char **field, char *value)
{
  free (*field);
  *field = value;
  return 0;
}

static int
key_abs_path (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  char *v = NULL;
  int r = get_path (c, s, name, false, false, &v);
  if (r < 0)
    return r;
  return set_string (FIELD (p, k->off, char *), v);
}

static int
key_template (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  char *v = NULL;
  int r = get_path (c, s, name, true, false, &v);
  if (r < 0)
    return r;
  return set_string (FIELD (p, k->off, char *), v);
}

/* A template that is bound read-write (the project directory): never
 * /, /proc, /dev, /sys or below. */
static int
key_bind_template (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  char *v = NULL;
  int r = get_path (c, s, name, true, true, &v);
  if (r < 0)
    return r;
  return set_string (FIELD (p, k->off, char *), v);
}

typedef struct EnumName
{
  const char *name;
  int value;
} EnumName;

static int
get_enum (Ctx *c, const config_setting_t *s, const char *name, const EnumName *names, size_t n,
          int *ret)
{
  char choices[128] = "";
  const char *v = NULL;

  if (config_setting_type (s) == CONFIG_TYPE_STRING)
    {
      v = config_setting_get_string (s);
      for (size_t i = 0; i < n; i++)
        if (strcmp (v, names[i].name) == 0)
          {
            *ret = names[i].value;
            return 0;
          }
    }
  for (size_t i = 0; i < n; i++)
    {
      size_t len = strlen (choices);
      snprintf (choices + len, sizeof choices - len, "%s\"%s\"",
                i == 0 ? "" : i + 1 == n ? (n == 2 ? " or " : ", or ") : ", ", names[i].name);
    }
  return fail (c, s, -EINVAL, "\"%s\" must be %s", name, choices);
}

static int
key_run (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  static const EnumName names[] = { { "tmpfs", BWSH_RUN_TMPFS }, { "host", BWSH_RUN_HOST } };
  int v = 0, r;

  (void) k;
  r = get_enum (c, s, name, names, BWSH_N_ELEMENTS (names), &v);
  if (r < 0)
    return r;
  p->run_mode = (BwshRunMode) v;
  return 0;
}

static int
key_dev (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  static const EnumName names[] = { { "minimal", BWSH_DEV_MINIMAL }, { "host", BWSH_DEV_HOST } };
  int v = 0, r;

  (void) k;
  r = get_enum (c, s, name, names, BWSH_N_ELEMENTS (names), &v);
  if (r < 0)
    return r;
  p->dev_mode = (BwshDevMode) v;
  return 0;
}

static int
key_network (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  static const EnumName names[] = { { "shared", BWSH_NET_SHARED }, { "none", BWSH_NET_NONE } };
  int v = 0, r;

  (void) k;
  r = get_enum (c, s, name, names, BWSH_N_ELEMENTS (names), &v);
  if (r < 0)
    return r;
  p->net_mode = (BwshNetMode) v;
  return 0;
}

static int
key_landlock_mode (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  static const EnumName names[] = {
    { "best_effort", BWSH_LANDLOCK_BEST_EFFORT },
    { "required", BWSH_LANDLOCK_REQUIRED },
    { "off", BWSH_LANDLOCK_OFF },
  };
  int v = 0, r;

  (void) k;
  r = get_enum (c, s, name, names, BWSH_N_ELEMENTS (names), &v);
  if (r < 0)
    return r;
  p->landlock = (BwshLandlockMode) v;
  return 0;
}

/* "123", "64K", "64M", "1G" (powers of 1024); nothing else. */
static int
parse_size (const char *s, uint64_t *ret)
{
  unsigned long long v;
  uint64_t mult = 1;
  char *end = NULL;

  if (!isdigit ((unsigned char) s[0]))
    return -EINVAL;
  errno = 0;
  v = strtoull (s, &end, 10);
  if (errno == ERANGE)
    return -ERANGE;
  if (errno != 0 || end == s)
    return -EINVAL;
  switch (*end)
    {
    case '\0':
      break;
    case 'K':
    case 'k':
      mult = UINT64_C (1) << 10;
      end++;
      break;
    case 'M':
    case 'm':
      mult = UINT64_C (1) << 20;
      end++;
      break;
    case 'G':
    case 'g':
      mult = UINT64_C (1) << 30;
      end++;
      break;
    default:
      return -EINVAL;
    }
  if (*end != '\0')
    return -EINVAL;
  if ((uint64_t) v > UINT64_MAX / mult)
    return -ERANGE;
  *ret = (uint64_t) v * mult;
  return 0;
}

static int
key_size (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  uint64_t v;

  if (is_int (s))
    {
      long long ll = config_setting_get_int64 (s);
      if (ll < 0)
        return fail (c, s, -EINVAL, "\"%s\" must not be negative", name);
      v = (uint64_t) ll;
    }
  else if (config_setting_type (s) == CONFIG_TYPE_STRING)
    {
      int r = parse_size (config_setting_get_string (s), &v);
      if (r == -ERANGE)
        return fail (c, s, -ERANGE, "\"%s\" is too large", name);
      if (r < 0)
        {
          _cleanup_free_ char *esc = escaped (config_setting_get_string (s));
          return fail (c, s, -EINVAL,
                       "\"%s\" must be a number of bytes with an optional K, M or G suffix, not \"%s\"",
                       name, esc != NULL ? esc : "?");
        }
    }
  else
    return fail (c, s, -EINVAL, "\"%s\" must be an integer or a string such as \"64M\", not %s", name,
                 type_name (s));
  *FIELD (p, k->off, uint64_t) = v;
  return 0;
}

/* Check that @s is an array or list of at most BWSH_ENTRIES_MAX entries. */
static int
check_vector (Ctx *c, const config_setting_t *s, const char *name, const char *what)
{
  if (!is_vector (s))
    return fail (c, s, -EINVAL, "\"%s\" must be a list of %s, not %s", name, what, type_name (s));
  if (config_setting_length (s) > BWSH_ENTRIES_MAX)
    return fail (c, s, -E2BIG, "\"%s\" has more than %d entries", name, BWSH_ENTRIES_MAX);
  return 0;
}

static void
elem_where (Ctx *c, const config_setting_t *list, const config_setting_t *e, BwshSource *ret)
{
  /* Array elements carry no line of their own in libconfig 1.5. */
  where (c, config_setting_source_line (e) > 0 ? e : list, ret);
}

static const config_setting_t *
located (const config_setting_t *list, const config_setting_t *e)
{
  return config_setting_source_line (e) > 0 ? e : list;
}

static void
replace_list (BwshBindList *field, BwshBindList *value)
{
  bwsh_bind_list_clear (field);
  *field = *value;
  *value = (BwshBindList) { 0 };
}

static void
bind_list_clearp (BwshBindList *l)
{
  bwsh_bind_list_clear (l);
}

/* A list of path templates. */
static int
key_paths (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  _cleanup_ (bind_list_clearp) BwshBindList l = { 0 };
  int r;

  r = check_vector (c, s, name, "paths");
  if (r < 0)
    return r;
  for (int i = 0; i < config_setting_length (s); i++)
    {
      const config_setting_t *e = config_setting_get_elem (s, (unsigned) i);
      _cleanup_free_ char *v = NULL;
      BwshSource from;

      if (config_setting_type (e) != CONFIG_TYPE_STRING)
        return fail (c, located (s, e), -EINVAL, "\"%s\" entries must be strings (paths), not %s", name,
                     type_name (e));
      r = get_path (c, located (s, e), name, true, false, &v);
      if (r < 0)
        return r;
      elem_where (c, s, e, &from);
      r = bwsh_bind_list_add (&l, v, NULL, &from);
      if (r < 0)
        return r;
    }
  replace_list (FIELD (p, k->off, BwshBindList), &l);
  return 0;
}

static int
get_path_elem (Ctx *c, const config_setting_t *list, const config_setting_t *e, const char *name,
               char **ret)
{
  if (config_setting_type (e) != CONFIG_TYPE_STRING)
    return fail (c, located (list, e), -EINVAL,
                 "\"%s\" entries must be paths or { src; dst; } groups, not %s", name, type_name (e));
  return get_path (c, located (list, e), name, true, true, ret);
}

/* A list of binds: "PATH" or { src = "PATH"; dst = "PATH"; }. */
static int
key_binds (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  _cleanup_ (bind_list_clearp) BwshBindList l = { 0 };
  int r;

  r = check_vector (c, s, name, "paths or { src; dst; } groups");
  if (r < 0)
    return r;
  for (int i = 0; i < config_setting_length (s); i++)
    {
      const config_setting_t *e = config_setting_get_elem (s, (unsigned) i);
      _cleanup_free_ char *src = NULL, *dst = NULL;
      BwshSource from;

      if (config_setting_is_group (e))
        {
          const config_setting_t *se = NULL, *de = NULL;

          for (int j = 0; j < config_setting_length (e); j++)
            {
              const config_setting_t *m = config_setting_get_elem (e, (unsigned) j);
              const char *mn = config_setting_name (m);

              if (strcmp (mn, "src") == 0)
                se = m;
              else if (strcmp (mn, "dst") == 0)
                de = m;
              else
                return fail (c, m, -EINVAL, "unknown setting \"%s.%s\" (a bind has only src and dst)", name,
                             mn);
            }
          if (se == NULL)
            return fail (c, e, -EINVAL, "\"%s\": a { } entry needs \"src\"", name);
          r = get_path_elem (c, e, se, name, &src);
          if (r < 0)
            return r;
          if (de != NULL && (r = get_path_elem (c, e, de, name, &dst)) < 0)
            return r;
        }
      else if ((r = get_path_elem (c, s, e, name, &src)) < 0)
        return r;
      elem_where (c, s, e, &from);
      r = bwsh_bind_list_add (&l, src, dst, &from);
      if (r < 0)
        return r;
    }
  replace_list (FIELD (p, k->off, BwshBindList), &l);
  return 0;
}

typedef bool (*NameCheck) (const char *s);

/* A variable name, or a prefix glob: "EDITOR", "LC_*". */
static bool
env_name_ok (const char *s)
{
  size_t n = strlen (s);

  if (n == 0 || n > NAME_LEN_MAX || !(isalpha ((unsigned char) s[0]) || s[0] == '_'))
    return false;
  for (size_t i = 0; i < n; i++)
    {
      unsigned char ch = (unsigned char) s[i];
      if (ch == '*' && i == n - 1)
        continue;
      if (!(isascii (ch) && (isalnum (ch) || ch == '_')))
        return false;
    }
  return true;
}

/* User and group names come from NSS (LDAP and AD allow spaces and more);
 * refuse only what no NSS name can hold. */
static bool
account_name_ok (const char *s)
{
  size_t n = strlen (s);

  if (n == 0 || n > NAME_LEN_MAX)
    return false;
  for (size_t i = 0; i < n; i++)
    {
      unsigned char ch = (unsigned char) s[i];
      if (ch < 0x20 || ch == 0x7f || ch == ':' || ch == '/')
        return false;
    }
  return true;
}

/* A PAM service is a file name in /etc/pam.d. */
static bool
service_name_ok (const char *s)
{
  size_t n = strlen (s);

  if (n == 0 || n > NAME_MAX || s[0] == '.')
    return false;
  for (size_t i = 0; i < n; i++)
    {
      unsigned char ch = (unsigned char) s[i];
      if (!(isascii (ch) && (isalnum (ch) || strchr ("._+@-", ch) != NULL)))
        return false;
    }
  return true;
}

static int
get_names (Ctx *c, const config_setting_t *s, const char *name, NameCheck ok, const char *what,
           const char *plural, bool scalar_ok, BwshBindList *ret)
{
  _cleanup_ (bind_list_clearp) BwshBindList l = { 0 };
  int n, r;

  if (scalar_ok && config_setting_type (s) == CONFIG_TYPE_STRING)
    n = 1;
  else
    {
      if (scalar_ok && !is_vector (s))
        return fail (c, s, -EINVAL, "\"%s\" must be %s or a list of %s, not %s", name, what, plural,
                     type_name (s));
      r = check_vector (c, s, name, plural);
      if (r < 0)
        return r;
      n = config_setting_length (s);
    }
  for (int i = 0; i < n; i++)
    {
      const config_setting_t *e = is_vector (s) ? config_setting_get_elem (s, (unsigned) i) : s;
      const char *v;
      BwshSource from;

      if (config_setting_type (e) != CONFIG_TYPE_STRING)
        return fail (c, located (s, e), -EINVAL, "\"%s\" entries must be strings, not %s", name,
                     type_name (e));
      v = config_setting_get_string (e);
      if (!ok (v))
        {
          _cleanup_free_ char *esc = escaped (v);
          return fail (c, located (s, e), -EINVAL, "\"%s\": \"%s\" is not %s", name, esc != NULL ? esc : "?",
                       what);
        }
      elem_where (c, s, e, &from);
      r = bwsh_bind_list_add (&l, v, NULL, &from);
      if (r < 0)
        return r;
    }
  *ret = l;
  l = (BwshBindList) { 0 };
  return 0;
}

static int
key_env (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  _cleanup_ (bind_list_clearp) BwshBindList l = { 0 };
  int r = get_names (c, s, name, env_name_ok, "a variable name or a prefix glob such as \"LC_*\"",
                     "variable names", false, &l);
  if (r < 0)
    return r;
  replace_list (FIELD (p, k->off, BwshBindList), &l);
  return 0;
}

static int
key_accounts (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  _cleanup_ (bind_list_clearp) BwshBindList l = { 0 };
  int r = get_names (c, s, name, account_name_ok, "a user or group name", "names", false, &l);
  if (r < 0)
    return r;
  replace_list (FIELD (p, k->off, BwshBindList), &l);
  return 0;
}

static int
key_services (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  _cleanup_ (bind_list_clearp) BwshBindList l = { 0 };
  int r = get_names (c, s, name, service_name_ok, "a PAM service name", "PAM service names", false,
                     &l);
  if (r < 0)
    return r;
  replace_list (FIELD (p, k->off, BwshBindList), &l);
  return 0;
}

static int
key_hostname (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  const char *v;
  size_t n;
  char *copy = NULL;

  (void) k;
  if (config_setting_type (s) != CONFIG_TYPE_STRING)
    return fail (c, s, -EINVAL, "\"%s\" must be a string, not %s", name, type_name (s));
  v = config_setting_get_string (s);
  n = strlen (v);
  /* "" keeps bwrap's own (the uts namespace is new either way). */
  if (n > 0)
    {
      bool ok = n <= HOSTNAME_LEN_MAX && v[0] != '-';
      for (size_t i = 0; ok && i < n; i++)
        ok = isascii ((unsigned char) v[i]) && (isalnum ((unsigned char) v[i]) || v[i] == '-');
      if (!ok)
        {
          _cleanup_free_ char *esc = escaped (v);
          return fail (c, s, -EINVAL,
                       "\"%s\" must be 1 to 63 letters, digits or '-', not starting with '-': \"%s\"",
                       name, esc != NULL ? esc : "?");
        }
      copy = strdup (v);
      if (copy == NULL)
        return -ENOMEM;
    }
  return set_string (&p->hostname, copy);
}

static int
key_max_mounts (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  long long v;

  (void) k;
  if (!is_int (s))
    return fail (c, s, -EINVAL, "\"%s\" must be an integer, not %s", name, type_name (s));
  v = config_setting_get_int64 (s);
  if (v < 1 || v > BWSH_ENTRIES_MAX)
    return fail (c, s, -ERANGE, "\"%s\" must be between 1 and %d", name, BWSH_ENTRIES_MAX);
  p->max_mounts = (unsigned) v;
  return 0;
}

static int
key_rlimit (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  int64_t v;

  if (is_int (s))
    {
      long long ll = config_setting_get_int64 (s);
      if (ll < k->aux)
        return fail (c, s, -ERANGE, "\"%s\" must be at least %lld", name, k->aux);
      v = (int64_t) ll;
    }
  else if (config_setting_type (s) == CONFIG_TYPE_STRING
           && strcmp (config_setting_get_string (s), "unlimited") == 0)
    v = BWSH_RLIMIT_INFINITY;
  else if (config_setting_type (s) == CONFIG_TYPE_STRING
           && strcmp (config_setting_get_string (s), "inherit") == 0)
    v = BWSH_RLIMIT_UNSET;
  else
    return fail (c, s, -EINVAL, "\"%s\" must be an integer, \"unlimited\" or \"inherit\"", name);
  *FIELD (p, k->off, int64_t) = v;
  return 0;
}

/* Ports: a list of 1..65535 (an empty list allows nothing), or "any". */
static int
key_ports (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  _cleanup_ (bind_list_clearp) BwshBindList l = { 0 };
  bool *set = FIELD (p, (size_t) k->aux, bool);
  int r;

  if (config_setting_type (s) == CONFIG_TYPE_STRING && strcmp (config_setting_get_string (s), "any") == 0)
    {
      bwsh_bind_list_clear (FIELD (p, k->off, BwshBindList));
      *set = false;
      return 0;
    }
  if (!is_vector (s))
    return fail (c, s, -EINVAL, "\"%s\" must be a list of port numbers or \"any\", not %s", name,
                 type_name (s));
  r = check_vector (c, s, name, "port numbers");
  if (r < 0)
    return r;
  for (int i = 0; i < config_setting_length (s); i++)
    {
      const config_setting_t *e = config_setting_get_elem (s, (unsigned) i);
      char buf[16];
      long long v;
      BwshSource from;

      if (!is_int (e))
        return fail (c, located (s, e), -EINVAL, "\"%s\" entries must be port numbers, not %s", name,
                     type_name (e));
      v = config_setting_get_int64 (e);
      if (v < 1 || v > 65535)
        return fail (c, located (s, e), -ERANGE, "\"%s\": port %lld is not between 1 and 65535", name, v);
      snprintf (buf, sizeof buf, "%lld", v);
      elem_where (c, s, e, &from);
      r = bwsh_bind_list_add (&l, buf, NULL, &from);
      if (r < 0)
        return r;
    }
  replace_list (FIELD (p, k->off, BwshBindList), &l);
  *set = true;
  return 0;
}

typedef enum
{
  SCOPE_ROOT,  /* top level of a file: "match" is handled apart */
  SCOPE_MATCH, /* a match block: "user" and "group" are its selector */
  SCOPE_GROUP, /* a settings group such as "rlimits" */
} Scope;

static int apply_settings (Ctx *c, BwshPolicy *p, const config_setting_t *group, const Key *keys,
                           const char *prefix, Scope scope);

static int
key_group (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  if (!config_setting_is_group (s))
    return fail (c, s, -EINVAL, "\"%s\" must be a group { ... }, not %s", name, type_name (s));
  return apply_settings (c, p, s, k->sub, name, SCOPE_GROUP);
}

#define OFF(f) offsetof (BwshPolicy, f)

static const Key rlimit_keys[] = {
  { "core", key_rlimit, OFF (rlimit_core), 0, NULL },
  { "nproc", key_rlimit, OFF (rlimit_nproc), 1, NULL },
  { "nofile", key_rlimit, OFF (rlimit_nofile), 1, NULL },
  { NULL, NULL, 0, 0, NULL },
};

static const Key subject_keys[] = {
  { "all", key_bool, OFF (subject_all), 0, NULL },
  { "users", key_accounts, OFF (subject_users), 0, NULL },
  { "groups", key_accounts, OFF (subject_groups), 0, NULL },
  { NULL, NULL, 0, 0, NULL },
};

static const Key landlock_keys[] = {
  { "mode", key_landlock_mode, 0, 0, NULL },
  { "scope_abstract_unix", key_bool, OFF (scope_abstract_unix), 0, NULL },
  { "scope_signal", key_bool, OFF (scope_signal), 0, NULL },
  { "tcp_connect", key_ports, OFF (tcp_connect), OFF (tcp_connect_set), NULL },
  { "tcp_bind", key_ports, OFF (tcp_bind), OFF (tcp_bind_set), NULL },
  { NULL, NULL, 0, 0, NULL },
};

static const Key root_keys[] = {
  { "shell", key_abs_path, OFF (shell), 0, NULL },
  { "project_dir", key_bind_template, OFF (project_dir), 0, NULL },
  { "user_project_dir", key_bool, OFF (user_may_choose_project), 0, NULL },
  { "user_config", key_template, OFF (user_config), 0, NULL },
  { "user_overlay", key_bool, OFF (user_overlay_allowed), 0, NULL },
  { "run", key_run, 0, 0, NULL },
  { "dev", key_dev, 0, 0, NULL },
  { "network", key_network, 0, 0, NULL },
  { "root_size", key_size, OFF (root_tmpfs_size), 0, NULL },
  { "tmp_size", key_size, OFF (tmp_tmpfs_size), 0, NULL },
  { "rw_ceilings", key_paths, OFF (rw_ceilings), 0, NULL },
  { "ro_ceilings", key_paths, OFF (ro_ceilings), 0, NULL },
  { "protected", key_paths, OFF (protected_paths), 0, NULL },
  { "locked", key_paths, OFF (locked), 0, NULL },
  { "ro_binds", key_binds, OFF (ro_binds), 0, NULL },
  { "rw_binds", key_binds, OFF (rw_binds), 0, NULL },
  { "env_allow", key_env, OFF (env_allow), 0, NULL },
  { "rlimits", key_group, 0, 0, rlimit_keys },
  { "strict", key_bool, OFF (strict), 0, NULL },
  { "hostname", key_hostname, 0, 0, NULL },
  { "max_mounts", key_max_mounts, 0, 0, NULL },
  { "subjects", key_group, 0, 0, subject_keys },
  { "require_shell", key_bool, OFF (require_shell), 0, NULL },
  { "refused_services", key_services, OFF (refused_services), 0, NULL },
  { "landlock", key_group, 0, 0, landlock_keys },
  { NULL, NULL, 0, 0, NULL },
};

static int
apply_settings (Ctx *c, BwshPolicy *p, const config_setting_t *group, const Key *keys,
                const char *prefix, Scope scope)
{
  for (int i = 0; i < config_setting_length (group); i++)
    {
      const config_setting_t *s = config_setting_get_elem (group, (unsigned) i);
      const char *n = config_setting_name (s);
      char full[256];
      const Key *k;
      int r;

      if (prefix != NULL)
        snprintf (full, sizeof full, "%s.%s", prefix, n);
      else
        snprintf (full, sizeof full, "%s", n);

      if (strcmp (n, "match") == 0 && scope == SCOPE_ROOT)
        continue;
      if (strcmp (n, "match") == 0 && scope == SCOPE_MATCH)
        return fail (c, s, -EINVAL, "\"match\" blocks cannot be nested");
      if ((strcmp (n, "user") == 0 || strcmp (n, "group") == 0) && scope == SCOPE_MATCH)
        continue;

      for (k = keys; k->name != NULL; k++)
        if (strcmp (k->name, n) == 0)
          break;
      if (k->name == NULL)
        return fail (c, s, -EINVAL, "unknown setting \"%s\"", full);
      r = k->fn (c, p, s, full, k);
      if (r < 0)
        return r;
    }
  return 0;
}

/* --------------------------------------------------------- match blocks */

typedef enum
{
  PHASE_GLOBAL,
  PHASE_GROUP,
  PHASE_USER,
} Phase;

/* Validate the "match" list; with @ret_n its length (0 when absent). */
static int
match_list (Ctx *c, const config_setting_t *root, const config_setting_t **ret, int *ret_n)
{
  const config_setting_t *m = config_setting_get_member (root, "match");
  int n;

  *ret = m;
  *ret_n = 0;
  if (m == NULL)
    return 0;
  if (!is_vector (m))
    return fail (c, m, -EINVAL, "\"match\" must be a list of blocks ( { user = \"...\"; ... }, ... ), not %s",
                 type_name (m));
  n = config_setting_length (m);
  if (n > MATCH_BLOCKS_MAX)
    return fail (c, m, -E2BIG, "\"match\" has more than %d blocks", MATCH_BLOCKS_MAX);
  for (int i = 0; i < n; i++)
    {
      const config_setting_t *b = config_setting_get_elem (m, (unsigned) i);
      const config_setting_t *u, *g;

      if (!config_setting_is_group (b))
        return fail (c, located (m, b), -EINVAL, "\"match\" entries must be blocks { ... }, not %s",
                     type_name (b));
      u = config_setting_get_member (b, "user");
      g = config_setting_get_member (b, "group");
      if ((u == NULL) == (g == NULL))
        return fail (c, b, -EINVAL, "a \"match\" block needs exactly one of \"user\" or \"group\"");
    }
  *ret_n = n;
  return 0;
}

static int
apply_matches (Ctx *c, BwshPolicy *p, BwshPolicy **scratch, const BwshIdentity *id, Phase phase)
{
  const config_setting_t *root = config_root_setting (&c->doc->cfg);
  const config_setting_t *m;
  const char *sel = phase == PHASE_USER ? "user" : "group";
  int n, r;

  r = match_list (c, root, &m, &n);
  if (r < 0)
    return r;
  for (int i = 0; i < n; i++)
    {
      const config_setting_t *b = config_setting_get_elem (m, (unsigned) i);
      const config_setting_t *who = config_setting_get_member (b, sel);
      _cleanup_ (bind_list_clearp) BwshBindList names = { 0 };
      bool fits = false;
      char full[16];

      if (who == NULL)
        continue;
      /* Groups come from NSS on first use.  If they cannot be listed, a
       * restrictive group block must not be skipped as "not a member". */
      if (phase == PHASE_GROUP && id != NULL && (r = bwsh_identity_load_groups (id, c->err)) < 0)
        return r;
      snprintf (full, sizeof full, "match.%s", sel);
      r = get_names (c, who, full, account_name_ok,
                     phase == PHASE_USER ? "a user name" : "a group name",
                     phase == PHASE_USER ? "user names" : "group names", true, &names);
      if (r < 0)
        return r;
      for (size_t j = 0; id != NULL && j < names.n; j++)
        if (phase == PHASE_USER ? strcmp (id->name, names.items[j].src) == 0
                                : bwsh_identity_in_group (id, names.items[j].src))
          fits = true;
      /* A block that does not apply is still checked in full, on a scratch
       * policy: an error must not wait for the one user it concerns. */
      if (!fits && *scratch == NULL && (r = bwsh_policy_new_defaults (scratch)) < 0)
        return r;
      r = apply_settings (c, fits ? p : *scratch, b, root_keys, NULL, SCOPE_MATCH);
      if (r < 0)
        return r;
    }
  return 0;
}

static int
apply_phase (PolicyDoc *d, BwshPolicy *p, BwshPolicy **scratch, const BwshIdentity *id, Phase phase,
             BwshError *err)
{
  Ctx c = { .doc = d, .err = err };

  if (phase == PHASE_GLOBAL)
    {
      const config_setting_t *m;
      int n, r;

      r = apply_settings (&c, p, config_root_setting (&d->cfg), root_keys, NULL, SCOPE_ROOT);
      if (r < 0)
        return r;
      return match_list (&c, config_root_setting (&d->cfg), &m, &n);
    }
  return apply_matches (&c, p, scratch, id, phase);
}

static int
resolve_subject (BwshPolicy *p, const BwshIdentity *id, BwshError *err)
{
  p->is_subject = p->subject_all;
  if (id == NULL)
    return 0;
  if (id->name != NULL && bwsh_bind_list_contains (&p->subject_users, id->name))
    p->is_subject = true;
  if (p->is_subject || p->subject_groups.n == 0)
    return 0;
  /* Not knowing the groups must not make somebody a non-subject. */
  int r = bwsh_identity_load_groups (id, err);
  if (r < 0)
    return r;
  for (size_t i = 0; i < p->subject_groups.n; i++)
    if (bwsh_identity_in_group (id, p->subject_groups.items[i].src))
      p->is_subject = true;
  return 0;
}

/* Apply parsed documents in precedence order (see the top of this file). */
static int
apply_docs (PolicyDoc **docs, size_t n, BwshPolicy *p, const BwshIdentity *id, BwshError *err)
{
  _cleanup_ (policy_freep) BwshPolicy *scratch = NULL;
  static const Phase phases[] = { PHASE_GLOBAL, PHASE_GROUP, PHASE_USER };

  for (size_t ph = 0; ph < BWSH_N_ELEMENTS (phases); ph++)
    for (size_t i = 0; i < n; i++)
      {
        int r = apply_phase (docs[i], p, &scratch, id, phases[ph], err);
        if (r < 0)
          return r;
      }
  return resolve_subject (p, id, err);
}

static void
swap_policy (BwshPolicy *a, BwshPolicy *b)
{
  BwshPolicy t = *a;
  *a = *b;
  *b = t;
}

int
bwsh_policy_parse_buffer (BwshPolicy *p, const char *buf, const char *filename, const char *dir,
                          const BwshIdentity *id, BwshError *err)
{
  _cleanup_ (policy_freep) BwshPolicy *work = NULL;
  _cleanup_ (doc_freep) PolicyDoc *doc = NULL;
  int r;

  if (p == NULL || buf == NULL)
    return bwsh_error_set (err, -EINVAL, filename, 0, 0, "no policy to parse");
  /* @p stays as it was unless the whole buffer is good. */
  r = policy_dup (p, &work);
  if (r < 0)
    return r;
  r = doc_new (filename, dir, &doc);
  if (r < 0)
    return r;
  r = doc_parse (doc, buf, &work->files, err);
  if (r < 0)
    return r;
  r = apply_docs (&doc, 1, work, id, err);
  if (r < 0)
    return r;
  swap_policy (p, work);
  return 0;
}

/* ----------------------------------------------------------------- load */

static char *
dir_of (const char *path)
{
  const char *slash = strrchr (path, '/');

  if (slash == NULL)
    return strdup (".");
  if (slash == path)
    return strdup ("/");
  return strndup (path, (size_t) (slash - path));
}

static int
cmp_names (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static bool
is_dropin_name (const char *n)
{
  size_t len = strlen (n);
  return n[0] != '.' && len > 5 && strcmp (n + len - 5, ".conf") == 0;
}

typedef struct Docs
{
  PolicyDoc **v;
  size_t n;
} Docs;

static void
docs_clear (Docs *d)
{
  for (size_t i = 0; i < d->n; i++)
    doc_free (d->v[i]);
  free (d->v);
  *d = (Docs) { 0 };
}

/* @ret_missing tells a missing file apart from any other -ENOENT (a
 * missing @include is an error, never "no policy"). */
static int
load_one (Docs *docs, const char *path, const char *dir, BwshPolicy *p, bool *ret_missing,
          BwshError *err)
{
  _cleanup_free_ char *data = NULL;
  _cleanup_ (doc_freep) PolicyDoc *doc = NULL;
  PolicyDoc **v;
  int r;

  *ret_missing = false;
  r = read_policy_file (path, &data, err);
  if (r == -ENOENT)
    *ret_missing = true;
  if (r < 0)
    return r;
  r = record_file (&p->files, path);
  if (r < 0)
    return r;
  r = doc_new (path, dir, &doc);
  if (r < 0)
    return r;
  r = doc_parse (doc, data, &p->files, err);
  if (r < 0)
    return r;
  v = reallocarray (docs->v, docs->n + 1, sizeof *v);
  if (v == NULL)
    return -ENOMEM;
  docs->v = v;
  docs->v[docs->n++] = steal_pointer (&doc);
  return 0;
}

static void
free_names (char **names, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free (names[i]);
  free (names);
}

/* The drop-ins: conf.d/NAME.conf in strcmp() order.  Other names are ignored;
 * a .conf entry that is not a trusted regular file is an error. */
static int
load_dropins (Docs *docs, const char *confd, BwshPolicy *p, BwshError *err)
{
  _cleanup_close_ int fd = -1;
  DIR *dir = NULL;
  char **names = NULL;
  size_t n = 0;
  struct dirent *de;
  int r;

  r = bwsh_check_path_trusted (confd, BWSH_OWNER_ROOT, 0, err);
  if (r == -ENOENT)
    return 0;
  if (r < 0)
    return r;
  fd = open (confd, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    {
      if (errno == ENOENT)
        return 0;
      return bwsh_error_set (err, -errno, confd, 0, 0, "cannot open directory: %s", strerror (errno));
    }
  dir = fdopendir (fd);
  if (dir == NULL)
    return bwsh_error_set (err, -errno, confd, 0, 0, "cannot read directory: %s", strerror (errno));
  fd = -1; /* owned by dir now */

  r = 0;
  errno = 0;
  while ((de = readdir (dir)) != NULL)
    {
      char **v;

      if (!is_dropin_name (de->d_name))
        continue;
      if (n >= CONFD_FILES_MAX)
        {
          r = bwsh_error_set (err, -E2BIG, confd, 0, 0, "more than %d drop-in files", CONFD_FILES_MAX);
          goto out;
        }
      v = reallocarray (names, n + 1, sizeof *v);
      if (v == NULL)
        {
          r = -ENOMEM;
          goto out;
        }
      names = v;
      names[n] = strdup (de->d_name);
      if (names[n] == NULL)
        {
          r = -ENOMEM;
          goto out;
        }
      n++;
    }
  if (errno != 0)
    {
      r = bwsh_error_set (err, -errno, confd, 0, 0, "cannot read directory: %s", strerror (errno));
      goto out;
    }
  if (n > 0)
    qsort (names, n, sizeof *names, cmp_names);

  for (size_t i = 0; i < n; i++)
    {
      _cleanup_free_ char *path = NULL;
      bool missing;

      if (asprintf (&path, "%s/%s", confd, names[i]) < 0)
        {
          r = -ENOMEM;
          goto out;
        }
      r = load_one (docs, path, confd, p, &missing, err);
      if (missing) /* removed while we looked: it is simply gone */
        r = 0;
      if (r < 0)
        goto out;
    }

out:
  free_names (names, n);
  closedir (dir);
  return r;
}

int
bwsh_policy_load (const char *path, const BwshIdentity *id, BwshPolicy **ret, BwshError *err)
{
  _cleanup_ (policy_freep) BwshPolicy *p = NULL;
  _cleanup_free_ char *dir = NULL, *confd = NULL;
  Docs docs = { 0 };
  bool missing;
  int r;

  if (path == NULL || path[0] != '/')
    return bwsh_error_set (err, -EINVAL, path, 0, 0, "the policy path must be absolute");
  r = bwsh_policy_new_defaults (&p);
  if (r < 0)
    return r;
  dir = dir_of (path);
  if (dir == NULL || asprintf (&confd, "%s/conf.d", dir) < 0)
    return -ENOMEM;

  /* A missing main file means built-in defaults; drop-ins still apply, so
   * a restriction deployed there is not lost when the main file is. */
  r = load_one (&docs, path, dir, p, &missing, err);
  if (r < 0 && !missing)
    goto out;
  r = load_dropins (&docs, confd, p, err);
  if (r < 0)
    goto out;
  r = apply_docs (docs.v, docs.n, p, id, err);
  if (r < 0)
    goto out;
  *ret = steal_pointer (&p);

out:
  /* Strings were copied out while applying; libconfig's memory goes here. */
  docs_clear (&docs);
  return r;
}
