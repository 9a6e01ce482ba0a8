#!/bin/sh
# Build the Debian package from the working tree.
#
#   packaging/build-deb.sh [--install-deps] OUTDIR
#
# Copies the tree (without .git and build directories) into a temporary
# directory, puts packaging/debian at ./debian, runs
# `dpkg-buildpackage -us -uc -b`, and leaves bwsh_*.deb (and the .buildinfo
# and .changes) in OUTDIR.  Needs dpkg-dev, fakeroot and the Build-Depends of
# packaging/debian/control (debhelper-compat is debhelper): it checks them
# first and names the apt-get line for what is missing, or, with
# --install-deps (as root), installs it.
set -eu

install_deps=no
[ "${1:-}" = --install-deps ] && { install_deps=yes; shift; }
[ $# -eq 1 ] || { echo "usage: $0 [--install-deps] OUTDIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)

# What the build needs, as Debian package names: the tools that run it and
# every Build-Depends (its first alternative; debhelper-compat is debhelper's).
# dpkg-checkbuilddeps (dpkg-dev) needs nothing else; without it, everything
# is named.
build_needs () {
  printf 'dpkg-dev\nfakeroot\n'
  sed -n '/^Build-Depends:/,/^[A-Z][A-Za-z-]*:/p' "$top/packaging/debian/control" | sed '$d' \
    | sed 's/^Build-Depends://' | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/[[:space:]]//g' \
    | sed 's/^debhelper-compat$/debhelper/' | grep -v '^$'
}
missing=
for p in $(build_needs); do
  dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ $install_deps = yes ]; then
    echo "build-deb.sh: installing what the build needs:$missing" >&2
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing >&2
  else
    echo "build-deb.sh: the build needs packages that are not installed:$missing" >&2
    echo "build-deb.sh: apt-get install --no-install-recommends$missing   (or run $0 --install-deps OUTDIR as root)" >&2
    exit 1
  fi
fi
mkdir -p "$1"
out=$(cd "$1" && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/bwsh-0.1.0
mkdir "$src"
# The working tree as it is (not only what is committed), minus build output.
tar -C "$top" --exclude=./.git --exclude=./build --exclude='./build-*' --exclude=./debian -cf - . | tar -C "$src" -xf -
cp -R "$top/packaging/debian" "$src/debian"
chmod 0755 "$src/debian/rules"

(cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 || {
  tail -n 60 "$work/build.log" >&2
  echo "build-deb.sh: dpkg-buildpackage failed" >&2
  exit 1
}
cp "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes "$out"/
ls "$out"/bwsh_*.deb
