/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Audit events as journal entries: one fixed MESSAGE_ID per event type and
 * BWSH_* fields a SIEM filters on without regular expressions.  The IDs were
 * generated once with systemd-id128 new and never change; conf/bwsh.catalog
 * explains each, bwsh-audit(7) documents the fields.
 *
 * The entry is sent with journald's native protocol (one datagram on
 * /run/systemd/journal/socket, systemd.io/JOURNAL_NATIVE_PROTOCOL), which is
 * what sd_journal_sendv() does, on a socket opened and closed per event:
 * libsystemd keeps its socket open for the life of the process, and that
 * process is sshd or su, whose descriptors the module must leave as it found
 * them (the PAM tests check it).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>

#include <sys/socket.h>
#include <sys/un.h>

#include "audit.h"
#include "bounds.h"
#include "cleanup.h"
#include "digest.h"
#include "errors.h"
#include "format.h"
#include "grow.h"
#include "policy.h"
#include "safeopen.h"

static const struct
{
  const char *id;
  const char *name;
  int priority;
} event_types[BWSH_EVENT_MAX_] = {
  [BWSH_EVENT_ALLOWED] = { "eab9f77944e548f091e1a8baf642bbcd", "session-allowed", LOG_INFO },
  [BWSH_EVENT_REFUSED] = { "677d5803aceb472b938ad9eeb79cf4db", "session-refused", LOG_NOTICE },
  [BWSH_EVENT_ENDED] = { "dc5fe78d6af749b8978e6fc7d12da935", "session-ended", LOG_INFO },
  [BWSH_EVENT_LOCK] = { "7fab451b0fde483981ab3ae33b8352a7", "lock", LOG_NOTICE },
  [BWSH_EVENT_LIMIT] = { "45e3d0ea146e49548499d4ef6bc07e9a", "limit-hit", LOG_NOTICE },
  [BWSH_EVENT_POLICY] = { "ec5cea47bc7145fd89357aa8b5c72d2f", "policy-unreadable", LOG_CRIT },
  [BWSH_EVENT_COMMAND] = { "e9e347ad276a4695a2ec58273a2570d7", "command", LOG_INFO },
  [BWSH_EVENT_RECORDING] = { "1a8e21917dfe4e299bfe3dbdfebb9ad3", "recording", LOG_INFO },
  [BWSH_EVENT_RECORDING_FAILED] = { "9e4f4c13bd2840f0861ca44be443edf9", "recording-failed", LOG_ERR },
};

const char *
bwsh_event_message_id (BwshEventType t)
{
  return t < BWSH_EVENT_MAX_ ? event_types[t].id : NULL;
}

const char *
bwsh_event_name (BwshEventType t)
{
  return t < BWSH_EVENT_MAX_ ? event_types[t].name : NULL;
}

int
bwsh_session_id_new (char ret[BWSH_SESSION_ID_LEN + 1])
{
  static const char hex[] = "0123456789abcdef";
  unsigned char raw[BWSH_SESSION_ID_LEN / 2];
  size_t got = 0;

  while (got < sizeof raw)
    {
      ssize_t n = getrandom (raw + got, sizeof raw - got, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -errno;
      got += (size_t) n;
    }
  for (size_t i = 0; i < sizeof raw; i++)
    {
      ret[2 * i] = hex[raw[i] >> 4];
      ret[2 * i + 1] = hex[raw[i] & 0xf];
    }
  ret[BWSH_SESSION_ID_LEN] = '\0';
  return 0;
}

bool
bwsh_session_id_valid (const char *s)
{
  if (s == NULL || strlen (s) != BWSH_SESSION_ID_LEN)
    return false;
  return strspn (s, "0123456789abcdef") == BWSH_SESSION_ID_LEN;
}

#define JOURNAL_SOCKET "/run/systemd/journal/socket"
/* One value is cut here: a field is a log record, not a file transfer, and
 * the datagram stays far below the socket's buffer. */
#define EVENT_VALUE_MAX 2048

typedef struct
{
  char *buf;
  size_t len, size;
  int r;
} Fields;

/* The datagram grows by doubling (bwsh_grow()): a few reallocations an
 * event, not several a field (#37). */
static void
fields_put (Fields *f, const void *data, size_t n)
{
  if (f->r < 0)
    return;
  while (f->len + n >= f->size)
    {
      char *grown = bwsh_grow (f->buf, &f->size, f->len + n, 1);
      if (grown == NULL)
        {
          f->r = -ENOMEM;
          return;
        }
      f->buf = grown;
    }
  memcpy (f->buf + f->len, data, n);
  f->len += n;
}

/* KEY=VALUE, copied as it is: no printf on every field of every event (#37). */
static void
fields_value (Fields *f, const char *key, const char *value)
{
  size_t n = strlen (value);

  if (n > EVENT_VALUE_MAX)
    n = EVENT_VALUE_MAX;
  fields_put (f, key, strlen (key));
  if (memchr (value, '\n', n) == NULL)
    {
      /* KEY=VALUE\n */
      fields_put (f, "=", 1);
      fields_put (f, value, n);
    }
  else
    {
      /* KEY\n, the length as 64-bit little endian, VALUE\n: a hostile rhost
       * or command holding a newline stays one value, never a field of its own. */
      unsigned char le[8];
      for (int i = 0; i < 8; i++)
        le[i] = (unsigned char) ((uint64_t) n >> (8 * i));
      fields_put (f, "\n", 1);
      fields_put (f, le, sizeof le);
      fields_put (f, value, n);
    }
  fields_put (f, "\n", 1);
}

static void
fields_add_str (Fields *f, const char *key, const char *value)
{
  if (value != NULL)
    fields_value (f, key, value);
}

static void
fields_add_num (Fields *f, const char *key, int64_t value)
{
  char num[24];

  if (value >= 0)
    fields_value (f, key, bwsh_format_i64 (num, value));
}

/* The datagram carries explicit credentials with the effective uid and
 * gid: journald stamps _UID and _GID from SCM_CREDENTIALS, and without an
 * explicit message the kernel puts the real uid there.  pam_bwsh in a
 * setuid su or sudo that a user started runs with the user's real uid and
 * euid 0; so stamped, its events carry _UID=0 like those of pam_bwsh in
 * sshd, and `_UID=0` keeps exactly the events root sent.  The kernel lets
 * a process claim only one of its own uids (or any, with CAP_SETUID): bwsh
 * and every other program of a user still get the user's uid. */
static int
journal_send (char *data, size_t len)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = JOURNAL_SOCKET };
  _cleanup_close_ int fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  union
  {
    struct cmsghdr align;
    char buf[CMSG_SPACE (sizeof (struct ucred))];
  } control = { .buf = { 0 } };
  struct iovec iov = { .iov_base = data, .iov_len = len };
  struct msghdr mh = {
    .msg_name = &sa,
    .msg_namelen = sizeof sa,
    .msg_iov = &iov,
    .msg_iovlen = 1,
    .msg_control = control.buf,
    .msg_controllen = sizeof control.buf,
  };
  struct cmsghdr *cm = CMSG_FIRSTHDR (&mh);
  struct ucred cred = { .pid = getpid (), .uid = geteuid (), .gid = getegid () };
  ssize_t n;

  if (fd < 0)
    return -errno;
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_CREDENTIALS;
  cm->cmsg_len = CMSG_LEN (sizeof cred);
  memcpy (CMSG_DATA (cm), &cred, sizeof cred);
  do
    n = sendmsg (fd, &mh, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n < 0 ? -errno : 0;
}

int
bwsh_event_send (const BwshEvent *ev)
{
  Fields f = { .buf = NULL };
  int r;

  if (ev->type >= BWSH_EVENT_MAX_)
    return -EINVAL;
  fields_value (&f, "MESSAGE_ID", event_types[ev->type].id);
  fields_value (&f, "MESSAGE", ev->message != NULL ? ev->message : event_types[ev->type].name);
  fields_add_num (&f, "PRIORITY", event_types[ev->type].priority);
  fields_add_num (&f, "SYSLOG_FACILITY", LOG_AUTHPRIV >> 3);
  fields_add_str (&f, "SYSLOG_IDENTIFIER", ev->origin);
  fields_value (&f, "BWSH_EVENT", event_types[ev->type].name);
  fields_add_str (&f, "BWSH_USER", ev->user);
  fields_add_num (&f, "BWSH_UID", ev->uid);
  fields_add_str (&f, "BWSH_SERVICE", ev->service);
  fields_add_str (&f, "BWSH_RHOST", ev->rhost);
  fields_add_str (&f, "BWSH_TTY", ev->tty);
  fields_add_str (&f, "BWSH_RUSER", ev->ruser);
  fields_add_str (&f, "BWSH_OUTCOME", ev->outcome);
  fields_add_str (&f, "BWSH_REASON", ev->reason);
  fields_add_str (&f, "BWSH_PLAN_DIGEST", ev->plan_digest);
  fields_add_str (&f, "BWSH_POLICY_DIGEST", ev->policy_digest);
  fields_add_str (&f, "BWSH_NETWORK", ev->network);
  fields_add_num (&f, "BWSH_MOUNTS", ev->mounts);
  fields_add_num (&f, "BWSH_REFUSALS", ev->refusals);
  fields_add_str (&f, "BWSH_COMMAND", ev->command);
  fields_add_num (&f, "BWSH_SESSION_PID", ev->session_pid);
  fields_add_str (&f, "BWSH_LOCK_TARGET", ev->lock_target);
  fields_add_num (&f, "BWSH_SESSIONS", ev->sessions);
  fields_add_num (&f, "BWSH_MAX_SESSIONS", ev->max_sessions);
  fields_add_str (&f, "BWSH_POLICY_FILE", ev->policy_file);
  fields_add_num (&f, "BWSH_POLICY_LINE", ev->policy_line);
  fields_add_str (&f, "BWSH_SESSION_ID", ev->session_id);
  fields_add_str (&f, "BWSH_SOURCE_ADDRESS", ev->source_address);
  fields_add_num (&f, "BWSH_SOURCE_PORT", ev->source_port);
  fields_add_num (&f, "BWSH_DURATION_SEC", ev->duration);
  fields_add_str (&f, "BWSH_RECORD", ev->record);
  fields_add_str (&f, "BWSH_RECORDING", ev->recording);
  fields_add_str (&f, "BWSH_TLOG_REC", ev->tlog_rec);
  fields_add_str (&f, "BWSH_TERM_FALLBACK", ev->term_fallback);
  fields_add_num (&f, "BWSH_TYPEAHEAD_BYTES", ev->typeahead_bytes);
  fields_add_num (&f, "BWSH_TYPEAHEAD_MS", ev->typeahead_ms);
  fields_add_str (&f, "BWSH_END_REASON", ev->end_reason);
  fields_add_str (&f, "BWSH_LOCK_REASON", ev->lock_reason);
  fields_add_str (&f, "BWSH_LOCK_BY", ev->lock_by);
  fields_add_num (&f, "BWSH_EXIT_STATUS", ev->exit_status);
  r = f.r;
  if (r >= 0)
    r = journal_send (f.buf, f.len);
  free (f.buf);
  return r;
}

int
bwsh_policy_digest (const BwshPolicy *pol, char ret_hex[65], BwshError *err)
{
  _cleanup_free_ char *all = NULL;
  size_t len = 0;

  for (size_t i = 0; i < pol->files.n; i++)
    {
      _cleanup_free_ char *data = NULL;
      const char *path = pol->files.items[i].src;
      size_t n = 0, need;
      char *grown;
      int r;

      r = bwsh_read_file_checked (path, BWSH_OWNER_ROOT, 0, BWSH_POLICY_FILE_MAX, &data, &n, err);
      if (r == -ENOENT)
        n = 0; /* removed since: that is a change, and hashes as one */
      else if (r < 0)
        return r;
      /* name NUL length NUL content: no two different lists give the same bytes. */
      need = strlen (path) + 1 + 21 + 1 + n;
      grown = realloc (all, len + need + 1);
      if (grown == NULL)
        return -ENOMEM;
      all = grown;
      len += (size_t) snprintf (all + len, need + 1, "%s%c%zu%c", path, 0, n, 0);
      if (n > 0)
        memcpy (all + len, data, n);
      len += n;
    }
  bwsh_sha256_hex (all != NULL ? all : "", len, ret_hex);
  return 0;
}

/* ------------------------------------------------------- what su runs */

typedef struct
{
  const char *name; /* without "--" */
  char shortopt;    /* what it means */
  bool has_arg;
} LongOpt;

/* util-linux su(1) and runuser(1), 2.38. */
static const LongOpt su_longopts[] = {
  { "command", 'c', true },     { "session-command", 'C', true }, { "fast", 'f', false },
  { "group", 'g', true },       { "supp-group", 'G', true },      { "login", 'l', false },
  { "preserve-environment", 'p', false }, { "pty", 'P', false },  { "shell", 's', true },
  { "help", 'h', false },       { "version", 'V', false },        { "whitelist-environment", 'w', true },
  { "user", 'u', true },
};

/* getopt_long accepts any unambiguous prefix of a long option. */
static const LongOpt *
match_long (const char *arg, size_t len, bool is_runuser)
{
  const LongOpt *found = NULL;

  for (size_t i = 0; i < BWSH_N_ELEMENTS (su_longopts); i++)
    {
      const LongOpt *o = &su_longopts[i];
      if (o->shortopt == 'u' && !is_runuser)
        continue;
      if (strncmp (o->name, arg, len) != 0)
        continue;
      if (strlen (o->name) == len)
        return o;
      if (found != NULL)
        return NULL;
      found = o;
    }
  return found;
}

static bool
short_has_arg (char c, bool is_runuser)
{
  return strchr ("cgGsw", c) != NULL || (is_runuser && c == 'u');
}

void
bwsh_su_command (char *const *argv, size_t argc, bool is_runuser, bool caller_is_root, bool target_shell_listed,
                 const char *target_shell, const char *env_shell, const char **ret_command)
{
  const char *shell = NULL, *user_mode_cmd = NULL;
  bool preserve = false, user_mode = false, after_dashdash = false;
  size_t positional = 0;

  for (size_t i = 1; i < argc && argv[i] != NULL; i++)
    {
      const char *a = argv[i];
      char opt = 0;
      const char *val = NULL;

      if (after_dashdash || a[0] != '-' || strcmp (a, "-") == 0)
        {
          /* su USER ARGS...; runuser -u USER COMMAND ARGS... */
          if (user_mode && positional == 0)
            user_mode_cmd = a;
          positional++;
          continue;
        }
      if (strcmp (a, "--") == 0)
        {
          after_dashdash = true;
          continue;
        }
      if (a[1] == '-')
        {
          const char *eq = strchr (a + 2, '=');
          size_t len = eq != NULL ? (size_t) (eq - a - 2) : strlen (a + 2);
          const LongOpt *o = match_long (a + 2, len, is_runuser);
          if (o == NULL)
            continue; /* su refuses it and runs nothing */
          opt = o->shortopt;
          if (o->has_arg)
            val = eq != NULL ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        }
      else
        for (const char *p = a + 1; *p != '\0'; p++)
          {
            if (short_has_arg (*p, is_runuser))
              {
                opt = *p;
                val = p[1] != '\0' ? p + 1 : (i + 1 < argc ? argv[++i] : NULL);
                break;
              }
            if (*p == 'm' || *p == 'p')
              preserve = true;
          }
      if (opt == 's')
        shell = val;
      else if (opt == 'p')
        preserve = true;
      else if (opt == 'u')
        user_mode = true;
    }

  if (is_runuser && user_mode)
    {
      /* runuser -u USER CMD: no shell at all, CMD is executed directly. */
      *ret_command = user_mode_cmd != NULL ? user_mode_cmd : "(runuser -u without a command)";
      return;
    }
  if (shell == NULL && preserve)
    shell = env_shell;
  if (shell != NULL && !caller_is_root && !target_shell_listed)
    shell = NULL; /* "using restricted shell": su keeps the passwd shell */
  *ret_command = shell != NULL && shell[0] != '\0' ? shell : target_shell;
}
