#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# No entry can lock a user out (issue 13), through su, the real login path:
# - an RO bind to ~/new-dir works on the first login without an
#   administrator: on the state (the default) bwrap makes the mount point;
#   inside the read-only real home (state = "none") the entry is skipped
#   with a warning and nothing is made there (issue 24: a session leaves no
#   new name in the real home), and the login works (control: a naive
#   wrapper fails on it, "Can't mkdir ... Read-only file system");
# - a destination nobody can make (under /usr) is skipped with a warning and
#   the rest applies; a strict policy refuses instead;
# - a missing policy shell gives one "bwsh:" line naming the policy file and
#   line, and `bwshctl check` reports it first;
# - names NSS does not know in subjects or match are warned about with their line;
# - `bwshctl check --policy FILE` on a missing FILE fails.
. "$(dirname "$0")/ov_lib.sh"

ov_setup
pol_project
it_as_user mkdir -p "$H/data"
it_as_user sh -c "echo data-visible >'$H/data/f'"
it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalROBinds\": [
  { \"src\": \"$H/data\", \"dst\": \"$H/new-dir\" },
  { \"src\": \"$H/data\", \"dst\": \"/usr/bwsh-nowhere\" } ] } } }"

it_check "control: a naive wrapper cannot start with the RO bind to ~/new-dir"
ov_naive 'echo NAIVE-RAN'
[ "$IT_RC" != 0 ] || it_fail "the naive wrapper started although ~/new-dir cannot be made"
it_assert_err_has "Read-only file system"
it_assert_out_lacks NAIVE-RAN

it_check "state = \"tmpfs\" (the default): bwrap makes ~/new-dir on the state; check reports nothing to create"
it_as_user "$BWSHCTL" check
it_assert_rc 0
it_assert_err_lacks "mount point does not exist yet"
it_assert_out_has "$CFG:2:3: accepted ro-bind $H/data -> $H/new-dir"
# shellcheck disable=SC2016 # expanded in the session
pol_session 'cat "$HOME/new-dir/f"; test -e /usr/bwsh-nowhere || echo nowhere-absent'
pol_assert_ran
it_assert_eq "data-visible
nowhere-absent" "$IT_OUT"
it_assert_err_has "bwsh: warning: $CFG:3:3: /usr/bwsh-nowhere: destination cannot be made: /usr is read-only inside the sandbox (skipped)"
it_assert_absent "$H/new-dir"

it_check "state = \"none\" (the real home read-only): bwshctl check, as the user, says what the login will do"
ov_policy 'state = "none";'
it_as_user "$BWSHCTL" check
it_assert_rc 0
it_assert_err_has "$CFG:2:3: $H/new-dir: destination cannot be made: $H is read-only inside the sandbox (skipped)"
it_assert_absent "$H/new-dir"

it_check "state = \"none\", the login: ~/new-dir skipped with a warning, not made in the real home; the rest applies"
# shellcheck disable=SC2016 # expanded in the session
pol_session 'test -e "$HOME/new-dir" || echo new-dir-absent; test -e /usr/bwsh-nowhere || echo nowhere-absent'
pol_assert_ran
it_assert_eq "new-dir-absent
nowhere-absent" "$IT_OUT"
it_assert_err_has "bwsh: warning: $CFG:2:3: $H/new-dir: destination cannot be made: $H is read-only inside the sandbox (skipped)"
it_assert_err_has "bwsh: warning: $CFG:3:3: /usr/bwsh-nowhere: destination cannot be made: /usr is read-only inside the sandbox (skipped)"
it_assert_absent "$H/new-dir"

it_check "strict = true: the entry that cannot be made refuses the session"
ov_policy 'strict = true;'
pol_session 'echo SANDBOX-RAN'
pol_assert_refused "strict policy: 1 configuration entry was refused"
it_assert_out_lacks SANDBOX-RAN
it_user_config '{}'

it_check "control: the shipped shell starts"
ov_policy ''
pol_session 'echo SHELL-RAN'
pol_assert_ran

it_check "a missing shell: one bwsh: line with the policy's file and line, nothing runs"
ov_policy '# the shell
shell = "/bin/bwsh-no-such-shell";'
pol_session 'echo SANDBOX-RAN'
it_assert_eq "bwsh: cannot build the sandbox: $POL:3: the shell /bin/bwsh-no-such-shell cannot be run: No such file or directory" \
  "$IT_ERR" "stderr of the refused login"
pol_assert_refused "$POL:3: the shell /bin/bwsh-no-such-shell cannot be run"
it_assert_out_lacks SANDBOX-RAN

it_check "bwshctl check reports the missing shell first"
IT_RC=0
"$BWSHCTL" check >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 1
it_assert_eq "$POL:3: the shell /bin/bwsh-no-such-shell cannot be run: No such file or directory" \
  "$(head -n 1 <<<"$IT_ERR")" "first line of bwshctl check"
it_assert_out_lacks "policy valid"

it_check "bwshctl explain says the login would fail (part of the answer: status 0)"
IT_RC=0
"$BWSHCTL" explain "$IT_USER" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
it_assert_err_has "$POL:3: the shell /bin/bwsh-no-such-shell cannot be run"

it_check "names NSS does not know, in subjects and match, with their lines (errors, exit 1)"
ov_policy "subjects = { users = [ \"$IT_USER\", \"bwsh-no-such-user\" ];
  groups = [ \"bwsh-no-such-group\" ]; };
match = ( { group = \"bwsh-no-such-group2\"; strict = true; } );"
IT_RC=0
"$BWSHCTL" check >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 1
it_assert_err_has "$POL:2: error: "
it_assert_err_has "no user \"bwsh-no-such-user\" in NSS: it confines nobody"
it_assert_err_has "$POL:3: error: "
it_assert_err_has "no group \"bwsh-no-such-group\" in NSS: it confines nobody"
it_assert_err_has "$POL:4: error: "
it_assert_err_has "no group \"bwsh-no-such-group2\" in NSS: it confines nobody"
it_assert_err_lacks "\"$IT_USER\" in NSS"

it_check "bwshctl check --policy on a missing file fails"
IT_RC=0
"$BWSHCTL" check --policy "$IT_TMP/no-such.conf" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 1
it_assert_eq "$IT_TMP/no-such.conf: No such file or directory" "$IT_ERR" "stderr"
it_assert_out_lacks "policy valid"

