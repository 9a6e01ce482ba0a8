/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `bwshctl check` and `explain` add on top of the plan: the conditions
 * that would make bwrap fail after a login was accepted, each with the
 * file and line that causes it, and the verdict of every overlay entry.
 */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"

size_t
bwshctl_launch_problems (const BwshPlan *plan, FILE *f)
{
  BwshError err = { 0 };
  size_t n = 0;

  /* The shell first: without it nothing else matters. */
  if (plan != NULL && bwsh_plan_check_shell (plan, &err) < 0)
    {
      _cleanup_free_ char *msg = bwsh_error_to_string (&err);
      _cleanup_free_ char *e = msg != NULL ? bwsh_escape_message (msg) : NULL;
      fprintf (f, "%s\n", e != NULL ? e : "out of memory");
      n++;
    }
  return n;
}

size_t
bwshctl_recorder_problems (const BwshPlan *plan, bool inside, FILE *f, size_t *ret_warnings)
{
  BwshError err = { 0 };
  const char *fix = NULL;
  struct passwd *pw;

  /* Inside a sandbox /run is the sandbox's own: no /run/utmp to see. */
  if (plan == NULL || plan->record == BWSH_RECORD_OFF || inside)
    return 0;
  pw = getpwuid (plan->uid);
  if (bwsh_recorder_check ("", plan->uid, pw != NULL ? pw->pw_gid : getgid (), &fix, &err) >= 0)
    return 0;
  if (plan->record == BWSH_RECORD_TTY)
    {
      fprintf (f, "warning: record = \"tty\": %s: interactive sessions run unrecorded (fix: %s)\n", err.message, fix);
      (*ret_warnings)++;
      return 0;
    }
  fprintf (f, "record = \"required\": %s: every interactive login is refused (fix: %s)\n", err.message, fix);
  return 1;
}

void
bwshctl_print_entries (const BwshPlan *plan, FILE *f)
{
  for (size_t i = 0; i < plan->n_mounts; i++)
    {
      const BwshMount *m = &plan->mounts[i];

      if (m->from.origin != BWSH_ORIGIN_USER)
        continue;
      /* The user wrote these: one line each, whatever they hold. */
      _cleanup_free_ char *src = bwsh_escape_data (m->src != NULL ? m->src : "");
      _cleanup_free_ char *dest = bwsh_escape_data (m->dest);
      _cleanup_free_ char *why = m->reason != NULL ? bwsh_escape_message (m->reason) : NULL;
      _cleanup_free_ char *at = bwsh_source_prefix (m->from.file, m->from.line, m->from.column);
      if (src == NULL || dest == NULL || at == NULL || (m->reason != NULL && why == NULL))
        continue;
      fprintf (f, "%s%s %s %s -> %s%s%s\n", at, bwsh_verdict_to_string (m->verdict),
               bwsh_mount_kind_to_string (m->kind), src, dest, why != NULL ? ": " : "", why != NULL ? why : "");
    }
}

bool
bwshctl_enter_inside_trust (FILE *f)
{
  bool inside = false;

  if (bwsh_trust_unmapped_root (&inside) < 0 || !inside)
    return false;
  fprintf (f, "note: inside a sandbox: root's files show as nobody and are taken as root's here; the next login "
              "checks everything again outside the sandbox, where paths this sandbox hides are visible\n");
  return true;
}
