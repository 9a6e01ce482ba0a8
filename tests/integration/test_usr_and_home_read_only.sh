#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# /usr and the real $HOME are read-only inside: a write fails with EROFS and
# nothing appears on the host (the user owns $HOME, so only the mount can stop
# it).  New files in $HOME go to the session's state, never to the host.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
probe=bwsh-it-probe-$$
it_defer rm -f "/usr/$probe" "/usr/bin/$probe" "$IT_HOME/$probe"
echo keep >"$IT_HOME/notes.txt"
chown "$IT_USER:" "$IT_HOME/notes.txt"

it_check "the user can write to its home outside the sandbox (premise)"
it_as_user touch "$IT_HOME/premise"
it_assert_rc 0
rm -f "$IT_HOME/premise"

it_check "/usr is read-only"
it_run "touch /usr/$probe; touch /usr/bin/$probe"
it_assert_err_has "touch: cannot touch '/usr/$probe': Read-only file system"
it_assert_err_has "touch: cannot touch '/usr/bin/$probe': Read-only file system"
it_assert_absent "/usr/$probe"
it_assert_absent "/usr/bin/$probe"

it_check "the real home's files are read-only"
it_run "echo x > ~/notes.txt; rm -f ~/notes.txt; echo done"
it_assert_err_has "$IT_HOME/notes.txt: Read-only file system"
it_assert_out_has "done"
it_assert_eq keep "$(cat "$IT_HOME/notes.txt")" "notes.txt on the host"

it_check "new files in \$HOME are the session's own and never reach the host"
it_run "echo x > \"\$HOME/$probe\" && mkdir \"\$HOME/$probe.d\" && cat \"\$HOME/$probe\" && echo done"
it_assert_rc 0
it_assert_out_has "done"
it_assert_absent "$IT_HOME/$probe"
it_assert_absent "$IT_HOME/$probe.d"
