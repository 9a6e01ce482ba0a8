/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "errors.h"
#include "plan.h"
#include "policy.h"
#include "procstat.h"
#include "registration.h"
#include "registry.h"

static char *
dup_or_dash (const char *s)
{
  return strdup (s != NULL ? s : "-");
}

int
bwsh_session_register (const BwshSession *s, const BwshRegistration *reg, char **ret_id, size_t *ret_live,
                       BwshError *err)
{
  BwshSessionEntry e = { 0 };
  size_t live = 0;
  int r;

  e.uid = s->id->uid;
  e.start = reg->start != 0 ? reg->start : (int64_t) time (NULL);
  e.pid = getpid ();
  e.home_epoch = s->plan != NULL ? s->plan->home_epoch : 0; /* plan.h */
  snprintf (e.plan_digest, sizeof e.plan_digest, "%s", reg->plan_digest);
  if (reg->policy_digest != NULL)
    snprintf (e.policy_digest, sizeof e.policy_digest, "%s", reg->policy_digest);
  if ((e.user = dup_or_dash (reg->user != NULL ? reg->user : s->id->name)) == NULL
      || (e.service = dup_or_dash (reg->service)) == NULL || (e.rhost = dup_or_dash (reg->rhost)) == NULL
      || (e.tty = dup_or_dash (reg->tty)) == NULL
      || (e.command = dup_or_dash (reg->command != NULL ? reg->command : s->id->shell)) == NULL
      || (e.policy_path = strdup (reg->policy_path != NULL ? reg->policy_path : bwsh_policy_path ())) == NULL)
    r = bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  else
    r = bwsh_pid_start_time (e.pid, &e.pid_start);
  if (r >= 0)
    r = bwsh_registry_register (NULL, &e, s->policy->max_sessions, &live, err);
  if (r >= 0 && ret_id != NULL)
    *ret_id = steal_pointer (&e.id);
  bwsh_session_entry_clear (&e);
  if (ret_live != NULL)
    *ret_live = live;
  return r;
}
