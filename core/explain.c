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

#include "bwsh.h"
#include "cleanup.h"


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

int
bwsh_explain_json (const BwshPlan *p, const BwshCommand *cmd, char **ret)
{
  json_auto_t *root = json_object ();
  json_t *mounts = json_array (), *env = json_object (), *warn = json_array (), *argv = json_array ();
  json_t *limits = json_object (), *ns = json_object ();
  BwshArgv all = { 0 };
  _cleanup_free_ char *line = NULL;
  char digest[65], b1[32], b2[32], b3[32];
  BwshLandlockReport ll = { 0 };
  char *out;
  int r;

  if (root == NULL || mounts == NULL || env == NULL || warn == NULL || argv == NULL || limits == NULL
      || ns == NULL)
    {
      json_decref (mounts), json_decref (env), json_decref (warn), json_decref (argv);
      json_decref (limits), json_decref (ns);
      return -ENOMEM;
    }
  json_object_set_new (root, "format", json_integer (1));
  json_object_set_new (root, "mounts", mounts);
  json_object_set_new (root, "environment", env);
  json_object_set_new (root, "warnings", warn);
  json_object_set_new (root, "argv", argv);
  json_object_set_new (root, "limits", limits);
  json_object_set_new (root, "namespaces", ns);

  for (size_t i = 0; i < p->n_mounts; i++)
    {
      const BwshMount *m = &p->mounts[i];
      _cleanup_free_ char *origin = origin_string (&m->from);
      json_t *o = json_object ();

      if (o == NULL || origin == NULL)
        {
          json_decref (o);
          return -ENOMEM;
        }
      json_object_set_new (o, "kind", json_string (bwsh_mount_kind_to_string (m->kind)));
      json_object_set_new (o, "source", m->src ? json_string (m->src) : json_null ());
      json_object_set_new (o, "destination", json_string (m->dest));
      json_object_set_new (o, "origin", json_string (bwsh_origin_to_string (m->from.origin)));
      json_object_set_new (o, "origin_detail", json_string (origin));
      json_object_set_new (o, "file", m->from.file ? json_string (m->from.file) : json_null ());
      json_object_set_new (o, "line", json_integer (m->from.line));
      json_object_set_new (o, "verdict", json_string (bwsh_verdict_to_string (m->verdict)));
      json_object_set_new (o, "reason", m->reason ? json_string (m->reason) : json_null ());
      if (m->size > 0)
        json_object_set_new (o, "size", json_integer ((json_int_t) m->size));
      json_array_append_new (mounts, o);
    }
  for (size_t i = 0; i < p->n_env; i++)
    {
      const char *eq = strchr (p->env[i], '=');
      _cleanup_free_ char *name = strndup (p->env[i], (size_t) (eq - p->env[i]));
      if (name == NULL)
        return -ENOMEM;
      json_object_set_new (env, name, json_string (eq + 1));
    }
  for (size_t i = 0; i < p->diag.n; i++)
    json_array_append_new (warn, json_string (p->diag.lines[i]));

  json_object_set_new (ns, "user", json_true ());
  json_object_set_new (ns, "pid", json_true ());
  json_object_set_new (ns, "ipc", json_true ());
  json_object_set_new (ns, "uts", json_true ());
  json_object_set_new (ns, "cgroup", json_string ("if-supported"));
  json_object_set_new (ns, "net", json_boolean (p->unshare_net));
  json_object_set_new (ns, "nested_userns", json_false ());
  json_object_set_new (limits, "core", json_string (limit_string (p->rlimit_core, b1, sizeof b1)));
  json_object_set_new (limits, "nproc", json_string (limit_string (p->rlimit_nproc, b2, sizeof b2)));
  json_object_set_new (limits, "nofile", json_string (limit_string (p->rlimit_nofile, b3, sizeof b3)));

  json_object_set_new (root, "shell", json_string (p->shell));
  json_object_set_new (root, "home", json_string (p->home));
  json_object_set_new (root, "project_dir", json_string (p->project_dir));
  json_object_set_new (root, "chdir", json_string (p->chdir));
  json_object_set_new (root, "hostname", p->hostname ? json_string (p->hostname) : json_null ());
  json_object_set_new (root, "strict", json_boolean (p->strict));
  json_object_set_new (root, "refused", json_integer ((json_int_t) p->n_refused));
  json_object_set_new (root, "session", json_string (p->strict && p->n_refused > 0 ? "refused" : "allowed"));
  bwsh_plan_digest (p, digest);
  json_object_set_new (root, "digest", json_string (digest));

  if (p->policy != NULL && bwsh_landlock_probe (p->policy, &ll) >= 0)
    {
      json_t *l = json_object ();
      if (l == NULL)
        return -ENOMEM;
      json_object_set_new (l, "abi", json_integer (ll.abi));
      json_object_set_new (l, "abstract_unix_sockets", json_boolean (ll.scoped_abstract));
      json_object_set_new (l, "signals", json_boolean (ll.scoped_signal));
      json_object_set_new (l, "tcp_connect", json_boolean (ll.tcp_connect));
      json_object_set_new (l, "tcp_bind", json_boolean (ll.tcp_bind));
      json_object_set_new (l, "not_enforced", json_string (ll.missing));
      json_object_set_new (root, "landlock", l);
    }

  r = command_line (p, cmd, &all, &line);
  if (r < 0)
    return r;
  for (size_t i = 0; i < all.n; i++)
    json_array_append_new (argv, json_string (all.v[i]));
  bwsh_argv_clear (&all);
  json_object_set_new (root, "command_line", json_string (line));

  out = json_dumps (root, JSON_INDENT (2) | JSON_PRESERVE_ORDER);
  if (out == NULL)
    return -ENOMEM;
  *ret = out;
  return 0;
}

static int
append (char **buf, size_t *len, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

static int
append (char **buf, size_t *len, const char *fmt, ...)
{
  va_list ap;
  char *s = NULL, *n;
  int k;

  va_start (ap, fmt);
  k = vasprintf (&s, fmt, ap);
  va_end (ap);
  if (k < 0)
    return -ENOMEM;
  n = realloc (*buf, *len + (size_t) k + 1);
  if (n == NULL)
    {
      free (s);
      return -ENOMEM;
    }
  memcpy (n + *len, s, (size_t) k + 1);
  *len += (size_t) k;
  *buf = n;
  free (s);
  return 0;
}

int
bwsh_explain_text (const BwshPlan *p, const BwshCommand *cmd, char **ret)
{
  _cleanup_free_ char *buf = NULL, *line = NULL;
  BwshArgv all = { 0 };
  BwshLandlockReport ll = { 0 };
  size_t len = 0;
  char digest[65], b1[32], b2[32], b3[32];
  int r = 0;

  r = append (&buf, &len, "mounts (in the order bwrap applies them):\n");
  for (size_t i = 0; r >= 0 && i < p->n_mounts; i++)
    {
      const BwshMount *m = &p->mounts[i];
      _cleanup_free_ char *origin = origin_string (&m->from);
      if (origin == NULL)
        return -ENOMEM;
      r = append (&buf, &len, "  %-10s %-9s %s%s%s  [%s]%s%s\n", bwsh_verdict_to_string (m->verdict),
                  bwsh_mount_kind_to_string (m->kind), m->src ? m->src : "", m->src ? " -> " : "", m->dest,
                  origin, m->reason ? "  " : "", m->reason ? m->reason : "");
    }
  if (r >= 0)
    r = append (&buf, &len,
                "namespaces: user pid ipc uts cgroup(if supported)%s; nested user namespaces disabled\n",
                p->unshare_net ? " net" : "; network shared with the host");
  if (r >= 0)
    r = append (&buf, &len, "limits: core=%s nproc=%s nofile=%s\n", limit_string (p->rlimit_core, b1, sizeof b1),
                limit_string (p->rlimit_nproc, b2, sizeof b2), limit_string (p->rlimit_nofile, b3, sizeof b3));
  if (r >= 0 && p->policy != NULL && bwsh_landlock_probe (p->policy, &ll) >= 0)
    r = append (&buf, &len, "landlock: abi %d; abstract sockets %s; signals %s; tcp connect %s; tcp bind %s%s%s\n",
                ll.abi, ll.scoped_abstract ? "scoped" : "open", ll.scoped_signal ? "scoped" : "open",
                ll.tcp_connect ? "filtered" : "unrestricted", ll.tcp_bind ? "filtered" : "unrestricted",
                ll.missing[0] ? "; not enforced: " : "", ll.missing);
  if (r >= 0)
    r = append (&buf, &len, "seccomp: session filter (TIOCSTI, TIOCLINUX, new mount API, clone3, ...)\n");
  if (r >= 0)
    r = append (&buf, &len, "environment:\n");
  for (size_t i = 0; r >= 0 && i < p->n_env; i++)
    {
      _cleanup_free_ char *esc = bwsh_escape (p->env[i], strlen (p->env[i]));
      if (esc == NULL)
        return -ENOMEM;
      r = append (&buf, &len, "  %s\n", esc);
    }
  if (r >= 0)
    r = append (&buf, &len, "working directory: %s\n", p->chdir);
  if (r >= 0 && p->diag.n > 0)
    {
      r = append (&buf, &len, "warnings:\n");
      for (size_t i = 0; r >= 0 && i < p->diag.n; i++)
        r = append (&buf, &len, "  %s\n", p->diag.lines[i]);
    }
  if (r >= 0)
    r = append (&buf, &len, "session: %s\n",
                p->strict && p->n_refused > 0 ? "refused (strict policy and refused entries)" : "allowed");
  bwsh_plan_digest (p, digest);
  if (r >= 0)
    r = append (&buf, &len, "digest: %s\n", digest);
  if (r >= 0)
    r = command_line (p, cmd, &all, &line);
  bwsh_argv_clear (&all);
  if (r >= 0)
    r = append (&buf, &len, "command (bwsh passes the options with --args and binds by fd):\n  %s\n", line);
  if (r < 0)
    return r;
  *ret = steal_pointer (&buf);
  return 0;
}
