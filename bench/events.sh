#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Audit events under load (#28): are all of them in the journal?
#   bench/events.sh [SESSIONS] [REPLAY]   (default 500 and 50000; as root:
#                                          it creates a user and a cgroup)
# Each run starts a real systemd-journald of its own in a private mount
# namespace (as tests/audit/lib.sh does: /run an overlay, an empty
# /var/log/journal, and here a journald.conf of the run's bound over
# /etc/systemd/journald.conf), then starts SESSIONS sessions
# `bwsh -c true` as fast as it can ($BWSH_BENCH_JOBS at a time, default
# 2 x CPUs) as an unprivileged user, and counts.  Without pam_bwsh in the
# way, bwsh itself writes exactly one event per session: session-allowed
# (SYSLOG_IDENTIFIER=bwsh), with an id of its own; no session-ended (bwsh
# execs bwrap, nothing of bwsh is left to see the end).
#
# journald rate-limits per unit (the unit of the sender's cgroup) and per
# priority group, RateLimitBurst messages per RateLimitIntervalSec window,
# the burst scaled with the free space of the journal's file system; a
# sender in no unit (a cgroup that names none, as every process of a host
# without systemd as PID 1) is never limited.  So the runs put the sessions
# in a cgroup named like a unit (bwsh-bench-PID.service, made at the root of
# the cgroup2 hierarchy and removed at the end), except the first.  REPLAY
# sends that many copies of a real session-allowed event (each with an id of
# its own), from the same unit, as fast as a socket takes them: what no
# machine starting real sessions reaches, to find the default limit.
# Dropped counts are journald's own ("Suppressed N messages from UNIT",
# N_DROPPED=), written when the next window opens: a run that dropped sends
# one more event once its window has closed.  Nothing here is a pass/fail
# test.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/deps.sh"
# shellcheck disable=SC2086
bwsh_install_deps $BWSH_BUILD_DEPS python3 bubblewrap systemd util-linux
[ "$(id -u)" = 0 ] || { echo "bench/events.sh: run as root (it creates a user and a cgroup)" >&2; exit 1; }
sessions=${1:-500}
replay=${2:-50000}
jobs=${BWSH_BENCH_JOBS:-$(($(nproc) * 2))}
jd=/lib/systemd/systemd-journald
[ -x "$jd" ] || jd=/usr/lib/systemd/systemd-journald
[ -x "$jd" ] || { echo "bench/events.sh: no systemd-journald" >&2; exit 1; }
[ -f /etc/systemd/journald.conf ] || { echo "bench/events.sh: no /etc/systemd/journald.conf to bind over" >&2; exit 1; }
MSG_ALLOWED=eab9f77944e548f091e1a8baf642bbcd
# SD_MESSAGE_JOURNAL_DROPPED: journald's "Suppressed N messages from UNIT".
MSG_DROPPED=a596d6fe7bfa4994828e72309e95d61e

out=$(mktemp -d /tmp/bwsh-evbench.XXXXXX)
chmod 755 "$out"
user=""
jpid=""
cg=""
burst=""
unit=bwsh-bench-$$.service

journal_stop()
{
  [ -n "$jpid" ] || return 0
  kill "$jpid" 2>/dev/null || true
  wait "$jpid" 2>/dev/null || true
  jpid=""
}

cleanup()
{
  set +e
  journal_stop
  if [ -n "$user" ]; then
    pkill -KILL -u "$user" 2>/dev/null
    userdel "$user" 2>/dev/null
  fi
  [ -n "$cg" ] && rmdir "$cg" 2>/dev/null
  rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The cgroup2 hierarchy: /sys/fs/cgroup (unified) or /sys/fs/cgroup/unified
# (hybrid); journald reads the unit from there.
for base in /sys/fs/cgroup /sys/fs/cgroup/unified; do
  [ "$(stat -fc %T "$base" 2>/dev/null)" = cgroup2fs ] && break
  base=""
done
[ -n "$base" ] || { echo "bench/events.sh: no cgroup2 hierarchy: journald would see no unit" >&2; exit 1; }
cg=$base/$unit
mkdir "$cg"

cmake -S "$top" -B "$out/build" -DCMAKE_BUILD_TYPE=Release -DBWSH_TESTS=OFF -DBWSH_BENCH=OFF \
  -DCMAKE_INSTALL_PREFIX="$out/stage" -DBWSH_RUNSTATEDIR="$out/run" >/dev/null
cmake --build "$out/build" -j2 --target bwsh >/dev/null
systemd-tmpfiles --create "$out/build/bwsh.tmpfiles"
bwsh=$out/build/shell/bwsh
chmod -R a+rX "$out/build"
mkdir -p "$out/stage/etc/bwsh"
# network = "none": a session is bwsh and bwrap alone, as fast as they go
# (bench/network.sh has what pasta adds).
sed 's/^network = "private";/network = "none";/' "$top/conf/bwsh.conf" >"$out/stage/etc/bwsh/bwsh.conf"
grep -q '^network = "none";' "$out/stage/etc/bwsh/bwsh.conf"
chmod 0644 "$out/stage/etc/bwsh/bwsh.conf"
chmod -R go-w "$out/stage"
user=$(printf '%.32s' "bwsh-ev-$$")
useradd -M -d "$out/home" -s "$bwsh" "$user"
install -d -o "$user" -g "$(id -g "$user")" -m 0755 "$out/home"

# journal_start NAME CONF [UNIT-BURST]: a fresh journald with CONF as its
# journald.conf; UNIT-BURST, when given, is the unit's LogRateLimitBurst=,
# handed over as PID 1 does (/run/systemd/units/log-rate-limit-burst:UNIT).
journal_start()
{
  jdir=$out/j-$1
  mkdir -p "$jdir/up/systemd/units" "$jdir/work" "$jdir/var"
  printf '%s\n' "$2" >"$jdir/journald.conf"
  [ -z "${3:-}" ] || ln -s "$3" "$jdir/up/systemd/units/log-rate-limit-burst:$unit"
  # shellcheck disable=SC2016
  unshare -m --propagation private -- /bin/sh -c '
    set -e
    mount -t overlay overlay -o "lowerdir=/run,upperdir=$1/up,workdir=$1/work" /run
    mount --bind "$1/var" /var/log/journal
    mount --bind "$1/journald.conf" /etc/systemd/journald.conf
    for d in /etc/systemd/journald.conf.d /usr/lib/systemd/journald.conf.d; do
      [ ! -d "$d" ] || mount -t tmpfs tmpfs "$d"
    done
    mkdir -p /run/systemd/journal
    exec "$2"' sh "$jdir" "$jd" </dev/null >"$jdir/journald.log" 2>&1 &
  jpid=$!
  i=0
  while [ ! -S "$jdir/up/systemd/journal/socket" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
  [ -S "$jdir/up/systemd/journal/socket" ] || { cat "$jdir/journald.log" >&2; echo "journald did not start" >&2; exit 1; }
  jdir=$jdir/up/log/journal
}

# in_journal [unit|nounit] CMD...: CMD as the user, in journald's namespace
# (its socket), in the bench's unit or in the cgroup the bench runs in.
in_journal()
{
  where=$1
  shift
  # shellcheck disable=SC2016
  sh -c '[ "$1" != unit ] || echo $$ >"$2/cgroup.procs"; shift 2; exec "$@"' sh "$where" "$cg" \
    nsenter -t "$jpid" -m -- setpriv --reuid="$user" --regid="$user" --init-groups -- "$@"
}

# sessions WHERE N: N sessions, $jobs at a time; sets rate (sessions per
# second) and failed.
sessions()
{
  t0=$(date +%s%N)
  # shellcheck disable=SC2016
  failed=$(seq "$2" | in_journal "$1" xargs -P "$jobs" -n 1 sh -c '"$1" -c true </dev/null >/dev/null 2>&1 || echo F' sh "$bwsh" \
    | grep -c F || true)
  t1=$(date +%s%N)
  rate=$(awk -v n="$2" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", n / ((b - a) / 1e9) }')
}

sync_journal() { nsenter -t "$jpid" -m -- journalctl --sync; }

# kept: session-allowed events of the user in the journal; loose: those of
# them without the bench's unit (journald names the unit from
# /proc/PID/cgroup when it reads the message: a sender that is gone by then
# has none, and no limit applies); dropped: the sum of journald's
# N_DROPPED; seen_unit: the unit journald saw.
count()
{
  sync_journal
  kept=$(journalctl -D "$jdir" -o cat --output-fields=MESSAGE_ID --no-pager "MESSAGE_ID=$MSG_ALLOWED" "BWSH_USER=$user" | grep -c . || true)
  loose=$(journalctl -D "$jdir" -o cat --output-fields=MESSAGE_ID --no-pager "MESSAGE_ID=$MSG_ALLOWED" "BWSH_USER=$user" \
    "_SYSTEMD_UNIT=$unit" | grep -c . || true)
  loose=$((kept - loose))
  dropped=$(journalctl -D "$jdir" -o cat --output-fields=N_DROPPED --no-pager "MESSAGE_ID=$MSG_DROPPED" \
    | awk '{ s += $1 } END { print s + 0 }')
  seen_unit=$(journalctl -D "$jdir" -o cat --output-fields=_SYSTEMD_UNIT --no-pager "MESSAGE_ID=$MSG_ALLOWED" \
    "BWSH_USER=$user" -n 1 | grep . || echo "(none)")
}

# close_window SECONDS: wait for the window to close, then one more session
# in the unit, so that journald writes what it dropped in the last one.
close_window()
{
  sleep "$1"
  in_journal unit "$bwsh" -c true </dev/null >/dev/null 2>&1 || failed=$((failed + 1))
}

row()
{
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$seen_unit" "$3" "$4" "$kept" "$loose" "$dropped" \
    "$(($3 + ${5:-0} - kept - dropped))"
}

echo "== $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), systemd $(dpkg-query -W -f '${Version}' systemd 2>/dev/null || echo ?), $jobs sessions at a time"
echo "| run | journald.conf | unit journald saw | events sent | sessions/s (events/s) | kept | kept with no unit | dropped (journald's count) | unaccounted |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|"

default_conf='[Journal]'
journal_start nounit "$default_conf"
sessions nounit "$sessions"
count
row "$sessions sessions, the bench's own cgroup" "defaults" "$sessions" "$rate"
[ "$failed" = 0 ] || echo "  ($failed sessions failed)"
journal_stop

journal_start unit "$default_conf"
sessions unit "$sessions"
count
row "$sessions sessions in one unit" "defaults" "$sessions" "$rate"
[ "$failed" = 0 ] || echo "  ($failed sessions failed)"
# What journald says of its space: the burst grows with it (below).
space=$(journalctl -D "$jdir" -o cat --no-pager -t systemd-journald | grep -m 1 'Runtime Journal' || true)
template=$(journalctl -D "$jdir" -o json --no-pager "MESSAGE_ID=$MSG_ALLOWED" "BWSH_USER=$user" -n 1)
journal_stop

journal_start replay "$default_conf"
t0=$(date +%s%N)
# shellcheck disable=SC2016
printf '%s\n' "$template" | in_journal unit /usr/bin/python3 -c '
import json, os, socket, sys
n = int(sys.argv[1])
ev = json.loads(sys.stdin.readline())
keep = {k: v for k, v in ev.items() if not k.startswith("_")}
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.connect("/run/systemd/journal/socket")
def field(k, v):
    v = v.encode()
    if b"\n" not in v:
        return k.encode() + b"=" + v + b"\n"
    return k.encode() + b"\n" + len(v).to_bytes(8, "little") + v + b"\n"
for _ in range(n):
    keep["BWSH_SESSION_ID"] = os.urandom(16).hex()
    s.send(b"".join(field(k, v) for k, v in keep.items()))
' "$replay"
t1=$(date +%s%N)
failed=0
rate=$(awk -v n="$replay" -v a="$t0" -v b="$t1" 'BEGIN { printf "(%.0f)", n / ((b - a) / 1e9) }')
sent=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
close_window 31
count
row "$replay copies of a session-allowed event, one unit, sent in $sent s; then 1 session after 31 s" "defaults" "$replay" "$rate" 1
# The window's share: all but the session that opened the next window.
[ "$dropped" = 0 ] || burst="$((kept - 1)) in the first 30 s"
journal_stop

# The default interval, a burst low enough for real sessions to reach.
low='[Journal]
RateLimitBurst=20'
journal_start low "$low"
sessions unit "$sessions"
close_window 31
count
row "$sessions sessions in one unit; then 1 session after 31 s" "RateLimitBurst=20" "$sessions" "$rate" 1
[ "$failed" = 0 ] || echo "  ($failed sessions failed)"
journal_stop

journal_start unitburst "$low" 100000
sessions unit "$sessions"
count
row "$sessions sessions in one unit whose LogRateLimitBurst=100000" "RateLimitBurst=20" "$sessions" "$rate"
[ "$failed" = 0 ] || echo "  ($failed sessions failed)"
journal_stop

echo "journald: ${space:-(no space line)}"
echo "default burst, measured: ${burst:-not reached: no event dropped}"
echo "kept with no unit: the sender was gone when journald read the message, so no limit applied to it"
echo "unaccounted = sent - kept - dropped: an event neither written nor counted as dropped"
