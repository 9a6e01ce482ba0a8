#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `bwsh -c` without a command is a usage error (exit 2, the exact message)
# and starts nothing: no sandbox, no shell.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap

it_check "bwsh -c with no argument exits 2"
it_bwsh -c
it_assert_rc 2
it_assert_err_has "bwsh: -c: option requires an argument"
it_assert_eq "" "$IT_OUT" "stdout"
it_check "an unknown option is refused the same way, before anything runs"
it_bwsh --rcfile /tmp/x
it_assert_rc 2
it_assert_err_has "bwsh: --rcfile: unsupported argument"
it_check "nothing was started: no project dir was created"
it_assert_absent "$IT_HOME/project"
