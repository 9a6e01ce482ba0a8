#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An additionalROBinds directory outside $HOME is visible inside and
# read-only, although the user may write to it on the host.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
# Outside the home and outside /tmp, which an overlay may not bind.
it_data_dir data_parent
# shellcheck disable=SC2154 # it_data_dir assigns it (printf -v)
data=$data_parent/shared-data
mkdir -p "$data"
echo "reference" >"$data/ref.txt"
chown -R "$IT_USER:" "$data"
it_user_config "{\"preferences\":{\"sandboxBwrapMounts\":{\"additionalROBinds\":[\"$data\"]}}}"

it_check "the user can write there outside the sandbox (premise)"
it_as_user touch "$data/premise"
it_assert_rc 0
rm -f "$data/premise"

it_check "the directory is visible inside"
it_run "cat '$data/ref.txt'"
it_assert_rc 0
it_assert_eq reference "$IT_OUT" "content of ref.txt inside"
it_assert_err_lacks "bwsh: warning"

it_check "the directory is read-only inside"
it_run "touch '$data/new'; echo more >> '$data/ref.txt'"
it_assert_err_has "touch: cannot touch '$data/new': Read-only file system"
it_assert_err_has "$data/ref.txt: Read-only file system"
it_assert_absent "$data/new"
it_assert_eq reference "$(cat "$data/ref.txt")" "ref.txt on the host"
