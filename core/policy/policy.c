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

#include "bind_list.h"
#include "bounds.h"
#include "cleanup.h"
#include "policy.h"
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
  offsetof (BwshPolicy, match_groups),   offsetof (BwshPolicy, lock_groups),
};

static const size_t string_fields[] = {
  offsetof (BwshPolicy, shell),
  offsetof (BwshPolicy, project_dir),
  offsetof (BwshPolicy, user_config),
  offsetof (BwshPolicy, hostname),
  offsetof (BwshPolicy, state_dir),
  offsetof (BwshPolicy, shell_from.file),
  offsetof (BwshPolicy, lock_reason),
};

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
  p->net_engine = BWSH_NET_ENGINE_SLIRP4NETNS;
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
  p->lock_group = -1;
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

const char *
bwsh_enum_to_string (const BwshEnumName *names, int value)
{
  for (; names->name != NULL; names++)
    if (names->value == value)
      return names->name;
  return "?";
}

int
bwsh_enum_from_string (const BwshEnumName *names, const char *name, int *ret)
{
  for (; names->name != NULL; names++)
    if (strcmp (names->name, name) == 0)
      {
        *ret = names->value;
        return 0;
      }
  return -EINVAL;
}

/* An enum setting's names, in the order the docs give them, and its
 * to-string.  Its field is written as an int by bwsh_policy_key_enum. */
#define ENUM_NAMES(type, fn, ...)                                                     \
  _Static_assert (sizeof (type) == sizeof (int), #type " is stored as an int");       \
  static const BwshEnumName fn##_names[] = { __VA_ARGS__, { NULL, 0 } };              \
  const char *bwsh_##fn##_to_string (type v)                                          \
  {                                                                                   \
    return bwsh_enum_to_string (fn##_names, (int) v);                                 \
  }

ENUM_NAMES (BwshRunMode, run_mode, { "tmpfs", BWSH_RUN_TMPFS }, { "host", BWSH_RUN_HOST })
ENUM_NAMES (BwshDevMode, dev_mode, { "minimal", BWSH_DEV_MINIMAL }, { "host", BWSH_DEV_HOST })
ENUM_NAMES (BwshNetMode, net_mode, { "private", BWSH_NET_PRIVATE }, { "none", BWSH_NET_NONE },
            { "shared", BWSH_NET_SHARED })
ENUM_NAMES (BwshNetEngine, net_engine, { "slirp4netns", BWSH_NET_ENGINE_SLIRP4NETNS },
            { "pasta", BWSH_NET_ENGINE_PASTA })
ENUM_NAMES (BwshRecordMode, record_mode, { "off", BWSH_RECORD_OFF }, { "tty", BWSH_RECORD_TTY },
            { "required", BWSH_RECORD_REQUIRED })
ENUM_NAMES (BwshStartDir, start_dir, { "home", BWSH_START_HOME }, { "project", BWSH_START_PROJECT })
ENUM_NAMES (BwshStateMode, state_mode, { "tmpfs", BWSH_STATE_TMPFS }, { "persistent", BWSH_STATE_PERSISTENT },
            { "none", BWSH_STATE_NONE })
ENUM_NAMES (BwshUserConfigMode, user_config_mode, { "editable", BWSH_USER_CONFIG_EDITABLE },
            { "readonly", BWSH_USER_CONFIG_READONLY }, { "off", BWSH_USER_CONFIG_OFF })
ENUM_NAMES (BwshLandlockMode, landlock_mode, { "best_effort", BWSH_LANDLOCK_BEST_EFFORT },
            { "required", BWSH_LANDLOCK_REQUIRED }, { "off", BWSH_LANDLOCK_OFF })

static int
key_group (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k)
{
  if (!config_setting_is_group (s))
    return policy_fail (c, s, -EINVAL, "\"%s\" must be a group { ... }, not %s", name, policy_type_name (s));
  return policy_apply_settings (c, p, s, k->sub, name, SCOPE_GROUP);
}

#define OFF(f) offsetof (BwshPolicy, f)

static const Key rlimit_keys[] = {
  { "core", bwsh_policy_key_rlimit, OFF (rlimit_core), 0, NULL },
  { "nproc", bwsh_policy_key_rlimit, OFF (rlimit_nproc), 1, NULL },
  { "nofile", bwsh_policy_key_rlimit, OFF (rlimit_nofile), 1, NULL },
  { NULL, NULL, 0, 0, NULL },
};

static const Key subject_keys[] = {
  { "all", bwsh_policy_key_bool, OFF (subject_all), 0, NULL },
  { "users", bwsh_policy_key_accounts, OFF (subject_users), 0, NULL },
  { "groups", bwsh_policy_key_accounts, OFF (subject_groups), 0, NULL },
  { NULL, NULL, 0, 0, NULL },
};

static const Key landlock_keys[] = {
  { "mode", bwsh_policy_key_enum, OFF (landlock), OFF (landlock_mode_set), landlock_mode_names },
  { "scope_abstract_unix", bwsh_policy_key_bool, OFF (scope_abstract_unix), 0, NULL },
  { "scope_signal", bwsh_policy_key_bool, OFF (scope_signal), 0, NULL },
  { "tcp_connect", bwsh_policy_key_ports, OFF (tcp_connect), OFF (tcp_connect_set), NULL },
  { "tcp_bind", bwsh_policy_key_ports, OFF (tcp_bind), OFF (tcp_bind_set), NULL },
  { NULL, NULL, 0, 0, NULL },
};

const Key policy_root_keys[] = {
  { "shell", bwsh_policy_key_shell, OFF (shell), 0, NULL },
  { "project_dir", bwsh_policy_key_bind_template, OFF (project_dir), 0, NULL },
  { "user_project_dir", bwsh_policy_key_bool, OFF (user_may_choose_project), 0, NULL },
  { "user_config", bwsh_policy_key_template, OFF (user_config), 0, NULL },
  { "user_overlay", bwsh_policy_key_bool, OFF (user_overlay_allowed), 0, NULL },
  { "user_config_mode", bwsh_policy_key_enum, OFF (user_config_mode), 0, user_config_mode_names },
  { "run", bwsh_policy_key_enum, OFF (run_mode), 0, run_mode_names },
  { "dev", bwsh_policy_key_enum, OFF (dev_mode), 0, dev_mode_names },
  { "network", bwsh_policy_key_enum, OFF (net_mode), 0, net_mode_names },
  { "network_engine", bwsh_policy_key_enum, OFF (net_engine), 0, net_engine_names },
  { "record", bwsh_policy_key_enum, OFF (record_mode), 0, record_mode_names },
  { "root_size", bwsh_policy_key_size, OFF (root_tmpfs_size), 0, NULL },
  { "tmp_size", bwsh_policy_key_size, OFF (tmp_tmpfs_size), 0, NULL },
  { "start_dir", bwsh_policy_key_enum, OFF (start_dir), 0, start_dir_names },
  { "state", bwsh_policy_key_enum, OFF (state_mode), 0, state_mode_names },
  { "state_dir", bwsh_policy_key_state_dir, OFF (state_dir), 0, NULL },
  { "rw_ceilings", bwsh_policy_key_paths, OFF (rw_ceilings), 0, NULL },
  { "ro_ceilings", bwsh_policy_key_paths, OFF (ro_ceilings), 0, NULL },
  { "protected", bwsh_policy_key_paths, OFF (protected_paths), 0, NULL },
  { "locked", bwsh_policy_key_paths, OFF (locked), 0, NULL },
  { "ro_binds", bwsh_policy_key_binds, OFF (ro_binds), 0, NULL },
  { "rw_binds", bwsh_policy_key_binds, OFF (rw_binds), 0, NULL },
  { "env_allow", bwsh_policy_key_env, OFF (env_allow), 0, NULL },
  { "rlimits", key_group, 0, 0, rlimit_keys },
  { "strict", bwsh_policy_key_bool, OFF (strict), 0, NULL },
  { "hostname", bwsh_policy_key_hostname, 0, 0, NULL },
  { "max_mounts", bwsh_policy_key_max_mounts, 0, 0, NULL },
  { "max_sessions", bwsh_policy_key_max_sessions, 0, 0, NULL },
  { "subjects", key_group, 0, 0, subject_keys },
  { "lock_groups", bwsh_policy_key_accounts, OFF (lock_groups), 0, NULL },
  { "lock_reason", bwsh_policy_key_lock_reason, 0, 0, NULL },
  { "require_shell", bwsh_policy_key_bool, OFF (require_shell), 0, NULL },
  { "refused_services", bwsh_policy_key_services, OFF (refused_services), 0, NULL },
  { "allowed_services", bwsh_policy_key_services, OFF (allowed_services), 0, NULL },
  { "landlock", key_group, 0, 0, landlock_keys },
  { NULL, NULL, 0, 0, NULL },
};

int
policy_apply_settings (Ctx *c, BwshPolicy *p, const config_setting_t *group, const Key *keys,
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
          size_t np = strlen (prefix), nn = strlen (n);
          /* snprintf() only for a name it would cut: not on every setting (#37). */
          if (np + 1 + nn < sizeof dotted)
            {
              memcpy (dotted, prefix, np);
              dotted[np] = '.';
              memcpy (dotted + np + 1, n, nn + 1);
            }
          else
            snprintf (dotted, sizeof dotted, "%s.%s", prefix, n);
          full = dotted;
        }

      if (strcmp (n, "match") == 0 && scope == SCOPE_ROOT)
        continue;
      if (strcmp (n, "match") == 0 && scope == SCOPE_MATCH)
        return policy_fail (c, s, -EINVAL, "\"match\" blocks cannot be nested");
      if ((strcmp (n, "user") == 0 || strcmp (n, "group") == 0) && scope == SCOPE_MATCH)
        continue;

      /* The first character before strcmp(): most keys differ there (#37). */
      for (k = keys; k->name != NULL; k++)
        if (k->name[0] == n[0] && strcmp (k->name, n) == 0)
          break;
      if (k->name == NULL)
        return policy_fail (c, s, -EINVAL, "unknown setting \"%s\"", full);
      r = k->fn (c, p, s, full, k);
      if (r < 0)
        return r;
    }
  return 0;
}


static int
settings_foreach (const Key *keys, const char *prefix, BwshSettingFn fn, void *userdata)
{
  for (const Key *k = keys; k->name != NULL; k++)
    {
      char dotted[256];
      int r;

      snprintf (dotted, sizeof dotted, "%s%s%s", prefix != NULL ? prefix : "", prefix != NULL ? "." : "", k->name);
      if (k->fn == key_group)
        r = settings_foreach (k->sub, dotted, fn, userdata);
      else
        r = fn (dotted, k->fn == bwsh_policy_key_enum ? (const BwshEnumName *) k->sub : NULL, k->off, userdata);
      if (r < 0)
        return r;
    }
  return 0;
}

int
bwsh_policy_settings_foreach (BwshSettingFn fn, void *userdata)
{
  return settings_foreach (policy_root_keys, NULL, fn, userdata);
}
