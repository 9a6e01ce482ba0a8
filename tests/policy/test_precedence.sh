#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Precedence in a real session: a user block beats a group block beats the
# global settings, whatever their order in the file, setting by setting;
# a conf.d drop-in's global settings beat the main file's but not its blocks.
set -u
. "$(dirname "$0")/pol_lib.sh"
pol_setup

G=bwpg-$(tr -dc 'a-z0-9' </dev/urandom | head -c 8)
groupadd "$G" || { it_fail "groupadd $G failed"; exit 1; }
it_defer groupdel "$G"
usermod -aG "$G" "$IT_USER" || it_fail "usermod -aG failed"
it_defer gpasswd -d "$IT_USER" "$G"
pol_project

probe='cat /proc/sys/kernel/hostname; tail -n +3 /proc/net/dev | wc -l; stat -f -c "%b %S" /tmp'
# expect HOSTNAME NET(none|private|shared) TMP_BYTES
expect()
{
  local hn nif tmp
  pol_session "$probe"
  pol_assert_ran
  hn=$(sed -n 1p <<<"$IT_OUT")
  nif=$(sed -n 2p <<<"$IT_OUT")
  read -r b s <<<"$(sed -n 3p <<<"$IT_OUT")"
  tmp=$((b * s))
  it_assert_eq "$1" "$hn" "hostname"
  if [ "$2" = none ]; then it_assert_eq 1 "$nif" "interfaces (network none)"; fi
  if [ "$2" = private ]; then it_assert_eq 2 "$nif" "interfaces (network private: lo and slirp4netns's tap0)"; fi
  if [ "$2" = shared ]; then it_assert_eq "$(tail -n +3 /proc/net/dev | wc -l)" "$nif" "interfaces (network shared)"; fi
  it_assert_eq "$3" "$tmp" "size of /tmp"
}

it_check "user block (listed first) > group block > global"
pol_write "hostname = \"globalbox\";
tmp_size = \"8M\";
match = (
  { user = \"$IT_USER\"; hostname = \"userbox\"; },
  { group = \"$G\"; hostname = \"groupbox\"; network = \"none\"; }
);"
# hostname from the user block, network from the group block (the user
# block is silent on it), /tmp from the global settings.
expect userbox none 8388608

it_check "without the user block: the group block wins over global"
pol_write "hostname = \"globalbox\";
tmp_size = \"8M\";
match = ( { group = \"$G\"; hostname = \"groupbox\"; network = \"none\"; } );"
expect groupbox none 8388608

it_check "without the blocks: global"
pol_write "hostname = \"globalbox\";
tmp_size = \"8M\";"
expect globalbox private 8388608

it_check "a conf.d drop-in's global beats the main file's global"
pol_file 50-site.conf 'hostname = "dropinbox";'
install -o root -g root -m 0644 "$POL_FILE" "$POL_DIR/conf.d/50-site.conf"
expect dropinbox private 8388608

it_check "conf.d files apply in lexical order: 90 after 50"
pol_file 90-late.conf 'hostname = "latebox";'
install -o root -g root -m 0644 "$POL_FILE" "$POL_DIR/conf.d/90-late.conf"
expect latebox private 8388608

it_check "a group block in the main file beats a drop-in's global"
pol_write "hostname = \"globalbox\";
tmp_size = \"8M\";
match = ( { group = \"$G\"; hostname = \"groupbox\"; } );"
expect groupbox private 8388608

it_check "a user block in the main file beats a group block in a drop-in"
pol_write "match = ( { user = \"$IT_USER\"; hostname = \"userbox\"; } );"
pol_file 50-site.conf "match = ( { group = \"$G\"; hostname = \"groupbox\"; tmp_size = \"4M\"; } );"
install -o root -g root -m 0644 "$POL_FILE" "$POL_DIR/conf.d/50-site.conf"
rm -f "$POL_DIR/conf.d/90-late.conf"
expect userbox private 4194304
