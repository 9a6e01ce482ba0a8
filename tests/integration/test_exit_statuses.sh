#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bwsh's documented exit statuses (bwsh(1), EXIT STATUS; sysexits.h), each
# with its one "bwsh:" line, so that monitoring tells a refusal from a
# command's status and from a signal (a refusal once exited 137, read as an
# OOM kill, #25 item 7, #27):
#   2 usage; 77 the policy refuses (strict); 78 the policy cannot be used.
#   69 for /dev/net/tun and pasta is in tests/network; 69 (bwrap), 71 (home,
#   project directory) and more 78 cases in tests/security/test_faults.sh.
# Each runs in a private mount namespace: the policy is bound over the
# installed one there only.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
POLICY=$IT_PREFIX/etc/bwsh/bwsh.conf
MARK=$IT_HOME/project/ran
it_as_user mkdir -p "$IT_HOME/project"

# in_ns SETUP ARG...: SETUP (shell, as root) in a private mount namespace,
# then IT_BWSH ARG... there as the user.
in_ns()
{
  local setup=$1
  shift
  IT_RC=0
  # shellcheck disable=SC2016
  timeout -k 5 60 unshare -m --propagation private -- bash -c 'set -e; eval "$1"; shift; set +e
    exec setpriv --reuid="$1" --regid="$2" --init-groups "$3" "${@:4}"' sh "$setup" "$IT_UID" "$IT_GID" \
    "$IT_BWSH" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

it_check "usage error: 2"
in_ns true -x
it_assert_rc 2

it_check "a strict policy refuses a refused overlay entry: 77"
printf 'strict = true;\nnetwork = "none";\n' >"$IT_TMP/strict.conf"
chmod 644 "$IT_TMP/strict.conf"
it_user_config '{"preferences":{"sandboxBwrapMounts":{"additionalROBinds":["/proc/1"]}}}'
in_ns "mount --bind $IT_TMP/strict.conf $POLICY" -c "touch $MARK"
it_assert_rc 77
grep -q '^bwsh: .*strict policy: 1 configuration entry was refused' <<<"$IT_ERR" \
  || { it_fail "no strict refusal line"; it_show; }
it_assert_absent "$MARK"
rm -f "$IT_HOME/.config/bwsh/config.json"

it_check "a policy that cannot be used: 78"
printf 'max_sessions = ;\n' >"$IT_TMP/broken.conf"
chmod 644 "$IT_TMP/broken.conf"
in_ns "mount --bind $IT_TMP/broken.conf $POLICY" -c "touch $MARK"
it_assert_rc 78
# The subject hears one line; the file and line are the administrator's (#38).
it_assert_eq "bwsh: the sandbox policy cannot be used (the administrator has the details); no last good policy: refused" \
  "$IT_ERR" "the one line"
it_assert_absent "$MARK"
