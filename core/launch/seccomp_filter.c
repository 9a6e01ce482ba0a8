/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The session's seccomp filter: allow by default, refuse a short list of
 * calls that either break out of what the sandbox promises (terminal input
 * injection, mounts, the kernel keyring) or only widen the kernel's attack
 * surface for a shell user.  The list follows the one flatpak, Sandstorm and
 * linux-user-chroot share; where bwsh differs, the comment says why.
 *
 * bwrap installs the filter itself (--seccomp FD) right before it execs the
 * inner shell, after its own mounts, so refusing mount() here does not get
 * in bwrap's way.
 */
/* memfd_create(), F_ADD_SEALS */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "errors.h"
#include "seccomp_filter.h"

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

static void
seccomp_releasep (scmp_filter_ctx *ctx)
{
  if (*ctx != NULL)
    seccomp_release (*ctx);
}
#define _cleanup_seccomp_ _cleanup_ (seccomp_releasep)

typedef struct
{
  const char *name;   /* for error messages */
  int nr;             /* SCMP_SYS() */
  int errnum;
  bool has_arg;
  struct scmp_arg_cmp arg;
} Rule;

#define DENY(sys, e) { #sys, SCMP_SYS (sys), (e), false, { 0 } }
/* A plain initializer rather than SCMP_An(), whose compound literal is not
 * a constant expression in a static table. */
#define DENY_IF(sys, e, n, op, a, b) \
  { #sys, SCMP_SYS (sys), (e), true, { (n), (op), (scmp_datum_t) (a), (scmp_datum_t) (b) } }

/* clone()'s flags are its first argument everywhere but s390, where the
 * stack comes first. */
#if defined(__s390__) || defined(__s390x__)
#define CLONE_FLAGS_ARG 1
#else
#define CLONE_FLAGS_ARG 0
#endif

/* Only these families are needed by a shell session; every other one is
 * refused with EAFNOSUPPORT below. */
static const int allowed_families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK };

static const Rule rules[] = {
  /* CVE-2017-5226: TIOCSTI pushes input into the controlling terminal, which
   * is outside the sandbox; the kernel looks only at the low 32 bits of the
   * request, so the match must too (CVE-2019-10063). */
  DENY_IF (ioctl, EPERM, 1, SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, TIOCSTI),
  /* CVE-2023-28100: TIOCLINUX's paste selection injects input the same way on a VT. */
  DENY_IF (ioctl, EPERM, 1, SCMP_CMP_MASKED_EQ, 0xFFFFFFFFu, TIOCLINUX),

  /* The new mount API would re-arrange the sandbox's view from inside;
   * ENOSYS, not EPERM, so libraries fall back to mount(2), refused below. */
  DENY (open_tree, ENOSYS),
  DENY (move_mount, ENOSYS),
  DENY (fsopen, ENOSYS),
  DENY (fsconfig, ENOSYS),
  DENY (fsmount, ENOSYS),
  DENY (fspick, ENOSYS),
  DENY (mount_setattr, ENOSYS),
  /* clone3 keeps its flags in memory seccomp cannot read, so the
   * CLONE_NEWUSER rule below could not see them; ENOSYS makes glibc fall
   * back to clone(2). */
  DENY (clone3, ENOSYS),

  /* Re-arranging mounts or the root would undo the plan bwsh built. */
  DENY (mount, EPERM),
  DENY (umount, EPERM),
  DENY (umount2, EPERM),
  DENY (pivot_root, EPERM),
  DENY (chroot, EPERM),
  /* Backs bwrap --disable-userns: a nested user namespace hands the user
   * capabilities over fresh mount namespaces and much kernel attack surface. */
  DENY_IF (clone, EPERM, CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER),
  DENY_IF (unshare, EPERM, 0, SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER),

  /* The kernel keyring is not namespaced: the sandbox would reach the
   * user's keys from outside (Kerberos, fscrypt, ecryptfs). */
  DENY (add_key, EPERM),
  DENY (keyctl, EPERM),
  DENY (request_key, EPERM),

  /* The kernel log leaks addresses and host activity (KASLR bypasses). */
  DENY (syslog, EPERM),
  /* Obsolete, unneeded by any modern binary, and a past source of bugs. */
  DENY (uselib, EPERM),
  /* Process accounting is host state; the session must not toggle it. */
  DENY (acct, EPERM),
  /* Quota queries reveal other users' disk use on the host. */
  DENY (quotactl, EPERM),
  /* 16-bit segments are not needed by a shell, and modify_ldt has leaked kernel memory before. */
  DENY (modify_ldt, EPERM),
  /* Reads the host's performance counters and has been a steady LPE source. */
  DENY (perf_event_open, EPERM),
  /* Lets an exploit stall the kernel mid-copy, widening race windows (used in many LPEs). */
  DENY (userfaultfd, EPERM),
  /* The eBPF verifier is one of the kernel's most exploited interfaces. */
  DENY (bpf, EPERM),
  /* Loading kernels and modules is host administration, never a session's. */
  DENY (kexec_load, EPERM),
  DENY (kexec_file_load, EPERM),
  DENY (init_module, EPERM),
  DENY (finit_module, EPERM),
  DENY (delete_module, EPERM),
  /* Personas such as ADDR_NO_RANDOMIZE and READ_IMPLIES_EXEC switch off
   * ASLR and NX for everything the session runs afterwards. */
  DENY_IF (personality, EPERM, 0, SCMP_CMP_NE, PER_LINUX, 0),
  /* io_uring runs socket(), connect() and more without a system call,
   * bypassing this filter, and is among the most exploited kernel paths;
   * ENOSYS so programs fall back to ordinary I/O. */
  DENY (io_uring_setup, ENOSYS),
  DENY (io_uring_enter, ENOSYS),
  DENY (io_uring_register, ENOSYS),
};

/* The architectures a process of the native one can also call the kernel
 * with.  A syscall from an architecture not added here hits the default
 * bad-architecture action, which kills it: closed, not open. */
static int
add_architectures (scmp_filter_ctx ctx, BwshError *err)
{
  static const struct
  {
    uint32_t native;
    uint32_t extra;
    const char *name;
  } companions[] = {
    /* A 32-bit or x32 syscall has its own numbers; without these the
     * deny-list could be bypassed by `int $0x80` or the x32 bit. */
    { SCMP_ARCH_X86_64, SCMP_ARCH_X86, "x86" },
    { SCMP_ARCH_X86_64, SCMP_ARCH_X32, "x32" },
    { SCMP_ARCH_AARCH64, SCMP_ARCH_ARM, "arm" },
  };
  uint32_t native = seccomp_arch_native ();
  int r;

  r = seccomp_arch_add (ctx, native);
  if (r < 0 && r != -EEXIST)
    return bwsh_error_set (err, r, NULL, 0, 0, "seccomp: adding the native architecture: %s",
                           strerror (-r));

  for (size_t i = 0; i < BWSH_N_ELEMENTS (companions); i++)
    {
      if (companions[i].native != native)
        continue;
      r = seccomp_arch_add (ctx, companions[i].extra);
      if (r < 0 && r != -EEXIST)
        return bwsh_error_set (err, r, NULL, 0, 0, "seccomp: adding architecture %s: %s",
                               companions[i].name, strerror (-r));
    }
  return 0;
}

static int
add_rule (scmp_filter_ctx ctx, const char *name, int nr, int errnum, unsigned n_args,
          const struct scmp_arg_cmp *arg, BwshError *err)
{
  int r;

  if (n_args > 0)
    r = seccomp_rule_add_array (ctx, SCMP_ACT_ERRNO (errnum), nr, n_args, arg);
  else
    r = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (errnum), nr, 0);
  /* libseccomp returns -EFAULT for a syscall it has no number for on any of
   * the filter's architectures (an old libseccomp and a new syscall): the
   * kernel cannot offer what it does not know either, so skip it. */
  if (r == -EFAULT)
    return 0;
  if (r < 0)
    return bwsh_error_set (err, r, NULL, 0, 0, "seccomp: adding a rule for %s: %s", name,
                           strerror (-r));
  return 0;
}

static bool
family_allowed (int family)
{
  for (size_t i = 0; i < BWSH_N_ELEMENTS (allowed_families); i++)
    if (allowed_families[i] == family)
      return true;
  return false;
}

static int
add_socket_rules (scmp_filter_ctx ctx, BwshError *err)
{
  int highest = 0;
  struct scmp_arg_cmp cmp;
  int r;

  for (size_t i = 0; i < BWSH_N_ELEMENTS (allowed_families); i++)
    if (allowed_families[i] > highest)
      highest = allowed_families[i];

  /* Rarely used address families (vsock, RDS, TIPC, ALG, bluetooth, ...)
   * are autoloaded kernel modules with a long CVE history.  One rule per
   * refused family below the highest allowed one, and one for all above:
   * an argument with high bits set counts as "above" and is refused too. */
  for (int family = 0; family < highest; family++)
    {
      if (family_allowed (family))
        continue;
      cmp = (struct scmp_arg_cmp) { .arg = 0, .op = SCMP_CMP_EQ, .datum_a = (scmp_datum_t) family };
      r = add_rule (ctx, "socket", SCMP_SYS (socket), EAFNOSUPPORT, 1, &cmp, err);
      if (r < 0)
        return r;
    }
  cmp = (struct scmp_arg_cmp) { .arg = 0, .op = SCMP_CMP_GT, .datum_a = (scmp_datum_t) highest };
  return add_rule (ctx, "socket", SCMP_SYS (socket), EAFNOSUPPORT, 1, &cmp, err);
}

int
bwsh_seccomp_build_fd (int *ret_fd, BwshError *err)
{
  _cleanup_seccomp_ scmp_filter_ctx ctx = NULL;
  _cleanup_close_ int fd = -1;
  int r;

  ctx = seccomp_init (SCMP_ACT_ALLOW);
  if (ctx == NULL)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "seccomp: initialising the filter: %s",
                           strerror (ENOMEM));

  r = add_architectures (ctx, err);
  if (r < 0)
    return r;

  for (size_t i = 0; i < BWSH_N_ELEMENTS (rules); i++)
    {
      r = add_rule (ctx, rules[i].name, rules[i].nr, rules[i].errnum, rules[i].has_arg ? 1 : 0,
                    &rules[i].arg, err);
      if (r < 0)
        return r;
    }

  r = add_socket_rules (ctx, err);
  if (r < 0)
    return r;

  fd = memfd_create ("bwsh-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    {
      r = -errno;
      return bwsh_error_set (err, r, NULL, 0, 0, "seccomp: memfd_create: %s", strerror (-r));
    }

  r = seccomp_export_bpf (ctx, fd);
  if (r < 0)
    return bwsh_error_set (err, r, NULL, 0, 0, "seccomp: exporting the filter: %s",
                           strerror (-r));

  /* Sealed, so nothing holding the fd can rewrite the filter between here
   * and bwrap reading it. */
  if (fcntl (fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
    {
      r = -errno;
      return bwsh_error_set (err, r, NULL, 0, 0, "seccomp: sealing the filter: %s",
                             strerror (-r));
    }

  if (lseek (fd, 0, SEEK_SET) < 0)
    {
      r = -errno;
      return bwsh_error_set (err, r, NULL, 0, 0, "seccomp: rewinding the filter: %s",
                             strerror (-r));
    }

  *ret_fd = steal_fd (&fd);
  return 0;
}
