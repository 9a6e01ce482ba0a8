#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Blast radius of a bad policy (issue 25 item 1): a syntax error pushed to a
# drop-in must not lock anyone out.
#   - a clean login keeps the policy as the last good copy (root's, 0644,
#     under the prefix's var/lib/bwsh/last-good);
#   - with `max_sessions = ;` in conf.d: root (su -) and a non-subject whose
#     shell is bash (su -) log in; the subject is still sandboxed (ssh and su),
#     decided by the last good policy; the journal has one crit event naming
#     the file and the line, for all the logins under that broken version
#     (#38), and the subject hears one line without the file;
#   - without a last good copy: the subject (shell bwsh) is refused with one
#     line, the refusal event has the error; the non-subject still logs in;
#     bwsh alone (no pam_bwsh) tells the subject one line without the file,
#     exits 78 and runs nothing; root running it hears the file and line.
# shellcheck disable=SC2016,SC1091,SC2153
. "$(dirname "$0")/lib.sh"
ssh_prepare
journal_start
ssh_start main
it_add_user OTHER
usermod -s /bin/bash "$OTHER" || { it_fail "usermod failed"; exit 1; }
MSG_POLICY=ec5cea47bc7145fd89357aa8b5c72d2f
CONFD=$(dirname "$SSH_POLICY")/conf.d
mkdir -p "$CONFD"
KEY=$(ssh_lkg_key)
LKG=$IT_PREFIX/var/lib/bwsh/last-good
it_defer ssh_lkg_remove

it_check "a clean login keeps the policy as the last good copy"
ssh_run t "$SSH_PROBE"
it_assert_rc 0
it_assert_eq bwrap "$IT_OUT"
[ -L "$LKG/$KEY" ] || it_fail "no last good copy at $LKG/$KEY"
it_assert_eq "$(cat "$SSH_POLICY")" "$(cat "$LKG/$KEY/policy.conf")" "the copy"
it_assert_eq "root 644" "$(stat -c '%U %a' "$LKG/$KEY/policy.conf")" "the copy's owner and mode"

it_check "a syntax error in a drop-in: root and a non-subject log in"
printf 'max_sessions = ;\n' >"$CONFD/70-broken.conf"
chmod 644 "$CONFD/70-broken.conf"
in_jns su - root -c 'echo root in; cat /proc/1/comm'
it_assert_rc 0
it_assert_eq "root in
$(cat /proc/1/comm)" "$IT_OUT" "root's su -"
in_jns su - "$OTHER" -c 'echo other in'
it_assert_rc 0
it_assert_eq "other in" "$IT_OUT" "the non-subject's su -"

it_check "the subject of the last good policy is still sandboxed (ssh and su)"
ssh_mark
ssh_run t "$SSH_PROBE"
it_assert_rc 0
it_assert_eq bwrap "$IT_OUT"
in_jns su - "$IT_USER" -c "$SSH_PROBE"
it_assert_rc 0
it_assert_eq bwrap "$IT_OUT"
ssh_assert_confined

it_check "10 logins under one broken drop-in (root, the non-subject, the subject 8 times) all go through"
# (bwsh here reads the suite's own policy, not pam_bwsh's: the subject's
# line from bwsh is not what this test sees; pam_bwsh's refusal below is.)
for _ in 1 2 3 4 5 6; do
  in_jns su - "$IT_USER" -c "$SSH_PROBE"
  it_assert_rc 0
  it_assert_eq bwrap "$IT_OUT"
done

it_check "... and one crit event, root's, naming the file and the line"
journal_wait_for 1 "MESSAGE_ID=$MSG_POLICY" "BWSH_POLICY_FILE=$CONFD/70-broken.conf" || exit 1
ev=$(journal_json "MESSAGE_ID=$MSG_POLICY" "BWSH_POLICY_FILE=$CONFD/70-broken.conf" | tail -n 1)
it_assert_eq 2 "$(journal_field "$ev" PRIORITY)" "PRIORITY (crit)"
it_assert_eq 0 "$(journal_field "$ev" _UID)" "_UID (pam_bwsh's)"
it_assert_eq 1 "$(journal_field "$ev" BWSH_POLICY_LINE)" BWSH_POLICY_LINE
# root's su - was the first login under it: the policy left root alone.
it_assert_eq root "$(journal_field "$ev" BWSH_USER)" BWSH_USER
it_assert_eq ignored "$(journal_field "$ev" BWSH_OUTCOME)" BWSH_OUTCOME
grep -qF "$CONFD/70-broken.conf:1: " <<<"$(journal_field "$ev" MESSAGE)" \
  || it_fail "MESSAGE: $(journal_field "$ev" MESSAGE)"
it_assert_eq 1 "$(journal_json "MESSAGE_ID=$MSG_POLICY" | grep -c "$CONFD/70-broken.conf")" \
  "policy events for the broken version, after 10 logins"

it_check "no last good copy: the subject (shell bwsh) is refused with the error, the non-subject logs in"
ssh_lkg_remove
# pam_bwsh's account stage refuses; sshd sends its line as a banner, which
# the client prints at its default LogLevel (INFO).
ssh_run -o LogLevel=INFO t "$SSH_PROBE"
it_assert_rc 255
it_assert_out_lacks bwrap
it_assert_err_has "bwsh: the sandbox policy cannot be used (the administrator has the details); no last good policy: refused"
it_assert_err_lacks "$CONFD"
in_jns su - "$OTHER" -c 'echo other in'
it_assert_rc 0
it_assert_eq "other in" "$IT_OUT" "the non-subject's su -"
# The broken version was reported; the refusal has its own event, with the error.
journal_wait_for 1 "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" || exit 1
ev=$(journal_json "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" | tail -n 1)
grep -qF "$CONFD/70-broken.conf:1: " <<<"$(journal_field "$ev" BWSH_REASON)" \
  || it_fail "BWSH_REASON of the refusal: $(journal_field "$ev" BWSH_REASON)"

it_check "no last good copy, bwsh without pam_bwsh: the subject hears one line without the file, 78, nothing ran"
# bwsh reads the prefix's policy: a broken one is bound over it, and an empty
# last-good directory over the prefix's, in a private mount namespace below
# journald's (so the refusal event lands in this journal).
PREFIX_POLICY=$IT_PREFIX/etc/bwsh/bwsh.conf
MARK=$IT_HOME/project/ran-unsandboxed
printf 'max_sessions = ;\n' >"$IT_TMP/broken.conf"
chmod 644 "$IT_TMP/broken.conf"
mkdir -p "$IT_TMP/no-lkg" "$LKG"
bwsh_broken()
{
  IT_RC=0
  # shellcheck disable=SC2016
  timeout -k 5 60 nsenter -t "$JOURNALD_PID" -m -- unshare -m --propagation private -- /bin/sh -c '
    mount --bind "$1" "$2" && mount --bind "$3" "$4" || exit 1
    shift 4; exec "$@"' sh "$IT_TMP/broken.conf" "$PREFIX_POLICY" "$IT_TMP/no-lkg" "$LKG" "$@" \
    </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}
ssh_mark
bwsh_broken setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups "$IT_BWSH" -c "touch $MARK"
it_assert_rc 78
it_assert_eq "bwsh: the sandbox policy cannot be used (the administrator has the details); no last good policy: refused" \
  "$IT_ERR" "the subject's stderr"
it_assert_eq "" "$IT_OUT" "stdout"
it_assert_absent "$MARK"
ssh_assert_confined
journal_wait_for 1 "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" "_UID=$IT_UID" || exit 1
ev=$(journal_json "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" "_UID=$IT_UID" | tail -n 1)
grep -qF "$PREFIX_POLICY:1: " <<<"$(journal_field "$ev" BWSH_REASON)" \
  || it_fail "BWSH_REASON of bwsh's refusal: $(journal_field "$ev" BWSH_REASON)"

it_check "... root running bwsh is told the file and the line"
bwsh_broken "$IT_BWSH" -c "touch $MARK"
it_assert_rc 78
grep -q "^bwsh: the sandbox policy cannot be used: $PREFIX_POLICY:1: " <<<"$IT_ERR" || it_fail "root's line: $IT_ERR"
it_assert_absent "$MARK"

it_check "the fixed policy is kept again at the next clean login"
rm -f "$CONFD/70-broken.conf"
# The marks of this test's broken versions (they name its file).
grep -lF "$CONFD/" /run/bwsh/policy-errors/* 2>/dev/null | xargs -r rm -f
nsenter -t "$JOURNALD_PID" -m -- sh -c 'grep -lF "$1/" /run/bwsh/policy-errors/* 2>/dev/null | xargs -r rm -f' sh "$CONFD"
ssh_run t "$SSH_PROBE"
it_assert_rc 0
it_assert_eq bwrap "$IT_OUT"
[ -L "$LKG/$KEY" ] || it_fail "no last good copy after the fix"
ssh_assert_no_user_processes
