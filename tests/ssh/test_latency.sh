#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Latency of `ssh host true` through bwsh (and pam_bwsh, the user a subject)
# against the same user with /bin/bash as its login shell (not a subject):
# interleaved pairs, the order flipped every pair, median ratio printed.
# Measured, never asserted: timing is not a pass/fail criterion on shared CI.
# Functional checks (each run really went through the shell it should) are.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC2088,SC1010,SC1003,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
ssh_start main snippet
PAIRS=${BWSH_SSH_LATENCY_PAIRS:-20}
cp "$SSH_POLICY" "$IT_TMP/policy.subject"
printf 'subjects = { users = [ ]; };\n' >"$IT_TMP/policy.none"

use()
{
  case $1 in
    bwsh) cp "$IT_TMP/policy.subject" "$SSH_POLICY"; usermod -s "$IT_BWSH" "$IT_USER" 2>/dev/null ;;
    bash) cp "$IT_TMP/policy.none" "$SSH_POLICY"; usermod -s /bin/bash "$IT_USER" 2>/dev/null ;;
  esac
}
once()
{
  local t0 t1 rc=0
  t0=$(date +%s%N)
  timeout 30 ssh -F "$SSH_CFG" t true </dev/null 2>>"$IT_TMP/lat.err" || rc=$?
  t1=$(date +%s%N)
  [ "$rc" = 0 ] || it_fail "ssh t true failed ($1)"
  echo $(((t1 - t0) / 1000))
}

it_check "each side runs through the shell it claims"
use bwsh; ssh_run t "$SSH_PROBE"; it_assert_eq bwrap "$IT_OUT" "bwsh side"
use bash; ssh_run t "$SSH_PROBE"; [ "$IT_OUT" != bwrap ] || it_fail "bash side ran in bwrap"

it_check "$PAIRS interleaved pairs of ssh t true"
once bash >/dev/null; use bwsh; once bwsh >/dev/null   # warm-up
: >"$IT_TMP/ratios"
for i in $(seq "$PAIRS"); do
  if [ $((i % 2)) = 0 ]; then
    use bwsh; a=$(once bwsh); use bash; b=$(once bash)
  else
    use bash; b=$(once bash); use bwsh; a=$(once bwsh)
  fi
  printf '%s %s\n' "$a" "$b" >>"$IT_TMP/pairs"
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f\n", a / b }' >>"$IT_TMP/ratios"
done
use bwsh
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio=$(median <"$IT_TMP/ratios")
mb=$(cut -d' ' -f1 "$IT_TMP/pairs" | median)
ma=$(cut -d' ' -f2 "$IT_TMP/pairs" | median)
printf 'RESULT ssh_latency pairs=%s median_bwsh_us=%s median_bash_us=%s median_ratio=%s\n' "$PAIRS" "$mb" "$ma" "$ratio"
ssh_stop
ssh_assert_no_user_processes
