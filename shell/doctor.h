/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl doctor.  Its parts, apart from the checks so that the parsers have
 * unit tests (the bwshdoctor archive): the command runner (doctor_run.h),
 * the `sshd -T` parser (doctor_sshd.h) and the PAM-stack walker
 * (doctor_pam.h).  Above them what every check shares: the doctor's state
 * and its findings (doctor_report.h).  Then the checks, by family:
 * doctor_sandbox.c, doctor_network.c, doctor_record.c and
 * doctor_services.c; doctor.c orders them and holds the policy and lock
 * checks and the options.
 */
#pragma once

/* bwshctl doctor [OPTIONS]: the exit code. */
int bwshctl_doctor (int argc, char **argv);
