#!/bin/bash
# A login storm (#27): 100 ssh sessions of one user started at once all
# run, sandboxed, and leave no process and no registry entry behind; with
# max_sessions = 3, a storm of 20 concurrent logins admits exactly 3
# (pam_bwsh registers and counts under the registry's lock, core/session/registry.c).
# Counts only: the time is printed, never asserted.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
ssh_start main snippet
N=${BWSH_SSH_STORM_SESSIONS:-100}
REG=$IT_PREFIX/run/bwsh/sessions

# storm N CMD [THEN]: N ssh sessions running CMD, all started before any is
# waited for; $IT_TMP/storm-I.{out,err,rc} per session.  LogLevel INFO: a
# refusal by the account stage reaches the client as a banner.  THEN, when
# given, runs (with N) once all are started, before they are waited for.
storm()
{
  local n=$1 cmd=$2 then=${3:-} i pids=()
  rm -f "$IT_TMP"/storm-*.out "$IT_TMP"/storm-*.err "$IT_TMP"/storm-*.rc
  for i in $(seq "$n"); do
    { rc=0; timeout -k 5 120 ssh -F "$SSH_CFG" -o LogLevel=INFO t "$cmd" </dev/null >"$IT_TMP/storm-$i.out" \
        2>"$IT_TMP/storm-$i.err" || rc=$?; echo "$rc" >"$IT_TMP/storm-$i.rc"; } &
    pids+=($!)
  done
  [ -z "$then" ] || "$then" "$n"
  wait "${pids[@]}"
}

# The admitted sessions of a max_sessions storm last until every login of
# the storm was decided (admitted: it printed so; refused: its client
# ended), not a fixed time: an admitted session that ended before a slow
# login reached its count would let that login in.
UNTIL_RELEASED='echo admitted; while [ ! -e ~/project/release ]; do sleep 0.1; done'
release_when_decided()
{
  local n=$1 i decided=0
  for _ in $(seq 1300); do
    decided=0
    for i in $(seq "$n"); do
      if [ -e "$IT_TMP/storm-$i.rc" ] || grep -qx admitted "$IT_TMP/storm-$i.out" 2>/dev/null; then
        decided=$((decided + 1))
      fi
    done
    [ "$decided" = "$n" ] && break
    sleep 0.1
  done
  [ "$decided" = "$n" ] || it_log "only $decided of $n logins decided in 130 s"
  touch "$IT_HOME/project/release"
}
rm -f "$IT_HOME/project/release"
it_defer rm -f "$IT_HOME/project/release"
# registry_entries: the test user's entries in the registry (pam_bwsh's and
# bwsh's own): REG/uid/UID/NAME (pam_bwsh's) and REG/user/UID/NAME (bwsh's).
# Only the user's: the registry is shared with the tests that ran before and
# beside this one, whose entries are theirs to check.
registry_entries()
{
  find "$REG/uid/$IT_UID" "$REG/user/$IT_UID" -maxdepth 1 -type f ! -name '.*' 2>/dev/null | wc -l
}
# registry_drained: 0 once sshd has closed every session.  The ssh client
# returns when the channel closes, and sshd runs pam_close_session (which
# removes pam_bwsh's entry) after that, in its own time: under load, seconds
# later.  Up to 30 s; then the entries left, with whether their process
# lives, for the log.
registry_drained()
{
  local n e
  for _ in $(seq 300); do
    n=$(registry_entries)
    [ "$n" = 0 ] && break
    sleep 0.1
  done
  if [ "$n" != 0 ]; then
    find "$REG/uid/$IT_UID" "$REG/user/$IT_UID" -maxdepth 1 -type f ! -name '.*' 2>/dev/null | while read -r e; do
      e=$(basename "$e")
      it_log "left: $e (process ${e%%-*} $([ -d "/proc/${e%%-*}" ] && echo alive || echo gone))"
    done
  fi
  echo "$n"
}

it_check "$N sessions started at once all run sandboxed"
t0=$(date +%s%N)
storm "$N" 'sleep 1; cat /proc/1/comm'
t1=$(date +%s%N)
ok=0
for i in $(seq "$N"); do
  if [ "$(cat "$IT_TMP/storm-$i.rc")" = 0 ] && [ "$(cat "$IT_TMP/storm-$i.out")" = bwrap ]; then
    ok=$((ok + 1))
  elif [ $((N - ok)) -le 3 ]; then
    it_fail "session $i: rc=$(cat "$IT_TMP/storm-$i.rc") out=$(cat "$IT_TMP/storm-$i.out") err=$(head -c 300 "$IT_TMP/storm-$i.err")"
  fi
done
it_assert_eq "$N" "$ok" "sessions that ran sandboxed"
printf 'RESULT ssh_storm sessions=%s wall_seconds=%s\n' "$N" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')"
ssh_assert_no_user_processes
it_assert_eq 0 "$(registry_drained)" "registry entries once every session ended"

it_check "max_sessions = 3: a storm of 20 concurrent logins admits exactly 3"
printf 'max_sessions = 3;\n' >>"$SSH_POLICY"
storm 20 "$UNTIL_RELEASED" release_when_decided
rm -f "$IT_HOME/project/release"
admitted=0 refused=0
for i in $(seq 20); do
  if grep -qx admitted "$IT_TMP/storm-$i.out"; then
    admitted=$((admitted + 1))
  # The account stage's refusal is a banner on stderr; one that passed it
  # and lost the race at registration is refused by the session stage,
  # whose line sshd prints on stdout (pam_bwsh(8)).
  elif [ "$(cat "$IT_TMP/storm-$i.rc")" != 0 ] \
    && grep -q "at most 3 are allowed (max_sessions)" "$IT_TMP/storm-$i.err" "$IT_TMP/storm-$i.out"; then
    refused=$((refused + 1))
  else
    it_log "login $i: rc=$(cat "$IT_TMP/storm-$i.rc") err=$(head -c 300 "$IT_TMP/storm-$i.err")"
  fi
done
it_assert_eq 3 "$admitted" "logins admitted"
it_assert_eq 17 "$refused" "logins refused with the max_sessions reason"
ssh_assert_no_user_processes
it_assert_eq 0 "$(registry_drained)" "registry entries once every session ended"
