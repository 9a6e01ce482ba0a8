/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwshctl doctor: walking a PAM stack (/etc/pam.d/SERVICE, following
 * @include, include and substack) for pam_bwsh and pam_env user_readenv. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <grp.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "doctor_pam.h"

void
pam_stack_clear (PamStack *st)
{
  free (st->readenv_at);
  st->readenv_at = NULL;
  free (st->acct_jump_at);
  st->acct_jump_at = NULL;
  free (st->acct_end_at);
  st->acct_end_at = NULL;
}

const char *
module_base (const char *path)
{
  const char *b = strrchr (path, '/');
  return b != NULL ? b + 1 : path;
}

/* An account line before pam_bwsh's (issue 38): what it does on success.
 * "sufficient" and an action "done" end the stack there, with success for
 * a local user at pam_localuser (SSSD's profile); a jump "N" skips the N
 * lines after it.  Either way pam_bwsh would not decide that user's
 * account stage.  A failure's "die" or "bad" only refuses: not counted. */
static void
account_may_end (PamStack *st, char *const *tok, size_t n_control, size_t idx, const char *file, int lineno)
{
  _cleanup_free_ char *at = NULL;
  const char *action = NULL;
  size_t target = 0;

  if (n_control == 1 && strcmp (tok[0], "sufficient") == 0)
    action = "done";
  for (size_t k = 0; action == NULL && k < n_control; k++)
    {
      /* [value=action ...]: success's own action, else the default's. */
      const char *t = tok[k] + (k == 0 && tok[k][0] == '[');
      if (strncmp (t, "success=", 8) == 0)
        action = t + 8;
    }
  for (size_t k = 0; action == NULL && k < n_control; k++)
    {
      const char *t = tok[k] + (k == 0 && tok[k][0] == '[');
      if (strncmp (t, "default=", 8) == 0)
        action = t + 8;
    }
  if (action == NULL)
    return;
  if (strncmp (action, "done", 4) != 0)
    {
      char *end;
      long v;

      errno = 0;
      v = strtol (action, &end, 10);
      if (errno != 0 || end == action || (*end != '\0' && *end != ']') || v <= 0)
        return;
      target = idx + (size_t) v + 1;
      if (target <= st->acct_jump_to)
        return;
    }
  if (asprintf (&at, "%s:%d (%s%s%s %s)", file, lineno, tok[0], n_control > 1 ? " ... " : "",
                n_control > 1 ? tok[n_control - 1] : "", tok[n_control])
      < 0)
    return;
  if (target == 0)
    {
      if (st->acct_end_at == NULL)
        st->acct_end_at = steal_pointer (&at);
      return;
    }
  st->acct_jump_to = target;
  free (st->acct_jump_at);
  st->acct_jump_at = steal_pointer (&at);
}

/* What the stack's line of @type for @module (its options from tok[@i] to
 * tok[@n]) tells about pam_bwsh: the account stage's order and jumps, the
 * session's order, pam_env's user_readenv. */
static void
note_module (PamStack *st, const char *type, const char *module, char **tok, size_t i, size_t n, const char *file,
             int lineno)
{
  /* A substack's "done" and jumps end only the substack. */
  if (strcasecmp (type, "account") == 0 && st->substack == 0)
    {
      size_t idx = st->acct_n++;
      if (strcmp (module_base (module), "pam_bwsh.so") != 0)
        {
          if (!st->bwsh_account)
            account_may_end (st, tok + 1, i - 2, idx, file, lineno);
        }
      else if (!st->bwsh_account && st->acct_end_at == NULL && st->acct_jump_to > idx)
        st->acct_end_at = steal_pointer (&st->acct_jump_at);
    }
  if (strcasecmp (type, "account") == 0 && strcmp (module_base (module), "pam_bwsh.so") == 0)
    st->bwsh_account = true;
  if (strcasecmp (type, "session") == 0)
    st->order++;
  if (strcasecmp (type, "session") == 0 && strcmp (module_base (module), "pam_bwsh.so") == 0 && !st->bwsh)
    {
      st->bwsh = true;
      st->bwsh_pos = st->order;
    }
  if ((strcasecmp (type, "session") == 0 || strcasecmp (type, "auth") == 0)
      && strcmp (module_base (module), "pam_env.so") == 0)
    {
      for (; i < n; i++)
        if (strcmp (tok[i], "user_readenv=1") == 0)
          {
            /* The last one counts: it is the one that runs after the others. */
            st->readenv = true;
            st->readenv_pos = strcasecmp (type, "session") == 0 ? st->order : 0;
            free (st->readenv_at);
            if (asprintf (&st->readenv_at, "%s:%d", file, lineno) < 0)
              st->readenv_at = NULL;
          }
    }
}

static void
pam_line (const char *root, PamStack *st, char *line, const char *file, int lineno, const char *type_filter, int depth)
{
  char *tok[64];
  size_t n = 0;
  char *save = NULL;
  char *type, *control, *module;
  size_t i;

  line[strcspn (line, "#\n")] = '\0';
  for (char *t = strtok_r (line, " \t", &save); t != NULL && n < BWSH_N_ELEMENTS (tok); t = strtok_r (NULL, " \t", &save))
    tok[n++] = t;
  if (n == 0)
    return;
  if (strcmp (tok[0], "@include") == 0)
    {
      if (n >= 2 && strncmp (tok[1], "common-session", strlen ("common-session")) == 0)
        st->common_session = true;
      if (n >= 2)
        (void) walk_pam (root, st, tok[1], type_filter, depth + 1);
      return;
    }
  if (n < 3)
    return;
  type = tok[0];
  if (*type == '-')
    type++;
  control = tok[1];
  i = 2;
  if (control[0] == '[')
    {
      /* [value=action ...] may hold blanks. */
      if (strchr (control, ']') == NULL)
        while (i < n && strchr (tok[i++], ']') == NULL)
          ;
    }
  if (i >= n)
    return;
  module = tok[i++];
  if (type_filter != NULL && strcasecmp (type, type_filter) != 0)
    return;

  if (strcmp (control, "include") == 0 || strcmp (control, "substack") == 0)
    {
      bool sub = strcmp (control, "substack") == 0;
      if (strcasecmp (type, "session") == 0 && strncmp (module, "common-session", strlen ("common-session")) == 0)
        st->common_session = true;
      st->substack += sub;
      (void) walk_pam (root, st, module, type, depth + 1);
      st->substack -= sub;
      return;
    }
  note_module (st, type, module, tok, i, n, file, lineno);
}

/* Walk /etc/pam.d/NAME (under --root), following @include, include and substack. */
int
walk_pam (const char *root, PamStack *st, const char *name, const char *type_filter, int depth)
{
  _cleanup_free_ char *rel = NULL, *path = NULL;
  _cleanup_fclose_ FILE *f = NULL;
  char line[PAM_LINE_MAX];
  int lineno = 0;

  if (depth > PAM_DEPTH_MAX)
    {
      st->loop = true;
      return -ELOOP;
    }
  if (name[0] == '/')
    rel = strdup (name);
  else if (asprintf (&rel, "/etc/pam.d/%s", name) < 0)
    rel = NULL;
  if (rel == NULL)
    return -ENOMEM;
  if (asprintf (&path, "%s%s", root, rel) < 0)
    return -ENOMEM;
  f = fopen (path, "re");
  if (f == NULL)
    return -errno;
  while (fgets (line, sizeof line, f) != NULL)
    {
      lineno++;
      pam_line (root, st, line, rel, lineno, type_filter, depth);
    }
  return 0;
}

