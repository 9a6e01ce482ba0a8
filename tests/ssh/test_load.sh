#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 64 concurrent ssh sessions, each writing into its project dir and sleeping
# 1 s: all succeed, all run sandboxed, nothing lands outside the project dir,
# no process is left behind.  The wall time is printed, never asserted.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC2088,SC1010,SC1003,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
ssh_start main snippet
N=${BWSH_SSH_LOAD_SESSIONS:-64}

it_check "$N concurrent sessions all succeed, sandboxed and confined"
ssh_mark
t0=$(date +%s%N)
pids=()
for i in $(seq "$N"); do
  timeout -k 5 120 ssh -F "$SSH_CFG" t \
    "echo $i >\"\$HOME/project/load-$i\"; touch \"\$HOME/escape-$i\" /tmp/escape-$i 2>/dev/null; sleep 1; cat /proc/1/comm" \
    </dev/null >"$IT_TMP/load-$i.out" 2>"$IT_TMP/load-$i.err" &
  pids+=($!)
done
failed=0
for i in $(seq "$N"); do
  rc=0
  wait "${pids[$((i - 1))]}" || rc=$?
  if [ "$rc" != 0 ] || [ "$(cat "$IT_TMP/load-$i.out")" != bwrap ]; then
    failed=$((failed + 1))
    [ "$failed" -le 3 ] && it_fail "session $i: rc=$rc out=$(cat "$IT_TMP/load-$i.out") err=$(head -c 300 "$IT_TMP/load-$i.err")"
  fi
  [ "$(cat "$IT_HOME/project/load-$i" 2>/dev/null)" = "$i" ] || it_fail "session $i's write did not land"
  it_assert_absent "$IT_HOME/escape-$i"
done
t1=$(date +%s%N)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
it_assert_eq 0 "$failed" "failed sessions"
printf 'RESULT ssh_load sessions=%s wall_seconds=%s\n' "$N" "$wall"
ssh_assert_confined
ssh_assert_no_user_processes
ssh_stop
ssh_assert_no_user_processes
