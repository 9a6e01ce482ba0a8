#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `ssh host CMD`: sshd runs `bwsh -c CMD`; the command must get bash's own
# quoting, its exit status must come back, stdin/stdout must be binary-clean,
# and it must run inside the sandbox.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC2088,SC1010,SC1003,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
ssh_start main

it_check "a command runs inside the sandbox, not on the host"
ssh_mark
ssh_run t "$SSH_PROBE; touch ~/.ssh/escape-home ~/escape-home /tmp/escape-tmp 2>&1; echo done"
it_assert_rc 0
it_assert_eq bwrap "$(head -n1 <<<"$IT_OUT")" "/proc/1/comm inside the session"
it_assert_out_has "touch: cannot touch '$IT_HOME/.ssh/escape-home': Read-only file system"
it_assert_out_has done
it_assert_absent "$IT_HOME/.ssh/escape-home"
it_assert_absent "$IT_HOME/escape-home"
ssh_assert_confined

it_check "quoting is bash's: quotes, \$vars, globs, substitutions"
cmd='x="a  b"; y='\''c$d'\''; printf "<%s>" $x "$x" "$y" '\''it'\''\'\'''\''s'\'' "q\"q" $((6*7)) "$(echo sub)" \* ; printf "\n"'
want=$(env -i /bin/bash -c "$cmd")
ssh_run t "$cmd"
it_assert_rc 0
it_assert_eq "$want" "$IT_OUT" "output of the quoted command"
it_assert_eq "<a><b><a  b><c\$d><it's><q\"q><42><sub><*>" "$want" "bash's reading of the command"

it_check "arguments after the command become one string, as with any shell"
ssh_run t printf '"[%s]"' a 'b c'
it_assert_eq "[a][b][c]" "$IT_OUT" "ssh's joined words re-split by the inner shell"

it_check "exit codes propagate"
for code in 0 1 42 127 255; do
  ssh_run t "exit $code"
  it_assert_rc "$code"
done
ssh_run t "no-such-command-bwsh"
it_assert_rc 127
it_assert_err_has "no-such-command-bwsh"

# bwrap, the session's process, reports its child's death by signal N as exit
# status 128+N (like a nested shell), where a bare bash login shell would
# make ssh report the signal itself (255).  Recorded in docs/ssh.md.
it_check "a signal-killed command reports 128+N through ssh"
ssh_run t 'kill -TERM $$'
it_assert_rc 143

it_check "10 MiB through cat comes back byte for byte"
head -c $((10 * 1024 * 1024)) /dev/urandom >"$IT_TMP/blob"
want=$(sha256sum <"$IT_TMP/blob" | cut -d' ' -f1)
got=$(timeout 120 ssh -F "$SSH_CFG" t cat <"$IT_TMP/blob" | sha256sum | cut -d' ' -f1)
it_assert_eq "$want" "$got" "sha256 of 10 MiB through ssh cat"
got=$(timeout 120 ssh -F "$SSH_CFG" t 'cat >"$HOME/project/blob" && sha256sum <"$HOME/project/blob"' <"$IT_TMP/blob" | cut -d' ' -f1)
it_assert_eq "$want" "$got" "sha256 inside the sandbox"
it_assert_eq "$want" "$(sha256sum <"$IT_HOME/project/blob" | cut -d' ' -f1)" "sha256 of the file on the host"

ssh_assert_confined
ssh_stop
ssh_assert_no_user_processes
