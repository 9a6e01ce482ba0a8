#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What the private network costs a session, per engine (#27): memory (PSS of
# every process a session keeps outside the sandbox) and start cost against
# network = "none", side by side in one run.
#   bench/netmem.sh [ROUNDS]     (default 20; as root: it creates two users)
# Parts: `farm-bench` pairs `bwsh -c true` private against none (when it is
# on the PATH); bench/netmem.py measures whole sessions (private: the
# default engine, slirp4netns, confined and watched, #33) and each engine
# (slirp4netns with bwsh's options, pasta with bwsh's options and with its
# optional features off) attached to a fresh namespace.  Medians of
# interleaved rounds; nothing here is a pass/fail test.
#
# On a host where users cannot open /dev/net/tun (no udev), the run happens
# in a private mount namespace with a node of mode 0666 of its own.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-20}
[ "$(id -u)" = 0 ] || { echo "bench/netmem.sh: run as root (it creates two users)" >&2; exit 1; }
if [ -z "${BWSH_NETMEM_TUN:-}" ] && ! setpriv --reuid=nobody --regid=nogroup --clear-groups \
    sh -c ': <>/dev/net/tun' 2>/dev/null; then
  echo "note: /dev/net/tun is closed to users here; measuring with a 0666 node in a private mount namespace"
  BWSH_NETMEM_TUN=1 exec unshare -m --propagation private -- sh -c \
    'mount -t tmpfs -o mode=0755 tmpfs /dev/net && mknod -m 0666 /dev/net/tun c 10 200 && exec "$@"' \
    sh sh "$0" "$@"
fi
out=$(mktemp -d /tmp/bwsh-netmem.XXXXXX)
chmod 755 "$out"
# shellcheck source=bench/netlib.sh
. "$top/bench/netlib.sh"
trap bench_net_cleanup EXIT INT TERM
# "private" is the default engine, slirp4netns (#33); pasta sessions are
# refused, so pasta is measured only attached to a namespace by itself.
bench_net_setup private none
user_slirp4netns=""
echo "== $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(pasta --version 2>/dev/null | head -n 1 || true) (passt $(dpkg-query -W -f '${Version}' passt 2>/dev/null || echo ?)), $(slirp4netns --version 2>/dev/null | head -n 1 || echo 'no slirp4netns')"
# shellcheck disable=SC2154 # set by the eval above
if command -v farm-bench >/dev/null; then
  echo "== farm-bench: bwsh -c true, private (A) against none (B), paired"
  farm-bench -n 30 --warmup 3 --timeout 600 \
    --vs "setpriv --reuid $user_none --regid $user_none --init-groups -- $bwsh -c true" \
    -- setpriv --reuid "$user_private" --regid "$user_private" --init-groups -- "$bwsh" -c true
fi
# shellcheck disable=SC2154
python3 "$top/bench/netmem.py" "$out/result.json" "$rounds" "$bwsh" "$user_private" "$user_none" "$user_private" \
  "$user_slirp4netns"
