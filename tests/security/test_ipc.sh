#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Reaching out of the sandbox without the filesystem: host processes, host
# sockets (path, abstract, loopback TCP).  Each "host" object is made by the
# test before the session and checked from outside first (the control), so a
# refusal inside means the sandbox stopped it, not that it was never there.
. "$(dirname "$0")/sec.sh"

# sec_listen WHO ADDR: a listening socket held by a background process run as
# WHO (root or user).  ADDR is a path, "@name" (abstract) or "tcp" (127.0.0.1,
# a free port).  LISTEN_INFO is then the path, name or port.  The process is
# killed at exit.
sec_listen()
{
  local who=$1 addr=$2 ready pid
  [ -d "$IT_TMP/ready" ] || mkdir -m 1777 "$IT_TMP/ready"
  ready=$IT_TMP/ready/$RANDOM$RANDOM
  local py='
import os, signal, socket, sys
addr, ready = sys.argv[1], sys.argv[2]
if addr == "tcp":
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    info = str(s.getsockname()[1])
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind("\0" + addr[1:] if addr.startswith("@") else addr)
    if not addr.startswith("@"):
        os.chmod(addr, 0o666)
    info = addr
s.listen(64)
with open(ready + ".tmp", "w") as f:
    f.write(info)
os.rename(ready + ".tmp", ready)
signal.pause()
'
  if [ "$who" = root ]; then
    timeout 170 "$SEC_PYTHON" -c "$py" "$addr" "$ready" </dev/null >/dev/null 2>"$IT_TMP/listen.err" &
  else
    timeout 170 setpriv --reuid="$IT_UID" --regid="$(id -g "$IT_USER")" --init-groups \
      "$SEC_PYTHON" -c "$py" "$addr" "$ready" </dev/null >/dev/null 2>"$IT_TMP/listen.err" &
  fi
  pid=$!
  it_defer it_kill_child "$pid"
  for _ in $(seq 50); do
    [ -e "$ready" ] && break
    sleep 0.1
  done
  [ -e "$ready" ] || { it_fail "the listener on $addr did not start: $(cat "$IT_TMP/listen.err")"; exit 1; }
  LISTEN_INFO=$(cat "$ready")
}

# The probe run as the user outside any sandbox: the control.
probe_outside()
{
  it_as_user "$IT_HOME/project/bwsh-probe" "$@"
}

# A host process of the user itself (so plain kill(2) permissions would
# allow signalling it), with a marker in its argv.
start_host_sleep()
{
  local attempt
  # A start can fail for reasons of its own (setpriv's initgroups while a
  # parallel test rewrites /etc/group): try again, and say so, before
  # giving up; the test is about what happens to the process once it runs.
  for attempt in 1 2 3; do
    MARKER=bwsh-sec-marker-$RANDOM$RANDOM
    setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups \
      bash -c "exec -a $MARKER sleep 170" </dev/null >"$IT_TMP/host-sleep.err" 2>&1 &
    HOST_PID=$!
    it_defer kill "$HOST_PID"
    for _ in $(seq 50); do
      grep -q "$MARKER" "/proc/$HOST_PID/cmdline" 2>/dev/null && return 0
      kill -0 "$HOST_PID" 2>/dev/null || break
      sleep 0.1
    done
    it_log "host process did not start (attempt $attempt): $(cat "$IT_TMP/host-sleep.err" 2>/dev/null)"
  done
  it_fail "the host process did not start"
  exit 1
}

host_sleep_untouched()
{
  local state
  state=$(sed -n 's/^State:[[:space:]]*\([A-Za-z]\).*/\1/p' "/proc/$HOST_PID/status" 2>/dev/null)
  [ "$state" = S ] || it_fail "the host process $HOST_PID is in state '${state:-gone}', not sleeping"
}

case_host_processes_invisible()
{
  start_host_sleep
  it_check "a host process of the same user is not listed inside"
  it_run "ps -eo pid,args; echo; ls -d /proc/[0-9]* | wc -l; test -e /proc/$HOST_PID && echo HOST-PID-\$((6*7)); true"
  it_assert_rc 0
  it_assert_out_has "ps -eo pid,args"
  it_assert_out_lacks "$MARKER"
  it_assert_out_lacks "HOST-PID-42"
  it_assert_out_lacks "su -"
  # bwrap's pid 1, the shell, ps, ls and wc: a handful, not the host's hundreds.
  local n
  n=$(awk 'NF == 1 && /^[0-9]+$/ { n = $1 } END { print n }' <<<"$IT_OUT")
  [ "${n:-999}" -le 8 ] || it_fail "$n processes visible inside"
}

# The pid namespace is what answers here: no process outside has a pid
# inside, so kill(2) and ptrace(2) get ESRCH.  Landlock's signal scope
# (policy landlock.scope_signal) is a second wall behind it that a login
# cannot reach past the first: every process the session can name is in its
# own Landlock domain.  tests/unit/test_landlock.c covers that scope itself;
# host_abstract_socket_refused_by_landlock proves the domain is in place.
case_kill_host_process_impossible()
{
  start_host_sleep
  it_check "control: outside, the user may signal its own process"
  probe_outside kill "$HOST_PID"
  it_assert_eq OK "$IT_OUT" "kill -0 from outside"

  it_check "inside, kill(2) of the host pid gives ESRCH and the process lives on"
  it_run "$SEC_P kill $HOST_PID; kill -KILL $HOST_PID; echo shell-kill=\$?"
  sec_assert_line "ESRCH"
  sec_assert_line "shell-kill=1"
  sleep 0.2
  host_sleep_untouched
}

case_ptrace_host_process_impossible()
{
  start_host_sleep
  it_check "inside, PTRACE_ATTACH of the host pid gives ESRCH"
  it_run "$SEC_P ptrace $HOST_PID"
  sec_assert_line "ESRCH"
  host_sleep_untouched
}

case_run_user_socket_absent()
{
  local rundir=/run/user/$IT_UID sock
  if [ ! -d /run/user ]; then
    mkdir -m 0755 /run/user && it_defer rmdir /run/user
  fi
  [ -e "$rundir" ] && { it_fail "$rundir exists already"; exit 1; }
  mkdir -m 0700 "$rundir" && chown "$IT_USER:" "$rundir"
  it_defer rm -rf "$rundir"
  sec_listen user "$rundir/bus"
  sock=$LISTEN_INFO

  it_check "control: outside, the user can connect to $sock"
  probe_outside connect-unix "$sock"
  it_assert_eq OK "$IT_OUT" "connect from outside"

  it_check "inside, XDG_RUNTIME_DIR is gone and the socket is absent"
  XDG_RUNTIME_DIR=$rundir it_bwsh -c "echo XDG=\${XDG_RUNTIME_DIR-unset}; ls -A /run; test -e $sock && echo SOCK-EXISTS; $SEC_P connect-unix $sock"
  it_assert_rc 0
  sec_assert_line "XDG=unset"
  it_assert_out_lacks "SOCK-EXISTS"
  it_assert_out_lacks "user"
  sec_assert_line "ENOENT"
}

case_run_dbus_like_socket_unreachable()
{
  # The measured escape: the host's /run bound read-only still let the
  # session connect to the system bus.  A stand-in bus: root's listener
  # under /run, connectable by everybody.
  local dir sock
  dir=$(mktemp -d /run/bwsh-sec.XXXXXX) && chmod 0755 "$dir"
  it_defer rm -rf "$dir"
  sec_listen root "$dir/system_bus_socket"
  sock=$LISTEN_INFO

  it_check "control: outside, the user can connect to $sock"
  probe_outside connect-unix "$sock"
  it_assert_eq OK "$IT_OUT" "connect from outside"

  it_check "inside, /run is the sandbox's own and the bus is unreachable"
  it_run "ls -A /run; $SEC_P connect-unix $sock"
  it_assert_rc 0
  it_assert_out_lacks "${dir#/run/}"
  sec_assert_line "ENOENT"
}

case_host_abstract_socket_refused_by_landlock()
{
  local name=@bwsh-sec-$RANDOM$RANDOM
  sec_listen user "$name"

  it_check "control: outside, the user can connect to the abstract socket $name"
  probe_outside connect-abstract "${name#@}"
  it_assert_eq OK "$IT_OUT" "connect from outside"

  # Abstract sockets belong to the network namespace, and network = "shared"
  # is the host's: only Landlock's abstract-unix scope stands between the
  # session and, say, a host X server or a systemd @-socket.
  it_check "inside, with the shared network, Landlock refuses the connect (EPERM)"
  sec_run_ns "$(sec_bind_policy "$(sec_policy 'network = "shared";')")" "$SEC_P connect-abstract ${name#@}"
  it_assert_rc 0
  sec_assert_line "EPERM"
}

case_network_none_abstract_and_loopback_unreachable()
{
  local name=@bwsh-sec-$RANDOM$RANDOM port policy
  sec_listen user "$name"
  sec_listen user tcp
  port=$LISTEN_INFO

  it_check "control: outside, both the abstract socket and 127.0.0.1:$port accept"
  probe_outside connect-abstract "${name#@}"
  it_assert_eq OK "$IT_OUT" "abstract connect from outside"
  probe_outside connect-tcp "$port"
  it_assert_eq OK "$IT_OUT" "TCP connect from outside"

  it_check "contrast: with network = \"shared\" the host's loopback port is reachable inside"
  sec_run_ns "$(sec_bind_policy "$(sec_policy 'network = "shared";')")" "$SEC_P connect-tcp $port"
  sec_assert_line "OK"

  policy=$(sec_policy 'network = "none";')
  it_check "with network = \"none\": the abstract socket and the loopback port are unreachable"
  sec_run_ns "$(sec_bind_policy "$policy")" \
    "printf 'abstract='; $SEC_P connect-abstract ${name#@}; printf 'tcp='; $SEC_P connect-tcp $port; printf 'own-lo='; $SEC_P listen-tcp"
  it_assert_rc 0
  sec_assert_line "abstract=ECONNREFUSED"
  sec_assert_line "tcp=ECONNREFUSED"
  # The sandbox's own loopback still works: the refusal is the namespace.
  sec_assert_line "own-lo=OK"
}

case_harmless_calls_not_blocked()
{
  it_check "chmod, listen (unix and TCP), prctl(PR_GET_DUMPABLE) work inside"
  it_run ": >~/project/f; printf 'chmod='; $SEC_P chmod ~/project/f; printf 'unix='; $SEC_P listen-unix ~/project/s; printf 'tcp='; $SEC_P listen-tcp; printf 'dumpable='; $SEC_P dumpable; stat -c %a ~/project/f"
  it_assert_rc 0
  sec_assert_line "chmod=OK"
  sec_assert_line "unix=OK"
  sec_assert_line "tcp=OK"
  grep -qE '^dumpable=OK [0-2]$' <<<"$IT_OUT" || { it_fail "prctl(PR_GET_DUMPABLE) failed"; it_show; }
  sec_assert_line "640"
}

sec_main "$@"
