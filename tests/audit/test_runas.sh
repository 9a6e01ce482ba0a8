#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sudo -u SUBJECT never runs a command unsandboxed (#25 item 3).  sudo opens
# a PAM session for the target user and takes a PAM_SESSION_ERR from
# pam_open_session() as non-fatal: it runs the command anyway.  The control
# shows that with pam_deny in sudo's session stack (its session answer is
# PAM_SESSION_ERR), as pam_bwsh answered before.  pam_bwsh refuses with
# PAM_PERM_DENIED: with only its session line (the stack the README gives
# for other distributions) and with the account line too (pam-auth-update's
# profile), sudo runs nothing, and the refusal is in the journal with sudo's
# caller (BWSH_RUSER).  All as root, with real sudo, its stock sudoers
# (root may run anything as anybody) and stacks of the test's own in a
# private mount namespace.
# shellcheck disable=SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
journal_start
command -v sudo >/dev/null || { it_fail "sudo is missing (scripts/deps.sh installs it)"; exit 1; }
[ -f "$IT_TMP/pam.d/sudo" ] || { it_fail "no /etc/pam.d/sudo to start from"; exit 1; }

DROP=$IT_TMP/drop
mkdir -m 1777 "$DROP"
MARK=$DROP/ran

# stack NAME LINES: a copy of the suite's /etc/pam.d whose sudo stack ends with LINES.
stack()
{
  rm -rf "${IT_TMP:?}/$1"
  cp -a "$IT_TMP/pam.d" "$IT_TMP/$1"
  printf '%s\n' "$2" >>"$IT_TMP/$1/sudo"
}
stack pam.deny "session required pam_deny.so"
stack pam.session "session required $SSH_PAM_MODULE policy=$SSH_POLICY"
stack pam.both "account required $SSH_PAM_MODULE policy=$SSH_POLICY
session required $SSH_PAM_MODULE policy=$SSH_POLICY"

it_check "(control) sudo runs the command though the session stack answers PAM_SESSION_ERR"
# shellcheck disable=SC2016 # expanded by the user's sh
in_stack "$IT_TMP/pam.deny" sudo -u "$IT_USER" -- sh -c 'id -un; cat /proc/1/comm; touch "$1"' sh "$MARK"
it_assert_rc 0
it_assert_eq "$IT_USER
$(cat /proc/1/comm)" "$IT_OUT" "(control) the command ran, outside any sandbox"
it_assert_exists "$MARK"
rm -f "$MARK"

for s in session both; do
  it_check "sudo -u SUBJECT with pam_bwsh (stack: $s): refused, nothing runs"
  # shellcheck disable=SC2016 # expanded by the user's sh
  in_stack "$IT_TMP/pam.$s" sudo -u "$IT_USER" -- sh -c 'id -un; touch "$1"' sh "$MARK"
  [ "$IT_RC" != 0 ] || it_fail "sudo ran the command: $IT_OUT"
  it_assert_eq "" "$IT_OUT" "nothing ran"
  # sudo says why in its own words; pam_bwsh's line is in the journal.
  it_assert_err_has "sudo: pam_open_session: Permission denied"
  it_assert_absent "$MARK"
done

it_check "each refusal is in the journal: service sudo, the caller root as BWSH_RUSER"
journal_wait_for 2 "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" BWSH_SERVICE=sudo || exit 1
ev=$(journal_json "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" BWSH_SERVICE=sudo | tail -n 1)
it_assert_eq root "$(journal_field "$ev" BWSH_RUSER)" BWSH_RUSER
it_assert_eq refused "$(journal_field "$ev" BWSH_OUTCOME)" BWSH_OUTCOME
[[ $(journal_field "$ev" BWSH_REASON) == "service sudo never runs the login shell"* ]] \
  || it_fail "BWSH_REASON: $(journal_field "$ev" BWSH_REASON)"
it_assert_eq 0 "$(journal_json "MESSAGE_ID=$MSG_ALLOWED" "BWSH_USER=$IT_USER" BWSH_SERVICE=sudo | grep -c .)" \
  "allowed events for sudo"

it_check "a non-subject's sudo still works with pam_bwsh in the stack"
it_add_user OTHER
usermod -s /bin/bash "$OTHER" || it_fail "usermod failed"
in_stack "$IT_TMP/pam.both" sudo -u "$OTHER" -- id -un
it_assert_rc 0
it_assert_eq "$OTHER" "$IT_OUT" "the non-subject's command"

# The trusted filter (#38): pam_bwsh sends its events with explicit
# credentials, so journald stamps _UID=0 though a non-root user started
# the setuid sudo (whose real uid stays the user's); an entry a user sends in
# pam_bwsh's name gets the user's uid, which the user cannot change.
it_check "sudo by a non-root user: pam_bwsh's refusal passes the trusted filter _UID=0"
mkdir -p "$IT_TMP/sudoers.d"
printf '%s ALL=(ALL) NOPASSWD: ALL\n' "$OTHER" >"$IT_TMP/sudoers.d/bwsh-test"
chmod 0440 "$IT_TMP/sudoers.d/bwsh-test"
n=$(journal_json "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" BWSH_SERVICE=sudo "BWSH_RUSER=$OTHER" | grep -c .)
IT_RC=0
# shellcheck disable=SC2016 # expanded by the inner sh
timeout -k 5 90 nsenter -t "$JOURNALD_PID" -m -- unshare -m --propagation private -- /bin/sh -c '
  mount --bind "$1" /etc/pam.d && mount --bind "$2" /etc/shells && mount --bind "$3" /etc/sudoers.d || exit 1
  exec setpriv --reuid "$4" --regid "$5" --init-groups -- sudo -n -u "$6" -- true' sh \
  "$IT_TMP/pam.both" "$SSH_NS_SHELLS" "$IT_TMP/sudoers.d" "$OTHER" "$(id -g "$OTHER")" "$IT_USER" \
  </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
[ "$IT_RC" != 0 ] || it_fail "sudo ran the command"
it_assert_err_has "sudo: pam_open_session: Permission denied"
journal_wait_for $((n + 1)) "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" BWSH_SERVICE=sudo "BWSH_RUSER=$OTHER" || exit 1
ev=$(journal_json "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" BWSH_SERVICE=sudo "BWSH_RUSER=$OTHER" | tail -n 1)
it_assert_eq 0 "$(journal_field "$ev" _UID)" "_UID of pam_bwsh's refusal in the sudo of $OTHER"
it_assert_eq 1 "$(journal_json _UID=0 "MESSAGE_ID=$MSG_REFUSED" "BWSH_RUSER=$OTHER" | grep -c .)" \
  "refusals behind $OTHER's sudo under the filter _UID=0"

it_check "an event a user sends in pam_bwsh's name does not pass the filter"
IT_RC=0
printf 'MESSAGE=forged\nMESSAGE_ID=%s\nSYSLOG_IDENTIFIER=pam_bwsh\nBWSH_USER=forged-%s\nBWSH_OUTCOME=closed\n' \
  "$MSG_REFUSED" "$IT_USER" >"$IT_TMP/forged"
chmod 0644 "$IT_TMP/forged"
timeout -k 5 60 nsenter -t "$JOURNALD_PID" -m -- setpriv --reuid "$IT_UID" --regid "$(id -g "$IT_USER")" --clear-groups -- \
  logger --journald="$IT_TMP/forged" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
# (control) the entry is in the journal, as pam_bwsh's ...
journal_wait_for 1 "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=forged-$IT_USER" SYSLOG_IDENTIFIER=pam_bwsh || exit 1
# ... with the user's uid, so the filter leaves it out.
it_assert_eq 0 "$(journal_json _UID=0 "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=forged-$IT_USER" | grep -c .)" \
  "forged entries under the filter _UID=0"
