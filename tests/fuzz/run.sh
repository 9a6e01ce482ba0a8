#!/bin/sh
# Build the libFuzzer targets with clang in a build directory of their own
# and run each for $BWSH_FUZZ_SECONDS (default 60), the corpus seeded from
# tests/hostile.  Exit 0 only if neither target crashed or broke an invariant.
#
#   BWSH_FUZZ_SECONDS=60 tests/fuzz/run.sh [BUILD_DIR]
set -eu

src=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${BWSH_FUZZ_SECONDS:-60}
case $seconds in
  '' | *[!0-9]*) echo "run.sh: BWSH_FUZZ_SECONDS must be a number of seconds" >&2; exit 2 ;;
esac
cc=${BWSH_FUZZ_CC:-clang}
command -v "$cc" >/dev/null || { echo "run.sh: $cc not found (apt-get install clang libclang-rt-dev)" >&2; exit 1; }

if [ $# -ge 1 ]; then
  build=$1
  mkdir -p "$build"
  own_build=false
else
  build=$(mktemp -d "${TMPDIR:-/tmp}/bwsh-fuzz-build.XXXXXX")
  own_build=true
fi
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() { if $own_build; then rm -rf "$build"; fi; }
trap cleanup EXIT

cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER="$cc" -DBWSH_FUZZ=ON -DBWSH_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/configure.log" 2>&1 \
  || { cat "$build/configure.log" >&2; exit 1; }
cmake --build "$build" --target fuzz_user_config fuzz_policy -j"$(nproc)" >"$build/build.log" 2>&1 \
  || { tail -n 60 "$build/build.log" >&2; exit 1; }

status=0
for kind in user_config policy; do
  "$src/tests/fuzz/run-one.sh" "$build/tests/fuzz/fuzz_$kind" "$kind" "$seconds" "$src" || status=1
done
exit $status
