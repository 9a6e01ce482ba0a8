#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ~/.ssh/rc is run by sshd before the session's command.  With the shipped
# snippet (PermitUserRC no) it is not run at all.  Without it, sshd runs it
# through the login shell (`$SHELL -c '/bin/sh .ssh/rc'`), so it runs inside
# the sandbox or not at all, never on the host.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC2088,SC1010,SC1003,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
cat >"$IT_HOME/.ssh/rc" <<'RC'
comm=$(cat /proc/1/comm)
echo "$comm" >"$HOME/project/rc-ran"
touch "/tmp/bwsh-rc-escape-$(id -un)" "$HOME/rc-escape"
RC
chown "$IT_USER:" "$IT_HOME/.ssh/rc"
chmod 644 "$IT_HOME/.ssh/rc"

it_check "with the snippet, ~/.ssh/rc does not run"
ssh_start main snippet
ssh_mark
ssh_run t 'echo session'
it_assert_rc 0
it_assert_eq session "$IT_OUT"
it_assert_absent "$IT_HOME/project/rc-ran"
it_assert_absent "/tmp/bwsh-rc-escape-$IT_USER"
ssh_assert_confined
ssh_stop

it_check "without the snippet (PermitUserRC yes), ~/.ssh/rc runs sandboxed or not at all"
ssh_start plain nosnippet "PermitUserRC yes"
ssh_mark
ssh_run t 'echo session'
it_assert_rc 0
it_assert_out_has session
if [ -e "$IT_HOME/project/rc-ran" ]; then
  it_assert_eq bwrap "$(cat "$IT_HOME/project/rc-ran")" "~/.ssh/rc's /proc/1/comm"
  ssh_log "~/.ssh/rc ran inside the sandbox"
else
  ssh_log "~/.ssh/rc did not run (relative .ssh/rc from the project dir): $IT_ERR"
fi
it_assert_absent "/tmp/bwsh-rc-escape-$IT_USER"
it_assert_absent "$IT_HOME/rc-escape"
ssh_assert_confined
ssh_stop
ssh_assert_no_user_processes
