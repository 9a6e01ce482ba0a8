#!/bin/bash
# A sandbox ends with the service's process that started it, also when
# bwsh waits in between (a guarded launch: the user's overlay has entries,
# shell/guard.c).  Unguarded, bwrap is the child of sshd's session process
# ("sshd: USER@notty"; "sshd-session: USER@notty" from OpenSSH 9.8 on,
# Debian 13) and its --die-with-parent ends the sandbox when that
# process dies.  Guarded, bwsh is bwrap's parent and must die with sshd's
# process the same way (PR_SET_PDEATHSIG), or the command would run on with
# nobody to end it.  The unguarded session is the control.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
ssh_start main

it_as_user mkdir -p "$IT_HOME/ro-data"

# disconnect WHAT: start 'sleep 300' over ssh without a tty, SIGKILL sshd's
# session process once the sandbox runs, and expect the sandbox to be gone.
disconnect()
{
  local what=$1 client session i
  timeout -k 5 120 ssh -F "$SSH_CFG" t 'echo up; exec sleep 300' </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" &
  client=$!
  for ((i = 0; i < 1800; i++)); do
    grep -qx up "$IT_TMP/out" 2>/dev/null && break
    kill -0 "$client" 2>/dev/null || break
    sleep 0.05
  done
  grep -qx up "$IT_TMP/out" || { it_fail "$what: the session never started: $(cat "$IT_TMP/err")"; return; }
  pgrep -u "$IT_UID" -x sleep >/dev/null || it_fail "$what: no sleep of the user runs"
  if [ "$what" = guarded ]; then
    pgrep -u "$IT_UID" -f "^$IT_BWSH" >/dev/null || pgrep -u "$IT_UID" -x bwsh >/dev/null \
      || it_fail "(premise) no bwsh waits in a guarded session"
  fi
  # sshd's session process of the user, the parent of bwsh (or of bwrap).
  session=$(pgrep -u "$IT_UID" -f "^sshd(-session)?: $IT_USER@notty" | head -n 1)
  [ -n "$session" ] || { it_fail "$what: no sshd session process"; return; }
  kill -KILL "$session"
  wait "$client" 2>/dev/null
  # The sandbox's processes: the user's, but sshd's own session process
  # (which sshd ends on its own schedule).
  for ((i = 0; i < 100; i++)); do
    [ -z "$(sandbox_procs)" ] && return
    sleep 0.1
  done
  it_fail "$what: the sandbox outlived sshd's session process by 10 s: $(sandbox_procs)"
}
sandbox_procs() { ps -o pid=,comm= -U "$IT_UID" | awk '$2 !~ /^sshd(-session)?:?$/ { print }'; }

it_check "(control) unguarded: the sandbox ends with sshd's session process"
disconnect unguarded

it_check "guarded (an overlay entry): the sandbox ends with sshd's session process"
# At another place, so that it is a mount of its own (not coalesced into the home's).
it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalROBinds\": [ { \"src\": \"$IT_HOME/ro-data\", \"dst\": \"/srv/ro-data\" } ] } } }"
disconnect guarded
