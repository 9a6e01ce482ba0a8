/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer: bytes as ~/.config/bwsh/config.json -> bwsh_user_config_parse
 * -> bwsh_plan_build (built-in policy, hand-built identity, hostile
 * environment) -> render -> the invariants of issue #6 (invariants.c).
 *
 * Only the pure part is fuzzed: bwsh_plan_resolve() does I/O as the user and
 * is covered by tests/hostile and tests/security with the real files.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "invariants.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static BwshPolicy *policy;
static BwshIdentity identity;

static bool
has_control (const char *s)
{
  for (; *s != '\0'; s++)
    if ((unsigned char) *s < 0x20 || *s == 0x7f)
      return true;
  return false;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  BwshUserConfig *uc = NULL;
  BwshDiag diag = { 0 };
  BwshError err = { 0 };
  int r;

  if (policy == NULL)
    {
      if (bwsh_policy_new_defaults (&policy) < 0)
        abort ();
      fuzz_identity (&identity);
    }
  /* bwsh_user_config_load() never hands the parser more than this. */
  if (size > BWSH_USER_CONFIG_MAX)
    return -1;

  r = bwsh_user_config_parse ((const char *) data, size, FUZZ_HOME "/.config/bwsh/config.json", &uc, &diag, &err);
  for (size_t i = 0; i < diag.n; i++)
    if (has_control (diag.lines[i]))
      {
        fprintf (stderr, "INVARIANT VIOLATED: overlay diagnostic %zu contains a control character\n", i);
        abort ();
      }
  if (r < 0)
    {
      if (uc != NULL)
        abort ();
      _cleanup_free_ char *msg = bwsh_error_to_string (&err);
      /* jansson's own text quotes the input; ours must not, and must stay on one line. */
      if (err.message[0] == '\0' || msg == NULL || has_control (msg))
        {
          fprintf (stderr, "INVARIANT VIOLATED: parse error without a clean one-line message\n");
          abort ();
        }
    }
  else
    {
      if (uc == NULL)
        abort ();
      fuzz_check_plan (&identity, policy, uc, true);
    }
  bwsh_user_config_free (uc);
  bwsh_diag_clear (&diag);
  return 0;
}
