# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Policy test harness, on top of tests/integration/lib.sh.
#
# The policy tests run on their own installed tree (the CTest fixture
# bwsh_pol: fixture.sh setup with IT_STATE=pol-state), so that rewriting its
# one policy file, $IT_PREFIX/etc/bwsh/bwsh.conf, never disturbs the other
# suites.  Inside the suite every test holds RESOURCE_LOCK bwsh_policy.
#
# API (after pol_setup)
#   POL, POL_DIR, BWSHCTL   the tree's policy file, its directory, bwshctl
#   pol_write TEXT          install TEXT as the policy (root, 0644); the
#                           shipped file comes back at exit
#   pol_file NAME TEXT      TEXT as $IT_TMP/NAME (root, 0644); path in POL_FILE
#   pol_project             make ~/project as the user; MARK is a fresh marker
#                           path in it (absent on the host)
#   pol_session CMD         it_run "touch $MARK; CMD" (the marker proves CMD ran)
#   pol_assert_ran          the session ran: rc 0 and the marker exists
#   pol_assert_refused MSG  rc != 0, a line "bwsh: ...MSG...", marker absent
#   pol_check_bad TEXT LINE MSG
#                           `bwshctl check --policy F` on TEXT exits 1 and
#                           prints "F:LINE: MSG"; then TEXT installed as the
#                           policy refuses the user's session with one line
#                           without the file (pol_assert_policy_refused), and
#                           root's bwsh with "bwsh: ...POL:LINE: MSG"; nothing runs
#   pol_assert_policy_refused   refused with POL_SUBJECT_LINE, no path of POL_DIR
#   pol_bwsh_as_root        IT_BWSH -c "touch MARK; echo SANDBOX-RAN" as root
#   pol_explain [USER]      bwshctl explain --json USER (root) into
#                           $IT_TMP/explain.json; IT_RC as usual
#   pol_json EXPR           print the python expression EXPR, d = the JSON
#   pol_base_mounts         accepted non-user mounts of the current plan

_pol_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../integration/lib.sh
. "$_pol_lib_dir/../integration/lib.sh"

pol_restore()
{
  [ -n "${POL_DIR:-}" ] || return 0
  chmod 0755 "$POL_DIR" "$POL_DIR/conf.d" 2>/dev/null
  chown root:root "$POL_DIR" 2>/dev/null
  find "$POL_DIR/conf.d" -mindepth 1 -delete 2>/dev/null
  find "$POL_DIR" -maxdepth 1 -mindepth 1 ! -name bwsh.conf ! -name conf.d -exec rm -rf {} + 2>/dev/null
  install -o root -g root -m 0644 "$IT_TMP/shipped.conf" "$POL"
}

pol_setup()
{
  it_setup
  it_skip_unless_bwrap
  pol_init
}

# The policy half of pol_setup, for suites that set up the user their own
# way (tests/overlay: ssh_prepare).
pol_init()
{
  POL=$IT_PREFIX/etc/bwsh/bwsh.conf
  POL_DIR=${POL%/*}
  BWSHCTL=$IT_PREFIX/bin/bwshctl
  [ -x "$BWSHCTL" ] || { it_fail "$BWSHCTL is missing"; exit 1; }
  [ -f "$IT_TMP/shipped.conf" ] || cp -p "$POL" "$IT_TMP/shipped.conf"
  it_defer pol_restore
}

pol_write()
{
  printf '%s\n' "$1" >"$POL.new"
  chown root:root "$POL.new"
  chmod 0644 "$POL.new"
  mv -f "$POL.new" "$POL"
}

pol_file()
{
  POL_FILE=$IT_TMP/$1
  printf '%s\n' "$2" >"$POL_FILE"
  chown root:root "$POL_FILE"
  chmod 0644 "$POL_FILE"
}

pol_project()
{
  it_as_user mkdir -p "$IT_HOME/project"
  MARK=$IT_HOME/project/ran-$RANDOM$RANDOM
  rm -f "$MARK"
}

pol_session()
{
  it_run "touch '$MARK'; $1"
}

pol_assert_ran()
{
  it_assert_rc 0
  it_assert_exists "$MARK"
  rm -f "$MARK"
}

pol_assert_refused()
{
  local line found=0
  if [ "$IT_RC" = 0 ]; then it_fail "the session was not refused"; it_show; fi
  # One line, "bwsh: ...MSG...": the user is told why, in bwsh's voice.
  while IFS= read -r line; do
    case $line in "bwsh: "*"$1"*) found=1 ;; esac
  done <<<"$IT_ERR"
  [ "$found" = 1 ] || { it_fail "no 'bwsh: ...$1' line on stderr"; it_show; }
  it_assert_absent "$MARK"
  rm -f "$MARK"
}

pol_check_bad()
{
  local text=$1 line=$2 msg=$3
  pol_file bad.conf "$text"
  IT_RC=0
  "$BWSHCTL" check --policy "$POL_FILE" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
  it_assert_rc 1
  it_assert_err_has "$POL_FILE:$line: $msg"
  it_assert_out_lacks "policy valid"
  pol_write "$text"
  pol_project
  pol_session 'echo SANDBOX-RAN'
  pol_assert_policy_refused
  it_assert_out_lacks SANDBOX-RAN
  pol_bwsh_as_root
  pol_assert_refused "$POL:$line: $msg"
}

# A policy that cannot be used, no last good copy: the subject hears one line
# without the administrator's file and line (#38); root hears them.
POL_SUBJECT_LINE="bwsh: the sandbox policy cannot be used (the administrator has the details); no last good policy: refused"
pol_assert_policy_refused()
{
  pol_assert_refused "${POL_SUBJECT_LINE#bwsh: }"
  it_assert_err_lacks "$POL_DIR"
}

pol_bwsh_as_root()
{
  IT_RC=0
  timeout -k 5 60 "$IT_BWSH" -c "touch '$MARK'; echo SANDBOX-RAN" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

# shellcheck disable=SC2120 # USER is optional; the tests so far explain IT_USER
pol_explain()
{
  IT_RC=0
  timeout 60 "$BWSHCTL" explain --json "${1:-$IT_USER}" >"$IT_TMP/explain.json" 2>"$IT_TMP/err" || IT_RC=$?
  IT_OUT=$(<"$IT_TMP/explain.json")
  IT_ERR=$(<"$IT_TMP/err")
}

pol_json()
{
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(json.dumps(v) if not isinstance(v, str) else v)' "$IT_TMP/explain.json" "$1"
}

pol_base_mounts()
{
  pol_explain
  pol_json 'len([m for m in d["mounts"] if m["verdict"] == "accepted" and m["origin"] != "user"])'
}
