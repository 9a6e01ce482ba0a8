# shellcheck shell=sh
# Shared by the pam_bwsh tests.  Sourced; the caller sets -eu.
#
# Every test runs as root (as sshd does) inside its own private mount
# namespace, so nothing it mounts is visible outside and nothing of the
# machine's own configuration changes:
#   /dev         an overlay whose upper layer is in $T: /dev/log there is our
#                syslog listener (this machine may have no syslog daemon);
#   BWSH_BINDIR  an overlay holding the freshly built bwsh, so that
#                require_shell can be met by the real binary;
#   /etc/pam.d   (su, pamtester) a bind of a temporary copy.
# The unprivileged users a test creates live in /etc/passwd (NSS must see
# them) and are removed on exit, whatever happened.
#
# Environment from CTest: BWSH_PAM_MODULE, BWSH_PAM_HARNESS, BWSH_BUILT_BWSH,
# BWSH_BINDIR.

fail ()
{
  echo "FAIL: $*" >&2
  exit 1
}

skip ()
{
  if [ "${CI:-}" = true ]; then
    echo "FAIL (a skip is a failure when CI=true): $*" >&2
    exit 1
  fi
  echo "SKIP: $*"
  exit 77
}

# Re-run the calling script in a private mount namespace.
enter_namespace ()
{
  if [ "${BWSH_PAM_IN_NS:-}" = 1 ]; then
    return 0
  fi
  [ "$(id -u)" = 0 ] || skip "the PAM tests run as root, like sshd"
  : "${BWSH_PAM_MODULE:?}" "${BWSH_PAM_HARNESS:?}" "${BWSH_BUILT_BWSH:?}" "${BWSH_BINDIR:?}"
  BWSH_PAM_IN_NS=1 exec unshare --mount --propagation private -- "$0" "$@"
}

T=
LISTENER_PID=
USERS_MADE=

cleanup ()
{
  set +e
  if [ -n "$LISTENER_PID" ]; then
    kill "$LISTENER_PID" 2>/dev/null
    wait "$LISTENER_PID" 2>/dev/null
  fi
  for u in $USERS_MADE; do
    userdel "$u" 2>/dev/null || echo "warning: could not remove user $u" >&2
  done
  # Our mounts die with the namespace; detach them first so that nothing
  # below $T is a mount when it is removed.
  umount -l /etc/pam.d 2>/dev/null
  umount -l "$BWSH_BINDIR" 2>/dev/null
  umount -l /dev 2>/dev/null
  umount -l /run 2>/dev/null
  if [ -n "$T" ]; then
    rm -rf --one-file-system "$T"
  fi
}

# Make $T, the fake /dev/log, the bwsh overlay, and start the listener.
setup ()
{
  [ "$(readlink /proc/self/ns/mnt)" != "$(readlink /proc/1/ns/mnt)" ] ||
    fail "refusing to mount over /dev outside a private mount namespace"
  T=$(mktemp -d /tmp/bwsh-pam.XXXXXX)
  trap cleanup EXIT
  trap 'exit 1' HUP INT TERM
  # The policy lives below $T: its directory chain must not be writable by
  # others (root-owned sticky /tmp is accepted).
  chmod 0755 "$T"
  mkdir -m 0755 "$T/etc" "$T/pam" "$T/home" "$T/dev-up" "$T/dev-work" "$T/bin-up" "$T/bin-work"

  # Submounts of /dev would be hidden by the overlay: move them across.
  for m in pts shm mqueue hugepages; do
    if mountpoint -q "/dev/$m"; then
      mkdir -p "$T/move-$m"
      mount --move "/dev/$m" "$T/move-$m"
    fi
  done
  # A tun node every user may open: these tests are about PAM, not about a
  # host whose /dev/net/tun is closed to users (tests/network has those).
  mkdir -p "$T/dev-up/net" && mknod -m 0666 "$T/dev-up/net/tun" c 10 200
  mount -t overlay overlay -o "lowerdir=/dev,upperdir=$T/dev-up,workdir=$T/dev-work" /dev
  for m in pts shm mqueue hugepages; do
    if [ -d "$T/move-$m" ]; then
      mount --move "$T/move-$m" "/dev/$m"
      rmdir "$T/move-$m"
    fi
  done

  # The network helper this build's bwsh starts (#26), where it looks for
  # it: an overlay on the nearest directory of that path that exists.
  if [ -n "${BWSH_LIBEXECDIR:-}" ] && [ -n "${BWSH_BUILT_NETNS:-}" ]; then
    # shellcheck disable=SC3043 # dash (Debian's /bin/sh) and bash have local
    local anc="$BWSH_LIBEXECDIR"
    while [ ! -d "$anc" ]; do anc=$(dirname "$anc"); done
    mkdir -p "$T/lx-up/${BWSH_LIBEXECDIR#"$anc"}" "$T/lx-work"
    install -m 0755 "$BWSH_BUILT_NETNS" "$T/lx-up/${BWSH_LIBEXECDIR#"$anc"}/bwsh-netns"
    mount -t overlay overlay -o "lowerdir=$anc,upperdir=$T/lx-up,workdir=$T/lx-work" "$anc"
  fi
  install -m 0755 "$BWSH_BUILT_BWSH" "$T/bin-up/bwsh"
  mount -t overlay overlay -o "lowerdir=$BWSH_BINDIR,upperdir=$T/bin-up,workdir=$T/bin-work" "$BWSH_BINDIR"

  # A private /run: the session registry (/run/bwsh) stays in the
  # namespace, and with no journal socket the audit goes to syslog, the
  # listener below, even on a host that runs journald.
  mount -t tmpfs -o mode=0755 tmpfs /run
  # The last good policy of this build's module: in the test's tree.
  export BWSH_TEST_LKG_DIR="$T/last-good"

  rm -f /dev/log
  python3 "$(dirname "$0")/syslog_listener.py" /dev/log "$T/syslog" &
  LISTENER_PID=$!
  for _ in $(seq 100); do
    [ -e "$T/syslog.ready" ] && break
    sleep 0.05
  done
  [ -e "$T/syslog.ready" ] || fail "the syslog listener did not start"
}

# make_user SHELL: create an unprivileged user with a home under $T; sets U.
make_user ()
{
  U=bwshpt$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
  # useradd takes a lock on /etc/passwd; parallel tests may hold it a moment.
  for _ in $(seq 50); do
    if useradd -M -d "$T/home/$U" -s "$1" "$U" 2>"$T/useradd.err"; then
      USERS_MADE="$USERS_MADE $U"
      mkdir -m 0755 "$T/home/$U"
      chown "$U:" "$T/home/$U"
      return 0
    fi
    sleep 0.2
  done
  fail "useradd: $(cat "$T/useradd.err")"
}

# write_policy TEXT: the policy at $T/etc/bwsh.conf, root-owned, 0644.
write_policy ()
{
  printf '%s\n' "$1" >"$T/etc/bwsh.conf"
  chmod 0644 "$T/etc/bwsh.conf"
}

# write_service NAME [OPTIONS...]: a one-module session stack in $T/pam.
write_service ()
{
  name=$1
  shift
  printf 'session required %s %s\n' "$BWSH_PAM_MODULE" "$*" >"$T/pam/$name"
}

# harness [ARGS...]: run the libpam harness, output in $T/out, status in $RC.
# shellcheck disable=SC2034 # the tests read RC
harness ()
{
  RC=0
  "$BWSH_PAM_HARNESS" "$@" >"$T/out" 2>&1 || RC=$?
  sed 's/^/  | /' "$T/out"
}

assert_out ()
{
  grep -qxF -- "$1" "$T/out" || fail "expected the line [$1] in the harness output"
}

assert_out_has ()
{
  grep -qF -- "$1" "$T/out" || fail "expected [$1] in the harness output"
}

assert_out_lacks ()
{
  ! grep -qF -- "$1" "$T/out" || fail "did not expect [$1] in the harness output"
}

# wait_log TEXT: the syslog capture contains TEXT (the listener is async).
wait_log ()
{
  for _ in $(seq 100); do
    grep -qF -- "$1" "$T/syslog" && return 0
    sleep 0.05
  done
  sed 's/^/  log| /' "$T/syslog" >&2
  fail "expected [$1] in the log"
}

log_lacks ()
{
  ! grep -qF -- "$1" "$T/syslog" || fail "did not expect [$1] in the log"
}

# plan_of: the BWSH_PLAN the last harness run exported ("" when none).
plan_of ()
{
  sed -n 's/^env: BWSH_PLAN=//p' "$T/out"
}
