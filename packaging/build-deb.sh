#!/bin/sh
# Build the Debian package from the working tree.
#
#   packaging/build-deb.sh OUTDIR
#
# Copies the tree (without .git and build directories) into a temporary
# directory, puts packaging/debian at ./debian, runs
# `dpkg-buildpackage -us -uc -b`, and leaves bwsh_*.deb (and the .buildinfo
# and .changes) in OUTDIR.  Needs: dpkg-dev, debhelper, fakeroot and the
# Build-Depends of packaging/debian/control.
set -eu

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
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
