#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A user config that is a FIFO (nobody ever writes to it) must not hang the
# login: it is refused with a warning naming the file, and the session
# starts, sandboxed, on the defaults.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
cfg=$IT_HOME/.config/bwsh/config.json
it_as_user mkdir -p "$IT_HOME/.config/bwsh"
it_as_user mkfifo "$cfg"
[ -p "$cfg" ] || it_fail "mkfifo failed: $IT_ERR"

it_check "su - user -c true returns promptly with rc 0"
start=$SECONDS
IT_RC=0
timeout 20 su - "$IT_USER" -c 'true' </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
[ $((SECONDS - start)) -lt 20 ] || it_fail "the login took $((SECONDS - start)) s"
it_check "the warning names the file and says FIFO"
it_assert_err_has "bwsh: warning: $cfg: is a FIFO, not a regular file (refused); user configuration ignored"

it_check "the session is still sandboxed"
it_run 'stat -f -c %T /; test -e /root && echo root-visible; true'
it_assert_rc 0
it_assert_eq tmpfs "$IT_OUT" "inside / with a FIFO config"
