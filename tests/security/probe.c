/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwsh-probe: one system call per subcommand, for the escape suite.
 *
 * The escape tests run this inside the real sandbox and compare what it
 * prints with the safe answer.  Each subcommand makes exactly one attempt
 * (TIOCSTI: one ioctl per byte) and prints the errno name ("EPERM",
 * "EROFS", ...) or "OK", then exits 0.  Exit 2 is a usage error, so a test
 * never mistakes a typo for a refusal.
 *
 * Raw syscall() is used wherever glibc might translate or retry (ioctl with
 * the high bits set, clone3, the new mount API): the point is what the
 * kernel and the seccomp filter answer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <arpa/inet.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#define KEYCTL_GET_KEYRING_ID 0
#define KEY_SPEC_SESSION_KEYRING (-3)

static int
report (long rc)
{
  if (rc < 0)
    {
      const char *name = strerrorname_np (errno);
      if (name != NULL)
        puts (name);
      else
        printf ("E%d\n", errno);
    }
  else
    puts ("OK");
  return 0;
}

static int
usage (void)
{
  fputs ("usage: bwsh-probe SUBCOMMAND [ARGS]\n"
         "  create PATH | mkdir PATH | chmod PATH | rename FROM TO\n"
         "  mount DIR | remount-rw DIR | umount DIR | pivot_root DIR\n"
         "  keyctl | add_key | unshare-user | clone-newuser | clone3\n"
         "  open_tree PATH | fsopen\n"
         "  tiocsti TEXT | tiocsti-hi TEXT (TEXT and a newline) | tioclinux | tiocgwinsz\n"
         "  kill PID | ptrace PID | dumpable\n"
         "  connect-unix PATH | connect-abstract NAME | connect-tcp PORT\n"
         "  listen-unix PATH | listen-tcp\n",
         stderr);
  return 2;
}

static int
tty_fd (void)
{
  int fd = open ("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

  if (fd < 0)
    {
      printf ("NOTTY-%s\n", strerrorname_np (errno));
      exit (0);
    }
  return fd;
}

/* Push @text and a newline into the terminal's input queue one byte at a
 * time, as an attacker queues a command line for the shell that reads the
 * terminal next; report the first failure, or OK when every byte went in. */
static int
inject (const char *text, unsigned long request)
{
  int fd = tty_fd ();
  const char nl = '\n';

  for (const char *c = text; *c != '\0'; c++)
    if (syscall (SYS_ioctl, fd, request, c) < 0)
      return report (-1);
  if (syscall (SYS_ioctl, fd, request, &nl) < 0)
    return report (-1);
  return report (0);
}

static int
unix_addr (struct sockaddr_un *sa, socklen_t *len, const char *name, bool abstract)
{
  size_t n = strlen (name);

  memset (sa, 0, sizeof *sa);
  sa->sun_family = AF_UNIX;
  if (n + 1 >= sizeof sa->sun_path)
    return -1;
  if (abstract)
    {
      memcpy (sa->sun_path + 1, name, n);
      *len = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + 1 + n);
    }
  else
    {
      memcpy (sa->sun_path, name, n);
      *len = (socklen_t) (offsetof (struct sockaddr_un, sun_path) + n + 1);
    }
  return 0;
}

static long
parse_long (const char *s)
{
  char *end = NULL;
  long v;

  errno = 0;
  v = strtol (s, &end, 10);
  if (errno != 0 || end == s || *end != '\0')
    {
      fprintf (stderr, "bwsh-probe: not a number: %s\n", s);
      exit (2);
    }
  return v;
}

int
main (int argc, char **argv)
{
  const char *cmd;
  const char *a1;

  if (argc < 2)
    return usage ();
  cmd = argv[1];
  a1 = argc > 2 ? argv[2] : NULL;

#define NEED(n)                 \
  do                            \
    {                           \
      if (argc < 2 + (n))       \
        return usage ();        \
    }                           \
  while (0)

  /* Filesystem */
  if (strcmp (cmd, "create") == 0)
    {
      NEED (1);
      return report (open (a1, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    }
  if (strcmp (cmd, "mkdir") == 0)
    {
      NEED (1);
      return report (mkdir (a1, 0700));
    }
  if (strcmp (cmd, "chmod") == 0)
    {
      NEED (1);
      return report (chmod (a1, 0640));
    }
  if (strcmp (cmd, "rename") == 0)
    {
      NEED (2);
      return report (rename (a1, argv[3]));
    }

  /* Mounts and the root */
  if (strcmp (cmd, "mount") == 0)
    {
      NEED (1);
      return report (mount ("none", a1, "tmpfs", 0, NULL));
    }
  if (strcmp (cmd, "remount-rw") == 0)
    {
      NEED (1);
      return report (mount (NULL, a1, NULL, MS_REMOUNT | MS_BIND, NULL));
    }
  if (strcmp (cmd, "umount") == 0)
    {
      NEED (1);
      return report (umount2 (a1, MNT_DETACH));
    }
  if (strcmp (cmd, "pivot_root") == 0)
    {
      NEED (1);
      return report (syscall (SYS_pivot_root, a1, a1));
    }
  if (strcmp (cmd, "open_tree") == 0)
    {
      NEED (1);
      return report (syscall (SYS_open_tree, AT_FDCWD, a1, 1 /* OPEN_TREE_CLONE */));
    }
  if (strcmp (cmd, "fsopen") == 0)
    return report (syscall (SYS_fsopen, "tmpfs", 0));

  /* Keyring */
  if (strcmp (cmd, "keyctl") == 0)
    return report (syscall (SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0));
  if (strcmp (cmd, "add_key") == 0)
    return report (syscall (SYS_add_key, "user", "bwsh-probe", "x", 1, KEY_SPEC_SESSION_KEYRING));

  /* Nested namespaces */
  if (strcmp (cmd, "unshare-user") == 0)
    return report (unshare (CLONE_NEWUSER));
  if (strcmp (cmd, "clone-newuser") == 0)
    {
      long pid = syscall (SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, NULL);
      if (pid == 0)
        _exit (0);
      if (pid > 0)
        waitpid ((pid_t) pid, NULL, 0);
      return report (pid);
    }
  if (strcmp (cmd, "clone3") == 0)
    {
      struct clone_args ca = { .flags = CLONE_NEWUSER, .exit_signal = SIGCHLD };
      long pid = syscall (SYS_clone3, &ca, sizeof ca);
      if (pid == 0)
        _exit (0);
      if (pid > 0)
        waitpid ((pid_t) pid, NULL, 0);
      return report (pid);
    }

  /* Terminal */
  if (strcmp (cmd, "tiocsti") == 0)
    {
      NEED (1);
      return inject (a1, TIOCSTI);
    }
  if (strcmp (cmd, "tiocsti-hi") == 0)
    {
      /* CVE-2019-10063: the kernel truncates the request to 32 bits, so a
       * filter that compares all 64 would let this one through. */
      NEED (1);
      return inject (a1, (unsigned long) TIOCSTI | (1UL << 32));
    }
  if (strcmp (cmd, "tioclinux") == 0)
    {
      /* Subcode 3, TIOCL_PASTESEL: paste the console selection as input. */
      char sub = 3;
      return report (syscall (SYS_ioctl, tty_fd (), TIOCLINUX, &sub));
    }
  if (strcmp (cmd, "tiocgwinsz") == 0)
    {
      struct winsize ws;
      return report (ioctl (tty_fd (), TIOCGWINSZ, &ws));
    }

  /* Processes */
  if (strcmp (cmd, "kill") == 0)
    {
      NEED (1);
      return report (kill ((pid_t) parse_long (a1), 0));
    }
  if (strcmp (cmd, "ptrace") == 0)
    {
      long pid;
      NEED (1);
      pid = parse_long (a1);
      long r = ptrace (PTRACE_ATTACH, (pid_t) pid, NULL, NULL);
      if (r == 0)
        ptrace (PTRACE_DETACH, (pid_t) pid, NULL, NULL);
      return report (r);
    }
  if (strcmp (cmd, "dumpable") == 0)
    {
      int v = prctl (PR_GET_DUMPABLE, 0, 0, 0, 0);
      if (v < 0)
        return report (-1);
      printf ("OK %d\n", v);
      return 0;
    }

  /* Sockets */
  if (strcmp (cmd, "connect-unix") == 0 || strcmp (cmd, "connect-abstract") == 0)
    {
      struct sockaddr_un sa;
      socklen_t len;
      int fd;
      NEED (1);
      if (unix_addr (&sa, &len, a1, cmd[8] == 'a') < 0)
        return usage ();
      fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0)
        return report (-1);
      return report (connect (fd, (struct sockaddr *) &sa, len));
    }
  if (strcmp (cmd, "connect-tcp") == 0)
    {
      struct sockaddr_in sin = { .sin_family = AF_INET };
      int fd;
      NEED (1);
      sin.sin_port = htons ((uint16_t) parse_long (a1));
      sin.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
      fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0)
        return report (-1);
      return report (connect (fd, (struct sockaddr *) &sin, sizeof sin));
    }
  if (strcmp (cmd, "listen-unix") == 0)
    {
      struct sockaddr_un sa;
      socklen_t len;
      int fd;
      NEED (1);
      if (unix_addr (&sa, &len, a1, false) < 0)
        return usage ();
      fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0 || bind (fd, (struct sockaddr *) &sa, len) < 0)
        return report (-1);
      return report (listen (fd, 1));
    }
  if (strcmp (cmd, "listen-tcp") == 0)
    {
      struct sockaddr_in sin = { .sin_family = AF_INET };
      int fd;
      sin.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
      fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0 || bind (fd, (struct sockaddr *) &sin, sizeof sin) < 0)
        return report (-1);
      return report (listen (fd, 1));
    }

  return usage ();
}
