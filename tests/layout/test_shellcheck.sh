#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every shell script of the tree is clean under shellcheck at its default
# severity (issue 26), with the tree's .shellcheckrc.  The scripts are found
# here, never listed, so that a new one cannot be left out: in a git checkout
# every file git knows (tracked, or new and not ignored), elsewhere every file
# under SOURCE_DIR but .git and build trees (a CMakeCache.txt).  A script is
# a *.sh file, or a file whose first line is a #! for sh, bash or dash, or a
# "# shellcheck shell=" line (the bash completion).  A finding that a script
# means is disabled above its line, with the reason, never in .shellcheckrc.
# Without shellcheck the test is skipped (77), and fails under CI=true.
#
#   test_shellcheck.sh SOURCE_DIR
set -eu
src=$(cd "$1" && pwd -P)
if ! command -v shellcheck >/dev/null 2>&1; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: shellcheck not found (apt-get install shellcheck), and CI=true allows no skip"
    exit 1
  fi
  echo "SKIP: shellcheck not found (apt-get install shellcheck)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src"

if grep -Eq '^[[:space:]]*(disable|severity)[[:space:]]*=' .shellcheckrc; then
  echo "FAIL: .shellcheckrc disables checks or lowers the severity for every script:"
  grep -E '^[[:space:]]*(disable|severity)[[:space:]]*=' .shellcheckrc
  exit 1
fi

# The candidates, NUL-separated, relative to SOURCE_DIR.
candidates()
{
  if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$src" ]; then
    git ls-files -z --cached --others --exclude-standard
  else
    find . \( -name .git -o -type d -exec sh -c 'test -e "$1/CMakeCache.txt"' sh {} \; \) -prune \
      -o -type f -print0
  fi
}
script_line='^(#![[:space:]]*[^[:space:]]*/(env[[:space:]]+)?(sh|bash|dash)([[:space:]]|$)|#[[:space:]]*shellcheck[[:space:]]+shell=)'
# shellcheck disable=SC2016 # expanded by the inner sh
candidates | xargs -0 sh -c '
  pattern=$1
  shift
  for f; do
    f=${f#./}
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    case $f in
      *.sh) ;;
      *) head -c 256 -- "$f" | head -n 1 | tr -d "\000" | grep -Eq "$pattern" || continue ;;
    esac
    printf "%s\000" "$f"
  done' sh "$script_line" >"$tmp/scripts"
tr '\0' '\n' <"$tmp/scripts" | sort >"$tmp/names"
n=$(grep -c . "$tmp/names" || true)

# The search itself: it must find scripts of each kind, this one included.
for known in tests/layout/test_shellcheck.sh scripts/test .ci/run packaging/debian/postinst \
             shell/bwshctl.bash-completion; do
  [ ! -e "$known" ] || grep -qxF "$known" "$tmp/names" \
    || { echo "FAIL: the search for scripts misses $known (it found $n)"; exit 1; }
done

# One shellcheck a script: one run over them all follows every sourced
# library again and again, and takes several times as long.
rc=0
xargs -0 -n 1 -P 2 shellcheck --external-sources --severity=style --format=gcc \
  <"$tmp/scripts" >"$tmp/out" 2>&1 || rc=$?
if [ "$rc" = 0 ] && [ ! -s "$tmp/out" ]; then
  echo "shellcheck: $n scripts, no finding"
  exit 0
fi
sort "$tmp/out"
echo "FAIL: shellcheck: $(grep -c . "$tmp/out") findings in $(cut -d: -f1 "$tmp/out" | sort -u | grep -c .) of $n scripts (exit status $rc)"
exit 1
