#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Explain is the launch only while one place sequences a session: no file
# outside core/ may call the steps that core's bwsh_session_prepare() runs
# (reading the overlay, building, creating and resolving the plan).  The
# front ends call bwsh_session_prepare() and nothing in between.
# Likewise the login's registration and the broken-policy event (#34): bwsh
# and pam_bwsh call bwsh_session_register() and bwsh_fallback_report(),
# never the registry or the report mark themselves.
#
#   test_only_core_sequences.sh SOURCE_DIR
set -eu
src=$1
steps='bwsh_plan_build|bwsh_plan_resolve|bwsh_user_config_load|bwsh_user_config_parse|bwsh_mkdir_under_home'
fail=0

# Control: the pattern does find the steps where they are called (core/),
# so a silent grep below means "not called", not "pattern broken".
if ! grep -Eq "($steps) \(" "$src/core/session/session.c"; then
  echo "FAIL: the step pattern finds nothing in core/session/session.c" >&2
  exit 1
fi

for f in "$src"/shell/*.c "$src"/shell/*.h "$src"/pam_module/*.c; do
  [ -e "$f" ] || continue
  if grep -En "($steps) \(" "$f" >&2; then
    echo "FAIL: ${f#"$src"/} sequences session steps itself; call bwsh_session_prepare()" >&2
    fail=1
  fi
done
for f in "$src"/shell/bwsh.c "$src"/shell/bwshctl.c "$src"/pam_module/pam_bwsh.c; do
  if ! grep -q "bwsh_session_prepare (" "$f"; then
    echo "FAIL: ${f#"$src"/} does not prepare its session with bwsh_session_prepare()" >&2
    fail=1
  fi
done
once='bwsh_registry_register|bwsh_pid_start_time|bwsh_policy_error_reported'
if ! grep -Eq "($once) \(" "$src/core/session/registration.c" \
  || ! grep -Eq "($once) \(" "$src/core/session/fallback.c"; then
  echo "FAIL: the registration pattern finds nothing in core/session/registration.c or fallback.c" >&2
  exit 1
fi
for f in "$src"/shell/bwsh.c "$src"/pam_module/pam_bwsh.c; do
  if grep -En "($once) \(" "$f" >&2; then
    echo "FAIL: ${f#"$src"/} registers the session or reports the broken policy itself; call bwsh_session_register() or bwsh_fallback_report()" >&2
    fail=1
  fi
done
[ "$fail" = 0 ] && echo "ok: only core/ sequences a session"
exit "$fail"
