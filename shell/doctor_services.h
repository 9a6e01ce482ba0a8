/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwshctl doctor's checks of /etc/shells, each PAM service and sshd
 * (doctor_services.c). */
#pragma once

#include "doctor_report.h"

void check_shells (Doctor *d);
void check_pam (Doctor *d);
void check_sshd (Doctor *d);
