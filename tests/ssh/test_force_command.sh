#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ForceCommand mode, for accounts whose login shell cannot be changed (a
# directory's, say): `ForceCommand /path/to/bwsh`.  sshd runs
# `$SHELL -c /path/to/bwsh` through the account's own shell, with the
# client's command in SSH_ORIGINAL_COMMAND; bwsh runs that, or an interactive
# login shell, inside the sandbox.  Subsystems go the same way, so even a
# server-wide internal-sftp cannot bypass it.  The last check proves the
# documented limit: the outer shell and its startup files run on the host.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC2088,SC1010,SC1003,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
usermod -s /bin/bash "$IT_USER" >/dev/null
# The account's shell is not bwsh, so pam_bwsh's require_shell must be off for it.
printf 'subjects = { users = [ "%s" ]; };\nrequire_shell = false;\n' "$IT_USER" >"$SSH_POLICY"
it_add_user VICTIM
printf 'victim secret\n' >"$VICTIM_HOME/secret"
chmod 644 "$VICTIM_HOME/secret"
SSH_TAIL=("Match User $IT_USER" "	ForceCommand $IT_BWSH")
ssh_start forced snippet

it_check "the client's command runs in the sandbox, with bash's quoting and its exit status"
ssh_mark
ssh_run t "$SSH_PROBE; x='a  b'; printf '<%s>' \$x \"\$x\"; echo; touch ~/.ssh/escape 2>/dev/null || echo ro; exit 42"
it_assert_rc 42
it_assert_eq "bwrap
<a><b><a  b>
ro" "$IT_OUT" "forced command output"
it_assert_absent "$IT_HOME/.ssh/escape"

it_check "stdin and stdout stay binary-clean"
head -c $((2 * 1024 * 1024)) /dev/urandom >"$IT_TMP/blob"
want=$(sha256sum <"$IT_TMP/blob" | cut -d' ' -f1)
got=$(timeout 60 ssh -F "$SSH_CFG" t cat <"$IT_TMP/blob" | sha256sum | cut -d' ' -f1)
it_assert_eq "$want" "$got" "sha256 through the forced bwsh"

it_check "an interactive session is a sandboxed login shell"
IT_RC=0
timeout -k 5 120 /usr/bin/python3 "$BWSH_SOURCE_DIR/tests/ssh/pty_session.py" "$SSH_CFG" "$IT_HOME" \
  >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
it_assert_out_lacks "FAIL:"
it_assert_out_has "ok: the interactive session is the sandbox"

it_check "sftp (the external server, via SSH_ORIGINAL_COMMAND) is confined"
printf 'pwd\nget %s %s\n' "$VICTIM_HOME/secret" "$IT_TMP/stolen" >"$IT_TMP/batch"
IT_RC=0
timeout -k 5 60 sftp -q -F "$SSH_CFG" -b "$IT_TMP/batch" t >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_out_has "Remote working directory: $IT_HOME"
it_assert_absent "$IT_TMP/stolen"
ssh_assert_confined
ssh_stop

it_check "with a server-wide internal-sftp, the forced bwsh still wins: no unconfined sftp"
ssh_start forced-internal snippet "Subsystem sftp internal-sftp"
ssh_mark
printf 'get %s %s\n' "$VICTIM_HOME/secret" "$IT_TMP/stolen" >"$IT_TMP/batch"
IT_RC=0
timeout -k 5 60 sftp -q -F "$SSH_CFG" -b "$IT_TMP/batch" t >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
[ "$IT_RC" != 0 ] || it_fail "sftp worked through internal-sftp under ForceCommand"
it_assert_absent "$IT_TMP/stolen"
ssh_assert_confined

it_check "(limit) the outer shell's startup files run on the host, before bwsh"
# Debian's bash sources ~/.bashrc when sshd starts it, even for -c.
printf 'touch /tmp/bwsh-outer-%s\n' "$IT_USER" >"$IT_HOME/.bashrc"
chown "$IT_USER:" "$IT_HOME/.bashrc"
ssh_run t "$SSH_PROBE"
it_assert_eq bwrap "$IT_OUT" "the command itself"
it_assert_exists "/tmp/bwsh-outer-$IT_USER"
rm -f "/tmp/bwsh-outer-$IT_USER" "$IT_HOME/.bashrc"
ssh_stop
ssh_assert_no_user_processes
