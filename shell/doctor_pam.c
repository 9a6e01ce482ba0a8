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
#include "doctor.h"

void
pam_stack_clear (PamStack *st)
{
  free (st->readenv_at);
  st->readenv_at = NULL;
}

const char *
module_base (const char *path)
{
  const char *b = strrchr (path, '/');
  return b != NULL ? b + 1 : path;
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
      if (strcasecmp (type, "session") == 0 && strncmp (module, "common-session", strlen ("common-session")) == 0)
        st->common_session = true;
      (void) walk_pam (root, st, module, type, depth + 1);
      return;
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

