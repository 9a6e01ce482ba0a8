/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The session filter, installed for real: each probe runs in a forked child
 * that loads the BPF bwsh_seccomp_build_fd() exported, tries one system
 * call, and exits with the errno it got (0 for success).  The parent
 * compares that with what the table expects.  Where the kernel itself would
 * refuse the call, the probe's arguments are chosen so that the kernel's
 * errno differs from the filter's (ENOENT, EFAULT, EINVAL...), so a pass
 * means the filter answered.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cmocka.h>

#include "bwshcore.h"
#include "cleanup.h"

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#define KEYCTL_GET_KEYRING_ID 0
#define KEY_SPEC_SESSION_KEYRING (-3)
#define X32_SYSCALL_BIT 0x40000000UL
#define X32_NR_IOCTL 514 /* arch/x86/entry/syscalls/syscall_64.tbl */
#define I386_NR_IOCTL 54 /* arch/x86/entry/syscalls/syscall_32.tbl */

/* Exit codes of a child that could not even run its probe. */
#define CHILD_SETUP_FAILED 250
#define CHILD_CRASHED 251

typedef int (*ProbeFunc) (void);

typedef struct
{
  const char *name;
  ProbeFunc probe;
  int expected; /* errno, or 0 for "must still work" */
} Probe;

/* Return 0 when @r is not -1, else errno: the probes' common tail. */
static int
result (long r)
{
  return r == -1 ? errno : 0;
}

static int
open_pty_master (void)
{
  int fd = posix_openpt (O_RDWR | O_NOCTTY | O_CLOEXEC);

  if (fd < 0 || grantpt (fd) < 0 || unlockpt (fd) < 0)
    _exit (CHILD_SETUP_FAILED);
  return fd;
}

/* A new session whose controlling terminal is a fresh pty, as a login
 * shell has; returns the terminal's fd. */
static int
open_controlling_pty (void)
{
  int master = open_pty_master ();
  const char *name = ptsname (master);
  int fd;

  if (name == NULL || setsid () < 0)
    _exit (CHILD_SETUP_FAILED);
  fd = open (name, O_RDWR | O_CLOEXEC); /* no O_NOCTTY: becomes the ctty */
  if (fd < 0)
    _exit (CHILD_SETUP_FAILED);
  return fd;
}

/* ------------------------------------------------------------ attacks */

static int
probe_tiocsti (void)
{
  int fd = open_controlling_pty ();
  char c = 'x';

  return result (ioctl (fd, TIOCSTI, &c));
}

static int
probe_tiocsti_high_bits (void)
{
  int fd = open_controlling_pty ();
  char c = 'x';

  /* CVE-2019-10063: the kernel truncates the request to 32 bits. */
  return result (syscall (SYS_ioctl, fd, (unsigned long) TIOCSTI | 0x100000000UL, &c));
}

static int
probe_tiocsti_x32 (void)
{
  int fd = open_controlling_pty ();
  char c = 'x';

  /* x32 numbers are the x86_64 table with bit 30 set; without x32 rules
   * libseccomp's filter must still not let it through. */
#if defined(__x86_64__)
  return result (syscall (X32_SYSCALL_BIT | X32_NR_IOCTL, fd, TIOCSTI, &c));
#else
  (void) fd;
  (void) c;
  return EPERM;
#endif
}

static int
probe_tiocsti_i386 (void)
{
  int fd = open_controlling_pty ();
#if defined(__x86_64__)
  static char c = 'x';
  long ret;

  /* The 32-bit entry point has its own syscall numbers.  A static buffer
   * in a non-PIE binary would sit below 4 GiB; in a PIE it does not, so an
   * unfiltered call fails with EFAULT rather than EPERM either way. */
  __asm__ volatile ("int $0x80"
                    : "=a"(ret)
                    : "0"(I386_NR_IOCTL), "b"(fd), "c"(TIOCSTI), "d"((uint32_t) (uintptr_t) &c)
                    : "memory", "r8", "r9", "r10", "r11");
  if (ret < 0)
    return (int) -ret;
  return 0;
#else
  (void) fd;
  return EPERM;
#endif
}

static int
probe_tioclinux (void)
{
  int fd = open_controlling_pty ();
  char subcode = 2; /* TIOCL_SETSEL: the copy half of a paste injection */

  /* On a pty the kernel says ENOTTY; the filter says EPERM first. */
  return result (ioctl (fd, TIOCLINUX, &subcode));
}

static int
probe_tioclinux_high_bits (void)
{
  int fd = open_controlling_pty ();
  char subcode = 2;

  return result (syscall (SYS_ioctl, fd, (unsigned long) TIOCLINUX | 0xFFFF00000000UL, &subcode));
}

static int
probe_clone3 (void)
{
  /* Unfiltered: EFAULT/EINVAL.  ENOSYS is what makes glibc use clone(). */
  return result (syscall (SYS_clone3, NULL, 0));
}

static int
probe_open_tree (void)
{
  /* Unfiltered this succeeds (an O_PATH fd), even without privilege. */
  return result (syscall (SYS_open_tree, AT_FDCWD, "/", 0));
}

static int
probe_fsopen (void)
{
  return result (syscall (SYS_fsopen, "tmpfs", 0));
}

static int
probe_fspick (void)
{
  return result (syscall (SYS_fspick, AT_FDCWD, "/nonexistent-bwsh-test", 0));
}

static int
probe_fsconfig (void)
{
  return result (syscall (SYS_fsconfig, -1, 0, NULL, NULL, 0));
}

static int
probe_fsmount (void)
{
  return result (syscall (SYS_fsmount, -1, 0, 0));
}

static int
probe_move_mount (void)
{
  return result (syscall (SYS_move_mount, -1, "", -1, "", 0));
}

static int
probe_mount_setattr (void)
{
  return result (syscall (SYS_mount_setattr, -1, "", 0, NULL, 0));
}

static int
probe_mount (void)
{
  /* A missing target: ENOENT for root, if the filter let it through. */
  return result (mount ("none", "/nonexistent-bwsh-test", "tmpfs", 0, NULL));
}

static int
probe_umount2 (void)
{
  return result (umount2 ("/nonexistent-bwsh-test", 0));
}

static int
probe_pivot_root (void)
{
  return result (syscall (SYS_pivot_root, "/nonexistent-bwsh-test", "/nonexistent-bwsh-test"));
}

static int
probe_chroot (void)
{
  return result (chroot ("/nonexistent-bwsh-test"));
}

static int
probe_keyctl (void)
{
  return result (syscall (SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0));
}

static int
probe_request_key (void)
{
  return result (syscall (SYS_request_key, "user", "bwsh-test-no-such-key", NULL, 0));
}

static int
probe_add_key (void)
{
  /* A bad type pointer: EFAULT if unfiltered, and nothing is added. */
  return result (syscall (SYS_add_key, (void *) 1, "bwsh-test", "x", 1, KEY_SPEC_SESSION_KEYRING));
}

static int
probe_syslog (void)
{
  return result (syscall (SYS_syslog, 10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0));
}

static int
probe_perf_event_open (void)
{
  return result (syscall (SYS_perf_event_open, NULL, 0, -1, -1, 0));
}

static int
probe_bpf (void)
{
  return result (syscall (SYS_bpf, 0, NULL, 0));
}

static int
probe_userfaultfd (void)
{
  return result (syscall (SYS_userfaultfd, 0x7fffffff)); /* bad flags: EINVAL if unfiltered */
}

static int
probe_finit_module (void)
{
  return result (syscall (SYS_finit_module, -1, "", 0));
}

static int
probe_kexec_file_load (void)
{
  return result (syscall (SYS_kexec_file_load, -1, -1, 0, NULL, 0));
}

static int
probe_personality_no_aslr (void)
{
  return result (personality (PER_LINUX | ADDR_NO_RANDOMIZE));
}

static int
probe_unshare_userns (void)
{
  return result (unshare (CLONE_NEWUSER));
}

static int
probe_clone_userns (void)
{
  long pid = syscall (SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, NULL);

  if (pid == 0)
    _exit (0);
  if (pid > 0)
    waitpid ((pid_t) pid, NULL, 0);
  return result (pid);
}

static int
probe_socket_vsock (void)
{
  return result (socket (40 /* AF_VSOCK */, SOCK_STREAM | SOCK_CLOEXEC, 0));
}

static int
probe_socket_alg (void)
{
  return result (socket (38 /* AF_ALG */, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
}

static int
probe_socket_family_high_bits (void)
{
  /* The kernel takes an int: this is AF_UNIX to it, but not to a 64-bit rule. */
  return result (syscall (SYS_socket, 0x100000000UL | AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
}

static int
probe_io_uring_setup (void)
{
  return result (syscall (SYS_io_uring_setup, 1, NULL));
}

#ifdef SYS_modify_ldt
static int
probe_modify_ldt (void)
{
  char buf[8];

  return result (syscall (SYS_modify_ldt, 0, buf, sizeof buf));
}
#endif

/* ---------------------------------------------------- what must keep working */

static int
probe_tiocgwinsz (void)
{
  int fd = open_pty_master ();
  struct winsize ws;

  return result (ioctl (fd, TIOCGWINSZ, &ws));
}

static int
probe_job_control (void)
{
  int fd = open_controlling_pty ();

  /* What an interactive shell does on start and on `fg`. */
  if (setpgid (0, 0) < 0 && errno != EPERM) /* a session leader is already a group leader */
    return errno;
  if (tcsetpgrp (fd, getpgrp ()) < 0)
    return errno;
  if (tcgetpgrp (fd) != getpgrp ())
    return EIO;
  return 0;
}

static int
probe_chmod (void)
{
  char path[] = "/tmp/bwsh-test-seccomp-XXXXXX";
  int fd = mkstemp (path);
  int r;

  if (fd < 0)
    return CHILD_SETUP_FAILED;
  r = result (chmod (path, 0600));
  unlink (path);
  close (fd);
  return r;
}

static int
probe_listen (void)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    return errno;
  if (bind (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
    return errno;
  return result (listen (fd, 1));
}

static int
probe_everyday_socket_families (void)
{
  static const int families[][3] = {
    { AF_UNIX, SOCK_STREAM, 0 },
    { AF_INET, SOCK_DGRAM, 0 },
    { AF_INET6, SOCK_STREAM, 0 },
    { AF_NETLINK, SOCK_RAW, 0 /* NETLINK_ROUTE, getifaddrs() */ },
  };

  for (size_t i = 0; i < BWSH_N_ELEMENTS (families); i++)
    {
      int fd = socket (families[i][0], families[i][1] | SOCK_CLOEXEC, families[i][2]);

      /* EAFNOSUPPORT from a kernel without IPv6 is the kernel's business. */
      if (fd < 0 && !(families[i][0] == AF_INET6 && errno == EAFNOSUPPORT))
        return errno;
      if (fd >= 0)
        close (fd);
    }
  return 0;
}

static int
probe_prctl_get_dumpable (void)
{
  return result (prctl (PR_GET_DUMPABLE, 0, 0, 0, 0));
}

static int
probe_fork_waitpid (void)
{
  pid_t pid = fork ();
  int status;

  if (pid < 0)
    return errno;
  if (pid == 0)
    _exit (7);
  if (waitpid (pid, &status, 0) != pid)
    return errno;
  return WIFEXITED (status) && WEXITSTATUS (status) == 7 ? 0 : ECHILD;
}

static void *
thread_main (void *arg)
{
  return arg;
}

static int
probe_pthread_create (void)
{
  pthread_t t;
  void *ret = NULL;
  int r;

  /* glibc tries clone3 first; ENOSYS must send it to clone(). */
  r = pthread_create (&t, NULL, thread_main, (void *) 0x42);
  if (r != 0)
    return r;
  r = pthread_join (t, &ret);
  if (r != 0)
    return r;
  return ret == (void *) 0x42 ? 0 : EIO;
}

static int
probe_ptrace_own_child (void)
{
  pid_t pid = fork ();
  int status;

  if (pid < 0)
    return errno;
  if (pid == 0)
    {
      if (ptrace (PTRACE_TRACEME, 0, NULL, NULL) < 0)
        _exit (1);
      raise (SIGSTOP);
      _exit (0);
    }
  if (waitpid (pid, &status, 0) != pid || !WIFSTOPPED (status))
    return ECHILD;
  if (ptrace (PTRACE_CONT, pid, NULL, NULL) < 0)
    return errno;
  if (waitpid (pid, &status, 0) != pid)
    return errno;
  return WIFEXITED (status) && WEXITSTATUS (status) == 0 ? 0 : EPERM;
}

static int
probe_personality_default (void)
{
  return result (personality (PER_LINUX));
}

static int
probe_execve (void)
{
  pid_t pid = fork ();
  int status;

  if (pid < 0)
    return errno;
  if (pid == 0)
    {
      static char arg0[] = "true";
      char *argv[] = { arg0, NULL };
      char *envp[] = { NULL };

      execve ("/bin/true", argv, envp);
      execve ("/usr/bin/true", argv, envp);
      _exit (127);
    }
  if (waitpid (pid, &status, 0) != pid)
    return errno;
  return WIFEXITED (status) && WEXITSTATUS (status) == 0 ? 0 : ENOEXEC;
}

static Probe probes[] = {
  { "test_tiocsti_injection_refused", probe_tiocsti, EPERM },
  { "test_tiocsti_high_bits_refused", probe_tiocsti_high_bits, EPERM },
  { "test_tiocsti_via_x32_refused", probe_tiocsti_x32, EPERM },
  { "test_tiocsti_via_int80_i386_refused", probe_tiocsti_i386, EPERM },
  { "test_tioclinux_paste_injection_refused", probe_tioclinux, EPERM },
  { "test_tioclinux_high_bits_refused", probe_tioclinux_high_bits, EPERM },
  { "test_clone3_hidden_flags_enosys", probe_clone3, ENOSYS },
  { "test_open_tree_mount_api_enosys", probe_open_tree, ENOSYS },
  { "test_fsopen_mount_api_enosys", probe_fsopen, ENOSYS },
  { "test_fspick_mount_api_enosys", probe_fspick, ENOSYS },
  { "test_fsconfig_mount_api_enosys", probe_fsconfig, ENOSYS },
  { "test_fsmount_mount_api_enosys", probe_fsmount, ENOSYS },
  { "test_move_mount_mount_api_enosys", probe_move_mount, ENOSYS },
  { "test_mount_setattr_remount_rw_enosys", probe_mount_setattr, ENOSYS },
  { "test_mount_over_sandbox_refused", probe_mount, EPERM },
  { "test_umount_reveals_underlying_refused", probe_umount2, EPERM },
  { "test_pivot_root_refused", probe_pivot_root, EPERM },
  { "test_chroot_refused", probe_chroot, EPERM },
  { "test_keyctl_host_keyring_refused", probe_keyctl, EPERM },
  { "test_request_key_host_keyring_refused", probe_request_key, EPERM },
  { "test_add_key_host_keyring_refused", probe_add_key, EPERM },
  { "test_syslog_kernel_log_leak_refused", probe_syslog, EPERM },
  { "test_perf_event_open_refused", probe_perf_event_open, EPERM },
  { "test_bpf_verifier_attack_surface_refused", probe_bpf, EPERM },
  { "test_userfaultfd_race_widening_refused", probe_userfaultfd, EPERM },
  { "test_finit_module_refused", probe_finit_module, EPERM },
  { "test_kexec_file_load_refused", probe_kexec_file_load, EPERM },
  { "test_personality_disable_aslr_refused", probe_personality_no_aslr, EPERM },
  { "test_unshare_nested_userns_refused", probe_unshare_userns, EPERM },
  { "test_clone_nested_userns_refused", probe_clone_userns, EPERM },
  { "test_socket_vsock_family_refused", probe_socket_vsock, EAFNOSUPPORT },
  { "test_socket_alg_family_refused", probe_socket_alg, EAFNOSUPPORT },
  { "test_socket_family_high_bits_refused", probe_socket_family_high_bits, EAFNOSUPPORT },
  { "test_io_uring_filter_bypass_enosys", probe_io_uring_setup, ENOSYS },
#ifdef SYS_modify_ldt
  { "test_modify_ldt_refused", probe_modify_ldt, EPERM },
#endif
  { "test_tiocgwinsz_still_works", probe_tiocgwinsz, 0 },
  { "test_job_control_tcsetpgrp_still_works", probe_job_control, 0 },
  { "test_chmod_still_works", probe_chmod, 0 },
  { "test_listen_still_works", probe_listen, 0 },
  { "test_everyday_socket_families_still_work", probe_everyday_socket_families, 0 },
  { "test_prctl_get_dumpable_still_works", probe_prctl_get_dumpable, 0 },
  { "test_fork_waitpid_still_works", probe_fork_waitpid, 0 },
  { "test_pthread_create_falls_back_to_clone", probe_pthread_create, 0 },
  { "test_ptrace_own_child_still_works", probe_ptrace_own_child, 0 },
  { "test_personality_default_still_works", probe_personality_default, 0 },
  { "test_execve_still_works", probe_execve, 0 },
};

/* ------------------------------------------------------------ machinery */

/* Load the filter from the memfd the way bwrap does: read it from the
 * current offset, then PR_SET_NO_NEW_PRIVS and PR_SET_SECCOMP. */
static int
install_filter_from_fd (int fd)
{
  struct stat st;
  struct sock_fprog prog;
  _cleanup_free_ struct sock_filter *insns = NULL;
  size_t done = 0;

  if (fstat (fd, &st) < 0 || st.st_size <= 0 || st.st_size % sizeof (struct sock_filter) != 0)
    return -1;
  insns = malloc ((size_t) st.st_size);
  if (insns == NULL)
    return -1;
  while (done < (size_t) st.st_size)
    {
      ssize_t n = read (fd, (char *) insns + done, (size_t) st.st_size - done);

      if (n <= 0)
        return -1;
      done += (size_t) n;
    }
  prog.len = (unsigned short) (st.st_size / sizeof (struct sock_filter));
  prog.filter = insns;
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return -1;
  if (prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
    return -1;
  return 0;
}

static int
run_in_filtered_child (ProbeFunc probe, int *ret_status)
{
  BwshError err = { 0 };
  int fd = -1;
  pid_t pid;
  int r;

  r = bwsh_seccomp_build_fd (&fd, &err);
  if (r < 0)
    {
      print_error ("bwsh_seccomp_build_fd: %s\n", err.message);
      return r;
    }

  pid = fork ();
  if (pid < 0)
    {
      close (fd);
      return -errno;
    }
  if (pid == 0)
    {
      if (install_filter_from_fd (fd) < 0)
        _exit (CHILD_SETUP_FAILED);
      _exit (probe ());
    }
  close (fd);
  if (waitpid (pid, ret_status, 0) != pid)
    return -errno;
  return 0;
}

static void
run_probe (void **state)
{
  const Probe *p = *state;
  int status = 0;

  assert_int_equal (run_in_filtered_child (p->probe, &status), 0);
  if (WIFSIGNALED (status))
    fail_msg ("%s: child killed by signal %d", p->name, WTERMSIG (status));
  assert_true (WIFEXITED (status));
  if (WEXITSTATUS (status) != p->expected)
    fail_msg ("%s: expected errno %d (%s), got %d (%s)", p->name, p->expected,
              p->expected ? strerror (p->expected) : "success", WEXITSTATUS (status),
              WEXITSTATUS (status) ? strerror (WEXITSTATUS (status)) : "success");
}

/* The fd must be what bwrap --seccomp expects, and nobody holding it may
 * rewrite the program between build and exec. */
static void
test_filter_memfd_sealed_against_rewrite (void **state)
{
  BwshError err = { 0 };
  _cleanup_close_ int fd = -1;
  struct stat st;
  int seals, flags;
  char c = 0;

  (void) state;
  assert_int_equal (bwsh_seccomp_build_fd (&fd, &err), 0);
  assert_true (fd >= 0);

  flags = fcntl (fd, F_GETFD);
  assert_true (flags >= 0 && (flags & FD_CLOEXEC));
  assert_int_equal (lseek (fd, 0, SEEK_CUR), 0);
  assert_int_equal (fstat (fd, &st), 0);
  assert_true (st.st_size > 0);
  assert_int_equal (st.st_size % sizeof (struct sock_filter), 0);

  seals = fcntl (fd, F_GET_SEALS);
  assert_true (seals >= 0);
  assert_int_equal (seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL),
                    F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
  assert_int_equal (pwrite (fd, &c, 1, 0), -1);
  assert_int_equal (errno, EPERM);
  assert_int_equal (ftruncate (fd, 0), -1);
  assert_int_equal (fcntl (fd, F_ADD_SEALS, 0), -1);
}

/* Sessions use the filter compiled at build time; every probe above runs
 * against a fresh compile, so the two must be the same bytes. */
static void
test_embedded_filter_is_the_tested_filter (void **state)
{
  static unsigned char fresh[65536], embedded[65536];
  ssize_t nf, ne;
  int f = -1, e = -1;

  (void) state;
  assert_int_equal (bwsh_seccomp_build_fd (&f, NULL), 0);
  assert_int_equal (bwsh_seccomp_embedded_fd (&e, NULL), 0);
  nf = read (f, fresh, sizeof fresh);
  ne = read (e, embedded, sizeof embedded);
  assert_true (nf > 0);
  assert_int_equal (nf, ne);
  assert_memory_equal (fresh, embedded, (size_t) nf);
  assert_int_equal (fcntl (e, F_GET_SEALS) & F_SEAL_WRITE, F_SEAL_WRITE);
  close (f);
  close (e);
}

int
main (void)
{
  struct CMUnitTest tests[BWSH_N_ELEMENTS (probes) + 2];
  size_t n = 0;

  tests[n++] = (struct CMUnitTest) cmocka_unit_test (test_filter_memfd_sealed_against_rewrite);
  tests[n++] = (struct CMUnitTest) cmocka_unit_test (test_embedded_filter_is_the_tested_filter);
  for (size_t i = 0; i < BWSH_N_ELEMENTS (probes); i++)
    tests[n++] = (struct CMUnitTest) { probes[i].name, run_probe, NULL, NULL, (void *) &probes[i] };

  return _cmocka_run_group_tests ("seccomp", tests, n, NULL, NULL);
}
