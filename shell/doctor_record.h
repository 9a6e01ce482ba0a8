/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwshctl doctor's recorder and journal-budget checks (doctor_record.c). */
#pragma once

#include "doctor_report.h"

void check_recording (Doctor *d);
void check_journal_budget (Doctor *d);
