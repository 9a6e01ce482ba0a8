#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# No overlay value locks its user out (issue 35).  Made from inside, in the
# project: a FIFO, a socket, a regular file, a symlink to /oldroot/tmp, and
# paths under the FIFO and the symlink.  Each one in each key of the overlay
# (additionalROBinds, additionalBinds, disabledDefaultBinds in both forms,
# sandboxProjectDir), written from inside: the next login works and says,
# for each, what it left out.  Then names that change after bwsh checked
# them and before bwrap mounts them: the login works too.
. "$(dirname "$0")/bd_lib.sh"

bd_setup
ssh_start main
P=$H/project
it_as_user mkdir -p "$H/data"
it_as_user sh -c "echo data-visible >'$H/data/f'"

it_check "the bad kinds are made from inside"
bd_login "cd '$P' && mkdir d0 && mkfifo fifo && echo x >file && ln -s /oldroot/tmp lnk \
  && python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(\"sock\")' && ls -F"
bd_assert_login_ran
it_assert_out_has "fifo|"
it_assert_out_has "sock="

write_overlay()
{
  printf '%s\n' "$1" >"$IT_TMP/bad.json"
  chmod 644 "$IT_TMP/bad.json"
  bd_overlay "$IT_TMP/bad.json"
}

# ------------------------------------------------------------ the lists

# $P/fifo/x and $P/lnk/x as sources; as destinations $P/fifo/y, $P/lnk/y.
race="where another session of yours can swap a directory for a symlink while this one starts (skipped"
list_case()
{
  # A good source for the bad destinations: read-write ones lie in the project.
  local key=$1 data=$H/data
  [ "$key" = additionalROBinds ] || data=$P/d0
  it_check "every bad kind in $key, both forms, and in disabledDefaultBinds: the login works, each is named"
  write_overlay "{ \"preferences\": { \"sandboxBwrapMounts\": {
  \"$key\": [ \"$P/fifo\", \"$P/sock\", \"$P/file\", \"$P/lnk\", \"$P/fifo/x\", \"$P/lnk/x\",
    { \"src\": \"$P/fifo\", \"dst\": \"$P/a\" }, { \"src\": \"$P/sock\", \"dst\": \"$P/b\" },
    { \"src\": \"$P/lnk/x\", \"dst\": \"$P/c\" }, { \"src\": \"$P/fifo/x\", \"dst\": \"$P/d\" },
    { \"src\": \"$data\", \"dst\": \"$P/fifo/y\" }, { \"src\": \"$data\", \"dst\": \"$P/lnk/y\" } ],
  \"disabledDefaultBinds\": [ \"$P/fifo\", \"$P/sock\", \"$P/file\", \"$P/lnk\", \"$P/lnk/x\", \"$P/fifo/x\" ] } } }"
  bd_login 'echo LOGIN-OK'
  bd_assert_login_ran
  it_assert_out_has LOGIN-OK
  bd_assert_warning "$P/fifo: is a FIFO; an overlay may not bind it"
  bd_assert_warning "$P/sock: is a socket; an overlay may not bind it (connect() works through a read-only bind)"
  # A file read-write onto itself in the project: the project shows it
  # already (coalesced, no warning); read-only, its mount point races.
  [ "$key" = additionalBinds ] || bd_assert_warning "$P/file: destination lies in $P, $race"
  bd_assert_warning "$P/lnk: source does not exist (skipped)"
  bd_assert_warning "$P/lnk/x: source does not exist (skipped)"
  bd_assert_warning "$P/fifo/x: cannot resolve: Not a directory"
  bd_assert_warning "$P/fifo/y: destination runs through $P/fifo, which is not a directory (skipped)"
  bd_assert_warning "$P/lnk/y: destination runs through the symlink $P/lnk, which bwrap would follow (skipped)"
  for v in fifo sock file lnk lnk/x fifo/x; do
    bd_assert_warning "disabledDefaultBinds $P/$v: no default bind has this destination (ignored)"
  done
  it_assert_absent /tmp/y
}
list_case additionalROBinds
list_case additionalBinds

# ---------------------------------------------------------- the project

it_check "sandboxProjectDir of every bad kind: the next login works in the default project, with the warning"
for v in fifo sock file lnk fifo/x lnk/x; do
  write_overlay "{ \"preferences\": { \"sandboxProjectDir\": \"~/project/$v\" } }"
  # shellcheck disable=SC2016 # expanded in the session
  bd_login 'echo "LOGIN-OK $PWD"; test -w "$HOME/project" && echo project-writable'
  bd_assert_login_ran
  it_assert_out_has LOGIN-OK
  it_assert_out_has project-writable
  bd_assert_warning "sandboxProjectDir ~/project/$v: cannot create $P/$v: an element is not a directory (using the default)"
done

it_check "a directory of the project as sandboxProjectDir: another session could swap it, so the default"
bd_login "mkdir -p '$P/sub'"
write_overlay "{ \"preferences\": { \"sandboxProjectDir\": \"~/project/sub\" } }"
bd_login 'echo LOGIN-OK'
bd_assert_login_ran
bd_assert_warning "sandboxProjectDir ~/project/sub: must lie directly in \$HOME: deeper, another session of yours can swap a directory on the way while this one starts (using the default)"
it_assert_absent /tmp/x

# ------------------------------------------- changed after bwsh checked

it_check "names swapped for a FIFO after the checks, before bwrap mounts: the login works on what was checked"
it_as_user mkdir -p "$H/pdir" "$P/src"
it_as_user sh -c "echo checked >'$P/src/f'"
it_user_config "{ \"preferences\": { \"sandboxProjectDir\": \"~/pdir\", \"sandboxBwrapMounts\": {
  \"additionalROBinds\": [ { \"src\": \"$P/src\", \"dst\": \"/opt/src\" } ] } } }"
# shellcheck disable=SC2016 # expanded in the session
it_bwsh_paused -c 'cat /opt/src/f; test -d "$HOME/pdir" && echo project-there; echo LOGIN-OK'
[ -n "$IT_PAUSED_PID" ] || exit 1
it_as_user sh -c "mv '$P/src' '$P/src.old' && mkfifo '$P/src' && mv '$H/pdir' '$H/pdir.old' && mkfifo '$H/pdir'"
it_bwsh_resume
it_assert_rc 0
it_assert_out_has checked
it_assert_out_has project-there
it_assert_out_has LOGIN-OK
it_as_user rm -f "$P/src"

it_check "the next login sees the FIFO as sandboxProjectDir and falls back to the default, with the warning"
it_bwsh -c 'echo LOGIN-OK'
it_assert_rc 0
it_assert_out_has LOGIN-OK
bd_assert_warning "sandboxProjectDir ~/pdir: cannot create $H/pdir: an element is not a directory (using the default)"
it_as_user rm -f "$H/pdir"
