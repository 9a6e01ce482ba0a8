#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The sandbox's / is a fresh tmpfs: the host's /root, /var/log and other
# users' homes are not there at all, not merely unreadable.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
it_add_user OTHER
echo secret >"$OTHER_HOME/other-secret"

it_check "host has the directories the sandbox must hide"
# shellcheck disable=SC2015 # fails when either directory is missing
[ -d /root ] && [ -d /var/log ] || it_fail "test premise: /root or /var/log missing on the host"

it_check "/ is a tmpfs"
it_run 'stat -f -c %T /'
it_assert_rc 0
it_assert_eq tmpfs "$IT_OUT" "filesystem type of / inside"

it_check "/root, /var/log and another user's home are absent"
it_run "for p in /root /var/log /var '$OTHER_HOME' '$OTHER_HOME/other-secret'; do if [ -e \"\$p\" ]; then echo \"present \$p\"; else echo \"absent \$p\"; fi; done"
it_assert_rc 0
for p in /root /var/log "$OTHER_HOME" "$OTHER_HOME/other-secret"; do
  it_assert_out_has "absent $p"
  it_assert_out_lacks "present $p"
done
