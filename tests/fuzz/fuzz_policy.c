/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer: bytes as a policy file (bwsh.conf, libconfig syntax) ->
 * bwsh_policy_parse_buffer on top of the built-in defaults -> if it parses,
 * bwsh_plan_build with no overlay and with a hostile overlay -> render ->
 * the invariants of issue #6 (invariants.c).
 *
 * @include is confined to $BWSH_FUZZ_INCLUDE_DIR when set (run-one.sh puts a
 * few small policy files there), else includes are refused outright.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "invariants.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Everything a user would try against whatever the policy allows. */
static const char hostile_overlay[] =
  "{ \"preferences\": { \"sandboxBwrapMounts\": {\n"
  "  \"additionalROBinds\": [\"/\", \"/proc/1\", \"/etc/shadow\", \"/home/bwshfuzz/ro\",\n"
  "                         {\"src\": \"/home/bwshfuzz/x\", \"dst\": \"/usr\"},\n"
  "                         {\"src\": \"/home/bwshfuzz/x\", \"dst\": \"/home/bwshfuzz/.ssh\"}],\n"
  "  \"additionalBinds\": [\"/\", \"/etc\", \"/home/bwshfuzz\", \"/home/bwshfuzz/.ssh\",\n"
  "                       \"/home/bwshfuzz/.config/bwsh\", \"/home/bwshfuzz2\", \"/tmp\", \"/srv\",\n"
  "                       \"/home/bwshfuzz/../../etc\", \"/home/bwshfuzz/work\",\n"
  "                       {\"src\": \"/home/bwshfuzz/work\", \"dst\": \"/etc/cron.d\"},\n"
  "                       {\"src\": \"/etc\", \"dst\": \"/home/bwshfuzz/etc\"}],\n"
  "  \"disabledDefaultBinds\": [\"/\", \"/usr\", \"/etc\", \"/dev\", \"/proc\", \"/home/bwshfuzz\", \"/run\"] },\n"
  "  \"sandboxProjectDir\": \"/home/bwshfuzz/.config\" } }\n";

static BwshUserConfig *overlay;
static BwshIdentity identity;
static const char *include_dir;

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  BwshPolicy *pol = NULL;
  BwshError err = { 0 };
  char *buf;
  int r;

  if (overlay == NULL)
    {
      BwshDiag diag = { 0 };
      if (bwsh_user_config_parse (hostile_overlay, sizeof hostile_overlay - 1, FUZZ_HOME "/.config/bwsh/config.json",
                                  &overlay, &diag, &err)
          < 0)
        abort ();
      bwsh_diag_clear (&diag);
      fuzz_identity (&identity);
      include_dir = getenv ("BWSH_FUZZ_INCLUDE_DIR");
    }
  /* bwsh_policy_load() reads at most this much per file. */
  if (size > BWSH_POLICY_FILE_MAX)
    return -1;
  /* The loader hands libconfig a NUL-terminated buffer. */
  buf = malloc (size + 1);
  if (buf == NULL)
    return 0;
  memcpy (buf, data, size);
  buf[size] = '\0';

  if (bwsh_policy_new_defaults (&pol) < 0)
    abort ();
  r = bwsh_policy_parse_buffer (pol, buf, "/etc/bwsh/bwsh.conf", include_dir, &identity, &err);
  if (r < 0)
    {
      if (err.message[0] == '\0' && r != -ENOMEM)
        {
          fprintf (stderr, "INVARIANT VIOLATED: policy refused (%d) without a message\n", r);
          abort ();
        }
      /* A refused buffer leaves the policy as it was: compared with the
       * built-in defaults themselves, so that a changed default is no
       * violation. */
      BwshPolicy *def = NULL;

      if (bwsh_policy_new_defaults (&def) < 0)
        abort ();
      if (strcmp (pol->shell, def->shell) != 0 || pol->rw_ceilings.n != def->rw_ceilings.n
          || pol->protected_paths.n != def->protected_paths.n || pol->max_mounts != def->max_mounts
          || pol->dev_mode != def->dev_mode || pol->run_mode != def->run_mode || pol->strict != def->strict
          || pol->net_mode != def->net_mode)
        {
          fprintf (stderr, "INVARIANT VIOLATED: a refused policy buffer changed the policy\n");
          abort ();
        }
      bwsh_policy_free (def);
    }
  else
    {
      fuzz_check_plan (&identity, pol, NULL, true);
      fuzz_check_plan (&identity, pol, overlay, false);
    }
  bwsh_policy_free (pol);
  free (buf);
  return 0;
}
