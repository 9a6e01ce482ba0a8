#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Why the snippet and docs/ssh.md insist on the external sftp-server:
# internal-sftp is served by sshd's own process and never executes the login
# shell, so bwsh never runs.  This test keeps that reason true: if a future
# sshd ran internal-sftp through the shell, the documented rule could change.
# It then checks that the external sftp-server, the required setting, is
# confined for the same reads and writes.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC2088,SC1010,SC1003,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
it_add_user VICTIM
printf 'victim secret\n' >"$VICTIM_HOME/secret"
chmod 644 "$VICTIM_HOME/secret"

sftp_batch()
{
  IT_RC=0
  printf '%s\n' "$@" >"$IT_TMP/batch"
  timeout -k 5 60 sftp -q -F "$SSH_CFG" -b "$IT_TMP/batch" t >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}
printf 'x\n' >"$IT_TMP/x"

it_check "internal-sftp never runs the login shell: it escapes (so it must never be configured)"
ssh_start internal snippet "Subsystem sftp internal-sftp"
sftp_batch "get $VICTIM_HOME/secret $IT_TMP/stolen" "put $IT_TMP/x $IT_HOME/internal-escape"
it_assert_rc 0
it_assert_eq "victim secret" "$(cat "$IT_TMP/stolen" 2>/dev/null)" "internal-sftp read another user's home"
it_assert_exists "$IT_HOME/internal-escape"
grep -q "session opened for local user $IT_USER\|Accepted publickey for $IT_USER" "$SSHD_LOG" \
  || it_fail "sshd did not log the session"
rm -f "$IT_TMP/stolen" "$IT_HOME/internal-escape"
ssh_stop

it_check "the external sftp-server runs through bwsh and is confined"
ssh_start external snippet
ssh_mark
sftp_batch "pwd"
it_assert_rc 0
it_assert_out_has "Remote working directory: $IT_HOME"
sftp_batch "get $VICTIM_HOME/secret $IT_TMP/stolen"
[ "$IT_RC" != 0 ] || it_fail "sftp-server read another user's home"
it_assert_absent "$IT_TMP/stolen"
sftp_batch "put $IT_TMP/x $IT_HOME/.ssh/external-escape"
[ "$IT_RC" != 0 ] || it_fail "sftp-server wrote to ~/.ssh"
it_assert_absent "$IT_HOME/.ssh/external-escape"
sftp_batch "put $IT_TMP/x $IT_HOME/external-escape"
it_assert_absent "$IT_HOME/external-escape"
ssh_assert_confined
ssh_stop
ssh_assert_no_user_processes
