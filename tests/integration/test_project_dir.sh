#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ~/project is created (0700) when missing, is writable, and what is written
# there is on the host after the session.  The session starts in $HOME, as
# an SSH login does, so that relative paths mean what users expect.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap

it_check "project dir is created 0700; the working directory is \$HOME"
it_run 'pwd'
it_assert_rc 0
it_assert_eq "$IT_HOME" "$IT_OUT" "working directory inside"
it_assert_eq "700 $IT_USER" "$(stat -c '%a %U' "$IT_HOME/project" 2>&1)" "project dir mode and owner"

it_check "a file written in the project dir is on the host after exit"
token=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
it_run "echo $token > ~/project/result.txt && mkdir ~/project/sub && echo ok"
it_assert_rc 0
it_assert_out_has ok
it_assert_eq "$token" "$(cat "$IT_HOME/project/result.txt" 2>&1)" "host copy of project/result.txt"
it_assert_eq "$IT_USER" "$(stat -c %U "$IT_HOME/project/result.txt" 2>&1)" "owner of the file on the host"
[ -d "$IT_HOME/project/sub" ] || it_fail "project/sub is not on the host"
