#!/bin/sh
# bwsh benchmarks: one run prints medians and paired ratios, side by side.
#   bench/run.sh [ROUNDS]      (default 40 rounds; about a minute on 2 cores)
# Installs what it needs from Debian (firejail, valgrind, python3), builds a
# release tree of its own, and runs as the invoking user.  Nothing here is a
# pass/fail test: the targets in docs/performance.md are goals, reported.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/deps.sh"
# shellcheck disable=SC2086
bwsh_install_deps $BWSH_BUILD_DEPS python3 valgrind firejail time
rounds=${1:-40}
out=${BWSH_BENCH_OUT:-$(mktemp -d /tmp/bwsh-bench.XXXXXX)}
b="$out/build"
cmake -S "$top" -B "$b" -DCMAKE_BUILD_TYPE=Release -DBWSH_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$out/stage" >/dev/null
cmake --build "$b" -j"$(nproc)" >/dev/null
# Same tree, bwrap path pointing nowhere: bwsh does all its work, fails at
# the exec and exits, so memory and instructions of bwsh alone can be read.
cmake -S "$top" -B "$out/noexec" -DCMAKE_BUILD_TYPE=Release -DBWSH_TESTS=OFF -DBWSH_BENCH=OFF \
  -DBWSH_BWRAP_PATH=/nonexistent/bwrap >/dev/null
cmake --build "$out/noexec" -j"$(nproc)" --target bwsh >/dev/null
chmod -R a+rX "$out"

bwsh="$b/shell/bwsh"
"$b/bench/plan_cost" seccomp-out "$out/seccomp.bpf"
"$b/shell/bwshctl" explain --json >"$out/explain.json"

python3 - "$out" "$bwsh" <<'PY'
import json, sys
out, bwsh = sys.argv[1], sys.argv[2]
e = json.load(open(out + "/explain.json"))
argv = e["argv"]
i = argv.index("--")
opts = argv[1:i]
# The same plan bwsh runs: explain's command line plus the same seccomp filter.
same = {"argv": ["/usr/bin/bwrap"] + opts + ["--seccomp", "9", "--", "/bin/bash", "-c", "true"],
        "open": {"9": out + "/seccomp.bpf"}, "env": {}}
seed = ["/usr/bin/bwrap", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin",
        "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--proc", "/proc",
        "--dev", "/dev", "--unshare-all", "--die-with-parent", "--", "/bin/bash", "-c", "true"]
cmds = {"bwsh -c true": [bwsh, "-c", "true"],
        "bwrap, same plan": same,
        "bwrap, seed's minimal args": seed,
        "firejail --noprofile true": ["/usr/bin/firejail", "--quiet", "--noprofile", "/bin/true"],
        "firejail true (default profile)": ["/usr/bin/firejail", "--quiet", "/bin/true"],
        "bash -c true": ["/bin/bash", "-c", "true"]}
json.dump({"baseline": "bwrap, same plan", "commands": cmds}, open(out + "/session.json", "w"))
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

echo "== session start ($rounds rounds, interleaved)"
python3 "$top/bench/session.py" "$out/session.json" "$rounds" "$out/session-result.json"

echo "== plan cost alone (policy defaults, overlay parse, validation, merge, render; median of 200)"
for n in 10 100 1000; do
  printf '  %4d entries: %8.1f us\n' "$n" "$(echo "$("$b/bench/plan_cost" plan "$n" 200) / 1000" | bc -l)"
done

echo "== mount count: 100 read-only binds under \$HOME, before and after coalescing"
home=$(getent passwd "$(id -un)" | cut -d: -f6)
data="$home/.cache/bwsh-bench"
mkdir -p "$data"
python3 - "$out" "$data" "$bwsh" <<'PY'
import json, os, sys
out, data, bwsh = sys.argv[1], sys.argv[2], sys.argv[3]
e = json.load(open(out + "/explain.json"))
argv = e["argv"]; i = argv.index("--")
binds = []
for k in range(100):
    d = "%s/d%d" % (data, k)
    os.makedirs(d, exist_ok=True)
    binds += ["--ro-bind", d, d]
# Without coalescing bwrap would get these 100 extra binds; bwsh drops them,
# since the read-only $HOME bind already shows each one identically.
before = {"argv": ["/usr/bin/bwrap"] + argv[1:i] + binds + ["--seccomp", "9", "--", "/bin/bash", "-c", "true"],
          "open": {"9": out + "/seccomp.bpf"}, "env": {}}
after = {"argv": ["/usr/bin/bwrap"] + argv[1:i] + ["--seccomp", "9", "--", "/bin/bash", "-c", "true"],
         "open": {"9": out + "/seccomp.bpf"}, "env": {}}
json.dump({"baseline": "after: coalesced", "commands": {"before: 100 extra binds": before,
           "after: coalesced": after}}, open(out + "/mounts.json", "w"))
PY
python3 "$top/bench/session.py" "$out/mounts.json" "$((rounds / 2))"
rm -rf "$data"

echo "== pam_bwsh: open_session + close_session for a subject (median of 200)"
if [ "$(id -u)" = 0 ]; then
  pu=bwsh-bench-$$
  useradd -M -d "$out/home-$pu" -s /bin/false "$pu" 2>/dev/null
  mkdir -p "$out/home-$pu" && chown "$pu:" "$out/home-$pu"
  mkdir -p "$out/pam.d" "$out/policy"
  printf 'subjects = { users = ["%s"]; };\nrequire_shell = false;\n' "$pu" >"$out/policy/bwsh.conf"
  chmod 755 "$out/policy"; chmod 644 "$out/policy/bwsh.conf"
  printf 'session required %s policy=%s\n' "$b/pam_module/pam_bwsh.so" "$out/policy/bwsh.conf" \
    >"$out/pam.d/bwsh-bench"
  ns=$("$b/bench/pam_cost" "$out/pam.d" bwsh-bench "$pu" 200 2>&1) || ns="failed: $ns"
  userdel "$pu" 2>/dev/null || true
  # Nothing may stay owned by a uid that the next useradd hands out again.
  rm -rf "$out/home-$pu"
  printf '  %s ns\n' "$ns"
else
  echo "  (needs root, like sshd: skipped)"
fi

echo "== bwsh before the exec of bwrap"
/usr/bin/time -o "$out/rss" -f "%M" "$out/noexec/shell/bwsh" -c true >/dev/null 2>&1 || true
rss=$(tail -n 1 "$out/rss" 2>/dev/null || echo "?")
echo "  peak RSS: ${rss} KiB"
valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" "$out/noexec/shell/bwsh" -c true \
  >/dev/null 2>&1 || true
printf '  instructions: %s\n' "$(sed -n 's/^summary: //p' "$out/callgrind.out")"
echo "results in $out"
