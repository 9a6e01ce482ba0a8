#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bwshctl's options: a long option only as written (getopt_long took
# "--user" for "--user-config" and explained root's plan), and --user USER
# naming the same account in every command.
set -u
. "$(dirname "$0")/pol_lib.sh"
pol_setup

ctl()
{
  IT_RC=0
  timeout 60 "$BWSHCTL" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

it_check "explain --user USER explains USER's plan, not the caller's"
ctl explain --user "$IT_USER"
it_assert_rc 0
it_assert_out_has "bwsh plan for $IT_USER (uid $IT_UID)"
ctl explain --json --user="$IT_USER"
it_assert_rc 0
it_assert_eq "$IT_HOME" "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["home"])' <<<"$IT_OUT")" "home"

it_check "explain USER and --user USER agree; two different users are refused"
ctl explain "$IT_USER" --user "$IT_USER"
it_assert_rc 0
ctl explain root --user "$IT_USER"
it_assert_rc 2
it_assert_err_has "bwshctl: two different users, \"$IT_USER\" and \"root\""

it_check "check --user USER checks USER's session"
it_as_user mkdir -p "$IT_HOME/.config/bwsh"
it_user_config '{ "preferences": { "sandboxBwrapMounts": { "additionalBinds": [ "/etc" ] } } }'
ctl check --user "$IT_USER"
it_assert_rc 1
it_assert_err_has "/etc: read-write binds are only allowed under the read-write ceilings"
it_check "check --user USER says why bwsh would refuse USER's session"
pol_write 'strict = true;'
ctl check --user "$IT_USER"
it_assert_rc 1
it_assert_err_has "a session would be refused: cannot build the sandbox: strict policy: 1 configuration entry was refused"
pol_restore
it_as_user rm -f "$IT_HOME/.config/bwsh/config.json"
ctl check --user "$IT_USER"
it_assert_rc 0
it_assert_out_has "policy valid"

# Every abbreviation getopt_long would have taken is an unknown option now.
for args in "explain --use $IT_USER" "explain --user-conf /dev/null" "explain --js" "explain --pol $POL" \
  "check --user-c /dev/null" "check --poli $POL" "doctor --us $IT_USER" "doctor --pol $POL" "check --json"; do
  it_check "bwshctl $args: refused as an unknown option (exit 2)"
  # shellcheck disable=SC2086 # word splitting is the point
  ctl $args
  it_assert_rc 2
  it_assert_err_has "unknown option"
  it_assert_out_lacks "bwsh plan for"
done

it_check "an option that needs a value, at the end, is a usage error"
ctl explain --user
it_assert_rc 2
it_assert_err_has "option \"--user\" needs an argument"
