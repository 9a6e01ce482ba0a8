#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every bwsh message the documentation quotes is what bwsh really prints.
#
# The messages are taken from the documents themselves (docs/man/*.scd and
# docs/admin-guide.md: every quoted line that starts with "bwsh: ").  Then
# each situation they describe is made real on the policy tree, bwsh runs,
# and its stderr is collected, with this test's paths and names put back to
# the documents' examples (/etc/bwsh, /home/alice, alice, uid 1000).  Each
# quoted message must equal a real line; "..." and _PLACEHOLDER_ in the
# documents stand for any text.  A message nobody made real fails too: a new
# quote needs a situation here.
set -u
. "$(dirname "$0")/pol_lib.sh"
pol_setup
: "${BWSH_SOURCE_DIR:=$(cd "$_pol_lib_dir/../.." && pwd)}"
H=$IT_HOME
BWSH=$IT_PREFIX/bin/bwsh
REAL=$IT_TMP/real.txt
: >"$REAL"

# run_bwsh [ENV...] -- ARGS: bwsh as the user; its stderr, normalised, joins $REAL.
collect()
{
  sed -e "s|$POL_DIR|/etc/bwsh|g" -e "s|$H|/home/alice|g" -e "s|$IT_USER|alice|g" \
    -e "s|$IT_PREFIX/bin/bwsh|/usr/bin/bwsh|g" "$IT_TMP/err" >>"$REAL"
}
run_bwsh()
{
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  IT_RC=0
  timeout -k 5 60 env -i "${envs[@]}" setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups "$BWSH" "$@" \
    </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
  collect
}
# run_bwsh_both ARGS: bwsh as the user, then as root, each one joining
# $REAL: a policy that cannot be used tells a subject one line, root the
# file, line and reason (#38).
run_bwsh_both()
{
  run_bwsh -- "$@"
  IT_RC=0
  timeout -k 5 60 env -i "$BWSH" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
  collect
}
fresh()
{
  pol_restore
  it_as_user rm -rf "$H/.config/bwsh"
  it_as_user mkdir -p "$H/project"
}

it_check "the situations the documents describe"
# An untrusted policy, drop-in and directory.
fresh; chmod 0666 "$POL"; run_bwsh_both -c true
fresh; printf 'hostname = "x";\n' >"$POL_DIR/conf.d/x.conf"; chmod 0644 "$POL_DIR/conf.d/x.conf"
chown "$IT_UID" "$POL_DIR/conf.d/x.conf"; run_bwsh_both -c true
sed -i "s|uid $IT_UID,|uid 1000,|" "$REAL"
fresh; printf 'hostname = "x";\n' >"$POL_DIR/conf.d/x.conf"; chmod 0644 "$POL_DIR/conf.d/x.conf"
chmod 0777 "$POL_DIR/conf.d"; run_bwsh_both -c true
# A typo on line 12, a bad value on line 3.
fresh; pol_write "$(printf '#\n%.0s' 1 2 3 4 5 6 7 8 9 10 11; printf 'netwrk = "none";')"; run_bwsh_both -c true
fresh; pol_write "$(printf '#\n#\nnetwork = "nowhere";')"; run_bwsh_both -c true
# strict, with two refused entries.
fresh; pol_write 'strict = true;'
it_user_config '{ "preferences": { "sandboxBwrapMounts": { "additionalBinds": [ "/etc", "/usr" ] } } }'
run_bwsh -- -c true
# Landlock required on a kernel with ABI 3 (a test build can only lower it).
fresh; pol_write 'landlock = { mode = "required"; };'; run_bwsh BWSH_TEST_LANDLOCK_ABI=3 -- -c true
# network = "shared" on a kernel without the scopes (#14).
fresh; pol_write 'network = "shared";'; run_bwsh BWSH_TEST_LANDLOCK_ABI=3 -- -c true
# slirp4netns missing; pasta named in the policy (refused, #33); slirp4netns
# failing: a program of /usr (the only place its confinement lets it run
# from) that refuses slirp4netns's options; what it says goes to the
# journal, not to the user (#33); one that ends right after configuring
# the namespace is tests/network's killed-engine case.
fresh; run_bwsh BWSH_TEST_SLIRP4NETNS="$IT_TMP/noslirp/slirp4netns" -- -c true
sed -i "s|$IT_TMP/noslirp/slirp4netns|/usr/bin/slirp4netns|" "$REAL"
fresh; pol_write 'network_engine = "pasta";'; run_bwsh -- -c true
fresh; run_bwsh BWSH_TEST_SLIRP4NETNS=/usr/bin/ls -- -c true
if grep -v '^bwsh: ' "$IT_TMP/err" | grep -q .; then
  it_fail "the failing engine's own words reached the user: $(cat "$IT_TMP/err")"
fi
# A host without udev: the tun node is root's alone (#27), here a node of
# mode 0600 in a private mount namespace.
fresh; IT_RC=0
it_in_tun 0600 timeout 60 setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups "$BWSH" -c true </dev/null \
  >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
collect
# No home; a project directory in the way; an unknown uid.
fresh; mv "$H" "$H.away"; run_bwsh -- -c true; mv "$H.away" "$H"
fresh; it_as_user rm -rf "$H/project"; it_as_user touch "$H/project"; run_bwsh -- -c true
it_as_user rm -f "$H/project"
fresh; uid=1234; while getent passwd "$uid" >/dev/null; do uid=$((uid + 1)); done
IT_RC=0; timeout 60 setpriv --reuid="$uid" --regid="$uid" --clear-groups "$BWSH" -c true </dev/null \
  >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
sed -i "s|uid $uid\$|uid 1234|" "$IT_TMP/err"; collect
# bwrap missing: hidden in a private mount namespace (network = "none":
# the tmpfs over bwrap's directory would hide slirp4netns too, and bwsh
# looks for the engine first); the policy's shell stays in place (bwsh checks it first).
fresh; pol_write 'network = "none";'; cp /usr/bin/setpriv "$IT_TMP/setpriv"; cp "$(readlink -f /bin/bash)" "$IT_TMP/bash"; cp "$(command -v cp)" "$IT_TMP/cp"
IT_RC=0
# shellcheck disable=SC2016 # expanded by the inner sh
timeout 60 unshare -m --propagation private sh -c 'd=$(dirname "$1"); mount -t tmpfs -o mode=0755 none "$d" && "$7" "$6" "$d/bash" && exec "$2" --reuid="$3" --regid="$4" --init-groups "$5" -c true' \
  sh "$(command -v bwrap)" "$IT_TMP/setpriv" "$IT_UID" "$IT_GID" "$BWSH" "$IT_TMP/bash" "$IT_TMP/cp" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
sed -i "s|$(command -v bwrap)|/usr/bin/bwrap|" "$IT_TMP/err"; collect
# setuid: a real uid that is not the effective one.
fresh; IT_RC=0
timeout 60 python3 -c 'import os, sys; os.setresgid(int(sys.argv[2]), int(sys.argv[2]), int(sys.argv[2])); os.setgroups([]); os.setresuid(int(sys.argv[1]), 0, 0); os.execv(sys.argv[3], [sys.argv[3], "-c", "true"])' \
  "$IT_UID" "$IT_GID" "$BWSH" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
collect
fresh; run_bwsh -- -x
# state_dir: a place programs outside read (line 4); one holding a protected
# path; missing outside the home; not the user's; a symlink on the way.
fresh; pol_write "$(printf '#\n#\n#\nstate_dir = "~/.config/state";')"; run_bwsh_both -c true
fresh; pol_write 'state = "persistent"; state_dir = "~/st"; protected = [ "~/.ssh", "~/st/keys" ];'
run_bwsh -- -c true
fresh; [ ! -e /var/lib/bwsh/state ] || it_fail "/var/lib/bwsh/state exists on this machine"
pol_write 'state = "persistent"; state_dir = "/var/lib/bwsh/state/%u";'; run_bwsh -- -c true
fresh; mkdir -m 0700 "$H/st"; pol_write 'state = "persistent"; state_dir = "~/st";'; run_bwsh -- -c true
rmdir "$H/st"
fresh; it_as_user ln -s .config "$H/st"; pol_write 'state = "persistent"; state_dir = "~/st";'
run_bwsh -- -c true; rm -f "$H/st"
# A home with more entries than max_mounts lets bwsh bind.
fresh; pol_write 'max_mounts = 16;'; run_bwsh -- -c true
# The overlay of bwsh-config.json(5) and the guide, line for line.
fresh; pol_write 'project_dir = "~/project";'
it_user_config '{
  "preferences": {
    "sandboxBwrapMounts": {
      "additionalROBinds": [
        "/proc/self",
        "/opt/data" ],
      "additionalBinds": [
        "/etc" ],
      "disabledDefaultBinds":[ "/usr" ] } } }'
run_bwsh -- -c true
fresh; it_user_config '{
  "preferences": {'
run_bwsh -- -c true
# The overlay's source rules, the protected set, a destination nobody can
# make (issue 13), and a policy shell that is not installed.
fresh; it_user_config '{ "preferences": { "sandboxBwrapMounts": {
  "additionalROBinds": [
    "/run/user/1000",
    { "src": "'"$H"'/project", "dst": "/usr/data" } ],
  "additionalBinds": [
      "'"$H"'/.config/systemd" ] } } }'
run_bwsh -- -c true
fresh; pol_write "$(printf '#\n#\nshell = "/bin/bwsh-doc-no-such-shell";')"; run_bwsh -- -c true
fresh; it_user_config '{}'; it_as_user chmod 0666 "$H/.config/bwsh/config.json"; run_bwsh -- -c true
fresh; it_user_config '{}'; it_as_user mv "$H/.config/bwsh/config.json" "$H/.config/bwsh/real.json"
it_as_user ln -s real.json "$H/.config/bwsh/config.json"; run_bwsh -- -c true
fresh

it_check "every message the documents quote is a line bwsh printed"
res=$(python3 "$BWSH_SOURCE_DIR/tests/doc_messages.py" "$BWSH_SOURCE_DIR" "$REAL" bwsh)
case $res in
  "ok "*) it_log "$res messages checked" ;;
  *) it_fail "quoted but never printed:"$'\n'"$res"; printf '%s\n' "--- what bwsh printed:" >&2; cat "$REAL" >&2 ;;
esac
