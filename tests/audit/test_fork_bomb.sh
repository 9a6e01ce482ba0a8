#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A fork bomb inside an ssh session stops at the default nproc limit (1024,
# from the shipped policy: the test's policy sets no rlimits) and the host
# keeps working: root still starts processes while the bomb presses against
# the limit.  The bomb keeps every child (a loop of background sleeps), so the
# number of the user's tasks on the host is a count, not a blur: the classic
# b(){ b|b& } replaces its processes faster than ps can list them, and a
# listing then sees some twice.  Bounded: the session is ended with bwshctl lock (SIGKILL of the
# sandbox's pid namespace takes every process of the bomb at once) after at
# most 20 s, and at exit whatever is left of the user is killed by pid.
# shellcheck disable=SC2016,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
audit_unlock_at_exit
journal_start
ssh_start main
LIMIT=1024
BOMB_PID=
end_bomb()
{
  [ -n "$BOMB_PID" ] || return 0
  bwshctl_run lock "$IT_USER" --reason "fork bomb test over" --policy "$SSH_POLICY"
  bwshctl_run unlock "$IT_USER"
  kill "$BOMB_PID" 2>/dev/null
  wait "$BOMB_PID" 2>/dev/null
  BOMB_PID=
}
it_defer end_bomb

it_check "the plan states the finite default nproc"
nsenter -t "$JOURNALD_PID" -m -- "$BWSHCTL" explain "$IT_USER" --policy "$SSH_POLICY" >"$IT_TMP/explain" 2>&1
grep -q "^limits: core=0 nproc=$LIMIT " "$IT_TMP/explain" || it_fail "explain: $(grep limits "$IT_TMP/explain")"
[ "$(ulimit -u)" = unlimited ] || [ "$(ulimit -u)" -gt "$LIMIT" ] \
  || it_fail "(control) this shell's own nproc ($(ulimit -u)) would stop the bomb before bwsh's limit"

it_check "a fork bomb in a session stops at the nproc limit"
timeout -k 5 60 ssh -F "$SSH_CFG" t 'echo bombing; while :; do sleep 600 & done' </dev/null \
  >"$IT_TMP/bomb.out" 2>"$IT_TMP/bomb.err" &
BOMB_PID=$!
max=0
at_limit=0
for _ in $(seq 100); do
  n=$(audit_user_tasks)
  [ "$n" -gt "$max" ] && max=$n
  # The host still works while the bomb presses on the limit.
  if [ "$n" -ge $((LIMIT - 16)) ] && [ "$at_limit" = 0 ]; then
    at_limit=1
    out=$(timeout 10 /bin/sh -c 'echo host-alive') || it_fail "root could not start a process during the bomb"
    it_assert_eq host-alive "$out" "a host process during the bomb"
  fi
  sleep 0.2
  [ "$at_limit" = 1 ] && [ "$n" -ge $((LIMIT - 16)) ] && break
done
it_log "the user's tasks peaked at $max (nproc $LIMIT)"
[ "$at_limit" = 1 ] || it_fail "(control) the bomb never reached the limit: at most $max tasks"
[ "$max" -le $((LIMIT + 8)) ] || it_fail "the bomb went past nproc: $max tasks"
for _ in $(seq 50); do
  grep -q "Resource temporarily unavailable" "$IT_TMP/bomb.err" && break
  sleep 0.1
done
grep -q "Resource temporarily unavailable" "$IT_TMP/bomb.err" \
  || it_fail "bash inside never saw fork fail: $(head -c 500 "$IT_TMP/bomb.err")"
grep -q bombing "$IT_TMP/bomb.out" || it_fail "(control) the bomb did not run in the session"

it_check "bwshctl lock ends the bombed session and everything in it"
bwshctl_run lock "$IT_USER" --reason "fork bomb" --policy "$SSH_POLICY"
it_assert_rc 0
it_assert_out_has "1 live sessions ended"
left=$(audit_user_procs)
[ -z "$left" ] || it_fail "processes of the session left after the lock: $left"
bwshctl_run unlock "$IT_USER"
kill "$BOMB_PID" 2>/dev/null
wait "$BOMB_PID" 2>/dev/null
BOMB_PID=

ssh_assert_no_user_processes
