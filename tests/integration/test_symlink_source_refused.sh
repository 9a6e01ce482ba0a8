#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A bind source that is a symlink is judged by what it resolves to: a link
# to ~/.ssh (protected) or to a directory outside $HOME is refused with
# "resolves to ...", and nothing becomes writable through it.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
H=$IT_HOME
cfg=$H/.config/bwsh/config.json
outside=$IT_TMP/outside
mkdir -p "$outside" && chown "$IT_USER:" "$outside"
it_as_user mkdir -m 700 "$H/.ssh"
it_as_user ln -s "$H/.ssh" "$H/keys"
it_as_user ln -s "$outside" "$H/out"
it_user_config "{\"preferences\":{\"sandboxBwrapMounts\":{\"additionalBinds\":[\"$H/keys\",\"$H/out\"]}}}"
col() { local off; off=$(grep -bo -F "\"$1\"" "$cfg" | head -n1 | cut -d: -f1); echo $((off + 1)); }

it_check "the user can write both targets outside the sandbox (premise)"
it_as_user sh -c "touch '$H/keys/premise' '$H/out/premise' && rm '$H/keys/premise' '$H/out/premise'"
it_assert_rc 0

it_check "a link to ~/.ssh is refused with the resolved path"
it_run "touch ~/keys/authorized_keys; touch ~/out/probe; ls ~/out/ 2>&1; echo end"
it_assert_err_has "bwsh: warning: $cfg:1:$(col "$H/keys"): $H/keys: resolves to $H/.ssh: is a protected path and never writable inside the sandbox"
it_check "a link out of \$HOME is refused with the resolved path"
it_assert_err_has "bwsh: warning: $cfg:1:$(col "$H/out"): $H/out: resolves to $outside: read-write binds are only allowed under the read-write ceilings (the project directory, and what the policy's rw_ceilings adds)"

it_check "nothing was written through either link"
it_assert_err_has "touch: cannot touch '$H/keys/authorized_keys': Read-only file system"
it_assert_absent "$H/.ssh/authorized_keys"
it_assert_absent "$outside/probe"
# The outside directory is under the host's /tmp, which is not the sandbox's.
it_assert_out_has "cannot access '$H/out/'"
