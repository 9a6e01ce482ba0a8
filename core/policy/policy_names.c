/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The names of the policy's enum settings, as explain and doctor write them. */
#include "config.h"

#include "policy.h"

const char *
bwsh_record_mode_to_string (BwshRecordMode m)
{
  switch (m)
    {
    case BWSH_RECORD_OFF:
      return "off";
    case BWSH_RECORD_TTY:
      return "tty";
    case BWSH_RECORD_REQUIRED:
      return "required";
    default:
      return "?";
    }
}

const char *
bwsh_net_engine_to_string (BwshNetEngine e)
{
  return e == BWSH_NET_ENGINE_PASTA ? "pasta" : "slirp4netns";
}

const char *
bwsh_net_mode_to_string (BwshNetMode m)
{
  switch (m)
    {
    case BWSH_NET_SHARED:
      return "shared";
    case BWSH_NET_NONE:
      return "none";
    case BWSH_NET_PRIVATE:
      return "private";
    default:
      return "?";
    }
}
