#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `ssh -tt`: an interactive login through a real pty (python's pty module):
# prompt, tty, window size and resize, job control, Ctrl-C, all in the sandbox;
# under the shipped policy (state = "persistent"), ~/notes.txt written there is
# there at the next login, kept in state_dir, never in the real home (#38).
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC2088,SC1010,SC1003,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
ssh_start main
# bwsh's policy is the shipped file as installed (pam_bwsh's
# is the suite's own: its plan only feeds the registry).
SHIPPED=$IT_PREFIX/etc/bwsh/bwsh.conf
cmp -s "$BWSH_SOURCE_DIR/conf/bwsh.conf" "$SHIPPED" || it_fail "$SHIPPED is not conf/bwsh.conf"
grep -qx 'state = "persistent";' "$SHIPPED" || it_fail "the shipped policy does not set state = \"persistent\""

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
it_assert_out_has "ok: ~/notes.txt is written (status 0)"
ssh_assert_confined

it_check "~/notes.txt written at the terminal is there at the next login, kept in the state, not the real home"
ssh_run t 'cat ~/notes.txt'
it_assert_rc 0
it_assert_eq saved-at-the-terminal "$IT_OUT" "~/notes.txt at the next login"
it_assert_eq saved-at-the-terminal "$(cat "$IT_HOME/.local/state/bwsh/notes.txt")" "the kept state's notes.txt"
it_assert_absent "$IT_HOME/notes.txt"
it_assert_eq "$IT_USER 700" "$(stat -c '%U %a' "$IT_HOME/.local/state/bwsh")" "state_dir's owner and mode"
ssh_stop
ssh_assert_no_user_processes
