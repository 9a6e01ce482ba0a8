#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every file in tests/hostile/configs (malformed JSON, BOM, trailing data,
# wrong types, duplicate keys, \u0000, invalid UTF-8, "..", ".", "//",
# trailing "/", 4097-byte paths, newlines and tabs, $HOME against "$HOME"2,
# forbidden and protected paths, locked defaults) as the user's config:
# bwshctl check and a real session each give exactly the outcome and the
# message of NAME.expect, nothing of the file's content leaks, and the
# session always runs sandboxed.
#   test_config_corpus.sh [NAME...]   (default: every case)
dir=$(cd "$(dirname "$0")/configs" && pwd)
. "$(dirname "$0")/hostile.sh"
h_setup
n=0
if [ $# -gt 0 ]; then names=("$@"); else
  names=()
  for f in "$dir"/*.json; do names+=("$(basename "$f" .json)"); done
fi
for name in "${names[@]}"; do
  [ -f "$dir/$name.expect" ] || { it_fail "$name.json has no $name.expect"; continue; }
  it_check "config $name"
  mapfile -t lines <"$dir/$name.expect"
  h_put_config "$dir/$name.json"
  h_expect "${lines[@]}"
  n=$((n + 1))
done
it_log "$n config cases"
[ "$n" -ge 1 ] || it_fail "no cases ran"
