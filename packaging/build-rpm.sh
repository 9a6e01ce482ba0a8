#!/bin/sh
# Build the binary RPM from the working tree.
#
#   packaging/build-rpm.sh OUTDIR
#
# Makes bwsh-VERSION.tar.gz of the working tree (without .git and build
# directories) in a temporary _topdir and runs `rpmbuild -bb` on
# packaging/rpm/bwsh.spec.  The BuildRequires are Fedora's names; on Debian
# (package "rpm") they cannot be resolved, so --nodeps is passed and the
# Debian build dependencies must be installed instead.  The .rpm ends up in
# OUTDIR.
set -eu

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
spec=$top/packaging/rpm/bwsh.spec
version=$(sed -n 's/^Version: *//p' "$spec")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/SOURCES" "$work/SPECS" "$work/BUILD" "$work/RPMS" "$work/SRPMS" "$work/stage/bwsh-$version"
tar -C "$top" --exclude=./.git --exclude=./build --exclude='./build-*' --exclude=./debian -cf - . \
  | tar -C "$work/stage/bwsh-$version" -xf -
tar -C "$work/stage" -czf "$work/SOURCES/bwsh-$version.tar.gz" "bwsh-$version"
cp "$spec" "$work/SPECS/"

# Debian's rpm has no find-debuginfo: no debuginfo subpackage here.
rpmbuild --define "_topdir $work" --define "debug_package %{nil}" --nodeps \
  -bb "$work/SPECS/bwsh.spec" >"$work/build.log" 2>&1 || {
  tail -n 60 "$work/build.log" >&2
  echo "build-rpm.sh: rpmbuild failed" >&2
  exit 1
}
find "$work/RPMS" -name '*.rpm' -exec cp {} "$out"/ \;
ls "$out"/bwsh-*.rpm
