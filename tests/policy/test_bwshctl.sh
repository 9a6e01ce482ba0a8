#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bwshctl check / explain: exit codes, who may ask about whom, and the JSON
# plan (every mount with kind, source, destination, origin, verdict, reason;
# namespaces, environment, limits, the bwrap argv and command line).
set -u
. "$(dirname "$0")/pol_lib.sh"
pol_setup
H=$IT_HOME
pol_project

ctl() { IT_RC=0; timeout 60 "$BWSHCTL" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?; it_collect; }
ctl_user() { IT_RC=0; timeout 60 setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups "$BWSHCTL" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?; it_collect; }

it_check "check: the shipped policy is valid (exit 0)"
ctl check
it_assert_rc 0
it_assert_out_has "$POL: policy valid"
ctl check --policy "$IT_TMP/shipped.conf"
it_assert_rc 0

it_check "check: an invalid policy exits 1 with FILE:LINE: message"
pol_file bad.conf '# a typo
max_mounts = 0;'
ctl check --policy "$POL_FILE"
it_assert_rc 1
it_assert_err_has "$POL_FILE:2: \"max_mounts\" must be between 1 and 1024"

it_check "check: usage errors exit 2"
for args in "check --bogus" "check extra-operand" "check --policy" "explain --nope" "explain a b" "frobnicate" ""; do
  # shellcheck disable=SC2086 # word splitting is the point
  ctl $args
  it_assert_rc 2
  it_assert_err_has "usage: bwshctl"
done

it_check "check --user-config: valid 0, a refused entry 1 with its message"
mkdir -p "$H/d" && chown "$IT_USER:" "$H/d"
it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalROBinds\": [ \"$H/d\" ] } } }"
ctl_user check --user-config "$H/.config/bwsh/config.json"
it_assert_rc 0
it_assert_out_has "$H/.config/bwsh/config.json: user configuration valid"
it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalBinds\": [ \"/etc/ssh\" ] } } }"
ctl_user check --user-config "$H/.config/bwsh/config.json"
it_assert_rc 1
it_assert_err_has "/etc/ssh: read-write binds are only allowed under the read-write ceilings"

it_check "explain: a user may ask about themselves"
ctl_user explain --json
it_assert_rc 0
it_assert_eq "$H" "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["home"])' <<<"$IT_OUT")" "home in the user's own plan"
ctl_user explain "$IT_USER"
it_assert_rc 0
it_assert_out_has "bwsh plan for $IT_USER (uid $IT_UID)"

it_check "explain: a user may not ask about anyone else (exit 2)"
ctl_user explain root
it_assert_rc 2
it_assert_err_has "bwshctl: only root may explain another user's plan"
it_assert_out_lacks "bwsh plan"

it_check "explain: a user may not point explain at another policy (exit 2)"
ctl_user explain --policy "$IT_TMP/shipped.conf"
it_assert_rc 2
it_assert_err_has "bwshctl: --policy is for root"

it_check "explain: root may ask about any user"
ctl explain --json "$IT_USER"
it_assert_rc 0

it_check "explain --json: every mount with its origin, verdict and reason"
mkdir -p "$IT_TMP/forced" && echo f >"$IT_TMP/forced/f"
mkdir -p "$H/rw" && chown "$IT_USER:" "$H/rw"
pol_write "# explain
ro_binds = [ \"$IT_TMP/forced\" ];
network = \"none\";
rlimits = { nproc = 77; };
env_allow = [ \"BWPOL_*\" ];
rw_ceilings = [ \"~\" ];"
it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalBinds\": [ \"$H/rw\", \"/etc/ssh\" ] } } }"
export BWPOL_X=seen
pol_explain
unset BWPOL_X
it_assert_rc 0
res=$(python3 - "$IT_TMP/explain.json" "$POL" "$H" "$IT_TMP/forced" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pol, home, forced = sys.argv[2:5]
uc = home + "/.config/bwsh/config.json"
bad = []
for m in d["mounts"]:
    for k in ("kind", "source", "destination", "origin", "origin_detail", "verdict", "reason"):
        if k not in m:
            bad.append("mount %r lacks %s" % (m.get("destination"), k))
def one(dest, src=None, origin=None):
    ms = [m for m in d["mounts"] if m["destination"] == dest and (src is None or m["source"] == src)
          and (origin is None or m["origin"] == origin)]
    if len(ms) != 1:
        bad.append("%d mounts at %s" % (len(ms), dest))
        return {}
    return ms[0]
def want(m, **kv):
    for k, v in kv.items():
        if m.get(k) != v:
            bad.append("%s: %s is %r, want %r" % (m.get("destination"), k, m.get(k), v))
want(one("/usr"), kind="ro-bind", source="/usr", origin="default", origin_detail="default", verdict="accepted")
want(one("/proc"), kind="proc", origin="default", verdict="accepted")
want(one(forced), kind="ro-bind", source=forced, origin="policy", origin_detail="policy %s:2" % pol, verdict="accepted")
rw = one(home + "/rw", origin="user")
want(rw, kind="bind", source=home + "/rw", origin="user", verdict="accepted")
# below it, the real home's entry, read-only over the session's state
want(one(home + "/rw", origin="default"), kind="ro-bind", source=home + "/rw", verdict="accepted")
want(one(home), kind="tmpfs", origin="default", verdict="accepted")
if d.get("state") != "tmpfs" or d.get("start_dir") != "home" or d.get("chdir") != home:
    bad.append("state %r, start_dir %r, chdir %r" % (d.get("state"), d.get("start_dir"), d.get("chdir")))
if not rw.get("origin_detail", "").startswith("user " + uc + ":"):
    bad.append("user origin_detail %r" % rw.get("origin_detail"))
ssh = one("/etc/ssh")
want(ssh, origin="user", verdict="refused",
     reason="read-write binds are only allowed under the read-write ceilings (the project directory, and what the policy's rw_ceilings adds)")
if not ssh.get("origin_detail", "").startswith("user " + uc):
    bad.append("refused origin_detail %r" % ssh.get("origin_detail"))
ns = d["namespaces"]
for k in ("user", "pid", "ipc", "uts"):
    if ns.get(k) is not True:
        bad.append("namespace %s %r" % (k, ns.get(k)))
if ns.get("net") is not True:
    bad.append("network none but namespaces.net %r" % ns.get("net"))
if d["limits"] != {"core": "0", "nproc": "77", "nofile": "inherited"}:
    bad.append("limits %r" % d["limits"])
env = d["environment"]
if env.get("HOME") != home or env.get("BWPOL_X") != "seen" or env.get("SHELL") != "/bin/bash":
    bad.append("environment %r" % env)
a = d["argv"]
# The user's entry makes the launch guarded: the stub reports the set-up
# sandbox on fd 9, then becomes the shell (shell/guard.c).
if a[0] != "/usr/bin/bwrap" or "--unshare-net" not in a or a[-7:] != [
        "--", "/bin/sh", "-c", 'printf . >&9; exec 9>&-; exec "$@"', "sh", "/bin/bash", "-l"]:
    bad.append("argv %r" % a)
if "/etc/ssh" in a:
    bad.append("a refused mount is in argv")
if not d["command_line"].startswith("env -i /usr/bin/bwrap --unshare-user"):
    bad.append("command_line %r" % d["command_line"])
if d["refused"] != 1 or d["session"] != "allowed":
    bad.append("refused %r session %r" % (d["refused"], d["session"]))
print("\n".join(bad) if bad else "ok")
PY
)
it_assert_eq ok "$res" "explain JSON"

it_check "explain (text) names the origins too"
ctl explain "$IT_USER"
it_assert_rc 0
it_assert_out_has "[policy $POL:2]"
it_assert_out_has "refused    bind      /etc/ssh -> /etc/ssh  [user $H/.config/bwsh/config.json"
it_assert_out_has "env -i /usr/bin/bwrap "
