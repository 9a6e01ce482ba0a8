#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How a session ended, on its session-ended event (#25): the exit status of
# the program in the sandbox, as the session's own bwrap reports it through
# --json-status-fd into the status file pam_bwsh made for the session
# (ssh 'exit 3' -> BWSH_EXIT_STATUS=3), and the end reason (logout, or lock
# with the lock's target, reason and author when bwshctl lock ended it).
# The guarded launch (an overlay entry) and the recorded one (tlog-rec runs
# bwrap) hand the file to bwrap as the plain exec does.
# A status file an attacker replaced while the session ran (a symlink to a
# forged report, a file over the size bound, a FIFO) is not followed, not
# read and not waited on: the event has no status, and the file is gone.
# lock_groups (#39), with a local group: check's warnings, the refusal with
# the policy's reason and an event naming the group, bwshctl locks, a
# member who is not a subject left alone, and bwshctl enforce ending the
# session that was open, its ended event naming the group.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
audit_unlock_at_exit
journal_start
ssh_start main
REGISTRY_DIR=$IT_PREFIX/run/bwsh/sessions
STATUS_DIR=$REGISTRY_DIR/status
it_defer kill_holders

# The registry and its status directory are shared with every test that runs
# beside this one (ctest -j): look only at this test user's part of them.
# own_status_files: the status files of the user's sessions (pam_bwsh makes
# them the user's); own_registry_ids: the registry ids of the user's live
# sessions, pam_bwsh's (uid/UID/NAME) and bwsh's own (user/UID/NAME), as
# core/session/registry_place.h names them.
own_status_files() { find "$STATUS_DIR" -mindepth 1 -maxdepth 1 -user "$IT_UID" 2>/dev/null; }
own_registry_ids()
{
  (cd "$REGISTRY_DIR" 2>/dev/null && find "uid/$IT_UID" "user/$IT_UID" -mindepth 1 -maxdepth 1 -type f ! -name '.*' \
    2>/dev/null | sort)
}

# sessions_closed: wait until every earlier session of the user has closed
# (pam_bwsh's close: no registry entry, no status file; no process of the
# user left), so that a case never sees the one before it.
sessions_closed()
{
  for _ in $(seq 900); do
    [ -z "$(own_registry_ids)" ] && [ -z "$(own_status_files)" ] && [ -z "$(audit_user_procs)" ] && return 0
    sleep 0.1
  done
  it_fail "earlier sessions of $IT_USER did not close in 90 s: registry [$(own_registry_ids)]," \
    "status files [$(own_status_files)], processes [$(audit_user_procs)]"
  return 1
}

# hold NAME COMMAND: an ssh session running COMMAND in the background, once
# it printed "started" (sessions on a loaded machine take seconds to start).
hold()
{
  local name=$1
  sessions_closed || return 1
  timeout -k 5 150 ssh -F "$SSH_CFG" t "$2" </dev/null >"$IT_TMP/hold.$name.out" 2>"$IT_TMP/hold.$name.err" &
  HOLDERS+=($!)
  for _ in $(seq 900); do
    grep -q started "$IT_TMP/hold.$name.out" 2>/dev/null && return 0
    sleep 0.1
  done
  it_fail "session $name did not start in 90 s: $(cat "$IT_TMP/hold.$name.err")"
  return 1
}

# The one status file of the user's one running session (its name is the
# session's id).
status_file()
{
  local f
  f=$(own_status_files)
  [ "$(grep -c . <<<"$f")" = 1 ] || { it_fail "expected one status file of $IT_USER, found: $f"; return 1; }
  printf '%s' "$f"
}

# A session that runs until the test releases it, then exits 7.
UNTIL_RELEASED='echo started; while [ ! -e ~/project/release ]; do sleep 0.1; done; exit 7'
release()
{
  local p
  touch "$IT_HOME/project/release"
  # The client must see the session end by itself: killing it first would
  # end the session from outside (sshd's SIGHUP), before its program exits.
  for p in "${HOLDERS[@]}"; do
    for _ in $(seq 900); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
  kill_holders
  rm -f "$IT_HOME/project/release"
}

# ended_of SID: the session-ended event of that session (waits for it).
ended_of()
{
  journal_wait_for 1 "MESSAGE_ID=$MSG_ENDED" "BWSH_SESSION_ID=$1" || return 1
  journal_json "MESSAGE_ID=$MSG_ENDED" "BWSH_SESSION_ID=$1"
}

it_check "ssh 'exit 3': the ended event has BWSH_EXIT_STATUS=3 and BWSH_END_REASON=logout"
ssh_run t 'exit 3'
it_assert_rc 3
journal_wait_for 1 "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" || exit 1
ended=$(journal_json "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" | tail -n 1)
it_assert_eq 3 "$(journal_field "$ended" BWSH_EXIT_STATUS)" BWSH_EXIT_STATUS
it_assert_eq logout "$(journal_field "$ended" BWSH_END_REASON)" BWSH_END_REASON
it_assert_eq "" "$(journal_field "$ended" BWSH_LOCK_REASON)" "BWSH_LOCK_REASON of a logout"
sid=$(journal_field "$ended" BWSH_SESSION_ID)
[ -n "$sid" ] || it_fail "no BWSH_SESSION_ID: $ended"
it_assert_absent "$STATUS_DIR/$sid"
it_assert_eq "" "$(own_status_files)" "status files of $IT_USER left once the session closed"
it_assert_eq "root 755" "$(stat -c '%U %a' "$STATUS_DIR")" "the status directory"

it_check "ssh true: status 0 is reported as 0, not left out"
ssh_run t true
it_assert_rc 0
journal_wait_for 2 "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" || exit 1
ended=$(journal_json "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" | tail -n 1)
it_assert_eq 0 "$(journal_field "$ended" BWSH_EXIT_STATUS)" BWSH_EXIT_STATUS

it_check "while a session runs its status file is the user's, 0600, with what bwrap wrote at the start"
hold run "$UNTIL_RELEASED" || exit 1
f=$(status_file) || exit 1
sid=$(basename "$f")
it_assert_eq "$IT_USER 600 regular file" "$(stat -c '%U %a %F' "$f")" "the status file"
grep -q '"child-pid"' "$f" || it_fail "bwrap's start report is not in the status file: $(head -c 300 "$f")"
# Nothing of the registry's listing takes it for a session.
bwshctl_run sessions --json
it_assert_rc 0
python3 -c 'import json, sys
assert len([s for s in json.loads(sys.argv[1]) if s["user"] == sys.argv[2]]) == 1' "$IT_OUT" "$IT_USER" \
  || it_fail "bwshctl sessions lists more than the one session: $IT_OUT"
release
ended=$(ended_of "$sid") || exit 1
it_assert_eq 7 "$(journal_field "$ended" BWSH_EXIT_STATUS)" "BWSH_EXIT_STATUS of the released session"
it_assert_eq logout "$(journal_field "$ended" BWSH_END_REASON)" BWSH_END_REASON
it_assert_absent "$f"

it_check "a symlink put in place of the status file is not followed: no status, the link removed"
hold symlink "$UNTIL_RELEASED" || exit 1
f=$(status_file) || exit 1
sid=$(basename "$f")
printf '{ "exit-code": 42 }\n' >"$IT_TMP/forged"
chown "$IT_USER:" "$IT_TMP/forged"
chmod 600 "$IT_TMP/forged"
rm -f "$f"
ln -s "$IT_TMP/forged" "$f"
release
ended=$(ended_of "$sid") || exit 1
it_assert_eq "" "$(journal_field "$ended" BWSH_EXIT_STATUS)" "BWSH_EXIT_STATUS through a symlink"
it_assert_eq logout "$(journal_field "$ended" BWSH_END_REASON)" BWSH_END_REASON
it_assert_absent "$f"
it_assert_eq '{ "exit-code": 42 }' "$(cat "$IT_TMP/forged")" "the symlink's target"

it_check "a status file over the size bound is not read: no status, the file removed"
hold huge "$UNTIL_RELEASED" || exit 1
f=$(status_file) || exit 1
sid=$(basename "$f")
rm -f "$f"
python3 -c 'import sys
open(sys.argv[1], "w").write("{ \"exit-code\": 42 }\n" + " " * (1 << 20))' "$f"
chown "$IT_USER:" "$f"
chmod 600 "$f"
release
ended=$(ended_of "$sid") || exit 1
it_assert_eq "" "$(journal_field "$ended" BWSH_EXIT_STATUS)" "BWSH_EXIT_STATUS from a 1 MiB file"
it_assert_absent "$f"

it_check "a FIFO in place of the status file does not hold the close: no status, removed"
hold fifo "$UNTIL_RELEASED" || exit 1
f=$(status_file) || exit 1
sid=$(basename "$f")
rm -f "$f"
mkfifo -m 600 "$f"
chown "$IT_USER:" "$f"
release
ended=$(ended_of "$sid") || exit 1
it_assert_eq "" "$(journal_field "$ended" BWSH_EXIT_STATUS)" "BWSH_EXIT_STATUS from a FIFO"
it_assert_absent "$f"

it_check "root's su -s /bin/bash runs no bwrap: its ended event has no status"
in_jns su -s /bin/bash "$IT_USER" -c 'exit 5'
it_assert_rc 5
journal_wait_for 1 "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" BWSH_SERVICE=su || exit 1
ended=$(journal_json "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" BWSH_SERVICE=su | tail -n 1)
it_assert_eq "" "$(journal_field "$ended" BWSH_EXIT_STATUS)" "BWSH_EXIT_STATUS of an unsandboxed bash"
it_assert_eq logout "$(journal_field "$ended" BWSH_END_REASON)" BWSH_END_REASON
sid=$(journal_field "$ended" BWSH_SESSION_ID)
[ -n "$sid" ] || it_fail "no BWSH_SESSION_ID: $ended"
it_assert_absent "$STATUS_DIR/$sid"
it_assert_eq "" "$(own_status_files)" "status files of $IT_USER left"

# last_ended_status N: the exit status on the last sshd session-ended
# event, once there are N of them.
last_ended_status()
{
  journal_wait_for "$1" "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" BWSH_SERVICE=sshd || return 1
  journal_field "$(journal_json "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" BWSH_SERVICE=sshd | tail -n 1)" \
    BWSH_EXIT_STATUS
}

it_check "a guarded launch (an overlay entry of the user's) hands the status file to bwrap too"
n=$(journal_json "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" BWSH_SERVICE=sshd | grep -c .)
it_as_user mkdir -p "$IT_HOME/ro-data"
# At another place, so that it is a mount of its own (not coalesced into the home's).
it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalROBinds\": [ { \"src\": \"$IT_HOME/ro-data\", \"dst\": \"/srv/ro-data\" } ] } } }"
ssh_run t 'test -d /srv/ro-data && exit 6'
it_assert_rc 6
it_assert_eq 6 "$(last_ended_status $((n + 1)))" "BWSH_EXIT_STATUS of a guarded launch"
it_as_user rm -f "$IT_HOME/.config/bwsh/config.json"

it_check "a recorded session (tlog-rec runs bwrap) hands the status file to bwrap too"
if audit_have_tlog; then
  cp "$SSH_POLICY" "$IT_TMP/policy.before-record"
  audit_record_tty
  n=$(journal_json "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" BWSH_SERVICE=sshd | grep -c .)
  timeout -k 5 70 python3 "$BWSH_SOURCE_DIR/tests/ssh/pty_run.py" --type 'sh -c "exit 9"' -- \
    ssh -tt -F "$SSH_CFG" t >"$IT_TMP/rec.out" 2>&1 </dev/null
  it_assert_eq 9 "$?" "the recorded session's exit status, at the client"
  journal_wait_for 1 "MESSAGE_ID=1a8e21917dfe4e299bfe3dbdfebb9ad3" "BWSH_USER=$IT_USER" || exit 1
  it_assert_eq 9 "$(last_ended_status $((n + 1)))" "BWSH_EXIT_STATUS of a recorded session"
  rm -f "$AUDIT_RECORD_DROPIN"
  cp "$IT_TMP/policy.before-record" "$SSH_POLICY"
fi

it_check "bwshctl lock ends a session: BWSH_END_REASON=lock, with the lock's target, reason and author"
hold locked 'echo started; exec sleep 60' || exit 1
f=$(status_file) || exit 1
sid=$(basename "$f")
bwshctl_run lock "$IT_USER" --reason "end reason drill 4712" --policy "$SSH_POLICY"
it_assert_rc 0
ended=$(ended_of "$sid") || exit 1
it_assert_eq lock "$(journal_field "$ended" BWSH_END_REASON)" BWSH_END_REASON
it_assert_eq "end reason drill 4712" "$(journal_field "$ended" BWSH_LOCK_REASON)" BWSH_LOCK_REASON
it_assert_eq "$IT_USER" "$(journal_field "$ended" BWSH_LOCK_TARGET)" BWSH_LOCK_TARGET
[ -n "$(journal_field "$ended" BWSH_LOCK_BY)" ] || it_fail "no BWSH_LOCK_BY: $ended"
# bwrap dies with the session; whether its program's end (SIGHUP: 129) was
# reported first is a race the event does not hide.
it_log "BWSH_EXIT_STATUS of the locked session: '$(journal_field "$ended" BWSH_EXIT_STATUS)'"
kill_holders
it_assert_absent "$f"
bwshctl_run unlock "$IT_USER"
it_assert_rc 0

it_check "after unlock a session ends as a logout again"
ssh_run t 'exit 4'
it_assert_rc 4
ended=$(journal_json "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" BWSH_SERVICE=sshd | tail -n 1)
for _ in $(seq 100); do
  [ "$(journal_field "$ended" BWSH_EXIT_STATUS)" = 4 ] && break
  sleep 0.1
  ended=$(journal_json "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" BWSH_SERVICE=sshd | tail -n 1)
done
it_assert_eq 4 "$(journal_field "$ended" BWSH_EXIT_STATUS)" BWSH_EXIT_STATUS
it_assert_eq logout "$(journal_field "$ended" BWSH_END_REASON)" "BWSH_END_REASON once unlocked"

it_check "lock_groups (#39), a local group: check warns while it holds no subject, names a member who is not one"
LOCKGRP=$(it_random_name)
groupadd "$LOCKGRP" || it_fail "groupadd $LOCKGRP"
it_defer groupdel "$LOCKGRP"
it_add_user OTHER   # shell bwsh, not a subject of $SSH_POLICY
hold lockgroup 'echo started; exec sleep 60' || exit 1
f=$(status_file) || exit 1
sid=$(basename "$f")
rid=$(own_registry_ids)
[ "$(grep -c . <<<"$rid")" = 1 ] || { it_fail "expected one registry entry of $IT_USER, found: $rid"; exit 1; }
LINE=$(($(grep -c '' "$SSH_POLICY") + 1))
printf 'lock_groups = [ "%s" ];\nlock_reason = "lock group drill 4713";\n' "$LOCKGRP" >>"$SSH_POLICY"
bwshctl_run check --policy "$SSH_POLICY"
it_assert_rc 0
it_assert_err_has "$SSH_POLICY:$LINE: warning: lock_groups: group \"$LOCKGRP\" holds no subject: it locks nobody"
bwshctl_run check --policy "$SSH_POLICY" --strict
it_assert_rc 1
{ gpasswd -a "$IT_USER" "$LOCKGRP" && gpasswd -a "$OTHER" "$LOCKGRP"; } >/dev/null || it_fail "gpasswd -a"
bwshctl_run check --policy "$SSH_POLICY"
it_assert_err_lacks "holds no subject"
it_assert_err_has "$SSH_POLICY:$LINE: note: lock_groups: 1 member of group \"$LOCKGRP\" is not a subject and not locked (pam_bwsh leaves it alone): $OTHER"

it_check "lock_groups: the member's next login is refused with the policy's reason, the event names the group"
in_jns su - "$IT_USER" -c 'echo ran'
[ "$IT_RC" != 0 ] || it_fail "a member of the lock group logged in: $IT_OUT"
it_assert_eq "" "$IT_OUT" "nothing ran"
it_assert_err_has "bwsh: sessions of $IT_USER are locked: lock group drill 4713"
it_assert_err_lacks "$LOCKGRP"
journal_wait_for 1 "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" "BWSH_LOCK_TARGET=@$LOCKGRP" || exit 1
refused=$(journal_json "MESSAGE_ID=$MSG_REFUSED" "BWSH_LOCK_TARGET=@$LOCKGRP" | tail -n 1)
it_assert_eq "policy $SSH_POLICY:$LINE" "$(journal_field "$refused" BWSH_LOCK_BY)" "BWSH_LOCK_BY of the refusal"
bwshctl_run explain --user "$IT_USER" --policy "$SSH_POLICY"
it_assert_out_has "admission: refused: locked: sessions of $IT_USER are locked: lock group drill 4713 (lock group @$LOCKGRP, policy $SSH_POLICY:$LINE)"
bwshctl_run locks --policy "$SSH_POLICY"
it_assert_rc 0
grep -qE "^@$LOCKGRP +- +policy $SSH_POLICY:$LINE +lock group drill 4713\$" <<<"$IT_OUT" || it_fail "locks: $IT_OUT"
bwshctl_run locks --policy "$SSH_POLICY" --json
python3 -c 'import json, sys
l = [x for x in json.loads(sys.argv[1]) if x["target"] == "@" + sys.argv[2]]
assert len(l) == 1 and l[0]["source"] == "policy" and l[0]["reason"] == "lock group drill 4713", l' \
  "$IT_OUT" "$LOCKGRP" || it_fail "locks --json: $IT_OUT"

it_check "lock_groups: a member who is not a subject is not refused"
in_jns su - "$OTHER" -c 'echo ran'
it_assert_rc 0
it_assert_out_has ran

it_check "lock_groups: bwshctl enforce ends the session that was open; its ended event says lock and the group"
bwshctl_run enforce
it_assert_rc 0
it_assert_out_has "ended: $IT_USER's session (pid "
it_assert_out_has "locked by @$LOCKGRP (policy $SSH_POLICY:$LINE)"
ended=$(ended_of "$sid") || exit 1
it_assert_eq lock "$(journal_field "$ended" BWSH_END_REASON)" BWSH_END_REASON
it_assert_eq "@$LOCKGRP" "$(journal_field "$ended" BWSH_LOCK_TARGET)" BWSH_LOCK_TARGET
it_assert_eq "lock group drill 4713" "$(journal_field "$ended" BWSH_LOCK_REASON)" BWSH_LOCK_REASON
it_assert_eq "policy $SSH_POLICY:$LINE" "$(journal_field "$ended" BWSH_LOCK_BY)" BWSH_LOCK_BY
kill_holders
it_assert_absent "$f"
# The lock note enforce left for the session (lock-ID) went with its close.
it_assert_eq "" "$(find "$STATUS_DIR" -mindepth 1 -maxdepth 1 -name "lock-*${rid##*/}" 2>/dev/null)" \
  "lock notes of the session left once it closed"
it_assert_eq "" "$(own_status_files)" "status files of $IT_USER left once the session closed"
bwshctl_run enforce
it_assert_rc 0
it_assert_eq "" "$IT_OUT" "a second enforce, nothing to end"

it_check "lock_groups: out of the group, the user logs in again"
gpasswd -d "$IT_USER" "$LOCKGRP" >/dev/null || it_fail "gpasswd -d"
ssh_run t 'exit 4'
it_assert_rc 4

ssh_assert_no_user_processes
