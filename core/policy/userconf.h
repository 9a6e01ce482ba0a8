/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwsh core: user overlay (userconf.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "bind_list.h"
#include "errors.h"

typedef struct BwshUserConfig
{
  BwshBindList ro_binds;       /* additionalROBinds */
  BwshBindList rw_binds;       /* additionalBinds */
  BwshBindList disabled;       /* disabledDefaultBinds */
  char *project_dir;           /* preferences.sandboxProjectDir, or NULL */
  BwshSource project_dir_from;
  char *file;
} BwshUserConfig;

BwshUserConfig *bwsh_user_config_free (BwshUserConfig *uc);

/* Parse the overlay from memory.  Bad entries are warned about in @diag
 * (file, line, column and the entry) and skipped; a document that is not
 * JSON, or not an object, fails with -EINVAL and a position in @err. */
int bwsh_user_config_parse (const char *buf, size_t len, const char *filename,
                            BwshUserConfig **ret, BwshDiag *diag, BwshError *err);

/* Read @path safely as @uid (see bwsh_read_file_checked) and parse it.
 * A missing file gives an empty overlay and returns 0.  A file that exists
 * but is unsafe or broken gives an empty overlay, a warning in @diag, and 0:
 * the seed's "bad file means no additions".  Only allocation failure fails. */
int bwsh_user_config_load (const char *path, uid_t uid, BwshUserConfig **ret, BwshDiag *diag,
                           BwshError *err);
