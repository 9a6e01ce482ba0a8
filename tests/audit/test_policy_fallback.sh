#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Blast radius of a bad policy (issue 25 item 1): a syntax error pushed to a
# drop-in must not lock anyone out.
#   - a clean login keeps the policy as the last good copy (root's, 0644,
#     under the prefix's var/lib/bwsh/last-good);
#   - with `max_sessions = ;` in conf.d: root (su -) and a non-subject whose
#     shell is bash (su -) log in; the subject is still sandboxed (ssh and su),
#     decided by the last good policy; the journal has a crit event naming the
#     file and the line;
#   - without a last good copy: the subject (shell bwsh) is refused with the
#     error, the non-subject still logs in.
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

it_check "the journal has a crit event naming the file and the line"
journal_wait_for 1 "MESSAGE_ID=$MSG_POLICY" "BWSH_USER=$IT_USER" || exit 1
ev=$(journal_json "MESSAGE_ID=$MSG_POLICY" "BWSH_USER=$IT_USER" | tail -n 1)
it_assert_eq 2 "$(journal_field "$ev" PRIORITY)" "PRIORITY (crit)"
it_assert_eq "$CONFD/70-broken.conf" "$(journal_field "$ev" BWSH_POLICY_FILE)" BWSH_POLICY_FILE
it_assert_eq 1 "$(journal_field "$ev" BWSH_POLICY_LINE)" BWSH_POLICY_LINE
it_assert_eq last-good "$(journal_field "$ev" BWSH_OUTCOME)" BWSH_OUTCOME
grep -qF "$CONFD/70-broken.conf:1: " <<<"$(journal_field "$ev" MESSAGE)" \
  || it_fail "MESSAGE: $(journal_field "$ev" MESSAGE)"
journal_wait_for 1 "MESSAGE_ID=$MSG_POLICY" BWSH_USER=root BWSH_OUTCOME=ignored || exit 1
# The last good policy decided the non-subject too: it is none of its subjects.
journal_wait_for 1 "MESSAGE_ID=$MSG_POLICY" "BWSH_USER=$OTHER" BWSH_OUTCOME=last-good || exit 1

it_check "no last good copy: the subject (shell bwsh) is refused with the error, the non-subject logs in"
ssh_lkg_remove
# pam_bwsh's account stage refuses; sshd sends its line as a banner, which
# the client prints at its default LogLevel (INFO).
ssh_run -o LogLevel=INFO t "$SSH_PROBE"
it_assert_rc 255
it_assert_out_lacks bwrap
it_assert_err_has "bwsh: the sandbox policy cannot be used: $CONFD/70-broken.conf:1: "
in_jns su - "$OTHER" -c 'echo other in'
it_assert_rc 0
it_assert_eq "other in" "$IT_OUT" "the non-subject's su -"
journal_wait_for 1 "MESSAGE_ID=$MSG_POLICY" "BWSH_USER=$IT_USER" BWSH_OUTCOME=refused || exit 1

it_check "the fixed policy is kept again at the next clean login"
rm -f "$CONFD/70-broken.conf"
ssh_run t "$SSH_PROBE"
it_assert_rc 0
it_assert_eq bwrap "$IT_OUT"
[ -L "$LKG/$KEY" ] || it_fail "no last good copy after the fix"
ssh_assert_no_user_processes
