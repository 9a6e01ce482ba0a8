#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The login path through su: the inner command's exit status is bwsh's, and
# -c keeps sh's argument semantics ($0 $1 ... after the command).
# shellcheck disable=SC2016 # $0, $1 and $@ are the session's; the expected output is literal
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap

it_check "su - user -c 'exit 7' exits 7"
it_run 'exit 7'
it_assert_rc 7
it_check "other statuses pass through too"
it_run 'exit 0'
it_assert_rc 0
it_run 'exit 255'
it_assert_rc 255
it_run 'kill -TERM $$'
it_assert_rc 143

it_check "su - starts bwsh as a login shell: the inner bash gets -l"
it_run 'cat /proc/1/cmdline | tr "\0" " "; echo; echo "$0"'
it_assert_rc 0
it_assert_out_has "/usr/bin/bwrap --args "
it_assert_out_has "-- /bin/bash -l -c "

it_check "bwsh -c 'printf \"%s|\" \"\$0\" \"\$1\"' a b prints a|b|"
it_bwsh -c 'printf "%s|" "$0" "$1"' a b
it_assert_rc 0
it_assert_eq 'a|b|' "$IT_OUT" "bwsh -c output"
it_check "the same through su (su passes the words after -- on)"
IT_RC=0
setsid -w timeout 60 su "$IT_USER" -c 'printf "%s|" "$0" "$1" "$2"' -- a 'b c' '-x' </dev/null \
  >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
it_assert_eq 'a|b c|-x|' "$IT_OUT" "su -c output"
it_check "words that look like options or shell syntax stay words"
it_bwsh -c 'printf "<%s>" "$@"' name '--bind' '/ /' '$(id)' ';exit 3'
it_assert_rc 0
it_assert_eq '<--bind></ /><$(id)><;exit 3>' "$IT_OUT" "positional parameters"
