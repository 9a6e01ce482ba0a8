#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A real race: while bwsh sessions bind ~/proj read-write, a process outside
# keeps exchanging ~/proj between a directory and a symlink to ~/.ssh
# (renameat2 RENAME_EXCHANGE, so the name always exists).  Whatever each
# session sees, ~/.ssh never gets a file: at worst the entry is refused or
# the session fails.  Bounded: at most 50 sessions and 25 seconds.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
H=$IT_HOME
# The race is on the bind's source.  With the shipped kept state the flips
# reach the home's own entries too: the first session that lists ~/proj as
# the symlink leaves that symlink in the state, which from then on shows
# instead of the real ~/proj (plan_check_state_conflict(), with a warning),
# so no later session can bind it and the loop would prove nothing.  A
# tmpfs state keeps each session's view its own.
it_user_policy 'state = "tmpfs";'
it_as_user sh -c "mkdir -m 700 '$H/.ssh' && mkdir '$H/proj' && ln -s '$H/.ssh' '$H/proj.alt'"
it_user_config "{\"preferences\":{\"sandboxBwrapMounts\":{\"additionalBinds\":[\"$H/proj\"]}}}"
stop=$IT_TMP/stop
setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups /usr/bin/python3 - "$H/proj" "$H/proj.alt" "$stop" <<'PYEOF' >"$IT_TMP/flipper.out" 2>&1 &
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b, stop = (s.encode() for s in sys.argv[1:4])
AT_FDCWD, RENAME_EXCHANGE = -100, 2
n, end = 0, time.time() + 40
while not os.path.exists(stop) and time.time() < end:
    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
        sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
    n += 1
    if n % 64 == 0:
        time.sleep(0.0005)
print("flips", n)
PYEOF
flipper=$!
it_defer kill -KILL "$flipper"
it_defer touch "$stop"

it_check "the flipper is exchanging the directory and the symlink (premise)"
sleep 0.2
kill -0 "$flipper" 2>/dev/null || it_fail "flipper died: $(cat "$IT_TMP/flipper.out")"

it_check "no session writes into ~/.ssh through the bind"
landed=0 refused=0 failed=0 runs=0
start=$SECONDS
for i in $(seq 1 50); do
  [ $((SECONDS - start)) -lt 25 ] || break
  runs=$i
  it_bwsh -c "echo evil > ~/proj/authorized_keys.$i && echo written"
  case $IT_ERR in *"$H/proj: resolves to"* | *"$H/proj: changed while it was checked"*) refused=$((refused + 1)) ;; esac
  case $IT_OUT in *written*) landed=$((landed + 1)) ;; *) failed=$((failed + 1)) ;; esac
  [ -z "$(ls -A "$H/.ssh")" ] || { it_fail "session $i wrote into ~/.ssh: $(ls -A "$H/.ssh")"; it_show; break; }
done
touch "$stop"
wait "$flipper"
it_log "runs=$runs written=$landed refused=$refused not-written=$failed; $(cat "$IT_TMP/flipper.out")"
# shellcheck disable=SC2088 # a label in the message, not a path
[ -z "$(ls -A "$H/.ssh")" ] || it_fail "~/.ssh is not empty: $(ls -A "$H/.ssh")"
n_dir=$(find "$H/proj" "$H/proj.alt" -maxdepth 1 -type f -name 'authorized_keys.*' 2>/dev/null | wc -l)
it_assert_eq "$landed" "$n_dir" "writes reported inside vs files in the real directory"

it_check "the race was really exercised (both outcomes happened)"
[ "$runs" -ge 10 ] || it_fail "only $runs sessions ran"
[ "$refused" -gt 0 ] || it_fail "no session saw the symlink: the flipper did not race"
[ "$landed" -gt 0 ] || it_fail "no session saw the directory: the bind never worked"
