/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: the plan explained, as text and as JSON (explain.c). */
#pragma once

#include "errors.h"
#include "plan.h"
#include "render.h"

/* Human and JSON explanations of @p.  @refusal (NULL when the session
 * would run) is why a session with this plan would be refused.  A value JSON
 * cannot carry (not UTF-8) fails with -EILSEQ and says which. */
int bwsh_explain_text (const BwshPlan *p, const BwshCommand *cmd, const char *refusal, char **ret, BwshError *err);
int bwsh_explain_json (const BwshPlan *p, const BwshCommand *cmd, const char *refusal, char **ret, BwshError *err);
