/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy: loading bwsh.conf and conf.d, and trusting them.
 *
 * A file is read only when root owns it and its directory chain, and it is
 * not group or world writable (bwsh_check_path_trusted()).
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

#include "cleanup.h"
#include "errors.h"
#include "format.h"
#include "identity.h"
#include "policy.h"
#include "policy_internal.h"
#include "safeopen.h"

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
    policy_doc_free (d->v[i]);
  free (d->v);
  *d = (Docs) { 0 };
}

/* @ret_missing tells a missing file apart from any other -ENOENT (a
 * missing @include is an error, never "no policy"). */
static int
load_one (Docs *docs, const char *path, const char *dir, BwshPolicy *p, BwshTrustedDir *memo, bool *ret_missing,
          BwshError *err)
{
  _cleanup_free_ char *data = NULL;
  _cleanup_ (policy_doc_freep) PolicyDoc *doc = NULL;
  PolicyDoc **v;
  int r;

  *ret_missing = false;
  r = policy_read_file (path, memo, &data, err);
  if (r == -ENOENT)
    *ret_missing = true;
  if (r < 0)
    return r;
  r = policy_record_file (&p->files, path);
  if (r < 0)
    return r;
  r = policy_doc_new (path, dir, &doc);
  if (r < 0)
    return r;
  r = policy_doc_parse (doc, data, &p->files, err);
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
load_dropins (Docs *docs, const char *confd, BwshPolicy *p, BwshTrustedDir *memo, BwshError *err)
{
  _cleanup_close_ int fd = -1;
  DIR *dir = NULL;
  char **names = NULL;
  size_t n = 0;
  struct dirent *de;
  int r;

  r = bwsh_check_path_trusted_in (confd, BWSH_OWNER_ROOT, 0, memo, err);
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

      if ((path = bwsh_concat3 (confd, "/", names[i])) == NULL)
        {
          r = -ENOMEM;
          goto out;
        }
      r = load_one (docs, path, confd, p, memo, &missing, err);
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
  /* The directories bwsh.conf and conf.d share are checked once. */
  BwshTrustedDir memo = BWSH_TRUSTED_DIR_INIT;
  Docs docs = { 0 };
  bool missing;
  int r;

  if (path == NULL || path[0] != '/')
    return bwsh_error_set (err, -EINVAL, path, 0, 0, "the policy path must be absolute");
  r = bwsh_policy_new_defaults (&p);
  if (r < 0)
    return r;
  dir = dir_of (path);
  if (dir == NULL || (confd = bwsh_concat3 (dir, "/conf.d", "")) == NULL)
    return -ENOMEM;

  /* A missing main file means built-in defaults; drop-ins still apply, so
   * a restriction deployed there is not lost when the main file is. */
  r = load_one (&docs, path, dir, p, &memo, &missing, err);
  if (r < 0 && !missing)
    goto out;
  r = load_dropins (&docs, confd, p, &memo, err);
  if (r < 0)
    goto out;
  r = policy_apply_docs (docs.v, docs.n, p, id, err);
  if (r < 0)
    goto out;
  *ret = steal_pointer (&p);

out:
  /* Strings were copied out while applying; libconfig's memory goes here. */
  docs_clear (&docs);
  bwsh_trusted_dir_clear (&memo);
  return r;
}

const char *
bwsh_policy_path (void)
{
  return BWSH_POLICY_PATH;
}
