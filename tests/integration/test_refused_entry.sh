#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A refused user entry prints one "bwsh: warning:" line with the path and
# the reason, the rest of the config still applies, and the refused mount is
# not there inside.  Line:column point at the opening quote of the entry.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
cfg=$IT_HOME/.config/bwsh/config.json
it_as_user mkdir -p "$IT_HOME/ok"
it_user_config "{\"preferences\":{\"sandboxBwrapMounts\":{
  \"additionalBinds\":[\"/etc\", \"$IT_HOME/ok\"],
  \"additionalROBinds\":[\"/sys\"]}}}"

it_check "read-write /etc is refused: not under \$HOME"
it_run "touch /etc/bwsh-it-probe; echo x > ~/ok/f; if [ -e /sys/kernel ]; then echo sys-present; else echo sys-absent; fi"
it_assert_err_has "bwsh: warning: $cfg:2:22: /etc: read-write binds are only allowed under the read-write ceilings (the project directory, and what the policy's rw_ceilings adds)"
it_assert_err_has "touch: cannot touch '/etc/bwsh-it-probe': Read-only file system"
it_assert_absent /etc/bwsh-it-probe

it_check "/sys is refused as a read-only bind and absent inside"
it_assert_err_has "bwsh: warning: $cfg:3:24: /sys: /, /proc, /dev, /sys and paths under them cannot be bound"
it_assert_out_has sys-absent
it_assert_out_lacks sys-present

it_check "the valid entry beside the refused ones still applies"
it_assert_rc 0
it_assert_eq x "$(cat "$IT_HOME/ok/f" 2>&1)" "ok/f on the host"
n=$(grep -c '^bwsh: warning: ' <<<"$IT_ERR")
it_assert_eq 2 "$n" "number of warning lines"
