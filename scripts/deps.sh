#!/bin/sh
# Install what building and testing bwsh needs, from Debian's packages only.
# Sourced by scripts/try and scripts/test; safe to run again.
set -eu

BWSH_BUILD_DEPS="build-essential cmake pkg-config bubblewrap libjansson-dev libconfig-dev \
libpam0g-dev libseccomp-dev libcmocka-dev"
# What the test suite drives for real: PAM stacks, sshd and its clients,
# file-transfer tools, fuzzing and memory checkers, man page tools, a directory
# (slapd and sssd for tests/fleet).
BWSH_TEST_DEPS="pamtester openssh-server openssh-client rsync git expect python3 clang \
libclang-rt-14-dev clang-tools-14 valgrind strace util-linux login passwd procps psmisc scdoc mandoc \
cron at xauth slapd ldap-utils sssd-ldap sssd-tools libnss-sss vim less python3-pip"
# Building and checking the Debian and RPM packages.
BWSH_PACKAGE_DEPS="debhelper dpkg-dev devscripts lintian fakeroot rpm apparmor python3-jsonschema"

bwsh_install_deps ()
{
  missing=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  echo "installing:$missing" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
}
