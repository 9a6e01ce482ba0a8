#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Config files that cannot live in git, made at test time as the user's
# ~/.config/bwsh/config.json: a FIFO, a socket, a directory, a device node,
# symlinks (to /etc/shadow, /, /dev/zero, loops, dangling), a parent
# directory symlink into another user's files, another owner, group- and
# world-writable modes, a hard link, 1 MiB, 10^6 entries, depth 10^5, and
# the 64 KiB and 1024-entry boundaries.  Each is refused (or accepted) with
# its exact message, never read through, never hangs, and the session runs
# sandboxed.
# shellcheck disable=SC2016 # h_case evals each setup, $c and all, in this shell
. "$(dirname "$0")/hostile.sh"
h_setup
n=0
c=$H_CFG

# h_case NAME SETUP-COMMANDS EXPECT...: SETUP runs in this shell as root
# after the config directory was emptied.
h_case()
{
  local name=$1 setup=$2
  shift 2
  it_check "config file $name"
  rm -rf "$IT_HOME/.config/bwsh"
  it_as_user mkdir -p "$IT_HOME/.config/bwsh"
  eval "$setup" || it_fail "setup of $name failed"
  h_expect "$@"
  n=$((n + 1))
}
as_user() { setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups "$@"; }

h_case fifo 'as_user mkfifo "$c"' \
  'outcome: refused-file' 'message: @CFG@: is a FIFO, not a regular file (refused)'
h_case socket 'as_user /usr/bin/python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$c"' \
  'outcome: refused-file' 'message: @CFG@: cannot open: No such device or address'
h_case directory 'as_user mkdir "$c"' \
  'outcome: refused-file' 'message: @CFG@: is a directory, not a regular file (refused)'
h_case device_node 'mknod -m 0644 "$c" c 1 5 && chown "$IT_USER:" "$c"' \
  'outcome: refused-file' 'message: @CFG@: is a device, not a regular file (refused)'
h_case symlink_to_dev_zero 'as_user ln -s /dev/zero "$c"' \
  'outcome: refused-file' 'message: @CFG@: is a symbolic link (refused)'
# Root reading the user's config must not be tricked into reading shadow.
h_case symlink_to_etc_shadow 'as_user ln -s /etc/shadow "$c"' \
  'outcome: refused-file' 'message: @CFG@: is a symbolic link (refused)' 'absent: root:'
h_case symlink_to_root 'as_user ln -s / "$c"' \
  'outcome: refused-file' 'message: @CFG@: is a symbolic link (refused)'
h_case symlink_loop 'as_user ln -s "$c.2" "$c" && as_user ln -s "$c" "$c.2"' \
  'outcome: refused-file' 'message: @CFG@: is a symbolic link (refused)'
h_case symlink_dangling 'as_user ln -s "$IT_HOME/does-not-exist.json" "$c"' \
  'outcome: refused-file' 'message: @CFG@: is a symbolic link (refused)'
h_case symlink_to_own_valid_file 'printf "{}" >"$IT_TMP/own.json"; chmod 644 "$IT_TMP/own.json"; as_user cp "$IT_TMP/own.json" "$IT_HOME/own.json"; as_user ln -s "$IT_HOME/own.json" "$c"' \
  'outcome: refused-file' 'message: @CFG@: is a symbolic link (refused)'

# A parent directory symlink into files of someone else (here: root, with
# content a user must never see).
secret=$IT_TMP/rootdir
mkdir -p "$secret" && chmod 755 "$secret"
printf '{ "preferences": { "sandboxProjectDir": "root:CANARY-SECRET" } }\n' >"$secret/config.json"
chmod 644 "$secret/config.json"
h_case parent_dir_symlink_to_root_owned 'rm -rf "$IT_HOME/.config/bwsh"; as_user ln -s "$secret" "$IT_HOME/.config/bwsh"' \
  'outcome: refused-file' 'message: @CFG@: is owned by uid 0, not by the user (refused)' 'absent: CANARY' 'absent: root:'
it_add_user OTHER
other_uid=$(id -u "$OTHER")
setpriv --reuid="$other_uid" --regid="$(id -g "$OTHER")" --init-groups sh -c \
  "mkdir -p '$OTHER_HOME/cfg' && printf '{ \"preferences\": { \"sandboxProjectDir\": \"%s/CANARY\" } }' '$IT_HOME' >'$OTHER_HOME/cfg/config.json'"
h_case parent_dir_symlink_to_other_user 'rm -rf "$IT_HOME/.config/bwsh"; as_user ln -s "$OTHER_HOME/cfg" "$IT_HOME/.config/bwsh"' \
  'outcome: refused-file' "message: @CFG@: is owned by uid $other_uid, not by the user (refused)" 'absent: CANARY'
h_case parent_dir_symlink_to_slash 'rm -rf "$IT_HOME/.config"; as_user ln -s / "$IT_HOME/.config"' \
  'outcome: missing' 'check-message: @CFG@: no such file'
rm -f "$IT_HOME/.config" && it_as_user mkdir -p "$IT_HOME/.config"

h_case another_owner 'printf "{}" >"$c"; chmod 644 "$c"' \
  'outcome: refused-file' 'message: @CFG@: is owned by uid 0, not by the user (refused)'
h_case world_writable 'printf "{}" >"$IT_TMP/c.json"; chmod 644 "$IT_TMP/c.json"; as_user cp "$IT_TMP/c.json" "$c"; as_user chmod 0666 "$c"' \
  'outcome: refused-file' 'message: @CFG@: is group- or world-writable (mode 0666, refused)'
# Group-writable is refused unless the group is the user's private group
# (their primary group, of their name, nobody else in it): Debian 13 gives
# such users umask 002, so every file they make is group-writable.
own_cfg='printf "{}" >"$IT_TMP/c.json"; chmod 644 "$IT_TMP/c.json"; as_user cp "$IT_TMP/c.json" "$c"'
[ "$(id -gn "$IT_USER")" = "$IT_USER" ] || it_fail "(control) $IT_USER has no private group: $(id "$IT_USER")"
h_case group_writable_private_group "$own_cfg"'; as_user chmod 0664 "$c"' \
  'outcome: accepted'
h_case group_writable_shared_group "$own_cfg"'; chgrp users "$c"; chmod 0620 "$c"' \
  'outcome: refused-file' 'message: @CFG@: is group- or world-writable (mode 0620, refused)'
h_case group_writable_private_group_with_a_member "$own_cfg"'; as_user chmod 0664 "$c"; gpasswd -a "$OTHER" "$IT_USER" >/dev/null' \
  'outcome: refused-file' 'message: @CFG@: is group- or world-writable (mode 0664, refused)'
gpasswd -d "$OTHER" "$IT_USER" >/dev/null || it_fail "gpasswd -d $OTHER $IT_USER"
other_gid=$(id -g "$OTHER")
h_case group_writable_private_group_of_another_account_too "$own_cfg"'; as_user chmod 0664 "$c"; usermod -g "$IT_GID" "$OTHER"' \
  'outcome: refused-file' 'message: @CFG@: is group- or world-writable (mode 0664, refused)'
usermod -g "$other_gid" "$OTHER" || it_fail "usermod -g $other_gid $OTHER"
h_case hard_link 'printf "{}" >"$IT_TMP/c.json"; chmod 644 "$IT_TMP/c.json"; as_user cp "$IT_TMP/c.json" "$c"; as_user ln "$c" "$IT_HOME/second-name.json"' \
  'outcome: refused-file' 'message: @CFG@: has 2 hard links (refused)'
rm -f "$IT_HOME/second-name.json"

# Sizes.  The cap (64 KiB) is checked on the open file before any parsing.
gen() { /usr/bin/python3 -c "$1" >"$IT_TMP/c.json" && chmod 644 "$IT_TMP/c.json" && as_user cp "$IT_TMP/c.json" "$c"; }
h_case size_1mib 'gen "print(\"{\\\"x\\\": \\\"\" + \"A\" * (1 << 20) + \"\\\"}\")"' \
  'outcome: refused-file' 'message: @CFG@: is larger than 65536 bytes (refused)'
h_case entries_1e6 'gen "print(\"{\\\"preferences\\\": {\\\"sandboxBwrapMounts\\\": {\\\"additionalROBinds\\\": [\" + \",\".join([\"\\\"/usr\\\"\"] * 10**6) + \"]}}}\")"' \
  'outcome: refused-file' 'message: @CFG@: is larger than 65536 bytes (refused)'
h_case depth_1e5 'gen "print(\"[\" * 10**5 + \"]\" * 10**5)"' \
  'outcome: refused-file' 'message: @CFG@: is larger than 65536 bytes (refused)'
h_case size_exactly_64kib 'gen "import sys; sys.stdout.write(\"{}\" + \" \" * (65536 - 2))"' \
  'outcome: accepted'
h_case size_64kib_plus_1 'gen "import sys; sys.stdout.write(\"{}\" + \" \" * (65536 - 1))"' \
  'outcome: refused-file' 'message: @CFG@: is larger than 65536 bytes (refused)'
h_case depth_30000_under_cap 'gen "print(\"[\" * 30000 + \"]\" * 30000)"' \
  'outcome: ignored-file' 'message: nesting too deep'
h_case entries_1025_under_cap 'gen "print(\"{\\\"preferences\\\": {\\\"sandboxBwrapMounts\\\": {\\\"additionalROBinds\\\": [\" + \",\".join([\"\\\"/usr/share\\\"\"] * 1025) + \"]}}}\")"' \
  'outcome: entry-refused' 'message: additionalROBinds[1024]: more than 1024 entries in the overlay (entry ignored)'

it_log "$n generated config cases"
