/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* "bwsh: MESSAGE" on stderr (bwsh's: the one way left to tell the user why
 * the session ends); the engine's own words go to the journal instead. */
void netns_report (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
