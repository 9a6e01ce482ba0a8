# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Audit harness: a real systemd-journald, no systemd PID 1 needed.  journald
# opens its own sockets when it is not socket-activated, so it runs in a
# private mount namespace in which
#   - /run is an overlay whose upper layer is $IT_TMP/jrun-up: the journal's
#     sockets (/run/systemd/journal/socket) and its volatile files
#     (/run/log/journal) land there, never in the host's /run;
#   - /var/log/journal is an empty directory of the test, so that nothing is
#     ever flushed to the host's persistent journal.
# sshd (tests/ssh/lib.sh, through SSH_NS_ENTER) and every su the test runs
# live below that namespace, so pam_bwsh's events reach this journald only.
#
# API (after ssh_prepare)
#   journal_start          start journald; sets JOURNALD_PID, JOURNAL_DIR; with
#                          AUDIT_JOURNALD_CONF set, that file is its journald.conf
#   journal_json FILTER... journalctl -o json of that journal, one entry a line
#   journal_field JSON KEY the value of KEY in one json entry ("" if absent)
#   journal_wait_for N FILTER...   wait (10 s) until N entries match
#   in_jns CMD...          CMD as root in journald's namespace, with the test's
#                          /etc/pam.d and /etc/shells; sets IT_RC, IT_OUT, IT_ERR
#   bwshctl_run ARG...     the installed bwshctl in journald's namespace (its
#                          lock events go to this journal); IT_RC, IT_OUT, IT_ERR
#   audit_user_tasks       how many tasks (threads) the test user has on the host
#   audit_user_procs       "PID:NAME ..." of the test user's live processes
#   audit_record_tty       record = "tty" for the test user from now on (tlog)
#   audit_have_tlog        true where tlog-rec is here; false, said once, where
#                          the release has no tlog package (Debian 13); fails
#                          the test where apt has tlog and it is missing
#   HOLDERS+=(PID), kill_holders   background ssh clients the test holds
#                          sessions with, and their end (deferred at exit)

# shellcheck disable=SC1091,SC2034
. "$BWSH_SOURCE_DIR/tests/ssh/lib.sh"

JOURNALD_PID=
JOURNAL_DIR=
BWSHCTL=
MSG_ALLOWED=eab9f77944e548f091e1a8baf642bbcd
MSG_REFUSED=677d5803aceb472b938ad9eeb79cf4db
MSG_ENDED=dc5fe78d6af749b8978e6fc7d12da935
MSG_LOCK=7fab451b0fde483981ab3ae33b8352a7
MSG_LIMIT=45e3d0ea146e49548499d4ef6bc07e9a
MSG_COMMAND=e9e347ad276a4695a2ec58273a2570d7

journal_stop()
{
  [ -n "$JOURNALD_PID" ] || return 0
  ssh_kill_namespace "$JOURNALD_PID"
  wait "$JOURNALD_PID" 2>/dev/null
  JOURNALD_PID=
}

journal_start()
{
  local jd=/lib/systemd/systemd-journald
  [ -x "$jd" ] || jd=/usr/lib/systemd/systemd-journald
  [ -x "$jd" ] || { it_fail "systemd-journald is missing (package systemd)"; exit 1; }
  command -v journalctl >/dev/null || { it_fail "journalctl is missing (package systemd)"; exit 1; }
  BWSHCTL=$IT_PREFIX/bin/bwshctl
  mkdir -p "$IT_TMP/jrun-up" "$IT_TMP/jrun-work" "$IT_TMP/jvar"
  # shellcheck disable=SC2016
  unshare -m --propagation private -- /bin/sh -c '
    set -e
    mount -t overlay overlay -o "lowerdir=/run,upperdir=$1,workdir=$2" /run
    mount --bind "$3" /var/log/journal
    [ -z "$5" ] || mount --bind "$5" /etc/systemd/journald.conf
    mkdir -p /run/sshd /run/systemd/journal
    chmod 0755 /run/sshd
    exec "$4"' sh "$IT_TMP/jrun-up" "$IT_TMP/jrun-work" "$IT_TMP/jvar" "$jd" "${AUDIT_JOURNALD_CONF:-}" \
    </dev/null >"$IT_TMP/journald.log" 2>&1 &
  JOURNALD_PID=$!
  it_defer journal_stop
  for _ in $(seq 100); do
    [ -S "$IT_TMP/jrun-up/systemd/journal/socket" ] && break
    kill -0 "$JOURNALD_PID" 2>/dev/null || break
    sleep 0.05
  done
  [ -S "$IT_TMP/jrun-up/systemd/journal/socket" ] \
    || { cat "$IT_TMP/journald.log" >&2; it_fail "systemd-journald did not start"; exit 1; }
  JOURNAL_DIR=$IT_TMP/jrun-up/log/journal
  # sshd starts in (a child namespace of) this one.
  SSH_NS_ENTER=(nsenter -t "$JOURNALD_PID" -m --)
  it_log "systemd-journald pid $JOURNALD_PID, journal in $JOURNAL_DIR"
}

journal_json()
{
  journalctl -D "$JOURNAL_DIR" -o json --no-pager "$@" 2>/dev/null
}

journal_field()
{
  python3 -c 'import json, sys
v = json.loads(sys.argv[1]).get(sys.argv[2], "")
print(v if isinstance(v, str) else bytes(v).decode("utf-8", "replace"))' "$1" "$2"
}

journal_wait_for()
{
  local n=$1 have=0
  shift
  for _ in $(seq 100); do
    have=$(journal_json "$@" | grep -c .)
    [ "$have" -ge "$n" ] && return 0
    sleep 0.1
  done
  it_fail "expected $n journal entries for $*, found $have"
  return 1
}

# in_stack PAMDIR CMD...: CMD in the journal's namespace, with PAMDIR as
# /etc/pam.d (and the test's /etc/shells); in_jns CMD...: with the suite's.
in_stack()
{
  local dir=$1
  shift
  IT_RC=0
  # shellcheck disable=SC2016
  timeout -k 5 90 nsenter -t "$JOURNALD_PID" -m -- unshare -m --propagation private -- /bin/sh -c '
    mount --bind "$1" /etc/pam.d && mount --bind "$2" /etc/shells || exit 1
    shift 2; exec "$@"' sh "$dir" "$SSH_NS_SHELLS" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" \
    || IT_RC=$?
  it_collect
}

in_jns() { in_stack "$IT_TMP/pam.d" "$@"; }

bwshctl_run()
{
  IT_RC=0
  timeout -k 5 60 nsenter -t "$JOURNALD_PID" -m -- "$BWSHCTL" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" \
    || IT_RC=$?
  it_collect
}

audit_user_tasks()
{
  # shellcheck disable=SC2009 # ps -L counts threads; pgrep counts processes
  ps -L -o lwp= -u "$IT_UID" 2>/dev/null | grep -c .
}

# The test user's live processes as "PID:NAME ...": what bwshctl lock must
# have ended by the time it returns (the sandbox, pasta beside it, sshd's
# own unprivileged process for the session).  Zombies do not run; this
# machine's PID 1 may be slow to reap them.
audit_user_procs()
{
  local pid comm left=""
  for pid in $(it_live_pids "$IT_UID"); do
    comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
    left="$left $pid:$comm"
  done
  printf '%s' "${left# }"
}

# A lock the test made must not outlive it, whatever happened.
audit_unlock_at_exit()
{
  it_defer rm -f "$IT_PREFIX/var/lib/bwsh/locks/user:$IT_USER"
}

# The ssh clients a test holds sessions with: ended and reaped at the end,
# whatever happened.
HOLDERS=()
kill_holders()
{
  local p
  for p in "${HOLDERS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${HOLDERS[@]}"; do wait "$p" 2>/dev/null; done
  HOLDERS=()
}

# record = "tty" for the test user: in the build's policy (a drop-in, which
# bwsh reads) and in the suite's (pam_bwsh's); and the utmp file tlog-rec
# adds its record to, in this namespace's /run.  AUDIT_RECORD_DROPIN names
# the drop-in, removed at exit.
audit_record_tty()
{
  in_jns sh -c 'install -m 0664 -g utmp /dev/null /run/utmp'
  AUDIT_RECORD_DROPIN=$IT_PREFIX/etc/bwsh/conf.d/50-record-$IT_USER.conf
  mkdir -p "$IT_PREFIX/etc/bwsh/conf.d"
  it_defer rm -f "$AUDIT_RECORD_DROPIN"
  printf 'match = ( { user = "%s"; record = "tty"; } );\n' "$IT_USER" | tee -a "$SSH_POLICY" >"$AUDIT_RECORD_DROPIN"
  chmod 644 "$AUDIT_RECORD_DROPIN"
}

# Debian 13 ships no tlog (Debian 12, forky and sid do): there the cases
# that need a real tlog-rec are left out, and say so; where apt has tlog, a
# missing tlog-rec is a failure (scripts/test installs it).
audit_have_tlog()
{
  command -v tlog-rec >/dev/null && return 0
  . "$BWSH_SOURCE_DIR/scripts/deps.sh"
  [ -z "$(bwsh_available tlog)" ] || { it_fail "tlog-rec is missing (package tlog)"; exit 1; }
  it_log "this release has no tlog package: the cases that record are left out"
  return 1
}
