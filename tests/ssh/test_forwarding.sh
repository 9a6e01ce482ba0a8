#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Forwarding is sshd's own: it happens in sshd's process on the host, beside
# the login shell, so bwsh cannot confine it.  The shipped snippet turns it
# off for subjects.  Each probe first runs against an sshd without the
# snippet (permissive settings), where it must work (so the probe can fail),
# then against one with it, where it must be refused.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC2088,SC1010,SC1003,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare

PERMISSIVE=("AllowTcpForwarding yes" "AllowStreamLocalForwarding yes" "AllowAgentForwarding yes"
  "X11Forwarding yes" "PermitTunnel yes" "GatewayPorts no")

c() { IT_RC=0; timeout -k 5 30 "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?; it_collect; }

# Read the SSH banner of our own sshd through a forwarded TCP port.
banner_via()
{
  python3 - "$1" <<'PY'
import socket, sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    s.settimeout(5)
    print(s.recv(64).decode(errors="replace").strip())
except Exception as e:
    print("no-banner", e)
PY
}

socks_banner_via()
{
  python3 - "$1" "$2" <<'PY'
import socket, struct, sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    s.settimeout(5)
    s.sendall(b"\x05\x01\x00")
    if s.recv(2) != b"\x05\x00":
        raise RuntimeError("no socks greeting")
    s.sendall(b"\x05\x01\x00\x01" + socket.inet_aton("127.0.0.1") + struct.pack(">H", int(sys.argv[2])))
    rep = s.recv(10)
    if len(rep) < 2 or rep[1] != 0:
        raise RuntimeError("socks connect refused %r" % rep)
    print(s.recv(64).decode(errors="replace").strip())
except Exception as e:
    print("no-banner", e)
PY
}

wait_port()
{
  for _ in $(seq 50); do
    python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),timeout=1)' "$1" \
      2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# probe NAME: sets PROBE to "allowed" or "refused" (and why in PROBE_WHY).
probe()
{
  local lport pid
  PROBE=refused PROBE_WHY=
  case $1 in
    W)
      c ssh -F "$SSH_CFG" -W "127.0.0.1:$SSHD_PORT" t
      case $IT_OUT in SSH-2.0-*) PROBE=allowed ;; esac
      PROBE_WHY=$IT_ERR ;;
    L|D)
      lport=$(ssh_free_port)
      if [ "$1" = L ]; then
        timeout 30 ssh -F "$SSH_CFG" -N -L "$lport:127.0.0.1:$SSHD_PORT" t </dev/null 2>"$IT_TMP/fwd.err" &
      else
        timeout 30 ssh -F "$SSH_CFG" -N -D "$lport" t </dev/null 2>"$IT_TMP/fwd.err" &
      fi
      pid=$!
      if wait_port "$lport"; then
        if [ "$1" = L ]; then PROBE_WHY=$(banner_via "$lport"); else PROBE_WHY=$(socks_banner_via "$lport" "$SSHD_PORT"); fi
        case $PROBE_WHY in SSH-2.0-*) PROBE=allowed ;; esac
      fi
      kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
      PROBE_WHY="$PROBE_WHY $(cat "$IT_TMP/fwd.err")" ;;
    R)
      c ssh -F "$SSH_CFG" -o ExitOnForwardFailure=yes -R "0:127.0.0.1:$SSHD_PORT" t true
      [ "$IT_RC" = 0 ] && PROBE=allowed
      PROBE_WHY=$IT_ERR ;;
    Runix)
      # A Unix socket that sshd would create on the host, listening for the client.
      rm -f "/tmp/bwsh-fwd-$IT_USER.sock"
      c ssh -F "$SSH_CFG" -o ExitOnForwardFailure=yes -R "/tmp/bwsh-fwd-$IT_USER.sock:127.0.0.1:$SSHD_PORT" t true
      [ "$IT_RC" = 0 ] && PROBE=allowed
      [ -S "/tmp/bwsh-fwd-$IT_USER.sock" ] && PROBE=allowed
      rm -f "/tmp/bwsh-fwd-$IT_USER.sock"
      PROBE_WHY=$IT_ERR ;;
    A)
      # sshd puts the forwarded agent's socket in the host's /tmp while the session lasts.
      timeout 30 ssh-agent -D -a "$IT_TMP/agent.sock" >/dev/null 2>&1 &
      local apid=$!
      for _ in $(seq 50); do [ -S "$IT_TMP/agent.sock" ] && break; sleep 0.1; done
      SSH_AUTH_SOCK=$IT_TMP/agent.sock timeout 30 ssh -F "$SSH_CFG" -A t 'sleep 3' </dev/null 2>"$IT_TMP/fwd.err" &
      pid=$!
      # Look while the session lasts, not after a fixed delay: on a loaded
      # machine the session may not have started after one second.
      while kill -0 "$pid" 2>/dev/null; do
        PROBE_WHY=$(find /tmp -maxdepth 2 -user "$IT_UID" -name 'agent.*' 2>/dev/null)
        [ -n "$PROBE_WHY" ] && break
        sleep 0.1
      done
      [ -n "$PROBE_WHY" ] && PROBE=allowed
      wait "$pid" 2>/dev/null
      kill "$apid" 2>/dev/null; wait "$apid" 2>/dev/null ;;
    X)
      # sshd runs xauth itself, with /bin/sh, outside the login shell: it
      # writes ~/.Xauthority on the host.
      rm -f "$IT_HOME/.Xauthority"
      DISPLAY=:99 c ssh -F "$SSH_CFG" -X t true
      case $IT_ERR in *"X11 forwarding request failed"*) ;; *) PROBE=allowed ;; esac
      [ -e "$IT_HOME/.Xauthority" ] && PROBE=allowed
      rm -f "$IT_HOME/.Xauthority"
      PROBE_WHY=$IT_ERR ;;
    w)
      # Opening a tun device needs privilege the user lacks, so even an
      # allowed request fails later; what differs is sshd's answer.
      c ssh -F "$SSH_CFG" -o LogLevel=DEBUG1 -o ExitOnForwardFailure=yes -w any t true
      case $IT_ERR in
        *"Server has rejected tunnel device forwarding"*) ;;
        *"Failed to open the tunnel device"*) PROBE=allowed ;;
        *) PROBE=unknown ;;
      esac
      PROBE_WHY=$(grep -i tunnel <<<"$IT_ERR") ;;
  esac
}

ALL="W L D R Runix A X w"

ssh_start control nosnippet "${PERMISSIVE[@]}"
for p in $ALL; do
  it_check "without the snippet, forwarding -$p works (the probe can fail)"
  probe "$p"
  it_assert_eq allowed "$PROBE" "-$p without the snippet ($PROBE_WHY)"
done
ssh_stop

ssh_start main snippet "${PERMISSIVE[@]}"
it_check "the snippet's Match block applies to the subject, over the server's permissive settings"
c nsenter -t "$SSHD_PID" -m -- /usr/sbin/sshd -T -f "$IT_TMP/sshd-main/sshd_config" -C "user=$IT_USER,host=localhost,addr=127.0.0.1"
for kv in "disableforwarding yes" "allowtcpforwarding no" "allowstreamlocalforwarding no" \
  "allowagentforwarding no" "x11forwarding no" "permittunnel no" "permituserrc no" \
  "permituserenvironment no" "subsystem sftp $SSH_SFTP_SERVER"; do
  grep -qx "$kv" <<<"$IT_OUT" || it_fail "sshd -T for the subject lacks '$kv'"
done

ssh_mark
for p in $ALL; do
  it_check "with the snippet, forwarding -$p is refused"
  probe "$p"
  it_assert_eq refused "$PROBE" "-$p with the snippet ($PROBE_WHY)"
done

it_check "with the snippet, a plain command still works"
ssh_run t "$SSH_PROBE"
it_assert_rc 0
it_assert_eq bwrap "$IT_OUT"

ssh_assert_confined
ssh_stop
ssh_assert_no_user_processes
