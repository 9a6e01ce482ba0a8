/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The module loads with every symbol bound now (RTLD_NOW), as libpam loads
 * it, and shows only the PAM entry points: core/ is linked in and hidden, so
 * it can neither interpose on sshd's own symbols nor be interposed by them.
 */
#include <dlfcn.h>
#include <stdio.h>

int
main (int argc, char **argv)
{
  static const char *const hidden[] = { "bwsh_plan_build", "bwsh_policy_load", "bwsh_read_file_checked",
                                        "bwsh_error_set", "pam_sm_authenticate", NULL };
  void *h;
  int rc = 0;

  if (argc != 2)
    return 2;
  h = dlopen (argv[1], RTLD_NOW | RTLD_LOCAL);
  if (h == NULL)
    {
      fprintf (stderr, "dlopen: %s\n", dlerror ());
      return 1;
    }
  if (dlsym (h, "pam_sm_open_session") == NULL || dlsym (h, "pam_sm_close_session") == NULL)
    {
      fprintf (stderr, "pam_sm_open_session/pam_sm_close_session not exported\n");
      rc = 1;
    }
  for (size_t i = 0; hidden[i] != NULL; i++)
    if (dlsym (h, hidden[i]) != NULL)
      {
        fprintf (stderr, "%s is visible from the module\n", hidden[i]);
        rc = 1;
      }
  dlclose (h);
  return rc;
}
