/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwshctl doctor's checks of bwrap, user namespaces, AppArmor, Landlock
 * and TIOCSTI (doctor_sandbox.c). */
#pragma once

#include <stdbool.h>

#include "doctor_report.h"

typedef struct
{
  bool present;
  bool disable_userns;
  bool ro_bind_fd;
} BwrapInfo;

typedef struct
{
  bool restricted;      /* apparmor_restrict_unprivileged_userns = 1 */
  bool profile_loaded;  /* the bwsh profile is in the kernel */
  bool profile_unknown; /* could not read the profile list */
} AppArmorInfo;

void check_bwrap (Doctor *d, BwrapInfo *info);
void check_apparmor (Doctor *d, AppArmorInfo *aa);
void check_userns (Doctor *d, const BwrapInfo *bw, const AppArmorInfo *aa);
void check_landlock (Doctor *d);
void check_tiocsti (Doctor *d);
