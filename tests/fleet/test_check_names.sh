#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `bwshctl check` against a real directory (tests/fleet/lib.sh, 1,000
# users): a user or group name NSS does not know is an error with its
# file:line (a typo confines nobody), exit 1; --resolve counts each group's users as
# SSSD reports them, nested groups flattened.  The timing is in bench/fleet.sh.
. "$(dirname "$0")/lib.sh"
fleet_enter_namespace "$@"
fleet_setup

BWSHCTL=$IT_PREFIX/bin/bwshctl
P=$FLEET_PFX
POL=$IT_TMP/check.conf
cat >"$POL" <<POL
subjects = { users = [ "$(fleet_user 5)", "${P}u9999" ];
             groups = [ "${P}confined", "${P}g007", "${P}confimed" ]; };
match = ( { group = [ "${P}staff", "${P}stafff" ]; hostname = "x"; } );
POL
chmod 644 "$POL"

it_check "without --resolve: one error per unknown name with file:line, exit 1"
IT_RC=0
"$BWSHCTL" check --policy "$POL" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 1
it_assert_out_lacks "policy valid"
it_assert_err_has "$POL:1: error: subjects.users: no user \"${P}u9999\" in NSS: it confines nobody"
it_assert_err_has "$POL:2: error: subjects.groups: no group \"${P}confimed\" in NSS: it confines nobody"
it_assert_err_has "$POL:3: error: match.group: no group \"${P}stafff\" in NSS: it confines nobody"
it_assert_eq 3 "$(grep -c error <<<"$IT_ERR")" "number of errors"
it_assert_out_lacks "users"

it_check "--resolve: users per group, as NSS (SSSD) has them"
IT_RC=0
"$BWSHCTL" check --resolve --policy "$POL" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 1
# g007 holds users 6, 106, ..., 906; confined holds u0001; staff holds the
# group confined, so u0001 through nesting.
it_assert_out_has "subjects.groups: group ${P}g007: 10 users"
it_assert_out_has "subjects.groups: group ${P}confined: 1 user"
it_assert_out_has "match.group: group ${P}staff: 1 user"
it_assert_eq "$(getent group "${P}g007" | cut -d: -f4 | tr ',' '\n' | wc -l)" 10 "getent's count for g007"

it_check "a group added in LDAP is known after sss_cache -E"
fleet_ldap_modify "dn: cn=${P}confimed,$FLEET_GROUPS_DN
changetype: add
objectClass: posixGroup
objectClass: extensibleObject
cn: ${P}confimed
gidNumber: $((FLEET_BASE + 1997))
member: uid=$(fleet_user 9),$FLEET_PEOPLE
"
sss_cache -E
IT_RC=0
"$BWSHCTL" check --resolve --policy "$POL" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 1 # u9999 and stafff are still unknown
it_assert_err_lacks "\"${P}confimed\""
it_assert_out_has "subjects.groups: group ${P}confimed: 1 user"
