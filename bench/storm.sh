#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Login storms (#27): N bwsh sessions released at once, for one user and for
# N different users, with network "none" and "private".
#   bench/storm.sh [N...]     (default 50 100 200; as root: it creates max(N)
#                              users, bwstPID-0..., and removes them at the end)
# Per cell (bench/storm.py): the sessions that failed and why; p50, p99 and
# max of the start time, from the exec of bwsh to the command running in
# the sandbox; the wall time from the release to the last start; CPU time
# and time spent waiting for a CPU per session; and the live registry
# entries once all had started, against the sessions running (and any
# directory of bwsh-netns's left in /tmp after the end).  The policy
# sets max_sessions to N, so that one entry counted too many in the storm
# of one user refuses a session.  Then the largest storm of one user again
# (max_sessions = 0, as shipped) with network "shared" (no network
# namespace), "none" and "private", each broken down by process and, where
# `perf lock` works, by the kernel locks its sessions waited for; with
# "none", bwsh's own instructions are counted (callgrind) with no live
# session and with the storm's live: the registry's count.  That is what
# serialises a storm.
# Measured, never asserted; it exits non-zero only when it cannot run.
# About 10 to 15 minutes on 2 CPUs for the default sizes.
#
# The sessions' registry is on a tmpfs, as /run is; on a host where users
# cannot open /dev/net/tun (no udev), the run happens in a private mount
# namespace with a node of mode 0666 of its own.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "bench/storm.sh: run as root (it creates the users of the storm)" >&2; exit 1; }
for n in "$@"; do
  case $n in
    '' | *[!0-9]* | 0*) echo "bench/storm.sh: not a number of sessions: $n" >&2; exit 2 ;;
  esac
done
if [ -z "${BWSH_STORM_NS:-}" ]; then
  BWSH_STORM_NS=1 exec unshare -m --propagation private -- sh "$0" "$@"
fi
. "$top/scripts/deps.sh"
# shellcheck disable=SC2086
bwsh_install_deps $BWSH_BUILD_DEPS python3 passt bubblewrap valgrind
[ $# -gt 0 ] || set -- 50 100 200
max=0
for n in "$@"; do [ "$n" -gt "$max" ] && max=$n; done

if ! setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c ': <>/dev/net/tun' 2>/dev/null; then
  echo "note: /dev/net/tun is closed to users here; measuring with a 0666 node in a private mount namespace"
  mount -t tmpfs -o mode=0755 tmpfs /dev/net
  mknod -m 0666 /dev/net/tun c 10 200
fi

out=$(mktemp -d /tmp/bwsh-storm.XXXXXX)
chmod 755 "$out"
users=""
cleanup()
{
  trap '' INT TERM
  for u in $users; do
    # By pid: only processes of the users this run made.
    for p in $(ps -o pid= -u "$u" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
    # What a storm's failed sessions left in /tmp (storm.py counts them).
    find /tmp -maxdepth 1 -name 'bwsh-net.*' -user "$u" -exec rm -rf {} + 2>/dev/null || true
    userdel -f "$u" 2>/dev/null || true
  done
  umount "$out/run" 2>/dev/null || true
  # Nothing may stay owned by a uid that the next useradd hands out again.
  rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

stage=$out/stage
b=$out/build
mkdir "$out/run"
mount -t tmpfs -o mode=0755 tmpfs "$out/run"
cmake -S "$top" -B "$b" -DCMAKE_BUILD_TYPE=Release -DBWSH_TESTS=OFF -DBWSH_BENCH=OFF -DBWSH_MAN=OFF \
  -DCMAKE_INSTALL_PREFIX="$stage" -DBWSH_RUNSTATEDIR="$out/run" >/dev/null
cmake --build "$b" -j2 >"$out/build.log" 2>&1 || { tail -n 20 "$out/build.log" >&2; exit 1; }
cmake --install "$b" >/dev/null
# The same, its bwrap path pointing nowhere: bwsh does all its work, the
# registry's included, then fails at the exec, so callgrind can count it.
cmake -S "$top" -B "$out/noexec" -DCMAKE_BUILD_TYPE=Release -DBWSH_TESTS=OFF -DBWSH_BENCH=OFF -DBWSH_MAN=OFF \
  -DBWSH_BWRAP_PATH=/nonexistent/bwrap -DCMAKE_INSTALL_PREFIX="$stage" -DBWSH_RUNSTATEDIR="$out/run" >/dev/null
cmake --build "$out/noexec" -j2 --target bwsh >>"$out/build.log" 2>&1 || { tail -n 20 "$out/build.log" >&2; exit 1; }
chmod -R a+rX "$out/noexec"
# The registry (run/bwsh/sessions, and its users' part bwsh writes to as
# the user) as the package's tmpfiles.d makes it.
systemd-tmpfiles --create "$stage/lib/tmpfiles.d/bwsh.conf"
[ -d "$out/run/bwsh/sessions/user" ] || { echo "bench/storm.sh: no registry in $out/run" >&2; exit 1; }
[ -x "$stage/libexec/bwsh/bwsh-netns" ] || { echo "bench/storm.sh: no network helper in $stage" >&2; exit 1; }
chmod -R a+rX,go-w "$stage"
bwsh=$stage/bin/bwsh

# policy MODE MAX: the shipped policy with network = MODE and max_sessions = MAX.
policy()
{
  sed -e "s/^network = \"private\";/network = \"$1\";/" -e "s/^max_sessions = 0;/max_sessions = $2;/" \
    "$top/conf/bwsh.conf" >"$stage/etc/bwsh/bwsh.conf"
  chmod 0644 "$stage/etc/bwsh/bwsh.conf"
  if ! grep -q "^network = \"$1\";" "$stage/etc/bwsh/bwsh.conf" \
    || ! grep -q "^max_sessions = $2;" "$stage/etc/bwsh/bwsh.conf"; then
    echo "bench/storm.sh: conf/bwsh.conf no longer has the network and max_sessions lines" >&2
    exit 1
  fi
}

mkdir -m 0755 "$out/home"
i=0
while [ "$i" -lt "$max" ]; do
  u=bwst$$-$i
  useradd -M -d "$out/home/$u" -s "$bwsh" "$u"
  users="$users $u"
  install -d -o "$u" -g "$(id -g "$u")" -m 0755 "$out/home/$u"
  i=$((i + 1))
done
# user_list K: the first K users, comma-separated.
user_list() { echo "$users" | tr ' ' '\n' | sed '/^$/d' | head -n "$1" | paste -sd, -; }

# A first session in each mode warms the caches (bwrap, pasta, the policy).
for mode in none private; do
  policy "$mode" 0
  setpriv --reuid "bwst$$-0" --regid "bwst$$-0" --init-groups -- "$bwsh" -c true </dev/null \
    || { echo "bench/storm.sh: a single session with network \"$mode\" fails here" >&2; exit 1; }
done

echo "== $(date -u +%FT%TZ), $(nproc) CPUs, $(free -g | awk '/^Mem/ { print $2 }') GB, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), $(bwrap --version), pasta $(dpkg-query -W -f '${Version}' passt 2>/dev/null || echo ?)"
echo "== login storms: N sessions released at once; start = exec of bwsh to the command running in the sandbox"
echo "   (p50, p99, max: ms, of the sessions that started; wall: release to the last start; cpu: all CPUs busy"
echo "   meanwhile, whoever used them; cpu_ms, wait_ms: CPU time and time waiting for a CPU per session started;"
echo "   registry: live entries / sessions running, once all have started or failed; left: entries after the end)"
hdr()
{
  printf '%-8s %5s %5s %6s %7s %7s %7s %6s %5s %7s %8s %9s %5s\n' network N users failed p50 p99 max wall_s cpu \
    cpu_ms wait_ms registry left
}
hdr
mkdir "$out/cells"
cell=0
# storm MODE N USERS MAX [ARG...]: one storm and its row, with max_sessions =
# MAX (ARG: storm.py's options).
storm()
{
  s_mode=$1 s_n=$2 s_users=$3 s_max=$4
  shift 4
  policy "$s_mode" "$s_max"
  cell=$((cell + 1))
  d=$out/cells/$cell-$s_mode-$s_n-$s_users
  mkdir "$d"
  printf '%-8s ' "$s_mode"
  STORM_DIR=$d python3 "$top/bench/storm.py" "$bwsh" "$stage/bin/bwshctl" "$s_n" "$(user_list "$s_users")" \
    --json "$d/result.json" "$@"
  # The namespaces of the sessions that ended are torn down by the kernel
  # after they exit: let that finish before the next storm.
  sleep $((2 + s_n / 50))
}
for mode in none private; do
  for n in "$@"; do
    storm "$mode" "$n" 1 "$n"
    storm "$mode" "$n" "$n" "$n"
  done
done

echo "== where the time goes: $max sessions of one user, network shared (no network namespace), none, private"
perf=false
# perf's lock tracepoints, when this kernel has them and perf can read them.
if command -v perf >/dev/null && perf lock record -o "$out/perf.check" -- true >/dev/null 2>&1; then
  perf=true
else
  echo "   (perf lock record does not work here: the kernel locks are left out; Debian: linux-perf)"
fi
echo "   (max_sessions = 0 here, as shipped: a registration counts the live entries once; with a limit,"
echo "   admission counts them too.  With network none, bwsh's own instructions are counted with no live session"
echo "   and with the storm's: the registry's count)"
hdr
for mode in shared none private; do
  set -- --detail
  $perf && set -- "$@" --perf-lock "$out/cells/perf-$mode.data"
  [ "$mode" = none ] && set -- "$@" --registry-cost "$out/noexec/shell/bwsh"
  storm "$mode" "$max" 1 0 "$@"
done
echo "== done; $(cut -d' ' -f1-3 /proc/loadavg) load at the end"
