#!/bin/sh
# The one list of what bwsh needs, as Debian package names that exist on both
# Debian 12 (bookworm) and Debian 13 (trixie).  Sourced by scripts/try,
# scripts/test and tests/fresh/run.sh; packaging/check-deps.sh (a ctest test)
# checks packaging/debian/control against it; README.md points here.
# Safe to source again.
# shellcheck disable=SC2034 # the lists are used by the scripts that source this

# What the default build needs (`cmake -S . -B build && cmake --build build`),
# man pages included (scdoc): scripts/try installs these.  All but
# build-essential (and pkg-config, spelt "pkgconf | pkg-config") are the
# Build-Depends of packaging/debian/control.
BWSH_BUILD_DEPS="build-essential cmake pkg-config libjansson-dev libconfig-dev libpam0g-dev \
libseccomp-dev scdoc"
# What bwsh needs at run time: the Depends of packaging/debian/control
# besides the shared libraries.
BWSH_RUN_DEPS="bubblewrap slirp4netns libpam-runtime"
# What the test suite drives for real: unit tests, PAM stacks, sshd and its
# clients, file-transfer tools, cron and at, D-Bus, pasta (the network tests' naive control), the sanitizers,
# the static analyzer, the fuzzers (llvm-symbolizer names the frames the LSan
# suppressions match), man page lint (mandoc, and man-db for groff's warnings as
# lintian sees them), shell script lint (shellcheck), the fresh-machine test,
# LDAP clients for tests/fleet, journal-upload and journal-remote for
# tests/audit/test_forward.sh (package systemd-journal-remote: Debian 12's
# enables no service, its postinst only adds the system user
# systemd-journal-remote).  Never slapd, sssd-*, libnss-sss, libpam-sss,
# libnss-ldap*, libpam-ldap*: their maintainer scripts edit nsswitch.conf and
# /etc/pam.d for good (tests/fleet/test_deps.sh checks); tests/fleet unpacks
# slapd and sssd itself and bwsh_fleet_deps lists the libraries they need.
BWSH_TEST_DEPS="libcmocka-dev pamtester openssh-server openssh-client rsync git ca-certificates \
expect python3 clang libclang-rt-dev clang-tools llvm valgrind strace util-linux login passwd \
procps psmisc mandoc man-db shellcheck cron at xauth passt slirp4netns dbus debootstrap ldap-utils vim less \
python3-pip systemd iproute2 sudo systemd-journal-remote"
# Building and checking the Debian and RPM packages.
BWSH_PACKAGE_DEPS="debhelper dpkg-dev devscripts lintian fakeroot rpm apparmor bash-completion \
python3-jsonschema"

# The programs the scripts and tests call, by the name they call them (the
# full path of one that is not in $PATH), with the package that provides
# that name on both releases.  scripts/test
# refuses to start when one is missing after the install.
BWSH_TEST_COMMANDS="cmake:cmake ctest:cmake pkg-config:pkg-config scdoc:scdoc bwrap:bubblewrap \
pamtester:pamtester sshd:openssh-server ssh:openssh-client ssh-keygen:openssh-client \
sftp:openssh-client scp:openssh-client rsync:rsync git:git expect:expect python3:python3 \
clang:clang scan-build:clang-tools llvm-symbolizer:llvm valgrind:valgrind strace:strace \
setpriv:util-linux unshare:util-linux nsenter:util-linux script:util-linux su:util-linux \
useradd:passwd userdel:passwd ps:procps mandoc:mandoc man:man-db shellcheck:shellcheck cron:cron atd:at xauth:xauth pasta:passt slirp4netns:slirp4netns ip:iproute2 \
dbus-daemon:dbus journalctl:systemd systemd-tmpfiles:systemd \
/lib/systemd/systemd-journal-remote:systemd-journal-remote /lib/systemd/systemd-journal-upload:systemd-journal-remote \
sudo:sudo debootstrap:debootstrap dpkg-buildpackage:dpkg-dev lintian:lintian \
rpmbuild:rpm apparmor_parser:apparmor"

# Test packages that not every release ships: tlog (tests/audit's recording
# test runs tlog-rec) is in Debian 12 and in forky and sid, not in Debian 13.
# scripts/test installs and checks them where apt has them
# (bwsh_available); the recording test says what it leaves out elsewhere.
BWSH_TEST_DEPS_WHERE_AVAILABLE="tlog"
BWSH_TEST_COMMANDS_WHERE_AVAILABLE="tlog-rec:tlog tlog-play:tlog"

# bwsh_available PKG...: print the ones installed or installable from apt's
# lists (which are fetched once if there are none yet).
bwsh_available ()
{
  if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages' -print -quit 2>/dev/null)" ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
  fi
  for p in "$@"; do
    apt-cache policy "$p" 2>/dev/null | grep -q '^  Candidate: [^(]' && printf ' %s' "$p"
  done
  return 0
}

# bwsh_available_commands CMD:PKG...: the ones whose package is available.
bwsh_available_commands ()
{
  for cp in "$@"; do
    [ -n "$(bwsh_available "${cp#*:}")" ] && printf ' %s' "$cp"
  done
  return 0
}

# bwsh_missing_packages PKG...: print the ones dpkg does not have installed.
bwsh_missing_packages ()
{
  for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || printf ' %s' "$p"
  done
}

# bwsh_install_deps PKG...: install the missing ones with apt-get, as root or
# through sudo; without either, say what is missing and how to install it.
bwsh_install_deps ()
{
  missing=$(bwsh_missing_packages "$@")
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -eq 0 ]; then
    sudo=""
  elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
  else
    echo "$(basename "$0"): these Debian packages are missing:$missing" >&2
    echo "$(basename "$0"): installing them needs root; as root run:" >&2
    echo "    apt-get install$missing" >&2
    echo "$(basename "$0"): or run $0 as root (or with sudo) once" >&2
    exit 1
  fi
  echo "installing:$missing" >&2
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# bwsh_fleet_deps TOP: the libraries and tools that slapd and sssd, unpacked
# by TOP/tests/fleet/root.sh, need; from apt's lists, so for this release.
bwsh_fleet_deps ()
{
  if ! apt-cache show slapd >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
  fi
  bash "$1/tests/fleet/root.sh" deps
}

# bwsh_check_commands CMD:PKG...: fail, naming the package, if a command the
# suite calls is not found (root's PATH includes /usr/sbin).
bwsh_check_commands ()
{
  bad=""
  for cp in "$@"; do
    c=${cp%%:*}
    PATH="$PATH:/usr/sbin:/sbin" command -v "$c" >/dev/null 2>&1 || bad="$bad $c (package ${cp#*:})"
  done
  [ -z "$bad" ] && return 0
  echo "$(basename "$0"): commands the suite calls are missing:$bad" >&2
  exit 1
}
