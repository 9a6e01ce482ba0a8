#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bwsh-enforce.service and bwsh-enforce.timer (#39) pass systemd-analyze
# verify, the service running the built bwshctl (verify checks that the
# command exists), and the timer fires every 30 s with an accuracy to match.
# Usage: test_systemd_units.sh SOURCE_DIR BWSHCTL
src=$1 ctl=$2
command -v systemd-analyze >/dev/null || { echo "systemd-analyze is missing (package systemd)"; exit 1; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
sed "s|@BWSH_BWSHCTL@|$ctl|" "$src/conf/systemd/bwsh-enforce.service.in" >"$d/bwsh-enforce.service"
cp "$src/conf/systemd/bwsh-enforce.timer" "$d/"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# --man=no: the test machine need not have man pages installed.
out=$(cd "$d" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no bwsh-enforce.service bwsh-enforce.timer 2>&1) \
  || fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify says: $out"
grep -qx "ExecStart=$ctl enforce" "$d/bwsh-enforce.service" || fail "ExecStart is not bwshctl enforce"
grep -qx "OnUnitActiveSec=30s" "$d/bwsh-enforce.timer" || fail "the timer does not run every 30 s"
grep -qx "AccuracySec=30s" "$d/bwsh-enforce.timer" || fail "AccuracySec does not match the interval"
grep -qx "WantedBy=timers.target" "$d/bwsh-enforce.timer" || fail "the timer has no [Install]"
# The units the package installs come from the same sources (CMake).
grep -q 'conf/systemd/bwsh-enforce.timer' "$src/CMakeLists.txt" || fail "CMake does not install the timer"
if [ "$fails" = 0 ]; then echo "systemd units: all checks passed"; exit 0; fi
exit 1
