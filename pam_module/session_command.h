/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The program the calling service will run for the user: the passwd shell
 * @passwd_shell, or what su/runuser were told to run instead. */
int pam_bwsh_session_command (const char *passwd_shell, char **ret);
