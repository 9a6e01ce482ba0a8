#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The terminal: input injection must be refused, job control must not be.
#
# Measured on Debian 12 (dev.tty.legacy_tiocsti=1): TIOCSTI from inside a
# bare bwrap queued a command line on the login's terminal, and the shell
# that read the terminal after the sandbox exited ran it.  These tests replay
# exactly that on a fresh pty: an outer root shell runs `su - USER` (the
# interactive login: bwsh, bwrap, bash), the attacker inside queues
# "touch MARKER" and exits, and the outer shell then reads the terminal.
# bwrap --new-session would stop it too, but it takes the terminal away from
# the shell (no job control, no Ctrl-C); bwsh uses the seccomp filter
# instead, and job_control_and_winsize_still_work holds it to that.
. "$(dirname "$0")/sec.sh"

# inject_session SUBCOMMAND: a pty running /bin/sh as root; first, when
# possible, a control injection from outside the sandbox (the probe run as
# the user, without bwsh), then the same injection from inside a login.
# Sets INJ_DIR (root-only, invisible inside the sandbox: /tmp is a tmpfs
# there) where the markers would appear.
inject_session()
{
  local sub=$1 script
  INJ_DIR=$IT_TMP/inject
  mkdir -m 0700 "$INJ_DIR"
  script=$IT_TMP/pty-script
  {
    if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 1 ]; then
      # The probe types into this terminal: nothing else may type until its
      # injection is over (the probe exited: INJ-55) and the outer shell ran
      # what it queued (the marker is there).  Typing before that
      # interleaves with the injection ("techo ... ouch").
      printf 'send %s\\n\n' "setpriv --reuid=$IT_UID --regid=$(id -g "$IT_USER") --init-groups $IT_HOME/project/bwsh-probe $sub 'touch $INJ_DIR/control'; echo INJ-\$((50+5))"
      echo 'expect INJ-55'
      echo "wait-file $INJ_DIR/control"
      # shellcheck disable=SC2016
      printf 'send %s\\n\n' 'echo CTL-$((40+2))'
      echo 'expect CTL-42'
    fi
    printf 'send %s\\n\n' "su - $IT_USER"
    # shellcheck disable=SC2016
    printf 'send %s\\n\n' 'echo READY-$((20+1))'
    echo 'expect READY-21'
    # shellcheck disable=SC2016
    printf 'send %s\\n\n' "printf 'R=%s\\\\n' \"\$($SEC_P $sub 'touch $INJ_DIR/pwned')\"; exit"
    echo 'expect R=[A-Z]+'
    # The outer shell now reads whatever is queued on the terminal.
    # shellcheck disable=SC2016
    printf 'send %s\\n\n' 'echo OUTER-$((30+3))'
    # Whatever was queued before it has run by the time OUTER-33 is printed.
    echo 'expect OUTER-33'
    printf '%s\n' 'send exit\n'
  } >"$script"
  sec_pty "$script" /bin/sh
}

check_injection()
{
  local sub=$1
  inject_session "$sub"
  if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 1 ]; then
    it_check "control: the same injection from outside the sandbox reaches the outer shell"
    it_assert_exists "$INJ_DIR/control"
  else
    it_log "dev.tty.legacy_tiocsti=0: no control (the kernel refuses TIOCSTI itself)"
  fi

  it_check "$sub from inside the sandbox gives EPERM"
  it_assert_rc 0
  sec_assert_line "R=EPERM"

  it_check "and the outer shell did not run the injected command"
  it_assert_absent "$INJ_DIR/pwned"
}

case_tiocsti_injection_refused()
{
  check_injection tiocsti
}

case_tiocsti_high_bits_injection_refused()
{
  # CVE-2019-10063: TIOCSTI | 1 << 32 is TIOCSTI to the kernel.
  check_injection tiocsti-hi
}

case_tioclinux_refused()
{
  local script=$IT_TMP/pty-script
  {
    printf 'send %s\\n\n' "printf 'C=%s\\\\n' \"\$(setpriv --reuid=$IT_UID --regid=$(id -g "$IT_USER") --init-groups $IT_HOME/project/bwsh-probe tioclinux)\""
    echo 'expect C=[A-Z]+'
    printf 'send %s\\n\n' "su - $IT_USER"
    # shellcheck disable=SC2016
    printf 'send %s\\n\n' 'echo READY-$((20+1))'
    echo 'expect READY-21'
    printf 'send %s\\n\n' "printf 'R=%s\\\\n' \"\$($SEC_P tioclinux)\"; exit"
    echo 'expect R=[A-Z]+'
    printf '%s\n' 'send exit\n'
  } >"$script"
  sec_pty "$script" /bin/sh

  it_check "TIOCLINUX (paste selection) from inside gives EPERM from the filter"
  it_assert_rc 0
  sec_assert_line "R=EPERM"
  # On a pty the kernel itself answers ENOTTY: the EPERM above is the filter's.
  it_check "control: outside the sandbox the kernel answers something else"
  sec_assert_no_line "C=EPERM"
}

case_job_control_and_winsize_still_work()
{
  local script=$IT_TMP/pty-script
  # shellcheck disable=SC2016
  cat >"$script" <<EOF
send echo READY-\$((20+1))\n
expect READY-21
send printf 'W=%s\\\\n' "\$($SEC_P tiocgwinsz)"; stty size; echo M-\${-//[!m]/}\n
expect W=OK
expect 24 80
expect M-m
send sleep 100 &\n
send jobs\n
expect Running +sleep 100
send kill %1; wait %1; echo K=\$?\n
expect K=143
send sh -c 'echo S\$((3+4)); exec sleep 100'\n
expect S7
send \x1a
expect Stopped
send bg; kill %1; wait %1; echo Z=\$?\n
expect Z=143
send sh -c 'echo T\$((3+5)); exec sleep 100'\n
expect T8
send \x03
send echo C=\$?\n
expect C=130
send exit\n
EOF
  sec_pty "$script" su - "$IT_USER"

  it_check "an interactive login keeps its terminal: winsize, job control, Ctrl-Z, Ctrl-C"
  it_assert_rc 0
  sec_assert_line "W=OK"
  sec_assert_line "K=143"
  sec_assert_line "Z=143"
  sec_assert_line "C=130"
  it_assert_out_lacks "no job control"
  it_assert_out_lacks "cannot set terminal process group"
}

sec_main "$@"
