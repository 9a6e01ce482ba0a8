#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The user edits the overlay from inside the sandbox, over ssh, and gets the
# new mount at the next login (issue 13).  `bwshctl check` and `explain`
# work inside the session, as the user, and show what that login will make
# of the file: one verdict per entry with file:line:col.  A hostile edit is
# refused entry by entry and the rest applies.
# Control: with user_config_mode = "readonly" the same write from inside
# fails, so it is the mode that lets the user edit, nothing else.
. "$(dirname "$0")/ov_lib.sh"

ov_setup
ssh_start main
it_as_user mkdir -p "$H/data" "$H/project"
it_as_user sh -c "echo data-visible >'$H/data/f'"
RUNUSER=/run/user/$IT_UID

cat >"$IT_TMP/edit.json" <<JSON
{ "preferences": { "sandboxBwrapMounts": {
  "additionalROBinds": [
    { "src": "$H/data", "dst": "$H/new-dir" },
    "$RUNUSER",
    { "src": "/var/log", "dst": "$H/project/log" }
  ],
  "additionalBinds": [ "$H/.config/systemd" ]
} } }
JSON
chmod 644 "$IT_TMP/edit.json"

it_check "control: user_config_mode = \"readonly\": the overlay cannot be written from inside"
ov_policy 'user_config_mode = "readonly";'
ov_write_inside "$IT_TMP/edit.json"
[ "$IT_RC" != 0 ] || it_fail "the overlay was written from inside a readonly session"
it_assert_err_has "Read-only file system"
it_assert_absent "$CFG"

it_check "editable (the default): written from inside over ssh"
ov_policy ''
ov_write_inside "$IT_TMP/edit.json"
it_assert_rc 0
it_assert_eq "$(cat "$IT_TMP/edit.json")" "$(cat "$CFG")" "the overlay on the host"
it_assert_eq "$IT_UID" "$(stat -c %u "$CFG")" "its owner"

it_check "bwshctl check inside the session: a verdict per entry, file:line:col, the refusals exactly"
ssh_run t "$BWSHCTL" check
it_assert_rc 1
it_assert_err_has "note: inside a sandbox: root's files show as nobody"
it_assert_out_has "$CFG:3:5: accepted ro-bind $H/data -> $H/new-dir"
it_assert_out_has "$CFG:4:5: refused ro-bind $RUNUSER -> $RUNUSER: holds host IPC or other users' data (/run, /var/run, /tmp, /var/tmp, /dev/shm, /var/spool, /var/mail, /var/log, /root, other homes); only the policy may bind it"
it_assert_out_has "$CFG:5:5: refused ro-bind /var/log -> $H/project/log: holds host IPC"
it_assert_out_has "$CFG:7:24: refused bind $H/.config/systemd -> $H/.config/systemd: is a protected path and never writable inside the sandbox"

it_check "bwshctl explain inside the session shows the same plan"
ssh_run t "$BWSHCTL" explain
it_assert_rc 0
it_assert_out_has "user configuration: $CFG"
it_assert_out_has "[user $CFG:3:5]"
it_assert_out_has "session: allowed"

it_check "the next login gets the new mount; each refused entry is one warning; the rest applies"
# shellcheck disable=SC2016 # expanded in the session
ssh_run t 'cat "$HOME/new-dir/f"; test -e '"$RUNUSER"' || echo no-run-user; test -e "$HOME/project/log" && ls "$HOME/project/log" | head -1; touch "$HOME/.config/systemd/x" 2>/dev/null || echo systemd-read-only'
it_assert_rc 0
it_assert_eq "data-visible
no-run-user
systemd-read-only" "$IT_OUT"
it_assert_err_has "bwsh: warning: $CFG:4:5: $RUNUSER: holds host IPC or other users' data"
it_assert_err_has "bwsh: warning: $CFG:5:5: /var/log: holds host IPC or other users' data"
it_assert_err_has "bwsh: warning: $CFG:7:24: $H/.config/systemd: is a protected path and never writable inside the sandbox"
it_assert_absent "$H/.config/systemd/x"

it_check "a second edit from inside applies at the login after it"
printf '{ "preferences": { "sandboxBwrapMounts": { "additionalROBinds": [ { "src": "%s/data", "dst": "%s/other-dir" } ] } } }\n' \
  "$H" "$H" >"$IT_TMP/edit2.json"
ov_write_inside "$IT_TMP/edit2.json"
it_assert_rc 0
# shellcheck disable=SC2016 # expanded in the session
ssh_run t 'cat "$HOME/other-dir/f"; ls "$HOME/new-dir" | wc -l'
it_assert_rc 0
it_assert_eq "data-visible
0" "$IT_OUT"
it_assert_err_lacks "warning"
