/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A digest of the plan, so that the audit record written by pam_bwsh at
 * session open and the plan bwsh later runs can be compared.  SHA-256 as
 * specified in FIPS 180-4; written here to keep the core free of a crypto
 * library for one hash.
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "digest.h"
#include "format.h"
#include "plan.h"
#include "render.h"

typedef struct
{
  uint32_t h[8];
  uint64_t len;
  unsigned char buf[64];
  size_t n;
} Sha256;

static const uint32_t K[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t
ror (uint32_t x, unsigned n)
{
  return (x >> n) | (x << (32 - n));
}

/* One round with the eight working variables named in place, so that no
 * round moves them: the compiler keeps them in registers (#37). */
#define SHA256_ROUND(a, b, c, d, e, f, g, h, i)                                                    \
  do                                                                                               \
    {                                                                                              \
      uint32_t t1 = h + (ror (e, 6) ^ ror (e, 11) ^ ror (e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]; \
      uint32_t t2 = (ror (a, 2) ^ ror (a, 13) ^ ror (a, 22)) + ((a & b) ^ (a & c) ^ (b & c));     \
      d += t1;                                                                                     \
      h = t1 + t2;                                                                                 \
    }                                                                                              \
  while (0)

static void
sha256_block (Sha256 *s, const unsigned char *b)
{
  uint32_t w[64], a, bb, c, d, e, f, g, h;

  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t) b[4 * i] << 24 | (uint32_t) b[4 * i + 1] << 16 | (uint32_t) b[4 * i + 2] << 8
           | (uint32_t) b[4 * i + 3];
  for (int i = 16; i < 64; i++)
    {
      uint32_t s0 = ror (w[i - 15], 7) ^ ror (w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = ror (w[i - 2], 17) ^ ror (w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
  a = s->h[0], bb = s->h[1], c = s->h[2], d = s->h[3];
  e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
  for (int i = 0; i < 64; i += 8)
    {
      SHA256_ROUND (a, bb, c, d, e, f, g, h, i);
      SHA256_ROUND (h, a, bb, c, d, e, f, g, i + 1);
      SHA256_ROUND (g, h, a, bb, c, d, e, f, i + 2);
      SHA256_ROUND (f, g, h, a, bb, c, d, e, i + 3);
      SHA256_ROUND (e, f, g, h, a, bb, c, d, i + 4);
      SHA256_ROUND (d, e, f, g, h, a, bb, c, i + 5);
      SHA256_ROUND (c, d, e, f, g, h, a, bb, i + 6);
      SHA256_ROUND (bb, c, d, e, f, g, h, a, i + 7);
    }
  s->h[0] += a, s->h[1] += bb, s->h[2] += c, s->h[3] += d;
  s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

static void
sha256_init (Sha256 *s)
{
  static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
  memcpy (s->h, iv, sizeof iv);
  s->len = 0;
  s->n = 0;
}

static void
sha256_update (Sha256 *s, const void *data, size_t len)
{
  const unsigned char *p = data;

  s->len += len;
  while (len > 0)
    {
      if (s->n == 0 && len >= 64)
        {
          sha256_block (s, p);
          p += 64;
          len -= 64;
          continue;
        }
      size_t k = 64 - s->n < len ? 64 - s->n : len;
      memcpy (s->buf + s->n, p, k);
      s->n += k;
      p += k;
      len -= k;
      if (s->n == 64)
        {
          sha256_block (s, s->buf);
          s->n = 0;
        }
    }
}

static void
sha256_final (Sha256 *s, unsigned char out[32])
{
  uint64_t bits = s->len * 8;

  /* 0x80, zeros up to 56 bytes in the block (in a second block when
   * fewer than 9 bytes are left), the length in bits, big-endian. */
  s->buf[s->n++] = 0x80;
  if (s->n > 56)
    {
      memset (s->buf + s->n, 0, 64 - s->n);
      sha256_block (s, s->buf);
      s->n = 0;
    }
  memset (s->buf + s->n, 0, 56 - s->n);
  for (int i = 0; i < 8; i++)
    s->buf[56 + i] = (unsigned char) (bits >> (56 - 8 * i));
  sha256_block (s, s->buf);
  for (int i = 0; i < 8; i++)
    {
      out[4 * i] = (unsigned char) (s->h[i] >> 24);
      out[4 * i + 1] = (unsigned char) (s->h[i] >> 16);
      out[4 * i + 2] = (unsigned char) (s->h[i] >> 8);
      out[4 * i + 3] = (unsigned char) s->h[i];
    }
}

/* Each field NUL-terminated, so "a","bc" and "ab","c" differ. */
static void
field (Sha256 *s, const char *v)
{
  sha256_update (s, v != NULL ? v : "", v != NULL ? strlen (v) + 1 : 1);
}

static void
to_hex (const unsigned char out[32], char ret_hex[65])
{
  static const char digits[] = "0123456789abcdef";

  for (int i = 0; i < 32; i++)
    {
      ret_hex[2 * i] = digits[out[i] >> 4];
      ret_hex[2 * i + 1] = digits[out[i] & 0xf];
    }
  ret_hex[64] = '\0';
}

void
bwsh_sha256_hex (const void *data, size_t len, char ret_hex[65])
{
  Sha256 s;
  unsigned char out[32];

  sha256_init (&s);
  sha256_update (&s, data, len);
  sha256_final (&s, out);
  to_hex (out, ret_hex);
}

/* ------------------------------------------------ the plan's fields */

/* Why a field is not in the digest or not in explain: each reason once. */
#define PASS_THROUGH                                                                               \
  "the caller's pass-through variables are left out of the digest: pam_bwsh computes it before sshd " \
  "sets SSH_TTY, and the same plan must give the same digest in bwsh"
#define RUN_TIME "run time: an allocation or a descriptor, not what the sandbox does"
#define DIAGNOSTIC "a diagnostic: explain shows it, it changes nothing the sandbox does"
#define RESOLUTION_INPUT "an input of resolution: what it decides is in the mounts' verdicts"
#define IN_MOUNTS "what it does is in the mounts (their sources, sizes and verdicts)"
#define NOT_SHOWN "explain does not show it"

#define ROW(f, kind, digest, explain, left_out)                                                   \
  { #f, offsetof (BwshPlan, f), sizeof (((BwshPlan *) NULL)->f), BWSH_PLAN_FIELD_##kind, digest,  \
    explain, left_out }

const BwshPlanField bwsh_plan_fields[] = {
  ROW (mounts, MOUNTS, true, "mounts", NULL),
  ROW (n_mounts, LENGTH, true, "mounts", NULL),
  ROW (cap_mounts, OTHER, false, NULL, RUN_TIME),
  ROW (env, ENV, true, "environment", PASS_THROUGH),
  ROW (n_env, LENGTH, true, "environment", NULL),
  ROW (chdir, STRING, true, "chdir", NULL),
  ROW (hostname, STRING, true, "hostname", NULL),
  ROW (shell, STRING, true, "shell", NULL),
  ROW (home, OTHER, false, "home", IN_MOUNTS " and HOME"),
  ROW (project_dir, OTHER, false, "project_dir", IN_MOUNTS " and the working directory"),
  ROW (project_dir_missing, OTHER, false, "project_dir_created_at_first_login", DIAGNOSTIC),
  ROW (project_dir_chosen, OTHER, false, NULL, DIAGNOSTIC " (the overlay chose the project); " NOT_SHOWN),
  ROW (default_project_dir, OTHER, false, NULL, RESOLUTION_INPUT " (the fallback when the chosen one fails); " NOT_SHOWN),
  ROW (users_choose_project_dir, OTHER, false, NULL, RESOLUTION_INPUT "; " NOT_SHOWN),
  ROW (unshare, NAMESPACES, true, "namespaces", NULL),
  ROW (disable_userns, BOOL, true, "namespaces", NULL),
  ROW (network, INT, true, "network", NULL),
  ROW (net_engine, INT, true, "network_engine", NULL),
  ROW (record, INT, true, "record", NULL),
  ROW (term_fallback, OTHER, false, NULL, "what it does is the environment's TERM; " NOT_SHOWN),
  ROW (landlock, LANDLOCK, true, "landlock", NULL),
  ROW (seccomp, INT, true, "seccomp", NULL),
  ROW (root_tmpfs_size, U64, true, "mounts", NULL),
  ROW (tmp_tmpfs_size, U64, true, "mounts", NULL),
  ROW (start_dir, OTHER, false, "start_dir", "what it does is the working directory (chdir)"),
  ROW (state, OTHER, false, "state", IN_MOUNTS),
  ROW (home_read_only, BOOL, true, NULL, NOT_SHOWN " (a file transfer gets the home read-only at its top)"),
  ROW (home_oldest, OTHER, false, NULL, RESOLUTION_INPUT " (the live sessions' home epoch); " NOT_SHOWN),
  ROW (home_epoch, OTHER, false, NULL, "what the registry entry keeps for later logins; " NOT_SHOWN),
  ROW (rlimit_core, I64, true, "limits", NULL),
  ROW (rlimit_nproc, I64, true, "limits", NULL),
  ROW (rlimit_nofile, I64, true, "limits", NULL),
  ROW (n_refused, OTHER, false, "refused", DIAGNOSTIC),
  ROW (strict, BOOL, true, "strict", NULL),
  ROW (max_mounts, OTHER, false, NULL, RESOLUTION_INPUT "; " NOT_SHOWN),
  ROW (rw_ceilings, OTHER, false, NULL, RESOLUTION_INPUT "; " NOT_SHOWN),
  ROW (n_rw_ceilings, OTHER, false, NULL, RESOLUTION_INPUT "; " NOT_SHOWN),
  ROW (ro_ceilings, OTHER, false, NULL, RESOLUTION_INPUT "; " NOT_SHOWN),
  ROW (n_ro_ceilings, OTHER, false, NULL, RESOLUTION_INPUT "; " NOT_SHOWN),
  ROW (protected_paths, OTHER, false, NULL, RESOLUTION_INPUT "; " NOT_SHOWN),
  ROW (n_protected, OTHER, false, NULL, RESOLUTION_INPUT "; " NOT_SHOWN),
  ROW (policy_dirs, OTHER, false, NULL, RESOLUTION_INPUT "; " NOT_SHOWN),
  ROW (n_policy_dirs, OTHER, false, NULL, RESOLUTION_INPUT "; " NOT_SHOWN),
  ROW (shell_file, OTHER, false, NULL, DIAGNOSTIC " (the missing shell's error)"),
  ROW (shell_line, OTHER, false, NULL, DIAGNOSTIC " (the missing shell's error)"),
  ROW (diag, OTHER, false, "warnings", DIAGNOSTIC),
  ROW (uid, OTHER, false, NULL, RESOLUTION_INPUT " (a persistent state directory must be the user's); " NOT_SHOWN),
};

const size_t bwsh_plan_fields_n = sizeof bwsh_plan_fields / sizeof bwsh_plan_fields[0];

static void
landlock_fields (Sha256 *s, const BwshLandlockRequest *ll)
{
  char num[64];

  snprintf (num, sizeof num, "landlock %d %d %d %d %d", (int) ll->mode, ll->scope_abstract_unix, ll->scope_signal,
            ll->tcp_connect_set, ll->tcp_bind_set);
  field (s, num);
  for (size_t i = 0; i < ll->tcp_connect.n; i++)
    field (s, ll->tcp_connect.items[i].src);
  field (s, "tcp_bind");
  for (size_t i = 0; i < ll->tcp_bind.n; i++)
    field (s, ll->tcp_bind.items[i].src);
}

typedef const char *CString;

#define AT(p, f, type) ((const type *) (const void *) ((const char *) (p) + (f)->offset))

static void
plan_field (Sha256 *s, const BwshPlan *p, const BwshPlanField *f)
{
  char num[24];
  const char *v;

  field (s, f->name);
  switch (f->kind)
    {
    case BWSH_PLAN_FIELD_STRING:
      field (s, *AT (p, f, CString));
      return;
    case BWSH_PLAN_FIELD_BOOL:
      field (s, *AT (p, f, bool) ? "1" : "0");
      return;
    case BWSH_PLAN_FIELD_INT:
      v = bwsh_format_i64 (num, *AT (p, f, int));
      break;
    case BWSH_PLAN_FIELD_UNSIGNED:
      v = bwsh_format_u64 (num, *AT (p, f, unsigned));
      break;
    case BWSH_PLAN_FIELD_U64:
      v = bwsh_format_u64 (num, *AT (p, f, uint64_t));
      break;
    case BWSH_PLAN_FIELD_I64:
      v = bwsh_format_i64 (num, *AT (p, f, int64_t));
      break;
    case BWSH_PLAN_FIELD_MOUNTS:
      for (size_t i = 0; i < p->n_mounts; i++)
        {
          const BwshMount *m = &p->mounts[i];
          field (s, bwsh_mount_kind_to_string (m->kind));
          field (s, bwsh_verdict_to_string (m->verdict));
          field (s, m->src);
          field (s, m->dest);
          field (s, bwsh_format_u64 (num, m->size));
        }
      return;
    case BWSH_PLAN_FIELD_ENV:
      for (size_t i = 0; i < p->n_env; i++)
        if (bwsh_env_is_session_variable (p->env[i]))
          field (s, p->env[i]);
      return;
    case BWSH_PLAN_FIELD_NAMESPACES:
      for (BwshNamespace ns = 0; ns < _BWSH_NS_MAX; ns++)
        field (s, p->unshare[ns] ? bwsh_namespace_info (ns)->name : "-");
      return;
    case BWSH_PLAN_FIELD_LANDLOCK:
      landlock_fields (s, &p->landlock);
      return;
    case BWSH_PLAN_FIELD_LENGTH:
    case BWSH_PLAN_FIELD_OTHER:
    default:
      return;
    }
  field (s, v);
}

/* Each row of bwsh_plan_fields the digest covers, by its name and value. */
void
bwsh_plan_digest (const BwshPlan *p, char ret_hex[65])
{
  Sha256 s;
  unsigned char out[32];

  sha256_init (&s);
  field (&s, "bwsh-plan-3");
  for (size_t i = 0; i < bwsh_plan_fields_n; i++)
    if (bwsh_plan_fields[i].digest)
      plan_field (&s, p, &bwsh_plan_fields[i]);
  sha256_final (&s, out);
  to_hex (out, ret_hex);
}
