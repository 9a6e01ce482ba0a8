#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/deps.sh is the one list of dependencies: packaging/debian/control's
# Build-Depends must be exactly its build list (less build-essential, which
# is implied), its Depends exactly the run list (less the substitution
# variables), and every package the suite's commands come from must be in a
# list that scripts/test installs.
#
#   test_deps.sh SOURCE_DIR
set -eu
src=$1
# shellcheck disable=SC1091
. "$src/scripts/deps.sh"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# field NAME: the package names of a control field, one alternative group a
# line ("pkgconf pkg-config"), versions and substitutions dropped.
field() {
  # shellcheck disable=SC2016 # the ${...} substitutions of the control file, literally
  awk -v f="$1" '
    /^[A-Za-z-]+:/ { on = (index($0, f ":") == 1); sub(/^[A-Za-z-]+:/, "") }
    on { print }' "$src/packaging/debian/control" | tr ',' '\n' \
    | sed -e 's/([^)]*)//g' -e 's/\[[^]]*\]//g' -e 's/|/ /g' -e 's/^ *//' -e 's/ *$//' -e 's/  */ /g' \
    | grep -v '^$' | grep -v '^\${' | grep -v '^debhelper-compat'
}

# same WHAT FIELD LIST...: every group of FIELD names a package of LIST, and
# every package of LIST is in a group.
same() {
  what=$1 fld=$2
  shift 2
  groups=$(field "$fld")
  echo "$groups" | while read -r group; do
    hit=0
    for alt in $group; do
      for p in "$@"; do [ "$alt" = "$p" ] && hit=1; done
    done
    [ $hit = 1 ] || echo "FAIL: $fld names '$group', which is not in scripts/deps.sh's $what"
  done
  for p in "$@"; do
    echo "$groups" | tr ' ' '\n' | grep -qx "$p" || echo "FAIL: scripts/deps.sh's $what has $p, which $fld lacks"
  done
}

# shellcheck disable=SC2086
# shellcheck disable=SC2046
out=$(same "build list" Build-Depends $(echo $BWSH_BUILD_DEPS | tr ' ' '\n' | grep -vx build-essential))
# shellcheck disable=SC2086
out="$out$(same "run list" Depends $BWSH_RUN_DEPS)"
[ -z "$out" ] || { echo "$out"; fails=$((fails + 1)); }

all=" $BWSH_BUILD_DEPS $BWSH_RUN_DEPS $BWSH_TEST_DEPS $BWSH_PACKAGE_DEPS "
for cp in $BWSH_TEST_COMMANDS; do
  case $all in *" ${cp#*:} "*) ;; *) fail "command ${cp%%:*} comes from ${cp#*:}, which no list installs" ;; esac
done
for cp in $BWSH_TEST_COMMANDS_WHERE_AVAILABLE; do
  case " $BWSH_TEST_DEPS_WHERE_AVAILABLE " in *" ${cp#*:} "*) ;;
    *) fail "command ${cp%%:*} comes from ${cp#*:}, which BWSH_TEST_DEPS_WHERE_AVAILABLE lacks" ;; esac
done
# Names that exist on only one Debian release are not allowed.
case $all in *-1[0-9]-* | *-1[0-9]\ *) fail "a versioned package name (one release only): $all" ;; esac

if [ "$fails" = 0 ]; then echo "deps: control and the lists agree"; exit 0; fi
exit 1
