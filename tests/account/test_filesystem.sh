#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The rest of a normal filesystem, through real ssh logins: a writable, sized
# /var/tmp (and no host /var); /tmp cannot be disabled; tty(1) and SSH_TTY
# agree on a terminal device that exists inside.
# shellcheck disable=SC2016,SC1091
. "$(dirname "$0")/lib.sh"
acct_prepare
# A size the kernel's default (half the RAM) cannot be by chance.
acct_policy 'tmp_size = "48M";'
ssh_start main

it_check '"disabledDefaultBinds": ["/tmp"] is refused with its message; /tmp stays'
it_user_config '{"preferences":{"sandboxBwrapMounts":{"disabledDefaultBinds":["/tmp"]}}}'
ssh_run t "$SSH_PROBE"'; echo t >/tmp/probe && cat /tmp/probe; stat -f -c "type=%T" /tmp'
it_assert_rc 0
it_assert_eq "bwrap
t
type=tmpfs" "$IT_OUT" "pid 1 and /tmp"
it_assert_err_has "bwsh: warning: $IT_HOME/.config/bwsh/config.json:1:63: disabledDefaultBinds /tmp: is locked and cannot be disabled"
rm -f "$IT_HOME/.config/bwsh/config.json"

ssh_mark

it_check "/var/tmp is a writable tmpfs of tmp_size (48M), and /var holds nothing of the host's"
ssh_run t "$SSH_PROBE"'; echo v >/var/tmp/probe && cat /var/tmp/probe; stat -f -c "type=%T" /var/tmp;
  df -B1 --output=size /var/tmp | tail -1 | tr -d " "; ls -A /var'
it_assert_rc 0
it_assert_eq "bwrap
v
type=tmpfs
50331648
tmp" "$IT_OUT" "pid 1, /var/tmp, its size, the content of /var"

it_check "tty and SSH_TTY agree, and name a terminal that exists inside"
IT_RC=0
timeout -k 5 60 ssh -tt -F "$SSH_CFG" t 'tty; echo "SSH_TTY=$SSH_TTY"; test -c "$(tty)" && echo is-a-tty-device;
  test "$(tty)" = "$SSH_TTY" && echo agree; test "$(stat -L -c %t:%T "$(tty)")" = "$(stat -L -c %t:%T /proc/self/fd/0)" && echo same-as-stdin' \
  </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
it_assert_out_has /dev/console
it_assert_out_has "SSH_TTY=/dev/console"
it_assert_out_has is-a-tty-device
it_assert_out_has agree
it_assert_out_has same-as-stdin

ssh_assert_confined
ssh_stop
ssh_assert_no_user_processes
