#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live sessions through a real sshd with pam_bwsh: bwshctl sessions lists two
# concurrent ssh sessions of one user; after an edit of the policy both are
# marked as running under a changed policy; bwshctl lock ends both (nothing
# of the user is left when it returns) and the next login is refused with the
# reason; after unlock a login works again.  Then max_sessions = 2: a third
# concurrent login is refused and the limit event is logged.
# shellcheck disable=SC2016,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
audit_unlock_at_exit
it_defer rm -f "$IT_PREFIX/var/lib/bwsh/locks/group:$IT_GROUP"
journal_start
ssh_start main
it_defer kill_holders

# hold_session: one ssh session that lasts until it is ended (60 s at most).
hold_session()
{
  timeout -k 5 90 ssh -F "$SSH_CFG" t 'echo started; exec sleep 60' </dev/null \
    >"$IT_TMP/hold.$1.out" 2>"$IT_TMP/hold.$1.err" &
  HOLDERS+=($!)
}

# wait_sessions N: bwshctl sessions --json lists N sessions of the user.
wait_sessions()
{
  local n=$1 have=
  for _ in $(seq 150); do
    bwshctl_run sessions --json
    have=$(python3 -c 'import json, sys
print(sum(1 for s in json.loads(sys.argv[1]) if s["user"] == sys.argv[2]))' "$IT_OUT" "$IT_USER" 2>/dev/null)
    [ "$have" = "$n" ] && return 0
    sleep 0.1
  done
  it_fail "expected $n live sessions of $IT_USER, bwshctl sessions says: $IT_OUT $IT_ERR"
  return 1
}

policy_changed_flags()
{
  python3 -c 'import json, sys
print(" ".join(str(s["policy_changed"]).lower() for s in json.loads(sys.argv[1]) if s["user"] == sys.argv[2]))' \
    "$IT_OUT" "$IT_USER"
}

it_check "bwshctl sessions lists two concurrent ssh sessions of the user"
hold_session 1
hold_session 2
wait_sessions 2 || exit 1
it_assert_eq "false false" "$(policy_changed_flags)" "policy_changed before the edit"
python3 -c 'import json, sys
for s in json.loads(sys.argv[1]):
    assert s["service"] == "sshd" and s["rhost"] == "127.0.0.1", s
    assert s["command"] == sys.argv[2], s
    assert len(s["plan_digest"]) == 64 and len(s["policy_digest"]) == 64, s
    assert s["pid"] > 1, s' "$IT_OUT" "$IT_BWSH" || it_fail "unexpected fields: $IT_OUT"
bwshctl_run sessions
it_assert_rc 0
[ "$(grep -c "^$IT_USER .* current " <<<"$IT_OUT")" = 2 ] || it_fail "text listing: $IT_OUT"

it_check "after a policy edit both sessions are marked as running under a changed policy"
printf '# edited while two sessions ran\nmax_mounts = 200;\n' >>"$SSH_POLICY"
bwshctl_run sessions --json
it_assert_eq "true true" "$(policy_changed_flags)" "policy_changed after the edit"
bwshctl_run sessions
[ "$(grep -c "^$IT_USER .* changed " <<<"$IT_OUT")" = 2 ] || it_fail "text listing: $IT_OUT"

it_check "bwshctl lock ends both sessions and leaves no process of the user"
[ "$(audit_user_tasks)" -gt 0 ] || it_fail "(control) the sessions have no process to end"
start=$(date +%s%N)
bwshctl_run lock "$IT_USER" --reason "laptop stolen" --policy "$SSH_POLICY"
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
it_assert_rc 0
it_assert_out_has "$IT_USER locked; 2 live sessions ended"
it_log "bwshctl lock returned after $elapsed_ms ms"
left=$(audit_user_procs)
[ -z "$left" ] || it_fail "processes of $IT_USER's sessions left when lock returned: $left"
for p in "${HOLDERS[@]}"; do
  for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$p" 2>/dev/null && it_fail "ssh client $p still connected after the lock"
done
kill_holders
# shellcheck disable=SC2015 # fails when either session never started
grep -q started "$IT_TMP/hold.1.out" && grep -q started "$IT_TMP/hold.2.out" \
  || it_fail "(control) the held sessions never started"
wait_sessions 0 || exit 1
journal_wait_for 2 "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" BWSH_END_REASON=lock || exit 1
for ended in $(journal_json "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" BWSH_END_REASON=lock \
  | python3 -c 'import json, sys
for l in sys.stdin: e = json.loads(l); print(e.get("BWSH_LOCK_REASON", "").replace(" ", "_"))'); do
  it_assert_eq laptop_stolen "$ended" "BWSH_LOCK_REASON of a session the lock ended"
done

it_check "the next ssh login is refused with the lock's reason, on stderr (pam_bwsh's account stage)"
ssh_run -o LogLevel=INFO t "$SSH_PROBE"
[ "$IT_RC" != 0 ] || it_fail "a locked user logged in: $IT_OUT"
it_assert_out_lacks bwrap
it_assert_err_has "bwsh: sessions of $IT_USER are locked: laptop stolen"
it_assert_out_lacks "bwsh:"

it_check "the lock survives: it is a file in the persistent state directory"
it_assert_exists "$IT_PREFIX/var/lib/bwsh/locks/user:$IT_USER"
[ "$(stat -c '%U %a' "$IT_PREFIX/var/lib/bwsh/locks")" = "root 755" ] \
  || it_fail "locks directory: $(stat -c '%U %a' "$IT_PREFIX/var/lib/bwsh/locks")"

it_check "after unlock a login works again"
bwshctl_run unlock "$IT_USER"
it_assert_rc 0
ssh_run t "$SSH_PROBE"
it_assert_rc 0
it_assert_eq bwrap "$IT_OUT"
bwshctl_run unlock "$IT_USER"
it_assert_rc 1
it_assert_err_has "bwshctl: $IT_USER is not locked"

it_check "a group lock (@GROUP) refuses a member, and names the group"
bwshctl_run lock "@$IT_GROUP" --reason "group drill" --policy "$SSH_POLICY"
it_assert_rc 0
ssh_run -o LogLevel=INFO t "$SSH_PROBE"
[ "$IT_RC" != 0 ] || it_fail "a member of a locked group logged in: $IT_OUT"
it_assert_err_has "bwsh: sessions of @$IT_GROUP are locked: group drill"
it_assert_out_lacks "bwsh:"
bwshctl_run unlock "@$IT_GROUP"
it_assert_rc 0
ssh_run t "$SSH_PROBE"
it_assert_rc 0
it_assert_eq bwrap "$IT_OUT"

it_check "max_sessions = 2: the third concurrent login is refused, with its event"
printf 'max_sessions = 2;\n' >>"$SSH_POLICY"
hold_session 3
hold_session 4
wait_sessions 2 || exit 1
ssh_run -o LogLevel=INFO t "$SSH_PROBE"
[ "$IT_RC" != 0 ] || it_fail "a third session ran: $IT_OUT"
it_assert_out_lacks bwrap
it_assert_err_has "bwsh: $IT_USER has 2 sessions open, at most 2 are allowed (max_sessions)"
it_assert_out_lacks "bwsh:"
journal_wait_for 1 "MESSAGE_ID=$MSG_LIMIT" "BWSH_USER=$IT_USER" || exit 1
wait_sessions 2 || exit 1
kill_holders
wait_sessions 0 || exit 1

it_check "bwshctl sessions, lock and unlock are for root"
out=$(setpriv --reuid="$IT_UID" --regid="$IT_GID" --clear-groups "$BWSHCTL" sessions 2>&1)
[ $? = 2 ] || it_fail "sessions as the user: $out"
grep -q "bwshctl: sessions is for root" <<<"$out" || it_fail "message: $out"
out=$(setpriv --reuid="$IT_UID" --regid="$IT_GID" --clear-groups "$BWSHCTL" lock "$IT_USER" 2>&1)
grep -q "bwshctl: lock is for root" <<<"$out" || it_fail "lock as the user: $out"
it_assert_absent "$IT_PREFIX/var/lib/bwsh/locks/user:$IT_USER"

it_check "bwshctl lock refuses a target that is not a name, and a reason that is not one line"
for bad in "../$IT_USER" "a/b" ".x" "-rf" "@" ""; do
  bwshctl_run lock -- "$bad"
  it_assert_rc 2
  it_assert_err_has "bwshctl: \"$bad\" is not a user or @group name"
done
bwshctl_run lock "$IT_USER" --reason "$(printf 'two\nlines')" --policy "$SSH_POLICY"
it_assert_rc 2
it_assert_err_has "bwshctl: the reason must be one line of at most 256 bytes"
it_assert_absent "$IT_PREFIX/var/lib/bwsh/locks/user:$IT_USER"
ssh_run t "$SSH_PROBE"
it_assert_eq bwrap "$IT_OUT" "a login after the refused locks"

ssh_assert_no_user_processes
