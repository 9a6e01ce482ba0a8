#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fleet benchmark (#19), on the real directory of tests/fleet/lib.sh
# (slapd + sssd, 1,000 users, 100 groups), as root:
#   bench/fleet.sh [ROUNDS]     (default 20; about two minutes)
# Measured, never asserted.  Prints RESULT lines, medians in milliseconds:
#   - ssh session start ("ssh t true", sandboxed) for a directory user whose
#     subject group comes from SSSD, against a local /etc/passwd subject,
#     interleaved, the order flipped every round; warm SSSD cache;
#   - the same directory user when every login must ask LDAP again
#     (sss_cache -E before each);
#   - bwshctl check --resolve on a policy naming all 100 groups and 100 users;
#   - the same login when the directory hangs (slapd stopped with SIGSTOP,
#     cache expired): how long SSSD's timeouts hold a login before it falls
#     back to the cache.
# Run it by hand: BWSH_SOURCE_DIR defaults to this tree, and without
# IT_STATE tests/integration/lib.sh builds a private installed tree.  slapd
# and sssd are unpacked, not installed (tests/fleet/root.sh; the libraries
# they need come from scripts/deps.sh's bwsh_fleet_deps).
: "${BWSH_SOURCE_DIR:=$(cd "$(dirname "$0")/.." && pwd)}"
export BWSH_SOURCE_DIR
# shellcheck source=../tests/fleet/lib.sh
. "$BWSH_SOURCE_DIR/tests/fleet/lib.sh"
fleet_enter_namespace "$@"
ROUNDS=${1:-20}
fleet_setup

DIR_USER=$(fleet_user 1)
fleet_home_for "$DIR_USER"
fleet_policy "subjects = { users = [ \"$IT_USER\" ]; groups = [ \"${FLEET_PFX}confined\" ]; };"
ssh_start bench snippet "AllowUsers ${FLEET_PFX}u*"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# login_ms NAME: one sandboxed "true" over ssh, in ms; fails unless sandboxed.
login_ms()
{
  local t0 t1
  t0=$(date +%s%N)
  fleet_ssh_as "$1" 'cat /proc/1/comm'
  t1=$(date +%s%N)
  if [ "$IT_RC" != 0 ] || [ "$IT_OUT" != bwrap ]; then
    it_fail "login of $1 not sandboxed: $IT_RC $IT_OUT $IT_ERR"
    exit 1
  fi
  echo $(((t1 - t0) / 1000)) | awk '{ printf "%.1f\n", $1 / 1000 }'
}

fleet_ssh_as "$DIR_USER" true
fleet_ssh_as "$IT_USER" true
: >"$IT_TMP/dir" && : >"$IT_TMP/local"
for ((i = 0; i < ROUNDS; i++)); do
  if ((i % 2)); then
    login_ms "$DIR_USER" >>"$IT_TMP/dir"; login_ms "$IT_USER" >>"$IT_TMP/local"
  else
    login_ms "$IT_USER" >>"$IT_TMP/local"; login_ms "$DIR_USER" >>"$IT_TMP/dir"
  fi
done
printf 'RESULT fleet_login_warm rounds=%s directory_ms=%s local_ms=%s\n' "$ROUNDS" \
  "$(median <"$IT_TMP/dir")" "$(median <"$IT_TMP/local")"

: >"$IT_TMP/expired"
for ((i = 0; i < ROUNDS / 2; i++)); do
  sss_cache -E
  login_ms "$DIR_USER" >>"$IT_TMP/expired"
done
printf 'RESULT fleet_login_expired_cache rounds=%s directory_ms=%s\n' $((ROUNDS / 2)) "$(median <"$IT_TMP/expired")"

{
  printf 'subjects = { groups = [ '
  for ((g = 1; g <= FLEET_GROUPS; g++)); do printf '"%sg%03d", ' "$FLEET_PFX" "$g"; done
  printf '"%sconfined" ];\n users = [ ' "$FLEET_PFX"
  for ((i = 1; i <= 100; i++)); do printf '"%s", ' "$(fleet_user $((i * 10)))"; done
  printf '"%s" ]; };\n' "$IT_USER"
} >"$IT_TMP/all.conf"
chmod 644 "$IT_TMP/all.conf"
: >"$IT_TMP/check"
for ((i = 0; i < 10; i++)); do
  t0=$(date +%s%N)
  "$IT_PREFIX/bin/bwshctl" check --resolve --policy "$IT_TMP/all.conf" >"$IT_TMP/check.out" 2>&1 \
    || { cat "$IT_TMP/check.out" >&2; it_fail "bwshctl check failed"; exit 1; }
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000)) | awk '{ printf "%.1f\n", $1 / 1000 }' >>"$IT_TMP/check"
done
grep -q "warning" "$IT_TMP/check.out" && { it_fail "unexpected warnings: $(cat "$IT_TMP/check.out")"; exit 1; }
# How many groups reported how many users ("10x100" = 100 groups of 10).
printf 'RESULT fleet_check_resolve names=201 median_ms=%s groups_by_count=%s\n' "$(median <"$IT_TMP/check")" \
  "$(awk '/: group / { print $(NF - 1) }' "$IT_TMP/check.out" | sort -n | uniq -c | awk '{ printf "%sx%s ", $2, $1 }')"

# A directory that hangs: the TCP connection is accepted by the kernel, no
# answer ever comes.  SSSD's ldap_*_timeout (2-3 s here) bound the wait.
kill -STOP "$FLEET_SLAPD_PID"
: >"$IT_TMP/hung"
for ((i = 0; i < 3; i++)); do
  sss_cache -E
  login_ms "$DIR_USER" >>"$IT_TMP/hung"
done
kill -CONT "$FLEET_SLAPD_PID"
printf 'RESULT fleet_login_directory_hung rounds=3 directory_ms=%s (each: %s)\n' "$(median <"$IT_TMP/hung")" \
  "$(tr '\n' ' ' <"$IT_TMP/hung")"
