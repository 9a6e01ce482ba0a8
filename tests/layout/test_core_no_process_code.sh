#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# core/ is a library that never prints, never exits and holds no process
# code (DESIGN.md, #26): whatever must fork, wait, kill or report outside
# the sandbox is a small program of its own (helpers/), which core only
# spawns with an argv it builds.  This fails on a fork, an exit, a sleep
# used as a poll, or a write to stderr anywhere in core/, comments aside.
#
#   test_core_no_process_code.sh SOURCE_DIR
set -eu
src=$1
cc=${CC:-cc}
forbidden='\b(v?fork|clone3?|_?exit|_Exit|abort|system|popen|daemon|u?sleep|nanosleep|perror)[[:space:]]*\(|\bstderr\b|STDERR_FILENO|\b(dprintf|write)[[:space:]]*\([[:space:]]*2[[:space:]]*,'
# A build-time program that goes into no library: it writes the seccomp
# filter to stdout and says why it failed on stderr, as a program does.
exempt='launch/seccomp_gen.c'
fail=0

# Without comments (they may name what they explain), macros left as written.
strip() { "$cc" -fpreprocessed -dD -E -P -x c "$1" 2>/dev/null; }

# Control: the pattern and the stripping do find each kind of call.
printf '%s\n' '/* fork () in a comment */' 'int f (void) { if (fork () < 0) _exit (1); dprintf (2, "x"); fprintf (stderr, "y"); usleep (1); return 0; }' \
  >"${TMPDIR:-/tmp}/bwsh-layout.$$.c"
n=$(strip "${TMPDIR:-/tmp}/bwsh-layout.$$.c" | grep -Eo "$forbidden" | wc -l)
rm -f "${TMPDIR:-/tmp}/bwsh-layout.$$.c"
if [ "$n" != 5 ]; then
  echo "FAIL: the control finds $n forbidden calls, not 5 (is $cc there?)" >&2
  exit 1
fi
if ! grep -q '^main (void)' "$src/core/$exempt"; then
  echo "FAIL: core/$exempt is exempt as a build-time program, but has no main() any more" >&2
  fail=1
fi

for f in "$src"/core/*.h "$src"/core/*/*.c "$src"/core/*/*.h; do
  [ -e "$f" ] || continue
  [ "${f#"$src"/core/}" = "$exempt" ] && continue
  if strip "$f" | grep -En "$forbidden" >&2; then
    echo "FAIL: ${f#"$src"/} forks, exits, sleeps or writes to stderr: core returns 0 or -errno and an error record; a process belongs in helpers/" >&2
    fail=1
  fi
done
[ "$fail" = 0 ] && echo "ok: core/ holds no process code"
exit "$fail"
