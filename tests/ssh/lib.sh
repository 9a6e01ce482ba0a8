# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# SSH test harness: a real OpenSSH sshd on 127.0.0.1, driven by the real
# ssh, scp, sftp, rsync and git clients, as an unprivileged user whose login
# shell is the installed bwsh.  Built on tests/integration/lib.sh (the bwsh_it
# fixture, the user, it_check/it_fail/it_assert_*); source it from bash, as root.
#
# The machine's own sshd, /etc/pam.d and /etc/shells are never touched: each
# sshd runs in a private mount namespace (unshare -m) in which
#   - a copy of /etc/pam.d, with pam_bwsh.so in the sshd, su, su-l, cron and
#     atd account and session stacks (policy=$SSH_POLICY), is bind-mounted
#     on /etc/pam.d;
#   - /run is an overlay whose upper layer is in the test's scratch dir, when
#     the host has no /run/sshd (sshd's privilege separation directory);
#   - /etc/shells is a copy (ssh_ns_shells FILE picks it).
# Every process a session starts inherits that namespace.
#
# API (after it_setup; ssh_prepare does both)
#   ssh_prepare            it_setup, skip check, client key, authorized_keys,
#                          the PAM copy and the policy naming the user a subject
#   ssh_start NAME [snippet|nosnippet] [EXTRA-CONFIG-LINE...]
#                          start sshd NAME; sets SSH_CFG (client config with
#                          Host t), SSHD_PORT, SSHD_PID, SSHD_LOG.  With
#                          "snippet" (the default) the shipped
#                          conf/sshd_config.d/bwsh.conf is Include'd, its
#                          "Match Group bwsh" pointed at the user's own group.
#                          SSH_TAIL=(LINE...) is appended last (Match blocks).
#   ssh_stop               stop the current sshd and every process of its
#                          namespace; ssh_start's instances also stop at exit
#   ssh_run ARG...         ssh -F $SSH_CFG ARG... (stdin /dev/null, 60 s);
#                          sets IT_RC, IT_OUT, IT_ERR like it_run
#   ssh_in_ns CMD...       CMD... in the current sshd's mount namespace, as root
#   ssh_mark               start a confinement window (a timestamp marker)
#   ssh_assert_confined    since ssh_mark, on the host: nothing in $HOME
#                          changed outside the project dir, the editable
#                          overlay's ~/.config/bwsh and the kept state
#                          ~/.local/state/bwsh (and the directories on the
#                          way to it), no name of the home appeared (but
#                          .local) or went, and no file owned
#                          by the user appeared in /tmp, /var/tmp, /dev/shm,
#                          /run/lock, /var/spool or /var/mail
#   ssh_assert_no_user_processes   no process of the user is left (waits 5 s)

# shellcheck disable=SC1091,SC2034
. "$BWSH_SOURCE_DIR/tests/integration/lib.sh"

SSHD_PIDS=()
SSHD_PID=
SSHD_PORT=
SSHD_LOG=
SSH_CFG=
SSH_POLICY=
SSH_PAM_MODULE=
SSH_NS_SHELLS=
SSH_SNIPPET=$BWSH_SOURCE_DIR/conf/sshd_config.d/bwsh.conf
SSH_SFTP_SERVER=/usr/lib/openssh/sftp-server
SSH_TAIL=()   # lines appended last to the next ssh_start's sshd_config (Match blocks)
SSH_NS_ENTER=() # a command prefix that enters the namespace sshd starts below (tests/audit: journald's)

ssh_log() { printf 'ssh: %s\n' "$*" >&2; }

ssh_cleanup_sshds()
{
  local p
  for p in "${SSHD_PIDS[@]}"; do ssh_kill_namespace "$p"; done
  SSHD_PIDS=()
}

# Kill sshd PID and every process in its mount namespace, by pid.
ssh_kill_namespace()
{
  local pid=$1 ns p
  ns=$(readlink "/proc/$pid/ns/mnt" 2>/dev/null) || return 0
  # sshd runs in a namespace of its own: a pid that ended and now names a
  # process of this namespace or of init's (another test's) is not ours.
  [ "$ns" != "$(readlink /proc/self/ns/mnt)" ] && [ "$ns" != "$(readlink /proc/1/ns/mnt)" ] || return 0
  # A namespace's number is reused once it is freed: a test beside this one
  # that unshares its mount namespace at that moment gets it, and was killed
  # here (pam tests, 0.1 s after they started, in a Debian 13 root).  sshd,
  # stopped, holds the namespace while its other processes are ended; it
  # goes last.
  kill -STOP "$pid" 2>/dev/null
  for _ in 1 2 3; do
    for p in /proc/[0-9]*; do
      if [ "${p#/proc/}" != "$pid" ] && [ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$ns" ]; then
        kill -KILL "${p#/proc/}" 2>/dev/null
      fi
    done
  done
  kill -KILL "$pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
}

ssh_prepare()
{
  it_setup
  it_skip_unless_bwrap
  it_defer ssh_cleanup_sshds
  command -v /usr/sbin/sshd >/dev/null || { it_fail "/usr/sbin/sshd is missing (openssh-server)"; exit 1; }
  [ -x "$SSH_SFTP_SERVER" ] || { it_fail "$SSH_SFTP_SERVER is missing"; exit 1; }

  # The module installed with this bwsh: its require_shell compares the
  # passwd shell with this very prefix's bin/bwsh.
  SSH_PAM_MODULE=$(find "$IT_PREFIX" -name pam_bwsh.so -print -quit 2>/dev/null)
  [ -n "$SSH_PAM_MODULE" ] || { it_fail "no pam_bwsh.so under $IT_PREFIX"; exit 1; }

  ssh-keygen -q -t ed25519 -N '' -C bwsh-test-client -f "$IT_TMP/client_key" || exit 1
  mkdir -m 700 "$IT_HOME/.ssh"
  cp "$IT_TMP/client_key.pub" "$IT_HOME/.ssh/authorized_keys"
  chmod 600 "$IT_HOME/.ssh/authorized_keys"
  chown -R "$IT_USER:" "$IT_HOME/.ssh"
  mkdir -m 700 "$IT_HOME/project"
  chown "$IT_USER:" "$IT_HOME/project"
  # What the first login makes for the editable overlay (user_config_mode).
  it_as_user mkdir -p "$IT_HOME/.config/bwsh"
  IT_GROUP=$(id -gn "$IT_USER")

  SSH_POLICY=$IT_TMP/policy.conf
  cat >"$SSH_POLICY" <<EOF
subjects = { users = [ "$IT_USER" ]; };
EOF
  chmod 644 "$SSH_POLICY"

  cp -a /etc/pam.d "$IT_TMP/pam.d"
  local svc
  for svc in sshd su su-l cron atd; do
    [ -f "$IT_TMP/pam.d/$svc" ] || continue
    # As conf/pam.d/bwsh-session says: the account line decides where sshd
    # still sends the reason to the client; the session line decides again.
    # The account line goes before the service's first account line, as
    # bwsh's pam-auth-update profile puts it before what other profiles add:
    # on a host with libpam-sss's profile, common-account's "sufficient
    # pam_localuser.so" ends the stack for the local test user (#38).
    awk -v line="account required $SSH_PAM_MODULE policy=$SSH_POLICY" '
      !done && ($1 == "account" || ($1 == "@include" && $2 == "common-account")) { print line; done = 1 }
      { print }
      END { if (!done) print line }' "$IT_TMP/pam.d/$svc" >"$IT_TMP/pam.d/$svc.new" \
      && mv "$IT_TMP/pam.d/$svc.new" "$IT_TMP/pam.d/$svc" || exit 1
    printf 'session required %s policy=%s\n' "$SSH_PAM_MODULE" "$SSH_POLICY" >>"$IT_TMP/pam.d/$svc"
  done
  cp /etc/shells "$IT_TMP/shells"
  SSH_NS_SHELLS=$IT_TMP/shells
}

ssh_free_port()
{
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

ssh_start()
{
  local name=$1 mode=${2:-snippet} dir port try line
  shift 2 2>/dev/null || shift $#
  dir=$IT_TMP/sshd-$name
  mkdir -p "$dir/run-up" "$dir/run-work"
  ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key" || exit 1
  if [ "$mode" = snippet ]; then
    # The shipped snippet, verbatim but for the group it matches.
    sed "s/^Match Group bwsh\$/Match Group $IT_GROUP/" "$SSH_SNIPPET" >"$dir/bwsh.conf"
    [ "$(grep -c "^Match Group $IT_GROUP\$" "$dir/bwsh.conf")" = 1 ] \
      || { it_fail "the shipped snippet has no single 'Match Group bwsh' line"; exit 1; }
  fi
  for try in 1 2 3 4 5; do
    port=$(ssh_free_port)
    {
      printf 'Port %s\nListenAddress 127.0.0.1\nHostKey %s\nPidFile %s\n' "$port" "$dir/host_key" "$dir/sshd.pid"
      printf 'UsePAM yes\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n'
      printf 'PubkeyAuthentication yes\nAuthorizedKeysFile .ssh/authorized_keys\nStrictModes yes\n'
      printf 'PermitRootLogin no\nAllowUsers %s\nLogLevel VERBOSE\nMaxStartups 200\nMaxSessions 100\n' "$IT_USER"
      printf 'AcceptEnv LANG LC_* BWSH_TEST_*\n'
      # OpenSSH 9.8 and later (Debian 13) penalise a source address whose
      # connections end without a session (PerSourcePenalties, on by
      # default) and then reset its next connections: every client here
      # is 127.0.0.1, and the tests refuse sessions on purpose.
      if grep -qa persourcepenalties /usr/sbin/sshd; then printf 'PerSourcePenalties no\n'; fi
      for line in "$@"; do printf '%s\n' "$line"; done
      grep -qi '^Subsystem' <<<"$*" || printf 'Subsystem sftp %s\n' "$SSH_SFTP_SERVER"
      # Debian's order: the drop-ins first, then the server's own settings,
      # permissive ones included, to show the Match block still wins.
      if [ "$mode" = snippet ]; then
        printf 'X11Forwarding yes\nAllowTcpForwarding yes\nAllowAgentForwarding yes\nPermitUserRC yes\n'
      fi
      for line in "${SSH_TAIL[@]}"; do printf '%s\n' "$line"; done
    } >"$dir/sshd_config.main"
    if [ "$mode" = snippet ]; then
      { printf 'Include %s\n' "$dir/bwsh.conf"; cat "$dir/sshd_config.main"; } >"$dir/sshd_config"
    else
      cp "$dir/sshd_config.main" "$dir/sshd_config"
    fi
    SSHD_LOG=$dir/sshd.log
    : >"$SSHD_LOG"
    # shellcheck disable=SC2016
    "${SSH_NS_ENTER[@]}" unshare -m --propagation private -- /bin/sh -c '
      set -e
      dir=$1 shells=$2 pamd=$3
      if [ ! -d /run/sshd ]; then
        mount -t overlay overlay -o "lowerdir=/run,upperdir=$dir/run-up,workdir=$dir/run-work" /run
        mkdir -m 0755 /run/sshd
      fi
      mount --bind "$pamd" /etc/pam.d
      mount --bind "$shells" /etc/shells
      exec /usr/sbin/sshd -D -e -f "$dir/sshd_config"' sh "$dir" "$SSH_NS_SHELLS" "$IT_TMP/pam.d" \
      </dev/null 2>>"$SSHD_LOG" &
    SSHD_PID=$!
    SSHD_PIDS+=("$SSHD_PID")
    for _ in $(seq 100); do
      grep -q "Server listening on 127.0.0.1 port $port" "$SSHD_LOG" && break
      kill -0 "$SSHD_PID" 2>/dev/null || break
      sleep 0.05
    done
    if grep -q "Server listening on 127.0.0.1 port $port" "$SSHD_LOG"; then
      break
    fi
    kill "$SSHD_PID" 2>/dev/null
    wait "$SSHD_PID" 2>/dev/null
    grep -q "Address already in use" "$SSHD_LOG" || { cat "$SSHD_LOG" >&2; it_fail "sshd $name did not start"; exit 1; }
  done
  SSHD_PORT=$port
  SSH_CFG=$dir/ssh_config
  cat >"$SSH_CFG" <<EOF
Host t
  HostName 127.0.0.1
  Port $port
  User $IT_USER
  IdentityFile $IT_TMP/client_key
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile $IT_TMP/known_hosts
  GlobalKnownHostsFile /dev/null
  BatchMode yes
  ConnectTimeout 10
  LogLevel ERROR
EOF
  ssh_log "sshd $name on 127.0.0.1:$port (pid $SSHD_PID, $mode)"
}

ssh_stop()
{
  [ -n "$SSHD_PID" ] && ssh_kill_namespace "$SSHD_PID"
  wait "$SSHD_PID" 2>/dev/null
  SSHD_PID=
}

ssh_run()
{
  IT_RC=0
  timeout -k 5 60 ssh -F "$SSH_CFG" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

# ssh_hold NAME [SECONDS]: one ssh session of IT_USER that lasts SECONDS
# (60 by default) or until it is killed; its pid in SSH_HOLD_PID, its output
# in $IT_TMP/hold.NAME.{out,err}.  Returns once the sandboxed shell printed,
# so the session is registered and live; fails the test when it did not
# start within 90 s (a login on a loaded 2-CPU root takes seconds, not ten).
ssh_hold()
{
  local name=$1 secs=${2:-60}
  timeout -k 5 $((secs + 120)) ssh -F "$SSH_CFG" t "echo started; exec sleep $secs" </dev/null \
    >"$IT_TMP/hold.$name.out" 2>"$IT_TMP/hold.$name.err" &
  SSH_HOLD_PID=$!
  it_defer kill "$SSH_HOLD_PID"
  for _ in $(seq 900); do
    grep -q started "$IT_TMP/hold.$name.out" && return 0
    kill -0 "$SSH_HOLD_PID" 2>/dev/null || break
    sleep 0.1
  done
  it_fail "the held session $name did not start: $(cat "$IT_TMP/hold.$name.err")"
  return 1
}

# ssh_lkg_key: the name of $SSH_POLICY's last good copy (core/session/lkg.h).
# ssh_lkg_remove: forget that copy, so that a policy that cannot be used
# decides by its error alone.
ssh_lkg_key()
{
  python3 -c 'import hashlib, sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest()[:16])' "$SSH_POLICY"
}
ssh_lkg_remove()
{
  local key
  key=$(ssh_lkg_key)
  rm -rf "${IT_PREFIX:?}/var/lib/bwsh/last-good/$key" "${IT_PREFIX:?}/var/lib/bwsh/last-good/$key".*
}

ssh_in_ns()
{
  nsenter -t "$SSHD_PID" -m -- "$@"
}

ssh_mark()
{
  touch "$IT_TMP/mark"
  find "$IT_HOME" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort >"$IT_TMP/mark.names"
  sleep 0.02
}

ssh_assert_confined()
{
  local found state=$IT_HOME/.local/state/bwsh
  # The overlay's directory is writable inside by design (user_config_mode),
  # and the kept state (the shipped state_dir) is the session's.  Making
  # that state changes the directories on the way to it (their mtime; a new
  # ~/.local): no other name may appear in the home, none may go.
  found=$(find "$IT_HOME" -path "$IT_HOME/project" -prune -o -path "$IT_HOME/.config/bwsh" -prune \
    -o -path "$state" -prune \
    -o -newer "$IT_TMP/mark" ! \( -type d \( -path "$IT_HOME" -o -path "$IT_HOME/.local" -o -path "$IT_HOME/.local/state" \) \) \
    -print 2>/dev/null)
  [ -z "$found" ] || it_fail "written outside the project dir and the kept state, in the home: $found"
  if [ -f "$IT_TMP/mark.names" ]; then
    found=$(find "$IT_HOME" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort | diff "$IT_TMP/mark.names" - \
      | grep '^[<>]' | grep -vxF '> .local')
    [ -z "$found" ] || it_fail "names of the real home changed: $found"
  fi
  # Every test build's PREFIX/run is that build's /run, where bwsh keeps its
  # session registry, as the user for a session it registers itself: a
  # stale entry there may belong to an earlier test's user with this uid.
  found=$(find /tmp /var/tmp /dev/shm /run/lock /var/spool /var/mail -xdev \
    -path "$IT_ROOT" -prune -o -path "$IT_TMP" -prune -o -path '/tmp/bwsh-it.*/prefix/run' -prune \
    -o -user "$IT_UID" -print 2>/dev/null)
  [ -z "$found" ] || it_fail "files of $IT_USER on the host outside its home: $found"
}

ssh_assert_no_user_processes()
{
  local left
  for _ in $(seq 50); do
    left=$(pgrep -U "$IT_UID" -a 2>/dev/null) || return 0
    sleep 0.1
  done
  it_fail "processes of $IT_USER left behind: $left"
}

# The real sandbox, seen from inside: pid 1 is bwrap in the session's own
# pid namespace, not the host's init.
SSH_PROBE='cat /proc/1/comm'
