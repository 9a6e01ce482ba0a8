#!/bin/sh
# Run by tests/fresh/run.sh as root (pid 1 of a private pid namespace) inside
# a freshly bootstrapped Debian root after pivot_root.  FRESH_TRY and
# FRESH_TEST are README.md's two commands, run here as written.
set -eu
: "${FRESH_COMMIT:?}" "${FRESH_TRY:?}" "${FRESH_TEST:?}" "${FRESH_SUITE:?}" "${FRESH_FUZZ_SECONDS:?}"

say () { printf '\n=== fresh %s: %s\n' "$FRESH_SUITE" "$*"; }
fail () { echo "FAIL (fresh $FRESH_SUITE): $*" >&2; exit 1; }
# The sandbox proof: outside and inside, the pid and user namespaces, and
# where a write to $HOME lands.  Inside, $HOME takes writes (the session's
# state is a tmpfs under the real home's entries, bwsh(1)), so the proof is
# that the file never reaches the real home, and that /usr stays read-only.
# shellcheck disable=SC2016 # expanded in the session
probe='echo "pid1=$(cat /proc/1/comm) pidns=$(readlink /proc/self/ns/pid) userns=$(readlink /proc/self/ns/user)"; touch "$HOME/.fresh-probe" 2>/dev/null && test -e "$HOME/.fresh-probe" && echo home=state; if touch /usr/.fresh-probe 2>/dev/null; then echo usr=writable; else echo usr=read-only; fi'

# check_confined OUTPUT_FILE HOME: the -c probe ran in other pid and user
# namespaces than this script, its write to $HOME stayed inside, and /usr
# was read-only.
check_confined () {
  out=$1 home=$2
  cat "$out"
  line=$(grep '^pid1=' "$out" | tail -n 1)
  [ -n "$line" ] || fail "the first command printed no probe line: no shell ran"
  outside_pid=$(readlink /proc/self/ns/pid)
  outside_user=$(readlink /proc/self/ns/user)
  case $line in *"pidns=$outside_pid"*) fail "the shell ran in this pid namespace: not sandboxed" ;; esac
  case $line in *"userns=$outside_user"*) fail "the shell ran in this user namespace: not sandboxed" ;; esac
  grep -qx 'home=state' "$out" || fail "the shell could not write its state under \$HOME"
  [ ! -e "$home/.fresh-probe" ] || fail "$home/.fresh-probe exists: the shell wrote to the real home"
  grep -qx 'usr=read-only' "$out" || fail "the shell could write to /usr: not sandboxed"
  [ ! -e /usr/.fresh-probe ] || fail "/usr/.fresh-probe exists: the shell wrote to the host's /usr"
  echo "confined: $line, the real \$HOME and /usr untouched"
}

say "$(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
say "clone $FRESH_COMMIT into /root/bwsh"
cd /root
git -c init.defaultBranch=fresh clone -q --no-checkout /fresh/bwsh.bundle /root/bwsh
git -C /root/bwsh checkout -q "$FRESH_COMMIT"

user=fresh$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
useradd -m -s /bin/sh "$user"
uhome=$(getent passwd "$user" | cut -d: -f6)
su -s /bin/sh -c "git -c init.defaultBranch=fresh clone -q --no-checkout /fresh/bwsh.bundle bwsh && git -C bwsh checkout -q $FRESH_COMMIT" - "$user"

say "first command as $user before anything is installed: it must say what is missing"
set +e
su -s /bin/sh -c "cd bwsh && $FRESH_TRY -c 'echo should-not-run'" - "$user" >/tmp/u0 2>&1
rc=$?
set -e
cat /tmp/u0
# A failure here is reported at the end, so that the root runs still show
# what they would do.
late=""
[ $rc != 0 ] || late="$late; the first command as $user succeeded without its packages"
grep -q 'apt-get install' /tmp/u0 || late="$late; the first command as $user does not say how to install what is missing"
! grep -q 'sudo: not found' /tmp/u0 || late="$late; the first command as $user needs sudo"
! grep -q 'should-not-run' /tmp/u0 || late="$late; a shell ran although nothing was built"
[ -z "$late" ] || echo "FAIL (fresh $FRESH_SUITE, reported at the end)$late" >&2

say "first command as root: $FRESH_TRY -c PROBE"
t0=$(date +%s)
(cd /root/bwsh && sh -c "$FRESH_TRY -c '$probe'") >/tmp/r1 2>&1 || { cat /tmp/r1; fail "the first command failed as root"; }
check_confined /tmp/r1 /root
echo "first command as root: $(($(date +%s) - t0)) s"

say "first command as $user, now that root installed the packages"
su -s /bin/sh -c "cd bwsh && $FRESH_TRY -c '$probe'" - "$user" >/tmp/u1 2>&1 \
  || { cat /tmp/u1; fail "the first command failed as $user"; }
check_confined /tmp/u1 "$uhome"

say "second command as $user: it must say at once that it needs root"
set +e
su -s /bin/sh -c "cd bwsh && $FRESH_TEST" - "$user" >/tmp/u2 2>&1
rc=$?
set -e
cat /tmp/u2
# shellcheck disable=SC2015 # fails when either the status or the message is wrong
[ $rc != 0 ] && grep -q 'run it as root' /tmp/u2 || fail "the second command as $user does not say it needs root"
userdel -r "$user" 2>/dev/null || true

say "second command as root in /root/bwsh: $FRESH_TEST (BWSH_FRESH=0 CI=true BWSH_FUZZ_SECONDS=$FRESH_FUZZ_SECONDS)"
t0=$(date +%s)
cd /root/bwsh
BWSH_FRESH=0 CI=true BWSH_FUZZ_SECONDS=$FRESH_FUZZ_SECONDS sh -c "$FRESH_TEST" </dev/null \
  || fail "the second command failed"
echo "second command: $(($(date +%s) - t0)) s"
[ -z "$late" ] || fail "${late#; }"
say "passed"
