#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A refusal reaches every client (#25 item 7): through a real sshd, a locked
# subject's ssh command, scp, sftp and rsync each show pam_bwsh's one line
# "bwsh: sessions of USER are locked: REASON" on the client's stderr (sshd
# sends what the account stage says as a banner), nothing on stdout, no
# motd, no "Last login"; and sftp does not read it as a protocol message
# ("Received message too long 1651995496", the bytes "bwsh").  The same
# for max_sessions, a strict policy's refusal and a policy that cannot be
# used; ssh exits 255, as for any refused login (bwsh(1), EXIT STATUS).
# The clients run with their default LogLevel (INFO): -q or LogLevel ERROR
# hides banners, and so the reason, as for any banner.
# shellcheck disable=SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
BWSHCTL=$IT_PREFIX/bin/bwshctl
LOCKS=$IT_PREFIX/var/lib/bwsh/locks
it_defer rm -f "$LOCKS/user:$IT_USER"
cp "$SSH_POLICY" "$IT_TMP/policy.base"
ssh_start main "snippet" "PrintMotd no" "PrintLastLog yes"
echo "bwsh-test-motd-$$" >"$IT_TMP/motd"
ssh_in_ns mount --bind "$IT_TMP/motd" /etc/motd 2>/dev/null || true
CL=(-F "$SSH_CFG" -o LogLevel=INFO)
REASON="bwsh: sessions of $IT_USER are locked: ticket 4711"

client()
{
  IT_RC=0
  timeout -k 5 60 "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

assert_refused_on_stderr()
{
  local want=$1
  [ "$IT_RC" != 0 ] || it_fail "the client exited 0"
  it_assert_err_has "$want"
  it_assert_out_lacks "bwsh"
  it_assert_err_lacks "Received message too long"
  it_assert_err_lacks "bwsh-test-motd"
  it_assert_out_lacks "bwsh-test-motd"
  it_assert_err_lacks "Last login"
  it_assert_out_lacks "Last login"
}

it_check "a session works before the lock (the stack is sound)"
client ssh "${CL[@]}" t 'echo inside'
it_assert_rc 0
it_assert_out_has inside

"$BWSHCTL" lock --policy "$SSH_POLICY" "$IT_USER" --reason "ticket 4711" >/dev/null || it_fail "bwshctl lock failed"

it_check "ssh COMMAND: the reason on stderr, no motd, no Last login"
client ssh "${CL[@]}" t 'echo inside'
assert_refused_on_stderr "$REASON"
it_assert_out_lacks inside
it_assert_rc 255

it_check "scp: the reason on stderr"
echo data >"$IT_TMP/f.txt"
client scp "${CL[@]}" "$IT_TMP/f.txt" t:project/
assert_refused_on_stderr "$REASON"
client scp -O "${CL[@]}" "$IT_TMP/f.txt" t:project/
assert_refused_on_stderr "$REASON"

it_check "sftp: the reason on stderr, not read as a protocol message"
printf 'put %s project/\n' "$IT_TMP/f.txt" >"$IT_TMP/batch"
client sftp "${CL[@]}" -b "$IT_TMP/batch" t
assert_refused_on_stderr "$REASON"

if command -v rsync >/dev/null; then
  it_check "rsync: the reason on stderr"
  client rsync -e "ssh ${CL[*]}" "$IT_TMP/f.txt" t:project/
  assert_refused_on_stderr "$REASON"
fi
it_assert_absent "$IT_HOME/project/f.txt"

"$BWSHCTL" unlock "$IT_USER" >/dev/null || it_fail "bwshctl unlock failed"

it_check "max_sessions: the reason on stderr of the login over the limit"
printf 'max_sessions = 1;\n' >>"$SSH_POLICY"
ssh_hold first 30 || exit 1
holder=$SSH_HOLD_PID
client sftp "${CL[@]}" -b "$IT_TMP/batch" t
assert_refused_on_stderr "bwsh: $IT_USER has 1 sessions open, at most 1 are allowed (max_sessions)"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null || true

it_check "a strict policy's refusal: on stderr, exit 255, nothing run"
{ cat "$IT_TMP/policy.base"; printf 'strict = true;\n'; } >"$SSH_POLICY"
it_user_config '{"preferences":{"sandboxBwrapMounts":{"additionalROBinds":["/proc/1"]}}}'
client ssh "${CL[@]}" t 'echo inside'
it_assert_rc 255
it_assert_out_lacks inside
assert_refused_on_stderr "strict policy: 1 configuration entry was refused"
grep -q '^bwsh: .*strict policy: 1 configuration entry was refused$' <<<"$IT_ERR" || it_fail "not one bwsh: line"

it_check "a policy that cannot be used: on stderr, exit 255"
# With no last good copy (core/session/lkg.h): the last clean policy, strict,
# would decide instead, and refuse with its own reason.
ssh_lkg_remove
printf 'max_sessions = ;\n' >"$SSH_POLICY"
client sftp "${CL[@]}" -b "$IT_TMP/batch" t
# The subject hears one line; the file and line are the administrator's (#38).
assert_refused_on_stderr "bwsh: the sandbox policy cannot be used (the administrator has the details); no last good policy: refused"
it_assert_err_lacks "$SSH_POLICY"
rm -f "$IT_HOME/.config/bwsh/config.json"

# Overlay warnings (#25 item 10): at a login and on an ssh command, not
# repeated on the client's stderr at every scp, sftp and rsync.
it_check "an overlay warning: on an ssh command, not on scp, sftp or rsync"
cat "$IT_TMP/policy.base" >"$SSH_POLICY"
it_user_config '{"preferences":{"sandboxBwrapMounts":{"additionalROBinds":["/sys"]}}}'
client ssh "${CL[@]}" t 'echo inside'
it_assert_rc 0
it_assert_err_has "bwsh: warning: "
client scp "${CL[@]}" "$IT_TMP/f.txt" t:project/
it_assert_rc 0
it_assert_err_lacks "bwsh: warning"
client sftp "${CL[@]}" -b "$IT_TMP/batch" t
it_assert_rc 0
it_assert_err_lacks "bwsh: warning"
if command -v rsync >/dev/null; then
  client rsync -e "ssh ${CL[*]}" "$IT_TMP/f.txt" t:project/g.txt
  it_assert_rc 0
  it_assert_err_lacks "bwsh: warning"
fi
