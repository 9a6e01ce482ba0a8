#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The allow-list boundary (issue 24): what the overlay may name is what the
# administrator allows, and nothing it names reaches, creates or breaks
# anything outside.  Every hostile overlay is written FROM INSIDE over ssh,
# and every step first shows, under a naive wrapper (bwrap with the
# overlay's paths as given, ov_naive), that the attack works here.
#
# test_boundary.sh STEP, one registered test each:
#   socket    an RO bind of a directory under /var/lib or /srv that holds a
#             root-owned 0666 socket: a read-only bind never stops
#             connect(), so the service answers from inside;
#   startup   a read-write bind of the whole home writes files that an
#             outside `bash -i`, `bash -l` or `sh -l` of the same user runs
#             (~/.bash_aliases, ~/bin, ~/.local/bin, ...);
#   dest      a destination through a symlink (bwrap < 0.12 resolves it in
#             the host's tree, CVE-2026-87766), into the real ~/.ssh,
#             dangling, or directly below ~/.ssh: names created on the host,
#             or every later login refused;
#   relaunch  an entry that `bwshctl check` accepts and bwrap then cannot
#             mount: the session starts without the user's entries.
# Each step also takes a snapshot of the real home before and after bwsh's
# sessions: they leave no new name outside the project and ~/.config/bwsh.
# shellcheck disable=SC2016 # "$HOME" in a session's command is expanded inside
. "$(dirname "$0")/bd_lib.sh"

STEP=${1:?usage: test_boundary.sh socket|startup|dest|relaunch}

bd_setup
ssh_start main
it_as_user mkdir -p "$H/data"
it_as_user sh -c "echo data-visible >'$H/data/f'"

# ------------------------------------------------------------------ socket

# A root-owned 0666 socket in DIR, answering "pong" to every connection, as
# SSSD's pipes, LXD's or GitLab's sockets do.  Its listener is killed at exit.
start_listener()
{
  local dir=$1 pid
  python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
s.listen(8)
while True:
    c, _ = s.accept()
    c.sendall(b"pong\n")
    c.close()
' "$dir/sock" </dev/null >/dev/null 2>&1 &
  pid=$!
  it_defer it_kill_child "$pid"
  for _ in $(seq 50); do [ -S "$dir/sock" ] && return 0; sleep 0.1; done
  it_fail "the listener on $dir/sock did not start"
  exit 1
}

step_socket()
{
  local vl srv cfg d
  vl=$(mktemp -d /var/lib/bwsh-it-sock.XXXXXX) || exit 1
  it_defer rm -rf "$vl"
  it_data_dir srv
  chmod 0755 "$vl" "$srv"
  start_listener "$vl"
  start_listener "$srv"
  cfg=$IT_TMP/socket.json
  printf '{ "preferences": { "sandboxBwrapMounts": {\n  "additionalROBinds": [ "%s", "%s" ]\n} } }\n' \
    "$vl" "$srv" >"$cfg"
  chmod 644 "$cfg"
  # A connect that gets a reply, or says it failed.
  probe() { printf "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"%s\"); print(\"reply\", s.recv(16).decode().strip())' 2>/dev/null || echo connect-failed %s" "$1/sock" "$1"; }

  it_check "the overlay naming two socket directories is written from inside"
  bd_overlay "$cfg"

  it_check "control: under the naive wrapper the host services answer through the read-only binds"
  ov_naive "$(probe "$vl"); $(probe "$srv")"
  it_assert_rc 0
  it_assert_eq "reply pong
reply pong" "$IT_OUT" "the replies under the naive wrapper"

  bd_home_snapshot "$IT_TMP/snapshot.before"
  it_check "bwsh: neither socket answers; each directory is refused, naming ro_ceilings"
  bd_login "$(probe "$vl"); $(probe "$srv")"
  bd_assert_login_ran
  it_assert_out_lacks "reply"
  it_assert_eq "connect-failed $vl
connect-failed $srv" "$IT_OUT" "the probes through bwsh"
  for d in "$vl" "$srv"; do
    bd_assert_warning "$d" "ro_ceilings"
  done

  it_check "bwsh: no litter in the real home"
  bd_assert_home_unchanged "$IT_TMP/snapshot.before"
}

# ----------------------------------------------------------------- startup

OUTSIDE=$IT_TMP/outside

# The files and what they run outside.  Each writes its own marker into
# $OUTSIDE, a host directory: inside bwsh, /tmp is a private tmpfs, so a
# marker there can only come from a program that ran OUTSIDE the sandbox.
plant_script()
{
  cat <<EOF
cd "\$HOME" || exit 1
echo 'touch $OUTSIDE/bash_aliases' >>.bash_aliases && echo wrote .bash_aliases
mkdir -p bin && printf '#!/bin/sh\ntouch $OUTSIDE/bin\n' >bin/x && chmod 755 bin/x && echo wrote bin/x
mkdir -p .local/bin && printf '#!/bin/sh\ntouch $OUTSIDE/local-bin\n' >.local/bin/x && chmod 755 .local/bin/x && echo wrote .local/bin/x
echo 'touch $OUTSIDE/profile' >>.profile && echo wrote .profile
printf '[alias]\n\tx = !touch $OUTSIDE/gitconfig\n' >>.gitconfig && echo wrote .gitconfig
echo 'machine evil.example login planted password planted' >>.netrc && echo wrote .netrc
echo 'touch $OUTSIDE/bashrc' >>.bashrc && echo wrote .bashrc
exit 0
EOF
}

# The same user's shells outside any sandbox, as an administrator's
# `su -s /bin/bash USER` or `sudo -u USER bash` starts them.  `x` is a
# command the user later types: ~/.profile put ~/bin and ~/.local/bin first
# on PATH.
run_outside_shells()
{
  local c
  for c in 'bash -i -c true' 'bash -l -c true' 'sh -l -c true' 'bash -l -c x' 'sh -l -c x'; do
    # shellcheck disable=SC2086 # each $c is a command line of plain words
    (cd / && timeout -k 5 30 setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups \
      env -i HOME="$H" USER="$IT_USER" LOGNAME="$IT_USER" SHELL=/bin/bash PATH=/usr/bin:/bin \
      $c </dev/null >/dev/null 2>&1)
  done
}

step_startup()
{
  local cfg f plant
  mkdir -p "$OUTSIDE" && chown "$IT_USER:" "$OUTSIDE"
  # Debian's startup files, as every account made by adduser has them: its
  # .bashrc sources ~/.bash_aliases, its .profile puts ~/bin and ~/.local/bin
  # on PATH.
  cp -p /etc/skel/.bashrc /etc/skel/.profile /etc/skel/.bash_logout "$H/"
  chown "$IT_USER:" "$H/.bashrc" "$H/.profile" "$H/.bash_logout"
  if ! grep -q bash_aliases "$H/.bashrc" || ! grep -q '\.local/bin' "$H/.profile"; then
    it_fail "/etc/skel is not Debian's (.bashrc sourcing ~/.bash_aliases, .profile adding ~/.local/bin)"
    exit 1
  fi
  cfg=$IT_TMP/rwhome.json
  printf '{ "preferences": { "sandboxBwrapMounts": {\n  "additionalBinds": [ "%s" ]\n} } }\n' "$H" >"$cfg"
  chmod 644 "$cfg"
  # The script itself goes in as the command: /tmp is a tmpfs inside.
  plant=$(plant_script)

  it_check "the overlay binding the whole home read-write is written from inside"
  bd_overlay "$cfg"
  # The home as the user left it, overlay included, to put back after the
  # control wrote into it.
  bd_home_save

  it_check "control: the outside shells run nothing before the plant"
  run_outside_shells
  it_assert_eq "" "$(ls -A "$OUTSIDE")" "markers before the plant"

  it_check "control: under the naive wrapper every startup file is written, and the outside shells run them"
  ov_naive "$plant"
  it_assert_rc 0
  for f in .bash_aliases bin/x .local/bin/x .profile .gitconfig .netrc .bashrc; do
    it_assert_out_has "wrote $f"
  done
  it_assert_eq "machine evil.example login planted password planted" "$(cat "$H/.netrc" 2>/dev/null)" "the host's ~/.netrc"
  grep -q "touch $OUTSIDE/gitconfig" "$H/.gitconfig" 2>/dev/null || it_fail "the host's ~/.gitconfig lacks the planted alias"
  it_assert_exists "$H/bin/x"
  run_outside_shells
  it_assert_eq "bash_aliases
bashrc
local-bin
profile" "$(ls "$OUTSIDE")" "markers the outside shells wrote"
  rm -f "$OUTSIDE"/*
  bd_home_restore
  run_outside_shells
  it_assert_eq "" "$(ls -A "$OUTSIDE")" "markers once the home is put back"

  bd_home_snapshot "$IT_TMP/snapshot.before"
  it_check "bwsh: the read-write bind of the home is refused, naming rw_ceilings"
  bd_login "$plant"
  bd_assert_login_ran
  bd_assert_warning "$H" "rw_ceilings"

  it_check "bwsh: nothing written inside reaches the real home"
  for f in .bash_aliases bin/x .local/bin/x .gitconfig .netrc; do
    it_assert_absent "$H/$f"
  done
  it_assert_eq "$(cat /etc/skel/.bashrc)" "$(cat "$H/.bashrc")" "the host's ~/.bashrc"
  it_assert_eq "$(cat /etc/skel/.profile)" "$(cat "$H/.profile")" "the host's ~/.profile"

  it_check "bwsh: the outside bash -i, bash -l and sh -l run no code written inside"
  run_outside_shells
  it_assert_eq "" "$(ls -A "$OUTSIDE")" "markers the outside shells wrote"

  it_check "bwsh: no litter in the real home (no empty .bash_profile, .k5login, .forward ...)"
  bd_assert_home_unchanged "$IT_TMP/snapshot.before"
  for f in .bash_profile .bash_login .k5login .forward .zshenv .gnupg .pam_environment; do
    it_assert_absent "$H/$f"
  done
}

# -------------------------------------------------------------------- dest

# One destination case: the links are made inside (LINKS, a command run in
# a session), the overlay naming DST is written inside, the naive wrapper
# shows what bwrap does with it, and bwsh's next login must create nothing,
# skip the entry with a warning holding REASON, and work.
#   dest_case NAME LINKS DST REASON CONTROL WATCH...
# CONTROL: "creates PATH" (the naive wrapper made PATH on the host) or
# "fails" (the naive wrapper cannot start: the lockout).  WATCH: host
# directories whose listing must not change.
dest_case()
{
  local name=$1 links=$2 dst=$3 reason=$4 control=$5 created='' cfg w
  shift 5
  case $control in creates\ *) created=${control#creates } ;; esac
  cfg=$IT_TMP/dest-$name.json
  printf '{ "preferences": { "sandboxBwrapMounts": {\n  "additionalROBinds": [ { "src": "%s/data", "dst": "%s" } ]\n} } }\n' \
    "$H" "$dst" >"$cfg"
  chmod 644 "$cfg"

  it_check "$name: the links are made and the overlay is written from inside"
  if [ -n "$links" ]; then
    ssh_run t "$links"
    it_assert_rc 0
  fi
  bd_overlay "$cfg"

  it_check "$name: control: the naive wrapper, given $dst"
  for w; do find "$w" -printf '%P %y\n' 2>/dev/null | LC_ALL=C sort >"$IT_TMP/watch-$name-${w//\//_}"; done
  [ -z "$links" ] || control=$(bd_link_control "$control")
  ov_naive 'echo NAIVE-RAN'
  bd_assert_control "$control"
  OV_NAIVE_MKDIR=0

  bd_home_snapshot "$IT_TMP/snapshot.before"
  it_check "$name: bwsh: the next login works, the entry skipped with a warning ($reason)"
  bd_login 'echo LOGIN-OK'
  bd_assert_login_ran
  it_assert_out_has LOGIN-OK
  bd_assert_warning "$dst" "$reason"

  it_check "$name: bwsh: nothing created on the host"
  for w; do
    find "$w" -printf '%P %y\n' 2>/dev/null | LC_ALL=C sort >"$IT_TMP/watch.now"
    cmp -s "$IT_TMP/watch-$name-${w//\//_}" "$IT_TMP/watch.now" \
      || it_fail "$w changed: $(diff "$IT_TMP/watch-$name-${w//\//_}" "$IT_TMP/watch.now" | grep '^[<>]' | tr '\n' ';')"
  done
  [ -z "$created" ] || it_assert_absent "$created"
  bd_assert_home_unchanged "$IT_TMP/snapshot.before"

  it_check "$name: bwsh: the login after it works too (no lockout)"
  bd_login 'echo LOGIN-OK'
  bd_assert_login_ran
}

step_dest()
{
  local x
  # A name of its own under /tmp: the machine is shared.
  x=bwsh-it-x-$RANDOM$RANDOM
  it_defer rm -rf "/tmp/$x"
  it_as_user mkdir -p "$H/project"

  # /oldroot is the host's / while bwrap builds the new root.
  dest_case tmp "ln -s /oldroot/tmp \"\$HOME/project/l\"" "$H/project/l/$x/y" symlink "creates /tmp/$x" /tmp/"$x" "$H/.ssh"
  dest_case real-ssh "ln -s /oldroot$H/.ssh \"\$HOME/project/s\"" "$H/project/s/z" symlink "creates $H/.ssh/z" "$H/.ssh"
  dest_case dangling "ln -s /oldroot/nonexistent-$x \"\$HOME/project/d\"" "$H/project/d/w" symlink fails "$H/.ssh"
  it_assert_absent "/nonexistent-$x"
  # No link: a wrapper that makes the mount point first (as bwsh's
  # prepare_destinations() did) makes it in the real ~/.ssh.
  OV_NAIVE_MKDIR=1
  dest_case below-ssh "" "$H/.ssh/new" protected "creates $H/.ssh/new" "$H/.ssh"
}

# ---------------------------------------------------------------- relaunch

step_relaunch()
{
  local cfg
  cfg=$IT_TMP/relaunch.json
  # Two entries, to show that the session starts without ANY of the
  # user's entries, and names them.
  printf '{ "preferences": { "sandboxBwrapMounts": {\n  "additionalROBinds": [\n    { "src": "%s/data", "dst": "%s/seen" },\n    { "src": "%s/data", "dst": "/opt/mnt" }\n  ]\n} } }\n' \
    "$H" "$H" "$H" >"$cfg"
  chmod 644 "$cfg"

  it_check "the overlay written from inside; check accepts both entries"
  bd_overlay "$cfg"
  ssh_run t "$BWSHCTL" check
  it_assert_out_has "accepted ro-bind $H/data -> $H/seen"
  it_assert_out_has "accepted ro-bind $H/data -> /opt/mnt"

  it_check "the control login: both entries mounted"
  bd_login 'cat "$HOME/seen/f" /opt/mnt/f'
  bd_assert_login_ran
  it_assert_eq "data-visible
data-visible" "$IT_OUT"

  it_check "control: a bwrap that fails to set an entry up refuses the session (a naive wrapper)"
  OV_NAIVE_EXTRA=(--ro-bind /etc/hostname "$H/data")
  ov_naive 'echo NAIVE-RAN'
  OV_NAIVE_EXTRA=()
  [ "$IT_RC" != 0 ] || it_fail "the naive wrapper started"
  it_assert_out_lacks NAIVE-RAN

  # No check of bwsh's foresees this failure, so a test build's knob makes
  # it: bwrap is handed a file for the first entry, a directory
  # (shell/guard.c, BWSH_TEST_BREAK_SETUP; installed builds have no knob).
  local main_cfg=$SSH_CFG
  ssh_start broken snippet "SetEnv BWSH_TEST_BREAK_SETUP=1"
  bd_home_snapshot "$IT_TMP/snapshot.before"
  it_check "bwsh: the session starts again without the user's entries and names them"
  bd_login 'test -e "$HOME/seen/f" && echo seen-mounted; test -e /opt/mnt/f && echo mnt-mounted; echo LOGIN-OK'
  bd_assert_login_ran
  it_assert_out_has LOGIN-OK
  it_assert_out_lacks seen-mounted
  it_assert_out_lacks mnt-mounted
  it_assert_err_has "bwrap: Can't find source path /proc/self/fd/"
  it_assert_err_has "bwsh: warning: bwrap could not set the sandbox up with your entries (its message is above); this session runs without your entries: $CFG:4:5: /opt/mnt, $CFG:3:5: $H/seen"
  it_assert_err_lacks 'network = '
  bd_assert_home_unchanged "$IT_TMP/snapshot.before"

  it_check "without the failure, the next login has the entries again"
  SSH_CFG=$main_cfg
  bd_login 'cat "$HOME/seen/f" /opt/mnt/f'
  bd_assert_login_ran
  it_assert_eq "data-visible
data-visible" "$IT_OUT"
}

case $STEP in
  socket | startup | dest | relaunch) "step_$STEP" ;;
  *) it_fail "unknown step $STEP"; exit 1 ;;
esac
