/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: names and NSS (nsscheck.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "bind_list.h"
#include "errors.h"
#include "policy.h"

/* One user or group name the policy uses to choose whom it concerns. */
typedef struct BwshNssName
{
  char *name;
  bool is_group;
  const char *key;  /* "subjects.users", "subjects.groups", "match.user", "match.group", "lock_groups" */
  BwshSource from;  /* where the name is written */
  int lookup;       /* 0: NSS knows it; -ENOENT: NSS does not; other -errno: the lookup failed */
  long members;     /* groups, with @resolve: how many users hold it; -1 otherwise */
} BwshNssName;

typedef struct BwshNssReport
{
  BwshNssName *items; /* each name once, in policy order: subjects, match blocks, lock groups */
  size_t n;
  size_t n_unknown;   /* items whose lookup is not 0 */
} BwshNssReport;

/* Look up through NSS every user and group name of @p's "subjects", of
 * its "match" blocks and its "lock_groups": a name NSS does not know confines nobody, so it is
 * most likely a typo.  With @resolve, count the users of each group: its
 * member list (SSSD flattens nested groups into it) plus the accounts NSS
 * enumerates whose primary group it is (SSSD enumerates no directory users
 * unless "enumerate = true", so those are local accounts).  The report
 * borrows its file names from @p: clear it before freeing @p.  Never prints. */
int bwsh_nss_check (const BwshPolicy *p, bool resolve, BwshNssReport *ret, BwshError *err);
void bwsh_nss_report_clear (BwshNssReport *r);
