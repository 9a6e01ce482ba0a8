/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bwsh core: identity, policy, user overlay, validation, the plan, rendering.
 *
 * Data flows one way:
 *
 *   identity -> policy -> user overlay -> plan -> render -> exec bwrap / verdict / explain
 *
 * Everything here returns 0 or a negative errno and, on failure, fills a
 * BwshError.  Nothing here prints, exits or calls die(): the front ends do.
 * Warnings that do not stop a session (a refused entry, a missing source)
 * are collected in a BwshDiag so each front end reports them its own way.
 */
#pragma once

/* One header per part, named for the file that implements it. */
#include "errors.h"
#include "bounds.h"
#include "path.h"
#include "rules.h"
#include "identity.h"
#include "safeopen.h"
#include "policy.h"
#include "nsscheck.h"
#include "userconf.h"
#include "plan.h"
#include "render.h"
#include "record.h"
#include "seccomp_filter.h"
#include "landlock.h"
#include "session.h"
#include "scrub.h"
#include "network.h"
#include "launch.h"
