#!/bin/sh
# Session start per network mode (#14), side by side: the same bwsh build,
# three users whose policy match blocks differ only in `network`.
#   bench/network.sh [ROUNDS]     (default 40; as root: it creates the users)
# Also times pasta's own start alone, for docs/performance.md.  Medians over
# interleaved rounds (bench/session.py); nothing here is a pass/fail test.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/deps.sh"
# shellcheck disable=SC2086
bwsh_install_deps $BWSH_BUILD_DEPS python3 passt
rounds=${1:-40}
[ "$(id -u)" = 0 ] || { echo "bench/network.sh: run as root (it creates three users)" >&2; exit 1; }
out=$(mktemp -d /tmp/bwsh-netbench.XXXXXX)
chmod 755 "$out"
# shellcheck source=bench/netlib.sh
. "$top/bench/netlib.sh"
trap bench_net_cleanup EXIT INT TERM
bench_net_setup private none shared

# shellcheck disable=SC2154 # set by the eval above
python3 - "$out" "$bwsh" "$user_private" "$user_none" "$user_shared" <<'PY'
import json, sys
out, bwsh, up, un, us = sys.argv[1:6]
def as_user(u, argv):
    return ["/usr/bin/setpriv", "--reuid", u, "--regid", u, "--init-groups", "--"] + argv
cmds = {
    "bwsh -c true, network shared": as_user(us, [bwsh, "-c", "true"]),
    "bwsh -c true, network none": as_user(un, [bwsh, "-c", "true"]),
    "bwsh -c true, network private": as_user(up, [bwsh, "-c", "true"]),
    # env: pasta (2023-03) will not start with SIGPIPE ignored, as Python leaves it.
    "pasta alone (own netns) -- true": as_user(up, ["/usr/bin/env", "--default-signal=PIPE", "/usr/bin/pasta", "--quiet", "--foreground", "--config-net",
                                                    "--no-map-gw", "-t", "none", "-u", "none", "-T", "none",
                                                    "-U", "none", "--", "/bin/true"]),
    "unshare -rn true": as_user(up, ["/usr/bin/unshare", "-rn", "/bin/true"]),
}
json.dump({"baseline": "bwsh -c true, network shared", "commands": cmds}, open(out + "/net.json", "w"))
PY
echo "== session start by network mode ($rounds rounds, interleaved; ratio against shared)"
python3 "$top/bench/session.py" "$out/net.json" "$rounds" "$out/net-result.json"
