#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Match blocks select users by name and by group, and groups come from NSS
# (getgrouplist), not from the groups the calling process happens to hold:
# a restriction for a group must reach its members however they log in.
set -u
. "$(dirname "$0")/pol_lib.sh"
pol_setup
it_add_user OTHER

G=bwpg-$(tr -dc 'a-z0-9' </dev/urandom | head -c 8)
groupadd "$G" || { it_fail "groupadd $G failed"; exit 1; }
it_defer groupdel "$G"
PRIMARY=$(id -gn "$IT_USER")

# other_run CMD: the login path for OTHER
other_run()
{
  IT_RC=0
  setsid -w timeout -k 5 60 su - "$OTHER" -c "$1" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

host_name=$(cat /proc/sys/kernel/hostname)
pol_project

it_check "user block, a list of names: applies to the user named, not to others"
pol_write "match = ( { user = [ \"nobody-here\", \"$IT_USER\" ]; hostname = \"userbox\"; } );"
pol_session 'cat /proc/sys/kernel/hostname'
pol_assert_ran
it_assert_eq userbox "$IT_OUT" "hostname for $IT_USER"
other_run 'cat /proc/sys/kernel/hostname'
it_assert_rc 0
it_assert_eq "$host_name" "$IT_OUT" "hostname for $OTHER"

it_check "group block for a group the user is not in: does not apply"
pol_write "match = ( { group = \"$G\"; hostname = \"groupbox\"; } );"
pol_session 'cat /proc/sys/kernel/hostname'
pol_assert_ran
it_assert_eq "$host_name" "$IT_OUT" "hostname before joining $G"

it_check "supplementary group (gpasswd -a): the group block applies to members only"
gpasswd -a "$IT_USER" "$G" >/dev/null || it_fail "gpasswd -a failed"
it_defer gpasswd -d "$IT_USER" "$G"
case " $(id -Gn "$IT_USER") " in *" $G "*) ;; *) it_fail "$IT_USER is not in $G after gpasswd" ;; esac
[ "$(id -gn "$IT_USER")" != "$G" ] || it_fail "$G must not be the primary group"
pol_session 'cat /proc/sys/kernel/hostname'
pol_assert_ran
it_assert_eq groupbox "$IT_OUT" "hostname for a member of $G"
other_run 'cat /proc/sys/kernel/hostname'
it_assert_rc 0
it_assert_eq "$host_name" "$IT_OUT" "hostname for $OTHER (not a member)"

it_check "a group the process does not hold (setpriv --clear-groups): still found through getgrouplist"
IT_RC=0
timeout -k 5 60 setpriv --reuid="$IT_UID" --regid="$IT_GID" --clear-groups \
  "$IT_BWSH" -c 'cat /proc/sys/kernel/hostname; grep "^Groups:" /proc/self/status' \
  </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
it_assert_eq "groupbox" "$(head -n1 <<<"$IT_OUT")" "hostname with no supplementary groups held"
it_assert_eq "Groups:" "$(sed -n 2p <<<"$IT_OUT" | tr -d '[:space:]')" "groups held by the session"

it_check "group block naming the primary group applies too"
pol_write "match = ( { group = [ \"no-such-grp\", \"$PRIMARY\" ]; hostname = \"primbox\"; } );"
pol_session 'cat /proc/sys/kernel/hostname'
pol_assert_ran
it_assert_eq primbox "$IT_OUT" "hostname via the primary group"

it_check "leaving the group: the block no longer applies"
gpasswd -d "$IT_USER" "$G" >/dev/null || it_fail "gpasswd -d failed"
pol_write "match = ( { group = \"$G\"; hostname = \"groupbox\"; } );"
pol_session 'cat /proc/sys/kernel/hostname'
pol_assert_ran
it_assert_eq "$host_name" "$IT_OUT" "hostname after leaving $G"
