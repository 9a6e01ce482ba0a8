#!/bin/sh
# bwsh benchmarks: one run prints medians and paired ratios, side by side.
#   bench/run.sh [ROUNDS]      (default 40 rounds; a few minutes on 2 cores)
# Installs what it needs from Debian (firejail, valgrind, python3), builds a
# release tree of its own, and runs as the invoking user (the pam_bwsh and
# shipped-policy figures need root, like sshd).  Nothing here is a pass/fail
# test: the targets in docs/performance.md are goals, reported.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/deps.sh"
# shellcheck disable=SC2086
bwsh_install_deps $BWSH_BUILD_DEPS python3 valgrind firejail time
rounds=${1:-40}
out=${BWSH_BENCH_OUT:-$(mktemp -d /tmp/bwsh-bench.XXXXXX)}
mkdir -p "$out"
chmod 755 "$out"
b="$out/build"
stage="$out/stage"
root=false
[ "$(id -u)" = 0 ] && root=true
# The policy is read from $stage/etc/bwsh: the shipped one when root can own
# it (bwsh trusts only a root-owned policy), else none (the defaults).
cmake -S "$top" -B "$b" -DCMAKE_BUILD_TYPE=Release -DBWSH_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$stage" \
  -DBWSH_RUNSTATEDIR="$out/run" >/dev/null
cmake --build "$b" -j2 >/dev/null
# Same tree, bwrap path pointing nowhere: bwsh does all its work, fails at
# the exec and exits, so memory and instructions of bwsh alone can be read.
cmake -S "$top" -B "$out/noexec" -DCMAKE_BUILD_TYPE=Release -DBWSH_TESTS=OFF -DBWSH_BENCH=OFF \
  -DBWSH_BWRAP_PATH=/nonexistent/bwrap -DCMAKE_INSTALL_PREFIX="$stage" >/dev/null
cmake --build "$out/noexec" -j2 --target bwsh >/dev/null
mkdir -p "$stage/etc/bwsh"
# network = "none": the floor execs bwrap alone, so the plan it is compared
# with must start no pasta either; bench/network.sh measures each network
# mode against the others.
$root && sed 's/^network = "private";/network = "none";/' "$top/conf/bwsh.conf" >"$stage/etc/bwsh/bwsh.conf"
$root && chmod 644 "$stage/etc/bwsh/bwsh.conf"
$root && grep -q '^network = "none";' "$stage/etc/bwsh/bwsh.conf"
chmod -R a+rX "$out"
policy=defaults
$root && policy="the shipped conf/bwsh.conf with network = \"none\""

bwsh="$b/shell/bwsh"
"$b/bench/plan_cost" seccomp-out "$out/seccomp.bpf"
"$b/shell/bwshctl" explain --json >"$out/explain.json"

# The floor: bench/floor.c with this plan's options and bwsh's filter built in.
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
argv = json.load(open(out + "/explain.json"))["argv"]
opts = argv[1:argv.index("--")] + ["--seccomp", "3"]
blob = b"".join(a.encode() + b"\0" for a in opts)
bpf = open(out + "/seccomp.bpf", "rb").read()
arr = lambda data: ",".join(str(c) for c in data)
# The same options with each bind's source as an O_PATH fd, as bwsh hands
# them to bwrap (--ro-bind-fd, --bind-fd; fds from 4 up, the filter at 3).
fd_opts, sources, k = [], [], 0
while k < len(opts):
    if opts[k] in ("--ro-bind", "--bind"):
        sources.append(opts[k + 1])
        fd_opts += [opts[k] + "-fd", str(3 + len(sources)), opts[k + 2]]
        k += 3
    else:
        fd_opts.append(opts[k])
        k += 1
fd_blob = b"".join(a.encode() + b"\0" for a in fd_opts)
with open(out + "/floor_data.h", "w") as h:
    h.write("static const char floor_bwrap[] = %s;\n" % json.dumps(argv[0]))
    h.write("static const unsigned char floor_args[] = { %s };\n" % arr(blob))
    h.write("static const unsigned char floor_seccomp[] = { %s };\n" % arr(bpf))
    h.write("static const unsigned char floor_fd_args[] = { %s };\n" % arr(fd_blob))
    h.write("static const char *const floor_fd_sources[] = { %s };\n"
            % ", ".join([json.dumps(x) for x in sources] + ["0"]))
PY
cc -O2 -I"$out" -o "$out/floor" "$top/bench/floor.c"
# What bwsh makes bwrap do beyond the floor, one thing at a time (#37).
cc -O2 -I"$out" -DFLOOR_FDS -o "$out/floor-fds" "$top/bench/floor.c"
cc -O2 -I"$out" -DFLOOR_FDS -DFLOOR_CONFINE -o "$out/floor-confined" "$top/bench/floor.c"
cc -O2 -I"$out" -DFLOOR_BWRAP='"/nonexistent/bwrap"' -o "$out/floor-noexec" "$top/bench/floor.c"

python3 - "$out" "$bwsh" <<'PY'
import json, sys
out, bwsh = sys.argv[1], sys.argv[2]
e = json.load(open(out + "/explain.json"))
argv = e["argv"]
i = argv.index("--")
opts = argv[1:i]
# The same plan bwsh runs: explain's command line plus the same seccomp filter.
same = {"argv": ["/usr/bin/bwrap"] + opts + ["--seccomp", "9", "--", "/bin/bash", "-c", "--", "true"],
        "open": {"9": out + "/seccomp.bpf"}, "env": {}}
seed = ["/usr/bin/bwrap", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin",
        "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--proc", "/proc",
        "--dev", "/dev", "--unshare-all", "--die-with-parent", "--", "/bin/bash", "-c", "true"]
cmds = {"bwsh -c true": [bwsh, "-c", "true"],
        "floor: same plan": {"argv": [out + "/floor"], "env": {}},
        "floor + bind sources as fds": {"argv": [out + "/floor-fds"], "env": {}},
        "floor + fds, Landlock, limits": {"argv": [out + "/floor-confined"], "env": {}},
        "bwrap, same plan": same,
        "bwrap, seed's minimal args": seed,
        "firejail --noprofile true": ["/usr/bin/firejail", "--quiet", "--noprofile", "/bin/true"],
        "firejail true (default profile)": ["/usr/bin/firejail", "--quiet", "/bin/true"],
        "bash -c true": ["/bin/bash", "-c", "true"]}
json.dump({"baselines": ["floor: same plan", "bwrap, same plan"], "commands": cmds},
          open(out + "/session.json", "w"))
PY
# firejail refuses to run inside some containers; keep it out if it cannot start.
if ! /usr/bin/firejail --quiet --noprofile /bin/true >/dev/null 2>&1; then
  python3 - "$out/session.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for k in [k for k in s["commands"] if k.startswith("firejail")]:
    del s["commands"][k]
json.dump(s, open(sys.argv[1], "w"))
PY
  echo "(firejail cannot start here; left out)"
fi

echo "== session start ($rounds rounds, interleaved; policy: $policy)"
python3 "$top/bench/session.py" "$out/session.json" "$rounds" "$out/session-result.json"
python3 - "$out/session-result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def show(what, cmd, base):
    c = r[cmd]
    print("  %-30s wall %.3f  CPU %.3f" % (what, c["paired_ratio_vs_" + base], c["paired_cpu_ratio_vs_" + base]))
show("bwsh / floor (goal <= 1.05)", "bwsh -c true", "floor: same plan")
show("bwsh / bare bwrap", "bwsh -c true", "bwrap, same plan")
show("floor + fds / floor", "floor + bind sources as fds", "floor: same plan")
show("floor + fds, Landlock / floor", "floor + fds, Landlock, limits", "floor: same plan")
if "firejail --noprofile true" in r:
    show("firejail --noprofile / floor", "firejail --noprofile true", "floor: same plan")
PY

echo "== instructions before the exec of bwrap (callgrind; the same on any x86-64 Debian 12)"
count ()
{
  valgrind --tool=callgrind --callgrind-out-file="$out/cg.tmp" "$@" >/dev/null 2>&1 || true
  sed -n 's/^summary: //p' "$out/cg.tmp"
}
printf '  %-36s %10s\n' "floor (same plan)" "$(count "$out/floor-noexec")"
if $root; then
  printf '  %-36s %10s\n' "bwsh -c true, shipped policy" "$(count "$out/noexec/shell/bwsh" -c true)"
  mv "$stage/etc/bwsh/bwsh.conf" "$out/bwsh.conf.aside"
fi
printf '  %-36s %10s\n' "bwsh -c true, no policy file" "$(count "$out/noexec/shell/bwsh" -c true)"
/usr/bin/time -o "$out/rss" -f "%M" "$out/noexec/shell/bwsh" -c true >/dev/null 2>&1 || true
$root && mv "$out/bwsh.conf.aside" "$stage/etc/bwsh/bwsh.conf"
printf '  peak RSS of bwsh, no policy file: %s KiB\n' "$(tail -n 1 "$out/rss" 2>/dev/null || echo "?")"

home=$(getent passwd "$(id -un)" | cut -d: -f6)
data=$(mktemp -d "$home/.cache/bwsh-bench.XXXXXX" 2>/dev/null || { mkdir -p "$home/.cache" && mktemp -d "$home/.cache/bwsh-bench.XXXXXX"; })
python3 -c 'import os, sys
for k in range(1000): os.mkdir("%s/d%d" % (sys.argv[1], k))' "$data"

echo "== plan cost alone (median of 200; times hold only on this machine)"
for n in 10 100 1000; do
  printf '  parse+build+render, %4d entries (redundant, not resolved): %8.1f us\n' "$n" \
    "$(echo "$("$b/bench/plan_cost" plan "$n" 200) / 1000" | bc -l)"
done
for n in 100 1000; do
  printf '  the same + resolve and open, %4d distinct binds:           %8.1f us\n' "$n" \
    "$(echo "$("$b/bench/plan_cost" session "$n" 50 "$data") / 1000" | bc -l)"
done
echo "== plan cost growth, 100 -> 1,000 distinct binds (callgrind, one plan; goal: x12 or less)"
for n in 100 1000; do
  valgrind --tool=callgrind --toggle-collect=plan_once --callgrind-out-file="$out/cg.plan$n" \
    "$b/bench/plan_cost" session "$n" 1 "$data" >/dev/null 2>&1
done
i100=$(sed -n 's/^summary: //p' "$out/cg.plan100")
i1000=$(sed -n 's/^summary: //p' "$out/cg.plan1000")
printf '  %s instructions at 100, %s at 1,000: x%.2f\n' "$i100" "$i1000" "$(echo "$i1000 / $i100" | bc -l)"

echo "== mount count: 100 read-only binds under \$HOME, before and after coalescing"
python3 - "$out" "$data" <<'PY'
import json, sys
out, data = sys.argv[1], sys.argv[2]
argv = json.load(open(out + "/explain.json"))["argv"]; i = argv.index("--")
binds = []
for k in range(100):
    binds += ["--ro-bind", "%s/d%d" % (data, k), "%s/d%d" % (data, k)]
# Without coalescing bwrap would get these 100 extra binds; bwsh drops them,
# since the read-only $HOME bind already shows each one identically.
tail = ["--seccomp", "9", "--", "/bin/bash", "-c", "true"]
before = {"argv": ["/usr/bin/bwrap"] + argv[1:i] + binds + tail, "open": {"9": out + "/seccomp.bpf"}, "env": {}}
after = {"argv": ["/usr/bin/bwrap"] + argv[1:i] + tail, "open": {"9": out + "/seccomp.bpf"}, "env": {}}
json.dump({"baseline": "after: coalesced", "commands": {"before: 100 extra binds": before,
           "after: coalesced": after}}, open(out + "/mounts.json", "w"))
PY
python3 "$top/bench/session.py" "$out/mounts.json" "$((rounds / 2))"
rm -rf "$data"

echo "== pam_bwsh: open_session + close_session for a subject (median of 200; ms hold only on this machine)"
if $root; then
  pu=bwsh-bench-$$
  ph=$(mktemp -d /tmp/bp.XXXXXX)
  useradd -M -d "$ph" -s /bin/false "$pu" 2>/dev/null
  mkdir -p "$ph/.config/bwsh" "$out/pam.d" "$out/policy"
  python3 -c 'import os, sys
for k in range(1000): os.makedirs("%s/data/d%d" % (sys.argv[1], k))' "$ph"
  chown -R "$pu:" "$ph"
  chmod 755 "$ph"
  # bwsh-bench is no login-shell service: the policy has to allow it.
  printf 'subjects = { users = ["%s"]; };\nrequire_shell = false;\nmax_mounts = 1024;\nallowed_services = ["bwsh-bench"];\n' "$pu" >"$out/policy/bwsh.conf"
  chmod 755 "$out/policy"; chmod 644 "$out/policy/bwsh.conf"
  printf 'session required %s policy=%s\n' "$b/pam_module/pam_bwsh.so" "$out/policy/bwsh.conf" \
    >"$out/pam.d/bwsh-bench"
  printf '  %-44s %10s %10s %14s\n' "user overlay" "wall us" "CPU us" "instructions"
  for kind in redundant distinct; do
    for n in 0 100 1000; do
      [ "$kind" = distinct ] && [ "$n" = 0 ] && continue
      python3 - "$ph" "$n" "$kind" <<'PY'
import json, sys
h, n, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
e = [("%s/data/d%d" % (h, k)) if kind == "redundant" else {"src": "%s/data/d%d" % (h, k), "dst": "/srv/d%d" % k}
     for k in range(n)]
json.dump({"preferences": {"sandboxBwrapMounts": {"additionalROBinds": e}}},
          open(h + "/.config/bwsh/config.json", "w"), separators=(",", ":"))
PY
      chown "$pu:" "$ph/.config/bwsh/config.json"
      case $kind in
        redundant) what="$n binds under the read-only \$HOME" ;;
        *) what="$n distinct binds (each reaches bwrap)" ;;
      esac
      ns=$("$b/bench/pam_cost" "$out/pam.d" bwsh-bench "$pu" 200 2>&1) || ns="failed: $ns"
      # One session open and close, the whole process (pam_start included).
      ir=$(count "$b/bench/pam_cost" "$out/pam.d" bwsh-bench "$pu" 1)
      # shellcheck disable=SC2086
      set -- $ns
      printf '  %-44s %10.1f %10.1f %14s\n' "$what" "$(echo "$1 / 1000" | bc -l)" "$(echo "${2:-0} / 1000" | bc -l)" "$ir"
    done
  done
  userdel "$pu" 2>/dev/null || true
  # Nothing may stay owned by a uid that the next useradd hands out again.
  rm -rf "$ph"
else
  echo "  (needs root, like sshd: skipped)"
fi
echo "results in $out"
