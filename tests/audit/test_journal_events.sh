#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every audit event type reaches a real systemd-journald with its MESSAGE_ID
# and BWSH_* fields, read back with journalctl -o json: session allowed and
# ended (ssh), refused (a lock), lock and unlock (bwshctl), limit hit
# (max_sessions), and root's `su -s /bin/bash USER` recorded as what it is,
# an unsandboxed bash.  Then journalctl --update-catalog with the shipped
# catalog explains each of them (journalctl -x).
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
audit_unlock_at_exit
journal_start
ssh_start main

it_check "an ssh session: allowed, then ended, with what ran and both digests"
ssh_run t "$SSH_PROBE"
it_assert_rc 0
it_assert_eq bwrap "$IT_OUT"
journal_wait_for 1 "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" || exit 1
allowed=$(journal_json "MESSAGE_ID=$MSG_ALLOWED" "BWSH_USER=$IT_USER" | head -n 1)
ended=$(journal_json "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" | head -n 1)
[ -n "$allowed" ] || it_fail "no session-allowed entry"
it_assert_eq "$IT_UID" "$(journal_field "$allowed" BWSH_UID)" BWSH_UID
it_assert_eq sshd "$(journal_field "$allowed" BWSH_SERVICE)" BWSH_SERVICE
it_assert_eq 127.0.0.1 "$(journal_field "$allowed" BWSH_RHOST)" BWSH_RHOST
it_assert_eq accepted "$(journal_field "$allowed" BWSH_OUTCOME)" BWSH_OUTCOME
it_assert_eq "$IT_BWSH" "$(journal_field "$allowed" BWSH_COMMAND)" BWSH_COMMAND
it_assert_eq pam_bwsh "$(journal_field "$allowed" SYSLOG_IDENTIFIER)" SYSLOG_IDENTIFIER
it_assert_eq 0 "$(journal_field "$allowed" _UID)" "_UID (journald's own: root wrote it)"
for f in BWSH_PLAN_DIGEST BWSH_POLICY_DIGEST; do
  [[ $(journal_field "$allowed" $f) =~ ^[0-9a-f]{64}$ ]] || it_fail "$f is not a digest: $(journal_field "$allowed" $f)"
done
[[ $(journal_field "$allowed" BWSH_MOUNTS) =~ ^[1-9][0-9]*$ ]] || it_fail "BWSH_MOUNTS: $(journal_field "$allowed" BWSH_MOUNTS)"
it_assert_eq 0 "$(journal_field "$allowed" BWSH_REFUSALS)" BWSH_REFUSALS
it_assert_eq private "$(journal_field "$allowed" BWSH_NETWORK)" "BWSH_NETWORK (the shipped network = \"private\")"
it_assert_eq closed "$(journal_field "$ended" BWSH_OUTCOME)" "ended BWSH_OUTCOME"
it_assert_eq "$IT_UID" "$(journal_field "$ended" BWSH_UID)" "ended BWSH_UID"
it_assert_eq "$(journal_field "$allowed" BWSH_SESSION_PID)" "$(journal_field "$ended" BWSH_SESSION_PID)" \
  "the same session opened and ended"
it_assert_eq "$(journal_field "$allowed" BWSH_PLAN_DIGEST)" "$(journal_field "$ended" BWSH_PLAN_DIGEST)" \
  "plan digest at open and at close"

it_check "ssh 'cat /etc/hostname; false': bwsh's command event has the command, the client and the session's id"
ssh_run t 'cat /etc/hostname; false'
it_assert_rc 1
journal_wait_for 2 "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" || exit 1
journal_wait_for 1 "MESSAGE_ID=$MSG_COMMAND" "BWSH_USER=$IT_USER" || exit 1
cmd_ev=$(journal_json "MESSAGE_ID=$MSG_COMMAND" "BWSH_USER=$IT_USER" | tail -n 1)
sid=$(journal_field "$cmd_ev" BWSH_SESSION_ID)
[[ $sid =~ ^[0-9a-f]{32}$ ]] || it_fail "BWSH_SESSION_ID of the command event: '$sid'"
[[ $(journal_field "$cmd_ev" BWSH_COMMAND) == *"'cat /etc/hostname; false'" ]] \
  || it_fail "BWSH_COMMAND is not the ssh command: $(journal_field "$cmd_ev" BWSH_COMMAND)"
it_assert_eq started "$(journal_field "$cmd_ev" BWSH_OUTCOME)" "command BWSH_OUTCOME"
it_assert_eq bwsh "$(journal_field "$cmd_ev" SYSLOG_IDENTIFIER)" "command SYSLOG_IDENTIFIER"
it_assert_eq 127.0.0.1 "$(journal_field "$cmd_ev" BWSH_SOURCE_ADDRESS)" BWSH_SOURCE_ADDRESS
[[ $(journal_field "$cmd_ev" BWSH_SOURCE_PORT) =~ ^[1-9][0-9]*$ ]] \
  || it_fail "BWSH_SOURCE_PORT: $(journal_field "$cmd_ev" BWSH_SOURCE_PORT)"
# The same id on pam_bwsh's allowed and ended events of that session, and
# only there: the first session had another one.
it_assert_eq 1 "$(journal_json "MESSAGE_ID=$MSG_ALLOWED" "BWSH_SESSION_ID=$sid" | grep -c .)" "allowed events with that id"
ended=$(journal_json "MESSAGE_ID=$MSG_ENDED" "BWSH_SESSION_ID=$sid")
it_assert_eq 1 "$(grep -c . <<<"$ended")" "ended events with that id"
[[ $(journal_field "$ended" BWSH_DURATION_SEC) =~ ^[0-9]+$ ]] \
  || it_fail "BWSH_DURATION_SEC of the ended event: $(journal_field "$ended" BWSH_DURATION_SEC)"
# How it ended: the status bwrap reported for 'false', and no lock.
it_assert_eq 1 "$(journal_field "$ended" BWSH_EXIT_STATUS)" "BWSH_EXIT_STATUS of the ended event"
it_assert_eq logout "$(journal_field "$ended" BWSH_END_REASON)" "BWSH_END_REASON of the ended event"
[ "$(journal_field "$allowed" BWSH_SESSION_ID)" != "$sid" ] || it_fail "two sessions share the id $sid"

it_check "a file transfer's BWSH_COMMAND is the user's command, no bwrap option before it (#38)"
n=$(journal_json "MESSAGE_ID=$MSG_COMMAND" "BWSH_USER=$IT_USER" | grep -c .)
printf 'x\n' >"$IT_TMP/up"
timeout -k 5 60 scp -O -F "$SSH_CFG" "$IT_TMP/up" t:project/up </dev/null >/dev/null 2>&1 || it_fail "scp -O into the project"
journal_wait_for $((n + 1)) "MESSAGE_ID=$MSG_COMMAND" "BWSH_USER=$IT_USER" || exit 1
tr_cmd=$(journal_field "$(journal_json "MESSAGE_ID=$MSG_COMMAND" "BWSH_USER=$IT_USER" | tail -n 1)" BWSH_COMMAND)
[[ $tr_cmd == "/bin/bash -c -- 'scp -t "*"project/up'" ]] || it_fail "BWSH_COMMAND of scp -t: $tr_cmd"

it_check "root's su -s /bin/bash USER is recorded unsandboxed, with /bin/bash as the command"
in_jns su -s /bin/bash "$IT_USER" -c 'cat /proc/1/comm'
it_assert_rc 0
it_assert_eq "$(cat /proc/1/comm)" "$IT_OUT" "(the control: bash really ran outside the sandbox)"
journal_wait_for 1 "MESSAGE_ID=$MSG_ALLOWED" "BWSH_USER=$IT_USER" BWSH_SERVICE=su || exit 1
su_entry=$(journal_json "MESSAGE_ID=$MSG_ALLOWED" "BWSH_USER=$IT_USER" BWSH_SERVICE=su | tail -n 1)
it_assert_eq unsandboxed "$(journal_field "$su_entry" BWSH_OUTCOME)" "su -s bash outcome"
it_assert_eq /bin/bash "$(journal_field "$su_entry" BWSH_COMMAND)" "su -s bash command"
in_jns su "$IT_USER" -c "$SSH_PROBE"
it_assert_eq bwrap "$IT_OUT" "plain su runs the sandbox"
journal_wait_for 2 "MESSAGE_ID=$MSG_ALLOWED" "BWSH_USER=$IT_USER" BWSH_SERVICE=su || exit 1
su_entry=$(journal_json "MESSAGE_ID=$MSG_ALLOWED" "BWSH_USER=$IT_USER" BWSH_SERVICE=su | tail -n 1)
it_assert_eq accepted "$(journal_field "$su_entry" BWSH_OUTCOME)" "plain su outcome"
it_assert_eq "$IT_BWSH" "$(journal_field "$su_entry" BWSH_COMMAND)" "plain su command"

it_check "bwshctl lock: a lock event, then the next login refused with the reason"
bwshctl_run lock "$IT_USER" --reason "incident 4711" --policy "$SSH_POLICY"
it_assert_rc 0
journal_wait_for 1 "MESSAGE_ID=$MSG_LOCK" "BWSH_LOCK_TARGET=$IT_USER" || exit 1
lock=$(journal_json "MESSAGE_ID=$MSG_LOCK" "BWSH_LOCK_TARGET=$IT_USER" | tail -n 1)
it_assert_eq locked "$(journal_field "$lock" BWSH_OUTCOME)" "lock outcome"
it_assert_eq "incident 4711" "$(journal_field "$lock" BWSH_REASON)" "lock reason"
it_assert_eq bwshctl "$(journal_field "$lock" SYSLOG_IDENTIFIER)" "lock origin"
ssh_run t "$SSH_PROBE"
[ "$IT_RC" != 0 ] || it_fail "a locked user logged in: $IT_OUT"
it_assert_out_lacks bwrap
journal_wait_for 1 "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" || exit 1
refused=$(journal_json "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" | tail -n 1)
it_assert_eq refused "$(journal_field "$refused" BWSH_OUTCOME)" "refused outcome"
it_assert_eq "sessions of $IT_USER are locked: incident 4711" "$(journal_field "$refused" BWSH_REASON)" \
  "refused reason"
it_assert_eq "$IT_USER" "$(journal_field "$refused" BWSH_LOCK_TARGET)" "refused by which lock"
it_assert_eq "$IT_UID" "$(journal_field "$refused" BWSH_UID)" "refused BWSH_UID"
bwshctl_run unlock "$IT_USER"
it_assert_rc 0
journal_wait_for 2 "MESSAGE_ID=$MSG_LOCK" "BWSH_LOCK_TARGET=$IT_USER" || exit 1
it_assert_eq unlocked "$(journal_field "$(journal_json "MESSAGE_ID=$MSG_LOCK" "BWSH_LOCK_TARGET=$IT_USER" \
  | tail -n 1)" BWSH_OUTCOME)" "unlock outcome"

it_check "max_sessions = 1: the second concurrent session is refused with a limit event"
printf 'max_sessions = 1;\n' >>"$SSH_POLICY"
ssh_hold limit 30 || exit 1
holder=$SSH_HOLD_PID
ssh_run t "$SSH_PROBE"
[ "$IT_RC" != 0 ] || it_fail "a session over max_sessions ran: $IT_OUT"
journal_wait_for 1 "MESSAGE_ID=$MSG_LIMIT" "BWSH_USER=$IT_USER" || exit 1
limit=$(journal_json "MESSAGE_ID=$MSG_LIMIT" "BWSH_USER=$IT_USER" | tail -n 1)
it_assert_eq 1 "$(journal_field "$limit" BWSH_SESSIONS)" "live sessions at the limit"
it_assert_eq 1 "$(journal_field "$limit" BWSH_MAX_SESSIONS)" "max_sessions"
it_assert_eq refused "$(journal_field "$limit" BWSH_OUTCOME)" "limit outcome"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

it_check "bwsh records the sandbox itself where pam_bwsh is not in the stack"
as_user() { nsenter -t "$JOURNALD_PID" -m -- setpriv --reuid="$(id -u "$1")" --regid="$(id -g "$1")" --init-groups "${@:2}"; }
out=$(as_user "$IT_USER" "$IT_BWSH" -c 'echo own record; cat /proc/1/comm' </dev/null 2>&1)
it_assert_eq "own record
bwrap" "$out" "bwsh without PAM"
journal_wait_for 1 "MESSAGE_ID=$MSG_ALLOWED" "BWSH_USER=$IT_USER" SYSLOG_IDENTIFIER=bwsh || exit 1
own=$(journal_json "MESSAGE_ID=$MSG_ALLOWED" "BWSH_USER=$IT_USER" SYSLOG_IDENTIFIER=bwsh | tail -n 1)
it_assert_eq "$IT_UID" "$(journal_field "$own" _UID)" "_UID of bwsh's own record (the user's: trust it as such)"
it_assert_eq "/bin/bash -c -- 'echo own record; cat /proc/1/comm'" "$(journal_field "$own" BWSH_COMMAND)" \
  "the inner command"
[[ $(journal_field "$own" BWSH_PLAN_DIGEST) =~ ^[0-9a-f]{64}$ ]] || it_fail "no plan digest in bwsh's record"
it_check "bwsh records its own refusal (a home directory that does not exist)"
it_add_user HOMELESS
rm -rf "${IT_ROOT:?}/home/$HOMELESS"
out=$(as_user "$HOMELESS" "$IT_BWSH" -c 'echo ran' </dev/null 2>&1)
grep -q "^bwsh: home directory .* does not exist" <<<"$out" || it_fail "bwsh without a home: $out"
journal_wait_for 1 "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$HOMELESS" SYSLOG_IDENTIFIER=bwsh || exit 1
own=$(journal_json "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$HOMELESS" | tail -n 1)
grep -q "does not exist" <<<"$(journal_field "$own" BWSH_REASON)" || it_fail "reason: $own"

it_check "journalctl --update-catalog finds the shipped catalog and -x explains every event"
journal_stop
# journalctl -x reads the compiled catalog from /var/lib/systemd/catalog
# whatever --root says, so both directories are private mounts here: the
# host's catalogs plus bwsh.catalog, and an empty database directory.
mkdir -p "$IT_TMP/catalog"
cp /usr/lib/systemd/catalog/*.catalog "$BWSH_SOURCE_DIR/conf/bwsh.catalog" "$IT_TMP/catalog/"
# shellcheck disable=SC2016
explain()
{
  unshare -m --propagation private -- /bin/sh -c '
    set -e
    mount --bind "$1" /usr/lib/systemd/catalog
    mount -t tmpfs tmpfs /var/lib/systemd
    journalctl --update-catalog
    journalctl -D "$2" -x --no-pager "MESSAGE_ID=$3"' sh "$IT_TMP/catalog" "$JOURNAL_DIR" "$1" 2>&1
}
for id in $MSG_ALLOWED $MSG_REFUSED $MSG_ENDED $MSG_LOCK $MSG_LIMIT $MSG_COMMAND; do
  explained=$(explain "$id")
  grep -q "Support: man:bwsh-audit(7)" <<<"$explained" || it_fail "no explanation for $id: $explained"
done
explained=$(explain "$MSG_LIMIT")
grep -q "$IT_USER already has 1 live sessions and the policy allows" <<<"$explained" \
  || it_fail "the limit explanation does not carry the fields: $explained"
explained=$(explain "$MSG_REFUSED")
grep -q "was refused before anything" <<<"$explained" || it_fail "refused explanation: $explained"

ssh_assert_no_user_processes
