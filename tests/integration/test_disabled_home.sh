#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# disabledDefaultBinds naming the home directory removes the read-only bind
# of $HOME: the files in it are not visible inside.  On a tmpfs state: a
# kept state keeps the mount points the real entries had, empty, by name.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
it_user_policy 'state = "tmpfs";'
echo secret >"$IT_HOME/notes.txt"
chown "$IT_USER:" "$IT_HOME/notes.txt"

it_check "without the disable the file is visible (control)"
it_run 'cat ~/notes.txt'
it_assert_rc 0
it_assert_eq secret "$IT_OUT" "notes.txt with the default plan"

it_check "with the home bind disabled the file is not visible"
it_user_config "{\"preferences\":{\"sandboxBwrapMounts\":{\"disabledDefaultBinds\":[\"$IT_HOME/\"]}}}"
# user_config_mode = "editable" (the default): the overlay's directory alone
# stays bound, so the user can still edit it.
it_run 'if [ -e ~/notes.txt ]; then echo notes-visible; else echo notes-hidden; fi; ls -a ~; test -e ~/.config/bwsh/config.json && echo config-visible'
it_assert_rc 0
it_assert_out_has notes-hidden
it_assert_out_has config-visible
it_assert_out_lacks notes-visible
it_assert_out_lacks notes.txt
it_assert_err_lacks "bwsh: warning"
