#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Nothing lost on the way to a collector (#28): a real
# systemd-journal-upload reads the test's journal and ships it over HTTP to a
# real systemd-journal-remote on 127.0.0.1, while N ssh sessions (100 by
# default, BWSH_FORWARD_SESSIONS) run through the real sshd in batches.
# Counted, never timed:
#   - the local journal holds, per session, exactly one session-allowed and
#     one session-ended event of pam_bwsh and one command event of bwsh, all
#     with the same BWSH_SESSION_ID, and nothing else of the user's;
#   - the collector's journal (journalctl -D on journal-remote's output)
#     holds the same events, one each, every field intact.
# What may differ on the collector, and only that: __CURSOR, __SEQNUM and
# __SEQNUM_ID (the last two printed by newer journalctl versions), which name
# an entry's place in the journal file that holds it, and journal-remote
# writes files of its own.  Everything else is compared
# value for value: the BWSH_* fields, MESSAGE, PRIORITY, the fields journald
# adds that no client can forge (_UID, _PID, _COMM, _EXE, _CMDLINE,
# _CAP_EFFECTIVE, _HOSTNAME, _MACHINE_ID, _BOOT_ID, _TRANSPORT,
# _SOURCE_REALTIME_TIMESTAMP) and both timestamps: journal-remote writes an
# entry with the __REALTIME_TIMESTAMP and __MONOTONIC_TIMESTAMP the upload
# sent, so a SIEM sees when the event happened, not when it arrived.
# Then an outage (#36): the collector stops while 10 more sessions (30
# events) run; journal-upload exits at its first failed connect, and is run
# again every second, as the shipped drop-in
# (conf/systemd/systemd-journal-upload.service.d/bwsh.conf, which
# systemd-analyze verify accepts) makes systemd do; the collector comes
# back and all 30 arrive, each duplicate recognisable as one: the same
# _BOOT_ID, __MONOTONIC_TIMESTAMP and __REALTIME_TIMESTAMP as an entry
# already there (what the sending host's cursor is made of).
# shellcheck disable=SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
audit_unlock_at_exit
journal_start
ssh_start main
N=${BWSH_FORWARD_SESSIONS:-100}
BATCH=${BWSH_FORWARD_BATCH:-10}
REMOTE_DIR=$IT_TMP/remote
REMOTE_PID=
UPLOAD_PID=

# forward_tool NAME: the path of systemd's NAME (Debian 12: /lib/systemd).
forward_tool()
{
  local p
  for p in /lib/systemd/$1 /usr/lib/systemd/$1; do
    [ -x "$p" ] && { printf '%s\n' "$p"; return 0; }
  done
  it_fail "$1 is missing (package systemd-journal-remote)"
  exit 1
}

forward_stop()
{
  local p
  for p in "$UPLOAD_PID" "$REMOTE_PID"; do
    [ -n "$p" ] || continue
    kill -TERM "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  UPLOAD_PID=''
  REMOTE_PID=''
}

forward_logs()
{
  it_log "journal-remote: $(tail -n 20 "$IT_TMP/remote.log" 2>/dev/null)"
  it_log "journal-upload: $(tail -n 20 "$IT_TMP/upload.log" 2>/dev/null)"
}

# forward_start: journal-remote on a free port of 127.0.0.1 writing into
# $REMOTE_DIR, then journal-upload following the test's journal there.
# Both run on the host: the journal's files are in $JOURNAL_DIR (the upper
# layer of journald's /run), and 127.0.0.1 is the host's.
forward_start()
{
  local remote upload port try up=0
  remote=$(forward_tool systemd-journal-remote)
  upload=$(forward_tool systemd-journal-upload)
  mkdir -p "$REMOTE_DIR"
  it_defer forward_stop
  for try in 1 2 3 4 5; do
    port=$(ssh_free_port)
    "$remote" --listen-http="127.0.0.1:$port" --output="$REMOTE_DIR/" </dev/null >"$IT_TMP/remote.log" 2>&1 &
    REMOTE_PID=$!
    for _ in $(seq 100); do
      kill -0 "$REMOTE_PID" 2>/dev/null || break
      # shellcheck disable=SC2016
      if timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' sh "$port" 2>/dev/null; then
        up=1
        break
      fi
      sleep 0.05
    done
    [ "$up" = 1 ] && break
    wait "$REMOTE_PID" 2>/dev/null
    REMOTE_PID=
    grep -q "Address already in use" "$IT_TMP/remote.log" || break
    it_log "port $port taken (try $try)"
  done
  [ "$up" = 1 ] || { forward_logs; it_fail "systemd-journal-remote did not start"; exit 1; }
  REMOTE_PORT=$port
  "$upload" --url="http://127.0.0.1:$port" --directory="$JOURNAL_DIR" --follow=yes \
    --save-state="$IT_TMP/upload.state" </dev/null >"$IT_TMP/upload.log" 2>&1 &
  UPLOAD_PID=$!
  it_log "journal-remote pid $REMOTE_PID on 127.0.0.1:$port into $REMOTE_DIR, journal-upload pid $UPLOAD_PID"
}

# run_sessions FIRST LAST: ssh sessions FIRST..LAST, $BATCH at a time; the
# number that failed in $failed.
run_sessions()
{
  local i j k rc pids
  failed=0
  for ((i = $1; i <= $2; i += BATCH)); do
    pids=()
    for ((j = i; j < i + BATCH && j <= $2; j++)); do
      timeout -k 5 120 ssh -F "$SSH_CFG" t true </dev/null >"$IT_TMP/s-$j.out" 2>"$IT_TMP/s-$j.err" &
      pids+=($!)
    done
    for ((k = 0; k < ${#pids[@]}; k++)); do
      rc=0
      wait "${pids[$k]}" || rc=$?
      if [ "$rc" != 0 ]; then
        failed=$((failed + 1))
        [ "$failed" -le 3 ] && it_fail "session $((i + k)): rc=$rc err=$(head -c 300 "$IT_TMP/s-$((i + k)).err")"
      fi
    done
  done
}

# count DIR MESSAGE_ID: that journal's events of the test user with that id.
count()
{
  journalctl -D "$1" -o json --no-pager "MESSAGE_ID=$2" "BWSH_USER=$IT_USER" 2>/dev/null | grep -c .
}

# wait_counts DIR WANT WHAT: poll (bounded, 90 s) until DIR holds WANT
# session-allowed, command and session-ended events of the user each.
wait_counts()
{
  local dir=$1 want=$2 what=$3 a=0 c=0 e=0
  for _ in $(seq 180); do
    a=$(count "$dir" "$MSG_ALLOWED")
    c=$(count "$dir" "$MSG_COMMAND")
    e=$(count "$dir" "$MSG_ENDED")
    [ "$a" -ge "$want" ] && [ "$c" -ge "$want" ] && [ "$e" -ge "$want" ] && return 0
    sleep 0.5
  done
  it_fail "$what: after 90 s, $a allowed, $c command and $e ended events of $want each"
  return 1
}

forward_start

it_check "$N ssh sessions, $BATCH at a time, all run"
t0=$(date +%s%N)
run_sessions 1 "$N"
t1=$(date +%s%N)
it_assert_eq 0 "$failed" "failed sessions"

it_check "the local journal: one allowed, one command and one ended event per session, joined by BWSH_SESSION_ID"
wait_counts "$JOURNAL_DIR" "$N" "the local journal" || { tail -n 20 "$IT_TMP/journald.log" >&2; exit 1; }
journal_json "BWSH_USER=$IT_USER" >"$IT_TMP/local.json"
# shellcheck disable=SC2016
python3 - "$IT_TMP/local.json" "$N" "$MSG_ALLOWED" "$MSG_COMMAND" "$MSG_ENDED" <<'PY' || it_fail "the local journal's events"
import collections, json, re, sys
path, n, allowed, command, ended = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
events = [json.loads(l) for l in open(path) if l.strip()]
origin = {allowed: "pam_bwsh", command: "bwsh", ended: "pam_bwsh"}
bad = []
per_id = collections.defaultdict(list)
for e in events:
    mid, sid = e.get("MESSAGE_ID"), e.get("BWSH_SESSION_ID", "")
    if mid not in origin:
        bad.append("an event of another kind: %s %s" % (mid, e.get("MESSAGE")))
        continue
    if e.get("SYSLOG_IDENTIFIER") != origin[mid]:
        bad.append("%s written by %s" % (e.get("BWSH_EVENT"), e.get("SYSLOG_IDENTIFIER")))
    if not re.fullmatch("[0-9a-f]{32}", sid):
        bad.append("%s without a session id: %r" % (e.get("BWSH_EVENT"), sid))
    per_id[sid].append(mid)
if len(per_id) != n:
    bad.append("%d session ids, not %d" % (len(per_id), n))
for sid, mids in per_id.items():
    if sorted(mids) != sorted([allowed, command, ended]):
        bad.append("session %s: %s" % (sid, sorted(collections.Counter(mids).items())))
for b in bad[:10]:
    print("FAIL: " + b, file=sys.stderr)
print("local: %d events, %d sessions" % (len(events), len(per_id)), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
it_assert_eq 0 "$(count "$JOURNAL_DIR" "$MSG_REFUSED")" "refused events"
it_assert_eq 0 "$(count "$JOURNAL_DIR" "$MSG_LIMIT")" "limit events"

it_check "the collector's journal: the same events, one each, every field intact"
wait_counts "$REMOTE_DIR" "$N" "the collector (journal-upload to journal-remote)" || { forward_logs; exit 1; }
t2=$(date +%s%N)
journalctl -D "$REMOTE_DIR" -o json --no-pager "BWSH_USER=$IT_USER" >"$IT_TMP/remote.json" 2>/dev/null
python3 - "$IT_TMP/local.json" "$IT_TMP/remote.json" <<'PY' || it_fail "the collector's events differ from the local ones"
import json, sys
# An entry's place in the file that holds it, which journal-remote writes
# afresh; nothing else may differ.
PLACE = {"__CURSOR", "__SEQNUM", "__SEQNUM_ID"}
MUST = {"MESSAGE", "BWSH_SESSION_ID", "BWSH_PLAN_DIGEST", "_UID", "_PID", "_BOOT_ID", "_MACHINE_ID",
        "_SOURCE_REALTIME_TIMESTAMP", "__REALTIME_TIMESTAMP", "__MONOTONIC_TIMESTAMP"}

def load(path):
    got, dup = {}, []
    for line in open(path):
        if not line.strip():
            continue
        e = json.loads(line)
        key = (e.get("MESSAGE_ID"), e.get("BWSH_SESSION_ID"))
        if key in got:
            dup.append(key)
        got[key] = {k: v for k, v in e.items() if k not in PLACE}
    return got, dup

local, ldup = load(sys.argv[1])
remote, rdup = load(sys.argv[2])
bad = ["twice in the local journal: %s" % (k,) for k in ldup]
bad += ["twice on the collector: %s" % (k,) for k in rdup]
bad += ["missing on the collector: %s" % (k,) for k in sorted(local.keys() - remote.keys())]
bad += ["only on the collector: %s" % (k,) for k in sorted(remote.keys() - local.keys())]
fields = 0
for key in sorted(local.keys() & remote.keys()):
    l, r = local[key], remote[key]
    missing = MUST - l.keys()
    if missing:
        bad.append("%s: no %s in the local entry" % (key, sorted(missing)))
    for f in sorted(l.keys() | r.keys()):
        if l.get(f) != r.get(f):
            bad.append("%s: %s is %r locally, %r on the collector" % (key, f, l.get(f), r.get(f)))
    fields += len(l)
for b in bad[:10]:
    print("FAIL: " + b, file=sys.stderr)
print("collector: %d events compared, %d fields, %d differences" % (len(local.keys() & remote.keys()), fields, len(bad)),
      file=sys.stderr)
sys.exit(1 if bad or fields == 0 else 0)
PY
it_check "a recorded session (record = \"tty\"): tlog's own entries reach the collector too"
if command -v tlog-rec >/dev/null; then
  audit_record_tty
  # shellcheck disable=SC2016 # expanded by the session's shell
  timeout -k 5 70 python3 "$BWSH_SOURCE_DIR/tests/ssh/pty_run.py" --type 'echo FWD-$((6*7))' -- \
    ssh -tt -F "$SSH_CFG" t >"$IT_TMP/rec.out" 2>&1 </dev/null || it_fail "the recorded session failed: $(cat "$IT_TMP/rec.out")"
  journal_wait_for 1 "MESSAGE_ID=1a8e21917dfe4e299bfe3dbdfebb9ad3" "BWSH_USER=$IT_USER" || exit 1
  rec=$(journal_field "$(journal_json "MESSAGE_ID=1a8e21917dfe4e299bfe3dbdfebb9ad3" "BWSH_USER=$IT_USER" | tail -n 1)" BWSH_TLOG_REC)
  arrived=0
  for _ in $(seq 300); do
    arrived=$(journalctl -D "$REMOTE_DIR" -o json --no-pager "TLOG_REC=$rec" 2>/dev/null | grep -c 'FWD-42')
    [ "$arrived" -ge 1 ] && break
    sleep 0.1
  done
  [ "$arrived" -ge 1 ] || { forward_logs; it_fail "tlog's entries of recording $rec did not reach the collector"; }
  [ "$(journalctl -D "$REMOTE_DIR" -o json --no-pager "MESSAGE_ID=1a8e21917dfe4e299bfe3dbdfebb9ad3" "BWSH_TLOG_REC=$rec" \
    2>/dev/null | grep -c .)" = 1 ] || it_fail "bwsh's recording event of $rec is not on the collector"
else
  . "$BWSH_SOURCE_DIR/scripts/deps.sh"
  [ -z "$(bwsh_available tlog)" ] || { it_fail "tlog-rec is missing (package tlog)"; exit 1; }
  it_log "this release has no tlog package: no recorded session to forward"
fi

kill -0 "$UPLOAD_PID" 2>/dev/null || { forward_logs; it_fail "journal-upload exited"; }
kill -0 "$REMOTE_PID" 2>/dev/null || { forward_logs; it_fail "journal-remote exited"; }
printf 'RESULT audit_forward sessions=%s sessions_seconds=%s collector_seconds=%s\n' "$N" \
  "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')" \
  "$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')"

it_check "the shipped journal-upload drop-in: systemd-analyze verify accepts it, restarts forever"
unit=$(dirname "$(forward_tool systemd-journal-upload)")/system/systemd-journal-upload.service
[ -f "$unit" ] || unit=/usr/lib/systemd/system/systemd-journal-upload.service
mkdir -p "$IT_TMP/units/systemd-journal-upload.service.d"
cp "$unit" "$IT_TMP/units/"
cp "$BWSH_SOURCE_DIR/conf/systemd/systemd-journal-upload.service.d/bwsh.conf" \
  "$IT_TMP/units/systemd-journal-upload.service.d/"
SYSTEMD_LOG_LEVEL=debug systemd-analyze verify "$IT_TMP/units/systemd-journal-upload.service" \
  >"$IT_TMP/verify.out" 2>&1 || it_fail "systemd-analyze verify: $(cat "$IT_TMP/verify.out")"
! grep -E 'bwsh\.conf:[0-9]+:' "$IT_TMP/verify.out" || it_fail "systemd-analyze verify complains about the drop-in"
grep -q 'DropIn Path: .*/bwsh.conf' "$IT_TMP/verify.out" || it_fail "the drop-in was not read: $(head -c 600 "$IT_TMP/verify.out")"
grep -qE '^\s*Restart: always' "$IT_TMP/verify.out" || it_fail "the drop-in does not set Restart=always"

it_check "the collector stopped for 30 events: journal-upload, run again as systemd would, delivers them all"
kill -TERM "$REMOTE_PID"
wait "$REMOTE_PID" 2>/dev/null
REMOTE_PID=
run_sessions $((N + 1)) $((N + 10))
it_assert_eq 0 "$failed" "failed sessions during the outage"
wait_counts "$JOURNAL_DIR" $((N + 10)) "the local journal during the outage" || exit 1
# journal-upload gives up at its first failed connect (the reason for the
# drop-in); Restart=always runs it again, RestartSec later: here every second.
exited=0
for _ in $(seq 600); do
  kill -0 "$UPLOAD_PID" 2>/dev/null || { exited=1; break; }
  sleep 0.1
done
wait "$UPLOAD_PID" 2>/dev/null
it_assert_eq 1 "$exited" "journal-upload exited while the collector was down"
upload=$(forward_tool systemd-journal-upload)
# The loop is UPLOAD_PID: forward_stop's TERM ends it and the upload it runs.
# shellcheck disable=SC2016
bash -c 'trap "kill \$c 2>/dev/null; wait \$c; exit 0" TERM
  while :; do
    "$1" --url="$2" --directory="$3" --follow=yes --save-state="$4" </dev/null >>"$5" 2>&1 &
    c=$!; wait $c; sleep 1
  done' sh "$upload" "http://127.0.0.1:$REMOTE_PORT" "$JOURNAL_DIR" "$IT_TMP/upload.state" "$IT_TMP/upload.log" &
UPLOAD_PID=$!
remote=$(forward_tool systemd-journal-remote)
"$remote" --listen-http="127.0.0.1:$REMOTE_PORT" --output="$REMOTE_DIR/" </dev/null >>"$IT_TMP/remote.log" 2>&1 &
REMOTE_PID=$!
wait_counts "$REMOTE_DIR" $((N + 10)) "the collector after the outage" || { forward_logs; exit 1; }
journalctl -D "$REMOTE_DIR" -o json --no-pager "BWSH_USER=$IT_USER" >"$IT_TMP/remote.json" 2>/dev/null
journal_json "BWSH_USER=$IT_USER" >"$IT_TMP/local.json"
python3 - "$IT_TMP/local.json" "$IT_TMP/remote.json" <<'PY' || it_fail "the events after the outage"
import json, sys
# What a SIEM compares: the sending host's machine, boot and both
# timestamps, which are what its cursor (__CURSOR) is made of; journal-remote
# gives every entry a cursor of its own, so a copy's differs.
key = lambda e: (e.get("_MACHINE_ID"), e.get("_BOOT_ID"), e.get("__MONOTONIC_TIMESTAMP"), e.get("__REALTIME_TIMESTAMP"))
local = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
remote = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
lkeys, rkeys = {key(e) for e in local}, {key(e) for e in remote}
dups = len(remote) - len(rkeys)
print("after the outage: %d events locally, %d on the collector, %d distinct, %d duplicates, %d missing"
      % (len(local), len(remote), len(rkeys), dups, len(lkeys - rkeys)), file=sys.stderr)
print("RESULT audit_forward_outage local=%d collector=%d duplicates=%d missing=%d"
      % (len(local), len(remote), dups, len(lkeys - rkeys)))
sys.exit(0 if len(lkeys) == len(local) and lkeys == rkeys else 1)
PY
forward_stop
ssh_assert_no_user_processes
