#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bash completion of bwshctl, driven the way bash drives it: COMP_WORDS
# and COMP_CWORD set, the completion function called, COMPREPLY read (the
# function itself uses compgen).  The expected subcommands are the ones
# bwshctl's usage names, read independently here.
#
#   test_completion.sh COMPLETION_FILE BWSHCTL
set -u
comp_file=$1 ctl=$2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# shellcheck disable=SC1090
. "$comp_file"
complete -p bwshctl >/dev/null 2>&1 || fail "the file does not register a completion for bwshctl"
comp() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _bwshctl; printf '%s\n' "${COMPREPLY[@]}"; }

want=$("$ctl" --help | awk '{ for (i = 1; i < NF; i++) if ($i == "bwshctl" && $(i + 1) ~ /^[a-z]/) print $(i + 1) }' | sort -u)
for s in check explain doctor; do
  grep -qx "$s" <<<"$want" || fail "bwshctl --help does not name $s (the premise)"
done
got=$(comp "$ctl" "" | sort -u)
for s in $want --help --version; do
  grep -qx -- "$s" <<<"$got" || fail "no completion $s for the first word; got: $got"
done
[ "$(comp "$ctl" ch)" = check ] || fail "'ch' does not complete to check: $(comp "$ctl" ch)"
[ "$(comp "$ctl" 'do')" = doctor ] || fail "'do' does not complete to doctor: $(comp "$ctl" 'do')"
[ -z "$(comp "$ctl" zz)" ] || fail "'zz' completes to something"

got=$(comp "$ctl" explain --)
for o in --json --policy --user-config; do
  grep -qx -- "$o" <<<"$got" || fail "explain: no option $o; got: $got"
done
grep -qx -- --json <<<"$(comp "$ctl" check --)" && fail "check offers --json, which it refuses"
grep -qx -- --user <<<"$(comp "$ctl" doctor --)" || fail "doctor: no option --user"

# User names: root exists everywhere.
grep -qx root <<<"$(comp "$ctl" explain ro)" || fail "explain USER does not complete root"
grep -qx root <<<"$(comp "$ctl" doctor --user ro)" || fail "doctor --user does not complete root"
# lock and unlock: users, and groups after "@".
grep -qx root <<<"$(comp "$ctl" lock ro)" || fail "lock USER does not complete root"
grep -qx @root <<<"$(comp "$ctl" lock @ro)" || fail "lock @GROUP does not complete @root"
grep -qx @root <<<"$(comp "$ctl" unlock @ro)" || fail "unlock @GROUP does not complete @root"
grep -qx -- --policy <<<"$(comp "$ctl" lock --)" || fail "lock: no option --policy"
# enforce (#39), and locks with the policy whose lock groups it lists.
[ "$(comp "$ctl" enf)" = enforce ] || fail "'enf' does not complete to enforce: $(comp "$ctl" enf)"
grep -qx -- --policy <<<"$(comp "$ctl" enforce --)" || fail "enforce: no option --policy"
grep -qx -- --policy <<<"$(comp "$ctl" locks --)" || fail "locks: no option --policy"
# File names after --policy.
d=$(mktemp -d) && touch "$d/policy-file.conf"
grep -qx "$d/policy-file.conf" <<<"$(comp "$ctl" check --policy "$d/pol")" || fail "--policy does not complete a file name"
rm -rf "$d"

if [ "$fails" = 0 ]; then echo "completion: all checks passed"; exit 0; fi
exit 1
