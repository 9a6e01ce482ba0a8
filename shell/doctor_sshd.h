/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwshctl doctor's `sshd -T` parser (doctor_sshd.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct
{
  char **keys;
  char **values;
  size_t n;
} SshdConfig;

void sshd_config_clear (SshdConfig *c);
int sshd_config_parse (const char *out, SshdConfig *c);
const char *sshd_get (const SshdConfig *c, const char *key);
bool is_no (const char *v);
