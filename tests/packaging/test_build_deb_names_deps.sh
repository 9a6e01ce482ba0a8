#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# packaging/build-deb.sh from a fresh clone (#38): with a Build-Depends
# missing it names the apt-get line for it (debhelper-compat is debhelper)
# and builds nothing.  A dpkg-query of the test's own says debhelper and
# fakeroot are not installed; nothing is installed or built.
#
#   test_build_deb_names_deps.sh SOURCE_DIR
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
cat >"$tmp/bin/dpkg-query" <<'EOS'
#!/bin/sh
for a; do p=$a; done
case $p in debhelper|fakeroot) exit 1 ;; esac
printf 'install ok installed'
EOS
chmod 0755 "$tmp/bin/dpkg-query"
set +e
PATH=$tmp/bin:$PATH sh "$src/packaging/build-deb.sh" "$tmp/out" >"$tmp/o" 2>&1
rc=$?
set -e
fail () { echo "FAIL: $*"; cat "$tmp/o"; exit 1; }
[ $rc = 1 ] || fail "exit $rc, not 1"
grep -qxF "build-deb.sh: the build needs packages that are not installed: fakeroot debhelper" "$tmp/o" || fail "no list"
grep -qxF "build-deb.sh: apt-get install --no-install-recommends fakeroot debhelper   (or run $src/packaging/build-deb.sh --install-deps OUTDIR as root)" "$tmp/o" \
  || fail "no apt-get line"
[ ! -e "$tmp/out" ] || [ -z "$(ls "$tmp/out")" ] || fail "it built something"
echo "ok: build-deb.sh names the packages it lacks"
