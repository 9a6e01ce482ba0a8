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
#     back to the cache;
#   - lock_groups (#39): pam_bwsh's open+close for the directory user
#     (bench/pam_cost, warm cache) with 10 lock groups (directory groups it
#     is not in) against none, paired and interleaved, and the ssh login the
#     same way: the lock groups are answered from the group list the
#     subject check already loaded.
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
fleet_policy "subjects = { users = [ \"$IT_USER\" ]; groups = [ \"${FLEET_PFX}confined\" ]; };
require_shell = false;
allowed_services = [ \"bwsh-bench\" ];"
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

# lock_groups (#39): the same login with 10 lock groups against none.
POL_BASE="subjects = { users = [ \"$IT_USER\" ]; groups = [ \"${FLEET_PFX}confined\" ]; };
require_shell = false;
allowed_services = [ \"bwsh-bench\" ];"
LOCK10="lock_groups = [ $(for ((g = 91; g <= 100; g++)); do printf '"%sg%03d", ' "$FLEET_PFX" "$g"; done | sed 's/, $//') ];"
PAM_COST=${BWSH_PAM_COST:-$(dirname "${IT_STATE:-$IT_TMP/x}")/bench/pam_cost}
mkdir -p "$IT_TMP/pamc"
printf 'session required %s policy=%s\n' "$SSH_PAM_MODULE" "$SSH_POLICY" >"$IT_TMP/pamc/bwsh-bench"
: >"$IT_TMP/pam0" && : >"$IT_TMP/pam10" && : >"$IT_TMP/lock0" && : >"$IT_TMP/lock10"
for ((i = 0; i < ROUNDS; i++)); do
  for which in $( ((i % 2)) && echo "0 10" || echo "10 0"); do
    if [ "$which" = 0 ]; then fleet_policy "$POL_BASE"; else fleet_policy "$POL_BASE
$LOCK10"; fi
    login_ms "$DIR_USER" >>"$IT_TMP/lock$which"
    # Five rounds of 100 sessions each way are plenty for the PAM figure.
    if ((i < 5)) && [ -x "$PAM_COST" ]; then
      "$PAM_COST" "$IT_TMP/pamc" bwsh-bench "$DIR_USER" 100 | awk '{ printf "%.1f %.1f\n", $1 / 1000, $2 / 1000 }' \
        >>"$IT_TMP/pam$which"
    fi
  done
done
fleet_policy "$POL_BASE"
if [ -x "$PAM_COST" ]; then
  # Wall time, and CPU time (user + system), which a busy machine inflates less.
  printf 'RESULT fleet_pam_lock_groups rounds=5x100 none_us=%s ten_us=%s none_cpu_us=%s ten_cpu_us=%s\n' \
    "$(cut -d' ' -f1 <"$IT_TMP/pam0" | median)" "$(cut -d' ' -f1 <"$IT_TMP/pam10" | median)" \
    "$(cut -d' ' -f2 <"$IT_TMP/pam0" | median)" "$(cut -d' ' -f2 <"$IT_TMP/pam10" | median)"
else
  echo "bench/fleet.sh: no $PAM_COST (BWSH_PAM_COST names it): the PAM figure is left out" >&2
fi
printf 'RESULT fleet_login_lock_groups rounds=%s none_ms=%s ten_ms=%s\n' "$ROUNDS" "$(median <"$IT_TMP/lock0")" \
  "$(median <"$IT_TMP/lock10")"

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
