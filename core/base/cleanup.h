/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Scope-bound cleanup, in the style of bubblewrap's utils.h and systemd's macro.h. */
#pragma once

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <errno.h>

static inline void
bwsh_freep (void *p)
{
  free (*(void **) p);
}

static inline void
bwsh_closep (int *fd)
{
  if (*fd >= 0)
    {
      int saved = errno;
      close (*fd);
      errno = saved;
    }
}

static inline void
bwsh_fclosep (FILE **f)
{
  if (*f != NULL)
    fclose (*f);
}

static inline void
bwsh_closedirp (DIR **d)
{
  if (*d != NULL)
    closedir (*d);
}

#define _cleanup_(f) __attribute__ ((cleanup (f)))
#define _cleanup_free_ _cleanup_ (bwsh_freep)
#define _cleanup_close_ _cleanup_ (bwsh_closep)
#define _cleanup_fclose_ _cleanup_ (bwsh_fclosep)
#define _cleanup_closedir_ _cleanup_ (bwsh_closedirp)

/* Hand ownership out of a _cleanup_ variable. */
static inline void *
bwsh_steal_pointer (void *pp)
{
  void **ptr = (void **) pp;
  void *ref = *ptr;
  *ptr = NULL;
  return ref;
}
#define steal_pointer(pp) bwsh_steal_pointer (pp)

static inline int
bwsh_steal_fd (int *fd)
{
  int r = *fd;
  *fd = -1;
  return r;
}
#define steal_fd(p) bwsh_steal_fd (p)

#define BWSH_N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))
