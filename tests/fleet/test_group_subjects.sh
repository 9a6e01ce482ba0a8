#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Policy by directory group, over ssh, against a real slapd + sssd with
# 1,000 users (tests/fleet/lib.sh):
#   - a member of the subject group logs in sandboxed, with bwsh as shell
#     from SSSD's override_shell (LDAP says /bin/bash);
#   - a "match" block naming a group that holds the subject group (nested)
#     applies to that member;
#   - a user outside every subject group is not affected;
#   - adding a user to the group in LDAP, then `sss_cache -E`, confines them
#     at their next login;
#   - a member only through a nested group is a subject (SSSD resolves the
#     nesting) but the memberOf filter of the override_shell domain does not
#     see it: it keeps /bin/bash, and pam_bwsh refuses the session
#     (require_shell) rather than let it run unsandboxed;
#   - with the policy binding SSSD's memory cache (/var/lib/sss/mc), the
#     sandbox resolves the user's name without any socket to sssd.
. "$(dirname "$0")/lib.sh"
fleet_enter_namespace "$@"
fleet_setup

IN=$(fleet_user 1)     # member of ${PFX}confined
OUT=$(fleet_user 2)    # in no subject group
MOVED=$(fleet_user 3)  # added to ${PFX}confined during the test
for u in "$IN" "$OUT" "$MOVED"; do fleet_home_for "$u"; done

fleet_policy "subjects = { groups = [ \"${FLEET_PFX}confined\" ]; };
ro_binds = [ \"/var/lib/sss/mc\" ];
match = ( { group = \"${FLEET_PFX}staff\"; hostname = \"fleet-staff\"; } );"
ssh_start fleet snippet "AllowUsers ${FLEET_PFX}u*"
HOST_INIT=$(cat /proc/1/comm)

it_check "NSS in the namespace resolves the directory, nested groups included"
it_assert_eq "$IT_BWSH" "$(getent passwd "$IN" | cut -d: -f7)" "shell of $IN (override_shell)"
it_assert_eq /bin/bash "$(getent passwd "$OUT" | cut -d: -f7)" "shell of $OUT (from LDAP)"
id -nG "$IN" | tr ' ' '\n' | grep -qx "${FLEET_PFX}staff" || it_fail "$IN is not in ${FLEET_PFX}staff: $(id -nG "$IN")"

it_check "a member of the subject group logs in sandboxed"
ssh_mark
fleet_assert_session "$IN" "bwrap fleet-staff"

it_check "inside, the user's name resolves through SSSD's memory cache alone"
fleet_ssh_as "$IN" 'id -un; id -gn; if test -e /var/lib/sss/pipes/nss; then echo socket; fi'
it_assert_rc 0
it_assert_eq "$IN
${FLEET_PFX}users" "$IT_OUT" "names inside the sandbox"

it_check "a user outside every subject group is not affected"
fleet_assert_session "$OUT" "$HOST_INIT $(hostname)"

it_check "before the move, $MOVED is not confined"
fleet_assert_session "$MOVED" "$HOST_INIT $(hostname)"

it_check "added to the group in LDAP, cache expired: confined at the next login"
fleet_ldap_modify "dn: cn=${FLEET_PFX}confined,$FLEET_GROUPS_DN
changetype: modify
add: member
member: uid=$MOVED,$FLEET_PEOPLE
"
sss_cache -E || it_fail "sss_cache -E failed"
it_assert_eq "$IT_BWSH" "$(getent passwd "$MOVED" | cut -d: -f7)" "shell of $MOVED after the move"
fleet_assert_session "$MOVED" "bwrap fleet-staff"

it_check "removed from the group again: no longer a subject after sss_cache -E"
fleet_ldap_modify "dn: cn=${FLEET_PFX}confined,$FLEET_GROUPS_DN
changetype: modify
delete: member
member: uid=$MOVED,$FLEET_PEOPLE
"
sss_cache -E || it_fail "sss_cache -E failed"
fleet_assert_session "$MOVED" "$HOST_INIT $(hostname)"

it_check "a member only through a nested group: refused (require_shell), never unsandboxed"
NESTED=$(fleet_user 9)   # in g010
fleet_home_for "$NESTED"
fleet_ldap_modify "dn: cn=${FLEET_PFX}confined,$FLEET_GROUPS_DN
changetype: modify
add: member
member: cn=${FLEET_PFX}g010,$FLEET_GROUPS_DN
"
sss_cache -E || it_fail "sss_cache -E failed"
id -nG "$NESTED" | tr ' ' '\n' | grep -qx "${FLEET_PFX}confined" || it_fail "$NESTED is not in ${FLEET_PFX}confined: $(id -nG "$NESTED")"
it_assert_eq /bin/bash "$(getent passwd "$NESTED" | cut -d: -f7)" "shell of $NESTED (not in the memberOf domain)"
MARK=$IT_ROOT/home/$NESTED/project/ran
# The account stage refuses; sshd sends its line as a banner, which the
# client prints at its default LogLevel (INFO), not at the suite's ERROR.
IT_RC=0
timeout -k 5 60 ssh -F "$SSH_CFG" -o LogLevel=INFO -l "$NESTED" t "touch $MARK; $FLEET_PROBE" \
  </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 255
it_assert_err_has "bwsh: the login shell of sandboxed user $NESTED is /bin/bash, not $IT_BWSH (require_shell)"
it_assert_out_lacks " $(id -u "$NESTED")"
it_assert_absent "$MARK"
