#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cron and atd never run the login shell: a subject's job would run on the
# host.  pam_bwsh refuses their sessions for subjects (refused_services,
# default [ "cron", "atd" ]).  Proven with the real cron and atd PAM stacks
# of this machine (a copy, pam_bwsh appended) through pamtester, and with the
# real atd running a real at job, in a private mount namespace.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC2088,SC1010,SC1003,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
it_add_user OTHER   # not a subject: the control
command -v pamtester >/dev/null || { it_fail "pamtester is missing"; exit 1; }

in_ns()
{
  IT_RC=0
  timeout -k 5 60 unshare -m --propagation private -- /bin/sh -c '
    mount --bind "$1" /etc/pam.d || exit 1
    shift; exec "$@"' sh "$IT_TMP/pam.d" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

for svc in cron atd; do
  it_check "the $svc session of a subject is refused"
  in_ns pamtester "$svc" "$IT_USER" open_session
  [ "$IT_RC" != 0 ] || it_fail "pamtester opened a $svc session for a subject"
  it_assert_err_has "Permission denied"
  it_assert_err_has "bwsh: service $svc never runs the login shell; refused for sandboxed user $IT_USER"

  it_check "the $svc session of a non-subject opens (the stack works)"
  in_ns pamtester "$svc" "$OTHER" open_session close_session
  it_assert_rc 0
  it_assert_out_has "successfully opened a session"
done

if command -v atd >/dev/null && command -v at >/dev/null; then
  it_check "a subject's real at job does not run; a non-subject's does"
  spool=$IT_TMP/atspool
  mkdir -p "$spool/jobs" "$spool/spool"
  chown daemon:daemon "$spool/jobs" "$spool/spool"
  chmod 1770 "$spool/jobs" "$spool/spool"
  install -o daemon -g daemon -m 600 /dev/null "$spool/jobs/.SEQ"
  OTHER_HOME_MARK=$OTHER_HOME/at-ran
  ssh_mark
  IT_RC=0
  timeout -k 5 60 unshare -m --propagation private -- /bin/sh -c '
    mount --bind "$1" /etc/pam.d && mount --bind "$2/jobs" /var/spool/cron/atjobs \
      && mount --bind "$2/spool" /var/spool/cron/atspool || exit 1
    for u in "$3" "$4"; do
      h=$(getent passwd "$u" | cut -d: -f6)
      echo "touch $h/at-ran; touch $h/project/at-ran" | setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups \
        env SHELL=/bin/sh at -M now 2>&1 || exit 1
    done
    atd -s
    sleep 2' sh "$IT_TMP/pam.d" "$spool" "$IT_USER" "$OTHER" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
  it_assert_rc 0
  for _ in $(seq 50); do [ -e "$OTHER_HOME_MARK" ] && break; sleep 0.1; done
  it_assert_exists "$OTHER_HOME_MARK"
  it_assert_absent "$IT_HOME/at-ran"
  it_assert_absent "$IT_HOME/project/at-ran"
  ssh_assert_confined
fi
ssh_assert_no_user_processes
