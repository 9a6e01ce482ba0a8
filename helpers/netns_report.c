/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwsh-netns's one way to tell the user why the session ends, shared by the
 * helper (bwsh-netns.c) and the engine's side of its fork (engine_exec.c).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "bwshcore.h"
#include "netns_report.h"

/* "bwsh: MESSAGE" on stderr: bwsh's, which bwrap's own errors use too. */
void
netns_report (const char *fmt, ...)
{
  char msg[BWSH_MESSAGE_MAX];
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  dprintf (STDERR_FILENO, "bwsh: %s\n", msg);
}
