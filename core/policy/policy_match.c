/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy: "match" blocks and the precedence of the documents.
 *
 * See policy.c for the order, lowest first: defaults, top-level settings in
 * file order, group blocks, user blocks.
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
#include "cleanup.h"
#include "errors.h"
#include "identity.h"
#include "policy.h"
#include "policy_internal.h"

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
  if (!policy_is_vector (m))
    return policy_fail (c, m, -EINVAL, "\"match\" must be a list of blocks ( { user = \"...\"; ... }, ... ), not %s",
                        policy_type_name (m));
  n = config_setting_length (m);
  if (n > MATCH_BLOCKS_MAX)
    return policy_fail (c, m, -E2BIG, "\"match\" has more than %d blocks", MATCH_BLOCKS_MAX);
  for (int i = 0; i < n; i++)
    {
      const config_setting_t *b = config_setting_get_elem (m, (unsigned) i);
      const config_setting_t *u, *g;

      if (!config_setting_is_group (b))
        return policy_fail (c, policy_located (m, b), -EINVAL, "\"match\" entries must be blocks { ... }, not %s",
                            policy_type_name (b));
      u = config_setting_get_member (b, "user");
      g = config_setting_get_member (b, "group");
      if ((u == NULL) == (g == NULL))
        return policy_fail (c, b, -EINVAL, "a \"match\" block needs exactly one of \"user\" or \"group\"");
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
      _cleanup_ (policy_bind_list_clearp) BwshBindList names = { 0 };
      bool fits = false;
      char full[16];

      if (who == NULL)
        continue;
      /* Groups come from NSS on first use.  If they cannot be listed, a
       * restrictive group block must not be skipped as "not a member". */
      if (phase == PHASE_GROUP && id != NULL && (r = bwsh_identity_load_groups (id, c->err)) < 0)
        return r;
      snprintf (full, sizeof full, "match.%s", sel);
      r = policy_get_names (c, who, full, policy_account_name_ok,
                            phase == PHASE_USER ? "a user name" : "a group name",
                            phase == PHASE_USER ? "user names" : "group names", true, &names);
      if (r < 0)
        return r;
      for (size_t j = 0; j < names.n; j++)
        if ((r = bwsh_bind_list_add (phase == PHASE_USER ? &p->match_users : &p->match_groups,
                                     names.items[j].src, NULL, &names.items[j].from)) < 0)
          return r;
      for (size_t j = 0; id != NULL && j < names.n; j++)
        if (phase == PHASE_USER ? strcmp (id->name, names.items[j].src) == 0
                                : bwsh_identity_in_group (id, names.items[j].src))
          fits = true;
      /* A block that does not apply is still checked in full, on a scratch
       * policy: an error must not wait for the one user it concerns. */
      if (!fits && *scratch == NULL && (r = bwsh_policy_new_defaults (scratch)) < 0)
        return r;
      r = policy_apply_settings (c, fits ? p : *scratch, b, policy_root_keys, NULL, SCOPE_MATCH);
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

      r = policy_apply_settings (&c, p, config_root_setting (&d->cfg), policy_root_keys, NULL, SCOPE_ROOT);
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

/* lock_groups (#39): answered from the group list the subject check loaded
 * (one getgrouplist() per identity, bwsh_identity_load_groups()).  Root and
 * non-subjects are never locked; not knowing a subject's groups refuses
 * (a directory that is down must not unlock anybody). */
static int
resolve_lock_group (BwshPolicy *p, const BwshIdentity *id, BwshError *err)
{
  int r;

  p->lock_group = -1;
  if (id == NULL || !p->is_subject || id->uid == 0 || p->lock_groups.n == 0)
    return 0;
  r = bwsh_identity_load_groups (id, err);
  if (r < 0)
    return r;
  for (size_t i = 0; i < p->lock_groups.n && p->lock_group < 0; i++)
    if (bwsh_identity_in_group (id, p->lock_groups.items[i].src))
      p->lock_group = (int) i;
  return 0;
}

/* Apply parsed documents in precedence order (see the top of this file). */
int
policy_apply_docs (PolicyDoc **docs, size_t n, BwshPolicy *p, const BwshIdentity *id, BwshError *err)
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
  int r = resolve_subject (p, id, err);
  return r < 0 ? r : resolve_lock_group (p, id, err);
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
  _cleanup_ (policy_doc_freep) PolicyDoc *doc = NULL;
  int r;

  if (p == NULL || buf == NULL)
    return bwsh_error_set (err, -EINVAL, filename, 0, 0, "no policy to parse");
  /* @p stays as it was unless the whole buffer is good. */
  r = policy_dup (p, &work);
  if (r < 0)
    return r;
  r = policy_doc_new (filename, dir, &doc);
  if (r < 0)
    return r;
  r = policy_doc_parse (doc, buf, &work->files, err);
  if (r < 0)
    return r;
  r = policy_apply_docs (&doc, 1, work, id, err);
  if (r < 0)
    return r;
  swap_policy (p, work);
  return 0;
}

