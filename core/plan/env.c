/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The session's environment: what names the session, from NSS and the
 * policy, then the allow-listed variables of the caller.
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "cleanup.h"
#include "errors.h"
#include "format.h"
#include "identity.h"
#include "plan.h"
#include "plan_internal.h"
#include "policy.h"

/* Variables passed through from the caller's environment. */
static const char *const env_allow_default[] = {
  "TERM", "LANG", "LC_*", "TZ", "COLORTERM", "SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY",
};

/* fnmatch (@pat, @name, 0) == 0, asked only when the first characters can
 * match: without flags, a pattern's first character that is none of
 * "*?[\\" matches only itself.  Most of the caller's variables are
 * answered here, not by fnmatch() against each pattern (#37). */
static bool
env_pattern_matches (const char *pat, const char *name)
{
  if (strchr ("*?[\\", pat[0]) == NULL && pat[0] != name[0])
    return false;
  return fnmatch (pat, name, 0) == 0;
}

static bool
env_name_allowed (const BwshPolicy *pol, const char *name)
{
  for (size_t i = 0; i < BWSH_N_ELEMENTS (env_allow_default); i++)
    if (env_pattern_matches (env_allow_default[i], name))
      return true;
  for (size_t i = 0; i < pol->env_allow.n; i++)
    if (env_pattern_matches (pol->env_allow.items[i].src, name))
      return true;
  return false;
}

static int
env_add (BwshPlan *p, const char *name, const char *value)
{
  char **n = realloc (p->env, (p->n_env + 2) * sizeof (char *));

  if (n == NULL)
    return -ENOMEM;
  p->env = n;
  p->env[p->n_env] = bwsh_concat3 (name, "=", value);
  if (p->env[p->n_env] == NULL)
    return -ENOMEM;
  p->env[++p->n_env] = NULL;
  return 0;
}

/* Variables that name the session are set from NSS and the policy; a
 * caller's HOME=/ or SHELL=/tmp/evil never gets in. */
static const char *const env_fixed[] = { "HOME", "USER", "LOGNAME", "SHELL", "PATH" };

bool
bwsh_env_is_session_variable (const char *entry)
{
  size_t n = strcspn (entry, "=");

  for (size_t k = 0; k < BWSH_N_ELEMENTS (env_fixed); k++)
    if (strlen (env_fixed[k]) == n && strncmp (entry, env_fixed[k], n) == 0)
      return true;
  return false;
}

/* What the session, and its recorder, get for a client's TERM that is not a
 * terminal name (issue 36).  tlog-rec outside the sandbox puts TERM into
 * every record; a TERM of 3,000 bytes made each one larger than tlog's
 * payload and the recording empty, one that is not UTF-8 stopped tlog-rec.
 * "dumb" claims no capability: a program sends the real terminal no escape
 * sequence it may not understand, and every terminfo has it (ncurses-base). */
#define TERM_FALLBACK "dumb"
/* Longer than any terminfo name (ncurses keeps them far shorter). */
#define TERM_NAME_MAX 64

bool
bwsh_term_is_name (const char *term)
{
  size_t n = strlen (term);

  /* An alphanumeric first: no "-x" an option parser takes, no "." or "..". */
  if (n == 0 || n > TERM_NAME_MAX || !((term[0] >= 'a' && term[0] <= 'z') || (term[0] >= 'A' && term[0] <= 'Z')
                                       || (term[0] >= '0' && term[0] <= '9')))
    return false;
  return strspn (term, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") == n;
}

int
plan_build_env (const BwshIdentity *id, const BwshPolicy *pol, char *const *envp, BwshPlan *p, BwshError *err)
{
  int r;

  if ((r = env_add (p, "HOME", id->home)) < 0 || (r = env_add (p, "USER", id->name)) < 0
      || (r = env_add (p, "LOGNAME", id->name)) < 0 || (r = env_add (p, "SHELL", pol->shell)) < 0
      || (r = env_add (p, "PATH", "/usr/local/bin:/usr/bin:/bin")) < 0)
    return r;

  for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
    {
      const char *eq = strchr (envp[i], '=');
      _cleanup_free_ char *name = NULL;

      if (eq == NULL || eq == envp[i])
        continue;
      name = strndup (envp[i], (size_t) (eq - envp[i]));
      if (name == NULL)
        return -ENOMEM;
      if (bwsh_env_is_session_variable (name) || !env_name_allowed (pol, name))
        continue;
      /* Before the length check: a TERM of any size gets the fallback. */
      if (strcmp (name, "TERM") == 0 && !bwsh_term_is_name (eq + 1))
        {
          p->term_fallback = TERM_FALLBACK;
          if ((r = env_add (p, name, TERM_FALLBACK)) < 0)
            return r;
          continue;
        }
      /* Refuse rather than truncate: a shortened value is a different one. */
      if (strlen (eq + 1) > BWSH_ENV_VALUE_MAX)
        return bwsh_error_set (err, -E2BIG, NULL, 0, 0,
                               "environment variable %s is longer than %d bytes", name, BWSH_ENV_VALUE_MAX);
      /* bwrap's --dev has a devpts of its own, without the session's
       * pts, and binds the session's terminal at /dev/console: name that,
       * so that SSH_TTY and tty(1) agree on a device that exists. */
      if (strcmp (name, "SSH_TTY") == 0 && pol->dev_mode == BWSH_DEV_MINIMAL)
        r = env_add (p, name, "/dev/console");
      else
        r = env_add (p, name, eq + 1);
      if (r < 0)
        return r;
    }
  return 0;
}
