#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bwshctl check and names that confine nobody (issue 25 item 8), the way
# configuration management's `validate: bwshctl check --policy %s` runs it:
#   - a subjects.groups, match.group or match.user name NSS does not know is
#     an error (exit 1, "FILE:LINE: error: ..."), with or without --strict;
#   - --strict turns warnings into errors: a policy bind whose source is
#     missing passes check (exit 0, a warning) and fails check --strict; so
#     does a lock group NSS does not know (#39);
#   - a libconfig syntax error says what was expected;
#   - --strict is for check only.
# shellcheck disable=SC1091,SC2034
. "$(dirname "$0")/pol_lib.sh"
pol_setup

check() { IT_RC=0; "$BWSHCTL" check "$@" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?; it_collect; }

it_check "an unknown subjects group fails check and check --strict"
pol_file typo.conf 'subjects = { groups = [ "sandboxd-no-such-group" ]; };'
check --policy "$POL_FILE"
it_assert_rc 1
it_assert_err_has "$POL_FILE:1: error: subjects.groups: no group \"sandboxd-no-such-group\" in NSS: it confines nobody"
it_assert_out_lacks "policy valid"
check --strict --policy "$POL_FILE"
it_assert_rc 1
it_assert_err_has "$POL_FILE:1: error: subjects.groups: no group \"sandboxd-no-such-group\""

it_check "an unknown match.user and match.group fail check"
pol_file match.conf 'match = ( { user = "no-such-user-bwsh"; network = "none"; },
  { group = "no-such-group-bwsh"; network = "none"; } );'
check --policy "$POL_FILE"
it_assert_rc 1
it_assert_err_has "$POL_FILE:1: error: match.user: no user \"no-such-user-bwsh\" in NSS: it confines nobody"
it_assert_err_has "$POL_FILE:2: error: match.group: no group \"no-such-group-bwsh\" in NSS: it confines nobody"

it_check "an unknown lock group is a warning (it locks nobody yet): exit 0, and 1 with --strict (#39)"
pol_file lockgroup.conf 'subjects = { users = [ "root" ]; };
lock_groups = [ "no-such-lock-group-bwsh" ];'
check --policy "$POL_FILE"
it_assert_rc 0
it_assert_err_has "$POL_FILE:2: warning: lock_groups: no group \"no-such-lock-group-bwsh\" in NSS: it locks nobody"
check --strict --policy "$POL_FILE"
it_assert_rc 1
it_assert_err_has "bwshctl: 1 warning, an error with --strict"

it_check "(control) names NSS knows: valid, exit 0, also with --strict"
pol_file good.conf 'subjects = { groups = [ "root" ]; users = [ "root" ]; };'
check --policy "$POL_FILE"
it_assert_rc 0
it_assert_out_has "$POL_FILE: policy valid"
check --strict --policy "$POL_FILE"
it_assert_rc 0

it_check "--strict: a warning is an error (a policy bind whose source is missing)"
pol_file bind.conf 'ro_binds = [ "/no-such-dir-bwsh-strict" ];'
check --policy "$POL_FILE"
it_assert_rc 0
it_assert_err_has "/no-such-dir-bwsh-strict"
check --strict --policy "$POL_FILE"
it_assert_rc 1
it_assert_err_has "bwshctl: 1 warning, an error with --strict"

it_check "a syntax error says what was expected"
pol_file syntax.conf 'max_sessions = ;'
check --policy "$POL_FILE"
it_assert_rc 1
it_assert_err_has "$POL_FILE:1: syntax error: expected a value after \"=\": a number, a \"string\", true or false, [ a list ] or { a group }"

it_check "--strict is for check"
IT_RC=0
"$BWSHCTL" explain --strict >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 2
it_assert_err_has "bwshctl: --strict is for check"
