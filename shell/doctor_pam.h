/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bwshctl doctor's PAM-stack walker (doctor_pam.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* PAM stacks nest a few levels (@include common-session); more is a loop. */
#define PAM_DEPTH_MAX 8
#define PAM_LINE_MAX 4096

typedef struct
{
  const char *service;
  size_t order;           /* session-phase modules seen so far */
  bool bwsh;              /* pam_bwsh.so as a session module */
  size_t bwsh_pos;
  bool bwsh_account;      /* pam_bwsh.so as an account module */
  bool common_session;    /* includes common-session*: pam-auth-update reaches it */
  bool readenv;           /* pam_env.so user_readenv=1 (auth or session) */
  size_t readenv_pos;     /* 0 for auth: before every session module */
  char *readenv_at;       /* FILE:LINE, NULL when out of memory */
  bool loop;
  /* The account stack up to pam_bwsh (account_may_end()): lines counted as
   * Linux-PAM counts jumps (includes inlined; a substack's own). */
  size_t acct_n;
  size_t substack;        /* depth of substacks being walked */
  size_t acct_jump_to;    /* the furthest line a jump before pam_bwsh reaches */
  char *acct_jump_at;     /* FILE:LINE (CONTROL MODULE) of that jump */
  char *acct_end_at;      /* the first line that ends the stack, or jumps, past pam_bwsh */
} PamStack;

void pam_stack_clear (PamStack *st);
const char *module_base (const char *path);
/* Walk ROOT/etc/pam.d/NAME (an absolute NAME as is, under ROOT), following
 * @include, include and substack, into @st.  -errno when NAME cannot be read. */
int walk_pam (const char *root, PamStack *st, const char *name, const char *type_filter, int depth);
