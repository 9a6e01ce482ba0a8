#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Plants in a persistent state (issue 24, CVE-2024-42472's class in
# flatpak): with state = "persistent" the session's home is a directory the
# user keeps, and bwrap makes mount points in it at the next login: the
# overlay's directory (~/.config/bwsh) and the real home's protected paths
# below the names the state provides (~/.local/share/systemd).  With no
# overlay entry at all, one command inside replaces a parent of those:
#   ~/.config -> /oldroot/var/tmp/...   bwrap 0.8 makes .../bwsh on the host;
#   ~/.config a plain file, a FIFO      bwrap cannot start: every login fails;
#   ~/.local -> /oldroot$HOME/.ssh      bwrap makes share/systemd in ~/.ssh.
# Each plant is first shown under a naive wrapper laid out as bwsh does
# (the state bound at $HOME, the overlay's directory and the protected path
# bound over it); then bwsh's next login must create nothing on the host,
# keep the real home as it was, and work, with a warning.
# shellcheck disable=SC2016 # "$HOME" in a session's command is expanded inside
. "$(dirname "$0")/bd_lib.sh"

bd_setup

# The state outside the home, where an administrator puts it: what the
# sessions keep there is not the real home's business, so the home's
# snapshot must not change at all.
STATE_PARENT=$(mktemp -d /var/lib/bwsh-it-state.XXXXXX) || exit 1
it_defer rm -rf "$STATE_PARENT"
chmod 0755 "$STATE_PARENT"
STATE=$STATE_PARENT/$IT_USER
mkdir -m 0700 "$STATE"
chown "$IT_USER:" "$STATE"
# A read-only tree no session of the user can write, for binds at new names
# directly in ~ (the last cases).
RO=$(mktemp -d /var/lib/bwsh-it-ro.XXXXXX) || exit 1
it_defer rm -rf "$RO"
chmod 0755 "$RO"
mkdir -m 0755 "$RO/top" "$RO/top/sub" "$RO/other"
echo dir-source >"$RO/top/x"
chmod 0644 "$RO/top/x"
bd_policy "state = \"persistent\";
state_dir = \"$STATE_PARENT/%u\";
ro_ceilings = [ \"$RO\" ];"

# /var/tmp is shared: the link points at a sticky directory of our own in
# it, so that what bwrap makes there is ours to see (and to remove).
VT=$(mktemp -d /var/tmp/bwsh-it-vt.XXXXXX) || exit 1
it_defer rm -rf "$VT"
chmod 1777 "$VT"

# A systemd user's real home has ~/.local/share/systemd: bwsh shows it
# read-only over the state (a protected path below a state name).
it_as_user mkdir -p "$H/.local/share/systemd/user"

ssh_start main
bd_home_save

# Put the state's ~/.config and ~/.local back as the first login left them
# (as root on the host: a plant may have locked the user out).
state_reset()
{
  local n
  for n in .config .local; do
    if [ -e "$STATE/$n.old" ] || [ -L "$STATE/$n.old" ]; then
      rm -rf "${STATE:?}/$n"
      mv "$STATE/$n.old" "$STATE/$n"
    fi
  done
}

ssh_listing() { find "$H/.ssh" -printf '%P %y %m\n' | LC_ALL=C sort; }

# bd_home_restore makes every entry of the real home new, and the kept
# state's closure leaves out an entry born after a live session of the user
# started: the next login must come after the last one's session has ended
# (sshd closes it after the client has its exit status), not only after
# its client returned.
wait_sessions_ended()
{
  local n=
  for _ in $(seq 100); do
    n=$("$BWSHCTL" sessions --json 2>/dev/null | python3 -c 'import json, sys
print(sum(1 for s in json.load(sys.stdin) if s["user"] == sys.argv[1]))' "$IT_USER" 2>/dev/null)
    [ "$n" = 0 ] && break
    sleep 0.1
  done
  [ "$n" = 0 ] || it_fail "sessions of $IT_USER still live 10 s after their logins returned: ${n:-?}"
  # The next login's own pam_bwsh entry counts by its recorded epoch, not by
  # sshd's start less 50 ms: the rebuilt entries need not age (the last case).
}

# plant_case NAME PLANT CONTROL WHAT
#   PLANT    the command run inside
#   CONTROL  "creates PATH" or "fails", for the naive wrapper
#   WHAT     the naive wrapper's own bind over the state: the overlay's
#            directory or the protected path
plant_case()
{
  local name=$1 plant=$2 control=$3 what=$4
  # Every plant that creates does it through a link.
  [ "$control" = fails ] || control=$(bd_link_control "$control")

  it_check "$name: planted from inside"
  ssh_run t "$plant"
  it_assert_rc 0

  it_check "$name: control: the naive wrapper with the state at \$HOME and $what bound over it"
  ssh_listing >"$IT_TMP/ssh.before"
  OV_NAIVE_HOME=$STATE
  OV_NAIVE_EXTRA=(--ro-bind "$what" "$what")
  ov_naive 'echo NAIVE-RAN'
  OV_NAIVE_HOME=
  OV_NAIVE_EXTRA=()
  bd_assert_control "$control"
  it_assert_eq "$(cat "$IT_TMP/ssh.before")" "$(ssh_listing)" "the listing of $H/.ssh after the control is cleaned"

  bd_home_snapshot "$IT_TMP/snapshot.before"
  it_check "$name: bwsh: the next login works, with a warning"
  bd_login 'echo LOGIN-OK'
  bd_assert_login_ran
  it_assert_out_has LOGIN-OK
  it_assert_err_has "bwsh: warning: "

  it_check "$name: bwsh: nothing created on the host, the real home unchanged"
  it_assert_absent "$VT/bwsh"
  it_assert_eq "$(cat "$IT_TMP/ssh.before")" "$(ssh_listing)" "the listing of $H/.ssh"
  bd_assert_home_unchanged "$IT_TMP/snapshot.before"

  # Undo whatever got through, so that the next case starts clean.
  rm -rf "${VT:?}"/*
  bd_home_restore
  state_reset
  wait_sessions_ended
}

it_check "the first login makes the state; no warning on a clean state"
bd_login 'echo LOGIN-OK; test -d "$HOME/.config/bwsh" && echo overlay-dir; test -d "$HOME/.local/share/systemd" && echo systemd-dir'
bd_assert_login_ran
it_assert_eq "LOGIN-OK
overlay-dir
systemd-dir" "$IT_OUT"
it_assert_err_lacks "warning"
it_assert_exists "$STATE/.config/bwsh"
it_assert_exists "$STATE/.local/share/systemd"

plant_case "state .config -> /oldroot/var/tmp" \
  "mv \"\$HOME/.config\" \"\$HOME/.config.old\" && ln -s /oldroot$VT \"\$HOME/.config\"" \
  "creates $VT/bwsh" "$H/.config/bwsh"
plant_case "state .config a plain file" \
  "mv \"\$HOME/.config\" \"\$HOME/.config.old\" && echo x >\"\$HOME/.config\"" \
  fails "$H/.config/bwsh"
plant_case "state .config a FIFO" \
  "mv \"\$HOME/.config\" \"\$HOME/.config.old\" && mkfifo \"\$HOME/.config\"" \
  fails "$H/.config/bwsh"
plant_case "state .local -> /oldroot\$HOME/.ssh" \
  "mv \"\$HOME/.local\" \"\$HOME/.local.old\" && ln -s /oldroot$H/.ssh \"\$HOME/.local\"" \
  "creates $H/.ssh/share" "$H/.local/share/systemd"

it_check "after the plants are undone, the login is clean again"
bd_login 'echo LOGIN-OK'
bd_assert_login_ran
it_assert_err_lacks "warning"

# A real home entry born after an older session started (#38): the older
# session has no mount point at that name, so it can swap the kept state's
# name for a symlink between bwsh's checks and bwrap's mount, and bwrap
# makes the file through it, on the host.  The swap is made at that very
# moment, deterministically, by a stand-in for bwrap (BWSH_TEST_BWRAP, a
# test build's): what the older session does from inside, through its
# writable $HOME, which is the state.
LATE=late-$$-$RANDOM
cat >"$IT_TMP/swap-bwrap.sh" <<EOF
#!/bin/sh
rm -f '$STATE/$LATE'
ln -s '/oldroot$VT/$LATE' '$STATE/$LATE'
exec '$OV_BWRAP' "\$@"
EOF
chmod 755 "$IT_TMP/swap-bwrap.sh"

it_check "late entry: an older session is live when the administrator adds ~/$LATE"
ssh_hold older 120 || exit 1
older=$SSH_HOLD_PID
echo from-the-administrator >"$H/$LATE"
chmod 644 "$H/$LATE"
it_defer rm -f "$H/$LATE"

control=$(bd_link_control "creates $VT/$LATE")
it_check "late entry: control: without the closure the swap makes bwrap create $VT/$LATE on the host"
BWSH_TEST_NO_HOME_CLOSURE=1 BWSH_TEST_BWRAP=$IT_TMP/swap-bwrap.sh it_bwsh -c 'echo LOGIN-OK'
if [ "$control" = fails ]; then
  it_assert_absent "$VT/$LATE"
else
  it_assert_exists "$VT/$LATE"
  [ "$(stat -c %u "$VT/$LATE" 2>/dev/null)" = "$IT_UID" ] || it_fail "$VT/$LATE is not the user's"
fi
rm -f "$VT/$LATE" "$STATE/$LATE"

it_check "late entry: bwsh leaves it out while the older session lives: nothing on the host, the login works"
BWSH_TEST_BWRAP=$IT_TMP/swap-bwrap.sh it_bwsh -c 'echo LOGIN-OK'
it_assert_rc 0
it_assert_out_has LOGIN-OK
it_assert_absent "$VT/$LATE"
bd_assert_warning "$H/$LATE: " "older session" "log out of your older sessions to see it"
rm -f "$STATE/$LATE"

it_check "late entry: once the older session has ended, the next login shows it"
kill "$older" 2>/dev/null
wait "$older" 2>/dev/null
# The older session's processes end after its client: wait for that state.
for _ in $(seq 100); do
  it_bwsh -c "cat ~/$LATE"
  [ "$IT_OUT" = from-the-administrator ] && break
  sleep 0.1
done
it_assert_rc 0
# shellcheck disable=SC2088 # a label, not a path
it_assert_eq from-the-administrator "$IT_OUT" "~/$LATE in the next login"
it_assert_err_lacks "older session"
it_assert_absent "$VT/$LATE"

# A kept state needs the session registered (the closure reads what each
# live session may change from the registry): a session bwsh cannot
# register gets a tmpfs state, with a warning, never a refused login.
it_check "a session bwsh cannot register gets a tmpfs state, with a warning; nothing is kept"
REGISTRY=$IT_PREFIX/run/bwsh/sessions
[ -d "$REGISTRY" ] || { it_fail "no registry at $REGISTRY"; exit 1; }
IT_RC=0
# An empty registry of root's: the user may not make its part there.
timeout -k 5 60 unshare -m --propagation private -- sh -c 'mount -t tmpfs -o mode=0755 none "$1" || exit 1
  shift; exec setpriv --reuid="$1" --regid="$2" --init-groups "$3" -c "$4"' sh "$REGISTRY" "$IT_UID" "$IT_GID" \
  "$IT_BWSH" 'echo unkept >"$HOME/unregistered.txt" && echo LOGIN-OK' </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" \
  || IT_RC=$?
it_collect
it_assert_rc 0
it_assert_out_has LOGIN-OK
bd_assert_warning "state_dir $STATE: this session cannot be registered, and a kept state needs it" \
  "the session's state is a tmpfs this time, gone at logout"
it_assert_absent "$STATE/unregistered.txt"

# A user's bind to a name directly in ~ that the real home lacks (#38): its
# mount point lies in the kept state, which another session can swap for a
# symlink between bwsh's walk and bwrap's mount.  bwrap makes a directory's
# mount point with mkdir(2), which never follows a final symlink, so a
# directory may go there; a file's with creat(2), which does: skipped.  The
# stand-in swaps both names at the worst moment.
NF=new-file-$$
ND=new-dir-$$
it_as_user sh -c "echo file-source >'$H/$NF.src'"
it_defer rm -f "$H/$NF.src"
# Below the directory, a deeper entry: its mount point is looked up through
# the kept state's name, which another session can swap after bwrap mounted
# there (not at a moment a stand-in before bwrap can pick): skipped.
cat >"$IT_TMP/new-names.json" <<EOF
{ "preferences": { "sandboxBwrapMounts": { "additionalROBinds": [
  { "src": "$H/$NF.src", "dst": "$H/$NF" }, { "src": "$RO/top", "dst": "$H/$ND" },
  { "src": "$RO/other", "dst": "$H/$ND/sub" } ] } } }
EOF
bd_overlay "$IT_TMP/new-names.json"
wait_sessions_ended

it_check "new names: control: a file's mount point through the state's symlink is a host name, a directory's is not"
ln -s "/oldroot$VT/$NF" "$STATE/$NF"
ln -s "/oldroot$VT/$ND" "$STATE/$ND"
control=$(bd_link_control "creates $VT/$NF")
OV_NAIVE_HOME=$STATE
ov_naive 'echo NAIVE-RAN'
OV_NAIVE_HOME=
if [ "$control" = fails ]; then
  it_log "bwrap resolves the link in the new root: nothing to show"
else
  it_assert_exists "$VT/$NF"
  [ "$(stat -c %u "$VT/$NF" 2>/dev/null)" = "$IT_UID" ] || it_fail "$VT/$NF is not the user's"
fi
it_assert_absent "$VT/$ND"
rm -f "$VT/$NF" "$STATE/$NF" "$STATE/$ND"

cat >"$IT_TMP/swap-new.sh" <<EOF
#!/bin/sh
for n in '$NF' '$ND'; do
  rm -rf '$STATE/'"\$n"
  ln -s '/oldroot$VT/'"\$n" '$STATE/'"\$n"
done
exec '$OV_BWRAP' "\$@"
EOF
chmod 755 "$IT_TMP/swap-new.sh"

it_check "new names: bwsh skips the file, mounts the directory; swapped at the worst moment, nothing on the host"
BWSH_TEST_BWRAP=$IT_TMP/swap-new.sh it_bwsh -c 'echo LOGIN-OK'
it_assert_rc 0
it_assert_out_has LOGIN-OK
it_assert_absent "$VT/$NF"
it_assert_absent "$VT/$ND"
bd_assert_warning "$H/$NF: destination lies in $STATE, the kept state, where another session of yours can swap a \
file's mount point for a symlink while this one starts (skipped; make $H/$NF in the real home, or mount it outside \
the home)"
rm -f "$STATE/$NF" "$STATE/$ND"

it_check "new names: without a swap the directory is there, the file and the deeper entry are not"
it_bwsh -c "cat ~/$ND/x; test -e ~/$NF || echo no-file"
it_assert_rc 0
it_assert_eq "dir-source
no-file" "$IT_OUT"
bd_assert_warning "$H/$NF: " "the kept state"
bd_assert_warning "$H/$ND/sub: destination runs through $H/$ND, a directory mounted at a new name in $STATE, the \
kept state, where another session of yours can swap it for a symlink while this one starts (skipped; mount it \
outside the home, e.g. at /mnt/sub, and link to it from there)"
it_assert_err_lacks "$H/$ND:"
it_assert_absent "$VT/$ND"

# The login's own pam_bwsh entry is no older session (#38): it counts by the
# epoch pam_bwsh recorded, not by the start of sshd's process (which began
# before the user authenticated) less the 50 ms a foreign session's start
# gets: an entry made just before the login shows, without the warning.
wait_sessions_ended
it_check "an entry of the real home made just before a login shows in it, without the closure's warning"
it_as_user sh -c "echo just-made >'$H/just-made-$$'"
it_defer rm -f "$H/just-made-$$"
bd_login "cat ~/just-made-$$"
bd_assert_login_ran
it_assert_eq just-made "$IT_OUT"
it_assert_err_lacks "older session"
