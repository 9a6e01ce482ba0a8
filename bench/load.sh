#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A login's cost against the registry's load (#37): `bwsh -c true` with 0,
# 200 and 1,000 live sessions of other users on the host, and with 1,000
# stale entries (their processes gone, their close never run).
#   bench/load.sh [ROUNDS]                  (default 20; as root, a few minutes)
#   BWSH_BENCH_BEFORE=REV bench/load.sh     also builds REV (git archive) and
#                                           runs both builds side by side
# The sessions of others: real processes (sleep) of 10 other uids, registered
# as pam_bwsh registers a session (5 uids) and as bwsh registers its own
# under a stack without pam_bwsh (5 uids), by bench/registry_fill through
# each build's own registry code; stale: the same entries once their
# processes were killed.  bwsh runs as a user of its own with the shipped
# policy (network = "none"), its registry on a tmpfs, as /run is.  Per state
# and build: bwsh's instructions before the exec of bwrap (callgrind, the
# no-exec build: a count that does not depend on the machine's load), and
# the median wall and CPU time of the whole `bwsh -c true` (through setpriv,
# the same for every command), the builds interleaved round by round.
# Measured, never asserted.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "bench/load.sh: run as root (it creates a user and processes of other uids)" >&2; exit 1; }
rounds=${1:-20}
case $rounds in '' | *[!0-9]* | 0*) echo "bench/load.sh: not a number of rounds: $rounds" >&2; exit 2 ;; esac
if [ -z "${BWSH_LOAD_NS:-}" ]; then
  BWSH_LOAD_NS=1 exec unshare -m --propagation private -- sh "$0" "$@"
fi
. "$top/scripts/deps.sh"
# shellcheck disable=SC2086
bwsh_install_deps $BWSH_BUILD_DEPS python3 valgrind bubblewrap
out=$(mktemp -d /tmp/bwsh-load.XXXXXX)
chmod 755 "$out"
mkdir -p "$out/run" "$out/cg" "$out/home"
mount -t tmpfs -o mode=0755 tmpfs "$out/run"
chmod 1777 "$out/cg"
user=bwshload$$
pids=""
cleanup()
{
  # shellcheck disable=SC2086
  [ -z "$pids" ] || kill $pids 2>/dev/null || true
  userdel "$user" 2>/dev/null || true
  umount "$out/run" 2>/dev/null || true
  rm -rf "${out:?}/home" "${out:?}/cg"
}
trap cleanup EXIT
useradd -M -d "$out/home" -s /bin/sh "$user"
chown "$user:" "$out/home"

builds=after
# build NAME SOURCE: a release build and a no-exec build (bwrap path
# pointing nowhere: bwsh does all its work and fails at the exec), one
# registry for both, and the shipped policy with network = "none".
build()
{
  name=$1 d=$out/$1
  for kind in build noexec; do
    set -- -DCMAKE_BUILD_TYPE=Release -DBWSH_TESTS=OFF -DBWSH_MAN=OFF -DCMAKE_INSTALL_PREFIX="$d/stage" \
      -DBWSH_RUNSTATEDIR="$out/run/$name"
    [ "$kind" = noexec ] && set -- "$@" -DBWSH_BWRAP_PATH=/nonexistent/bwrap
    cmake -S "$src" -B "$d/$kind" "$@" >/dev/null
    cmake --build "$d/$kind" -j2 --target bwsh >"$d/$kind.log" 2>&1 || { tail -n 20 "$d/$kind.log" >&2; exit 1; }
  done
  cmake --build "$d/build" -j2 --target registry_fill >>"$d/build.log" 2>&1 || { tail -n 20 "$d/build.log" >&2; exit 1; }
  mkdir -p "$d/stage/etc/bwsh"
  sed 's/^network = "private";/network = "none";/' "$src/conf/bwsh.conf" >"$d/stage/etc/bwsh/bwsh.conf"
  chmod 644 "$d/stage/etc/bwsh/bwsh.conf"
  chmod -R a+rX "$d"
  # The registry as the package's tmpfiles.d snippet makes it at boot.
  mkdir -p "$out/run/$name/bwsh/sessions"
  chmod 0755 "$out/run/$name" "$out/run/$name/bwsh" "$out/run/$name/bwsh/sessions"
  mkdir -m 1777 "$out/run/$name/bwsh/sessions/user"
}
src=$top
build after
if [ -n "${BWSH_BENCH_BEFORE:-}" ]; then
  src=$out/before-src
  mkdir -p "$src"
  git -C "$top" archive "$BWSH_BENCH_BEFORE" | tar -x -C "$src"
  # The filler is this tree's; it calls the registry's API, which the
  # earlier tree has too.
  if [ ! -f "$src/bench/registry_fill.c" ]; then
    cp "$top/bench/registry_fill.c" "$src/bench/"
    printf '\nadd_executable(registry_fill registry_fill.c)\ntarget_link_libraries(registry_fill PRIVATE bwshcore)\n' \
      >>"$src/bench/CMakeLists.txt"
  fi
  build before
  builds="after before"
fi

# 10 other uids, 100 processes each; 20 of each registered for "200 live".
uids="61000 61001 61002 61003 61004 61005 61006 61007 61008 61009"
for u in $uids; do
  for _ in $(seq 100); do
    setpriv --reuid="$u" --regid="$u" --clear-groups sleep 3600 &
    pids="$pids $!"
    echo "$u $!" >>"$out/procs"
  done
done
# fill FROM TO: register the processes FROM..TO of every uid, in every build.
fill()
{
  from=$1 to=$2
  for u in $uids; do
    mode=pam
    [ "$u" -ge 61005 ] && mode=bwsh
    # shellcheck disable=SC2046
    set -- $(awk -v u="$u" '$1 == u { print $2 }' "$out/procs" | sed -n "${from},${to}p")
    for v in $builds; do
      "$out/$v/build/bench/registry_fill" "$mode" "$u" "$@"
    done
  done
}

python3 - "$out" "$user" "$builds" <<'PY'
import json, sys
out, user, builds = sys.argv[1], sys.argv[2], sys.argv[3].split()
cmds = {}
for v in builds:
    cmds["bwsh -c true, " + v] = {"argv": ["/usr/bin/setpriv", "--reuid", user, "--regid", user, "--init-groups",
                                          "--reset-env", out + "/" + v + "/build/shell/bwsh", "-c", "true"],
                                 "env": {"PATH": "/usr/bin:/bin"}}
json.dump({"baselines": ["bwsh -c true, " + builds[-1]], "commands": cmds}, open(out + "/session.json", "w"))
PY
# measure STATE: instructions (callgrind on the no-exec build) and times.
measure()
{
  for v in $builds; do
    setpriv --reuid="$user" --regid="$user" --init-groups --reset-env valgrind --tool=callgrind \
      --callgrind-out-file="$out/cg/$1.$v" "$out/$v/noexec/shell/bwsh" -c true >/dev/null 2>&1 || true
    printf '%s %s instructions %s\n' "$1" "$v" "$(sed -n 's/^summary: //p' "$out/cg/$1.$v")" >>"$out/results"
  done
  echo "== $1 (load $(cut -d' ' -f1-3 /proc/loadavg))"
  python3 "$top/bench/session.py" "$out/session.json" "$rounds" "$out/times.$1.json" | sed 's/^/  /'
}

echo "== $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); builds: $builds${BWSH_BENCH_BEFORE:+ (before: $BWSH_BENCH_BEFORE)}"
measure none
fill 1 20
measure live200
fill 21 100
measure live1000
# shellcheck disable=SC2086
kill $pids
wait 2>/dev/null || true
pids=""
measure stale1000

python3 - "$out" "$builds" <<'PY'
import json, sys
out, builds = sys.argv[1], sys.argv[2].split()
ins = {}
for line in open(out + "/results"):
    state, build, _, n = line.split()
    ins[(state, build)] = int(n)
names = {"none": "no other session", "live200": "200 live of other users",
         "live1000": "1,000 live of other users", "stale1000": "1,000 stale entries"}
print("== bwsh -c true against the registry's load: instructions before the exec of bwrap (callgrind),")
print("   median wall and CPU of the whole command; x: against no other session, same build")
print("%-28s %-7s %14s %7s %9s %9s" % ("state", "build", "instructions", "x", "wall ms", "CPU ms"))
for state in names:
    t = json.load(open("%s/times.%s.json" % (out, state)))
    for b in builds:
        n = ins[(state, b)]
        c = t["bwsh -c true, " + b]
        print("%-28s %-7s %14s %7.3f %9.2f %9.2f" % (names[state], b, "{:,}".format(n), n / ins[("none", b)],
                                                     c["median_ms"], c["median_cpu_ms"]))
PY
echo "results in $out"
