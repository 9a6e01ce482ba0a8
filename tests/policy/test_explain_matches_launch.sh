#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What `bwshctl explain` prints is what bwsh runs.  A private build of bwsh
# whose bwrap is a recorder: the recorder writes its argv with the --args
# blob expanded in place, every --ro-bind-fd/--bind-fd N mapped back to the
# path fd N names (readlink of /proc/self/fd/N, inside the recorder) and
# --seccomp N dropped.  That must equal explain's "argv" from the same build
# for the same user, element by element.
set -u
. "$(dirname "$0")/pol_lib.sh"
pol_setup
H=$IT_HOME
: "${BWSH_SOURCE_DIR:=$(cd "$_pol_lib_dir/../.." && pwd)}"

T=$(mktemp -d /tmp/bwsh-pol.XXXXXX) || exit 1
chmod 0755 "$T"
it_defer rm -rf "$T"
mkdir -m 0777 "$T/rec" && chmod 1777 "$T/rec"

cat >"$T/recorder" <<PY
#!/usr/bin/python3
# Stands in for bwrap: record what bwsh execs, then exit 0.
import json, os, sys
args = sys.argv[1:]
out = [sys.argv[0]]
blobs = []
def expand(opts):
    res, i = [], 0
    while i < len(opts):
        a = opts[i]
        if a in ("--ro-bind-fd", "--bind-fd"):
            res += [a[:-3], os.readlink("/proc/self/fd/" + opts[i + 1]), opts[i + 2]]
            i += 3
        elif a == "--seccomp":
            i += 2
        elif a == "--args":
            fd = int(opts[i + 1])
            blob = b""
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                blob += chunk
            parts = blob.split(b"\0")
            if parts and parts[-1] == b"":
                parts.pop()
            blobs.append([p.decode() for p in parts])
            res += expand(blobs[-1])
            i += 2
        elif a == "--":
            res += opts[i:]
            break
        else:
            res.append(a)
            i += 1
    return res
out += expand(args)
with open("$T/rec/argv.json", "w") as f:
    json.dump({"argv": out, "raw": sys.argv, "blobs": blobs, "env": dict(os.environ)}, f)
PY
chmod 0755 "$T/recorder"

it_check "a private build with the recorder as its bwrap"
if ! { cmake -S "$BWSH_SOURCE_DIR" -B "$T/build" -DBWSH_BWRAP_PATH="$T/recorder" \
    -DCMAKE_INSTALL_PREFIX="$T/prefix" -DBWSH_TEST_BUILD=ON -DBWSH_TESTS=OFF -DBWSH_MAN=OFF \
  && cmake --build "$T/build" -j"$(nproc)" --target bwsh bwshctl; } >"$T/build.log" 2>&1; then
  tail -n 30 "$T/build.log" >&2
  it_fail "build failed"
  exit 1
fi
# Only the two programs are needed; the policy path is compiled in.
install -d -m 0755 "$T/prefix/bin" "$T/prefix/etc/bwsh" "$T/prefix/etc/bwsh/conf.d"
install -m 0755 "$T/build/shell/bwsh" "$T/build/shell/bwshctl" "$T/prefix/bin/"
RBWSH=$T/prefix/bin/bwsh
RCTL=$T/prefix/bin/bwshctl

# A plan with every kind of mount: forced binds, user binds (by fd), a
# disabled default, protected re-binds, sizes, hostname, no network, env.
mkdir -p "$IT_TMP/forced" "$IT_TMP/share"
chown "$IT_USER:" "$IT_TMP/share"
for d in rw ro-src; do mkdir -p "$H/$d"; chown "$IT_USER:" "$H/$d"; done
it_as_user mkdir -p "$H/.ssh" "$H/project"
printf '%s\n' "# the policy of the recorder build
ro_binds = ( \"$IT_TMP/forced\" );
rw_binds = ( { src = \"$IT_TMP/share\"; dst = \"/srv/share\"; } );
hostname = \"recbox\";
network = \"none\";
root_size = \"32M\";
env_allow = [ \"BWREC_*\" ];
rlimits = { nproc = 500; };" >"$T/prefix/etc/bwsh/bwsh.conf"
chmod 0644 "$T/prefix/etc/bwsh/bwsh.conf"
it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": {
  \"additionalBinds\": [ \"$H\", \"$H/rw\" ],
  \"additionalROBinds\": [ { \"src\": \"$H/ro-src\", \"dst\": \"/opt/ro\" }, \"$IT_TMP\" ],
  \"disabledDefaultBinds\": [ \"/tmp\" ] } } }"

ENVV=(env -i TERM=xterm-256color LANG=C.UTF-8 BWREC_ONE=1 "BWREC_TWO=a b 'c'" NOT_ALLOWED=x)

it_check "bwsh -l runs the recorder"
IT_RC=0
timeout -k 5 60 "${ENVV[@]}" setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups "$RBWSH" -l \
  </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
[ -s "$T/rec/argv.json" ] || { it_fail "the recorder did not run"; it_show; exit 1; }

it_check "explain --json from the same build, for the same user"
IT_RC=0
timeout 60 "${ENVV[@]}" "$RCTL" explain --json "$IT_USER" >"$T/explain.json" 2>"$IT_TMP/err" || IT_RC=$?
IT_ERR=$(<"$IT_TMP/err")
it_assert_rc 0

it_check "the recorded argv equals explain's argv, element by element"
res=$(python3 - "$T/rec/argv.json" "$T/explain.json" "$T/recorder" <<'PY'
import json, sys
rec = json.load(open(sys.argv[1]))
exp = json.load(open(sys.argv[2]))
a, b = rec["argv"], exp["argv"]
bad = []
raw = rec["raw"]
# The shape bwsh promises: options only through --args, binds only by fd.
if raw[1:2] != ["--args"] or "--bind" in raw or "--ro-bind" in raw:
    bad.append("raw argv %r" % raw)
if rec["env"] and set(rec["env"]) - {"LC_CTYPE"}:
    bad.append("bwrap's own environment is not empty: %r" % rec["env"])
for i in range(max(len(a), len(b))):
    x = a[i] if i < len(a) else "<missing>"
    y = b[i] if i < len(b) else "<missing>"
    if x != y:
        bad.append("element %d: bwsh ran %r, explain says %r" % (i, x, y))
        if len(bad) > 10:
            break
# Sanity: the plan really has what was asked for, so the comparison means something.
blob = rec["blobs"][0] if len(rec["blobs"]) == 1 else []
for want in ("--ro-bind-fd", "--bind-fd", "--seccomp"):
    if want not in blob:
        bad.append("the --args blob has no %s" % want)
if "--ro-bind" in blob or "--bind" in blob:
    bad.append("the --args blob binds by path")
for s in ("--hostname", "recbox", "--unshare-net", "/srv/share", "/opt/ro", "BWREC_TWO", "a b 'c'", "--size", "33554432"):
    if s not in b:
        bad.append("explain argv lacks %r" % s)
if "NOT_ALLOWED" in b or "/tmp" in [b[i + 1] for i in range(len(b) - 1) if b[i] == "--tmpfs"]:
    bad.append("explain argv has what the plan should not")
print("\n".join(bad) if bad else "ok")
PY
)
it_assert_eq ok "$res" "recorded argv vs explain argv"
