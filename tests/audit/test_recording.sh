#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# record = "tty" (issue 28): an interactive ssh session of a subject runs
# under a real tlog-rec outside the sandbox, and what the user typed and saw
# is in a real journald, joined to bwsh's events by the recording id.
#   - control: without record, a session leaves no tlog record;
#   - recorded: the marker the shell printed is in tlog's records, whose
#     TLOG_REC is the one bwsh's recording event announced;
#   - from inside, no process of the recorder is visible, and a kill of every
#     process the user can reach leaves the recording whole; tlog-rec is
#     running outside meanwhile (the control that there is one to find);
#   - TLOG_REC_CONF_TEXT sent by the client (an sshd that accepts TLOG_*)
#     changes nothing, while the same variable given to tlog-rec directly
#     does redirect it (the control: the attack works on a naive wrapper);
#   - a command (ssh host CMD) is not recorded; its event says "command";
#   - record = "required" with the recorder missing refuses the session
#     with a message, exit 69 and a refused event, and nothing ran;
#     record = "tty" with it missing runs unrecorded and says so;
#   - the same when a real tlog-rec is there but fails before it starts
#     bwrap (a broken /etc/tlog/tlog-rec.conf in sshd's namespace): "required"
#     refuses, "tty" runs sandboxed and unrecorded, with a warning and its
#     event (BWSH_RECORDING=failed);
#   - issue 36: a client TERM of 3,000 bytes or not UTF-8 (which emptied the
#     recording, or stopped tlog-rec) is recorded under TERM=dumb, under
#     "tty" and "required", and the started event says so; every recording
#     id an event announced has records, unless an event says it failed;
#     tlog-rec killed after the sandbox started ends a "required" session
#     (exit 69) with a failed recording event; a command on a pty (script
#     -qec "su - USER -c CMD") is recorded; input written to the pty before
#     the prompt reaches the shell and the recording;
#   - a recorded session that floods its terminal, its sshd in a cgroup
#     named *.service so that journald rate-limits it as a unit (journald
#     restarted with RateLimitBurst=450 in 600 s): control, with tlog's
#     default limit.action "pass" (no limit) the flood uses up the unit's
#     budget (a message from a live process of the unit is dropped); with
#     "drop" (or "delay"), as doctor advises, the session-ended event is
#     there and so is such a message.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC1091
. "$(dirname "$0")/lib.sh"
# Without tlog (Debian 13), the refusal and the unrecorded cases still run.
have_tlog=true
audit_have_tlog || have_tlog=false
MSG_RECORDING=1a8e21917dfe4e299bfe3dbdfebb9ad3
MSG_RECORDING_FAILED=9e4f4c13bd2840f0861ca44be443edf9
ssh_prepare
audit_unlock_at_exit
journal_start
# tlog-rec adds a utmp record for its terminal, as a login does; a host
# with systemd has /run/utmp, this namespace's /run gets one (in its upper
# layer, never the host's /run).
in_jns sh -c 'install -m 0664 -g utmp /dev/null /run/utmp'
it_assert_rc 0
ssh_start main snippet 'AcceptEnv TLOG_*'

# interactive LINES...: an ssh -tt session typing LINES at its prompts, then exit.
# shellcheck disable=SC2034 # IT_RC is it_collect's and the assertions'
interactive()
{
  IT_RC=0
  timeout -k 5 70 python3 "$BWSH_SOURCE_DIR/tests/ssh/pty_run.py" --type "$@" -- ssh -tt -F "$SSH_CFG" "${SSH_EXTRA[@]}" t \
    >"$IT_TMP/out" 2>"$IT_TMP/err" </dev/null || IT_RC=$?
  it_collect
}
SSH_EXTRA=()

# tlog_text REC: the terminal output tlog recorded under TLOG_REC=REC.
tlog_text()
{
  journal_json "TLOG_REC=$1" | python3 -c 'import json, sys
msgs = sorted((json.loads(json.loads(l)["MESSAGE"]) for l in sys.stdin if l.strip()), key=lambda m: m["id"])
print("".join(m["out_txt"] for m in msgs))'
}

it_check "control: without record, an interactive session leaves no tlog record"
interactive 'echo CTRL-$((6*7))'
it_assert_rc 0
it_assert_out_has CTRL-42
journal_wait_for 1 "MESSAGE_ID=$MSG_ENDED" "BWSH_USER=$IT_USER" || exit 1
it_assert_eq 0 "$(journal_json "TLOG_USER=$IT_USER" | grep -c .)" "tlog records without record"
it_assert_eq 0 "$(journal_json "MESSAGE_ID=$MSG_RECORDING" | grep -c .)" "recording events without record"

# bwsh reads the build's own policy, pam_bwsh the suite's: the setting goes
# into both, for this user only (a drop-in with a match block).
DROPIN=$IT_PREFIX/etc/bwsh/conf.d/50-recording-$IT_USER.conf
mkdir -p "$IT_PREFIX/etc/bwsh/conf.d"
it_defer rm -f "$DROPIN"
# TLOG_REC_CONF_TEXT may enter the sandbox: the session then shows that the
# client's value did reach bwsh (and the recorder still ignored it).
record()
{
  local block
  block=$(printf 'match = ( { user = "%s"; record = "%s"; env_allow = [ "TLOG_REC_CONF_TEXT" ]; } );' "$IT_USER" "$1")
  printf '%s\n' "$block" >"$DROPIN"
  chmod 644 "$DROPIN"
  printf '%s\n' "$block" >>"$SSH_POLICY"
}
record tty

if $have_tlog; then
it_check "record = \"tty\": the marker is in tlog's records, under the id bwsh announced"
interactive 'echo REC-$((6*7))' 'cat /proc/1/comm'
it_assert_rc 0
it_assert_out_has REC-42
journal_wait_for 1 "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" || exit 1
ev=$(journal_json "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" | tail -n 1)
rec=$(journal_field "$ev" BWSH_TLOG_REC)
[[ $rec =~ ^[0-9a-f]{32}-[0-9a-f]+-[0-9a-f]+$ ]] || it_fail "BWSH_TLOG_REC: '$rec'"
sid=$(journal_field "$ev" BWSH_SESSION_ID)
started=$(journal_json "MESSAGE_ID=$MSG_COMMAND" "BWSH_SESSION_ID=$sid" | tail -n 1)
it_assert_eq tty "$(journal_field "$started" BWSH_RECORD)" "BWSH_RECORD of the started event"
it_assert_eq tty "$(journal_field "$started" BWSH_RECORDING)" "BWSH_RECORDING of the started event"
journal_wait_for 1 "TLOG_REC=$rec" || exit 1
text=$(tlog_text "$rec")
[[ $text == *REC-42* ]] || it_fail "the marker is not in the recording $rec: $text"
[[ $text == *bwrap* ]] || it_fail "the recording does not show the sandbox's pid 1 (bwrap): $text"
it_assert_eq "$IT_USER" "$(journal_field "$(journal_json "TLOG_REC=$rec" | head -n 1)" TLOG_USER)" TLOG_USER
# tlog's own reader plays it back from the messages.
journal_json "TLOG_REC=$rec" | python3 -c 'import json, sys
for l in sys.stdin: print(json.loads(l)["MESSAGE"])' >"$IT_TMP/rec.json"
script -qec "tlog-play -r file -i $IT_TMP/rec.json -g end" /dev/null >"$IT_TMP/play.out" 2>&1 </dev/null \
  || it_fail "tlog-play failed: $(cat "$IT_TMP/play.out")"
grep -q REC-42 "$IT_TMP/play.out" || it_fail "tlog-play does not show the marker: $(cat "$IT_TMP/play.out")"

it_check "from inside, the recorder cannot be seen or killed; outside, it runs"
# Both sessions below last until the test has looked (the release file),
# not a fixed time: on a loaded machine a login takes seconds.
UNTIL_RELEASED='while [ ! -e ~/project/release ]; do sleep 0.1; done'
rm -f "$IT_HOME/project/release"
it_defer rm -f "$IT_HOME/project/release"
timeout -k 5 70 python3 "$BWSH_SOURCE_DIR/tests/ssh/pty_run.py" --type 'echo HELD-$((6*7))' \
  'for p in /proc/[0-9]*; do cat $p/comm; done 2>/dev/null | sort -u | tr "\n" " "; echo' \
  "$UNTIL_RELEASED" 'kill -KILL -1 2>/dev/null; echo after-kill' -- ssh -tt -F "$SSH_CFG" t >"$IT_TMP/held.out" 2>&1 </dev/null &
held=$!
it_defer kill "$held"
outside=
for _ in $(seq 100); do
  outside=$(pgrep -c -x -u "$IT_USER" tlog-rec)
  # Once bwrap runs, tlog-rec's own child (briefly a second tlog-rec) has
  # become bwsh-landlock and bwrap.
  [ "$outside" -ge 1 ] && pgrep -x -u "$IT_USER" bwrap >/dev/null && break
  sleep 0.05
done
it_assert_eq 1 "$outside" "tlog-rec processes of the user on the host while the session runs"
# Beside it, a command session, which is not recorded: bwshctl sessions
# tells the two apart.
timeout -k 5 60 ssh -F "$SSH_CFG" t "$UNTIL_RELEASED" </dev/null >/dev/null 2>&1 &
cmd_session=$!
flags=
for _ in $(seq 100); do
  bwshctl_run sessions --json
  flags=$(python3 -c 'import json, sys
print(" ".join(sorted(str(s["recorded"]).lower() for s in json.loads(sys.argv[1]) if s["user"] == sys.argv[2])))' \
    "$IT_OUT" "$IT_USER" 2>/dev/null)
  [ "$flags" = "false true" ] && break
  sleep 0.1
done
it_assert_eq "false true" "$flags" "bwshctl sessions: recorded, for the command and the interactive session"
bwshctl_run sessions
grep -qE "^$IT_USER .* current +tty " <<<"$IT_OUT" || it_fail "bwshctl sessions' text does not say tty: $IT_OUT"
touch "$IT_HOME/project/release"
wait "$cmd_session"
wait "$held"
rm -f "$IT_HOME/project/release"
grep -q HELD-42 "$IT_TMP/held.out" || it_fail "the held session did not run: $(cat "$IT_TMP/held.out")"
grep -qE '(^|[^a-z])bash bwrap ' "$IT_TMP/held.out" \
  || it_fail "the held session did not list its processes: $(cat "$IT_TMP/held.out")"
! grep -q tlog "$IT_TMP/held.out" || it_fail "a tlog process is visible inside: $(cat "$IT_TMP/held.out")"
journal_wait_for 2 "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" || exit 1
rec=$(journal_field "$(journal_json "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" | tail -n 1)" BWSH_TLOG_REC)
text=$(tlog_text "$rec")
[[ $text == *HELD-42* ]] || it_fail "the held session's marker is not recorded: $text"
pgrep -x -u "$IT_USER" tlog-rec >/dev/null && it_fail "tlog-rec outlived its session"

it_check "control: TLOG_REC_CONF_TEXT redirects a tlog-rec that is given it"
redirected=$IT_TMP/redir/redirected.json
install -d -o "$IT_USER" -m 0700 "$IT_TMP/redir"
conf='{"writer":"file","file":{"path":"'$redirected'"}}'
in_jns setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups \
  env TLOG_REC_CONF_TEXT="$conf" script -qec "tlog-rec echo DIRECT" /dev/null
[ -s "$redirected" ] || it_fail "the control did not redirect tlog-rec: $IT_OUT $IT_ERR"
rm -f "$redirected"

it_check "TLOG_REC_CONF_TEXT from the ssh client changes nothing"
SSH_EXTRA=(-o "SendEnv=TLOG_REC_CONF_TEXT")
TLOG_REC_CONF_TEXT=$conf interactive 'echo ENV-$((6*7))' 'echo "inside: ${TLOG_REC_CONF_TEXT:-unset}"'
SSH_EXTRA=()
it_assert_rc 0
it_assert_out_has ENV-42
it_assert_out_has "inside: $conf"
[ ! -e "$redirected" ] || it_fail "the client's TLOG_REC_CONF_TEXT redirected the recording"
journal_wait_for 3 "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" || exit 1
rec=$(journal_field "$(journal_json "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" | tail -n 1)" BWSH_TLOG_REC)
journal_wait_for 1 "TLOG_REC=$rec" || exit 1
[[ $(tlog_text "$rec") == *ENV-42* ]] || it_fail "the session with the client's variable was not recorded"

# ids_have_records: every recording id announced for the user has tlog
# records, unless a failed recording event names it (issue 36).
ids_have_records()
{
  local id
  for id in $(journal_json "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" BWSH_RECORDING=tty \
    | python3 -c 'import json, sys
for l in sys.stdin: print(json.loads(l).get("BWSH_TLOG_REC", "none"))'); do
    journal_json "MESSAGE_ID=$MSG_RECORDING_FAILED" "BWSH_TLOG_REC=$id" | grep -q . && continue
    journal_wait_for 1 "TLOG_REC=$id" || it_fail "the recording $id was announced and has no records"
  done
}
n_recordings() { journal_json "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" BWSH_RECORDING=tty | grep -c .; }
last_recording() { journal_field "$(journal_json "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" BWSH_RECORDING=tty | tail -n 1)" BWSH_TLOG_REC; }

# TERM as the client sends it, 3,000 bytes long or not UTF-8 (issue 36),
# read through ${!term_var}.
# shellcheck disable=SC2034
LONG_TERM=$(printf 'x%.0s' $(seq 3000))
# shellcheck disable=SC2034
BAD_TERM=$'xterm\xff\xfe'
for mode in tty required; do
  record $mode
  for which in LONG BAD; do
    it_check "record = \"$mode\", a client TERM that is not a terminal name ($which): recorded under TERM=dumb"
    n=$(n_recordings)
    term_var=${which}_TERM
    TERM=${!term_var} interactive "echo T$which-\$((6*7))" 'echo "term:$TERM."'
    it_assert_rc 0
    it_assert_out_has "T$which-42"
    it_assert_out_has "term:dumb."
    journal_wait_for $((n + 1)) "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" BWSH_RECORDING=tty || exit 1
    ev=$(journal_json "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" BWSH_RECORDING=tty | tail -n 1)
    rec=$(journal_field "$ev" BWSH_TLOG_REC)
    started=$(journal_json "MESSAGE_ID=$MSG_COMMAND" "BWSH_SESSION_ID=$(journal_field "$ev" BWSH_SESSION_ID)" | tail -n 1)
    it_assert_eq dumb "$(journal_field "$started" BWSH_TERM_FALLBACK)" "BWSH_TERM_FALLBACK of the started event"
    journal_wait_for 1 "TLOG_REC=$rec" || exit 1
    [[ $(tlog_text "$rec") == *T$which-42* ]] || it_fail "the marker is not in the recording $rec"
  done
done
ids_have_records

it_check "record = \"required\", tlog-rec killed after the sandbox started: the session ends, its recording failed"
n=$(n_recordings)
timeout -k 5 70 python3 "$BWSH_SOURCE_DIR/tests/ssh/pty_run.py" --type 'echo KILLED-$((6*7))' 'sleep 30' \
  -- ssh -tt -F "$SSH_CFG" t >"$IT_TMP/killed.out" 2>&1 </dev/null &
held=$!
for _ in $(seq 200); do
  pgrep -x -u "$IT_USER" sleep >/dev/null && break
  sleep 0.05
done
journal_wait_for $((n + 1)) "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" BWSH_RECORDING=tty || exit 1
rec=$(last_recording)
pkill -KILL -x -u "$IT_USER" tlog-rec || it_fail "no tlog-rec to kill"
rc=0
wait "$held" || rc=$?
it_assert_eq 69 "$rc" "exit status of the session whose recorder was killed"
grep -q 'bwsh: the session was ended: record = "required" and the recorder /usr/bin/tlog-rec failed after it started the sandbox: it was killed by signal 9' "$IT_TMP/killed.out" \
  || it_fail "no message for the killed recorder: $(cat "$IT_TMP/killed.out")"
journal_wait_for 1 "MESSAGE_ID=$MSG_RECORDING_FAILED" "BWSH_USER=$IT_USER" BWSH_RECORDING=failed || exit 1
failed=$(journal_json "MESSAGE_ID=$MSG_RECORDING_FAILED" "BWSH_USER=$IT_USER" BWSH_RECORDING=failed | tail -n 1)
it_assert_eq "$rec" "$(journal_field "$failed" BWSH_TLOG_REC)" "BWSH_TLOG_REC of the failed event"
for _ in $(seq 100); do
  pgrep -x -u "$IT_USER" sleep >/dev/null || break
  sleep 0.05
done
pgrep -x -u "$IT_USER" sleep >/dev/null && it_fail "the session outlived its recorder"

record tty
it_check "record = \"tty\": a command on a pty (script -qec \"su - USER -c CMD\") is recorded"
n=$(n_recordings)
in_jns script -qec "su - $IT_USER -c 'echo SU-\$((6*7))'" /dev/null
it_assert_rc 0
it_assert_out_has SU-42
journal_wait_for $((n + 1)) "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" BWSH_RECORDING=tty || exit 1
rec=$(last_recording)
journal_wait_for 1 "TLOG_REC=$rec" || exit 1
[[ $(tlog_text "$rec") == *SU-42* ]] || it_fail "the command on a pty is not in the recording $rec"

it_check "record = \"tty\": input written to the pty before the prompt reaches the shell and the recording"
n=$(n_recordings)
in_jns sh -c 'printf "echo TA-\$((6*7))\nexit\n" | script -qec "su - $0" /dev/null' "$IT_USER"
it_assert_out_has TA-42
journal_wait_for $((n + 1)) "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" BWSH_RECORDING=tty || exit 1
rec=$(last_recording)
journal_wait_for 1 "TLOG_REC=$rec" || exit 1
[[ $(tlog_text "$rec") == *TA-42* ]] || it_fail "the type-ahead's output is not in the recording $rec"
# The recording event says what bwsh gave back, and the window in which
# input was lost (from its take to tlog's switch, an upper bound).
ev=$(journal_json "MESSAGE_ID=$MSG_RECORDING" "BWSH_TLOG_REC=$rec" | tail -n 1)
ta=$(journal_field "$ev" BWSH_TYPEAHEAD_BYTES)
[ "${ta:-0}" -gt 0 ] || it_fail "bwsh gave nothing back: BWSH_TYPEAHEAD_BYTES='$ta'"
echo "RESULT recording_typeahead bytes=$ta window_ms=$(journal_field "$ev" BWSH_TYPEAHEAD_MS)"
ids_have_records

fi

it_check "a command is not recorded: its event names it and says command"
before=$(journal_json "TLOG_USER=$IT_USER" | grep -c .)
ssh_run t 'echo CMD-$((6*7))'
it_assert_rc 0
it_assert_eq CMD-42 "$IT_OUT"
journal_wait_for 1 "MESSAGE_ID=$MSG_COMMAND" "BWSH_USER=$IT_USER" BWSH_RECORDING=command || exit 1
cmd_ev=$(journal_json "MESSAGE_ID=$MSG_COMMAND" "BWSH_USER=$IT_USER" BWSH_RECORDING=command | tail -n 1)
[[ $(journal_field "$cmd_ev" BWSH_COMMAND) == *'CMD-$((6*7))'* ]] \
  || it_fail "BWSH_COMMAND: $(journal_field "$cmd_ev" BWSH_COMMAND)"
it_assert_eq "$before" "$(journal_json "TLOG_USER=$IT_USER" | grep -c .)" "tlog records after a command"

it_check "record = \"tty\", recorder missing: the session runs unrecorded and its event says so"
SSH_EXTRA=(-o "SetEnv=BWSH_TEST_TLOG_REC=/nonexistent/tlog-rec")
interactive 'echo MISSING-$((6*7))'
it_assert_rc 0
it_assert_out_has MISSING-42
journal_wait_for 1 "MESSAGE_ID=$MSG_COMMAND" "BWSH_USER=$IT_USER" BWSH_RECORDING=unavailable || exit 1

it_check "record = \"required\", recorder missing: refused with its message, exit 69, nothing ran"
record required
ssh_mark
interactive 'touch ~/project/ran-unrecorded'
SSH_EXTRA=()
it_assert_rc 69
it_assert_out_has 'bwsh: cannot record the session: record = "required" and the recorder /nonexistent/tlog-rec cannot run: No such file or directory (package tlog)'
it_assert_absent "$IT_HOME/project/ran-unrecorded"
journal_wait_for 1 "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" SYSLOG_IDENTIFIER=bwsh || exit 1
refused=$(journal_json "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" SYSLOG_IDENTIFIER=bwsh | tail -n 1)
[[ $(journal_field "$refused" BWSH_REASON) == *'record = "required"'* ]] \
  || it_fail "refused BWSH_REASON: $(journal_field "$refused" BWSH_REASON)"

it_check "that refusal passes the trusted filter: pam_bwsh's session-ended, as root, says refused and why"
# bwsh runs as the user: its refusal is outside _UID=0 (the control).
it_assert_eq 0 "$(journal_json _UID=0 "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" | grep -c .)" \
  "refusals of $IT_USER root sent"
# bwsh-audit(7), TRUST: every refusal root reported, as documented (#38).
trusted() { journal_json _UID=0 "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" + _UID=0 "MESSAGE_ID=$MSG_ENDED" \
  "BWSH_USER=$IT_USER" BWSH_END_REASON=refused BWSH_END_REASON=recording-failed; }
for _ in $(seq 100); do trusted | grep -q '"BWSH_END_REASON":"refused"' && break; sleep 0.1; done
ended=$(trusted | grep '"BWSH_END_REASON":"refused"' | tail -n 1)
[ -n "$ended" ] || it_fail "no refusal under the trusted filter: $(trusted)"
it_assert_eq pam_bwsh "$(journal_field "$ended" SYSLOG_IDENTIFIER)" "who reported the refusal"
[[ $(journal_field "$ended" BWSH_REASON) == *'record = "required" and the recorder /nonexistent/tlog-rec cannot run'* ]] \
  || it_fail "BWSH_REASON of pam_bwsh's session-ended: $(journal_field "$ended" BWSH_REASON)"
# The session the killed recorder ended, too (recorded above, where tlog is).
if $have_tlog; then
  trusted | grep -q '"BWSH_END_REASON":"recording-failed"' || it_fail "the killed recorder's end is not under the filter"
fi

it_check "bwshctl check names the recorder that cannot run, with the fix: an error under \"required\""
in_jns setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups \
  env BWSH_TEST_TLOG_REC=/nonexistent/tlog-rec "$BWSHCTL" check
it_assert_rc 1
it_assert_err_has 'record = "required": the recorder /nonexistent/tlog-rec cannot run: No such file or directory (package tlog): every interactive login is refused (fix: apt-get install tlog)'

if $have_tlog; then
  it_check "record = \"required\" with the recorder there: recorded"
  interactive 'echo REQ-$((6*7))'
  it_assert_rc 0
  it_assert_out_has REQ-42
  journal_wait_for 4 "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" || exit 1

  # tlog-rec there (access() passes) but failing at run time, for real: its
  # system configuration is broken, in sshd's mount namespace only.
  mkdir -p "$IT_TMP/tlog-broken"
  printf '{ "writer": \n' >"$IT_TMP/tlog-broken/tlog-rec.conf"
  ssh_in_ns mount --bind "$IT_TMP/tlog-broken" /etc/tlog || { it_fail "cannot bind the broken tlog-rec.conf"; exit 1; }
  REC_FAILED='the recorder /usr/bin/tlog-rec failed before it started the sandbox'
  n_rec=$(journal_json "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" | grep -c .)
  n_refused=$(journal_json "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" SYSLOG_IDENTIFIER=bwsh | grep -c .)

  it_check "record = \"required\", recorder failing at run time: refused with its message, exit 69, nothing ran"
  interactive 'touch ~/project/ran-unrecorded'
  it_assert_rc 69
  it_assert_out_has 'Failed loading system configuration'
  it_assert_out_has "bwsh: cannot record the session: record = \"required\" and $REC_FAILED: it exited with status 1"
  it_assert_absent "$IT_HOME/project/ran-unrecorded"
  journal_wait_for $((n_refused + 1)) "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" SYSLOG_IDENTIFIER=bwsh || exit 1
  refused=$(journal_json "MESSAGE_ID=$MSG_REFUSED" "BWSH_USER=$IT_USER" SYSLOG_IDENTIFIER=bwsh | tail -n 1)
  [[ $(journal_field "$refused" BWSH_REASON) == *"$REC_FAILED"* ]] \
    || it_fail "refused BWSH_REASON: $(journal_field "$refused" BWSH_REASON)"
  it_assert_eq "$n_rec" "$(journal_json "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" | grep -c .)" \
    "recording events of a refused session"

  it_check "record = \"tty\", recorder failing at run time: sandboxed, unrecorded, with a warning and its event"
  record tty
  n_unavailable=$(journal_json "MESSAGE_ID=$MSG_COMMAND" "BWSH_USER=$IT_USER" BWSH_RECORDING=failed | grep -c .)
  interactive 'echo FALLBACK-$((6*7))' 'cat /proc/1/comm'
  it_assert_rc 0
  it_assert_out_has FALLBACK-42
  tr -d '\r' <"$IT_TMP/out" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' | grep -qx bwrap \
    || it_fail "the session's pid 1 is not bwrap: $(cat "$IT_TMP/out")"
  it_assert_out_has \
    "bwsh: warning: $REC_FAILED: it exited with status 1; this session runs unrecorded (record = \"tty\")"
  journal_wait_for $((n_unavailable + 1)) "MESSAGE_ID=$MSG_COMMAND" "BWSH_USER=$IT_USER" BWSH_RECORDING=failed \
    || exit 1
  it_assert_eq "$n_rec" "$(journal_json "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" | grep -c .)" \
    "recording events of an unrecorded session"

  # An entry of the user's makes the launch guarded too (shell/guard.c):
  # both watches at once.
  install -d -o "$IT_USER" -m 0755 "$IT_HOME/data" "$IT_HOME/.config" "$IT_HOME/.config/bwsh"
  echo data-visible >"$IT_HOME/data/f"
  entry=$(printf '{ "src": "%s/data", "dst": "%s/seen" }' "$IT_HOME" "$IT_HOME")
  printf '{ "preferences": { "sandboxBwrapMounts": { "additionalROBinds": [ %s ] } } }\n' "$entry" \
    >"$IT_HOME/.config/bwsh/config.json"
  chown "$IT_USER" "$IT_HOME/data/f" "$IT_HOME/.config/bwsh/config.json"
  chmod 644 "$IT_HOME/.config/bwsh/config.json"
  it_check "record = \"tty\", recorder failing, an entry of the user's: unrecorded, the entry mounted"
  interactive 'cat ~/seen/f'
  it_assert_rc 0
  it_assert_out_has data-visible
  it_assert_out_has "bwsh: warning: $REC_FAILED"
  ssh_in_ns umount /etc/tlog
  it_check "record = \"tty\", an entry of the user's: recorded under the id bwsh announced, the entry mounted"
  interactive 'echo GUARDED-$((6*7))' 'cat ~/seen/f'
  it_assert_rc 0
  it_assert_out_has data-visible
  journal_wait_for $((n_rec + 1)) "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" || exit 1
  rec=$(journal_field "$(journal_json "MESSAGE_ID=$MSG_RECORDING" "BWSH_USER=$IT_USER" | tail -n 1)" BWSH_TLOG_REC)
  journal_wait_for 1 "TLOG_REC=$rec" || exit 1
  [[ $(tlog_text "$rec") == *GUARDED-42* ]] || it_fail "the guarded session was not recorded under $rec"
  rm -f "$IT_HOME/.config/bwsh/config.json"
fi
# A flood cannot hide a session's end (issue 36).  journald rate-limits a
# sender whose cgroup names a unit, per unit and per priority pool (info and
# notice share one): pam_bwsh's session-ended event comes from the session's
# unit, as tlog-rec's entries do.  The test gives sshd such a unit.
# flood_unit NAME: sshd (and every session it starts) into NAME.service in
# each cgroup hierarchy journald may read a sender's unit from.
FLOOD_CGROUPS=()
flood_unit()
{
  local d
  for d in /sys/fs/cgroup/unified /sys/fs/cgroup/systemd /sys/fs/cgroup; do
    [ -e "$d/cgroup.procs" ] || continue
    mkdir "$d/$1.service" || return 1
    FLOOD_CGROUPS+=("$d/$1.service")
    echo "$SSHD_PID" >"$d/$1.service/cgroup.procs" || return 1
  done
  [ ${#FLOOD_CGROUPS[@]} -gt 0 ]
}
# Every process back to the root, the cgroups removed: nothing left behind.
flood_units_remove()
{
  local c p
  for c in "${FLOOD_CGROUPS[@]}"; do
    # A session's processes may still be on their way out after ssh_stop.
    for _ in $(seq 100); do
      while read -r p; do echo "$p" >"$(dirname "$c")/cgroup.procs"; done <"$c/cgroup.procs" 2>/dev/null
      rmdir "$c" 2>/dev/null || [ ! -d "$c" ] && break
      sleep 0.05
    done
  done
  FLOOD_CGROUPS=()
}
# flood_session: a recorded session that writes 4 MB to its terminal; its
# session id in $sid once sshd's processes for it are gone (its end sent),
# and a marker after it through the same socket, seen by the journal.
flood_session()
{
  local n
  n=$(journal_json "MESSAGE_ID=$MSG_COMMAND" "BWSH_USER=$IT_USER" | grep -c .)
  t0=$(date +%s%N)
  interactive 'head -c 4000000 /dev/zero | tr "\0" x; echo; echo FLOOD-$((6*7))'
  echo "RESULT recording_flood_session seconds=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')"
  it_assert_rc 0
  it_assert_out_has FLOOD-42
  journal_wait_for $((n + 1)) "MESSAGE_ID=$MSG_COMMAND" "BWSH_USER=$IT_USER" || exit 1
  sid=$(journal_field "$(journal_json "MESSAGE_ID=$MSG_COMMAND" "BWSH_USER=$IT_USER" | tail -n 1)" BWSH_SESSION_ID)
  for _ in $(seq 200); do
    pgrep -P "$SSHD_PID" >/dev/null || break
    sleep 0.05
  done
  in_jns sh -c 'printf "MESSAGE=%s\n" "$0" | logger --journald' "flood-marker-$sid"
  journal_wait_for 1 "MESSAGE=flood-marker-$sid" || exit 1
}
# unit_marker TEXT: the number of journal entries TEXT has, sent at info by
# a process of the flooded unit that stays alive until journald has read it.
# journald charges a message to a unit only when it can still read the
# sender's cgroup: pam_bwsh's session-ended event comes from a process that
# exits at once, and on a loaded machine it was read after that, charged to
# no unit and kept, in the control too.  So the controls ask with a live
# sender whether the unit's budget is used up; the drop case also asks for
# the ended event itself.
unit_marker()
{
  local text=$1 fifo=$IT_TMP/marker.fifo pid c fd n
  rm -f "$fifo" "$IT_TMP/marker.out"
  mkfifo "$fifo"
  nsenter -t "$JOURNALD_PID" -m -- python3 -c '
import socket, sys
sys.stdin.readline()
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(("MESSAGE=%s\nPRIORITY=6\n" % sys.argv[1]).encode(), "/run/systemd/journal/socket")
print("sent", flush=True)
sys.stdin.read()' "$text" <"$fifo" >"$IT_TMP/marker.out" 2>&1 &
  pid=$!
  exec {fd}>"$fifo"
  for c in "${FLOOD_CGROUPS[@]}"; do echo "$pid" >"$c/cgroup.procs"; done
  echo go >&"$fd"
  for _ in $(seq 100); do grep -q sent "$IT_TMP/marker.out" && break; sleep 0.05; done
  # One socket, read in order: once a later message is in, the marker is decided.
  in_jns sh -c 'printf "MESSAGE=%s\n" "$0" | logger --journald' "after-$text"
  journal_wait_for 1 "MESSAGE=after-$text" >/dev/null || n=error
  [ -n "${n:-}" ] || n=$(journal_json "MESSAGE=$text" | grep -c .)
  exec {fd}>&-
  wait "$pid"
  echo "$n"
}
# flood_possible: a cgroup hierarchy here in which the test may make one.
flood_possible()
{
  local d
  for d in /sys/fs/cgroup/unified /sys/fs/cgroup; do
    [ -e "$d/cgroup.procs" ] && mkdir "$d/bwsh-probe-$$.service" 2>/dev/null && rmdir "$d/bwsh-probe-$$.service" \
      && return 0
  done
  return 1
}
if $have_tlog && flood_possible; then
  record tty
  ssh_stop
  journal_stop
  # journald scales the burst with the free space (here about 2 to 2.25
  # times): some 1,000 messages an interval a unit, about twice what tlog's
  # limit (16384 bytes a second) lets through in a minute with "drop"; the
  # control's 4 MB is 2,000 messages.  The interval is ten minutes, not one:
  # on a loaded machine the control's flood took longer than a minute, the
  # budget came back before the session ended, and the control failed.
  printf '[Journal]\nRateLimitIntervalSec=600s\nRateLimitBurst=450\nRuntimeMaxUse=64M\n' >"$IT_TMP/journald-flood.conf"
  AUDIT_JOURNALD_CONF=$IT_TMP/journald-flood.conf journal_start
  in_jns sh -c 'install -m 0664 -g utmp /dev/null /run/utmp'
  ssh_start flood snippet
  it_defer flood_units_remove

  it_check "control: tlog's default limit.action (\"pass\": no limit), a flooding session uses up journald's budget of its unit"
  flood_unit "bwsh-flood-control-$$" || { it_fail "cannot put sshd into a cgroup of its own"; exit 1; }
  flood_session
  it_assert_eq 0 "$(unit_marker "unit-after-flood-$sid")" \
    "a message of the flooded unit after the flood, from a live sender (the control: the unit's budget is used up)"

  it_check "with limit.action = \"drop\" in tlog-rec.conf, as doctor advises, a flooding session's end is in the journal"
  mkdir -p "$IT_TMP/tlog-flood"
  printf '{ "limit": { "action": "drop" } }\n' >"$IT_TMP/tlog-flood/tlog-rec.conf"
  ssh_in_ns mount --bind "$IT_TMP/tlog-flood" /etc/tlog || { it_fail "cannot bind the flood's tlog-rec.conf"; exit 1; }
  flood_unit "bwsh-flood-$$" || { it_fail "cannot put sshd into a cgroup of its own"; exit 1; }
  flood_session
  it_assert_eq 1 "$(journal_json "MESSAGE_ID=$MSG_ENDED" "BWSH_SESSION_ID=$sid" | grep -c .)" \
    "session-ended events of the flooding session"
  it_assert_eq 1 "$(unit_marker "unit-after-flood-$sid")" \
    "a message of the unit after the flood, from a live sender (its budget is not used up)"
  ssh_in_ns umount /etc/tlog
  echo "RESULT recording_flood tlog_entries=$(journal_json "TLOG_USER=$IT_USER" | grep -c .)"
  ssh_stop
  flood_units_remove
else
  it_log "no writable cgroup hierarchy here: the flood of a unit is not tested"
fi
ssh_assert_no_user_processes
