/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The names a policy matches on, checked against NSS (bwshctl check). */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bind_list.h"
#include "cleanup.h"
#include "errors.h"
#include "nsscheck.h"
#include "policy.h"

/* A group entry of 1,000 members is about 20 KiB; SSSD's may be far larger. */
#define NSS_BUF_MAX (1 << 24)

void
bwsh_nss_report_clear (BwshNssReport *r)
{
  if (r == NULL)
    return;
  for (size_t i = 0; i < r->n; i++)
    free (r->items[i].name);
  free (r->items);
  *r = (BwshNssReport) { 0 };
}

static void
report_clearp (BwshNssReport *r)
{
  bwsh_nss_report_clear (r);
}

/* getpwnam_r/getgrnam_r into a buffer that grows on ERANGE.  0 found,
 * -ENOENT not found, other -errno when NSS could not answer. */
static int
lookup (const char *name, bool group, char **buf, struct group *gr)
{
  size_t size = 16384;

  for (;;)
    {
      struct passwd pw, *pres = NULL;
      struct group *gres = NULL;
      char *b = realloc (*buf, size);
      int r;

      if (b == NULL)
        return -ENOMEM;
      *buf = b;
      if (group)
        r = getgrnam_r (name, gr, b, size, &gres);
      else
        r = getpwnam_r (name, &pw, b, size, &pres);
      if (r == ERANGE && size < NSS_BUF_MAX)
        {
          size *= 2;
          continue;
        }
      /* glibc reports "not found" as 0 and a NULL result; some modules say
       * ENOENT (or ESRCH, EBADF, EPERM: getpwnam(3)) for the same. */
      if (r == 0 || r == ENOENT || r == ESRCH)
        return (group ? gres != NULL : pres != NULL) ? 0 : -ENOENT;
      return -r;
    }
}

static bool
report_has (const BwshNssReport *r, const char *name, bool group)
{
  for (size_t i = 0; i < r->n; i++)
    if (r->items[i].is_group == group && strcmp (r->items[i].name, name) == 0)
      return true;
  return false;
}

static int
add_names (BwshNssReport *r, const BwshBindList *l, bool group, const char *key)
{
  for (size_t i = 0; i < l->n; i++)
    {
      BwshNssName *items;

      if (report_has (r, l->items[i].src, group))
        continue;
      items = realloc (r->items, (r->n + 1) * sizeof *items);
      if (items == NULL)
        return -ENOMEM;
      r->items = items;
      items[r->n] = (BwshNssName) {
        .name = strdup (l->items[i].src),
        .is_group = group,
        .key = key,
        .from = l->items[i].from,
        .members = -1,
      };
      if (items[r->n].name == NULL)
        return -ENOMEM;
      r->n++;
    }
  return 0;
}

static bool
in_list (char *const *list, const char *name)
{
  for (; list != NULL && *list != NULL; list++)
    if (strcmp (*list, name) == 0)
      return true;
  return false;
}

/* Members of each looked-up group: gr_mem now, then one pass over the
 * enumerable accounts for primary groups (members not already counted). */
typedef struct
{
  gid_t gid;
  char **mem; /* a copy of gr_mem */
} GroupMembers;

static void
members_free (GroupMembers *g, size_t n)
{
  if (g == NULL)
    return;
  for (size_t i = 0; i < n; i++)
    {
      for (char **m = g[i].mem; m != NULL && *m != NULL; m++)
        free (*m);
      free (g[i].mem);
    }
  free (g);
}

static int
copy_members (const struct group *gr, GroupMembers *g, long *count)
{
  size_t n = 0;

  while (gr->gr_mem != NULL && gr->gr_mem[n] != NULL)
    n++;
  g->gid = gr->gr_gid;
  g->mem = calloc (n + 1, sizeof (char *));
  if (g->mem == NULL)
    return -ENOMEM;
  for (size_t i = 0; i < n; i++)
    if ((g->mem[i] = strdup (gr->gr_mem[i])) == NULL)
      return -ENOMEM;
  *count = (long) n;
  return 0;
}

static void
count_primary (BwshNssReport *r, GroupMembers *g)
{
  struct passwd *pw;

  setpwent ();
  while ((pw = getpwent ()) != NULL)
    for (size_t i = 0; i < r->n; i++)
      if (r->items[i].is_group && r->items[i].lookup == 0 && g[i].mem != NULL && g[i].gid == pw->pw_gid
          && !in_list (g[i].mem, pw->pw_name))
        r->items[i].members++;
  endpwent ();
}

int
bwsh_nss_check (const BwshPolicy *p, bool resolve, BwshNssReport *ret, BwshError *err)
{
  _cleanup_ (report_clearp) BwshNssReport r = { 0 };
  _cleanup_free_ char *buf = NULL;
  GroupMembers *g = NULL;
  int rc;

  if ((rc = add_names (&r, &p->subject_users, false, "subjects.users")) < 0
      || (rc = add_names (&r, &p->subject_groups, true, "subjects.groups")) < 0
      || (rc = add_names (&r, &p->match_users, false, "match.user")) < 0
      || (rc = add_names (&r, &p->match_groups, true, "match.group")) < 0
      || (rc = add_names (&r, &p->lock_groups, true, "lock_groups")) < 0)
    return bwsh_error_set (err, rc, NULL, 0, 0, "cannot list the policy's names: %s", strerror (-rc));

  if (resolve && r.n > 0 && (g = calloc (r.n, sizeof *g)) == NULL)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  for (size_t i = 0; i < r.n; i++)
    {
      BwshNssName *it = &r.items[i];
      struct group gr;

      it->lookup = lookup (it->name, it->is_group, &buf, &gr);
      if (it->lookup == -ENOMEM)
        {
          members_free (g, r.n);
          return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
        }
      if (it->lookup != 0)
        r.n_unknown++;
      else if (g != NULL && it->is_group && (rc = copy_members (&gr, &g[i], &it->members)) < 0)
        {
          members_free (g, r.n);
          return bwsh_error_set (err, rc, NULL, 0, 0, "out of memory");
        }
    }
  if (g != NULL)
    {
      count_primary (&r, g);
      members_free (g, r.n);
    }
  *ret = r;
  r = (BwshNssReport) { 0 };
  return 0;
}
