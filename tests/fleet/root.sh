#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The directory daemons of tests/fleet, without installing them.
#
# Installing slapd, sssd-* or libnss-sss/libpam-sss changes the machine for
# good: their maintainer scripts add "sss" to /etc/nsswitch.conf and pam_sss
# to /etc/pam.d/common-* (pam-auth-update), create /etc/ldap/slapd.d and
# start slapd and sssd as services.  A test must not do that to the machine
# it runs on.  So:
#
#   root.sh deps         prints the Debian packages scripts/deps.sh installs
#                        for them: the libraries and tools the daemons need
#                        (their Depends, followed through the daemon
#                        packages), never a daemon package itself
#   root.sh stage DIR    DIR/root holds slapd, sssd-common, sssd-ldap,
#                        sssd-tools and libnss-sss (and what else of theirs
#                        they Depend on), fetched with `apt-get download` and
#                        unpacked with `dpkg-deb -x`: no maintainer script
#                        runs.  /lib, /bin, /sbin of the packages are moved
#                        under usr/ (merged /usr).  Reused while the
#                        candidate versions stay the same; prints DIR/root.
#
# tests/fleet/lib.sh mounts DIR/root/usr over /usr (an overlay) inside the
# test's private mount namespace only, so the daemons find their modules and
# helpers at their compiled-in paths.  The package names come from apt at
# run time: the same code serves Debian 12 and 13.
set -eu

# The packages the fleet runs; what they Depend on is followed from here.
FLEET_ROOTS="slapd sssd-ldap sssd-tools libnss-sss"

# fleet_staged_pkg NAME: true for a package that is unpacked, never installed.
fleet_staged_pkg()
{
  case $1 in
    slapd | sssd | sssd-* | libnss-sss) return 0 ;;
  esac
  return 1
}

# fleet_forbidden_pkg NAME: true for a package whose installation edits
# nsswitch.conf or /etc/pam.d (or starts a directory daemon).
fleet_forbidden_pkg()
{
  case $1 in
    slapd | sssd | sssd-* | libnss-sss | libpam-sss | libnss-ldap* | libpam-ldap* | libpam-pwquality) return 0 ;;
  esac
  return 1
}

# "PACKAGE DEP" for the first alternative of each Depends and Pre-Depends
# of the candidates of PACKAGE...  (one apt-cache call: it is slow).
fleet_depends()
{
  apt-cache show --no-all-versions "$@" 2>/dev/null | awk '
    /^Package:/ { pkg = $2 }
    /^(Pre-)?Depends:/ {
      sub(/^[^:]*: */, ""); n = split($0, dep, ",")
      for (i = 1; i <= n; i++) {
        d = dep[i]; sub(/\|.*/, "", d); sub(/\(.*/, "", d); sub(/:any/, "", d); gsub(/[ \t]/, "", d)
        if (d != "") print pkg, d
      }
    }'
}

# Walk the Depends from FLEET_ROOTS: daemon packages are staged and walked
# on; anything else is a library or tool to install (apt resolves its own
# dependencies).  libpam-* is neither: pam_sss is not needed, and installing
# libpam-sss or its libpam-pwquality runs pam-auth-update.
FLEET_STAGED=
FLEET_LIBS=
fleet_walk()
{
  local level=$FLEET_ROOTS next seen=" " p
  apt-cache show --no-all-versions slapd >/dev/null 2>&1 || {
    echo "root.sh: apt knows no slapd (run apt-get update)" >&2
    exit 1
  }
  while [ -n "${level// /}" ]; do
    next=
    for p in $level; do
      case $seen in *" $p "*) continue ;; esac
      seen="$seen$p "
      case $p in libpam-*) continue ;; esac
      if fleet_staged_pkg "$p"; then
        FLEET_STAGED="$FLEET_STAGED $p"
        next="$next $p"
      else
        FLEET_LIBS="$FLEET_LIBS $p"
      fi
    done
    [ -n "$next" ] || break
    # shellcheck disable=SC2086
    level=$(fleet_depends $next | awk '{ print $2 }')
  done
}

fleet_deps()
{
  local p
  fleet_walk
  # What apt would install with them must hold no forbidden package either.
  # shellcheck disable=SC2086
  for p in $(apt-get install -s -qq --no-install-recommends $FLEET_LIBS 2>/dev/null | awk '/^Inst / { print $2 }'); do
    fleet_forbidden_pkg "$p" && { echo "root.sh: installing$FLEET_LIBS would install $p" >&2; exit 1; }
  done
  echo "${FLEET_LIBS# }"
}

fleet_stage()
{
  local dir=$1 stamp new p
  mkdir -p "$dir"
  exec 9>"$dir/lock"
  flock 9
  fleet_walk
  # The exact .deb files apt would fetch: the key of the cached root.
  # shellcheck disable=SC2086
  new=$(apt-get download --print-uris $FLEET_STAGED | awk '{ print $2 }' | sort)
  stamp=$dir/root.stamp
  if [ -d "$dir/root" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$new" ]; then
    echo "$dir/root"
    return 0
  fi
  rm -rf "$dir/debs" "$dir/root.new" "$dir/root" "$stamp"
  mkdir -p "$dir/debs" "$dir/root.new"
  # _apt (apt's download sandbox user) must be able to write there.
  chmod 755 "$dir"
  chmod 777 "$dir/debs"
  # shellcheck disable=SC2086
  (cd "$dir/debs" && apt-get download -qq $FLEET_STAGED) >&2
  for p in "$dir"/debs/*.deb; do
    dpkg-deb -x "$p" "$dir/root.new"
  done
  for p in bin sbin lib lib32 lib64 libx32; do
    if [ ! -d "$dir/root.new/$p" ] || [ -L "$dir/root.new/$p" ]; then continue; fi
    mkdir -p "$dir/root.new/usr/$p"
    cp -a "$dir/root.new/$p/." "$dir/root.new/usr/$p/"
    rm -rf "${dir:?}/root.new/$p"
  done
  rm -rf "$dir/debs"
  mv "$dir/root.new" "$dir/root"
  printf '%s\n' "$new" >"$stamp"
  echo "$dir/root"
}

case ${1:-} in
  deps) fleet_deps ;;
  stage) [ -n "${2:-}" ] || { echo "usage: root.sh stage DIR" >&2; exit 2; }; fleet_stage "$2" ;;
  staged) fleet_walk; echo "${FLEET_STAGED# }" ;;
  *) echo "usage: root.sh deps | staged | stage DIR" >&2; exit 2 ;;
esac
