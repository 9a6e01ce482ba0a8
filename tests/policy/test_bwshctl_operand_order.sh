#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `bwshctl explain [USER] [--json]`: the documented order, options after the
# user name, must work (exit 0 and JSON), as must options first.
set -u
. "$(dirname "$0")/pol_lib.sh"
pol_setup
for order in "--json $IT_USER" "$IT_USER --json"; do
  it_check "bwshctl explain $order"
  IT_RC=0
  # shellcheck disable=SC2086 # word splitting is the point
  timeout 60 "$BWSHCTL" explain $order </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
  it_assert_rc 0
  got=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["home"])' <<<"$IT_OUT" 2>/dev/null)
  it_assert_eq "$IT_HOME" "$got" "home in the JSON plan"
done
