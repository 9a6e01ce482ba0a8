/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bwsh core for its front ends (shell/, pam_module/, helpers/, tests, bench):
 * every public header.  No file of core/ includes it: each includes the
 * headers it uses.
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

/* One header per file, named for the file that implements it; the folders
 * in their layers, the ground first (docs/design.md). */
/* base/ */
#include "argv.h"
#include "bounds.h"
#include "cleanup.h"
#include "errors.h"
#include "format.h"
#include "grow.h"
#include "identity.h"
#include "path.h"
#include "procstat.h"
#include "safeopen.h"
#include "scrub.h"
/* policy/ */
#include "nsscheck.h"
#include "policy.h"
#include "rules.h"
#include "userconf.h"
/* plan/ */
#include "plan.h"
/* launch/ */
#include "digest.h"
#include "explain.h"
#include "landlock.h"
#include "launch.h"
#include "network.h"
#include "record.h"
#include "render.h"
#include "seccomp_filter.h"
/* session/ */
#include "admission.h"
#include "audit.h"
#include "ended.h"
#include "fallback.h"
#include "lkg.h"
#include "lockgroups.h"
#include "registration.h"
#include "registry.h"
#include "registry_json.h"
#include "registry_place.h"
#include "session.h"
