#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Locks that mean what they say (issue 25 item 2):
#   - bwshctl lock of an unknown user or group, and of an account that is not
#     a subject (its shell is bwsh, but pam_bwsh would leave its sshd alone),
#     exits 1 with a clear message and writes no lock;
#   - bwshctl locks lists a lock with its reason, time and who set it: the
#     login uid's name (pam_loginuid's record, kept through su and sudo), or
#     SUDO_USER (what sudo sets), never plain "root" for an administrator;
#   - sessions, check --user and doctor --user mention the lock.
# (sudo itself is not installed on the test machine: SUDO_USER is set the
# way sudo sets it.)
# shellcheck disable=SC2016,SC1091,SC2034
. "$(dirname "$0")/lib.sh"
ssh_prepare
audit_unlock_at_exit
journal_start
it_add_user OTHER   # shell bwsh, not a subject of $SSH_POLICY
it_add_user ADMIN
it_defer rm -f "$IT_PREFIX/var/lib/bwsh/locks/user:$OTHER" "$IT_PREFIX/var/lib/bwsh/locks/group:$OTHER"
LOCKS=$IT_PREFIX/var/lib/bwsh/locks

it_check "lock of an unknown user or group: exit 1, nothing locked"
bwshctl_run lock nosuchuser-bwsh-test --reason x --policy "$SSH_POLICY"
it_assert_rc 1
it_assert_err_has 'bwshctl: no user "nosuchuser-bwsh-test": nothing locked'
it_assert_absent "$LOCKS/user:nosuchuser-bwsh-test"
bwshctl_run lock @nosuchgroup-bwsh-test --policy "$SSH_POLICY"
it_assert_rc 1
it_assert_err_has 'bwshctl: no group "nosuchgroup-bwsh-test": nothing locked'
it_assert_absent "$LOCKS/group:nosuchgroup-bwsh-test"

it_check "lock of an account that is not a subject: exit 1, nothing locked, and it is not locked out"
bwshctl_run lock "$OTHER" --reason "wrong one" --policy "$SSH_POLICY"
it_assert_rc 1
it_assert_err_has "bwshctl: $OTHER is not a subject of $SSH_POLICY: pam_bwsh leaves its sessions alone, so a lock would not hold; nothing locked (add it to subjects)"
it_assert_absent "$LOCKS/user:$OTHER"
bwshctl_run lock "@$OTHER" --policy "$SSH_POLICY"
it_assert_rc 1
it_assert_err_has "bwshctl: @$OTHER is not a subject of $SSH_POLICY"
it_assert_absent "$LOCKS/group:$OTHER"

it_check "lock of a subject's group (its primary group, the subject named in subjects.users) is accepted"
bwshctl_run lock "@$IT_GROUP" --reason "group drill" --policy "$SSH_POLICY"
it_assert_rc 0
bwshctl_run unlock "@$IT_GROUP"
it_assert_rc 0

it_check "bwshctl locks: no locks"
bwshctl_run locks
it_assert_rc 0
it_assert_eq "no locks" "$IT_OUT"

it_check "a lock set through sudo records sudo's user, with reason and time"
before=$(date -u +%s)
IT_RC=0
timeout -k 5 60 nsenter -t "$JOURNALD_PID" -m -- env SUDO_USER="$ADMIN" "$BWSHCTL" lock "$IT_USER" \
  --reason "ticket 4711" --policy "$SSH_POLICY" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
bwshctl_run locks --json
it_assert_rc 0
python3 -c 'import json, sys, calendar, time
l = json.loads(sys.argv[1])
assert len(l) == 1, l
l = l[0]
assert l["target"] == sys.argv[2] and l["by"] == sys.argv[3] and l["reason"] == "ticket 4711", l
since = calendar.timegm(time.strptime(l["since"], "%Y-%m-%dT%H:%M:%SZ"))
assert int(sys.argv[4]) - 1 <= since <= time.time() + 1, (since, sys.argv[4])' \
  "$IT_OUT" "$IT_USER" "$ADMIN" "$before" || it_fail "locks --json: $IT_OUT"
bwshctl_run locks
it_assert_rc 0
grep -qE "^$IT_USER +[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z +$ADMIN +ticket 4711\$" <<<"$IT_OUT" \
  || it_fail "locks text: $IT_OUT"
journal_wait_for 1 "MESSAGE_ID=$MSG_LOCK" "BWSH_LOCK_TARGET=$IT_USER" || exit 1
# The lock event names the administrator behind sudo (#38).
journal_wait_for 1 "MESSAGE_ID=$MSG_LOCK" "BWSH_LOCK_TARGET=$IT_USER" BWSH_OUTCOME=locked "BWSH_LOCK_BY=$ADMIN" || exit 1

it_check "sessions, check --user and doctor --user mention the lock"
bwshctl_run sessions
it_assert_rc 0
it_assert_out_has "locked: $IT_USER: ticket 4711 (new sessions are refused; bwshctl locks)"
bwshctl_run check --user "$IT_USER" --policy "$SSH_POLICY"
it_assert_rc 1
it_assert_err_has "a session would be refused: sessions of $IT_USER are locked: ticket 4711"
bwshctl_run doctor --user "$IT_USER" --policy "$SSH_POLICY"
it_assert_out_has "warning: lock: sessions of $IT_USER are locked (a user lock, since "
it_assert_out_has "by $ADMIN): ticket 4711; every login of $IT_USER is refused"
it_assert_out_has "fix: bwshctl unlock $IT_USER, when the lock is over"

it_check "the unlock event names the administrator behind sudo, after the lock is gone (#38)"
IT_RC=0
timeout -k 5 60 nsenter -t "$JOURNALD_PID" -m -- env SUDO_USER="$ADMIN" "$BWSHCTL" unlock "$IT_USER" \
  </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
journal_wait_for 1 "MESSAGE_ID=$MSG_LOCK" "BWSH_LOCK_TARGET=$IT_USER" BWSH_OUTCOME=unlocked "BWSH_LOCK_BY=$ADMIN" || exit 1
ev=$(journal_json "MESSAGE_ID=$MSG_LOCK" "BWSH_LOCK_TARGET=$IT_USER" BWSH_OUTCOME=unlocked | tail -n 1)
it_assert_eq "sessions of $IT_USER unlocked by $ADMIN; 0 live sessions ended" "$(journal_field "$ev" MESSAGE)" "the unlock event's MESSAGE"

it_check "a lock by an administrator who logged in (login uid) records that name, not root"
IT_RC=0
# What pam_loginuid does at login: the login uid, kept through su and sudo.
timeout -k 5 60 nsenter -t "$JOURNALD_PID" -m -- sh -c 'echo "$1" >/proc/self/loginuid && shift && exec "$@"' sh \
  "$(id -u "$ADMIN")" env -u SUDO_USER "$BWSHCTL" lock "$IT_USER" --reason "logged-in admin" --policy "$SSH_POLICY" \
  </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
bwshctl_run locks --json
python3 -c 'import json, sys
l = json.loads(sys.argv[1])[0]
assert l["by"] == sys.argv[2], l' "$IT_OUT" "$ADMIN" || it_fail "locks --json: $IT_OUT"
bwshctl_run unlock "$IT_USER"
it_assert_rc 0

it_check "the locks directory and a lock are readable by the user (bwsh enforces locks as the user)"
bwshctl_run lock "$IT_USER" --policy "$SSH_POLICY"
it_assert_eq "root 755" "$(stat -c '%U %a' "$LOCKS")" "locks directory"
it_assert_eq "root 644" "$(stat -c '%U %a' "$LOCKS/user:$IT_USER")" "lock file"
bwshctl_run unlock "$IT_USER"
