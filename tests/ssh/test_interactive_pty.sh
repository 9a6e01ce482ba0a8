#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `ssh -tt`: an interactive login through a real pty (python's pty module):
# prompt, tty, window size and resize, job control, Ctrl-C, all in the sandbox.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC2088,SC1010,SC1003,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
ssh_start main

it_check "an interactive pty session behaves like a terminal and stays confined"
ssh_mark
IT_RC=0
timeout -k 5 120 /usr/bin/python3 "$BWSH_SOURCE_DIR/tests/ssh/pty_session.py" "$SSH_CFG" "$IT_HOME" \
  >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
printf '%s\n' "$IT_OUT" >&2
it_assert_rc 0
it_assert_out_lacks "FAIL:"
it_assert_out_has "ok: a window resize reaches the shell"
ssh_assert_confined
ssh_stop
ssh_assert_no_user_processes
