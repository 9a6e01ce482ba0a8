#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What `bwshctl explain` prints is what bwsh runs.  A private build of bwsh
# whose bwrap is a recorder: the recorder writes its argv with the --args
# blob expanded in place, every --ro-bind-fd/--bind-fd N mapped back to the
# path fd N names (readlink of /proc/self/fd/N, inside the recorder) and
# --seccomp N, --info-fd N and --block-fd N dropped, plus the limits it was started with.  That must equal
# explain's "argv" (and "limits") from the same build for the same user,
# element by element.
#
# One row per case (the table at the end): every policy setting that changes
# the plan, each network mode, a non-ASCII environment, a first login (explain
# first: it must create nothing, then bwsh creates the project directory) and
# an entry only resolution refuses.  A new setting or mode is one row.
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
import json, os, resource, sys
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
        elif a in ("--seccomp", "--info-fd", "--block-fd"):
            # fds of the launch itself (the filter; network = "private"'s
            # helper), not part of the plan explain shows
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
            blobs.append([p.decode(errors="surrogateescape") for p in parts])
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
    json.dump({"argv": out, "raw": sys.argv, "blobs": blobs, "env": dict(os.environ),
               "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0],
               "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
               "core": resource.getrlimit(resource.RLIMIT_CORE)[0]}, f)
PY
chmod 0755 "$T/recorder"

it_check "a private build with the recorder as its bwrap"
if ! { cmake -S "$BWSH_SOURCE_DIR" -B "$T/build" -DBWSH_BWRAP_PATH="$T/recorder" \
    -DCMAKE_INSTALL_PREFIX="$T/prefix" -DBWSH_TEST_BUILD=ON -DBWSH_TESTS=OFF -DBWSH_MAN=OFF \
  && cmake --build "$T/build" -j"$(nproc)" --target bwsh bwshctl bwsh-netns; } >"$T/build.log" 2>&1; then
  tail -n 30 "$T/build.log" >&2
  it_fail "build failed"
  exit 1
fi
# Only the two programs are needed; the policy path is compiled in.
install -d -m 0755 "$T/prefix/bin" "$T/prefix/etc/bwsh" "$T/prefix/etc/bwsh/conf.d"
install -m 0755 "$T/build/shell/bwsh" "$T/build/shell/bwshctl" "$T/prefix/bin/"
# The network helper bwsh spawns for network = "private" (#26).
install -D -m 0755 "$T/build/helpers/bwsh-netns" "$T/prefix/libexec/bwsh/bwsh-netns"
RBWSH=$T/prefix/bin/bwsh
RCTL=$T/prefix/bin/bwshctl

cat >"$T/compare.py" <<'PY'
# compare.py REC EXPLAIN WANT NOTWANT: the recorded argv equals explain's
# argv element by element; WANT elements are in it, NOTWANT ones are not.
import json, sys
rec = json.load(open(sys.argv[1]))
exp = json.load(open(sys.argv[2]))
want = [w for w in sys.argv[3].split("\n") if w]
notwant = [w for w in sys.argv[4].split("\n") if w]
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
blob = rec["blobs"][0] if len(rec["blobs"]) == 1 else []
for w in ("--ro-bind-fd", "--bind-fd", "--seccomp"):
    if w not in blob:
        bad.append("the --args blob has no %s" % w)
if "--ro-bind" in blob or "--bind" in blob:
    bad.append("the --args blob binds by path")
# Limits are set by bwsh before the exec: the recorder inherits them.
for k in ("nproc", "nofile", "core"):
    v = exp["limits"][k]
    if v not in ("inherited", "unlimited") and rec[k] != int(v):
        bad.append("limit %s: bwsh set %r, explain says %r" % (k, rec[k], v))
for w in want:
    if w not in b:
        bad.append("explain argv lacks %r" % w)
for w in notwant:
    if w in b:
        bad.append("explain argv has %r" % w)
if exp["session"] != "allowed":
    bad.append("explain says the session is %r (%r)" % (exp["session"], exp.get("refusal")))
print("\n".join(bad) if bad else "ok")
PY

# Fixtures the rows use.
mkdir -p "$IT_TMP/forced" "$IT_TMP/share"
chown "$IT_USER:" "$IT_TMP/share"
for d in rw ro-src; do mkdir -p "$H/$d"; chown "$IT_USER:" "$H/$d"; done
it_as_user mkdir -p "$H/.ssh" "$H/project"
it_as_user ln -s /proc/self "$H/proc-link"

BASE_ENV=(env -i TERM=xterm-256color LANG=C.UTF-8 BWREC_ONE=1 "BWREC_TWO=a b 'c'" NOT_ALLOWED=x)
NL=$'\n'

set_policy() { printf '# the policy of the recorder build\n%s\n' "$1" >"$T/prefix/etc/bwsh/bwsh.conf"
  chmod 0644 "$T/prefix/etc/bwsh/bwsh.conf"; }
set_overlay()
{
  it_as_user rm -f "$H/.config/bwsh/config.json"
  [ -z "$1" ] || it_user_config "$1"
}

run_bwsh()
{
  rm -f "$T/rec/argv.json"
  IT_RC=0
  timeout -k 5 60 "$@" setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups "$RBWSH" -l \
    </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

run_explain()
{
  IT_RC=0
  timeout 60 "$@" "$RCTL" explain --json "$IT_USER" >"$T/explain.json" 2>"$IT_TMP/err" || IT_RC=$?
  IT_OUT=$(<"$T/explain.json")
  IT_ERR=$(<"$IT_TMP/err")
}

explain_json() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$T/explain.json" "$1"; }

# row NAME POLICY OVERLAY WANT NOTWANT [VAR=VALUE...]
#   WANT / NOTWANT: argv elements, one per line, that explain's argv must /
#   must not hold (so that the comparison is about the setting).
row()
{
  local name=$1 policy=$2 overlay=$3 want=$4 notwant=$5
  shift 5
  it_check "$name: explain's argv is the argv bwsh hands to bwrap"
  set_policy "$policy"
  set_overlay "$overlay"
  run_explain "${BASE_ENV[@]}" "$@"
  it_assert_rc 0
  run_bwsh "${BASE_ENV[@]}" "$@"
  it_assert_rc 0
  [ -s "$T/rec/argv.json" ] || { it_fail "the recorder did not run"; it_show; return; }
  it_assert_eq ok "$(python3 "$T/compare.py" "$T/rec/argv.json" "$T/explain.json" "$want" "$notwant")" \
    "recorded argv vs explain argv"
}

# A plan with every kind of mount: forced binds, user binds (by fd), a
# disabled default, protected re-binds, sizes, hostname, no network, env.
row everything "ro_binds = ( \"$IT_TMP/forced\" );
rw_binds = ( { src = \"$IT_TMP/share\"; dst = \"/srv/share\"; } );
hostname = \"recbox\";
network = \"none\";
root_size = \"32M\";
env_allow = [ \"BWREC_*\" ];
rlimits = { nproc = 500; };" "{ \"preferences\": { \"sandboxBwrapMounts\": {
  \"additionalBinds\": [ \"$H\", \"$H/rw\" ],
  \"additionalROBinds\": [ { \"src\": \"$H/ro-src\", \"dst\": \"/opt/ro\" }, \"$IT_TMP\" ],
  \"disabledDefaultBinds\": [ \"/run\" ] } } }" \
  "--hostname${NL}recbox${NL}--unshare-net${NL}/srv/share${NL}/opt/ro${NL}BWREC_TWO${NL}a b 'c'${NL}--size${NL}33554432" \
  "NOT_ALLOWED"

# Every setting that changes the plan, one row each.
row setting_shell 'shell = "/bin/sh";' "" "/bin/sh" ""
# Without ~/project in the real home: it would be there as an entry of the
# home, read-only, and the row is about the project bind.
rm -rf "$H/project"
row setting_project_dir 'project_dir = "~/work";' "" "$H/work" "$H/project"
row setting_run_host 'run = "host";' "" "--ro-bind${NL}/run" ""
row setting_dev_host 'dev = "host";' "" "--dev-bind" "--dev"
row setting_root_size 'root_size = "16M";' "" "16777216" ""
row setting_tmp_size 'tmp_size = "8M";' "" "8388608" ""
row setting_rw_ceilings "rw_ceilings = ( \"~\", \"$IT_TMP/share\" );" \
  "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalBinds\": [ \"$IT_TMP/share\" ] } } }" \
  "--bind${NL}$IT_TMP/share" ""
row setting_ro_ceilings 'ro_ceilings = ( "/usr" );' \
  "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalROBinds\": [ \"$IT_TMP/forced\" ] } } }" \
  "" "$IT_TMP/forced"
row setting_protected 'rw_ceilings = ( "~" ); protected = ( "~/.ssh", "~/rw/keep" );' \
  "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalBinds\": [ \"$H/rw\" ] } } }" \
  "$H/rw/keep" ""
row setting_locked 'locked = ( "/run" );' \
  "{ \"preferences\": { \"sandboxBwrapMounts\": { \"disabledDefaultBinds\": [ \"/run\" ] } } }" \
  "/run" ""
row setting_start_dir 'start_dir = "project";' "" "$H/project" ""
row setting_state_none 'state = "none";' "" "--ro-bind${NL}$H" ""
# explain before the first persistent login creates nothing; bwsh then does
row setting_state_persistent 'state = "persistent";' "" "$H/.local/state/bwsh" ""
row setting_state_dir 'state = "persistent"; state_dir = "~/st";' "" "$H/st" ""
row setting_user_overlay 'user_overlay = false;' \
  "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalROBinds\": [ \"$IT_TMP/forced\" ] } } }" \
  "" "$IT_TMP/forced"
row setting_user_project_dir 'user_project_dir = false;' \
  "{ \"preferences\": { \"sandboxProjectDir\": \"$H/myproj\" } }" \
  "$H/project" "$H/myproj"
row control_user_project_dir '' \
  "{ \"preferences\": { \"sandboxProjectDir\": \"$H/myproj\" } }" \
  "$H/myproj" ""
row setting_ro_binds "ro_binds = ( \"$IT_TMP/forced\" );" "" "$IT_TMP/forced" ""
row setting_rw_binds "rw_binds = ( { src = \"$IT_TMP/share\"; dst = \"/srv/share\"; } );" "" "/srv/share" ""
row setting_env_allow 'env_allow = [ "BWREC_*" ];' "" "BWREC_ONE" "NOT_ALLOWED"
row setting_rlimits 'rlimits = { nproc = 321; nofile = 123; };' "" "" ""
row setting_hostname 'hostname = "recbox";' "" "--hostname${NL}recbox" ""
row setting_max_mounts 'max_mounts = 1;' \
  "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalBinds\": [ \"$H/rw\" ] } } }" \
  "" "$H/rw"
# A source in the home (an overlay never binds /tmp), shown under /srv.
it_as_user mkdir -p "$H/forced"
printf '%s\n' "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalROBinds\": [ { \"src\": \"$H/forced\", \"dst\": \"/srv/forced\" } ] } } }" \
  >"$IT_TMP/overlay2.json"
chmod 0644 "$IT_TMP/overlay2.json"
it_as_user cp "$IT_TMP/overlay2.json" "$H/.bwsh-overlay.json"
row setting_user_config 'user_config = "~/.bwsh-overlay.json";' "" "/srv/forced" ""

# Each network mode that exists: one line per mode.
row network_shared 'network = "shared";' "" "" "--unshare-net"
row network_none 'network = "none";' "" "--unshare-net" ""

# A non-ASCII environment: UTF-8 values pass through unchanged.
row non_ascii_environment 'env_allow = [ "BWREC_*" ];' "" "BWREC_UTF${NL}héllo ✓ ü" "" "BWREC_UTF=héllo ✓ ü"

# TERM is a terminal name or "dumb" (#36): an allow-listed variable of the
# policy's carries the bytes that are not UTF-8 instead.
it_check "a value that is not UTF-8: explain --json carries it escaped and lists where"
set_policy 'env_allow = [ "BWREC_*" ];'
set_overlay ''
run_explain env -i "BWREC_RAW=x"$'\xff'"y" LANG=C.UTF-8
it_assert_rc 0
it_assert_eq 'x\xffy' "$(explain_json 'd["environment"]["BWREC_RAW"]')" "BWREC_RAW in explain --json"
it_assert_eq True "$(explain_json '"/environment/BWREC_RAW" in d["escaped"]')" "/environment/BWREC_RAW listed in escaped"
it_assert_eq True "$(explain_json 'any(d["argv"][int(p.split("/")[2])] == "x\\xffy" for p in d["escaped"] if p.startswith("/argv/"))')" \
  "BWREC_RAW's argv element listed in escaped"
it_check "... and the text explanation shows it escaped"
IT_RC=0
env -i "BWREC_RAW=x"$'\xff'"y" "$RCTL" explain "$IT_USER" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
it_assert_out_has 'BWREC_RAW=x\xffy'

it_check "a long value that is not UTF-8: carried whole, not cut"
long=$(printf '\xff%.0s' $(seq 300))
run_explain env -i "BWREC_RAW=$long" LANG=C.UTF-8
it_assert_rc 0
it_assert_eq "$(printf '\\xff%.0s' $(seq 300))" "$(explain_json 'd["environment"]["BWREC_RAW"]')" "a long BWREC_RAW in explain --json"

it_check "a TERM that is not a terminal name: explain shows the session's \"dumb\" (#36)"
run_explain env -i "TERM=x"$'\xff'"y" LANG=C.UTF-8
it_assert_rc 0
it_assert_eq dumb "$(explain_json 'd["environment"]["TERM"]')" "TERM in explain --json"
set_policy ''

# A first login: no ~/project yet.  Explain creates nothing and says what
# the session will create; then bwsh creates it, and the argv is the same.
rm -rf "$H/project"
row first_login '' "" "$H/project" ""
it_check "first login: explain said the project directory is created at the first login"
rm -rf "$H/project"
run_explain "${BASE_ENV[@]}"
it_assert_rc 0
it_assert_eq True "$(explain_json 'd["project_dir_created_at_first_login"]')" "project_dir_created_at_first_login"
[ ! -e "$H/project" ] || it_fail "explain created $H/project"

# An entry only resolution refuses: a user bind to a symlink into /proc,
# with ~/project absent (explain used to stop resolving at the project
# directory and show the entry as accepted).
rm -rf "$H/project"
# The link itself, an entry of the real home, is in the plan as the same
# symlink (its target is the sandbox's own /proc); that the bind is not is
# checked below, mount by mount.
row refused_at_resolution '' \
  "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalROBinds\": [ \"$H/proc-link\" ] } } }" \
  "" ""
it_check "refused at resolution: explain shows the entry refused, with the resolved path"
rm -rf "$H/project"
run_explain "${BASE_ENV[@]}"
it_assert_rc 0
it_assert_eq refused "$(explain_json '[m["verdict"] for m in d["mounts"] if m["destination"] == "'"$H"'/proc-link" and m["origin"] == "user"][0]')" \
  "verdict of the user's bind of $H/proc-link"
it_assert_eq symlink "$(explain_json '" ".join(m["kind"] for m in d["mounts"] if m["destination"] == "'"$H"'/proc-link" and m["verdict"] == "accepted")')" \
  "what is accepted at $H/proc-link: the home's own symlink only"
it_assert_eq allowed "$(explain_json 'd["session"]')" "session"

# strict: a refused entry refuses the session; explain says so, with bwsh's words.
it_check "strict: explain reports the refusal bwsh stops at"
set_policy 'strict = true;'
set_overlay "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalBinds\": [ \"/etc\" ] } } }"
run_explain "${BASE_ENV[@]}"
it_assert_rc 0
it_assert_eq refused "$(explain_json 'd["session"]')" "session"
refusal=$(explain_json 'd["refusal"]')
run_bwsh "${BASE_ENV[@]}"
[ "$IT_RC" != 0 ] || it_fail "bwsh ran under a strict refusal"
[ ! -e "$T/rec/argv.json" ] || it_fail "the recorder (bwrap) ran under a strict refusal"
it_assert_err_has "bwsh: $refusal"
it_assert_eq "bwsh: cannot build the sandbox: strict policy: 1 configuration entry was refused" \
  "$(grep '^bwsh: cannot' "$IT_TMP/err")" "bwsh's refusal"
