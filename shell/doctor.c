/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bwshctl doctor: what on this machine would weaken or break bwsh.
 *
 * Each check prints one finding, "ok:", "note:", "warning:" or "error:",
 * followed for the last two by a "fix:" line that says what to change.
 * Exit status: 0 when nothing is wrong, 1 when the worst finding is a
 * warning, 2 when there is an error (or on a usage error).
 *
 * The doctor only reads: files under /etc, /proc/sys and /sys, and the
 * output of `bwrap --version`, `bwrap --help`, a bwrap run as an
 * unprivileged user, and `sshd -T`.  Commands run with an argv vector, a
 * fixed environment, stdin on /dev/null and a timeout; never through a shell.
 *
 * Test builds (BWSH_TEST_BUILD) accept --root DIR, --sshd CMD and --bwrap CMD
 * so that the tests can point every file and command at fixtures.  An
 * installed build has no such options: what it reports is the machine.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "bwshcore.h"
#include "cleanup.h"
#include "doctor.h"
#include "options.h"

int bwshctl_doctor (int argc, char **argv);

#define BWSH_SHELL_PATH BWSH_BINDIR "/bwsh"
#define SSHD_PATH "/usr/sbin/sshd"

typedef enum
{
  LEVEL_OK,
  LEVEL_NOTE,
  LEVEL_WARNING,
  LEVEL_ERROR,
} Level;

typedef struct
{
  const char *root;  /* "" or a test build's --root */
  const char *sshd;  /* command */
  const char *bwrap; /* command */
  bool bwrap_overridden;
  const char *policy_path;
  const char *user;  /* --user */
  bool help;
  BwshIdentity *subject;
  BwshPolicy *policy;
  bool userns_ok;    /* the userns probe's bwrap ran as the probe identity */
  bool disable_userns;
  int warnings;
  int errors;
} Doctor;

static void finding (Doctor *d, Level level, const char *fix, const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));

static void
finding (Doctor *d, Level level, const char *fix, const char *fmt, ...)
{
  static const char *const names[] = { "ok", "note", "warning", "error" };
  _cleanup_free_ char *msg = NULL, *e_msg = NULL, *e_fix = NULL;
  va_list ap;
  int r;

  va_start (ap, fmt);
  r = vasprintf (&msg, fmt, ap);
  va_end (ap);
  /* One choke point: a name or an output line that came from a user or a
   * command reaches the administrator's terminal as one escaped line. */
  e_msg = r >= 0 ? bwsh_escape_message (msg) : NULL;
  e_fix = fix != NULL ? bwsh_escape_message (fix) : NULL;
  printf ("%s: %s\n", names[level], e_msg != NULL ? e_msg : "out of memory");
  if (fix != NULL && level >= LEVEL_WARNING)
    printf ("  fix: %s\n", e_fix != NULL ? e_fix : "out of memory");
  if (level == LEVEL_WARNING)
    d->warnings++;
  else if (level == LEVEL_ERROR)
    d->errors++;
}

/* The path of a system file, below --root in a test build. */
static char *
at_root (const Doctor *d, const char *path)
{
  char *s = NULL;

  if (asprintf (&s, "%s%s", d->root, path) < 0)
    {
      perror ("bwshctl doctor");
      exit (2);
    }
  return s;
}

/* First line of a small text file, without the newline.  NULL if unreadable
 * (errno set). */
static char *
read_first_line (const char *path)
{
  _cleanup_fclose_ FILE *f = fopen (path, "re");
  char buf[256];

  if (f == NULL)
    return NULL;
  if (fgets (buf, sizeof buf, f) == NULL)
    {
      errno = ferror (f) ? EIO : ENODATA;
      return NULL;
    }
  buf[strcspn (buf, "\n")] = '\0';
  return strdup (buf);
}

/* ------------------------------------------------------------------ lock */

/* --user: a lock (bwshctl lock) refuses every new session of the user. */
static void
check_lock (Doctor *d)
{
  BwshLock l = { 0 };
  BwshError err = { 0 };
  int r;

  if (d->subject == NULL)
    return;
  r = bwsh_lock_find (NULL, d->subject, &l, &err);
  if (r == -ENOENT)
    {
      finding (d, LEVEL_OK, NULL, "lock: %s is not locked", d->subject->name);
      return;
    }
  if (r < 0)
    {
      finding (d, LEVEL_ERROR, NULL, "lock: cannot read the locks of %s: %s", d->subject->name, err.message);
      return;
    }
  {
    _cleanup_free_ char *et = bwsh_escape (l.target, strlen (l.target));
    _cleanup_free_ char *er = bwsh_escape (l.reason, strlen (l.reason));
    _cleanup_free_ char *eb = bwsh_escape (l.by, strlen (l.by));
    _cleanup_free_ char *fix = NULL;
    char when[32] = "?";
    struct tm tm;
    time_t t = (time_t) l.since;

    if (l.since > 0)
      strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r (&t, &tm));
    if (asprintf (&fix, "bwshctl unlock %s, when the lock is over", et != NULL ? et : "?") < 0)
      fix = NULL;
    finding (d, LEVEL_WARNING, fix, "lock: sessions of %s are locked (%s, since %s, by %s): %s; every login of %s is refused",
             et != NULL ? et : "?", et != NULL && et[0] == '@' ? "a group lock" : "a user lock", when,
             eb != NULL && eb[0] != '\0' ? eb : "?", er != NULL && er[0] != '\0' ? er : "no reason given",
             d->subject->name);
  }
  bwsh_lock_clear (&l);
}

/* ----------------------------------------------------------------- policy */

static void
check_policy (Doctor *d)
{
  const char *path = d->policy_path != NULL ? d->policy_path : bwsh_policy_path ();
  BwshError err = { 0 };
  BwshIdentity *id = d->subject;
  struct stat st;
  int r;

  if (id == NULL)
    {
      r = bwsh_identity_from_uid (getuid (), &id, &err);
      if (r < 0)
        {
          finding (d, LEVEL_ERROR, "check the passwd database (getent passwd)", "cannot identify the caller: %s",
                   err.message);
          return;
        }
    }
  r = bwsh_policy_load (path, id, &d->policy, &err);
  if (id != d->subject)
    bwsh_identity_free (id);
  if (r < 0)
    {
      _cleanup_free_ char *msg = bwsh_error_to_string (&err);
      finding (d, LEVEL_ERROR, "correct the policy file, then run `bwshctl check`",
               "policy: %s (every session is refused until this is fixed)", msg != NULL ? msg : "out of memory");
      d->policy = NULL;
      (void) bwsh_policy_new_defaults (&d->policy);
      return;
    }
  if (stat (path, &st) < 0)
    finding (d, LEVEL_NOTE, NULL, "policy: %s does not exist; the built-in defaults apply", path);
  else
    finding (d, LEVEL_OK, NULL, "policy: %s is valid", path);
}

/* ------------------------------------------------------------------ bwrap */

typedef struct
{
  bool present;
  bool disable_userns;
  bool ro_bind_fd;
} BwrapInfo;

static void
check_bwrap (Doctor *d, BwrapInfo *info)
{
  const char *const version_argv[] = { d->bwrap, "--version", NULL };
  const char *const help_argv[] = { d->bwrap, "--help", NULL };
  _cleanup_free_ char *version = NULL, *why = NULL;
  CmdResult res = { 0 };
  BwshError err = { 0 };
  struct stat st;
  const char *missing[2];
  size_t n_missing = 0;

  *info = (BwrapInfo) { 0 };
  if (stat (d->bwrap, &st) < 0)
    {
      finding (d, LEVEL_ERROR, "install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)",
               "bwrap: %s: %s; bwsh cannot start any session", d->bwrap, strerror (errno));
      return;
    }
  if (!S_ISREG (st.st_mode) || (st.st_mode & 0111) == 0)
    {
      finding (d, LEVEL_ERROR, "reinstall bubblewrap", "bwrap: %s is not an executable file; bwsh cannot start any session",
               d->bwrap);
      return;
    }
  /* The compiled-in path is trusted only as root's: whoever can replace it
   * runs code as every bwsh user, outside the sandbox. */
  if (!d->bwrap_overridden && bwsh_check_path_trusted (d->bwrap, BWSH_OWNER_ROOT, 0, &err) < 0)
    finding (d, LEVEL_ERROR, "make bwrap and every directory above it owned by root and not group- or world-writable",
             "bwrap: %s: %s", d->bwrap, err.message);
  if (st.st_mode & S_ISUID)
    finding (d, LEVEL_WARNING, "chmod u-s on bwrap (bwsh uses unprivileged user namespaces and does not need setuid)",
             "bwrap: %s is setuid; bwsh does not need that, and a setuid bwrap is attack surface for every local user",
             d->bwrap);

  if (run_cmd (version_argv, false, 0, 0, &res) < 0 || !cmd_succeeded (&res) || res.out == NULL
      || strncmp (res.out, "bubblewrap ", 11) != 0)
    {
      why = cmd_first_line (&res);
      finding (d, LEVEL_ERROR, "reinstall bubblewrap", "bwrap: `%s --version` failed: %s", d->bwrap,
               why != NULL ? why : "?");
      cmd_result_clear (&res);
      return;
    }
  version = bwsh_escape (res.out + 11, strcspn (res.out + 11, "\n"));
  cmd_result_clear (&res);

  /* Features by name in --help: 0.8.0 is the first with --disable-userns. */
  if (run_cmd (help_argv, false, 0, 0, &res) < 0 || res.exec_errno != 0 || res.out == NULL)
    {
      why = cmd_first_line (&res);
      finding (d, LEVEL_ERROR, "reinstall bubblewrap", "bwrap: `%s --help` failed: %s", d->bwrap,
               why != NULL ? why : "?");
      cmd_result_clear (&res);
      return;
    }
  info->present = true;
  info->disable_userns = strstr (res.out, "--disable-userns") != NULL;
  info->ro_bind_fd = strstr (res.out, "--ro-bind-fd") != NULL;
  cmd_result_clear (&res);
  if (!info->disable_userns)
    missing[n_missing++] = "--disable-userns";
  if (!info->ro_bind_fd)
    missing[n_missing++] = "--ro-bind-fd";
  if (n_missing > 0)
    finding (d, LEVEL_ERROR, "install bubblewrap 0.8.0 or later",
             "bwrap: %s (bubblewrap %s) lacks %s%s%s, which every bwsh session uses; sessions will fail", d->bwrap,
             version, missing[0], n_missing > 1 ? " and " : "", n_missing > 1 ? missing[1] : "");
  else
    finding (d, LEVEL_OK, NULL, "bwrap: %s, bubblewrap %s, with --disable-userns and --ro-bind-fd", d->bwrap, version);
}

/* --------------------------------------------------------- user namespaces */

/* Whom to try a user namespace as: the subject, or nobody. */
static void
probe_identity (const Doctor *d, uid_t *ret_uid, gid_t *ret_gid, const char **ret_name)
{
  struct passwd *pw;

  if (getuid () != 0)
    {
      *ret_uid = getuid ();
      *ret_gid = getgid ();
      *ret_name = "the caller";
      return;
    }
  if (d->subject != NULL && d->subject->uid != 0)
    {
      *ret_uid = d->subject->uid;
      *ret_gid = d->subject->gid;
      *ret_name = d->subject->name;
      return;
    }
  pw = getpwnam ("nobody");
  *ret_uid = pw != NULL ? pw->pw_uid : 65534;
  *ret_gid = pw != NULL ? pw->pw_gid : 65534;
  *ret_name = "an unprivileged account (nobody)";
}

/* Can an unprivileged process create a user namespace at all?  0 or errno. */
static int
kernel_userns_errno (uid_t uid, gid_t gid)
{
  int st;
  pid_t pid = fork ();

  if (pid < 0)
    return errno;
  if (pid == 0)
    {
      if (drop_to (uid, gid) < 0)
        _exit (255);
      _exit (unshare (CLONE_NEWUSER) < 0 ? (errno & 0x7f) : 0);
    }
  while (waitpid (pid, &st, 0) < 0)
    if (errno != EINTR)
      return errno;
  if (!WIFEXITED (st) || WEXITSTATUS (st) == 255)
    return ECHILD;
  return WEXITSTATUS (st);
}

typedef struct
{
  bool restricted;      /* apparmor_restrict_unprivileged_userns = 1 */
  bool profile_loaded;  /* the bwsh profile is in the kernel */
  bool profile_unknown; /* could not read the profile list */
} AppArmorInfo;

static void
check_apparmor (Doctor *d, AppArmorInfo *aa)
{
  _cleanup_free_ char *knob = at_root (d, "/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  _cleanup_free_ char *profiles = at_root (d, "/sys/kernel/security/apparmor/profiles");
  _cleanup_free_ char *value = read_first_line (knob);
  _cleanup_fclose_ FILE *f = NULL;
  char line[512];

  *aa = (AppArmorInfo) { 0 };
  if (value == NULL)
    {
      finding (d, LEVEL_OK, NULL, "apparmor: no kernel.apparmor_restrict_unprivileged_userns; user namespaces are not restricted by AppArmor");
      return;
    }
  if (strcmp (value, "1") != 0)
    {
      finding (d, LEVEL_OK, NULL, "apparmor: kernel.apparmor_restrict_unprivileged_userns = %s; not restricted",
               value[0] != '\0' ? value : "(empty)");
      return;
    }
  aa->restricted = true;
  f = fopen (profiles, "re");
  if (f == NULL)
    {
      aa->profile_unknown = true;
      finding (d, LEVEL_WARNING, "run `bwshctl doctor` as root, or check with `aa-status | grep bwsh`",
               "apparmor: unprivileged user namespaces are restricted (kernel.apparmor_restrict_unprivileged_userns = 1) "
               "and the list of loaded profiles is unreadable (%s); bwsh works only if its profile is loaded",
               strerror (errno));
      return;
    }
  while (fgets (line, sizeof line, f) != NULL)
    {
      /* "NAME (MODE)" */
      if (strncmp (line, "bwsh ", 5) == 0)
        aa->profile_loaded = true;
    }
  if (aa->profile_loaded)
    finding (d, LEVEL_OK, NULL,
             "apparmor: unprivileged user namespaces are restricted, and the bwsh profile (which lets bwsh's bwrap create "
             "them) is loaded");
  else
    finding (d, LEVEL_ERROR,
             "install the profile: cp /usr/share/bwsh/apparmor/bwsh /etc/apparmor.d/bwsh && apparmor_parser -r "
             "/etc/apparmor.d/bwsh",
             "apparmor: unprivileged user namespaces are restricted (kernel.apparmor_restrict_unprivileged_userns = 1) and "
             "the bwsh profile is not loaded; bwrap cannot start any bwsh session");
}

static void
check_userns (Doctor *d, const BwrapInfo *bw, const AppArmorInfo *aa)
{
  const char *argv[12];
  size_t n = 0;
  uid_t uid;
  gid_t gid;
  const char *who;
  CmdResult res = { 0 };
  _cleanup_free_ char *why = NULL, *knob_path = NULL, *knob = NULL, *max_path = NULL, *max = NULL;
  int kerr;

  probe_identity (d, &uid, &gid, &who);
  if (!bw->present)
    {
      kerr = kernel_userns_errno (uid, gid);
      if (kerr == 0)
        finding (d, LEVEL_NOTE, NULL, "userns: %s can create a user namespace (bwrap itself could not be tried)", who);
      else
        finding (d, LEVEL_ERROR, "allow unprivileged user namespaces (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone)",
                 "userns: %s cannot create a user namespace: %s", who, strerror (kerr));
      return;
    }

  argv[n++] = d->bwrap;
  argv[n++] = "--unshare-user";
  if (bw->disable_userns)
    argv[n++] = "--disable-userns";
  argv[n++] = "--ro-bind";
  argv[n++] = "/";
  argv[n++] = "/";
  argv[n++] = "--";
  argv[n++] = "true";
  argv[n] = NULL;
  if (run_cmd (argv, true, uid, gid, &res) < 0)
    {
      finding (d, LEVEL_ERROR, NULL, "userns: cannot run the probe: %s", strerror (errno));
      return;
    }
  if (cmd_succeeded (&res))
    {
      d->userns_ok = true;
      d->disable_userns = bw->disable_userns;
      finding (d, LEVEL_OK, NULL, "userns: %s can start bwrap in a new user namespace", who);
      cmd_result_clear (&res);
      return;
    }
  why = cmd_first_line (&res);
  cmd_result_clear (&res);

  if (aa->restricted && aa->profile_loaded)
    {
      /* The probe is not bwsh, so AppArmor does not give it bwsh's profile. */
      finding (d, LEVEL_NOTE, NULL,
               "userns: a bare bwrap run as %s fails (%s); expected under AppArmor's restriction, which bwsh's profile lifts "
               "for bwsh only", who, why != NULL ? why : "?");
      return;
    }
  if (aa->restricted)
    {
      finding (d, LEVEL_ERROR, "load the bwsh AppArmor profile (see the apparmor finding above)",
               "userns: %s cannot start bwrap in a new user namespace: %s", who, why != NULL ? why : "?");
      return;
    }

  kerr = kernel_userns_errno (uid, gid);
  knob_path = at_root (d, "/proc/sys/kernel/unprivileged_userns_clone");
  knob = read_first_line (knob_path);
  max_path = at_root (d, "/proc/sys/user/max_user_namespaces");
  max = read_first_line (max_path);
  if (kerr == 0)
    finding (d, LEVEL_ERROR, "run the probe by hand to see why: su -s /bin/sh nobody -c 'bwrap --unshare-user --ro-bind / / true'",
             "userns: %s cannot start bwrap in a new user namespace: %s (the kernel itself allows one, so bwrap fails "
             "for another reason)", who, why != NULL ? why : "?");
  else if (knob != NULL && strcmp (knob, "0") == 0)
    finding (d, LEVEL_ERROR,
             "sysctl -w kernel.unprivileged_userns_clone=1, and make it permanent in /etc/sysctl.d/bwsh.conf",
             "userns: %s cannot start bwrap in a new user namespace: %s (kernel.unprivileged_userns_clone = 0)", who,
             why != NULL ? why : "?");
  else if (max != NULL && strcmp (max, "0") == 0)
    finding (d, LEVEL_ERROR,
             "sysctl -w user.max_user_namespaces=10000, and make it permanent in /etc/sysctl.d/bwsh.conf",
             "userns: %s cannot start bwrap in a new user namespace: %s (user.max_user_namespaces = 0)", who,
             why != NULL ? why : "?");
  else
    finding (d, LEVEL_ERROR,
             "allow unprivileged user namespaces (check user.max_user_namespaces, kernel.unprivileged_userns_clone, "
             "and any LSM or container runtime that forbids them)",
             "userns: %s cannot start bwrap in a new user namespace: %s (the kernel refuses: %s)", who,
             why != NULL ? why : "?", strerror (kerr));
}

/* ------------------------------------------------------------- terminal */

static void
check_tiocsti (Doctor *d)
{
  _cleanup_free_ char *path = at_root (d, "/proc/sys/dev/tty/legacy_tiocsti");
  _cleanup_free_ char *value = read_first_line (path);

  if (value == NULL)
    finding (d, LEVEL_NOTE, NULL,
             "tiocsti: no dev.tty.legacy_tiocsti (a kernel older than 6.2): TIOCSTI always works in this kernel, "
             "and bwsh's seccomp filter is what refuses it inside the sandbox");
  else if (strcmp (value, "0") == 0)
    finding (d, LEVEL_OK, NULL, "tiocsti: dev.tty.legacy_tiocsti = 0; the kernel refuses TIOCSTI terminal injection");
  else
    finding (d, LEVEL_WARNING,
             "sysctl -w dev.tty.legacy_tiocsti=0, and make it permanent: echo dev.tty.legacy_tiocsti=0 > "
             "/etc/sysctl.d/60-tiocsti.conf",
             "tiocsti: dev.tty.legacy_tiocsti = %s: the kernel lets a process push input into its terminal (TIOCSTI); "
             "only bwsh's seccomp filter stops a sandboxed process typing into the shell outside", value);
}

/* ------------------------------------------------------------ recording */

/* record = "tty" or "required": tlog-rec must run as a subject's login runs
 * it (issue 36).  A recorder that cannot refuses every interactive login
 * under "required" and leaves each unrecorded under "tty". */
static void
check_recording (Doctor *d)
{
  const char *rec = bwsh_tlog_rec_path (), *fix = NULL, *who = NULL, *outcome;
  _cleanup_free_ char *path = at_root (d, rec), *said = NULL;
  BwshError err = { 0 };
  CmdResult res = { 0 };
  uid_t uid;
  gid_t gid;

  if (d->policy == NULL || d->policy->record_mode == BWSH_RECORD_OFF)
    {
      finding (d, LEVEL_OK, NULL, "recording: record = \"off\"%s%s", d->subject != NULL ? " for " : "",
               d->subject != NULL ? d->subject->name : "");
      return;
    }
  outcome = d->policy->record_mode == BWSH_RECORD_REQUIRED
                ? "every interactive login is refused (record = \"required\")"
                : "interactive sessions run unrecorded (record = \"tty\")";
  probe_identity (d, &uid, &gid, &who);
  if (bwsh_recorder_check (d->root, uid, gid, &fix, &err) < 0)
    {
      finding (d, LEVEL_ERROR, fix, "recording: %s, for %s: %s", err.message, who, outcome);
      return;
    }
  /* Its configuration is tlog-rec's to read: it runs true(1) with it, as
   * the subject, writing to /dev/null instead of the journal. */
  const char *const argv[] = { path, "--writer=file", "--file-path=/dev/null", "--", "/bin/true", NULL };
  (void) run_cmd (argv, true, uid, gid, &res);
  if (!cmd_succeeded (&res))
    {
      said = res.err_len > 0 ? strndup (res.err, res.err_len) : cmd_first_line (&res);
      for (char *c = said; c != NULL && *c != '\0'; c++)
        if (*c == '\n' && c[1] != '\0')
          *c = ' ';
      if (said != NULL)
        said[strcspn (said, "\n")] = '\0';
      finding (d, LEVEL_ERROR, "correct /etc/tlog/tlog-rec.conf (tlog-rec.conf(5)), then run bwshctl doctor again",
               "recording: the recorder %s fails as %s runs it (%s): %s", rec, who,
               said != NULL ? said : "out of memory", outcome);
    }
  else
    finding (d, LEVEL_OK, NULL, "recording: %s runs for %s and /run/utmp is there (record = \"%s\")", rec, who,
             bwsh_record_mode_to_string (d->policy->record_mode));
  cmd_result_clear (&res);
}

/* ------------------------------------------------------ journal budget */

/* tlog-rec.conf is JSON with comments (json-c takes them, jansson does
 * not): the text without its // and block comments, strings kept. */
static json_t *
json_file_with_comments (const char *path)
{
  _cleanup_fclose_ FILE *f = fopen (path, "re");
  _cleanup_free_ char *buf = NULL;
  size_t n = 0, o = 0;
  bool str = false;

  if (f == NULL || (buf = calloc (1, 65536)) == NULL)
    return NULL;
  n = fread (buf, 1, 65535, f);
  for (size_t i = 0; i < n; i++)
    {
      if (str)
        {
          if (buf[i] == '\\' && i + 1 < n)
            buf[o++] = buf[i++];
          else if (buf[i] == '"')
            str = false;
        }
      else if (buf[i] == '"')
        str = true;
      else if (buf[i] == '/' && i + 1 < n && buf[i + 1] == '/')
        {
          while (i < n && buf[i] != '\n')
            i++;
        }
      else if (buf[i] == '/' && i + 1 < n && buf[i + 1] == '*')
        {
          for (i += 2; i + 1 < n && !(buf[i] == '*' && buf[i + 1] == '/'); i++)
            ;
          i++;
          continue;
        }
      if (i < n)
        buf[o++] = buf[i];
    }
  return json_loadb (buf, o, JSON_ALLOW_NUL, NULL);
}

/* KEY's number in @conf, else in @dflt, else @fallback. */
static double
tlog_number (json_t *conf, json_t *dflt, const char *section, const char *key, double fallback)
{
  json_t *objs[] = { conf, dflt };

  for (size_t i = 0; i < BWSH_N_ELEMENTS (objs); i++)
    {
      json_t *o = section != NULL ? json_object_get (objs[i], section) : objs[i];
      json_t *v = json_object_get (o, key);
      if (json_is_number (v))
        return json_number_value (v);
    }
  return fallback;
}

static const char *
tlog_string (json_t *conf, json_t *dflt, const char *section, const char *key, const char *fallback)
{
  json_t *objs[] = { conf, dflt };

  for (size_t i = 0; i < BWSH_N_ELEMENTS (objs); i++)
    {
      const char *v = json_string_value (json_object_get (json_object_get (objs[i], section), key));
      if (v != NULL)
        return v;
    }
  return fallback;
}

/* journald.conf's RateLimitIntervalSec= (in seconds) and RateLimitBurst=
 * in @path, when it sets them. */
static void
journald_limits (const char *path, double *interval, double *burst)
{
  _cleanup_fclose_ FILE *f = fopen (path, "re");
  char line[512];

  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    {
      char *v = strchr (line, '='), *end;
      double x;

      if (v == NULL)
        continue;
      *v++ = '\0';
      errno = 0;
      x = strtod (v, &end);
      if (errno != 0 || end == v || x < 0)
        continue;
      if (strcmp (line, "RateLimitBurst") == 0)
        *burst = x;
      else if (strcmp (line, "RateLimitIntervalSec") == 0 || strcmp (line, "RateLimitInterval") == 0)
        {
          end[strcspn (end, " \t\r\n")] = '\0';
          *interval = x * (strcmp (end, "ms") == 0 ? 0.001 : strcmp (end, "us") == 0 ? 0.000001
                           : strcmp (end, "min") == 0 || strcmp (end, "m") == 0 ? 60
                           : strcmp (end, "h") == 0 ? 3600 : 1);
        }
    }
}

static int
cmp_str (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* journald rate-limits each unit's senders per priority pool (crit, err,
 * warning, notice and info together, debug), and pam_bwsh's session-ended event
 * (info) comes from the session's unit, where tlog-rec writes what the
 * terminal shows: a session that floods its terminal could use up the
 * budget and have its end dropped (issue 36).  tlog's own limit (limit.rate,
 * limit.burst, with limit.action "delay" or "drop"; its default "pass"
 * limits nothing) bounds how many messages it writes; doctor compares that
 * with journald's RateLimitBurst= in one RateLimitIntervalSec=. */
static void
check_journal_budget (Doctor *d)
{
  _cleanup_free_ char *conf_path = at_root (d, "/etc/tlog/tlog-rec.conf");
  _cleanup_free_ char *dflt_path = at_root (d, "/usr/share/tlog/tlog-rec.default.conf");
  _cleanup_free_ char *jd_path = at_root (d, "/etc/systemd/journald.conf");
  _cleanup_free_ char *jd_dir = at_root (d, "/etc/systemd/journald.conf.d");
  _cleanup_closedir_ DIR *dir = NULL;
  json_t *conf, *dflt;
  double interval = 30, burst = 10000, rate, tburst, payload, latency, msgs;
  const char *prio, *action;
  char *names[64];
  size_t n = 0;
  struct dirent *de;

  if (d->policy == NULL || d->policy->record_mode == BWSH_RECORD_OFF)
    return;
  journald_limits (jd_path, &interval, &burst);
  if ((dir = opendir (jd_dir)) != NULL)
    while ((de = readdir (dir)) != NULL && n < BWSH_N_ELEMENTS (names))
      if (fnmatch ("*.conf", de->d_name, 0) == 0 && (names[n] = at_root (d, "/etc/systemd/journald.conf.d/")) != NULL)
        {
          char *full = NULL;
          if (asprintf (&full, "%s%s", names[n], de->d_name) < 0)
            full = NULL;
          free (names[n]);
          if (full != NULL)
            names[n++] = full;
        }
  qsort (names, n, sizeof names[0], cmp_str);
  for (size_t i = 0; i < n; i++)
    {
      journald_limits (names[i], &interval, &burst);
      free (names[i]);
    }
  conf = json_file_with_comments (conf_path);
  dflt = json_file_with_comments (dflt_path);
  rate = tlog_number (conf, dflt, "limit", "rate", 16384);
  tburst = tlog_number (conf, dflt, "limit", "burst", 32768);
  payload = tlog_number (conf, dflt, NULL, "payload", 2048);
  latency = tlog_number (conf, dflt, NULL, "latency", 10);
  prio = tlog_string (conf, dflt, "journal", "priority", "info");
  action = tlog_string (conf, dflt, "limit", "action", "pass");
  if (interval <= 0 || burst <= 0)
    finding (d, LEVEL_OK, NULL, "journal budget: journald does not rate-limit (RateLimitIntervalSec=0 or RateLimitBurst=0)");
  else if (strcmp (prio, "notice") != 0 && strcmp (prio, "info") != 0)
    finding (d, LEVEL_OK, NULL, "journal budget: tlog-rec writes at priority %s, a rate-limit budget apart from the "
             "session-ended event's (info)", prio);
  else
    {
      /* Its messages carry at most payload bytes each; a flush at least
       * every latency seconds adds one.  limit.action "pass" (tlog's
       * default) applies no limit at all. */
      bool unlimited = strcasecmp (action, "pass") == 0 || rate <= 0 || payload <= 0;
      msgs = unlimited ? -1 : (rate * interval + tburst) / payload + interval / (latency > 0 ? latency : 1) + 1;
      if (unlimited)
        finding (d, LEVEL_WARNING,
                 "set \"limit\": { \"action\": \"delay\" } in /etc/tlog/tlog-rec.conf (a flood is slowed to limit.rate, "
                 "all of it recorded), or \"drop\" (what exceeds limit.rate is not recorded)",
                 "journal budget: tlog-rec's limit.action is \"%s\": it writes all a session prints, and journald takes "
                 "RateLimitBurst=%g in RateLimitIntervalSec=%gs from a unit at priority info: a recorded session that "
                 "floods its terminal can have its session-ended event dropped", action, burst, interval);
      else if (msgs * 2 > burst)
        finding (d, LEVEL_WARNING,
                 "lower limit.rate in /etc/tlog/tlog-rec.conf (16384 writes about 260 messages in 30 s), "
                 "or raise RateLimitBurst= in /etc/systemd/journald.conf.d/50-bwsh.conf to twice what tlog-rec writes",
                 "journal budget: tlog-rec may write %.0f messages in RateLimitIntervalSec=%gs (limit.rate %.0f, payload "
                 "%.0f), journald takes RateLimitBurst=%g from a unit at priority info: a recorded session that floods its "
                 "terminal can have its session-ended event dropped", msgs, interval, rate, payload, burst);
      else
        finding (d, LEVEL_OK, NULL, "journal budget: tlog-rec writes at most %.0f messages in RateLimitIntervalSec=%gs, "
                 "journald takes RateLimitBurst=%g from the session's unit: a flood leaves room for the session-ended "
                 "event", msgs, interval, burst);
    }
  json_decref (conf);
  json_decref (dflt);
}

/* ---------------------------------------------------------------- shells */

static void
check_shells (Doctor *d)
{
  _cleanup_free_ char *path = at_root (d, "/etc/shells");
  _cleanup_fclose_ FILE *f = fopen (path, "re");
  char line[PAM_LINE_MAX];
  int lineno = 0;
  bool listed = false;
  int listed_line = 0;

  if (f == NULL)
    {
      finding (d, LEVEL_OK, NULL, "shells: /etc/shells: %s; bwsh is not listed", strerror (errno));
      return;
    }
  while (fgets (line, sizeof line, f) != NULL)
    {
      char *s = line, *e;

      lineno++;
      s += strspn (s, " \t");
      if (*s == '#')
        continue;
      e = s + strcspn (s, " \t\n#");
      *e = '\0';
      if (bwsh_shell_is_bwsh (s, BWSH_SHELL_PATH) && !listed)
        {
          listed = true;
          listed_line = lineno;
        }
    }
  if (listed)
    finding (d, LEVEL_WARNING, "remove-shell " BWSH_SHELL_PATH " (or delete that line from /etc/shells)",
             "shells: /etc/shells lists bwsh (line %d): another account that knows a bwsh user's password can then run "
             "`su -s /bin/bash USER` and get an unsandboxed shell, and the user can chsh away from bwsh",
             listed_line);
  else
    finding (d, LEVEL_OK, NULL,
             "shells: bwsh is not in /etc/shells, so su refuses -s for bwsh users and chsh refuses to change their shell");
}

/* ------------------------------------------------------------------ PAM */

/* Whether the host's stacks are pam-auth-update's (Debian, Ubuntu): then
 * the package changes PAM only through it, and doctor never asks for a
 * pam_bwsh line by hand, which would outlive the package: after a purge
 * every login through that stack fails ("Module is unknown"). */
static bool
pam_auth_update_host (const Doctor *d)
{
  _cleanup_free_ char *p = at_root (d, "/etc/pam.d/common-session");
  return p != NULL && access (p, F_OK) == 0;
}

/* runuser and runuser-l: util-linux's run-as tool for root alone. */
static bool
root_only_service (const char *service)
{
  return strcmp (service, "runuser") == 0 || strcmp (service, "runuser-l") == 0;
}

static char *
pam_line_fix (const Doctor *d, const char *type, const char *service)
{
  char *fix = NULL;

  if (pam_auth_update_host (d))
    {
      if (strcmp (type, "account") == 0)
        return strdup ("pam-auth-update --enable bwsh");
      if (asprintf (&fix,
                    "make /etc/pam.d/%s include common-session (common-session-noninteractive for a service without a "
                    "terminal) as Debian's own stacks do, then pam-auth-update --enable bwsh; a pam_bwsh line written "
                    "there by hand would outlive the package and fail every login through %s after a purge",
                    service, service)
          < 0)
        return NULL;
      return fix;
    }
  if (asprintf (&fix,
                "add \"%s required pam_bwsh.so\" to /etc/pam.d/%s, and take it out again before removing bwsh (a line "
                "naming a missing module fails every login through that stack)",
                type, service)
      < 0)
    fix = NULL;
  return fix;
}

/* A line before pam_bwsh's account line that ends the account stack with
 * success, or jumps past it (issue 38): SSSD's profile puts "sufficient
 * pam_localuser.so" there, and then a local subject's refusal waits for
 * the session stage, where sshd prints it on stdout after the motd. */
static void
check_pam_account_order (Doctor *d, const char *service, const PamStack *st)
{
  if (!st->bwsh_account || st->acct_end_at == NULL)
    return;
  finding (d, LEVEL_WARNING,
           pam_auth_update_host (d) ? "pam-auth-update --package (bwsh's profile, Priority 1024, puts pam_bwsh first "
                                      "in common-account's Additional block); a line written by hand before it, or a "
                                      "profile of a higher Priority, still comes first: move that line after pam_bwsh"
                                    : "put \"account required pam_bwsh.so\" before that line",
           "pam: %s: %s can end the account stack before pam_bwsh: a local subject it lets through (a lock, a broken "
           "policy) is refused only at the session stage, after the motd, on stdout",
           service, st->acct_end_at);
}

static void
check_pam_service (Doctor *d, const char *service, bool refused)
{
  _cleanup_ (pam_stack_clear) PamStack st = { .service = service };
  int r = walk_pam (d->root, &st, service, NULL, 0);
  _cleanup_free_ char *fix = NULL;

  if (r == -ENOENT)
    return; /* not installed here */
  if (r < 0)
    {
      finding (d, LEVEL_WARNING, "check the file's permissions", "pam: /etc/pam.d/%s: %s", service, strerror (-r));
      return;
    }
  if (st.loop)
    finding (d, LEVEL_WARNING, "remove the include loop", "pam: /etc/pam.d/%s: includes nest deeper than %d levels",
             service, PAM_DEPTH_MAX);

  if (!st.bwsh && root_only_service (service) && !st.common_session)
    /* Debian 12's runuser-l includes runuser, not common-session: there
     * pam-auth-update changes nothing, and nothing needs to. */
    finding (d, LEVEL_NOTE, NULL,
             "pam: %s has no pam_bwsh in its session stack: only root can run runuser, and root is outside bwsh's "
             "boundary (it can change any account); `runuser -l USER` starts the login shell, so a subject still gets "
             "bwsh, unchecked and unrecorded, and `runuser -u USER` runs a command unsandboxed. Nothing to fix: "
             "pam-auth-update does not reach this stack, and a pam_bwsh line written there by hand would outlive the "
             "package and fail every `runuser -l` after a purge",
             service);
  else if (!st.bwsh)
    {
      fix = st.common_session ? strdup ("pam-auth-update --enable bwsh") : pam_line_fix (d, "session", service);
      if (refused)
        finding (d, LEVEL_WARNING, fix,
                 "pam: %s has no pam_bwsh in its session stack: a subject's %s jobs run without the login shell, "
                 "outside the sandbox, and nothing refuses them",
                 service, service);
      else
        finding (d, LEVEL_WARNING, fix,
                 "pam: %s has no pam_bwsh in its session stack: %s sessions are not checked against the policy "
                 "(require_shell, refused services) and not audited",
                 service, service);
    }
  else
    finding (d, LEVEL_OK, NULL, "pam: %s has pam_bwsh in its session stack", service);

  /* sshd sends what the account stage says to the client's stderr, what the
   * session stage says to the session's stdout (see pam_bwsh.c). */
  if (st.bwsh && !st.bwsh_account && strcmp (service, "sshd") == 0)
    {
      _cleanup_free_ char *afix = pam_line_fix (d, "account", service);
      finding (d, LEVEL_WARNING, afix,
               "pam: sshd has no pam_bwsh in its account stack: a refused subject's ssh command gets the reason on "
               "stdout after the motd, and scp and sftp get \"Received message too long\" instead of it");
    }

  check_pam_account_order (d, service, &st);

  /* A refused service never starts the login shell; its environment does
   * not reach bwsh.  The fix is the line's own option: a pam_bwsh line
   * added after it would outlive the package. */
  if (st.readenv && !refused)
    {
      free (steal_pointer (&fix));
      if (asprintf (&fix, "remove user_readenv=1 from %s (Debian's default; Linux-PAM deprecates it)",
                    st.readenv_at != NULL ? st.readenv_at : "?")
          < 0)
        fix = NULL;
      if (st.bwsh && st.readenv_pos > st.bwsh_pos)
        finding (d, LEVEL_WARNING, fix,
                 "pam: %s runs pam_env user_readenv=1 (%s) after pam_bwsh: LD_PRELOAD=... in a subject's "
                 "~/.pam_environment would be set after pam_bwsh's scrub and run code outside the sandbox; the sandbox "
                 "keeps that file read-only, so only one written outside it (by another account, or before the "
                 "account was confined) can",
                 service, st.readenv_at != NULL ? st.readenv_at : "?");
      else if (st.bwsh)
        finding (d, LEVEL_WARNING, fix,
                 "pam: %s reads ~/.pam_environment (pam_env user_readenv=1, %s) before the sandbox starts; pam_bwsh "
                 "scrubs the dangerous variables (LD_*, BASH_ENV, ENV, ...) but every other one reaches bwsh",
                 service, st.readenv_at != NULL ? st.readenv_at : "?");
      else
        finding (d, LEVEL_WARNING, fix,
                 "pam: %s reads ~/.pam_environment (pam_env user_readenv=1, %s) and has no pam_bwsh to scrub it: "
                 "LD_PRELOAD=... in a subject's file would run code outside the sandbox; the sandbox keeps that file "
                 "read-only, so only one written outside it (by another account, or before the account was "
                 "confined) can",
                 service, st.readenv_at != NULL ? st.readenv_at : "?");
    }
}

static int
cmp_strp (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static void
list_append (char *buf, size_t size, const char *name, const char *note)
{
  size_t len = strlen (buf);
  snprintf (buf + len, size - len, "%s%s%s", len > 0 ? ", " : "", name, note);
}

/* Every PAM service of the host, and what it does with a subject: a
 * service that runs the login shell sandboxes (bwsh), one the policy
 * refuses is refused by pam_bwsh with an event, and one without pam_bwsh
 * in its stack does neither: nothing refuses there and nothing records. */
static void
list_pam_services (Doctor *d, const char *dir)
{
  BwshPolicy *defaults = NULL;
  const BwshPolicy *pol = d->policy;
  char sandboxed[4096] = "", refused[8192] = "", bare[8192] = "";
  char **names = NULL;
  size_t n = 0;
  struct dirent *de;
  DIR *dh;

  if (pol == NULL && bwsh_policy_new_defaults (&defaults) < 0)
    return;
  if (pol == NULL)
    pol = defaults;
  dh = opendir (dir);
  if (dh == NULL)
    {
      bwsh_policy_free (defaults);
      return;
    }
  while ((de = readdir (dh)) != NULL && n < 4096)
    {
      char **v;
      /* common-auth, common-session, ...: files the services include, not
       * services; and what dpkg and editors leave beside a file. */
      if (de->d_name[0] == '.' || de->d_type == DT_DIR || strncmp (de->d_name, "common-", 7) == 0
          || strstr (de->d_name, ".dpkg-") != NULL || strstr (de->d_name, ".ucf-") != NULL
          || de->d_name[strlen (de->d_name) - 1] == '~' || (v = realloc (names, (n + 1) * sizeof *v)) == NULL)
        continue;
      names = v;
      if ((names[n] = strdup (de->d_name)) != NULL)
        n++;
    }
  closedir (dh);
  if (n > 0)
    qsort (names, n, sizeof *names, cmp_strp);
  for (size_t i = 0; i < n; i++)
    {
      _cleanup_ (pam_stack_clear) PamStack st = { .service = names[i] };
      bool login = !bwsh_policy_refuses_service (pol, names[i]);

      (void) walk_pam (d->root, &st, names[i], NULL, 0);
      if (st.bwsh && login)
        list_append (sandboxed, sizeof sandboxed, names[i], "");
      else if (st.bwsh)
        list_append (refused, sizeof refused, names[i], "");
      else
        list_append (bare, sizeof bare, names[i],
                     root_only_service (names[i]) ? " (root only)"
                     : login                      ? " (starts the login shell, unchecked)"
                                                  : " (unsandboxed)");
      free (names[i]);
    }
  free (names);
  bwsh_policy_free (defaults);
  finding (d, LEVEL_NOTE, NULL,
           "pam: services that sandbox a subject (they start the login shell, bwsh; pam_bwsh checks and records each "
           "session): %s",
           sandboxed[0] != '\0' ? sandboxed : "(none)");
  finding (d, LEVEL_NOTE, NULL,
           "pam: services that refuse a subject, with an event (allowed_services in the policy allows one): %s",
           refused[0] != '\0' ? refused : "(none)");
  finding (d, LEVEL_NOTE, NULL,
           "pam: services without pam_bwsh, where nothing refuses a subject and nothing records an event: %s",
           bare[0] != '\0' ? bare : "(none)");
}

static void
check_pam (Doctor *d)
{
  size_t n_services;
  const char *const *services = bwsh_login_services (&n_services);
  _cleanup_free_ char *dir = at_root (d, "/etc/pam.d");
  struct stat st;

  if (stat (dir, &st) < 0)
    {
      finding (d, LEVEL_NOTE, NULL, "pam: /etc/pam.d: %s; PAM stacks not checked", strerror (errno));
      return;
    }
  for (size_t i = 0; i < n_services; i++)
    check_pam_service (d, services[i], false);
  /* Services that never run the login shell: only pam_bwsh can refuse them. */
  for (size_t i = 0; d->policy != NULL && i < d->policy->refused_services.n; i++)
    {
      const char *s = d->policy->refused_services.items[i].src;
      if (strchr (s, '/') == NULL && s[0] != '.')
        check_pam_service (d, s, true);
    }
  list_pam_services (d, dir);
}

/* ------------------------------------------------------------------ sshd */

static void
check_sshd_for (Doctor *d, const SshdConfig *c, const char *user, const char *login_shell)
{
  const char *v;
  char forwards[512] = "";
  bool forced_bwsh = false;

  v = sshd_get (c, "usepam");
  if (v != NULL && strcasecmp (v, "no") == 0)
    finding (d, LEVEL_WARNING, "UsePAM yes in sshd_config",
             "sshd: UsePAM no: pam_bwsh never sees SSH sessions (no policy check, no audit line)");

  /* internal-sftp runs inside sshd: the login shell never starts. */
  bool internal = false;
  for (size_t i = 0; i < c->n; i++)
    if (strcmp (c->keys[i], "subsystem") == 0 && strstr (c->values[i], "internal-sftp") != NULL)
      internal = true;
  v = sshd_get (c, "forcecommand");
  if (v != NULL && strstr (v, "internal-sftp") != NULL)
    internal = true;
  if (internal)
    finding (d, LEVEL_ERROR,
             "serve sftp with the external server: \"Subsystem sftp /usr/lib/openssh/sftp-server\" (see "
             "/usr/share/doc/bwsh/examples/sshd_config.d/bwsh.conf), and no ForceCommand internal-sftp for subjects",
             "sshd: sftp for %s is internal-sftp, which runs inside sshd and never starts the login shell: file transfers "
             "are not sandboxed", user);
  else
    finding (d, LEVEL_OK, NULL, "sshd: sftp for %s goes through the login shell", user);

  if (v != NULL && !is_no (v) && strstr (v, "bwsh") != NULL)
    forced_bwsh = true;

  if (sshd_get (c, "disableforwarding") == NULL || strcasecmp (sshd_get (c, "disableforwarding"), "yes") != 0)
    {
      static const char *const keys[][2] = {
        { "allowtcpforwarding", "AllowTcpForwarding" },
        { "allowstreamlocalforwarding", "AllowStreamLocalForwarding" },
        { "allowagentforwarding", "AllowAgentForwarding" },
        { "x11forwarding", "X11Forwarding" },
        { "permittunnel", "PermitTunnel" },
      };
      for (size_t i = 0; i < BWSH_N_ELEMENTS (keys); i++)
        {
          const char *val = sshd_get (c, keys[i][0]);
          if (val != NULL && !is_no (val))
            {
              size_t used = strlen (forwards);
              snprintf (forwards + used, sizeof forwards - used, "%s%s %s", used > 0 ? ", " : "", keys[i][1], val);
            }
        }
    }
  /* An error, not a warning: a forwarded port or agent is a way past the
   * sandbox (and its private network) that no sandbox setting closes. */
  if (forwards[0] != '\0')
    finding (d, LEVEL_ERROR,
             "in a Match block for subjects: DisableForwarding yes, PermitTunnel no (the shipped snippet "
             "/usr/share/doc/bwsh/examples/sshd_config.d/bwsh.conf does this)",
             "sshd: %s may forward (%s): forwarding is done by sshd itself, outside the sandbox, whatever the login shell",
             user, forwards);
  else
    finding (d, LEVEL_OK, NULL, "sshd: no forwarding for %s", user);

  v = sshd_get (c, "permituserenvironment");
  if (v != NULL && !is_no (v))
    finding (d, LEVEL_ERROR, "PermitUserEnvironment no",
             "sshd: PermitUserEnvironment %s for %s: sshd applies ~/.ssh/environment before bwsh starts, and "
             "LD_PRELOAD=... there runs code outside the sandbox", v, user);
  else
    finding (d, LEVEL_OK, NULL, "sshd: PermitUserEnvironment no for %s", user);

  {
    char bad[512] = "";
    for (size_t i = 0; i < c->n; i++)
      {
        if (strcmp (c->keys[i], "acceptenv") != 0)
          continue;
        _cleanup_free_ char *copy = strdup (c->values[i]);
        char *save = NULL;
        if (copy == NULL)
          continue;
        /* Every name a pattern admits, against every pattern pam_bwsh
         * scrubs (the list is core's): named by the entry's example where
         * the pattern admits it, else by the entry's own pattern. */
        for (char *pat = strtok_r (copy, " \t", &save); pat != NULL; pat = strtok_r (NULL, " \t", &save))
          {
            const BwshScrubEntry *hit = bwsh_env_pattern_scrubbed (pat);
            size_t used = strlen (bad);
            _cleanup_free_ char *esc = NULL;
            if (hit == NULL)
              continue;
            esc = bwsh_escape (pat, strlen (pat));
            snprintf (bad + used, sizeof bad - used, "%s%s (%s)", used > 0 ? ", " : "", esc != NULL ? esc : "?",
                      fnmatch (pat, hit->example, 0) == 0 ? hit->example : hit->pattern);
          }
      }
    if (bad[0] != '\0')
      finding (d, LEVEL_ERROR, "AcceptEnv LANG LC_* (only names that cannot act on a program's start-up)",
               "sshd: AcceptEnv lets the client set variables that act on bwsh before the sandbox starts: %s", bad);
    else
      finding (d, LEVEL_OK, NULL, "sshd: AcceptEnv admits no variable that acts on bwsh's start-up");
  }

  /* sshd runs ~/.ssh/rc as `SHELL -c '/bin/sh ~/.ssh/rc'`, with the login
   * shell, and not at all under ForceCommand (session.c, do_rc_files). */
  v = sshd_get (c, "permituserrc");
  bool shell_is_bwsh = bwsh_shell_is_bwsh (login_shell, BWSH_SHELL_PATH);
  if (v != NULL && strcasecmp (v, "yes") == 0 && !shell_is_bwsh && !forced_bwsh)
    finding (d, LEVEL_WARNING, "PermitUserRC no in a Match block for this user",
             "sshd: PermitUserRC yes and %s's login shell is %s, not bwsh: ~/.ssh/rc runs outside the sandbox", user,
             login_shell != NULL ? login_shell : "unknown");
  else if (v != NULL && strcasecmp (v, "yes") == 0)
    finding (d, LEVEL_OK, NULL, "sshd: ~/.ssh/rc of %s runs %s", user,
             forced_bwsh && !shell_is_bwsh ? "not at all (ForceCommand)" : "through bwsh, inside the sandbox");
  else
    finding (d, LEVEL_OK, NULL, "sshd: PermitUserRC no for %s", user);

  if (forced_bwsh && !shell_is_bwsh)
    finding (d, LEVEL_NOTE, NULL,
             "sshd: %s is in ForceCommand mode: the outer login shell (%s) and its start-up files run before bwsh, "
             "outside the sandbox", user, login_shell != NULL ? login_shell : "unknown");
  else if (!shell_is_bwsh && d->policy != NULL && d->policy->is_subject)
    finding (d, LEVEL_ERROR, "chsh -s " BWSH_SHELL_PATH " USER (or, for directory accounts, ForceCommand " BWSH_SHELL_PATH ")",
             "sshd: %s is a subject, but the login shell is %s and there is no ForceCommand bwsh: SSH sessions are not "
             "sandboxed", user, login_shell != NULL ? login_shell : "unknown");
}

static void
check_sshd (Doctor *d)
{
  const char *user = NULL;
  const char *login_shell = NULL;
  _cleanup_free_ char *spec = NULL, *why = NULL;
  struct stat st;
  CmdResult res = { 0 };
  SshdConfig c = { 0 };

  if (stat (d->sshd, &st) < 0)
    {
      finding (d, LEVEL_NOTE, NULL, "sshd: %s: %s; the SSH server is not checked", d->sshd, strerror (errno));
      return;
    }
  if (d->subject != NULL)
    {
      user = d->subject->name;
      login_shell = d->subject->shell;
    }
  else if (d->policy != NULL && d->policy->subject_users.n > 0)
    user = d->policy->subject_users.items[0].src;
  if (user == NULL)
    {
      finding (d, LEVEL_NOTE, NULL,
               "sshd: no subject to check; run `bwshctl doctor --user USER` to check sshd's configuration for USER");
      return;
    }
  if (login_shell == NULL)
    {
      struct passwd *pw = getpwnam (user);
      if (pw != NULL)
        login_shell = pw->pw_shell;
    }
  /* A name with "," or "=" would smuggle more -C criteria in. */
  if (strpbrk (user, ",= \t\n") != NULL)
    {
      finding (d, LEVEL_WARNING, "use a plain user name", "sshd: user name \"%s\" cannot be passed to sshd -C", user);
      return;
    }
  if (asprintf (&spec, "user=%s,host=localhost,addr=127.0.0.1", user) < 0)
    return;

  const char *const argv[] = { d->sshd, "-T", "-C", spec, NULL };
  if (run_cmd (argv, false, 0, 0, &res) < 0 || !cmd_succeeded (&res) || res.out == NULL)
    {
      why = cmd_first_line (&res);
      finding (d, LEVEL_WARNING,
               "run `bwshctl doctor` as root, and fix what sshd reports (sshd -T needs its host keys and /run/sshd)",
               "sshd: cannot read the effective configuration (%s -T -C %s): %s", d->sshd, spec, why != NULL ? why : "?");
      cmd_result_clear (&res);
      return;
    }
  if (sshd_config_parse (res.out, &c) < 0)
    finding (d, LEVEL_ERROR, NULL, "sshd: out of memory");
  else
    check_sshd_for (d, &c, user, login_shell);
  sshd_config_clear (&c);
  cmd_result_clear (&res);
}

/* ------------------------------------------------------------- landlock */

static void
check_landlock (Doctor *d)
{
  BwshLandlockReport rep = { 0 };
  BwshLandlockRequest req = { 0 };
  int r;

  if (d->policy == NULL)
    return;
  r = bwsh_landlock_request_from_policy (d->policy, &req);
  if (r >= 0)
    r = bwsh_landlock_probe (&req, &rep);
  bwsh_landlock_request_clear (&req);
  if (r < 0)
    {
      finding (d, LEVEL_ERROR, "correct the landlock group of the policy", "landlock: %s", strerror (-r));
      return;
    }
  if (d->policy->landlock == BWSH_LANDLOCK_OFF)
    {
      finding (d, LEVEL_NOTE, NULL, "landlock: off in the policy (kernel ABI %d)", rep.abi);
      return;
    }
  if (rep.missing[0] == '\0')
    {
      finding (d, LEVEL_OK, NULL, "landlock: ABI %d; everything the policy asks for is enforced", rep.abi);
      return;
    }
  if (bwsh_landlock_required_by_network (d->policy))
    finding (d, LEVEL_ERROR,
             "set network = \"private\", run a kernel with Landlock ABI 6 or later (Linux 6.12), or write "
             "landlock.mode = \"best_effort\" to accept the shared network without it",
             "landlock: network = \"shared\" requires %s, but the kernel has Landlock ABI %d: every session is "
             "refused", rep.missing, rep.abi);
  else if (d->policy->landlock == BWSH_LANDLOCK_REQUIRED)
    finding (d, LEVEL_ERROR, "run a kernel with Landlock ABI 6 or later (Linux 6.12), or set landlock.mode = \"best_effort\"",
             "landlock: the policy requires %s, but the kernel has Landlock ABI %d: every session is refused",
             rep.missing, rep.abi);
  else if (!rep.scoped_abstract && d->policy->scope_abstract_unix && d->policy->net_mode == BWSH_NET_SHARED)
    finding (d, LEVEL_WARNING,
             "run a kernel with Landlock ABI 6 or later (Linux 6.12), or network = \"private\" in the policy",
             "landlock: ABI %d lacks %s: with a shared network, sessions can connect to the host's abstract unix "
             "sockets (X11, D-Bus, ...)", rep.abi, rep.missing);
  else
    finding (d, LEVEL_NOTE, NULL, "landlock: ABI %d; best effort leaves out %s", rep.abi, rep.missing);
}

/* -------------------------------------------------------------- network */

typedef struct
{
  const char *bwrap;
  bool disable_userns;
  BwshNetEngine engine;
} NetProbe;

/* In a child, as the probe identity: what bwsh_exec_plan() does for the
 * network of a session, around the smallest sandbox that has one.  The
 * helper, the engine and its options are the session's; so is the tun
 * check. */
static int
net_probe_child (void *data)
{
  const NetProbe *np = data;
  BwshNetHelper net = { .pid = 0, .info_fd = -1, .block_fd = -1 };
  BwshArgv argv = { 0 };
  BwshError err = { 0 };
  const char *const head[] = { np->bwrap, "--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent",
                               "--ro-bind", "/", "/" };
  const char *const tail[] = { "--", "true" };
  int r;

  if (bwsh_net_helper_start (bwsh_netns_helper_path (), np->engine, &net, &err) < 0)
    {
      _cleanup_free_ char *msg = bwsh_error_to_string (&err);
      fprintf (stderr, "%s\n", msg != NULL ? msg : err.message);
      return 0;
    }
  for (size_t i = 0; i < BWSH_N_ELEMENTS (head); i++)
    if ((r = bwsh_argv_add (&argv, head[i])) < 0)
      return -r;
  if (np->disable_userns && (r = bwsh_argv_add (&argv, "--disable-userns")) < 0)
    return -r;
  if ((r = bwsh_net_bwrap_options (&net, &argv)) < 0)
    return -r;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (tail); i++)
    if ((r = bwsh_argv_add (&argv, tail[i])) < 0)
      return -r;
  if (fcntl (net.info_fd, F_SETFD, 0) < 0 || fcntl (net.block_fd, F_SETFD, 0) < 0)
    return errno;
  execve (np->bwrap, argv.v, (char *const *) (uintptr_t) run_environment ());
  return errno;
}

/* Why the probe failed, in one line: the engine's last word before the
 * helper's own "bwsh: network: ..." (an engine's own words go to the
 * journal since #33; kept for a helper that prints any), or the first line. */
static char *
probe_reason (const CmdResult *res)
{
  const char *s = res->err_len > 0 ? res->err : NULL, *prev = NULL;

  for (const char *l = s; s != NULL && l != NULL && *l != '\0';)
    {
      const char *nl = strchr (l, '\n');
      if (strncmp (l, "bwsh: ", 6) == 0)
        {
          if (prev != NULL)
            return bwsh_escape (prev, strcspn (prev, "\r\n"));
          break;
        }
      prev = l;
      l = nl != NULL ? nl + 1 : NULL;
    }
  return cmd_first_line (res);
}

/* The tun node as every user sees it: "other" may read and write.  If
 * not, its mode and owner in @ret_what ("crw------- root", or "missing"). */
static bool
tun_open_to_all (char *ret_what, size_t size)
{
  struct stat st;
  char mode[11];

  if (stat (BWSH_TUN_PATH, &st) < 0)
    {
      snprintf (ret_what, size, "missing");
      return false;
    }
  bwsh_mode_string (st.st_mode, mode);
  if (st.st_uid == 0)
    snprintf (ret_what, size, "%s root", mode);
  else
    snprintf (ret_what, size, "%s uid %u", mode, (unsigned) st.st_uid);
  return S_ISCHR (st.st_mode) && (st.st_mode & 0006) == 0006;
}

static void
probe_network (Doctor *d, BwshNetEngine engine, const char *path)
{
  NetProbe np = { .bwrap = d->bwrap, .disable_userns = d->disable_userns, .engine = engine };
  const char *name = bwsh_net_engine_to_string (engine);
  _cleanup_free_ char *why = NULL;
  CmdResult res = { 0 };
  char tun[64];
  uid_t uid;
  gid_t gid;
  const char *who;

  probe_identity (d, &uid, &gid, &who);
  if (!d->userns_ok)
    {
      finding (d, LEVEL_NOTE, NULL, "network: private, egress through %s; not tried, since %s cannot start bwrap "
               "here (see the userns finding)", path, who);
      return;
    }
  if (run_child (net_probe_child, &np, true, uid, gid, &res) < 0)
    {
      finding (d, LEVEL_ERROR, NULL, "network: cannot run the probe: %s", strerror (errno));
      return;
    }
  if (cmd_succeeded (&res))
    {
      finding (d, LEVEL_OK, NULL,
               "network: private, egress through %s (%s), which configured a sandbox's network for %s as it "
               "does at a login, confined and watched; blocks the host's loopback services, every address of "
               "its interfaces, link-local ones included, its gateway mapping, its abstract unix sockets and its "
               "socket tables; connections to other hosts are not filtered",
               name, path, who);
      cmd_result_clear (&res);
      return;
    }
  why = probe_reason (&res);
  cmd_result_clear (&res);
  if (!tun_open_to_all (tun, sizeof tun))
    /* The cause in words of its own: the probe's line repeats the fix. */
    finding (d, LEVEL_ERROR,
             "chmod 0666 " BWSH_TUN_PATH " and keep that mode at boot (Debian's udev rule sets it; without udev, "
             "for example a systemd-tmpfiles line \"z " BWSH_TUN_PATH " 0666 - - -\"), or set network = \"none\" "
             "in the policy",
             "network: private cannot start for %s: " BWSH_TUN_PATH " is %s, and %s must open it as the "
             "session's user; every subject's session is refused", who, tun, name);
  else
    finding (d, LEVEL_ERROR, "fix what the network engine reports, or set network = \"none\" in the policy",
             "network: private cannot start for %s: %s; every subject's session is refused", who,
             why != NULL ? why : "?");
}

static void
check_network (Doctor *d)
{
  BwshLandlockRequest req = { 0 };
  BwshLandlockReport rep = { 0 };

  if (d->policy == NULL)
    return;
  switch (d->policy->net_mode)
    {
    case BWSH_NET_PRIVATE:
      {
        BwshNetEngine engine = d->policy->net_engine;
        const char *path = bwsh_net_engine_path (engine), *pkg = bwsh_net_engine_package (engine);
        char fix[128];

        snprintf (fix, sizeof fix, "install %s (Debian, Ubuntu: apt-get install %s; Fedora: dnf install %s)", pkg,
                  pkg, pkg);
        if (engine == BWSH_NET_ENGINE_PASTA)
          /* #33: the helper cannot check pasta's connections on the host. */
          finding (d, LEVEL_ERROR, "set network_engine = \"slirp4netns\" in the policy",
                   "network: private through pasta is refused: bwsh cannot check the connections it makes on the "
                   "host, so the host's own addresses would be within reach; every session is refused");
        else if (access (path, X_OK) < 0)
          finding (d, LEVEL_ERROR, fix, "network: private needs %s: %s: %s; every session is refused",
                   bwsh_net_engine_to_string (engine), path, strerror (errno));
        else
          probe_network (d, engine, path);
        break;
      }
    case BWSH_NET_NONE:
      finding (d, LEVEL_OK, NULL, "network: none, loopback only; nothing outside the sandbox is reachable");
      break;
    case BWSH_NET_SHARED:
      if (bwsh_landlock_request_from_policy (d->policy, &req) >= 0)
        (void) bwsh_landlock_probe (&req, &rep);
      bwsh_landlock_request_clear (&req);
      finding (d, LEVEL_WARNING, "set network = \"private\" in the policy",
               "network: shared with the host: every service on the host's loopback is reachable and "
               "/proc/net lists the host's sockets; the host's abstract unix sockets are %s",
               rep.scoped_abstract ? "scoped out by Landlock on this kernel" : "reachable too");
      break;
    }
}

/* ----------------------------------------------------------------- main */

static int
usage (FILE *f, int code)
{
  fprintf (f, "usage: bwshctl doctor [--user USER] [--policy FILE]"
#if BWSH_TEST_BUILD
              " [--root DIR] [--sshd CMD] [--bwrap CMD]"
#endif
              "\n");
  return code;
}

static int
set_option (void *userdata, int id, const char *arg)
{
  Doctor *d = userdata;

  switch (id)
    {
    case 'u':
      d->user = arg;
      break;
    case 'p':
      d->policy_path = arg;
      break;
#if BWSH_TEST_BUILD
    case 'R':
      d->root = arg;
      break;
    case 'S':
      d->sshd = arg;
      break;
    case 'B':
      d->bwrap = arg;
      d->bwrap_overridden = true;
      break;
#endif
    case 'h':
      d->help = true;
      break;
    default:
      return -1;
    }
  return 0;
}

int
bwshctl_doctor (int argc, char **argv)
{
  static const CtlOption opts[] = {
    { "user", true, 'u' },
    { "policy", true, 'p' },
    { "help", false, 'h' },
    { "h", false, 'h' },
#if BWSH_TEST_BUILD
    { "root", true, 'R' },
    { "sshd", true, 'S' },
    { "bwrap", true, 'B' },
#endif
  };
  Doctor d = { .root = "", .sshd = SSHD_PATH, .bwrap = bwsh_bwrap_path () };
  BwrapInfo bw;
  AppArmorInfo aa;
  BwshError err = { 0 };
  size_t n = 0;

  if (ctl_parse_options (argc, argv, opts, BWSH_N_ELEMENTS (opts), set_option, &d, NULL, 0, &n) < 0)
    return usage (stderr, 2);
  if (d.help)
    return usage (stdout, 0);
  if ((d.bwrap[0] != '/' || d.sshd[0] != '/'))
    {
      fprintf (stderr, "bwshctl doctor: commands must be absolute paths\n");
      return 2;
    }
  if (d.user != NULL && bwsh_identity_from_name (d.user, &d.subject, &err) < 0)
    {
      fprintf (stderr, "bwshctl doctor: %s\n", err.message);
      return 2;
    }

  check_policy (&d);
  check_lock (&d);
  check_bwrap (&d, &bw);
  check_apparmor (&d, &aa);
  check_userns (&d, &bw, &aa);
  check_landlock (&d);
  check_network (&d);
  check_tiocsti (&d);
  check_recording (&d);
  check_journal_budget (&d);
  check_shells (&d);
  check_pam (&d);
  check_sshd (&d);

  printf ("doctor: %d error%s, %d warning%s\n", d.errors, d.errors == 1 ? "" : "s", d.warnings,
          d.warnings == 1 ? "" : "s");
  fflush (stdout);
  bwsh_policy_free (d.policy);
  bwsh_identity_free (d.subject);
  return d.errors > 0 ? 2 : d.warnings > 0 ? 1 : 0;
}
