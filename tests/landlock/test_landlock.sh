#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Landlock layer (#9), in the real sandbox.  Each case is one CTest test
# (landlock/CASE); run one by hand with `bash test_landlock.sh CASE`.
#
# Every case runs as a fresh unprivileged user whose login shell is the
# installed test build of bwsh (../integration/lib.sh, the bwsh_it fixture).
# Sessions go through the real login path (`su - USER -c CMD`), except where
# the test-build knob BWSH_TEST_LANDLOCK_ABI must reach bwsh: su resets the
# environment, so those run bwsh directly as the user (it_bwsh).
#
# Policy: a case that needs other landlock settings appends a match block for
# its own user to the installed policy and restores the original at exit.
# CTest serialises the suites that do this with RESOURCE_LOCK bwsh_policy.
#
# Each refusal is paired with a control that changes only the Landlock
# setting under test and shows the same operation succeeding: the errno comes
# from Landlock, not from the namespaces, the credentials or a dead peer.
# The probe (ll_probe.py) prints LABEL=OK or LABEL=ERRNO for one system call.
set -u
LL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../integration/lib.sh
. "$LL_DIR/../integration/lib.sh"

LL_PY=/usr/bin/python3

# ---------------------------------------------------------------- helpers

ll_setup()
{
  it_setup
  it_skip_unless_bwrap
  LL_POLICY=$IT_PREFIX/etc/bwsh/bwsh.conf
  LL_CTL=$IT_PREFIX/bin/bwshctl
  [ -f "$LL_POLICY" ] || { it_fail "no installed policy at $LL_POLICY"; exit 1; }
  cp -p "$LL_POLICY" "$IT_TMP/policy.orig" || exit 1
  it_defer ll_restore_policy
  # "The default policy" of these cases: the shipped one, on the host's
  # network (see ll_policy_text).
  ll_policy_text '' | it_install_policy "$LL_POLICY"
  it_as_user mkdir -p "$IT_HOME/project"
  install -o "$IT_USER" -g "$IT_GID" -m 0755 "$LL_DIR/ll_probe.py" "$IT_HOME/project/ll_probe.py" \
    || { it_fail "cannot install the probe"; exit 1; }
  # Host-side files the user's processes write (ready files, pids).
  install -d -o "$IT_USER" -g "$IT_GID" -m 0755 "$IT_TMP/run" || exit 1
  LL_P="$LL_PY ~/project/ll_probe.py"
  LL_ABI=$("$LL_PY" "$LL_DIR/ll_probe.py" abi)
  # The scopes need ABI 6 (Linux 6.12), the TCP rules ABI 4.  An older
  # kernel is not a reason to skip: the layer is simply not there.
  if [ "${LL_ABI:-0}" -lt 6 ]; then
    it_fail "this kernel has Landlock ABI ${LL_ABI:-?}; the suite needs 6 (Linux 6.12) to test the scopes"
    exit 1
  fi
}

ll_restore_policy()
{
  it_install_policy "$LL_POLICY" <"$IT_TMP/policy.orig"
}

# ll_policy_text BODY: the original policy plus, for this test's user only,
# `landlock = { BODY };` on the host's network (#14: Landlock is what keeps
# the host's abstract sockets and ports out of a shared network; a private
# one has none of them to reach).
ll_policy_text()
{
  cat "$IT_TMP/policy.orig"
  printf '\nmatch = ( { user = "%s"; network = "shared"; landlock = { %s }; } );\n' "$IT_USER" "$1"
}

# ll_policy BODY: install that as the fixture's policy; it must check clean.
ll_policy()
{
  ll_policy_text "$1" | it_install_policy "$LL_POLICY"
  if ! timeout 30 "$LL_CTL" check >"$IT_TMP/check.out" 2>&1; then
    it_fail "the policy with landlock = { $1 } does not check: $(cat "$IT_TMP/check.out")"
    exit 1
  fi
}

# ll_abi N CMD...: run CMD with BWSH_TEST_LANDLOCK_ABI=N in its environment.
ll_abi()
{
  local abi=$1
  shift
  export BWSH_TEST_LANDLOCK_ABI=$abi
  "$@"
  unset BWSH_TEST_LANDLOCK_ABI
}

# ll_ctl ARG...: bwshctl as root; IT_RC/IT_OUT/IT_ERR.
ll_ctl()
{
  IT_RC=0
  timeout -k 5 30 "$LL_CTL" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

# ll_bg VAR CMD...: CMD... as the user on the host, in the background, for
# at most 90 s; its pid goes in VAR and it is killed at exit.
ll_bg()
{
  local var=$1
  shift
  timeout -k 2 90 setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups "$@" \
    </dev/null >>"$IT_TMP/bg.log" 2>&1 &
  printf -v "$var" '%s' "$!"
  it_defer kill -TERM "$!"
}

ll_wait_file()
{
  local i
  for ((i = 0; i < 200; i++)); do
    [ -e "$1" ] && return 0
    sleep 0.05
  done
  it_fail "$1 never appeared: $(cat "${2:-$IT_TMP/bg.log}" 2>/dev/null)"
  exit 1
}

# A host listener on the abstract unix socket @LL_ABSTRACT, run by the user
# outside any sandbox (the same network namespace the sandbox shares).
ll_serve_abstract()
{
  LL_ABSTRACT="bwsh-ll-$IT_USER-$$"
  ll_bg LL_BG_PID "$LL_PY" "$IT_HOME/project/ll_probe.py" serve-abstract "$LL_ABSTRACT" "$IT_TMP/run/abstract.ready"
  ll_wait_file "$IT_TMP/run/abstract.ready"
}

# Two host listeners on 127.0.0.1, ports LL_P1 and LL_P2, run by the user.
ll_serve_tcp()
{
  ll_bg LL_BG_PID "$LL_PY" "$IT_HOME/project/ll_probe.py" serve-tcp "$IT_TMP/run/tcp.ready"
  ll_wait_file "$IT_TMP/run/tcp.ready"
  read -r LL_P1 LL_P2 <"$IT_TMP/run/tcp.ready"
}

ll_assert_line()
{
  grep -qxF -- "$1" <<<"$IT_OUT" || { it_fail "no line '$1' in the output"; it_show; }
}

# The "landlock:" line of a text explain must be exactly WANT.
ll_assert_explain_line()
{
  local got
  got=$(grep '^landlock:' <<<"$IT_OUT")
  it_assert_eq "$1" "$got" "the landlock line of bwshctl explain"
}

# ll_assert_json_landlock PYTHON-DICT: the "landlock" object of a JSON
# explain (in IT_OUT) equals the dict, key for key.
ll_assert_json_landlock()
{
  local got
  got=$("$LL_PY" -c '
import json, sys
want = eval(sys.argv[1])
got = json.loads(sys.stdin.read()).get("landlock")
print("same" if got == want else "got %r" % (got,))' "$1" <<<"$IT_OUT" 2>&1)
  it_assert_eq same "$got" "the landlock object of bwshctl explain --json (want $1)"
}

# ---------------------------------------------------------------- cases

case_host_abstract_socket_unreachable()
{
  ll_serve_abstract

  it_check "the host listener on @$LL_ABSTRACT is reachable from the host"
  IT_OUT=$("$LL_PY" "$LL_DIR/ll_probe.py" connect-abstract host "$LL_ABSTRACT")
  ll_assert_line "host=OK"

  it_check "default policy, network shared: connect() from inside to the host's abstract socket fails with EPERM"
  it_run "$LL_P connect-abstract inside $LL_ABSTRACT"
  it_assert_rc 0
  ll_assert_line "inside=EPERM"

  it_check "control: with only scope_abstract_unix = false the same connect() succeeds (the EPERM is Landlock's)"
  ll_policy 'scope_abstract_unix = false;'
  it_run "$LL_P connect-abstract inside $LL_ABSTRACT"
  it_assert_rc 0
  ll_assert_line "inside=OK"
}

case_abstract_socket_inside_sandbox_still_works()
{
  it_check "default policy: a listener and a forked client, both inside, talk over an abstract socket"
  it_run "$LL_P abstract-pair inside bwsh-ll-inside-$$"
  it_assert_rc 0
  ll_assert_line "inside=OK"
}

# What each kill proves, and no more:
# - outside_domain: a process of the same user, visible in the sandbox's pid
#   namespace (root put it there with nsenter -p) but not started by the
#   session, so outside its Landlock domain.  Credentials allow the signal and
#   the control (scope_signal = false) shows kill() succeeding; with the scope
#   it fails with EPERM.  This is the Landlock signal scope itself.
# - host_pid: a process the user started on the host just before the
#   session.  ESRCH: the pid namespace hides it (Landlock never gets asked).
# - sandbox_init: pid 1 inside, bwrap's init.  bwsh applied Landlock before
#   exec'ing bwrap, so it is in the same domain and the signal is allowed:
#   the scope does not break signals within the session.
ll_kill_session()
{
  local out=$IT_TMP/sig.out host_sleep sbx nspid p i
  rm -f "$IT_HOME/project/ready" "$IT_HOME/project/target" "$IT_TMP/run/nspid"
  cat >"$IT_HOME/project/sig.sh" <<EOF
touch ~/project/ready
i=0
while [ ! -s ~/project/target ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done
$LL_P kill outside_domain "\$(cat ~/project/target)"
$LL_P kill host_pid "\$1"
$LL_P kill sandbox_init 1
EOF
  chown "$IT_USER:" "$IT_HOME/project/sig.sh"

  # Not through ll_bg: its pid would be that of timeout, a root process.
  setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups sleep 60 </dev/null >/dev/null 2>&1 &
  host_sleep=$!
  it_defer kill -TERM "$host_sleep"
  setsid -w timeout -k 5 60 su - "$IT_USER" -c "bash ~/project/sig.sh $host_sleep" \
    </dev/null >"$out" 2>"$IT_TMP/sig.err" &
  p=$!
  it_defer kill -KILL "$p"
  ll_wait_file "$IT_HOME/project/ready" "$IT_TMP/sig.err"

  # The sandbox's pid 1: this session's bwrap whose NSpid is "<host> 1"
  # (not a zombie left by an earlier sandbox of the user).
  sbx=
  for ((i = 0; i < 100; i++)); do
    for pid in $(pgrep -u "$IT_UID" -x bwrap); do
      if awk '/^State:/ { live = ($2 != "Z") } /^NSpid:/ { init = (NF == 3 && $3 == 1) }
          END { exit !(live && init) }' "/proc/$pid/status" 2>/dev/null \
        && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "sig.sh $host_sleep"; then
        sbx=$pid
        break
      fi
    done
    [ -n "$sbx" ] && break
    sleep 0.05
  done
  [ -n "$sbx" ] || { it_fail "no sandbox pid namespace found for $IT_USER"; return 1; }

  # The outsider: forked by nsenter (root) into that pid namespace, then the
  # user's credentials; it reports its pid as the sandbox sees it.
  # shellcheck disable=SC2016 # $$ and $0 are the inner shell's
  timeout -k 2 60 nsenter -t "$sbx" -p -- \
    setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups \
    /bin/sh -c 'echo $$ >"$0.tmp" && mv "$0.tmp" "$0" && exec sleep 60' "$IT_TMP/run/nspid" \
    </dev/null >>"$IT_TMP/bg.log" 2>&1 &
  it_defer kill -TERM "$!"
  # It dies with the sandbox's pid namespace (SIGKILL): no job report.
  disown "$!"
  ll_wait_file "$IT_TMP/run/nspid"
  nspid=$(<"$IT_TMP/run/nspid")
  printf '%s\n' "$nspid" >"$IT_HOME/project/.target" && mv "$IT_HOME/project/.target" "$IT_HOME/project/target"

  IT_RC=0
  wait "$p" || IT_RC=$?
  IT_OUT=$(<"$out")
  IT_ERR=$(<"$IT_TMP/sig.err")
  it_log "sandbox init: host pid $sbx; outsider: pid $nspid in the sandbox; host sleep: pid $host_sleep"
}

case_signal_to_process_outside_domain_refused()
{
  it_check "default policy: kill(0) of a same-user process outside the Landlock domain fails with EPERM"
  ll_kill_session
  it_assert_rc 0
  ll_assert_line "outside_domain=EPERM"
  it_check "kill(0) of the user's host process fails with ESRCH (the pid namespace hides it)"
  ll_assert_line "host_pid=ESRCH"
  it_check "kill(0) of pid 1 inside (bwrap's init, in the same domain) succeeds"
  ll_assert_line "sandbox_init=OK"

  it_check "control: with only scope_signal = false the outsider can be signalled (the EPERM is Landlock's)"
  ll_policy 'scope_signal = false;'
  ll_kill_session
  it_assert_rc 0
  ll_assert_line "outside_domain=OK"
  ll_assert_line "host_pid=ESRCH"
  ll_assert_line "sandbox_init=OK"
}

case_tcp_connect_to_unlisted_port_refused()
{
  ll_serve_tcp
  it_log "listeners on 127.0.0.1:$LL_P1 and 127.0.0.1:$LL_P2"

  it_check "control: the default policy (tcp_connect = \"any\") connects to both"
  it_run "$LL_P tcp-connect p1 $LL_P1; $LL_P tcp-connect p2 $LL_P2"
  it_assert_rc 0
  ll_assert_line "p1=OK"
  ll_assert_line "p2=OK"

  it_check "tcp_connect = [ $LL_P1 ]: $LL_P1 connects, $LL_P2 fails with EACCES"
  ll_policy "tcp_connect = [ $LL_P1 ];"
  it_run "$LL_P tcp-connect p1 $LL_P1; $LL_P tcp-connect p2 $LL_P2"
  it_assert_rc 0
  ll_assert_line "p1=OK"
  ll_assert_line "p2=EACCES"

  it_check "tcp_connect = [ ]: no port connects"
  ll_policy "tcp_connect = [ ];"
  it_run "$LL_P tcp-connect p1 $LL_P1; $LL_P tcp-connect p2 $LL_P2"
  it_assert_rc 0
  ll_assert_line "p1=EACCES"
  ll_assert_line "p2=EACCES"
}

case_tcp_bind_to_unlisted_port_refused()
{
  local p1 p2
  read -r p1 p2 < <("$LL_PY" "$LL_DIR/ll_probe.py" free-ports 2)
  it_log "free ports $p1 and $p2"

  it_check "control: the default policy (tcp_bind = \"any\") binds both"
  it_run "$LL_P tcp-bind p1 $p1; $LL_P tcp-bind p2 $p2"
  it_assert_rc 0
  ll_assert_line "p1=OK"
  ll_assert_line "p2=OK"

  it_check "tcp_bind = [ $p1 ]: bind() to $p1 works, to $p2 fails with EACCES"
  ll_policy "tcp_bind = [ $p1 ];"
  it_run "$LL_P tcp-bind p1 $p1; $LL_P tcp-bind p2 $p2"
  it_assert_rc 0
  ll_assert_line "p1=OK"
  ll_assert_line "p2=EACCES"
}

case_required_mode_refused_without_landlock()
{
  local abi
  ll_policy 'mode = "required";'
  for abi in 0 5; do
    it_check "mode required, simulated ABI $abi: the session is refused, nothing runs"
    rm -f "$IT_HOME/project/ran"
    ll_abi "$abi" it_bwsh -c 'touch ~/project/ran; echo RAN'
    it_assert_rc 69
    if [ "$abi" = 0 ]; then
      it_assert_eq "bwsh: cannot start the sandbox: landlock: the policy requires scope_abstract_unix (needs ABI 6), scope_signal (needs ABI 6), but Landlock is not available in this kernel" \
        "$IT_ERR" "the refusal"
    else
      it_assert_eq "bwsh: cannot start the sandbox: landlock: the policy requires scope_abstract_unix (needs ABI 6), scope_signal (needs ABI 6), but the kernel only has Landlock ABI 5" \
        "$IT_ERR" "the refusal"
    fi
    it_assert_out_lacks RAN
    it_assert_absent "$IT_HOME/project/ran"
  done

  it_check "mode required, tcp_connect without scopes, simulated ABI 3: refused, naming tcp_connect and ABI 3"
  ll_policy 'mode = "required"; scope_abstract_unix = false; scope_signal = false; tcp_connect = [ 22 ];'
  ll_abi 3 it_bwsh -c 'touch ~/project/ran; echo RAN'
  it_assert_rc 69
  it_assert_eq "bwsh: cannot start the sandbox: landlock: the policy requires tcp_connect (needs ABI 4), but the kernel only has Landlock ABI 3" \
    "$IT_ERR" "the refusal"
  it_assert_out_lacks RAN
  it_assert_absent "$IT_HOME/project/ran"

  it_check "control: mode required, simulated ABI 6: the session runs, with the abstract scope enforced"
  ll_policy 'mode = "required";'
  ll_serve_abstract
  ll_abi 6 it_bwsh -c "touch ~/project/ran; $LL_P connect-abstract inside $LL_ABSTRACT"
  it_assert_rc 0
  ll_assert_line "inside=EPERM"
  it_assert_exists "$IT_HOME/project/ran"
}

case_best_effort_runs_and_explain_names_what_is_left_out()
{
  ll_serve_abstract

  it_check "best_effort, simulated ABI 0: the session runs, and the host abstract socket is reachable (left out)"
  ll_policy 'mode = "best_effort";'
  ll_abi 0 it_bwsh -c "touch ~/project/ran; $LL_P connect-abstract inside $LL_ABSTRACT"
  it_assert_rc 0
  ll_assert_line "inside=OK"
  it_assert_exists "$IT_HOME/project/ran"

  it_check "bwshctl explain with simulated ABI 0 names what was left out"
  ll_abi 0 ll_ctl explain "$IT_USER"
  it_assert_rc 0
  ll_assert_explain_line "landlock: abi 0; abstract sockets open; signals open; tcp connect unrestricted; tcp bind unrestricted; not enforced: scope_abstract_unix (needs ABI 6), scope_signal (needs ABI 6)"
  ll_abi 0 ll_ctl explain --json "$IT_USER"
  it_assert_rc 0
  ll_assert_json_landlock "{'abi': 0, 'abstract_unix_sockets': False, 'signals': False, 'tcp_connect': False, 'tcp_bind': False, 'not_enforced': 'scope_abstract_unix (needs ABI 6), scope_signal (needs ABI 6)'}"

  it_check "best_effort, simulated ABI 5, tcp_connect listed: TCP filtered, scopes left out, as explain says"
  ll_serve_tcp
  ll_policy "mode = \"best_effort\"; tcp_connect = [ $LL_P1 ];"
  ll_abi 5 it_bwsh -c "$LL_P connect-abstract inside $LL_ABSTRACT; $LL_P tcp-connect p1 $LL_P1; $LL_P tcp-connect p2 $LL_P2"
  it_assert_rc 0
  ll_assert_line "inside=OK"
  ll_assert_line "p1=OK"
  ll_assert_line "p2=EACCES"
  ll_abi 5 ll_ctl explain "$IT_USER"
  it_assert_rc 0
  ll_assert_explain_line "landlock: abi 5; abstract sockets open; signals open; tcp connect filtered; tcp bind unrestricted; not enforced: scope_abstract_unix (needs ABI 6), scope_signal (needs ABI 6)"
}

case_explain_shows_abi_and_enforcement()
{
  it_check "default policy: explain shows the kernel's ABI ($LL_ABI) and both scopes"
  ll_ctl explain "$IT_USER"
  it_assert_rc 0
  ll_assert_explain_line "landlock: abi $LL_ABI; abstract sockets scoped; signals scoped; tcp connect unrestricted; tcp bind unrestricted"
  ll_ctl explain --json "$IT_USER"
  it_assert_rc 0
  ll_assert_json_landlock "{'abi': $LL_ABI, 'abstract_unix_sockets': True, 'signals': True, 'tcp_connect': False, 'tcp_bind': False, 'not_enforced': ''}"

  it_check "signals off, TCP lists set: explain says so"
  ll_policy 'scope_signal = false; tcp_connect = [ 22, 443 ]; tcp_bind = [ ];'
  ll_ctl explain "$IT_USER"
  it_assert_rc 0
  ll_assert_explain_line "landlock: abi $LL_ABI; abstract sockets scoped; signals open; tcp connect filtered; tcp bind filtered"
  ll_ctl explain --json "$IT_USER"
  it_assert_rc 0
  ll_assert_json_landlock "{'abi': $LL_ABI, 'abstract_unix_sockets': True, 'signals': False, 'tcp_connect': True, 'tcp_bind': True, 'not_enforced': ''}"

  it_check "mode off: nothing enforced, nothing reported missing"
  ll_policy 'mode = "off"; tcp_connect = [ 22 ];'
  ll_ctl explain "$IT_USER"
  it_assert_rc 0
  ll_assert_explain_line "landlock: abi $LL_ABI; abstract sockets open; signals open; tcp connect unrestricted; tcp bind unrestricted"

  it_check "bwshctl doctor shows the ABI for the (global) shipped policy"
  ll_restore_policy
  ll_ctl doctor
  grep -qxF "ok: landlock: ABI $LL_ABI; everything the policy asks for is enforced" <<<"$IT_OUT" \
    || { it_fail "bwshctl doctor has no landlock line for ABI $LL_ABI"; it_show; }
}

case_abi_knob_absent_from_installed_build()
{
  local d=$IT_TMP/release f
  it_check "the test build (the fixture's bwsh) does contain the knob: the check below can see it"
  strings "$IT_BWSH" | grep -qxF BWSH_TEST_LANDLOCK_ABI || it_fail "$IT_BWSH lacks BWSH_TEST_LANDLOCK_ABI"

  it_check "a build with BWSH_TEST_BUILD=OFF: no binary holds the string BWSH_TEST_LANDLOCK_ABI"
  mkdir -p "$d" && chmod 0755 "$d"
  if ! { timeout 600 cmake -S "$BWSH_SOURCE_DIR" -B "$d/build" -DCMAKE_INSTALL_PREFIX="$d/prefix" \
    -DBWSH_TEST_BUILD=OFF -DBWSH_TESTS=OFF -DBWSH_BENCH=OFF -DBWSH_MAN=OFF \
    && timeout 600 cmake --build "$d/build" -j"$(nproc)" \
    && timeout 120 cmake --install "$d/build"; } >"$d/build.log" 2>&1; then
    tail -n 30 "$d/build.log" >&2
    it_fail "the release build failed"
    return 1
  fi
  grep -q '^#define BWSH_TEST_BUILD 0$' "$d/build/config.h" || it_fail "config.h does not say BWSH_TEST_BUILD 0"
  for f in "$d/prefix/bin/bwsh" "$d/prefix/bin/bwshctl" $(find "$d/prefix" -name 'pam_bwsh*.so'); do
    if strings "$f" | grep -qF BWSH_TEST_LANDLOCK_ABI; then it_fail "$f holds BWSH_TEST_LANDLOCK_ABI"; fi
  done

  it_check "that build, mode required, BWSH_TEST_LANDLOCK_ABI=0: the session runs, with Landlock applied"
  ll_policy_text 'mode = "required";' >"$d/prefix/etc/bwsh/bwsh.conf"
  chmod 0644 "$d/prefix/etc/bwsh/bwsh.conf"
  ll_serve_abstract
  rm -f "$IT_HOME/project/ran"
  (
    IT_BWSH=$d/prefix/bin/bwsh
    ll_abi 0 it_bwsh -c "touch ~/project/ran; $LL_P connect-abstract inside $LL_ABSTRACT"
    printf '%s\n' "$IT_RC" >"$IT_TMP/release.rc"
  )
  IT_RC=$(<"$IT_TMP/release.rc")
  it_collect
  it_assert_rc 0
  it_assert_err_lacks "landlock"
  ll_assert_line "inside=EPERM"
  it_assert_exists "$IT_HOME/project/ran"

  it_check "that build's bwshctl explain, BWSH_TEST_LANDLOCK_ABI=0: the kernel's real ABI ($LL_ABI)"
  IT_RC=0
  BWSH_TEST_LANDLOCK_ABI=0 timeout -k 5 30 "$d/prefix/bin/bwshctl" explain "$IT_USER" </dev/null \
    >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
  it_assert_rc 0
  ll_assert_explain_line "landlock: abi $LL_ABI; abstract sockets scoped; signals scoped; tcp connect unrestricted; tcp bind unrestricted"

  it_check "contrast: the test build with the same knob and mode refuses"
  ll_policy 'mode = "required";'
  rm -f "$IT_HOME/project/ran"
  ll_abi 0 it_bwsh -c 'touch ~/project/ran'
  it_assert_rc 69
  it_assert_err_has "but Landlock is not available in this kernel"
  it_assert_absent "$IT_HOME/project/ran"
}

name=${1:-}
if [ -z "$name" ] || ! declare -F "case_$name" >/dev/null; then
  echo "usage: $0 CASE (one of: $(declare -F | sed -n 's/^declare -f case_//p' | tr '\n' ' '))" >&2
  exit 2
fi
ll_setup
"case_$name" || true
