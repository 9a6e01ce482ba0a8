/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The administrator's policy: every setting, its bad values, match blocks,
 * precedence, conf.d, trust and @include confinement. */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bwshcore.h"
#include "unit.h"
#include "cleanup.h"

/* ---------------------------------------------------------------- helpers */

static void
policy_freep (BwshPolicy **p)
{
  bwsh_policy_free (*p);
}
#define _cleanup_policy_ _cleanup_ (policy_freep)

static int
parse_as (const char *text, const BwshIdentity *id, BwshPolicy **ret, BwshError *err)
{
  BwshPolicy *p = NULL;
  int r;

  assert_int_equal (bwsh_policy_new_defaults (&p), 0);
  r = bwsh_policy_parse_buffer (p, text, "test.conf", NULL, id, err);
  *ret = p;
  return r;
}

static void
join_list (const BwshBindList *l, char *buf, size_t size)
{
  size_t o = 0;

  buf[0] = '\0';
  for (size_t i = 0; i < l->n && o < size; i++)
    o += (size_t) snprintf (buf + o, size - o, "%s%s%s%s", i == 0 ? "" : ",", l->items[i].src,
                            l->items[i].dst != NULL ? ">" : "",
                            l->items[i].dst != NULL ? l->items[i].dst : "");
}

/* One field of @p as text, by its setting name. */
static void
field (const BwshPolicy *p, const char *key, char *buf, size_t size)
{
#define STR(x) snprintf (buf, size, "%s", (x) != NULL ? (x) : "(null)")
#define NUM(x) snprintf (buf, size, "%" PRId64, (int64_t) (x))
#define BOOL(x) snprintf (buf, size, "%s", (x) ? "true" : "false")
  if (strcmp (key, "shell") == 0)
    STR (p->shell);
  else if (strcmp (key, "project_dir") == 0)
    STR (p->project_dir);
  else if (strcmp (key, "user_project_dir") == 0)
    BOOL (p->user_may_choose_project);
  else if (strcmp (key, "user_config") == 0)
    STR (p->user_config);
  else if (strcmp (key, "user_overlay") == 0)
    BOOL (p->user_overlay_allowed);
  else if (strcmp (key, "user_config_mode") == 0)
    NUM (p->user_config_mode);
  else if (strcmp (key, "run") == 0)
    NUM (p->run_mode);
  else if (strcmp (key, "dev") == 0)
    NUM (p->dev_mode);
  else if (strcmp (key, "network") == 0)
    NUM (p->net_mode);
  else if (strcmp (key, "root_size") == 0)
    snprintf (buf, size, "%" PRIu64, p->root_tmpfs_size);
  else if (strcmp (key, "tmp_size") == 0)
    snprintf (buf, size, "%" PRIu64, p->tmp_tmpfs_size);
  else if (strcmp (key, "rw_ceilings") == 0)
    join_list (&p->rw_ceilings, buf, size);
  else if (strcmp (key, "ro_ceilings") == 0)
    join_list (&p->ro_ceilings, buf, size);
  else if (strcmp (key, "protected") == 0)
    join_list (&p->protected_paths, buf, size);
  else if (strcmp (key, "locked") == 0)
    join_list (&p->locked, buf, size);
  else if (strcmp (key, "ro_binds") == 0)
    join_list (&p->ro_binds, buf, size);
  else if (strcmp (key, "rw_binds") == 0)
    join_list (&p->rw_binds, buf, size);
  else if (strcmp (key, "env_allow") == 0)
    join_list (&p->env_allow, buf, size);
  else if (strcmp (key, "rlimits.core") == 0)
    NUM (p->rlimit_core);
  else if (strcmp (key, "rlimits.nproc") == 0)
    NUM (p->rlimit_nproc);
  else if (strcmp (key, "rlimits.nofile") == 0)
    NUM (p->rlimit_nofile);
  else if (strcmp (key, "strict") == 0)
    BOOL (p->strict);
  else if (strcmp (key, "hostname") == 0)
    STR (p->hostname);
  else if (strcmp (key, "max_mounts") == 0)
    NUM (p->max_mounts);
  else if (strcmp (key, "max_sessions") == 0)
    NUM (p->max_sessions);
  else if (strcmp (key, "subjects.all") == 0)
    BOOL (p->subject_all);
  else if (strcmp (key, "subjects.users") == 0)
    join_list (&p->subject_users, buf, size);
  else if (strcmp (key, "subjects.groups") == 0)
    join_list (&p->subject_groups, buf, size);
  else if (strcmp (key, "lock_groups") == 0)
    join_list (&p->lock_groups, buf, size);
  else if (strcmp (key, "lock_reason") == 0)
    STR (p->lock_reason);
  else if (strcmp (key, "is_subject") == 0)
    BOOL (p->is_subject);
  else if (strcmp (key, "require_shell") == 0)
    BOOL (p->require_shell);
  else if (strcmp (key, "refused_services") == 0)
    join_list (&p->refused_services, buf, size);
  else if (strcmp (key, "allowed_services") == 0)
    join_list (&p->allowed_services, buf, size);
  else if (strcmp (key, "landlock.mode") == 0)
    NUM (p->landlock);
  else if (strcmp (key, "landlock.scope_abstract_unix") == 0)
    BOOL (p->scope_abstract_unix);
  else if (strcmp (key, "landlock.scope_signal") == 0)
    BOOL (p->scope_signal);
  else if (strcmp (key, "landlock.tcp_connect") == 0)
    {
      join_list (&p->tcp_connect, buf, size);
      if (!p->tcp_connect_set)
        snprintf (buf, size, "any");
    }
  else if (strcmp (key, "landlock.tcp_bind") == 0)
    {
      join_list (&p->tcp_bind, buf, size);
      if (!p->tcp_bind_set)
        snprintf (buf, size, "any");
    }
  else
    fail_msg ("no such field in the test: %s", key);
#undef STR
#undef NUM
#undef BOOL
}

/* ------------------------------------------------------ every setting ok */

typedef struct GoodCase
{
  const char *text;
  const char *key;
  const char *want;
} GoodCase;

static const GoodCase good_cases[] = {
  { "shell = \"/usr/bin/zsh\";", "shell", "/usr/bin/zsh" },
  { "shell = \"/bin//sh/\";", "shell", "/bin/sh" },
  { "project_dir = \"~/work\";", "project_dir", "~/work" },
  { "project_dir = \"$HOME/work/\";", "project_dir", "~/work" },
  { "project_dir = \"/srv/projects\";", "project_dir", "/srv/projects" },
  { "user_project_dir = false;", "user_project_dir", "false" },
  { "user_config = \"~/.bwsh.json\";", "user_config", "~/.bwsh.json" },
  { "user_overlay = false;", "user_overlay", "false" },
  { "user_config_mode = \"editable\";", "user_config_mode", "0" },
  { "user_config_mode = \"readonly\";", "user_config_mode", "1" },
  { "user_config_mode = \"off\";", "user_config_mode", "2" },
  { "run = \"host\";", "run", "1" },
  { "run = \"tmpfs\";", "run", "0" },
  { "dev = \"host\";", "dev", "1" },
  { "dev = \"minimal\";", "dev", "0" },
  { "network = \"none\";", "network", "1" },
  { "network = \"shared\";", "network", "0" },
  { "root_size = 1048576;", "root_size", "1048576" },
  { "root_size = \"16K\";", "root_size", "16384" },
  { "root_size = 0;", "root_size", "0" },
  { "tmp_size = \"2G\";", "tmp_size", "2147483648" },
  { "tmp_size = \"3m\";", "tmp_size", "3145728" },
  { "tmp_size = 8589934592L;", "tmp_size", "8589934592" },
  { "rw_ceilings = [ \"~\", \"/srv/scratch\" ];", "rw_ceilings", "~,/srv/scratch" },
  { "ro_ceilings = [ \"/opt\", \"~/\" ];", "ro_ceilings", "/opt,~" },
  { "protected = [ \"~/.gnupg\" ];", "protected", "~/.gnupg" },
  { "protected = [ ];", "protected", "" },
  { "locked = [ \"/opt\" ];", "locked", "/opt" },
  { "ro_binds = ( \"/opt/tools\", { src = \"/srv/data\"; dst = \"~/data\"; } );", "ro_binds",
    "/opt/tools,/srv/data>~/data" },
  { "rw_binds = ( { src = \"/srv/shared\"; } );", "rw_binds", "/srv/shared" },
  { "env_allow = [ \"EDITOR\", \"LC_*\", \"_X1\" ];", "env_allow", "EDITOR,LC_*,_X1" },
  { "rlimits = { core = 1024; };", "rlimits.core", "1024" },
  { "rlimits = { core = \"unlimited\"; };", "rlimits.core", "-1" },
  { "rlimits = { nproc = 512; };", "rlimits.nproc", "512" },
  { "rlimits = { nproc = \"inherit\"; };", "rlimits.nproc", "-2" },
  { "rlimits = { nofile = 1024; };", "rlimits.nofile", "1024" },
  { "strict = true;", "strict", "true" },
  { "hostname = \"sandbox-1\";", "hostname", "sandbox-1" },
  { "hostname = \"\";", "hostname", "(null)" },
  { "max_mounts = 1;", "max_mounts", "1" },
  { "max_sessions = 2;", "max_sessions", "2" },
  { "max_sessions = 0;", "max_sessions", "0" },
  { "max_mounts = 1024;", "max_mounts", "1024" },
  /* libconfig parses the policy without its comments: strings keep theirs. */
  { "/* a */ max_mounts /* b\n c */ = 7; // d /* e", "max_mounts", "7" },
  { "max_mounts=/**/8;#", "max_mounts", "8" },
  { "ro_ceilings = [ \"/srv/a#b\", \"/srv/c/*d*/e\", \"/srv/f//g\" ]; # \"/h\"", "ro_ceilings",
    "/srv/a#b,/srv/c/*d*/e,/srv/f/g" },
  { "ro_ceilings = [ \"/srv/q\\\"#x\", /* \" */ \"/srv/r\\\\\" ]; // \"/s\"", "ro_ceilings",
    "/srv/q\"#x,/srv/r\\" },
  { "subjects = { all = true; };", "subjects.all", "true" },
  { "subjects = { all = true; };", "is_subject", "true" },
  { "subjects = { users = [ \"alice\" ]; };", "subjects.users", "alice" },
  { "subjects = { groups = [ \"domain users\" ]; };", "subjects.groups", "domain users" },
  { "lock_groups = [ \"offboarded\", \"domain suspended\" ];", "lock_groups", "offboarded,domain suspended" },
  { "lock_reason = \"account under review: call the service desk\";", "lock_reason",
    "account under review: call the service desk" },
  { "require_shell = false;", "require_shell", "false" },
  { "allowed_services = [ \"sshd-extra\", \"login2\" ];", "allowed_services", "sshd-extra,login2" },
  { "refused_services = [ \"cron\", \"atd\", \"systemd-user\" ];", "refused_services",
    "cron,atd,systemd-user" },
  { "landlock = { mode = \"required\"; };", "landlock.mode", "1" },
  { "landlock = { mode = \"off\"; };", "landlock.mode", "2" },
  { "landlock = { scope_abstract_unix = false; };", "landlock.scope_abstract_unix", "false" },
  { "landlock = { scope_signal = false; };", "landlock.scope_signal", "false" },
  { "landlock = { tcp_connect = [ 22, 443 ]; };", "landlock.tcp_connect", "22,443" },
  { "landlock = { tcp_connect = [ ]; };", "landlock.tcp_connect", "" },
  { "landlock = { tcp_bind = [ 8080 ]; };", "landlock.tcp_bind", "8080" },
  { "landlock = { tcp_bind = [ 8080 ]; tcp_bind = \"any\"; };", NULL, NULL }, /* duplicate */
  { "landlock = { tcp_bind = \"any\"; };", "landlock.tcp_bind", "any" },
};

static void
test_every_setting_accepts_good_values (void **state)
{
  (void) state;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (good_cases); i++)
    {
      const GoodCase *c = &good_cases[i];
      _cleanup_policy_ BwshPolicy *p = NULL;
      BwshError err = { 0 };
      char got[512];
      int r;

      r = parse_as (c->text, NULL, &p, &err);
      if (c->key == NULL)
        {
          /* libconfig itself refuses a setting given twice in one group. */
          if (r != -EINVAL || strstr (err.message, "duplicate") == NULL)
            fail_msg ("case %zu (%s): want a duplicate error, got %d \"%s\"", i, c->text, r, err.message);
          continue;
        }
      if (r != 0)
        fail_msg ("case %zu (%s): refused: %s:%d: %s", i, c->text, err.file, err.line, err.message);
      field (p, c->key, got, sizeof got);
      if (strcmp (got, c->want) != 0)
        fail_msg ("case %zu (%s): %s is \"%s\", want \"%s\"", i, c->text, c->key, got, c->want);
    }
}

/* ----------------------------------------------------- every bad value */

typedef struct BadCase
{
  const char *text; /* the bad value is on @line */
  int line;
  const char *message;
} BadCase;

#define PRE "# a comment\n\n" /* so the bad value sits on line 3 */

static const BadCase bad_cases[] = {
  { PRE "shel = \"/bin/bash\";", 3, "unknown setting \"shel\"" },
  { PRE "rlimits = { cores = 0; };", 3, "unknown setting \"rlimits.cores\"" },
  { PRE "landlock = {\n  tcp = [ 1 ];\n};", 4, "unknown setting \"landlock.tcp\"" },
  { PRE "subjects = { everybody = true; };", 3, "unknown setting \"subjects.everybody\"" },
  { PRE "shell = 1;", 3, "\"shell\" must be a string (a path), not an integer" },
  { PRE "shell = \"bash\";", 3, "\"shell\": must be an absolute path: \"bash\"" },
  { PRE "shell = \"~/bin/bash\";", 3, "\"shell\": must be an absolute path" },
  { PRE "shell = \"/bin/../tmp/sh\";", 3, "\"shell\": path contains \"..\"" },
  { PRE "project_dir = \"project\";", 3,
    "\"project_dir\": must be an absolute path or start with \"~/\": \"project\"" },
  { PRE "project_dir = \"~alice/p\";", 3, "\"project_dir\": must be an absolute path or start with" },
  { PRE "project_dir = \"~/../etc\";", 3, "\"project_dir\": path contains \"..\"" },
  { PRE "project_dir = \"~/a\\tb\";", 3, "\"project_dir\": path contains a control character" },
  /* Found by fuzz_policy: a project directory of "/" bound the host root read-write. */
  { PRE "project_dir = \"/\";", 3, "\"project_dir\": \"/\" is forbidden (/, /proc, /dev, /sys and below)" },
  { PRE "project_dir = \"/proc/self\";", 3, "\"project_dir\": \"/proc/self\" is forbidden" },
  { PRE "user_project_dir = \"yes\";", 3, "\"user_project_dir\" must be true or false, not a string" },
  { PRE "user_project_dir = 1;", 3, "\"user_project_dir\" must be true or false, not an integer" },
  { PRE "user_config = \"config.json\";", 3, "\"user_config\": must be an absolute path or start with" },
  { PRE "user_overlay = 0;", 3, "\"user_overlay\" must be true or false" },
  { PRE "run = \"ro\";", 3, "\"run\" must be \"tmpfs\" or \"host\"" },
  { PRE "run = true;", 3, "\"run\" must be \"tmpfs\" or \"host\"" },
  { PRE "dev = \"full\";", 3, "\"dev\" must be \"minimal\" or \"host\"" },
  { PRE "network = \"host\";", 3, "\"network\" must be \"private\", \"none\", or \"shared\"" },
  { PRE "root_size = -1;", 3, "\"root_size\" must not be negative" },
  { PRE "root_size = \"64T\";", 3, "\"root_size\" must be a number of bytes with an optional K, M or G" },
  { PRE "root_size = \"-64M\";", 3, "\"root_size\" must be a number of bytes" },
  { PRE "root_size = \" 64M\";", 3, "\"root_size\" must be a number of bytes" },
  { PRE "root_size = \"64MB\";", 3, "\"root_size\" must be a number of bytes" },
  { PRE "root_size = \"\";", 3, "\"root_size\" must be a number of bytes" },
  { PRE "tmp_size = \"99999999999999999999\";", 3, "\"tmp_size\" is too large" },
  { PRE "tmp_size = \"17179869184G\";", 3, "\"tmp_size\" is too large" },
  { PRE "tmp_size = 1.5;", 3, "\"tmp_size\" must be an integer or a string such as \"64M\", not a float" },
  { PRE "rw_ceilings = \"~\";", 3, "\"rw_ceilings\" must be a list of paths, not a string" },
  { PRE "rw_ceilings = [ \"tmp\" ];", 3, "\"rw_ceilings\": must be an absolute path or start with" },
  { PRE "rw_ceilings = [ 1 ];", 3, "\"rw_ceilings\" entries must be strings (paths), not an integer" },
  { PRE "ro_ceilings = [ \"/opt/../etc\" ];", 3, "\"ro_ceilings\": path contains \"..\"" },
  { PRE "protected = [ \"\" ];", 3, "\"protected\": path is empty" },
  { PRE "locked = [ \"usr\" ];", 3, "\"locked\": must be an absolute path or start with" },
  { PRE "ro_binds = [ \"/proc/1\" ];", 3, "\"ro_binds\": \"/proc/1\" is forbidden" },
  { PRE "ro_binds = [ \"/\" ];", 3, "\"ro_binds\": \"/\" is forbidden" },
  { PRE "ro_binds = ( { dst = \"/x\"; } );", 3, "\"ro_binds\": a { } entry needs \"src\"" },
  { PRE "ro_binds = ( { src = \"/x\"; mode = \"ro\"; } );", 3, "unknown setting \"ro_binds.mode\"" },
  { PRE "rw_binds = ( { src = \"/srv\"; dst = \"/sys/x\"; } );", 3, "\"rw_binds\": \"/sys/x\" is forbidden" },
  { PRE "rw_binds = ( { src = \"srv\"; } );", 3, "\"rw_binds\": must be an absolute path or start with" },
  { PRE "rw_binds = ( 5 );", 3, "\"rw_binds\" entries must be paths or { src; dst; } groups, not an integer" },
  { PRE "env_allow = [ \"*\" ];", 3, "\"env_allow\": \"*\" is not a variable name or a prefix glob" },
  { PRE "env_allow = [ \"LC_*X\" ];", 3, "\"env_allow\": \"LC_*X\" is not a variable name" },
  { PRE "env_allow = [ \"1X\" ];", 3, "\"env_allow\": \"1X\" is not a variable name" },
  { PRE "env_allow = [ \"A=B\" ];", 3, "\"env_allow\": \"A=B\" is not a variable name" },
  { PRE "env_allow = \"EDITOR\";", 3, "\"env_allow\" must be a list of" },
  { PRE "rlimits = 0;", 3, "\"rlimits\" must be a group { ... }, not an integer" },
  { PRE "rlimits = { core = -5; };", 3, "\"rlimits.core\" must be at least 0" },
  { PRE "rlimits = { nproc = 0; };", 3, "\"rlimits.nproc\" must be at least 1" },
  { PRE "rlimits = { nofile = \"lots\"; };", 3,
    "\"rlimits.nofile\" must be an integer, \"unlimited\" or \"inherit\"" },
  { PRE "strict = \"true\";", 3, "\"strict\" must be true or false" },
  { PRE "hostname = \"-box\";", 3, "\"hostname\" must be 1 to 63 letters, digits or '-', not starting with '-'" },
  { PRE "hostname = \"a_b\";", 3, "\"hostname\" must be 1 to 63 letters" },
  { PRE "hostname = \"a.example.org\";", 3, "\"hostname\" must be 1 to 63 letters" },
  { PRE "hostname = \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\";", 3,
    "\"hostname\" must be 1 to 63 letters" },
  { PRE "hostname = 7;", 3, "\"hostname\" must be a string, not an integer" },
  { PRE "max_mounts = 0;", 3, "\"max_mounts\" must be between 1 and 1024" },
  { "/* one\n two */ hostname = \"a\";\n/* three\n */ max_mounts = 0;", 4,
    "\"max_mounts\" must be between 1 and 1024" },
  { "# one\n/* two\n three */\nmax_mounts = ;", 4, "syntax error" },
  /* A bare "syntax error" says what was expected there (issue 25 item 8). */
  { "max_sessions = ;", 1, "syntax error: expected a value after \"=\": a number, a \"string\"" },
  { "subjects = { users = [ \"a\" ]\nstrict = true;", 2,
    "syntax error: expected \"}\" to close the group opened on line 1" },
  { "subjects = { users = [ \"a\" ; };", 1, "syntax error: expected \"]\" to close the list opened on line 1" },
  { "hostname = \"abc;", 1, "syntax error: a closing \" is missing on line 1 (unterminated string)" },
  { "max_mounts = 3;;", 1, "syntax error: \";\" twice: a setting is missing between them" },
  { "strict = true;\nblah", 2, "syntax error: expected NAME = VALUE; on line 2" },
  { PRE "max_sessions = -1;", 3, "\"max_sessions\" must be between 0 (no limit) and 100000" },
  { PRE "max_sessions = \"2\";", 3, "\"max_sessions\" must be an integer, not a string" },
  { PRE "max_mounts = 1025;", 3, "\"max_mounts\" must be between 1 and 1024" },
  { PRE "max_mounts = \"256\";", 3, "\"max_mounts\" must be an integer, not a string" },
  { PRE "subjects = { all = 1; };", 3, "\"subjects.all\" must be true or false" },
  { PRE "subjects = { users = [ \"a:b\" ]; };", 3, "\"subjects.users\": \"a:b\" is not a user or group name" },
  { PRE "subjects = { groups = [ \"\" ]; };", 3, "\"subjects.groups\": \"\" is not a user or group name" },
  { PRE "subjects = { groups = \"wheel\"; };", 3, "\"subjects.groups\" must be a list of" },
  { PRE "lock_groups = \"offboarded\";", 3, "\"lock_groups\" must be a list of" },
  { PRE "lock_groups = [ \"a/b\" ];", 3, "\"lock_groups\": \"a/b\" is not a user or group name" },
  { PRE "lock_reason = [ \"x\" ];", 3, "\"lock_reason\" must be a string, not an array" },
  { PRE "lock_reason = \"two\\nlines\";", 3, "\"lock_reason\" must be one line without control characters" },
  { PRE "require_shell = \"no\";", 3, "\"require_shell\" must be true or false" },
  { PRE "refused_services = [ \"../sshd\" ];", 3, "\"refused_services\": \"../sshd\" is not a PAM service name" },
  { PRE "refused_services = [ \"a b\" ];", 3, "\"refused_services\": \"a b\" is not a PAM service name" },
  { PRE "landlock = { mode = \"maybe\"; };", 3,
    "\"landlock.mode\" must be \"best_effort\", \"required\", or \"off\"" },
  { PRE "landlock = { scope_signal = \"yes\"; };", 3, "\"landlock.scope_signal\" must be true or false" },
  { PRE "landlock = { scope_abstract_unix = 1; };", 3, "\"landlock.scope_abstract_unix\" must be true or false" },
  { PRE "landlock = { tcp_connect = [ 0 ]; };", 3, "\"landlock.tcp_connect\": port 0 is not between 1 and 65535" },
  { PRE "landlock = { tcp_connect = [ 65536 ]; };", 3, "port 65536 is not between 1 and 65535" },
  { PRE "landlock = { tcp_bind = [ \"http\" ]; };", 3, "\"landlock.tcp_bind\" entries must be port numbers" },
  { PRE "landlock = { tcp_bind = \"all\"; };", 3, "\"landlock.tcp_bind\" must be a list of port numbers or \"any\"" },
  { PRE "landlock = \"off\";", 3, "\"landlock\" must be a group { ... }, not a string" },
  { PRE "match = { user = \"alice\"; };", 3, "\"match\" must be a list of blocks" },
  { PRE "match = ( \"alice\" );", 3, "\"match\" entries must be blocks" },
  { PRE "match = ( { network = \"none\"; } );", 3, "a \"match\" block needs exactly one of \"user\" or \"group\"" },
  { PRE "match = ( { user = \"a\"; group = \"b\"; } );", 3, "needs exactly one of \"user\" or \"group\"" },
  { PRE "match = ( { user = \"a\"; match = ( ); } );", 3, "\"match\" blocks cannot be nested" },
  { PRE "match = ( { user = 5; } );", 3, "\"match.user\" must be a user name or a list of user names, not an integer" },
  { PRE "match = ( { group = [ \"x:y\" ]; } );", 3, "\"match.group\": \"x:y\" is not a group name" },
  /* A block that fits nobody is still checked in full. */
  { PRE "match = ( { user = \"nobody-here\";\n  netwrk = \"none\"; } );", 4, "unknown setting \"netwrk\"" },
  { PRE "match = ( { group = \"g\"; network = \"off\"; } );", 3, "\"network\" must be \"private\", \"none\", or \"shared\"" },
  /* libconfig's own errors keep their line. */
  { PRE "shell = = \"/bin/sh\";", 3, "syntax error" },
  { PRE "strict = false;\nstrict = true;", 4, "duplicate setting name" },
  { PRE "@include \"x.conf\"", 3, "@include \"x.conf\" refused: no include directory" },
};

static void
test_every_setting_refuses_bad_values_with_line (void **state)
{
  (void) state;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (bad_cases); i++)
    {
      const BadCase *c = &bad_cases[i];
      _cleanup_policy_ BwshPolicy *p = NULL;
      BwshError err = { 0 };
      int r;

      r = parse_as (c->text, NULL, &p, &err);
      if (r >= 0)
        fail_msg ("case %zu (%s): accepted", i, c->text);
      if (strstr (err.message, c->message) == NULL)
        fail_msg ("case %zu (%s): message \"%s\", want \"%s\"", i, c->text, err.message, c->message);
      if (err.line != c->line)
        fail_msg ("case %zu (%s): line %d, want %d", i, c->text, err.line, c->line);
      if (strcmp (err.file, "test.conf") != 0)
        fail_msg ("case %zu (%s): file \"%s\"", i, c->text, err.file);
    }
}

static void
test_refused_buffer_leaves_policy_untouched (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };

  (void) state;
  assert_int_equal (bwsh_policy_new_defaults (&p), 0);
  assert_int_equal (bwsh_policy_parse_buffer (p, "network = \"none\";\nhostnme = \"x\";", "t.conf", NULL,
                                              NULL, &err),
                    -EINVAL);
  assert_int_equal (p->net_mode, BWSH_NET_PRIVATE);
  assert_int_equal (p->files.n, 0);
}

static void
test_list_entries_carry_policy_origin_and_line (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };

  (void) state;
  assert_int_equal (parse_as ("strict = false;\nro_binds = (\n  \"/opt\",\n  { src = \"/srv\"; dst = \"~/srv\"; }\n);\n"
                              "locked = [ \"/opt\" ];\n",
                              NULL, &p, &err),
                    0);
  assert_int_equal (p->ro_binds.n, 2);
  for (size_t i = 0; i < p->ro_binds.n; i++)
    {
      assert_int_equal (p->ro_binds.items[i].from.origin, BWSH_ORIGIN_POLICY);
      assert_string_equal (p->ro_binds.items[i].from.file, "test.conf");
    }
  /* Array elements have no line of their own in libconfig 1.5: the list's line. */
  assert_true (p->ro_binds.items[0].from.line >= 2 && p->ro_binds.items[0].from.line <= 3);
  assert_int_equal (p->ro_binds.items[1].from.line, 4);
  assert_int_equal (p->locked.items[0].from.origin, BWSH_ORIGIN_POLICY);
  assert_int_equal (p->locked.items[0].from.line, 6);
  /* The defaults that were not overridden keep their origin. */
  assert_int_equal (p->refused_services.items[0].from.origin, BWSH_ORIGIN_DEFAULT);
  assert_null (p->refused_services.items[0].from.file);
}

/* ---------------------------------------------------------- match blocks */

static char alice_name[] = "alice", bob_name[] = "bob", home_alice[] = "/home/alice";
static char shell_bwsh[] = "/usr/bin/bwsh";
static char g_alice[] = "alice", g_users[] = "users", g_students[] = "students";
static char *alice_groups[] = { g_alice, g_users, g_students, NULL };
static char *bob_groups[] = { g_users, NULL };

static const BwshIdentity alice = {
  .uid = 1000, .gid = 1000, .name = alice_name, .home = home_alice, .shell = shell_bwsh,
  .groups = alice_groups, .n_groups = 3,
};
static const BwshIdentity bob = {
  .uid = 1001, .gid = 100, .name = bob_name, .home = home_alice, .shell = shell_bwsh,
  .groups = bob_groups, .n_groups = 1,
};

static const char match_policy[] =
  "hostname = \"global\";\n"
  "max_mounts = 100;\n"
  /* The user block comes first in the file, and still wins over the group block. */
  "match = (\n"
  "  { user = [ \"carol\", \"alice\" ]; hostname = \"user\"; },\n"
  "  { group = \"students\"; hostname = \"group\"; max_mounts = 50; network = \"none\"; },\n"
  "  { group = [ \"staff\" ]; strict = true; }\n"
  ");\n"
  "subjects = { groups = [ \"students\" ]; };\n";

static void
test_match_by_user (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };

  (void) state;
  assert_int_equal (parse_as ("match = ( { user = \"alice\"; network = \"none\"; } );", &alice, &p, &err),
                    0);
  assert_int_equal (p->net_mode, BWSH_NET_NONE);
  bwsh_policy_free (p);
  assert_int_equal (parse_as ("match = ( { user = \"alice\"; network = \"none\"; } );", &bob, &p, &err), 0);
  assert_int_equal (p->net_mode, BWSH_NET_PRIVATE);
}

static void
test_match_by_supplementary_group (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };

  (void) state;
  /* "students" is one of alice's supplementary groups (getgrouplist). */
  assert_int_equal (parse_as ("match = ( { group = \"students\"; dev = \"host\"; } );", &alice, &p, &err), 0);
  assert_int_equal (p->dev_mode, BWSH_DEV_HOST);
  bwsh_policy_free (p);
  assert_int_equal (parse_as ("match = ( { group = \"students\"; dev = \"host\"; } );", &bob, &p, &err), 0);
  assert_int_equal (p->dev_mode, BWSH_DEV_MINIMAL);
}

static void
test_precedence_user_over_group_over_global (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };

  (void) state;
  assert_int_equal (parse_as (match_policy, &alice, &p, &err), 0);
  assert_string_equal (p->hostname, "user");        /* user > group > global */
  assert_int_equal (p->max_mounts, 50);             /* group > global */
  assert_int_equal (p->net_mode, BWSH_NET_NONE);    /* group */
  assert_false (p->strict);                         /* not in staff */
  assert_true (p->is_subject);                      /* through the group */
  bwsh_policy_free (p);

  assert_int_equal (parse_as (match_policy, &bob, &p, &err), 0);
  assert_string_equal (p->hostname, "global");
  assert_int_equal (p->max_mounts, 100);
  assert_int_equal (p->net_mode, BWSH_NET_PRIVATE);
  assert_false (p->is_subject);
  bwsh_policy_free (p);

  /* No identity (bwshctl check): no block applies, all are validated. */
  assert_int_equal (parse_as (match_policy, NULL, &p, &err), 0);
  assert_string_equal (p->hostname, "global");
  assert_false (p->is_subject);
}

/* The real path: an identity from NSS, whose groups are listed on first use. */
static void
test_match_by_group_through_nss (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshIdentity *me = NULL;
  BwshError err = { 0 };
  struct group *gr;
  char text[512];

  (void) state;
  gr = getgrgid (getgid ());
  if (gr == NULL || bwsh_identity_from_uid (getuid (), &me, &err) < 0)
    unit_skip ("NSS does not know the caller or its group");
  snprintf (text, sizeof text,
            "match = ( { group = [ \"bwsh-no-such-group\", \"%s\" ]; hostname = \"grp\"; } );\n"
            "subjects = { groups = [ \"%s\" ]; };\n",
            gr->gr_name, gr->gr_name);
  assert_int_equal (parse_as (text, me, &p, &err), 0);
  assert_string_equal (p->hostname, "grp");
  assert_true (p->is_subject);
  bwsh_identity_free (me);
}

static void
test_subject_by_user_name (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };

  (void) state;
  assert_int_equal (parse_as ("subjects = { users = [ \"bob\" ]; };", &bob, &p, &err), 0);
  assert_true (p->is_subject);
  bwsh_policy_free (p);
  assert_int_equal (parse_as ("subjects = { users = [ \"bob\" ]; };", &alice, &p, &err), 0);
  assert_false (p->is_subject);
}

/* ------------------------------------------------------- files and trust */

typedef struct Dir
{
  char path[64];
} Dir;

static int
dir_setup (void **state)
{
  Dir *d = calloc (1, sizeof *d);

  assert_non_null (d);
  snprintf (d->path, sizeof d->path, "/tmp/bwsh-policy-XXXXXX");
  assert_non_null (mkdtemp (d->path));
  /* mkdtemp gives 0700; the trust check wants a directory only root can write. */
  assert_int_equal (chmod (d->path, 0755), 0);
  *state = d;
  return 0;
}

static int
dir_teardown (void **state)
{
  Dir *d = *state;
  assert_int_equal (unit_rm_rf (d->path), 0);
  free (d);
  return 0;
}

static void
write_file (const Dir *d, const char *name, const char *text, mode_t mode)
{
  char path[PATH_MAX];
  FILE *f;

  snprintf (path, sizeof path, "%s/%s", d->path, name);
  f = fopen (path, "we");
  assert_non_null (f);
  assert_int_equal (fputs (text, f) >= 0, 1);
  assert_int_equal (fclose (f), 0);
  assert_int_equal (chmod (path, mode), 0);
}

static void
sub_path (const Dir *d, const char *name, char *buf, size_t size)
{
  snprintf (buf, size, "%s/%s", d->path, name);
}

static void
skip_unless_root (void)
{
  /* Files created here are owned by whoever runs the test; the policy must be root's. */
  if (geteuid () != 0)
    unit_skip ("not root: the policy files must be root's");
}

static void
test_missing_policy_gives_defaults (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL, *def = NULL;
  BwshError err = { 0 };
  char path[PATH_MAX];

  sub_path (*state, "bwsh.conf", path, sizeof path);
  assert_int_equal (bwsh_policy_load (path, &alice, &p, &err), 0);
  assert_int_equal (bwsh_policy_new_defaults (&def), 0);
  assert_string_equal (p->shell, def->shell);
  assert_int_equal (p->max_mounts, BWSH_DEFAULT_MAX_MOUNTS);
  assert_int_equal (p->files.n, 0);
}

static void
test_confd_overrides_in_lexical_order (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };
  char path[PATH_MAX], confd[PATH_MAX];
  Dir *d = *state;

  skip_unless_root ();
  sub_path (d, "conf.d", confd, sizeof confd);
  assert_int_equal (mkdir (confd, 0755), 0);
  write_file (d, "bwsh.conf", "hostname = \"main\";\nnetwork = \"none\";\nmax_mounts = 10;\n", 0644);
  write_file (d, "conf.d/10-a.conf", "hostname = \"ten\";\nmax_mounts = 20;\n", 0644);
  /* Lexical, not numeric: "2-b.conf" sorts after "10-a.conf". */
  write_file (d, "conf.d/2-b.conf", "hostname = \"two\";\n", 0644);
  write_file (d, "conf.d/README", "this is not a policy file", 0644);
  write_file (d, "conf.d/old.conf.disabled", "hostname = \"no\";", 0644);

  sub_path (d, "bwsh.conf", path, sizeof path);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), 0);
  assert_string_equal (p->hostname, "two");
  assert_int_equal (p->max_mounts, 20);
  assert_int_equal (p->net_mode, BWSH_NET_NONE); /* untouched by drop-ins */
  assert_int_equal (p->files.n, 3);
  assert_non_null (strstr (p->files.items[0].src, "/bwsh.conf"));
  assert_non_null (strstr (p->files.items[1].src, "/conf.d/10-a.conf"));
  assert_non_null (strstr (p->files.items[2].src, "/conf.d/2-b.conf"));
}

static void
test_user_block_beats_later_dropin_global (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };
  char path[PATH_MAX], confd[PATH_MAX];
  Dir *d = *state;

  skip_unless_root ();
  sub_path (d, "conf.d", confd, sizeof confd);
  assert_int_equal (mkdir (confd, 0755), 0);
  write_file (d, "bwsh.conf", "match = ( { user = \"alice\"; hostname = \"alice\"; } );\n", 0644);
  write_file (d, "conf.d/50-site.conf", "hostname = \"site\";\n", 0644);
  sub_path (d, "bwsh.conf", path, sizeof path);

  assert_int_equal (bwsh_policy_load (path, &alice, &p, &err), 0);
  assert_string_equal (p->hostname, "alice");
  bwsh_policy_free (p);
  assert_int_equal (bwsh_policy_load (path, &bob, &p, &err), 0);
  assert_string_equal (p->hostname, "site");
}

static void
test_dropins_apply_without_main_file (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };
  char path[PATH_MAX], confd[PATH_MAX];
  Dir *d = *state;

  skip_unless_root ();
  sub_path (d, "conf.d", confd, sizeof confd);
  assert_int_equal (mkdir (confd, 0755), 0);
  write_file (d, "conf.d/10-net.conf", "network = \"none\";\n", 0644);
  sub_path (d, "bwsh.conf", path, sizeof path);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), 0);
  assert_int_equal (p->net_mode, BWSH_NET_NONE);
}

static void
test_error_in_dropin_names_its_file_and_line (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };
  char path[PATH_MAX], confd[PATH_MAX], bad[PATH_MAX];
  Dir *d = *state;

  skip_unless_root ();
  sub_path (d, "conf.d", confd, sizeof confd);
  assert_int_equal (mkdir (confd, 0755), 0);
  write_file (d, "bwsh.conf", "strict = true;\n", 0644);
  write_file (d, "conf.d/10-x.conf", "\n\nnetwork = \"off\";\n", 0644);
  sub_path (d, "bwsh.conf", path, sizeof path);
  sub_path (d, "conf.d/10-x.conf", bad, sizeof bad);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), -EINVAL);
  assert_null (p);
  assert_string_equal (err.file, bad);
  assert_int_equal (err.line, 3);
  assert_non_null (strstr (err.message, "\"network\" must be \"private\", \"none\", or \"shared\""));
}

static void
test_world_writable_policy_refused (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };
  char path[PATH_MAX];

  skip_unless_root ();
  write_file (*state, "bwsh.conf", "strict = true;\n", 0666);
  sub_path (*state, "bwsh.conf", path, sizeof path);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), -EPERM);
  assert_null (p);
  assert_non_null (strstr (err.message, "group- or world-writable"));
}

static void
test_group_writable_policy_directory_refused (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };
  char path[PATH_MAX];
  Dir *d = *state;

  skip_unless_root ();
  write_file (d, "bwsh.conf", "strict = true;\n", 0644);
  assert_int_equal (chmod (d->path, 0775), 0);
  sub_path (d, "bwsh.conf", path, sizeof path);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), -EPERM);
  assert_non_null (strstr (err.message, "group- or world-writable"));
  assert_int_equal (chmod (d->path, 0755), 0);
}

static void
test_policy_not_owned_by_root_refused (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };
  char path[PATH_MAX];

  skip_unless_root ();
  write_file (*state, "bwsh.conf", "strict = true;\n", 0644);
  sub_path (*state, "bwsh.conf", path, sizeof path);
  assert_int_equal (chown (path, 65534, 65534), 0);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), -EPERM);
  assert_non_null (strstr (err.message, "owned by uid 65534"));
}

static void
test_untrusted_dropin_refused (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };
  char path[PATH_MAX], confd[PATH_MAX];
  Dir *d = *state;

  skip_unless_root ();
  sub_path (d, "conf.d", confd, sizeof confd);
  assert_int_equal (mkdir (confd, 0755), 0);
  write_file (d, "bwsh.conf", "strict = true;\n", 0644);
  write_file (d, "conf.d/10-x.conf", "strict = false;\n", 0646);
  sub_path (d, "bwsh.conf", path, sizeof path);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), -EPERM);
  assert_non_null (strstr (err.file, "10-x.conf"));
}

static void
test_dropin_symlink_refused (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };
  char path[PATH_MAX], confd[PATH_MAX], link[PATH_MAX];
  Dir *d = *state;

  skip_unless_root ();
  sub_path (d, "conf.d", confd, sizeof confd);
  assert_int_equal (mkdir (confd, 0755), 0);
  write_file (d, "bwsh.conf", "strict = true;\n", 0644);
  write_file (d, "other", "strict = false;\n", 0644);
  sub_path (d, "conf.d/10-link.conf", link, sizeof link);
  assert_int_equal (symlink ("../other", link), 0);
  sub_path (d, "bwsh.conf", path, sizeof path);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), -ELOOP);
  assert_non_null (strstr (err.message, "symbolic link"));
}

static void
test_include_outside_policy_directory_refused (void **state)
{
  static const char *const names[] = { "../x.conf", "/etc/passwd", "sub/x.conf", ".hidden", "a\\x2fb", "" };
  char text[256];

  (void) state;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (names); i++)
    {
      _cleanup_policy_ BwshPolicy *p = NULL;
      BwshError err = { 0 };

      assert_int_equal (bwsh_policy_new_defaults (&p), 0);
      snprintf (text, sizeof text, "strict = true;\n  @include \"%s\"\n", names[i]);
      assert_int_equal (bwsh_policy_parse_buffer (p, text, "test.conf", "/etc", NULL, &err), -EPERM);
      assert_non_null (strstr (err.message, "only a plain file name in the policy's own directory"));
      assert_int_equal (err.line, 2);
      assert_string_equal (err.file, "test.conf");
    }
}

static void
test_include_in_block_comment_refused (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };

  (void) state;
  assert_int_equal (bwsh_policy_new_defaults (&p), 0);
  assert_int_equal (bwsh_policy_parse_buffer (p, "/* old:\n@include \"x.conf\"\n*/\n", "test.conf", "/etc",
                                              NULL, &err),
                    -EPERM);
  assert_non_null (strstr (err.message, "inside a comment or a string"));
  assert_int_equal (err.line, 2);
  /* A "#" comment hides it from libconfig too: not an include. */
  assert_int_equal (bwsh_policy_parse_buffer (p, "# @include \"x.conf\"\nstrict = true;\n", "test.conf",
                                              "/etc", NULL, &err),
                    0);
  assert_true (p->strict);
}

static void
test_include_inside_policy_directory_works (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };
  char path[PATH_MAX], inc[PATH_MAX];
  Dir *d = *state;

  skip_unless_root ();
  write_file (d, "common.inc", "# shared\nnetwork = \"none\";\n@include \"deeper.inc\"\n", 0644);
  write_file (d, "deeper.inc", "max_mounts = 77;\n", 0644);
  write_file (d, "bwsh.conf", "strict = true;\n@include \"common.inc\"\nhostname = \"h\";\n", 0644);
  sub_path (d, "bwsh.conf", path, sizeof path);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), 0);
  assert_true (p->strict);
  assert_int_equal (p->net_mode, BWSH_NET_NONE);
  assert_int_equal (p->max_mounts, 77);
  assert_string_equal (p->hostname, "h");
  assert_int_equal (p->files.n, 3);
  sub_path (d, "common.inc", inc, sizeof inc);
  assert_true (bwsh_bind_list_contains (&p->files, inc));
}

/* libconfig 1.5 keeps one line counter across @include; errors must still
 * name the right file and line, in the included file and after it. */
static void
test_include_errors_keep_file_and_line (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };
  char path[PATH_MAX], inc[PATH_MAX];
  Dir *d = *state;

  skip_unless_root ();
  write_file (d, "a.inc", "# one\n# two\nnetwork = \"none\";\n", 0644);
  write_file (d, "b.inc", "# one\n\nnetwork = \"nope\";\n", 0644);
  sub_path (d, "bwsh.conf", path, sizeof path);

  write_file (d, "bwsh.conf", "strict = true;\n@include \"a.inc\"\n\nhostname = \"-x\";\n", 0644);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), -EINVAL);
  assert_string_equal (err.file, path);
  assert_int_equal (err.line, 4);
  assert_non_null (strstr (err.message, "\"hostname\""));

  write_file (d, "bwsh.conf", "strict = true;\n@include \"a.inc\"\n@include \"b.inc\"\n", 0644);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), -EINVAL);
  sub_path (d, "b.inc", inc, sizeof inc);
  assert_string_equal (err.file, inc);
  assert_int_equal (err.line, 3);

  /* A syntax error after an include. */
  write_file (d, "bwsh.conf", "@include \"a.inc\"\nstrict = true;\nstrict false;\n", 0644);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), -EINVAL);
  assert_string_equal (err.file, path);
  assert_int_equal (err.line, 3);
}

static void
test_untrusted_include_refused (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };
  char path[PATH_MAX], link[PATH_MAX];
  Dir *d = *state;

  skip_unless_root ();
  write_file (d, "ww.inc", "strict = false;\n", 0666);
  write_file (d, "bwsh.conf", "strict = true;\n@include \"ww.inc\"\n", 0644);
  sub_path (d, "bwsh.conf", path, sizeof path);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), -EPERM);
  assert_non_null (strstr (err.message, "group- or world-writable"));

  /* A symlink in the directory pointing outside it. */
  sub_path (d, "passwd.inc", link, sizeof link);
  assert_int_equal (symlink ("/etc/passwd", link), 0);
  write_file (d, "bwsh.conf", "@include \"passwd.inc\"\n", 0644);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), -ELOOP);

  /* A missing include is an error, never "no policy". */
  write_file (d, "bwsh.conf", "network = \"none\";\n@include \"gone.inc\"\n", 0644);
  assert_int_equal (bwsh_policy_load (path, NULL, &p, &err), -ENOENT);
  assert_null (p);
  assert_int_equal (err.line, 2);
}

static void
assert_lists_equal (const BwshBindList *a, const BwshBindList *b, const char *what)
{
  if (a->n != b->n)
    fail_msg ("%s: %zu entries, want %zu", what, a->n, b->n);
  for (size_t i = 0; i < a->n; i++)
    {
      if (strcmp (a->items[i].src, b->items[i].src) != 0)
        fail_msg ("%s[%zu]: \"%s\", want \"%s\"", what, i, a->items[i].src, b->items[i].src);
      if ((a->items[i].dst == NULL) != (b->items[i].dst == NULL)
          || (a->items[i].dst != NULL && strcmp (a->items[i].dst, b->items[i].dst) != 0))
        fail_msg ("%s[%zu]: dst differs", what, i);
    }
}

/* ------------------------------------------- one description per setting */

/* @word in @text, not as part of a longer name. */
static bool
has_word (const char *text, const char *word)
{
  size_t n = strlen (word);

  for (const char *q = strstr (text, word); q != NULL; q = strstr (q + 1, word))
    {
      bool before = q > text && (isalnum ((unsigned char) q[-1]) || q[-1] == '_');
      bool after = isalnum ((unsigned char) q[n]) || q[n] == '_';
      if (!before && !after)
        return true;
    }
  return false;
}

typedef struct
{
  const char *file;
  const char *text;
  unsigned missing;
} DocCheck;

/* A setting is documented when each part of its name ("landlock", "mode")
 * and, for an enum setting, each choice written as "NAME" is in the file. */
static int
check_documented (const char *name, const BwshEnumName *choices, size_t offset, void *userdata)
{
  DocCheck *d = userdata;
  _cleanup_free_ char *parts = strdup (name);
  char *save = NULL;

  (void) offset;
  assert_non_null (parts);
  for (char *w = strtok_r (parts, ".", &save); w != NULL; w = strtok_r (NULL, ".", &save))
    if (!has_word (d->text, w))
      {
        print_message ("%s: setting \"%s\" is not documented (no \"%s\")\n", d->file, name, w);
        d->missing++;
      }
  for (size_t i = 0; choices != NULL && choices[i].name != NULL; i++)
    {
      _cleanup_free_ char *quoted = NULL;
      assert_true (asprintf (&quoted, "\"%s\"", choices[i].name) > 0);
      if (strstr (d->text, quoted) == NULL)
        {
          print_message ("%s: \"%s\" = %s is not documented\n", d->file, name, quoted);
          d->missing++;
        }
    }
  return 0;
}

static void
test_every_setting_documented_in_man_page_and_shipped_conf (void **state)
{
  static const char *const files[] = { "docs/man/bwsh.conf.5.scd", "conf/bwsh.conf" };
  static const BwshEnumName planted_choices[] = { { "tmpfs", 0 }, { "planted_choice", 1 }, { NULL, 0 } };

  (void) state;
  for (size_t i = 0; i < BWSH_N_ELEMENTS (files); i++)
    {
      _cleanup_free_ char *path = NULL, *text = NULL;
      DocCheck d;

      assert_true (asprintf (&path, "%s/%s", BWSH_SOURCE_DIR, files[i]) > 0);
      text = unit_read_file (path);
      d = (DocCheck) { .file = files[i], .text = text };

      assert_int_equal (bwsh_policy_settings_foreach (check_documented, &d), 0);
      assert_int_equal (d.missing, 0);

      /* Control: a planted row the docs do not name, and a planted choice of
       * a documented setting, are each caught. */
      assert_int_equal (check_documented ("planted_undocumented", NULL, 0, &d), 0);
      assert_int_equal (d.missing, 1);
      assert_int_equal (check_documented ("run", planted_choices, 0, &d), 0);
      assert_int_equal (d.missing, 2);
    }
}

typedef struct
{
  unsigned settings, enums, choices;
} EnumCount;

/* Each choice of each enum setting parses to its value, in its field, and
 * the to-string gives the name back: the table is the parser. */
static int
check_enum_round_trip (const char *name, const BwshEnumName *choices, size_t offset, void *userdata)
{
  EnumCount *n = userdata;
  const char *dot = strchr (name, '.');

  n->settings++;
  if (choices == NULL)
    return 0;
  n->enums++;
  for (size_t i = 0; choices[i].name != NULL; i++)
    {
      _cleanup_policy_ BwshPolicy *p = NULL;
      _cleanup_free_ char *conf = NULL;
      BwshError err = { 0 };
      int v = -1;

      if (dot == NULL)
        assert_true (asprintf (&conf, "%s = \"%s\";\n", name, choices[i].name) > 0);
      else
        assert_true (asprintf (&conf, "%.*s = { %s = \"%s\"; };\n", (int) (dot - name), name, dot + 1,
                               choices[i].name) > 0);
      assert_int_equal (bwsh_policy_new_defaults (&p), 0);
      if (bwsh_policy_parse_buffer (p, conf, "t.conf", NULL, NULL, &err) < 0)
        fail_msg ("%s: %s", conf, err.message);
      memcpy (&v, (const char *) p + offset, sizeof v);
      assert_int_equal (v, choices[i].value);
      assert_string_equal (bwsh_enum_to_string (choices, v), choices[i].name);
      assert_int_equal (bwsh_enum_from_string (choices, choices[i].name, &v), 0);
      n->choices++;
    }
  return 0;
}

static void
test_every_enum_setting_parses_each_name_from_its_table (void **state)
{
  EnumCount n = { 0 };

  (void) state;
  assert_int_equal (bwsh_policy_settings_foreach (check_enum_round_trip, &n), 0);
  assert_true (n.settings >= 40);
  assert_true (n.enums >= 9);
  assert_true (n.choices >= 20);
  /* The to-strings the front ends use read the same tables. */
  assert_string_equal (bwsh_net_mode_to_string (BWSH_NET_SHARED), "shared");
  assert_string_equal (bwsh_net_engine_to_string (BWSH_NET_ENGINE_SLIRP4NETNS), "slirp4netns");
  assert_string_equal (bwsh_record_mode_to_string (BWSH_RECORD_REQUIRED), "required");
  assert_string_equal (bwsh_landlock_mode_to_string (BWSH_LANDLOCK_BEST_EFFORT), "best_effort");
  assert_string_equal (bwsh_record_mode_to_string ((BwshRecordMode) 99), "?");
}

static void
test_shipped_conf_equals_builtin_defaults (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL, *def = NULL;
  _cleanup_free_ char *text = NULL;
  BwshError err = { 0 };
  FILE *f;
  long n;

  (void) state;
  /* Read it directly: the source tree need not be root-owned. */
  f = fopen (BWSH_SOURCE_DIR "/conf/bwsh.conf", "re");
  assert_non_null (f);
  assert_int_equal (fseek (f, 0, SEEK_END), 0);
  n = ftell (f);
  assert_true (n > 0 && n < BWSH_POLICY_FILE_MAX);
  rewind (f);
  text = calloc (1, (size_t) n + 1);
  assert_non_null (text);
  assert_int_equal (fread (text, 1, (size_t) n, f), (size_t) n);
  fclose (f);

  assert_int_equal (bwsh_policy_new_defaults (&def), 0);
  assert_int_equal (bwsh_policy_new_defaults (&p), 0);
  /* A sentinel, to prove the file sets everything rather than inheriting. */
  p->max_mounts = 3;
  p->strict = true;
  if (bwsh_policy_parse_buffer (p, text, "conf/bwsh.conf", BWSH_SOURCE_DIR "/conf", NULL, &err) < 0)
    fail_msg ("%s:%d: %s", err.file, err.line, err.message);

  assert_string_equal (p->shell, def->shell);
  assert_string_equal (p->project_dir, def->project_dir);
  assert_int_equal (p->user_may_choose_project, def->user_may_choose_project);
  assert_string_equal (p->user_config, def->user_config);
  assert_int_equal (p->user_overlay_allowed, def->user_overlay_allowed);
  assert_int_equal (p->run_mode, def->run_mode);
  assert_int_equal (p->dev_mode, def->dev_mode);
  assert_int_equal (p->net_mode, def->net_mode);
  assert_int_equal (p->root_tmpfs_size, def->root_tmpfs_size);
  assert_int_equal (p->tmp_tmpfs_size, def->tmp_tmpfs_size);
  assert_lists_equal (&p->rw_ceilings, &def->rw_ceilings, "rw_ceilings");
  assert_lists_equal (&p->ro_ceilings, &def->ro_ceilings, "ro_ceilings");
  assert_lists_equal (&p->protected_paths, &def->protected_paths, "protected");
  assert_lists_equal (&p->locked, &def->locked, "locked");
  assert_lists_equal (&p->ro_binds, &def->ro_binds, "ro_binds");
  assert_lists_equal (&p->rw_binds, &def->rw_binds, "rw_binds");
  assert_lists_equal (&p->env_allow, &def->env_allow, "env_allow");
  assert_int_equal (p->rlimit_core, def->rlimit_core);
  assert_int_equal (p->rlimit_nproc, def->rlimit_nproc);
  assert_int_equal (p->rlimit_nofile, def->rlimit_nofile);
  assert_int_equal (p->strict, def->strict);
  assert_null (p->hostname);
  assert_null (def->hostname);
  assert_int_equal (p->max_mounts, def->max_mounts);
  assert_int_equal (p->subject_all, def->subject_all);
  assert_lists_equal (&p->subject_users, &def->subject_users, "subjects.users");
  assert_lists_equal (&p->subject_groups, &def->subject_groups, "subjects.groups");
  assert_int_equal (p->is_subject, def->is_subject);
  assert_lists_equal (&p->lock_groups, &def->lock_groups, "lock_groups");
  assert_null (p->lock_reason);
  assert_null (def->lock_reason);
  assert_int_equal (p->require_shell, def->require_shell);
  assert_lists_equal (&p->refused_services, &def->refused_services, "refused_services");
  assert_lists_equal (&p->allowed_services, &def->allowed_services, "allowed_services");
  assert_int_equal (p->user_config_mode, def->user_config_mode);
  assert_int_equal (p->landlock, def->landlock);
  assert_int_equal (p->scope_abstract_unix, def->scope_abstract_unix);
  assert_int_equal (p->scope_signal, def->scope_signal);
  assert_lists_equal (&p->tcp_connect, &def->tcp_connect, "tcp_connect");
  assert_lists_equal (&p->tcp_bind, &def->tcp_bind, "tcp_bind");
  assert_int_equal (p->tcp_connect_set, def->tcp_connect_set);
  assert_int_equal (p->tcp_bind_set, def->tcp_bind_set);

  /* The defaults themselves, as the issue states them. */
  assert_string_equal (def->shell, "/bin/bash");
  assert_int_equal (def->root_tmpfs_size, 67108864);
  assert_int_equal (def->tmp_tmpfs_size, 1073741824);
  assert_int_equal (def->max_mounts, BWSH_DEFAULT_MAX_MOUNTS);
  assert_int_equal (def->rlimit_core, 0);
  assert_int_equal (def->rlimit_nproc, BWSH_DEFAULT_NPROC);
  assert_int_equal (p->max_sessions, def->max_sessions);
  assert_int_equal (def->max_sessions, 0);
  assert_int_equal (def->landlock, BWSH_LANDLOCK_BEST_EFFORT);
}

/* The shipped file's example match block, uncommented, must be valid too. */
static void
test_shipped_match_example_is_valid (void **state)
{
  _cleanup_policy_ BwshPolicy *p = NULL;
  BwshError err = { 0 };
  static const char example[] =
    "match =\n(\n  {\n    group = \"students\";\n    network = \"none\";\n    max_mounts = 64;\n"
    "    rlimits = { nproc = 256; };\n  },\n  {\n    user = [ \"alice\", \"bob\" ];\n"
    "    rw_binds = ( { src = \"/srv/shared\"; dst = \"~/shared\"; } );\n  }\n);\n";

  (void) state;
  assert_int_equal (parse_as (example, &alice, &p, &err), 0);
  assert_int_equal (p->net_mode, BWSH_NET_NONE);
  assert_int_equal (p->rlimit_nproc, 256);
  assert_int_equal (p->rw_binds.n, 1);
  assert_string_equal (p->rw_binds.items[0].dst, "~/shared");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_every_setting_accepts_good_values),
    cmocka_unit_test (test_every_setting_refuses_bad_values_with_line),
    cmocka_unit_test (test_refused_buffer_leaves_policy_untouched),
    cmocka_unit_test (test_list_entries_carry_policy_origin_and_line),
    cmocka_unit_test (test_match_by_user),
    cmocka_unit_test (test_match_by_supplementary_group),
    cmocka_unit_test (test_precedence_user_over_group_over_global),
    cmocka_unit_test (test_match_by_group_through_nss),
    cmocka_unit_test (test_subject_by_user_name),
    cmocka_unit_test_setup_teardown (test_missing_policy_gives_defaults, dir_setup, dir_teardown),
    cmocka_unit_test_setup_teardown (test_confd_overrides_in_lexical_order, dir_setup, dir_teardown),
    cmocka_unit_test_setup_teardown (test_user_block_beats_later_dropin_global, dir_setup, dir_teardown),
    cmocka_unit_test_setup_teardown (test_dropins_apply_without_main_file, dir_setup, dir_teardown),
    cmocka_unit_test_setup_teardown (test_error_in_dropin_names_its_file_and_line, dir_setup, dir_teardown),
    cmocka_unit_test_setup_teardown (test_world_writable_policy_refused, dir_setup, dir_teardown),
    cmocka_unit_test_setup_teardown (test_group_writable_policy_directory_refused, dir_setup, dir_teardown),
    cmocka_unit_test_setup_teardown (test_policy_not_owned_by_root_refused, dir_setup, dir_teardown),
    cmocka_unit_test_setup_teardown (test_untrusted_dropin_refused, dir_setup, dir_teardown),
    cmocka_unit_test_setup_teardown (test_dropin_symlink_refused, dir_setup, dir_teardown),
    cmocka_unit_test (test_include_outside_policy_directory_refused),
    cmocka_unit_test (test_include_in_block_comment_refused),
    cmocka_unit_test_setup_teardown (test_include_inside_policy_directory_works, dir_setup, dir_teardown),
    cmocka_unit_test_setup_teardown (test_include_errors_keep_file_and_line, dir_setup, dir_teardown),
    cmocka_unit_test_setup_teardown (test_untrusted_include_refused, dir_setup, dir_teardown),
    cmocka_unit_test (test_shipped_conf_equals_builtin_defaults),
    cmocka_unit_test (test_every_setting_documented_in_man_page_and_shipped_conf),
    cmocka_unit_test (test_every_enum_setting_parses_each_name_from_its_table),
    cmocka_unit_test (test_shipped_match_example_is_valid),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
