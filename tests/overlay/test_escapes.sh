#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A hostile overlay written FROM INSIDE the sandbox (over sftp, then over
# ssh) reaches neither host IPC nor other users' data, nor anything a
# program outside the sandbox reads (issue 13).  Each step first runs under
# a naive wrapper, bwrap with the overlay's paths as given, where it works:
#   1. an RO bind of /run/user/UID: a real dbus-daemon --session of the
#      user, started here, activates a service on request, and the service
#      runs OUTSIDE the sandbox (it writes a marker the sandbox cannot);
#   2. a read-write $HOME: ~/.config/systemd/user units, ~/.bashrc and
#      ~/.forward written inside reach the host, where the user manager,
#      an outer shell or the MTA would run them;
#   3. an RO bind of another user's home and of /var/log reads their files.
. "$(dirname "$0")/ov_lib.sh"

# shellcheck disable=SC2015 # fails when either command is missing
command -v dbus-daemon >/dev/null && command -v dbus-send >/dev/null \
  || { echo "dbus-daemon and dbus-send are needed (package dbus)" >&2; exit 1; }

ov_setup
# The administrator widened rw_ceilings to the whole home on purpose: the
# protected set must then stand between the session and what programs
# outside read.  (With the default allow-list the read-write home is
# refused outright: test_boundary.sh.)
ov_policy 'rw_ceilings = [ "~" ];'
it_add_user OTHER
printf 'other-secret\n' >"$OTHER_HOME/notes" && chown "$OTHER:" "$OTHER_HOME/notes" && chmod 644 "$OTHER_HOME/notes"
it_as_user mkdir -p "$H/project"

# The user's session bus, as a desktop login would have it.
RUNUSER=/run/user/$IT_UID
OUT=$IT_TMP/outside
mkdir -p "$RUNUSER" "$IT_TMP/services" "$OUT"
chown "$IT_USER:" "$RUNUSER" "$OUT"
chmod 700 "$RUNUSER"
it_defer rm -rf "$RUNUSER"
cat >"$IT_TMP/services/org.bwsh.Escape.service" <<EOF2
[D-BUS Service]
Name=org.bwsh.Escape
Exec=/bin/sh -c 'id -u >$OUT/escaped'
EOF2
cat >"$IT_TMP/bus.conf" <<EOF2
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$RUNUSER/bus</listen>
  <servicedir>$IT_TMP/services</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF2
chmod 644 "$IT_TMP/bus.conf" "$IT_TMP/services/org.bwsh.Escape.service"
setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups \
  dbus-daemon --config-file="$IT_TMP/bus.conf" --fork --print-pid >"$IT_TMP/bus.pid" </dev/null \
  || { it_fail "dbus-daemon did not start"; exit 1; }
# The daemon forked away and runs as the user: it_cleanup ends it by uid.
# (Not by the pid it printed: if it ended early, that pid may be another
# test's process by the time this one exits.)
for _ in $(seq 50); do [ -S "$RUNUSER/bus" ] && break; sleep 0.1; done
# The service never takes its name, so the call itself times out: what
# counts is that the bus ran it, outside.
ACTIVATE="dbus-send --bus=unix:path=$RUNUSER/bus --print-reply --reply-timeout=3000 --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.StartServiceByName string:org.bwsh.Escape uint32:0"

cat >"$IT_TMP/hostile.json" <<JSON
{ "preferences": { "sandboxBwrapMounts": {
  "additionalROBinds": [
    "$RUNUSER",
    { "src": "$OTHER_HOME", "dst": "$H/project/other" },
    "/var/log"
  ],
  "additionalBinds": [ "$H" ]
} } }
JSON
chmod 644 "$IT_TMP/hostile.json"
# shellcheck disable=SC2016 # expanded in the session
WRITE_OUTSIDE='mkdir -p "$HOME/.config/systemd/user/default.target.wants" && printf "[Service]\nExecStart=/bin/true\n" >"$HOME/.config/systemd/user/evil.service" && echo unit-written; echo "touch /tmp/x" >>"$HOME/.bashrc" && echo bashrc-written; echo "|/bin/sh -c true" >"$HOME/.forward" && echo forward-written'
# shellcheck disable=SC2016 # expanded in the session
READ_OTHERS='cat "$HOME/project/other/notes" 2>/dev/null || echo other-unreadable; test -d /var/log/apt && echo var-log-visible || echo var-log-absent'

it_check "control: the naive wrapper, given this overlay, runs code outside through D-Bus activation"
it_as_user mkdir -p "$H/.config/bwsh"
it_as_user cp "$IT_TMP/hostile.json" "$CFG"
ov_naive "$ACTIVATE"
for _ in $(seq 50); do [ -s "$OUT/escaped" ] && break; sleep 0.1; done
it_assert_eq "$IT_UID" "$(cat "$OUT/escaped" 2>/dev/null)" "the marker the activated service wrote outside"
rm -f "$OUT/escaped"

it_check "control: the naive wrapper writes what programs outside read, and reads other users' files"
ov_naive "$WRITE_OUTSIDE; $READ_OTHERS"
it_assert_eq "unit-written
bashrc-written
forward-written
other-secret
var-log-visible" "$IT_OUT"
it_assert_exists "$H/.config/systemd/user/evil.service"
rm -rf "$H/.config/systemd" "$H/.bashrc" "$H/.forward" "$CFG"

ssh_start main

it_check "the hostile overlay is written from inside, over sftp"
ov_put_sftp "$IT_TMP/hostile.json"
it_assert_rc 0
it_assert_eq "$(cat "$IT_TMP/hostile.json")" "$(cat "$CFG")" "the overlay on the host"

it_check "the next login: the D-Bus activation does not happen"
ssh_run t "$ACTIVATE"' 2>&1 || echo activation-failed'
it_assert_out_has activation-failed
it_assert_out_has "Failed to connect to socket $RUNUSER/bus: No such file or directory"
it_assert_err_has "bwsh: warning: $CFG:3:5: $RUNUSER: holds host IPC or other users' data (/run, /var/run, /tmp, /var/tmp, /dev/shm, /var/spool, /var/mail, /var/log, /root, other homes); only the policy may bind it"
sleep 1
it_assert_absent "$OUT/escaped"

it_check "the same login: nothing outside-read is written, no other user's data is read"
ssh_run t "$WRITE_OUTSIDE; $READ_OTHERS"
it_assert_out_lacks unit-written
it_assert_out_lacks bashrc-written
it_assert_out_lacks forward-written
it_assert_out_has other-unreadable
it_assert_out_has var-log-absent
it_assert_err_has "bwsh: warning: $CFG:4:5: $OTHER_HOME: holds host IPC or other users' data"
it_assert_err_has "bwsh: warning: $CFG:5:5: /var/log: holds host IPC or other users' data"
it_assert_absent "$H/.config/systemd/user/evil.service"
it_assert_absent "$H/.config/systemd/user"
it_assert_no_content "$H/.bashrc" "$H/.forward"

it_check "written from inside over ssh: a socket as a source is refused on its fd"
# A socket the user has in their home, shown elsewhere: refused as a socket
# (the home is read-write in this session, from the overlay above, and the
# overlay's directory is editable: the user writes the next one inside).
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$H/agent.sock"
chown "$IT_USER:" "$H/agent.sock"
printf '{ "preferences": { "sandboxBwrapMounts": { "additionalROBinds": [ { "src": "%s/agent.sock", "dst": "/mnt/agent.sock" } ] } } }\n' \
  "$H" >"$IT_TMP/socket.json"
ov_write_inside "$IT_TMP/socket.json"
it_assert_rc 0
ssh_run t "test -S /mnt/agent.sock && echo socket-visible || echo socket-absent"
it_assert_eq socket-absent "$IT_OUT"
it_assert_err_has "bwsh: warning: $CFG:1:67: $H/agent.sock: is a socket; an overlay may not bind it (connect() works through a read-only bind)"
it_assert_absent "$OUT/escaped"
