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

#include "bwshcore.h"
#include "cleanup.h"
#include "policy_internal.h"

/* ------------------------------------------------------ policy lifetime */

static const size_t list_fields[] = {
  offsetof (BwshPolicy, rw_ceilings),    offsetof (BwshPolicy, ro_ceilings),
  offsetof (BwshPolicy, protected_paths), offsetof (BwshPolicy, locked),
  offsetof (BwshPolicy, ro_binds),       offsetof (BwshPolicy, rw_binds),
  offsetof (BwshPolicy, env_allow),      offsetof (BwshPolicy, subject_users),
  offsetof (BwshPolicy, subject_groups), offsetof (BwshPolicy, refused_services),
  offsetof (BwshPolicy, allowed_services),
  offsetof (BwshPolicy, tcp_connect),    offsetof (BwshPolicy, tcp_bind),
  offsetof (BwshPolicy, files),          offsetof (BwshPolicy, match_users),
  offsetof (BwshPolicy, match_groups),
};

static const size_t string_fields[] = {
  offsetof (BwshPolicy, shell),
  offsetof (BwshPolicy, project_dir),
  offsetof (BwshPolicy, user_config),
  offsetof (BwshPolicy, hostname),
  offsetof (BwshPolicy, state_dir),
  offsetof (BwshPolicy, shell_from.file),
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

void
policy_freep (BwshPolicy **p)
{
  bwsh_policy_free (*p);
}

int
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
  static const char *const services[] = { "cron", "atd" };
  int r;

  p = calloc (1, sizeof *p);
  if (p == NULL)
    return -ENOMEM;
  p->shell = strdup ("/bin/bash");
  p->project_dir = strdup ("~/project");
  p->user_config = strdup ("~/.config/bwsh/config.json");
  p->state_dir = strdup ("~/.local/state/bwsh");
  if (p->shell == NULL || p->project_dir == NULL || p->user_config == NULL || p->state_dir == NULL)
    return -ENOMEM;
  p->user_may_choose_project = true;
  p->user_overlay_allowed = true;
  p->run_mode = BWSH_RUN_TMPFS;
  p->dev_mode = BWSH_DEV_MINIMAL;
  p->net_mode = BWSH_DEFAULT_NET_MODE;
  p->root_tmpfs_size = UINT64_C (64) * 1024 * 1024;
  p->tmp_tmpfs_size = UINT64_C (1024) * 1024 * 1024;
  p->start_dir = BWSH_START_HOME;
  p->state_mode = BWSH_STATE_TMPFS;
  /* No ceilings by default: a user's read-write bind lies in the project
   * directory and a read-only one in the user's own home (both built in,
   * plan/rules.c); rw_ceilings and ro_ceilings only widen that. */
  /* "protected" adds to bwsh_protected_defaults, which always apply. */
  p->user_config_mode = BWSH_USER_CONFIG_EDITABLE;
  p->rlimit_core = 0;
  p->rlimit_nproc = BWSH_DEFAULT_NPROC;
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

/* ----------------------------------------------------------- settings */


static void
where (Ctx *c, const config_setting_t *s, BwshSource *ret)
{
  char *file;
  int line;

  file = doc_locate (c->doc, config_setting_source_file (s), (int) config_setting_source_line (s),
                     &line);
  *ret = (BwshSource) { .origin = BWSH_ORIGIN_POLICY, .file = file, .line = line };
}


int
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

const char *
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

bool
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

/* The inner shell: where it was set, so that a shell missing at login is
 * reported at its line. */
static int
key_shell (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  BwshSource at;
  char *file;
  int r = key_abs_path (c, p, s, name, k);

  if (r < 0)
    return r;
  where (c, s, &at);
  file = strdup (at.file);
  if (file == NULL)
    return -ENOMEM;
  free (p->shell_from.file);
  p->shell_from = at;
  p->shell_from.file = file;
  return 0;
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
key_user_config_mode (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  static const EnumName names[] = {
    { "editable", BWSH_USER_CONFIG_EDITABLE },
    { "readonly", BWSH_USER_CONFIG_READONLY },
    { "off", BWSH_USER_CONFIG_OFF },
  };
  int v, r;

  (void) k;
  r = get_enum (c, s, name, names, BWSH_N_ELEMENTS (names), &v);
  if (r < 0)
    return r;
  p->user_config_mode = (BwshUserConfigMode) v;
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
  static const EnumName names[] = {
    { "private", BWSH_NET_PRIVATE },
    { "none", BWSH_NET_NONE },
    { "shared", BWSH_NET_SHARED },
  };
  int v = 0, r;

  (void) k;
  r = get_enum (c, s, name, names, BWSH_N_ELEMENTS (names), &v);
  if (r < 0)
    return r;
  p->net_mode = (BwshNetMode) v;
  return 0;
}

static int
key_record (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  static const EnumName names[] = {
    { "off", BWSH_RECORD_OFF },
    { "tty", BWSH_RECORD_TTY },
    { "required", BWSH_RECORD_REQUIRED },
  };
  int v = 0, r;

  (void) k;
  r = get_enum (c, s, name, names, BWSH_N_ELEMENTS (names), &v);
  if (r < 0)
    return r;
  p->record_mode = (BwshRecordMode) v;
  return 0;
}

static int
key_start_dir (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  static const EnumName names[] = { { "home", BWSH_START_HOME }, { "project", BWSH_START_PROJECT } };
  int v = 0, r;

  (void) k;
  r = get_enum (c, s, name, names, BWSH_N_ELEMENTS (names), &v);
  if (r < 0)
    return r;
  p->start_dir = (BwshStartDir) v;
  return 0;
}

static int
key_state (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  static const EnumName names[] = {
    { "tmpfs", BWSH_STATE_TMPFS },
    { "persistent", BWSH_STATE_PERSISTENT },
    { "none", BWSH_STATE_NONE },
  };
  int v = 0, r;

  (void) k;
  r = get_enum (c, s, name, names, BWSH_N_ELEMENTS (names), &v);
  if (r < 0)
    return r;
  p->state_mode = (BwshStateMode) v;
  return 0;
}

/* The places no state_dir may be are known before any user is: refuse
 * them here, with the line.  The plan checks again against the protected
 * paths and the project directory, and after resolving symlinks. */
static int
key_state_dir (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  _cleanup_free_ char *v = NULL, *expanded = NULL, *probe = NULL;
  const char *why;
  int r;

  r = get_path (c, s, name, true, true, &v);
  if (r < 0)
    return r;
  probe = strdup (v);
  if (probe == NULL)
    return -ENOMEM;
  for (char *q = strstr (probe, "%u"); q != NULL; q = strstr (q, "%u"))
    q[0] = q[1] = 'u';
  r = bwsh_path_expand (probe, CHECK_HOME, &expanded);
  if (r < 0)
    return r;
  why = bwsh_state_dir_refusal (NULL, 0, CHECK_HOME, NULL, expanded);
  if (why != NULL)
    return fail (c, s, -EPERM, "\"%s\": \"%s\" %s", name, v, why);
  return set_string (FIELD (p, k->off, char *), steal_pointer (&v));
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
  p->landlock_mode_set = true;
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

const config_setting_t *
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

void
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
bool
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

int
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
key_max_sessions (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  long long v;

  (void) k;
  if (!is_int (s))
    return fail (c, s, -EINVAL, "\"%s\" must be an integer, not %s", name, type_name (s));
  v = config_setting_get_int64 (s);
  if (v < 0 || v > BWSH_MAX_SESSIONS_MAX)
    return fail (c, s, -ERANGE, "\"%s\" must be between 0 (no limit) and %d", name, BWSH_MAX_SESSIONS_MAX);
  p->max_sessions = (unsigned) v;
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

const Key root_keys[] = {
  { "shell", key_shell, OFF (shell), 0, NULL },
  { "project_dir", key_bind_template, OFF (project_dir), 0, NULL },
  { "user_project_dir", key_bool, OFF (user_may_choose_project), 0, NULL },
  { "user_config", key_template, OFF (user_config), 0, NULL },
  { "user_overlay", key_bool, OFF (user_overlay_allowed), 0, NULL },
  { "user_config_mode", key_user_config_mode, 0, 0, NULL },
  { "run", key_run, 0, 0, NULL },
  { "dev", key_dev, 0, 0, NULL },
  { "network", key_network, 0, 0, NULL },
  { "record", key_record, 0, 0, NULL },
  { "root_size", key_size, OFF (root_tmpfs_size), 0, NULL },
  { "tmp_size", key_size, OFF (tmp_tmpfs_size), 0, NULL },
  { "start_dir", key_start_dir, 0, 0, NULL },
  { "state", key_state, 0, 0, NULL },
  { "state_dir", key_state_dir, OFF (state_dir), 0, NULL },
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
  { "max_sessions", key_max_sessions, 0, 0, NULL },
  { "subjects", key_group, 0, 0, subject_keys },
  { "require_shell", key_bool, OFF (require_shell), 0, NULL },
  { "refused_services", key_services, OFF (refused_services), 0, NULL },
  { "allowed_services", key_services, OFF (allowed_services), 0, NULL },
  { "landlock", key_group, 0, 0, landlock_keys },
  { NULL, NULL, 0, 0, NULL },
};

int
apply_settings (Ctx *c, BwshPolicy *p, const config_setting_t *group, const Key *keys,
                const char *prefix, Scope scope)
{
  for (int i = 0; i < config_setting_length (group); i++)
    {
      const config_setting_t *s = config_setting_get_elem (group, (unsigned) i);
      const char *n = config_setting_name (s), *full = n;
      char dotted[256];
      const Key *k;
      int r;

      if (prefix != NULL)
        {
          snprintf (dotted, sizeof dotted, "%s.%s", prefix, n);
          full = dotted;
        }

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

