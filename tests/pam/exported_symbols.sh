#!/bin/sh
# The module's dynamic symbol table defines pam_sm_acct_mgmt,
# pam_sm_open_session and pam_sm_close_session and nothing else (the version script), so no core
# symbol can collide with one of the loading process.
set -eu
module=$1
[ -f "$module" ] || { echo "FAIL: $module missing"; exit 1; }
got=$(nm -D --defined-only "$module" | awk 'NF == 3 { print $3 }' | sort | tr '\n' ' ')
want="pam_sm_acct_mgmt pam_sm_close_session pam_sm_open_session "
if [ "$got" != "$want" ]; then
  echo "FAIL: exported symbols are [$got], expected [$want]"
  exit 1
fi
# -Wl,--no-undefined: everything the module needs comes from a library it names.
if ! readelf -d "$module" | grep -q 'NEEDED.*libpam\.so'; then
  echo "FAIL: the module does not name libpam as a dependency"
  exit 1
fi
echo "ok: exports are exactly [$got]"
