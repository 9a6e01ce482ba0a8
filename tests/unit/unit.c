/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit.h"

static int
remove_one (const char *path, const struct stat *st, int type, struct FTW *ftw)
{
  (void) st;
  (void) ftw;
  if ((type == FTW_DP ? rmdir (path) : unlink (path)) < 0 && errno != ENOENT)
    return -errno;
  return 0;
}

int
unit_rm_rf (const char *path)
{
  int r = nftw (path, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);

  if (r < 0)
    return errno == ENOENT ? 0 : -errno;
  return r;
}

int
unit_mkdirs (const char *path)
{
  char buf[PATH_MAX];
  size_t n = strlen (path);

  if (path[0] != '/' || n >= sizeof buf)
    return -EINVAL;
  memcpy (buf, path, n + 1);
  for (char *p = buf + 1;; p++)
    {
      if (*p == '/' || *p == '\0')
        {
          char c = *p;
          *p = '\0';
          if (mkdir (buf, 0755) < 0 && errno != EEXIST)
            return -errno;
          *p = c;
          if (c == '\0')
            return 0;
        }
    }
}

BwshIdentity *
unit_identity (const char *home, const char *shell)
{
  BwshIdentity *id = calloc (1, sizeof *id);

  if (id == NULL)
    return NULL;
  id->uid = getuid ();
  id->gid = getgid ();
  id->name = strdup ("tester");
  id->home = strdup (home);
  id->shell = strdup (shell);
  if (id->name == NULL || id->home == NULL || id->shell == NULL)
    return bwsh_identity_free (id);
  return id;
}

void
unit_skip_at (const char *why, const char *file, int line)
{
  const char *ci = getenv ("CI");

  if (ci != NULL && strcmp (ci, "true") == 0)
    {
      print_error ("%s:%d: cannot run here (%s), and CI=true forbids skipping\n", file, line, why);
      _fail (file, line);
    }
  print_message ("skipping: %s\n", why);
  _skip (file, line);
  abort (); /* _skip() does not return */
}

void
unit_chgrp_not_own (const char *path)
{
  gid_t groups[256], g = geteuid () == 0 ? (gid_t) 65534 : (gid_t) -1;
  int n = geteuid () == 0 ? 0 : getgroups (256, groups);

  for (int i = 0; i < n && g == (gid_t) -1; i++)
    if (groups[i] != getegid ())
      g = groups[i];
  if (g == (gid_t) -1)
    unit_skip ("the caller has no group but its primary one");
  assert_int_equal (lchown (path, (uid_t) -1, g), 0);
}

UnitPlanFx *
unit_plan_fx_new (const char *name, const char *shell, const char *const *subdirs, bool outside)
{
  UnitPlanFx *f = calloc (1, sizeof *f);
  char d[PATH_MAX + 32];

  if (f == NULL)
    return NULL;
  snprintf (f->home, sizeof f->home, "/tmp/bwsh-unit-%s-XXXXXX", name);
  if (outside)
    snprintf (f->outside, sizeof f->outside, "/tmp/bwsh-unit-%s-out-XXXXXX", name);
  if (mkdtemp (f->home) == NULL || (outside && mkdtemp (f->outside) == NULL))
    goto fail;
  snprintf (d, sizeof d, "%s/project", f->home);
  if (mkdir (d, 0700) < 0)
    goto fail;
  for (size_t i = 0; subdirs != NULL && subdirs[i] != NULL; i++)
    {
      snprintf (d, sizeof d, "%s/%s", f->home, subdirs[i]);
      if (mkdir (d, 0700) < 0)
        goto fail;
    }
  f->id = unit_identity (f->home, shell);
  if (f->id == NULL || bwsh_policy_new_defaults (&f->pol) < 0)
    goto fail;
  return f;
fail:
  unit_plan_fx_free (f);
  return NULL;
}

int
unit_plan_fx_free (UnitPlanFx *f)
{
  int r = 0;

  if (f == NULL)
    return 0;
  if (f->home[0] != '\0')
    r = unit_rm_rf (f->home);
  if (r == 0 && f->outside[0] != '\0')
    r = unit_rm_rf (f->outside);
  bwsh_identity_free (f->id);
  bwsh_policy_free (f->pol);
  free (f);
  return r == 0 ? 0 : -1;
}

char *
unit_plan_fx_subst (const UnitPlanFx *f, const char *tmpl)
{
  size_t cap = strlen (tmpl) * (strlen (f->home) + strlen (f->outside) + 1) + 1;
  char *out = malloc (cap), *o = out;

  if (out == NULL)
    return NULL;
  for (const char *p = tmpl; *p != '\0'; p++)
    {
      if (p[0] == '@' && (p[1] == 'H' || p[1] == 'O'))
        {
          const char *v = p[1] == 'H' ? f->home : f->outside;
          memcpy (o, v, strlen (v));
          o += strlen (v);
          p++;
        }
      else
        *o++ = *p;
    }
  *o = '\0';
  return out;
}

char *
unit_read_file (const char *path)
{
  char *text;
  FILE *f;
  long n;

  f = fopen (path, "re");
  if (f == NULL)
    fail_msg ("%s: %s", path, strerror (errno));
  assert_int_equal (fseek (f, 0, SEEK_END), 0);
  n = ftell (f);
  assert_true (n >= 0);
  rewind (f);
  text = calloc (1, (size_t) n + 1);
  assert_non_null (text);
  assert_int_equal (fread (text, 1, (size_t) n, f), (size_t) n);
  fclose (f);
  return text;
}
