#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# /run inside is a fresh tmpfs: a unix socket the user can reach on the host
# (like a D-Bus bus) is neither visible nor connectable inside.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
PY=/usr/bin/python3
rundir=$(mktemp -d /run/bwsh-it-XXXXXX)
it_defer rm -rf "$rundir"
chmod 755 "$rundir"
sock=$rundir/bus.sock
"$PY" - "$sock" <<'PYEOF' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(8); s.settimeout(1)
end = time.time() + 120
while time.time() < end and os.path.exists(sys.argv[1]):
    try:
        c, _ = s.accept(); c.sendall(b"host-bus\n"); c.close()
    except socket.timeout:
        pass
PYEOF
server=$!
it_defer kill "$server"
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
connect="import socket,sys
s=socket.socket(socket.AF_UNIX,socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1]); print('connected', s.recv(64).decode().strip())
except OSError as e:
    print('refused', e.errno)"

it_check "the socket is connectable by the user outside the sandbox (premise)"
it_as_user "$PY" -c "$connect" "$sock"
it_assert_out_has "connected host-bus"

it_check "inside, the socket is not there and cannot be connected"
# su -c takes one string: the client goes through a file in the project dir.
it_as_user mkdir -p "$IT_HOME/project"
printf '%s\n' "$connect" >"$IT_TMP/connect.py"
it_as_user cp "$IT_TMP/connect.py" "$IT_HOME/project/connect.py"
it_run "$PY ~/project/connect.py '$sock'; if [ -e '$rundir' ]; then echo rundir-present; else echo rundir-absent; fi"
it_assert_rc 0
it_assert_out_has "refused 2"
it_assert_out_lacks "connected"
it_assert_out_has rundir-absent

it_check "find /run -type s inside finds no socket at all"
it_run 'find /run -type s; echo end'
it_assert_rc 0
it_assert_eq end "$IT_OUT" "sockets under /run"
