/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bwshctl explain: the plan for people (text) and for programs (JSON). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "bind_list.h"
#include "cleanup.h"
#include "digest.h"
#include "errors.h"
#include "explain.h"
#include "format.h"
#include "landlock.h"
#include "plan.h"
#include "policy.h"
#include "record.h"
#include "render.h"

/* "default", "policy FILE:LINE" or "user FILE:LINE:COL". */
static char *
origin_string (const BwshSource *from)
{
  char *s = NULL;
  int r;

  if (from->file == NULL)
    r = asprintf (&s, "%s", bwsh_origin_to_string (from->origin));
  else if (from->line > 0 && from->column > 0)
    r = asprintf (&s, "%s %s:%d:%d", bwsh_origin_to_string (from->origin), from->file, from->line, from->column);
  else if (from->line > 0)
    r = asprintf (&s, "%s %s:%d", bwsh_origin_to_string (from->origin), from->file, from->line);
  else
    r = asprintf (&s, "%s %s", bwsh_origin_to_string (from->origin), from->file);
  return r < 0 ? NULL : s;
}

/* The command an administrator can paste: env -i bwrap OPTIONS -- SHELL ... */
static int
command_line (const BwshPlan *p, const BwshCommand *cmd, BwshArgv *ret_argv, char **ret_line)
{
  BwshArgv opts = { 0 }, tail = { 0 }, all = { 0 };
  _cleanup_free_ char *line = NULL;
  size_t len = 0;
  int r;

  r = bwsh_render_options (p, BWSH_RENDER_PATHS, -1, &opts);
  if (r >= 0)
    r = bwsh_render_command (p, cmd, &tail);
  if (r >= 0)
    r = bwsh_argv_add (&all, BWSH_BWRAP_PATH);
  for (size_t i = 0; r >= 0 && i < opts.n; i++)
    r = bwsh_argv_add (&all, opts.v[i]);
  for (size_t i = 0; r >= 0 && i < tail.n; i++)
    r = bwsh_argv_add (&all, tail.v[i]);
  bwsh_argv_clear (&opts);
  bwsh_argv_clear (&tail);
  if (r < 0)
    goto fail;

  line = strdup ("env -i");
  if (line == NULL)
    {
      r = -ENOMEM;
      goto fail;
    }
  len = strlen (line);
  for (size_t i = 0; i < all.n; i++)
    {
      _cleanup_free_ char *q = bwsh_shell_quote (all.v[i]);
      char *n;

      if (q == NULL || (n = realloc (line, len + strlen (q) + 2)) == NULL)
        {
          r = -ENOMEM;
          goto fail;
        }
      line = n;
      line[len++] = ' ';
      strcpy (line + len, q);
      len += strlen (q);
    }
  *ret_argv = all;
  *ret_line = steal_pointer (&line);
  return 0;
fail:
  bwsh_argv_clear (&all);
  return r;
}

static const char *
limit_string (int64_t v, char *buf, size_t size)
{
  if (v == BWSH_RLIMIT_UNSET)
    return "inherited";
  if (v == BWSH_RLIMIT_INFINITY)
    return "unlimited";
  snprintf (buf, size, "%" PRId64, v);
  return buf;
}

/* What a session may hold in RAM and swap through its writable tmpfs mounts.
 * A size-0 tmpfs gets the kernel's default (half the RAM) unless it is
 * remounted read-only (the empty placeholders for missing protected paths). */
static uint64_t
tmpfs_total (const BwshPlan *p, size_t *ret_unsized)
{
  uint64_t total = 0;
  size_t unsized = 0;

  for (size_t i = 0; i < p->n_mounts; i++)
    {
      const BwshMount *m = &p->mounts[i];
      bool read_only = false;
      if (m->kind != BWSH_MOUNT_TMPFS || m->verdict != BWSH_VERDICT_ACCEPTED)
        continue;
      for (size_t j = i + 1; j < p->n_mounts; j++)
        if (p->mounts[j].kind == BWSH_MOUNT_REMOUNT_RO && p->mounts[j].verdict == BWSH_VERDICT_ACCEPTED
            && strcmp (p->mounts[j].dest, m->dest) == 0)
          read_only = true;
      if (read_only)
        continue;
      if (m->size == 0)
        unsized++;
      total += m->size;
    }
  *ret_unsized = unsized;
  return total;
}

static bool
utf8_ok (const char *s)
{
  json_t *v = json_string (s);
  json_decref (v);
  return v != NULL;
}

/* Where strings that are not UTF-8 went.  JSON cannot carry such a string,
 * and one name in the home (the user picks it, from inside) must not cost
 * the administrator the whole plan: it is carried in bwsh_escape_data()'s
 * form (every \xNN is one byte, nothing else is escaped, so it reads back
 * to the exact bytes) and its JSON pointer is listed in "escaped". */
typedef struct
{
  json_t *escaped;
} JsonOut;

/* jansson returns NULL for a string that is not UTF-8 and -1 when it cannot
 * set a key: every call is checked, so that nothing drops out of the JSON
 * silently (a bad TERM once shifted the whole argv). */
static int
jstring (JsonOut *j, const char *at, const char *s, json_t **ret, BwshError *err)
{
  json_t *v;

  if (s == NULL)
    v = json_null ();
  else
    v = json_string (s);
  if (v == NULL && s != NULL && !utf8_ok (s))
    {
      _cleanup_free_ char *esc = bwsh_escape_data (s);
      json_t *ptr = json_string (at);

      if (esc == NULL || ptr == NULL || json_array_append_new (j->escaped, ptr) < 0
          || (v = json_string (esc)) == NULL)
        return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
    }
  if (v == NULL)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  *ret = v;
  return 0;
}

static int
jset (json_t *obj, const char *key, json_t *v, BwshError *err)
{
  /* json_object_set_new() takes @v even when it fails. */
  if (v == NULL || json_object_set_new (obj, key, v) < 0)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  return 0;
}

/* @obj is at JSON pointer @at; its keys are bwsh's own (or environment
 * names, which the plan's allow-list holds to [A-Z_]), never "/" or "~". */
static int
jset_string (JsonOut *j, json_t *obj, const char *at, const char *key, const char *s, BwshError *err)
{
  _cleanup_free_ char *ptr = NULL;
  json_t *v = NULL;
  int r;

  if (asprintf (&ptr, "%s/%s", at, key) < 0)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  r = jstring (j, ptr, s, &v, err);
  return r < 0 ? r : jset (obj, key, v, err);
}

static int
jappend_string (JsonOut *j, json_t *arr, const char *at, const char *s, BwshError *err)
{
  _cleanup_free_ char *ptr = NULL;
  json_t *v = NULL;
  int r;

  if (asprintf (&ptr, "%s/%zu", at, json_array_size (arr)) < 0)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  r = jstring (j, ptr, s, &v, err);
  if (r < 0)
    return r;
  if (json_array_append_new (arr, v) < 0)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  return 0;
}

static int
json_mount (JsonOut *j, const BwshMount *m, size_t i, json_t **ret, BwshError *err)
{
  json_auto_t *o = json_object ();
  _cleanup_free_ char *origin = origin_string (&m->from), *at = NULL;
  int r;

  if (o == NULL || origin == NULL || asprintf (&at, "/mounts/%zu", i) < 0)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  if ((r = jset_string (j, o, at, "kind", bwsh_mount_kind_to_string (m->kind), err)) < 0
      || (r = jset_string (j, o, at, "source", m->src, err)) < 0 || (r = jset_string (j, o, at, "destination", m->dest, err)) < 0
      || (r = jset_string (j, o, at, "origin", bwsh_origin_to_string (m->from.origin), err)) < 0
      || (r = jset_string (j, o, at, "origin_detail", origin, err)) < 0
      || (r = jset_string (j, o, at, "file", m->from.file, err)) < 0
      || (r = jset (o, "line", json_integer (m->from.line), err)) < 0
      || (r = jset_string (j, o, at, "verdict", bwsh_verdict_to_string (m->verdict), err)) < 0
      || (r = jset_string (j, o, at, "reason", m->reason, err)) < 0)
    return r;
  if (m->size > 0 && (r = jset (o, "size", json_integer ((json_int_t) m->size), err)) < 0)
    return r;
  *ret = steal_pointer (&o);
  return 0;
}

static int
json_landlock (JsonOut *j, const BwshPlan *p, json_t *root, BwshError *err)
{
  BwshLandlockReport ll = { 0 };
  json_t *l;
  int r;

  if (bwsh_landlock_probe (&p->landlock, &ll) < 0)
    return 0;
  l = json_object ();
  if ((r = jset (root, "landlock", l, err)) < 0)
    return r;
  if ((r = jset (l, "abi", json_integer (ll.abi), err)) < 0
      || (r = jset (l, "abstract_unix_sockets", json_boolean (ll.scoped_abstract), err)) < 0
      || (r = jset (l, "signals", json_boolean (ll.scoped_signal), err)) < 0
      || (r = jset (l, "tcp_connect", json_boolean (ll.tcp_connect), err)) < 0
      || (r = jset (l, "tcp_bind", json_boolean (ll.tcp_bind), err)) < 0
      || (r = jset_string (j, l, "/landlock", "not_enforced", ll.missing, err)) < 0)
    return r;
  return 0;
}

/* The plan's lists: its mounts, environment and warnings. */
static int
json_lists (JsonOut *j, const BwshPlan *p, json_t *mounts, json_t *env, json_t *warn, BwshError *err)
{
  int r;

  for (size_t i = 0; i < p->n_mounts; i++)
    {
      json_t *o = NULL;
      if ((r = json_mount (j, &p->mounts[i], i, &o, err)) < 0)
        return r;
      if (json_array_append_new (mounts, o) < 0)
        return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
    }
  for (size_t i = 0; i < p->n_env; i++)
    {
      const char *eq = strchr (p->env[i], '=');
      _cleanup_free_ char *name = strndup (p->env[i], (size_t) (eq - p->env[i]));
      if (name == NULL)
        return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
      if (!utf8_ok (name))
        return bwsh_error_set (err, -EILSEQ, NULL, 0, 0, "an environment variable name is not UTF-8");
      if ((r = jset_string (j, env, "/environment", name, eq + 1, err)) < 0)
        return r;
    }
  for (size_t i = 0; i < p->diag.n; i++)
    if ((r = jappend_string (j, warn, "/warnings", p->diag.lines[i], err)) < 0)
      return r;
  return 0;
}

/* What confines the session: namespaces, network, recording, limits,
 * tmpfs. */
static int
json_sandbox (JsonOut *j, const BwshPlan *p, json_t *root, json_t *ns, json_t *limits, BwshError *err)
{
  char b1[32], b2[32], b3[32];
  size_t unsized;
  uint64_t total;
  int r;

  for (BwshNamespace n = 0; n < _BWSH_NS_MAX; n++)
    {
      const BwshNamespaceInfo *info = bwsh_namespace_info (n);
      json_t *v = !p->unshare[n] ? json_false () : info->if_supported ? json_string ("if-supported") : json_true ();
      if ((r = jset (ns, info->name, v, err)) < 0)
        return r;
    }
  if ((r = jset (ns, "nested_userns", json_boolean (!p->disable_userns), err)) < 0
      || (r = jset_string (j, root, "", "network", bwsh_net_mode_to_string (p->network), err)) < 0
      || (p->network == BWSH_NET_PRIVATE
          && (r = jset_string (j, root, "", "network_engine", bwsh_net_engine_to_string (p->net_engine), err)) < 0)
      || (r = jset_string (j, root, "", "record", bwsh_record_mode_to_string (p->record), err)) < 0
      || (r = jset_string (j, limits, "/limits", "core", limit_string (p->rlimit_core, b1, sizeof b1), err)) < 0
      || (r = jset_string (j, limits, "/limits", "nproc", limit_string (p->rlimit_nproc, b2, sizeof b2), err)) < 0
      || (r = jset_string (j, limits, "/limits", "nofile", limit_string (p->rlimit_nofile, b3, sizeof b3), err)) < 0)
    return r;
  total = tmpfs_total (p, &unsized);
  return jset (root, "tmpfs_total",
               json_pack ("{s:I, s:I}", "bytes", (json_int_t) total, "unsized", (json_int_t) unsized), err);
}

int
bwsh_explain_json (const BwshPlan *p, const BwshCommand *cmd, const char *refusal, char **ret, BwshError *err)
{
  json_auto_t *root = json_object ();
  json_t *mounts = json_array (), *env = json_object (), *warn = json_array (), *argv = json_array ();
  json_t *limits = json_object (), *ns = json_object (), *escaped = json_array ();
  JsonOut j = { .escaped = escaped };
  BwshArgv all = { 0 };
  _cleanup_free_ char *line = NULL;
  char digest[65];
  char *out;
  int r;

  /* Each container is owned by root as soon as it is set (or freed by the
   * failing jset), so one check covers them all. */
  if (root == NULL)
    {
      json_decref (mounts), json_decref (env), json_decref (warn), json_decref (argv);
      json_decref (limits), json_decref (ns), json_decref (escaped);
      return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
    }
  if ((r = jset (root, "format", json_integer (1), err)) < 0 || (r = jset (root, "mounts", mounts, err)) < 0
      || (r = jset (root, "environment", env, err)) < 0 || (r = jset (root, "warnings", warn, err)) < 0
      || (r = jset (root, "argv", argv, err)) < 0 || (r = jset (root, "limits", limits, err)) < 0
      || (r = jset (root, "namespaces", ns, err)) < 0 || (r = jset (root, "escaped", escaped, err)) < 0)
    return r;

  if ((r = json_lists (&j, p, mounts, env, warn, err)) < 0
      || (r = json_sandbox (&j, p, root, ns, limits, err)) < 0)
    return r;

  bwsh_plan_digest (p, digest);
  if ((r = jset_string (&j, root, "", "shell", p->shell, err)) < 0 || (r = jset_string (&j, root, "", "home", p->home, err)) < 0
      || (r = jset_string (&j, root, "", "project_dir", p->project_dir, err)) < 0
      || (r = jset (root, "project_dir_created_at_first_login", json_boolean (p->project_dir_missing), err)) < 0
      || (r = jset_string (&j, root, "", "chdir", p->chdir, err)) < 0
      || (r = jset_string (&j, root, "", "start_dir", p->start_dir, err)) < 0
      || (r = jset_string (&j, root, "", "state", p->state, err)) < 0
      || (r = jset_string (&j, root, "", "hostname", p->hostname, err)) < 0
      || (r = jset (root, "strict", json_boolean (p->strict), err)) < 0
      || (r = jset (root, "refused", json_integer ((json_int_t) p->n_refused), err)) < 0
      || (r = jset_string (&j, root, "", "session", refusal != NULL ? "refused" : "allowed", err)) < 0
      || (r = jset_string (&j, root, "", "refusal", refusal, err)) < 0
      || (r = jset_string (&j, root, "", "seccomp", "session", err)) < 0
      || (r = jset_string (&j, root, "", "digest", digest, err)) < 0)
    return r;
  if ((r = json_landlock (&j, p, root, err)) < 0)
    return r;

  r = command_line (p, cmd, &all, &line);
  if (r < 0)
    return bwsh_error_set (err, r, NULL, 0, 0, "out of memory");
  for (size_t i = 0; r >= 0 && i < all.n; i++)
    r = jappend_string (&j, argv, "/argv", all.v[i], err);
  bwsh_argv_clear (&all);
  if (r < 0 || (r = jset_string (&j, root, "", "command_line", line, err)) < 0)
    return r;

  out = json_dumps (root, JSON_INDENT (2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
  if (out == NULL)
    return bwsh_error_set (err, -ENOMEM, NULL, 0, 0, "out of memory");
  *ret = out;
  return 0;
}

static int
append (char **buf, size_t *len, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

static int
append (char **buf, size_t *len, const char *fmt, ...)
{
  _cleanup_free_ char *s = NULL;
  va_list ap;
  char *n;
  size_t k;

  va_start (ap, fmt);
  s = bwsh_vformat (fmt, ap);
  va_end (ap);
  if (s == NULL)
    return -ENOMEM;
  k = strlen (s);
  n = realloc (*buf, *len + k + 1);
  if (n == NULL)
    return -ENOMEM;
  memcpy (n + *len, s, k + 1);
  *len += k;
  *buf = n;
  return 0;
}

/* What each mode blocks and what it does not (#14); the landlock line that
 * follows says what this kernel adds. */
static const char *
network_text (BwshNetMode m, BwshNetEngine e)
{
  switch (m)
    {
    case BWSH_NET_PRIVATE:
      if (e == BWSH_NET_ENGINE_SLIRP4NETNS)
        return "private: the sandbox's own network namespace, egress through slirp4netns (IPv4, confined "
               "with Landlock, each destination it connects or sends to checked against the host's routing "
               "when it does); the host's loopback services, every address of its interfaces, link-local ones "
               "included, its gateway mapping, its abstract unix sockets and its socket tables (/proc/net) are "
               "out of reach; outgoing connections to other hosts are not filtered";
      return "private through pasta: REFUSED, every session: bwsh cannot check the connections pasta makes on "
             "the host; set network_engine = \"slirp4netns\"";
    case BWSH_NET_NONE:
      return "none: loopback only; nothing outside the sandbox is reachable over the network";
    case BWSH_NET_SHARED:
      return "SHARED WITH THE HOST: every service on the host's loopback is reachable, and /proc/net "
             "lists the host's sockets; the host's abstract unix sockets are reachable unless Landlock "
             "scopes them (see below)";
    }
  return "?";
}

/* explain's mount table, one line a mount. */
static int
text_mounts (const BwshPlan *p, char **buf, size_t *len)
{
  int r;

  r = append (buf, len, "mounts (in the order bwrap applies them):\n");
  for (size_t i = 0; r >= 0 && i < p->n_mounts; i++)
    {
      const BwshMount *m = &p->mounts[i];
      _cleanup_free_ char *o = origin_string (&m->from);
      /* The home's entries are named by the user, from inside: a name must
       * not write into the administrator's terminal, nor forge a line. */
      _cleanup_free_ char *origin = o != NULL ? bwsh_escape_message (o) : NULL;
      _cleanup_free_ char *src = bwsh_escape_data (m->src != NULL ? m->src : "");
      _cleanup_free_ char *dest = bwsh_escape_data (m->dest);
      _cleanup_free_ char *why = bwsh_escape_message (m->reason != NULL ? m->reason : "");
      char size[48] = "";
      if (origin == NULL || src == NULL || dest == NULL || why == NULL)
        return -ENOMEM;
      if (m->kind == BWSH_MOUNT_TMPFS && m->size > 0)
        snprintf (size, sizeof size, " (size %" PRIu64 " MiB)", m->size / (1024 * 1024));
      r = append (buf, len, "  %-10s %-9s %s%s%s%s  [%s]%s%s\n", bwsh_verdict_to_string (m->verdict),
                  bwsh_mount_kind_to_string (m->kind), src, m->src ? " -> " : "", dest, size, origin,
                  m->reason ? "  " : "", why);
    }
  return r;
}

/* What the session gets: its environment, working directory, state,
 * project directory, and the plan's warnings. */
static int
text_session (const BwshPlan *p, char **buf, size_t *len)
{
  int r;

  r = append (buf, len, "environment:\n");
  for (size_t i = 0; r >= 0 && i < p->n_env; i++)
    {
      _cleanup_free_ char *esc = bwsh_escape (p->env[i], strlen (p->env[i]));
      if (esc == NULL)
        return -ENOMEM;
      r = append (buf, len, "  %s\n", esc);
    }
  if (r >= 0)
    {
      _cleanup_free_ char *dir = bwsh_escape_data (p->chdir != NULL ? p->chdir : "?");
      r = dir == NULL ? -ENOMEM
                      : append (buf, len, "working directory: %s (start_dir = \"%s\")\n", dir,
                                p->start_dir ? p->start_dir : "?");
    }
  if (r >= 0)
    r = append (buf, len, "state: %s\n",
                p->state == NULL                          ? "?"
                : strcmp (p->state, "none") == 0          ? "none (the home is read-only; only the project is writable)"
                : strcmp (p->state, "persistent") == 0    ? "persistent (in state_dir, the home's entries read-only over it)"
                                                          : "tmpfs (writable, gone at logout; the home's entries read-only over it)");
  if (r >= 0 && p->project_dir_missing)
    {
      _cleanup_free_ char *dir = bwsh_escape_data (p->project_dir);
      r = dir == NULL ? -ENOMEM
                      : append (buf, len, "project directory: %s does not exist yet; the first login creates it\n",
                                dir);
    }
  if (r >= 0 && p->diag.n > 0)
    {
      r = append (buf, len, "warnings:\n");
      for (size_t i = 0; r >= 0 && i < p->diag.n; i++)
        {
          _cleanup_free_ char *w = bwsh_escape_message (p->diag.lines[i]);
          r = w == NULL ? -ENOMEM : append (buf, len, "  %s\n", w);
        }
    }
  return r;
}

int
bwsh_explain_text (const BwshPlan *p, const BwshCommand *cmd, const char *refusal, char **ret, BwshError *err)
{
  _cleanup_free_ char *buf = NULL, *line = NULL;
  BwshArgv all = { 0 };
  BwshLandlockReport ll = { 0 };
  size_t len = 0;
  char digest[65], b1[32], b2[32], b3[32];
  int r = 0;

  r = text_mounts (p, &buf, &len);
  if (r >= 0)
    r = append (&buf, &len, "namespaces:");
  for (BwshNamespace n = 0; r >= 0 && n < _BWSH_NS_MAX; n++)
    if (p->unshare[n])
      r = append (&buf, &len, " %s%s", bwsh_namespace_info (n)->name,
                  bwsh_namespace_info (n)->if_supported ? "(if supported)" : "");
  if (r >= 0)
    r = append (&buf, &len, "; nested user namespaces %s\n", p->disable_userns ? "disabled" : "allowed");
  if (r >= 0)
    r = append (&buf, &len, "network: %s\n", network_text (p->network, p->net_engine));
  if (r >= 0 && p->record != BWSH_RECORD_OFF)
    r = append (&buf, &len,
                "record: %s: an interactive session with a terminal is recorded by %s outside the sandbox, "
                "to the journal%s; a command (ssh host CMD, scp, sftp) is not, its audit event names it\n",
                bwsh_record_mode_to_string (p->record), bwsh_tlog_rec_path (),
                p->record == BWSH_RECORD_REQUIRED ? ", or refused when it cannot be" : " when tlog-rec can run");
  if (r >= 0)
    r = append (&buf, &len, "limits: core=%s nproc=%s nofile=%s\n", limit_string (p->rlimit_core, b1, sizeof b1),
                limit_string (p->rlimit_nproc, b2, sizeof b2), limit_string (p->rlimit_nofile, b3, sizeof b3));
  if (r >= 0)
    {
      size_t unsized;
      uint64_t total = tmpfs_total (p, &unsized);
      r = append (&buf, &len, "tmpfs: at most %" PRIu64 " MiB of RAM and swap per session (%" PRIu64 " bytes)%s\n",
                  total / (1024 * 1024), total,
                  unsized > 0 ? ", plus writable tmpfs mounts without a size (half the RAM each)" : "");
    }
  if (r >= 0 && bwsh_landlock_probe (&p->landlock, &ll) >= 0)
    r = append (&buf, &len, "landlock: abi %d; abstract sockets %s; signals %s; tcp connect %s; tcp bind %s%s%s\n",
                ll.abi, ll.scoped_abstract ? "scoped" : "open", ll.scoped_signal ? "scoped" : "open",
                ll.tcp_connect ? "filtered" : "unrestricted", ll.tcp_bind ? "filtered" : "unrestricted",
                ll.missing[0] ? "; not enforced: " : "", ll.missing);
  if (r >= 0)
    r = append (&buf, &len, "seccomp: session filter (TIOCSTI, TIOCLINUX, new mount API, clone3, ...)\n");
  if (r >= 0)
    r = text_session (p, &buf, &len);
  if (r >= 0)
    {
      _cleanup_free_ char *why = bwsh_escape_message (refusal != NULL ? refusal : "");
      r = why == NULL ? -ENOMEM
                      : append (&buf, &len, "session: %s%s\n", refusal != NULL ? "refused: " : "allowed", why);
    }
  bwsh_plan_digest (p, digest);
  if (r >= 0)
    r = append (&buf, &len, "digest: %s\n", digest);
  if (r >= 0)
    r = command_line (p, cmd, &all, &line);
  bwsh_argv_clear (&all);
  if (r >= 0)
    r = append (&buf, &len, "command (bwsh passes the options with --args and binds by fd):\n  %s\n", line);
  if (r < 0)
    return bwsh_error_set (err, r, NULL, 0, 0, "out of memory");
  *ret = steal_pointer (&buf);
  return 0;
}
