#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/deps.sh installs nothing that edits the machine's NSS or PAM
# configuration.  ./scripts/test runs on admins' machines: installing
# libnss-sss, libnss-ldap*, libnss-systemd... adds a source to
# /etc/nsswitch.conf, libpam-sss, libpam-ldap*, libpam-pwquality... run
# pam-auth-update and add their module to /etc/pam.d/common-*, and slapd and
# sssd-* are directory daemons started as services (sssd-common also pulls
# libnss-sss and libpam-sss).  tests/fleet unpacks slapd and sssd without
# installing them (tests/fleet/root.sh); this test keeps it so.
#
# It checks every package apt would install, dependencies included, for
# the lists of scripts/deps.sh (as scripts/test installs them) on a machine
# with nothing installed yet (apt-get -s with an empty dpkg status), after a
# control run showing that the check catches sssd-tools.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/deps.sh
. "$top/scripts/deps.sh"
set +e

# Debian's base PAM (every system has it; it owns /etc/pam.d).
BASE_PAM=" libpam0g libpam0g-dev libpam-modules libpam-modules-bin libpam-runtime "

# forbidden PACKAGE...: prints each package, among those apt would install
# for PACKAGE... on an empty machine, whose installation edits
# nsswitch.conf or /etc/pam.d or starts a directory daemon.
forbidden()
{
  apt-get install -s -qq --no-install-recommends -o Dir::State::status=/dev/null "$@" 2>"$tmp/apt.err" \
    | awk '/^Inst / { print $2 }' >"$tmp/inst"
  [ -s "$tmp/inst" ] || { echo "apt-get -s failed: $(cat "$tmp/apt.err")" >&2; echo "<apt failed>"; return; }
  while read -r p; do
    case $p in
      slapd | sssd | sssd-* | libnss-* | libpam-* | nslcd | nscd)
        case $BASE_PAM in *" $p "*) continue ;; esac
        echo "$p"
        ;;
    esac
  done <"$tmp/inst"
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

apt-cache show --no-all-versions slapd >/dev/null 2>&1 || { echo "FAIL: apt knows no slapd (apt-get update)"; exit 1; }

echo "control: the check sees what sssd-tools pulls in"
got=$(forbidden sssd-tools | sort | tr '\n' ' ')
for want in sssd-tools sssd-common libnss-sss libpam-sss; do
  case " $got" in *" $want "*) ;; *) echo "FAIL: control: $want not reported (got: $got)"; fail=1 ;; esac
done

echo "the lists of scripts/deps.sh, and the libraries of the unpacked daemons"
fleet_deps=$(bwsh_fleet_deps "$top") || { echo "FAIL: bwsh_fleet_deps failed"; exit 1; }
[ -n "$fleet_deps" ] || { echo "FAIL: bwsh_fleet_deps listed nothing"; fail=1; }
# shellcheck disable=SC2086
got=$(forbidden $BWSH_BUILD_DEPS $BWSH_RUN_DEPS $BWSH_TEST_DEPS $BWSH_PACKAGE_DEPS $fleet_deps | tr '\n' ' ')
if [ -n "$got" ]; then
  echo "FAIL: scripts/deps.sh would install: $got"
  fail=1
fi
# The named lists themselves, as written (a daemon could come back there).
for p in $BWSH_BUILD_DEPS $BWSH_RUN_DEPS $BWSH_TEST_DEPS $BWSH_PACKAGE_DEPS $fleet_deps; do
  case $p in
    slapd | sssd* | libnss-sss | libpam-sss | libnss-ldap* | libpam-ldap*) echo "FAIL: scripts/deps.sh names $p"; fail=1 ;;
  esac
done
[ "$fail" = 0 ] && echo "PASS"
exit "$fail"
