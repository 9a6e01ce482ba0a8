/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The default plan: the host layout, /run, /dev, /proc, the tmpfs
 * directories, then the home (home.c).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "ops.h"
#include "path.h"
#include "plan.h"
#include "plan_internal.h"
#include "policy.h"

/* ------------------------------------------------------------ the default */

static int
add_host_layout (Ctx *c)
{
  /* On merged-/usr hosts /bin, /sbin and /lib* are symlinks into /usr; copy
   * them as symlinks.  Elsewhere they are directories: bind them read-only. */
  static const char *const dirs[] = { "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32" };

  for (size_t i = 0; i < BWSH_N_ELEMENTS (dirs); i++)
    {
      char target[PATH_MAX];
      struct stat st;
      ssize_t idx, n;

      /* readlink() first: it answers for a symlink (a merged /usr, the
       * usual case) and for a missing one in one call; EINVAL, not a
       * symlink, is the only answer that needs the lstat(). */
      n = readlink (dirs[i], target, sizeof target - 1);
      if (n > 0)
        {
          target[n] = '\0';
          idx = plan_add_mount (c, BWSH_MOUNT_SYMLINK, target, dirs[i], &plan_default_source);
        }
      else if (n == 0 || errno != EINVAL || lstat (dirs[i], &st) < 0)
        continue;
      else if (S_ISDIR (st.st_mode))
        idx = plan_add_mount (c, BWSH_MOUNT_RO_BIND, dirs[i], dirs[i], &plan_default_source);
      else
        continue;
      if (idx < 0)
        return (int) idx;
    }
  return 0;
}

static int
add_run (Ctx *c)
{
  char target[PATH_MAX];
  _cleanup_free_ char *dir = NULL;
  ssize_t n, idx;

  if (c->pol->run_mode == BWSH_RUN_HOST)
    {
      idx = plan_add_mount (c, BWSH_MOUNT_RO_BIND, "/run", "/run", &plan_default_source);
      if (idx < 0)
        return (int) idx;
      return plan_set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED,
                              "policy run = \"host\": host sockets under /run stay connectable");
    }

  idx = plan_add_mount (c, BWSH_MOUNT_TMPFS, NULL, "/run", &plan_default_source);
  if (idx < 0)
    return (int) idx;
  /* Runtime data is small; an unsized tmpfs could take half the RAM. */
  c->p->mounts[idx].size = c->pol->root_tmpfs_size;

  /* systemd-resolved and NetworkManager keep resolv.conf under /run and
   * point /etc/resolv.conf at it; bind just that directory so name
   * resolution works without the rest of the host's /run. */
  n = readlink ("/etc/resolv.conf", target, sizeof target - 1);
  if (n <= 0)
    return 0;
  target[n] = '\0';
  if (target[0] != '/')
    {
      _cleanup_free_ char *abs = NULL;
      if (asprintf (&abs, "/etc/%s", target) < 0)
        return -ENOMEM;
      _cleanup_free_ char *resolved = realpath (abs, NULL);
      if (resolved == NULL)
        return 0;
      snprintf (target, sizeof target, "%s", resolved);
    }
  if (bwsh_path_normalize (target, &dir) != BWSH_PATH_OK)
    return 0;
  if (!bwsh_path_has_prefix (dir, "/run") || strcmp (dir, "/run") == 0)
    return 0;
  *strrchr (dir, '/') = '\0';
  if (strcmp (dir, "/run") == 0)
    return 0;
  idx = plan_add_mount (c, BWSH_MOUNT_RO_BIND, dir, dir, &plan_default_source);
  if (idx < 0)
    return (int) idx;
  c->p->mounts[idx].optional = true;
  return 0;
}

int
plan_add_defaults (Ctx *c, const char *project, const char *state_dir)
{
  const BwshPolicy *pol = c->pol;
  ssize_t idx;
  int r;

  idx = plan_add_mount (c, BWSH_MOUNT_TMPFS, NULL, "/", &plan_default_source);
  if (idx < 0)
    return (int) idx;
  c->p->mounts[idx].size = pol->root_tmpfs_size;
  if ((idx = plan_add_mount (c, BWSH_MOUNT_RO_BIND, "/usr", "/usr", &plan_default_source)) < 0)
    return (int) idx;
  r = add_host_layout (c);
  if (r < 0)
    return r;
  if ((idx = plan_add_mount (c, BWSH_MOUNT_RO_BIND, "/etc", "/etc", &plan_default_source)) < 0)
    return (int) idx;
  r = add_run (c);
  if (r < 0)
    return r;
  if (pol->dev_mode == BWSH_DEV_HOST)
    {
      if ((idx = plan_add_mount (c, BWSH_MOUNT_DEV_BIND, "/dev", "/dev", &plan_default_source)) < 0)
        return (int) idx;
      r = plan_set_reason (&c->p->mounts[idx], BWSH_VERDICT_ACCEPTED, "policy dev = \"host\": every host device node");
      if (r < 0)
        return r;
    }
  else
    {
      /* bwrap's --dev is a tmpfs of the kernel's default size (half the
       * RAM), and so would /dev/shm in it be: give shared memory a sized
       * tmpfs of its own, and make the rest of /dev read-only. */
      if ((idx = plan_add_mount (c, BWSH_MOUNT_DEV, NULL, "/dev", &plan_default_source)) < 0)
        return (int) idx;
      if ((idx = plan_add_mount (c, BWSH_MOUNT_REMOUNT_RO, NULL, "/dev", &plan_default_source)) < 0)
        return (int) idx;
      if ((idx = plan_add_mount (c, BWSH_MOUNT_TMPFS, NULL, "/dev/shm", &plan_default_source)) < 0)
        return (int) idx;
      c->p->mounts[idx].size = pol->tmp_tmpfs_size;
    }
  if ((idx = plan_add_mount (c, BWSH_MOUNT_PROC, NULL, "/proc", &plan_default_source)) < 0)
    return (int) idx;
  if ((idx = plan_add_mount (c, BWSH_MOUNT_TMPFS, NULL, "/tmp", &plan_default_source)) < 0)
    return (int) idx;
  c->p->mounts[idx].size = pol->tmp_tmpfs_size;
  /* /var is the root tmpfs's; only /var/tmp, the one place programs write. */
  if ((idx = plan_add_mount (c, BWSH_MOUNT_TMPFS, NULL, "/var/tmp", &plan_default_source)) < 0)
    return (int) idx;
  c->p->mounts[idx].size = pol->tmp_tmpfs_size;
  return plan_add_home (c, project, state_dir);
}
