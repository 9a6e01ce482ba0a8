#!/bin/sh
# Run one libFuzzer target for a bounded time on a corpus seeded from
# tests/hostile (copied to a temporary directory: the source tree is never
# written).  Fails on any crash, leak, sanitizer report or invariant
# violation, and keeps the input that caused it under /tmp.
#
#   run-one.sh FUZZER user_config|policy SECONDS SOURCE_DIR
set -eu

fuzzer=$1 kind=$2 seconds=$3 src=$4
case $kind in
  user_config) dict=$src/tests/fuzz/json.dict ;;
  policy) dict=$src/tests/fuzz/policy.dict ;;
  *) echo "run-one.sh: unknown kind $kind" >&2; exit 2 ;;
esac
[ -x "$fuzzer" ] || { echo "run-one.sh: $fuzzer is not built" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/bwsh-fuzz-$kind.XXXXXX")
keep=false
cleanup() { $keep || rm -rf "$work"; }
trap cleanup EXIT
mkdir "$work/corpus" "$work/artifacts" "$work/include"

if [ "$kind" = user_config ]; then
  # The corpus names the test user's home @HOME@; the fuzzer's is /home/bwshfuzz.
  for f in "$src"/tests/hostile/configs/*.json "$src"/conf/config.example.json; do
    [ -f "$f" ] && LC_ALL=C sed -e 's|@HOME@|/home/bwshfuzz|g' "$f" >"$work/corpus/${f##*/}"
  done
else
  for f in "$src"/conf/bwsh.conf "$src"/tests/fuzz/seeds/policy/*.conf; do
    [ -f "$f" ] && cp "$f" "$work/corpus/"
  done
  # Something for @include to find, confined to this directory.
  printf 'max_mounts = 12;\nprotected = [ "~/.ssh", "~/p" ];\n' >"$work/include/a.conf"
  printf '@include "a.conf"\nstrict = true;\n' >"$work/include/b.conf"
  printf '@include "c.conf"\n' >"$work/include/c.conf"
  chmod 0644 "$work/include"/*.conf
  BWSH_FUZZ_INCLUDE_DIR=$work/include
  export BWSH_FUZZ_INCLUDE_DIR
fi
# shellcheck disable=SC2012 # a count for the log line
echo "fuzz/$kind: $(ls "$work/corpus" | wc -l) seed inputs, $seconds s"

LSAN_OPTIONS=suppressions=$src/tests/fuzz/lsan.supp:print_suppressions=0
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS UBSAN_OPTIONS

set +e
"$fuzzer" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -error_exitcode=1 \
  -print_final_stats=1 -dict="$dict" -artifact_prefix="$work/artifacts/" "$work/corpus" \
  >"$work/log" 2>&1
rc=$?
set -e

grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$work/log" || true
tail -n 3 "$work/log" | grep -E 'cov:' || grep -E 'cov:' "$work/log" | tail -n 1 || true
if [ "$rc" -ne 0 ] || [ -n "$(ls "$work/artifacts")" ] \
   || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|INVARIANT VIOLATED' "$work/log"; then
  keep=true
  echo "fuzz/$kind: FAILED (exit $rc); log and inputs kept in $work" >&2
  grep -E -A 40 'ERROR: |runtime error:|INVARIANT VIOLATED' "$work/log" | head -n 80 >&2
  ls -l "$work/artifacts" >&2
  exit 1
fi
echo "fuzz/$kind: no crash, no invariant violation in $seconds s"
