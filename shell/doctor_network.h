/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwshctl doctor's network check (doctor_network.c). */
#pragma once

#include "doctor_report.h"

void check_network (Doctor *d);
