#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# /proc inside is the sandbox's own pid namespace: a process the same user
# runs on the host is invisible, and /proc/1/cmdline shows "--args N", not
# the mount table.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
marker=$((RANDOM * 32768 + RANDOM + 1000000))
setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups sleep "$marker" </dev/null >/dev/null 2>&1 &
hostpid=$!
it_defer it_kill_child "$hostpid"
sleep 0.2

it_check "the host process is visible on the host (premise)"
grep -q "$marker" "/proc/$hostpid/cmdline" || it_fail "host sleep $marker not running"

it_check "inside, no process's cmdline shows the host process"
it_run "for p in /proc/[0-9]*; do printf '%s ' \"\${p#/proc/}\"; tr '\\0' ' ' < \$p/cmdline; echo; done"
it_assert_rc 0
it_assert_out_lacks "sleep $marker"
n=$(grep -c . <<<"$IT_OUT")
[ "$n" -le 6 ] || it_fail "inside /proc lists $n processes, expected at most 6"
[ "$n" -ge 2 ] || it_fail "inside /proc lists $n processes; the listing did not work"
it_run 'ls /proc | grep -c "^[0-9]*$"'
[ "$IT_OUT" -le 6 ] 2>/dev/null || it_fail "ls /proc shows $IT_OUT pids"

it_check "/proc/1/cmdline has --args and no mount arguments"
it_run 'tr "\0" "\n" < /proc/1/cmdline'
it_assert_rc 0
it_assert_eq /usr/bin/bwrap "$(head -n1 <<<"$IT_OUT")" "argv[0] of pid 1"
it_assert_eq --args "$(sed -n 2p <<<"$IT_OUT")" "argv[1] of pid 1"
grep -qx '[0-9][0-9]*' <<<"$(sed -n 3p <<<"$IT_OUT")" || it_fail "argv[2] of pid 1 is not an fd number"
it_assert_eq -- "$(sed -n 4p <<<"$IT_OUT")" "argv[3] of pid 1"
for opt in --bind --ro-bind --bind-fd --ro-bind-fd --tmpfs --setenv --proc --dev --seccomp --chdir; do
  grep -qxF -- "$opt" <<<"$IT_OUT" && it_fail "pid 1 argv shows $opt"
done
it_assert_out_lacks "$IT_HOME"
