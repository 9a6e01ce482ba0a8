# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# The escape suite's helpers, on top of the integration harness
# (../integration/lib.sh: the installed bwsh of the bwsh_it fixture, a fresh
# unprivileged user per test whose login shell is that bwsh, it_run = the
# real login path `su - USER -c CMD`).
#
#   sec_setup              it_setup + it_skip_unless_bwrap, then put the probe
#                          (bwsh-probe, built from probe.c) in the user's
#                          project dir: inside it is $SEC_P (~/project/bwsh-probe)
#   sec_policy TEXT        write a root-owned policy file holding TEXT (libconfig;
#                          every setting left out keeps its default) and print
#                          its path; use it with sec_run_ns
#   sec_run_ns SETUP CMD   `su - USER -c CMD` in a private mount namespace after
#                          the bash snippet SETUP ran there as root (bind a policy
#                          over the fixture's, hide bwrap, ...): nothing of it is
#                          seen by other tests.  Sets IT_RC, IT_OUT, IT_ERR.
#   sec_bind_policy FILE   a SETUP snippet binding FILE over the fixture's policy
#   sec_pty SCRIPT ARGV... run ARGV on a new pty driven by SCRIPT (see pty_drive.py);
#                          IT_OUT is the transcript, IT_RC the exit status
#   sec_assert_line WANT   IT_OUT has a line that is exactly WANT
#
# Every command runs under a timeout; every file and process a test makes is
# removed at exit (it_defer, the user's removal kills its processes).

SEC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../integration/lib.sh
. "$SEC_DIR/../integration/lib.sh"

: "${SEC_PROBE:?SEC_PROBE must name the built bwsh-probe}"
SEC_PYTHON=/usr/bin/python3

sec_setup()
{
  it_setup
  it_skip_unless_bwrap
  SEC_POLICY=$IT_PREFIX/etc/bwsh/bwsh.conf
  it_as_user mkdir -p "$IT_HOME/project"
  install -o "$IT_USER" -g "$(id -g "$IT_USER")" -m 0755 "$SEC_PROBE" "$IT_HOME/project/bwsh-probe" \
    || { it_fail "cannot install the probe"; exit 1; }
  # Expanded by the shell inside the sandbox, where ~ is the user's home.
  # shellcheck disable=SC2034,SC2088
  SEC_P='~/project/bwsh-probe'
}

sec_policy()
{
  local f
  f=$(mktemp "$IT_TMP/policy.XXXXXX") || exit 1
  printf '%s\n' "$1" >"$f"
  chmod 0644 "$f"
  printf '%s' "$f"
}

# The policy FILE in place of the fixture's, and no last good copy: a clean
# load by pam_bwsh in another test may have kept one (core/session/lkg.h), and then
# it would decide the session instead of FILE's error (the fleet's fallback,
# tests/audit/test_policy_fallback.sh); here the error itself must decide.
sec_bind_policy()
{
  local lkg=$IT_PREFIX/var/lib/bwsh/last-good
  printf 'mount --bind %q %q && mkdir -p %q && mount -t tmpfs -o mode=0755 tmpfs %q' \
    "$1" "$SEC_POLICY" "$lkg" "$lkg"
}

sec_run_ns()
{
  IT_RC=0
  # shellcheck disable=SC2016
  setsid -w timeout -k 5 60 unshare -m --propagation private \
    bash -c "set -e; $1; set +e; exec su - \"\$0\" -c \"\$1\"" "$IT_USER" "$2" \
    </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

sec_pty()
{
  local script=$1
  shift
  IT_RC=0
  timeout -k 5 90 "$SEC_PYTHON" "$SEC_DIR/pty_drive.py" "$script" "$@" \
    </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

sec_assert_line()
{
  grep -qxF -- "$1" <<<"${IT_OUT//$'\r'/}" || { it_fail "no line '$1' in the output"; it_show; }
}

sec_assert_no_line()
{
  if grep -qxF -- "$1" <<<"${IT_OUT//$'\r'/}"; then it_fail "a line '$1' in the output"; it_show; fi
}

# sec_main CASE: set up, then run the function case_CASE of the calling script.
sec_main()
{
  local name=${1:-}
  if [ -z "$name" ] || ! declare -F "case_$name" >/dev/null; then
    echo "usage: $0 CASE (one of: $(declare -F | sed -n 's/^declare -f case_//p' | tr '\n' ' '))" >&2
    exit 2
  fi
  sec_setup
  # Failures are recorded by the assertions, not by the status of the last one.
  "case_$name" || true
}
