/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the session asks of Landlock, copied from the policy into the plan:
 * launch/landlock.c applies it. */
#include "config.h"

#include "bind_list.h"
#include "plan.h"
#include "policy.h"

bool
bwsh_landlock_required_by_network (const BwshPolicy *pol)
{
  return pol->net_mode == BWSH_NET_SHARED && pol->landlock == BWSH_LANDLOCK_BEST_EFFORT && !pol->landlock_mode_set;
}

int
bwsh_landlock_request_from_policy (const BwshPolicy *pol, BwshLandlockRequest *ret)
{
  /* A shared network leaves the host's abstract sockets and loopback ports
   * to Landlock alone (#14), so there best effort is not the default: only
   * a policy that writes landlock.mode = "best_effort" gets it. */
  bool for_shared_network = bwsh_landlock_required_by_network (pol);
  BwshLandlockRequest req = {
    .mode = for_shared_network ? BWSH_LANDLOCK_REQUIRED : pol->landlock,
    .for_shared_network = for_shared_network,
    .scope_abstract_unix = pol->scope_abstract_unix,
    .scope_signal = pol->scope_signal,
    .tcp_connect_set = pol->tcp_connect_set,
    .tcp_bind_set = pol->tcp_bind_set,
  };
  int r;

  r = bwsh_bind_list_copy (&req.tcp_connect, &pol->tcp_connect);
  if (r >= 0)
    r = bwsh_bind_list_copy (&req.tcp_bind, &pol->tcp_bind);
  if (r < 0)
    {
      bwsh_landlock_request_clear (&req);
      return r;
    }
  *ret = req;
  return 0;
}

void
bwsh_landlock_request_clear (BwshLandlockRequest *req)
{
  bwsh_bind_list_clear (&req->tcp_connect);
  bwsh_bind_list_clear (&req->tcp_bind);
  *req = (BwshLandlockRequest) { 0 };
}
