#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One naming scheme for every test of the build (issue 26): SUITE.NAME, the
# suite in lower case (its directory or label), the name after one dot:
# `ctest -R '^network\.'` selects a suite, and no name mixes "/" or "_" in
# as the separator.
#
#   test_names.sh CTEST BUILD_DIR
set -eu
ctest=$1
build=$2
names=$("$ctest" --test-dir "$build" -N | sed -n 's/^ *Test *#[0-9]*: //p')
n=$(printf '%s\n' "$names" | grep -c .) || true
# Control: the listing is read, so silence below means "all follow the scheme".
if [ "$n" -lt 100 ]; then
  echo "FAIL: ctest -N listed $n tests in $build; expected the whole suite" >&2
  exit 1
fi
bad=$(printf '%s\n' "$names" | grep -Ev '^[a-z]+\.[A-Za-z0-9_.-]+$' || true)
if [ -n "$bad" ]; then
  printf 'FAIL: not SUITE.NAME:\n%s\n' "$bad" >&2
  exit 1
fi
echo "ok: $n tests, every name SUITE.NAME"
