/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who the session is for: NSS only, never $HOME, $USER or $SHELL. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "errors.h"
#include "identity.h"
#include "path.h"

/* getgrouplist() reports how many groups there are when the buffer is too
 * small; NGROUPS_MAX on Linux is 65536, so cap the retries there. */
#define GROUPS_MAX 65536

struct BwshGroupCache
{
  bool loaded;
  int error;
  char **names;
  size_t n;
};

static void
group_cache_free (struct BwshGroupCache *c)
{
  if (c == NULL)
    return;
  for (size_t i = 0; i < c->n; i++)
    free (c->names[i]);
  free (c->names);
  free (c);
}

BwshIdentity *
bwsh_identity_free (BwshIdentity *id)
{
  if (id == NULL)
    return NULL;
  group_cache_free (id->group_cache);
  free (id->name);
  free (id->home);
  free (id->shell);
  for (size_t i = 0; i < id->n_groups; i++)
    free (id->groups[i]);
  free (id->groups);
  free (id);
  return NULL;
}

static int
fill_groups (const BwshIdentity *id, struct BwshGroupCache *cache, BwshError *err)
{
  _cleanup_free_ gid_t *gids = NULL;
  _cleanup_free_ char *buf = NULL;
  int n = 32;
  long bufsize;

  for (;;)
    {
      gid_t *g = realloc (gids, sizeof (gid_t) * (size_t) n);
      int want = n;

      if (g == NULL)
        return -ENOMEM;
      gids = g;
      if (getgrouplist (id->name, id->gid, gids, &want) >= 0)
        {
          n = want;
          break;
        }
      if (want <= n || want > GROUPS_MAX)
        return bwsh_error_set (err, -E2BIG, NULL, 0, 0, "too many groups for user %s", id->name);
      n = want;
    }

  cache->names = calloc ((size_t) n + 1, sizeof (char *));
  if (cache->names == NULL)
    return -ENOMEM;

  bufsize = sysconf (_SC_GETGR_R_SIZE_MAX);
  if (bufsize <= 0)
    bufsize = 16384;
  for (int i = 0; i < n; i++)
    {
      struct group gr, *res = NULL;
      int r;

      for (;;)
        {
          char *b = realloc (buf, (size_t) bufsize);
          if (b == NULL)
            return -ENOMEM;
          buf = b;
          r = getgrgid_r (gids[i], &gr, buf, (size_t) bufsize, &res);
          if (r != ERANGE || bufsize > (1 << 24))
            break;
          bufsize *= 2;
        }
      /* A gid without a name cannot match a policy group block: skip it. */
      if (r != 0 || res == NULL)
        continue;
      cache->names[cache->n] = strdup (gr.gr_name);
      if (cache->names[cache->n] == NULL)
        return -ENOMEM;
      cache->n++;
    }
  return 0;
}

static int
identity_from_passwd (const struct passwd *pw, BwshIdentity **ret, BwshError *err)
{
  _cleanup_ (bwsh_identity_freep) BwshIdentity *id = NULL;

  id = calloc (1, sizeof *id);
  if (id == NULL)
    return -ENOMEM;
  id->uid = pw->pw_uid;
  id->gid = pw->pw_gid;
  id->name = strdup (pw->pw_name);
  id->shell = strdup (pw->pw_shell != NULL ? pw->pw_shell : "");
  if (id->name == NULL || id->shell == NULL)
    return -ENOMEM;
  if (pw->pw_dir == NULL || bwsh_path_normalize (pw->pw_dir, &id->home) != BWSH_PATH_OK)
    return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "home directory of %s is not a valid absolute path",
                           pw->pw_name);
  if (strcmp (id->home, "/") == 0)
    return bwsh_error_set (err, -EINVAL, NULL, 0, 0, "home directory of %s is /", pw->pw_name);
  id->group_cache = calloc (1, sizeof *id->group_cache);
  if (id->group_cache == NULL)
    return -ENOMEM;
  *ret = steal_pointer (&id);
  return 0;
}

static int
lookup (uid_t uid, const char *name, BwshIdentity **ret, BwshError *err)
{
  _cleanup_free_ char *buf = NULL;
  struct passwd pw, *res = NULL;
  long bufsize = sysconf (_SC_GETPW_R_SIZE_MAX);
  int r;

  if (bufsize <= 0)
    bufsize = 16384;
  for (;;)
    {
      char *b = realloc (buf, (size_t) bufsize);
      if (b == NULL)
        return -ENOMEM;
      buf = b;
      if (name != NULL)
        r = getpwnam_r (name, &pw, buf, (size_t) bufsize, &res);
      else
        r = getpwuid_r (uid, &pw, buf, (size_t) bufsize, &res);
      if (r != ERANGE || bufsize > (1 << 24))
        break;
      bufsize *= 2;
    }
  /* getpwnam_r(3): "0 or ENOENT or ESRCH or EBADF or EPERM or ..." is how
   * NSS modules say "not found"; glibc passes the module's errno through. */
  if (r != 0 && !(res == NULL && (r == ENOENT || r == ESRCH || r == EBADF || r == EPERM)))
    return bwsh_error_set (err, -r, NULL, 0, 0, "cannot look up user: %s", strerror (r));
  if (res == NULL)
    {
      if (name != NULL)
        return bwsh_error_set (err, -ENOENT, NULL, 0, 0, "no such user: %s", name);
      return bwsh_error_set (err, -ENOENT, NULL, 0, 0, "no passwd entry for uid %u", (unsigned) uid);
    }
  return identity_from_passwd (res, ret, err);
}

int
bwsh_identity_from_uid (uid_t uid, BwshIdentity **ret, BwshError *err)
{
  return lookup (uid, NULL, ret, err);
}

int
bwsh_identity_from_name (const char *name, BwshIdentity **ret, BwshError *err)
{
  return lookup (0, name, ret, err);
}

int
bwsh_identity_load_groups (const BwshIdentity *id, BwshError *err)
{
  struct BwshGroupCache *c = id->group_cache;

  if (c == NULL || id->groups != NULL)
    return 0;
  if (!c->loaded)
    {
      c->loaded = true;
      c->error = fill_groups (id, c, err);
      return c->error;
    }
  if (c->error < 0)
    return bwsh_error_set (err, c->error, NULL, 0, 0, "cannot list the groups of %s", id->name);
  return 0;
}

bool
bwsh_identity_in_group (const BwshIdentity *id, const char *group)
{
  struct BwshGroupCache *c = id->group_cache;

  for (size_t i = 0; i < id->n_groups; i++)
    if (strcmp (id->groups[i], group) == 0)
      return true;
  if (c == NULL || bwsh_identity_load_groups (id, NULL) < 0)
    return false;
  for (size_t i = 0; i < c->n; i++)
    if (strcmp (c->names[i], group) == 0)
      return true;
  return false;
}
