#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# su: `su - user` and `su user -c cmd` run the login shell, bwsh, so they are
# sandboxed.  `su -s /bin/bash user` from another account (with the
# password) must not give an unconfined shell: util-linux su ignores -s for
# a non-root caller when the target's shell is not in /etc/shells (a
# "restricted shell"), so bwsh must never be listed there.  The second half
# shows what listing it would do.  All in a private mount namespace: a copy
# of /etc/pam.d with pam_bwsh in su's session stack, and a copy of /etc/shells.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC2088,SC1010,SC1003,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
it_add_user CALLER
PW="pw-$RANDOM-$RANDOM"
printf '%s:%s\n' "$IT_USER" "$PW" | chpasswd || { it_fail "chpasswd failed"; exit 1; }

grep -qx "$IT_BWSH" "$SSH_NS_SHELLS" && { it_fail "$IT_BWSH is already in /etc/shells"; exit 1; }

in_ns()
{
  IT_RC=0
  timeout -k 5 90 unshare -m --propagation private -- /bin/sh -c '
    mount --bind "$1" /etc/pam.d && mount --bind "$2" /etc/shells || exit 1
    shift 2; exec "$@"' sh "$IT_TMP/pam.d" "$SSH_NS_SHELLS" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}
as_caller() { printf '%s\n' setpriv "--reuid=$(id -u "$CALLER")" "--regid=$(id -g "$CALLER")" --init-groups; }
mapfile -t AS_CALLER < <(as_caller)
PTY=$(it_user_copy "$BWSH_SOURCE_DIR/tests/ssh/pty_run.py") || { it_fail "cannot copy pty_run.py"; exit 1; }

it_check "su - user runs the login shell in the sandbox"
ssh_mark
in_ns su - "$IT_USER" -c "$SSH_PROBE; pwd; touch ~/.ssh/su-escape 2>/dev/null || echo ro"
it_assert_rc 0
it_assert_eq "bwrap
$IT_HOME
ro" "$IT_OUT" "su - output"

it_check "su user -c cmd runs in the sandbox"
in_ns su "$IT_USER" -c "$SSH_PROBE; exit 7"
it_assert_rc 7
it_assert_eq bwrap "$IT_OUT"

it_check "su from another account with the password runs the sandbox"
in_ns "${AS_CALLER[@]}" /usr/bin/python3 "$PTY" "$PW" su - "$IT_USER" -c "$SSH_PROBE"
it_assert_rc 0
it_assert_out_has bwrap

it_check "su -s /bin/bash from another account is refused its shell: bwsh is a restricted shell"
in_ns "${AS_CALLER[@]}" /usr/bin/python3 "$PTY" "$PW" su -s /bin/bash "$IT_USER" -c "$SSH_PROBE"
it_assert_rc 0
it_assert_out_has "using restricted shell $IT_BWSH"
it_assert_out_has bwrap
ssh_assert_confined

it_check "(why) with bwsh listed in /etc/shells, su -s /bin/bash would escape"
cp "$SSH_NS_SHELLS" "$IT_TMP/shells-listed"
printf '%s\n' "$IT_BWSH" >>"$IT_TMP/shells-listed"
SSH_NS_SHELLS=$IT_TMP/shells-listed
in_ns "${AS_CALLER[@]}" /usr/bin/python3 "$PTY" "$PW" su -s /bin/bash "$IT_USER" -c "$SSH_PROBE"
it_assert_rc 0
it_assert_out_lacks "restricted shell"
it_assert_out_lacks bwrap
it_assert_out_has "$(cat /proc/1/comm)"

ssh_assert_no_user_processes
