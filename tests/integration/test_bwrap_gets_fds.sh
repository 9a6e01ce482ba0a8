#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bwsh hands bwrap the validated sources as O_PATH fds, not as paths bwrap
# would resolve again: bwrap's argv is "--args N -- shell ...", and the
# --args blob binds every host directory with --bind-fd/--ro-bind-fd.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
H=$IT_HOME
it_as_user mkdir -p "$H/work"
it_as_user touch "$H/notes"
it_user_config "{\"preferences\":{\"sandboxBwrapMounts\":{\"additionalBinds\":[\"$H/work\"]}}}"

it_check "bwsh held at its exec of bwrap"
it_bwsh_paused -c 'echo inner-ran'
[ -n "$IT_PAUSED_PID" ] || exit 1
tr '\0' '\n' <"$IT_PAUSED_ARGS" >"$IT_TMP/blob"
ls -l "/proc/$IT_PAUSED_PID/fd/" >"$IT_TMP/fds"
declare -A fdpath fdflags
for fd in /proc/"$IT_PAUSED_PID"/fd/*; do
  n=${fd##*/}
  fdpath[$n]=$(readlink "$fd")
  fdflags[$n]=$(awk '/^flags:/ {print $2}' "/proc/$IT_PAUSED_PID/fdinfo/$n")
done
it_bwsh_resume

it_check "the session ran"
it_assert_rc 0
it_assert_out_has inner-ran

it_check "bwrap's argv is --args N, --, and the inner command only (behind the guarded launch's stub)"
# strace -f prefixes each line with the pid.
execline=$(grep -E '^([0-9]+ +)?execve\("/usr/bin/bwrap"' "$IT_TMP/strace" | sed -E 's/^[0-9]+ +//')
argsfd=${IT_PAUSED_ARGS##*/}
it_assert_eq "execve(\"/usr/bin/bwrap\", [\"/usr/bin/bwrap\", \"--args\", \"$argsfd\", \"--\", \"/bin/sh\", \"-c\", \"printf . >&9; exec 9>&-; exec \\\"\$@\\\"\", \"sh\", \"/bin/bash\", \"-c\", \"--\", \"echo inner-ran\"], 0x" \
  "${execline%%0x*}0x" "bwrap execve"

it_check "no host path is bound by name: only --bind-fd and --ro-bind-fd"
for opt in --bind --ro-bind --dev-bind --bind-try --ro-bind-try --dev-bind-try; do
  grep -qxF -- "$opt" "$IT_TMP/blob" && it_fail "the --args blob uses $opt"
done
# pairs: "--bind-fd FD DEST": FD must be an O_PATH fd on the validated source.
check_bind()
{
  local opt=$1 dest=$2 src=$3 fd
  fd=$(awk -v o="$opt" -v d="$dest" '$0 == o { getline f; getline t; if (t == d) print f }' "$IT_TMP/blob")
  if [ -z "$fd" ]; then
    it_fail "no '$opt N $dest' in the --args blob"
    return
  fi
  it_assert_eq "$src" "${fdpath[$fd]:-}" "what fd $fd of bwsh names"
  # O_PATH is 010000000 (octal) on Linux.
  (( (8#${fdflags[$fd]:-0} & 8#10000000) != 0 )) || it_fail "fd $fd for $dest is not O_PATH (flags ${fdflags[$fd]:-?})"
}
check_bind --bind-fd "$H/work" "$H/work"
check_bind --bind-fd "$H/project" "$H/project"
# $HOME is the session's state; the real home's entries are bound read-only over it
grep -qxF -- "$H" "$IT_TMP/blob" || it_fail "nothing is mounted at $H"
check_bind --ro-bind-fd "$H/notes" "$H/notes"
check_bind --ro-bind-fd /usr /usr
check_bind --ro-bind-fd /etc /etc
grep -qxF -- --args "$IT_TMP/blob" && it_fail "the blob nests --args"
true
