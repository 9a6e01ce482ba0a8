/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: a session's registry entry as JSON (registry_json.c). */
#pragma once

#include "registry.h"

/* @e as the registry's JSON: what jansson's json_dumps with JSON_SORT_KEYS |
 * JSON_COMPACT writes of it.  -ENOMEM, as json_pack() says it, for a string
 * that is missing or not UTF-8. */
int bwsh_session_entry_json (const BwshSessionEntry *e, char **ret);
