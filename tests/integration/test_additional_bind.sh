#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An additionalBinds directory under $HOME is writable inside although the
# real $HOME is read-only, and the write lands on the host.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
it_as_user mkdir -p "$IT_HOME/work/data"
echo keep >"$IT_HOME/beside-work"
chown "$IT_USER:" "$IT_HOME/beside-work"
it_user_config "{\"preferences\":{\"sandboxBwrapMounts\":{\"additionalBinds\":[\"$IT_HOME/work\"]}}}"

it_check "write to the additionalBinds directory lands on the host"
it_run "echo hello > ~/work/data/out.txt && echo written; touch ~/beside-work"
it_assert_rc 1
it_assert_out_has written
it_assert_err_lacks "bwsh: warning"
it_assert_eq hello "$(cat "$IT_HOME/work/data/out.txt" 2>&1)" "host copy of work/data/out.txt"

it_check "the rest of the real \$HOME stays read-only"
it_assert_err_has "touch: cannot touch '$IT_HOME/beside-work': Read-only file system"
it_assert_eq keep "$(cat "$IT_HOME/beside-work")" "beside-work on the host"
