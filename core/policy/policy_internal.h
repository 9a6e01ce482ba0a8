/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the policy's files share (policy.c: lifetime, defaults and the
 * settings schema; policy_value.c: one value, its place and type;
 * policy_scalar.c and policy_list.c: the settings' parsers;
 * policy_include.c: documents and @include; policy_match.c: match blocks
 * and precedence; policy_load.c: loading and trust).  Private to core/.
 */
#pragma once

#include <libconfig.h>
#include <limits.h>

#include "bind_list.h"
#include "errors.h"
#include "identity.h"
#include "policy.h"
#include "safeopen.h"

/* libconfig itself stops at 10 nested includes; stop a little earlier so the
 * error is ours, with a file and line. */
#define INCLUDE_DEPTH_MAX 8
#define INCLUDES_MAX 64
/* Drop-ins in conf.d: configuration management may add many, but not without bound. */
#define CONFD_FILES_MAX 256
#define MATCH_BLOCKS_MAX 1024
#define NAME_LEN_MAX 256
#define HOSTNAME_LEN_MAX 63
/* As bwshctl lock --reason. */
#define BWSH_LOCK_REASON_MAX 256

/* A dummy home directory, only to validate "~" templates lexically. */
#define CHECK_HOME "/home/bwsh-policy-check"

/* libconfig 1.5 counts lines with one counter across @include (it does not
 * save the line number when it switches files), so a setting in or after an
 * included file carries a "virtual" line.  scan_includes() follows the same
 * walk and records where each stretch of virtual lines came from. */
typedef struct Segment
{
  char *name;   /* the file as libconfig names it: NULL for the top buffer */
  int vstart;   /* first virtual line of the stretch */
  int rstart;   /* its real line in that file */
} Segment;

typedef struct PolicyDoc
{
  config_t cfg;
  bool cfg_ready;
  char *filename; /* the top buffer's name, for messages */
  char *dir;      /* @include confinement; NULL: no @include at all */
  Segment *segs;
  size_t n_segs, cap_segs;
  unsigned n_includes;
  int vline;      /* the scan's copy of libconfig's line counter */
  char where[PATH_MAX + 1];
} PolicyDoc;

typedef struct Ctx
{
  PolicyDoc *doc;
  BwshError *err;
} Ctx;

/* One setting of the schema (policy_root_keys in policy.c): its parser and field. */
typedef struct Key Key;
typedef int (*KeyFn) (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name,
                      const Key *k);
struct Key
{
  const char *name;
  KeyFn fn;
  size_t off;
  long long aux;   /* a minimum, or a second field's offset */
  const void *sub; /* a group's keys (const Key *); an enum setting's names (const BwshEnumName *) */
};

#define FIELD(p, off, type) ((type *) (void *) ((char *) (p) + (off)))
#define CFIELD(p, off, type) ((const type *) (const void *) ((const char *) (p) + (off)))

typedef enum
{
  SCOPE_ROOT,  /* top level of a file: "match" is handled apart */
  SCOPE_MATCH, /* a match block: "user" and "group" are its selector */
  SCOPE_GROUP, /* a settings group such as "rlimits" */
} Scope;

extern const Key policy_root_keys[];
typedef bool (*NameCheck) (const char *s);

/* policy.c (lifetime, defaults, the settings schema) */
int policy_dup (const BwshPolicy *p, BwshPolicy **ret);
int policy_apply_settings (Ctx *c, BwshPolicy *p, const config_setting_t *group, const Key *keys, const char *prefix, Scope scope);
void policy_freep (BwshPolicy **p);

/* policy_value.c (one value: where it was written, its type, a path template) */
void bwsh_policy_where (Ctx *c, const config_setting_t *s, BwshSource *ret);
int policy_fail (Ctx *c, const config_setting_t *s, int r, const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));
const char *policy_type_name (const config_setting_t *s);
bool bwsh_policy_is_int (const config_setting_t *s);
bool policy_is_vector (const config_setting_t *s);
char *bwsh_policy_escaped (const char *s);
int bwsh_policy_get_path (Ctx *c, const config_setting_t *s, const char *name, bool allow_home, bool forbid, char **ret);

/* policy_scalar.c (settings of one value; the parsers policy_root_keys names) */
int bwsh_policy_key_bool (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_shell (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_template (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_bind_template (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_enum (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_state_dir (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_size (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_lock_reason (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_hostname (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_max_mounts (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_max_sessions (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_rlimit (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);

/* policy_list.c (settings that are lists; the parsers policy_root_keys names) */
const config_setting_t *policy_located (const config_setting_t *list, const config_setting_t *e);
void policy_bind_list_clearp (BwshBindList *l);
bool policy_account_name_ok (const char *s);
int policy_get_names (Ctx *c, const config_setting_t *s, const char *name, NameCheck ok, const char *what, const char *plural, bool scalar_ok, BwshBindList *ret);
int bwsh_policy_key_paths (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_binds (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_env (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_accounts (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_services (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);
int bwsh_policy_key_ports (Ctx *c, BwshPolicy *p, const config_setting_t *s, const char *name, const Key *k);

/* policy_include.c (documents, @include, reading a file) */
char *policy_doc_locate (PolicyDoc *d, const char *name, int vline, int *ret_line);
int policy_doc_parse (PolicyDoc *d, const char *buf, BwshBindList *files, BwshError *err);
int policy_doc_new (const char *filename, const char *dir, PolicyDoc **ret);
void policy_doc_freep (PolicyDoc **d);
PolicyDoc *policy_doc_free (PolicyDoc *d);
int policy_read_file (const char *path, BwshTrustedDir *memo, char **ret_data, BwshError *err);
int policy_record_file (BwshBindList *files, const char *path);

/* policy_match.c (match blocks, precedence) */
int policy_apply_docs (PolicyDoc **docs, size_t n, BwshPolicy *p, const BwshIdentity *id, BwshError *err);
