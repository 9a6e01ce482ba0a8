# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Integration test harness: the installed bwsh, the real bwrap, a real
# unprivileged user whose login shell is bwsh.  Source it from bash, as root.
#
# The build.  One installed tree per ctest run, made by the CTest fixture
# (fixture.sh setup) and described by a state file named in $IT_STATE:
#   IT_ROOT    the tree, /tmp/bwsh-it.XXXXXX, mode 0755, root-owned
#   IT_PREFIX  install prefix ($BWSH_IT_PREFIX when set: an installed package)
#   IT_BWSH    $IT_PREFIX/bin/bwsh; its policy is $IT_PREFIX/etc/bwsh/bwsh.conf
# Without $IT_STATE (a script run by hand) it_setup builds a private tree
# from $BWSH_SOURCE_DIR and removes it on exit.
#
# API
#   it_setup               load (or build) the tree, create this test's user
#                          IT_USER (IT_UID, IT_GID, home IT_HOME, 0755, owned by it,
#                          login shell IT_BWSH) and a scratch dir IT_TMP; all
#                          of it goes away on exit
#   it_add_user VAR        create one more such user; its name goes in $VAR and
#                          its home in ${VAR}_HOME
#   it_defer CMD...        run CMD at exit (before the user is removed), LIFO
#   it_defer it_kill_child PID   at exit, end PID if it is still this shell's
#                          child (a pid that ended may be another test's by then)
#   it_data_dir VAR        a fresh root-owned 0755 directory for bind sources
#                          outside any home and outside /tmp (an overlay may
#                          not bind /tmp: it holds host sockets), under
#                          /srv; removed at exit; its path goes in $VAR
#   it_skip_unless_bwrap   exit 77 when bwrap cannot run at all as the user;
#                          with CI=true that is a failure (exit 1) instead
#   it_run CMD             the real login path: `su - IT_USER -c CMD` (su runs
#                          the login shell as "-bwsh -c CMD"), no tty, stdin
#                          /dev/null, 60 s timeout
#   it_bwsh ARG...         IT_BWSH ARG... run directly as the user with
#                          setpriv: the caller's environment and open fds are
#                          inherited unchanged (su would reset both)
#   it_as_user CMD...      CMD... as the user, outside any sandbox (setup, checks)
#   it_user_config JSON    write ~/.config/bwsh/config.json as the user (0644)
#   it_user_policy TEXT    TEXT as a drop-in of the policy's for this test's
#                          user alone (match), removed at exit: tests beside it
#                          keep the suite's policy
#   it_install_policy FILE install standard input as the policy FILE, root's and
#                          0644, by rename: a session never reads half of it
#   it_bwsh_paused ARG...  start IT_BWSH ARG... as the user in the background
#                          under strace, held for up to IT_PAUSE_US (default
#                          10 s) at its execve of bwrap, i.e. after validation
#                          and opening, before bwrap mounts anything; returns
#                          once it is held, with IT_PAUSED_PID (bwsh, still
#                          showing its fds in /proc) and IT_PAUSED_ARGS (the
#                          /proc path of its --args memfd).  Needs strace.
#   it_bwsh_resume         wait for it; sets IT_RC/IT_OUT/IT_ERR; the strace
#                          log of execve calls is $IT_TMP/strace
#     All three runners set IT_RC, IT_OUT (stdout) and IT_ERR (stderr); the
#     files are $IT_TMP/out and $IT_TMP/err.  it_run/it_bwsh print them on
#     failure of a later assertion.
#   it_check NAME          start a named check (printed; failures name it)
#   it_fail MSG            record a failure; the script exits 1 at the end
#   it_assert_rc N         IT_RC is N
#   it_assert_out_has S / it_assert_out_lacks S     fixed string in IT_OUT
#   it_assert_err_has S / it_assert_err_lacks S     fixed string in IT_ERR
#   it_assert_eq WANT GOT [WHAT]
#   it_assert_exists PATH / it_assert_absent PATH  on the host
#
# su and /etc/shells: as root, util-linux su accepts `-s SHELL` even when
# SHELL is not in /etc/shells (the check only applies to non-root callers),
# and `su USER -c CMD a b` passes "a b" on as $0 $1.  But su resets the
# environment and PAM may close fds, so tests of what the *caller* hands bwsh
# (variables, inherited fds) use it_bwsh, which is setpriv --reuid/--regid
# --init-groups: a plain exec with nothing reset.

set -u

: "${IT_STATE:=}"
# The script's own arguments, for it_setup's re-exec (below).
IT_ARGV=("$@")
# shellcheck disable=SC2034 # the API's variables are read by the test scripts
IT_FAILED=0
IT_CHECK="(setup)"
IT_DEFERRED=()
IT_USERS=()
IT_OWN_TREE=0
IT_TMP=
IT_RC=0
IT_OUT=
IT_ERR=

it_log() { printf 'it: %s\n' "$*" >&2; }

it_fail()
{
  IT_FAILED=1
  printf 'FAIL [%s]: %s\n' "$IT_CHECK" "$*" >&2
}

it_check()
{
  IT_CHECK=$1
  printf '== %s\n' "$1" >&2
}

it_defer() { IT_DEFERRED+=("$(printf '%q ' "$@")"); }

# A background job that ended early has given its pid back: by the time
# this test exits it may belong to a test running beside it (CI saw a PAM
# test killed in its first 40 ms that way).  Only this shell's own child is
# ended; a daemon that forked away is ended by uid (it_kill_user).
it_kill_child()
{
  local ppid
  ppid=$(ps -o ppid= -p "$1" 2>/dev/null | tr -d ' ')
  [ "$ppid" = "$$" ] && kill "$1" 2>/dev/null
  return 0
}

# --------------------------------------------------------------- the tree

# it_build_tree DIR: configure, build and install BWSH_SOURCE_DIR under DIR.
it_build_tree()
{
  local dir=$1
  : "${BWSH_SOURCE_DIR:?BWSH_SOURCE_DIR must name the source tree}"
  if [ -n "${BWSH_IT_PREFIX:-}" ]; then
    IT_PREFIX=$BWSH_IT_PREFIX
  else
    IT_PREFIX=$dir/prefix
    # shellcheck disable=SC2086 # BWSH_IT_CMAKE_ARGS is a list of cmake arguments
    if ! { cmake -S "$BWSH_SOURCE_DIR" -B "$dir/build" -DCMAKE_INSTALL_PREFIX="$IT_PREFIX" \
      -DBWSH_TEST_BUILD=ON -DBWSH_TESTS=OFF -DBWSH_RUNSTATEDIR="$IT_PREFIX/run" ${BWSH_IT_CMAKE_ARGS:-} \
      && cmake --build "$dir/build" -j"$(nproc)" \
      && cmake --install "$dir/build" \
      && systemd-tmpfiles --create "$IT_PREFIX/lib/tmpfiles.d/bwsh.conf"; } >"$dir/build.log" 2>&1; then
      tail -n 30 "$dir/build.log" >&2
      it_log "build of $BWSH_SOURCE_DIR failed"
      return 1
    fi
    # The registry and locks directories, as the package's tmpfiles.d makes
    # them at install (systemd-tmpfiles above, on this prefix's own paths).
    [ -d "$IT_PREFIX/run/bwsh/sessions/user" ] || { it_log "tmpfiles did not make the registry"; return 1; }
  fi
  IT_BWSH=$IT_PREFIX/bin/bwsh
  [ -x "$IT_BWSH" ] || { it_log "$IT_BWSH is missing"; return 1; }
  # The network helper bwsh spawns for network = "private" (#26).
  [ -x "$IT_PREFIX/libexec/bwsh/bwsh-netns" ] || { it_log "$IT_PREFIX/libexec/bwsh/bwsh-netns is missing"; return 1; }
  mkdir -p "$dir/home" && chmod 755 "$dir/home"
}

it_new_root()
{
  IT_ROOT=$(mktemp -d /tmp/bwsh-it.XXXXXX) || return 1
  chmod 755 "$IT_ROOT"
}

it_load_state()
{
  # shellcheck disable=SC1090
  . "$IT_STATE"
  if [ -z "${IT_ROOT:-}" ] || [ ! -d "$IT_ROOT" ] || [ ! -x "${IT_BWSH:-}" ]; then
    it_log "fixture state $IT_STATE is stale (is the bwsh_it fixture set up?)"
    return 1
  fi
}

# ---------------------------------------------------------------- users

it_random_name()
{
  local s
  s=$(tr -dc 'a-z0-9' </dev/urandom | head -c 8)
  printf 'bwit-%s' "$s"
}

# it_make_user NAME: user NAME with home $IT_ROOT/home/NAME and shell bwsh.
it_make_user()
{
  local name=$1 home=$IT_ROOT/home/$1 i
  for i in 1 2 3 4 5 6 7 8 9 10; do
    # useradd refuses while another test holds the passwd lock; retry.
    useradd -M -d "$home" -s "$IT_BWSH" "$name" 2>"$IT_TMP/useradd.err" && break
    sleep 0.3
  done
  id -u "$name" >/dev/null 2>&1 || { cat "$IT_TMP/useradd.err" >&2; it_log "useradd $name failed"; return 1; }
  IT_USERS+=("$name")
  printf '%s\n' "$name" >>"$IT_ROOT/users"
  mkdir -p "$home"
  chown "$name:" "$home"
  chmod 755 "$home"
}

# Pids of the processes of @uid that are not zombies (a zombie cannot be
# killed; PID 1 here reaps reparented ones a little later).
it_live_pids()
{
  ps -o pid= -o stat= -U "$1" 2>/dev/null | awk '$2 !~ /^Z/ { print $1 }'
}

# it_kill_user NAME: end the user's processes (by pid; waits 1 s at most).
# it_remove_user NAME: its processes, its home, then the account.
it_kill_user()
{
  local name=$1 uid pid
  uid=$(id -u "$name" 2>/dev/null) || return 0
  for pid in $(it_live_pids "$uid"); do kill -KILL "$pid" 2>/dev/null; done
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    [ -z "$(it_live_pids "$uid")" ] && break
    sleep 0.1
  done
}

it_remove_user()
{
  local name=$1
  id -u "$name" >/dev/null 2>&1 || return 0
  it_kill_user "$name"
  # The home goes before the account: once userdel frees the uid, a test
  # running beside this one may get it for its own user, and would find
  # this home (owned by that uid) among its user's files.
  [ -n "${IT_ROOT:-}" ] && rm -rf "${IT_ROOT:?}/home/$name"
  for _ in 1 2 3 4 5; do
    userdel "$name" 2>/dev/null && break
    id -u "$name" >/dev/null 2>&1 || break
    sleep 0.3
  done
}

it_data_dir()
{
  local dir
  dir=$(mktemp -d "${BWSH_IT_DATA_PARENT:-/srv}/bwsh-it-data.XXXXXX") || { it_log "cannot make a data dir"; exit 1; }
  chmod 0755 "$dir"
  it_defer rm -rf "$dir"
  printf -v "$1" '%s' "$dir"
}

it_add_user()
{
  local var=$1 name
  name=$(it_random_name)
  it_make_user "$name" || exit 1
  printf -v "$var" '%s' "$name"
  printf -v "${var}_HOME" '%s' "$IT_ROOT/home/$name"
}

# ---------------------------------------------------------------- lifecycle

it_cleanup()
{
  local rc=$? i u
  set +e
  for ((i = ${#IT_DEFERRED[@]} - 1; i >= 0; i--)); do
    eval "${IT_DEFERRED[$i]}" >/dev/null 2>&1
  done
  # The users' uids are freed last: a test running beside this one may get
  # one for its own user at once, and must not find this test's files (its
  # IT_TMP, the homes) owned by it.
  for u in "${IT_USERS[@]}"; do it_kill_user "$u"; done
  [ -n "$IT_TMP" ] && rm -rf "$IT_TMP"
  for u in "${IT_USERS[@]}"; do it_remove_user "$u"; done
  if [ "$IT_OWN_TREE" = 1 ] && [ -n "${IT_ROOT:-}" ]; then
    rm -rf "$IT_ROOT"
  fi
  if [ "$rc" = 0 ] && [ "$IT_FAILED" != 0 ]; then
    rc=1
  fi
  if [ "$rc" = 0 ]; then
    printf 'PASS: %s\n' "${0##*/}" >&2
  elif [ "$rc" != 77 ]; then
    printf 'FAILED: %s\n' "${0##*/}" >&2
  fi
  exit "$rc"
}

it_setup()
{
  [ "$(id -u)" = 0 ] || { it_log "integration tests run as root (they create a user)"; exit 1; }
  trap it_cleanup EXIT
  trap 'exit 130' INT TERM
  if [ -n "$IT_STATE" ] && [ -f "$IT_STATE" ]; then
    it_load_state || exit 1
    it_tun_premise
  else
    it_new_root || exit 1
    IT_OWN_TREE=1
    it_log "no fixture state; building a private tree in $IT_ROOT"
    it_build_tree "$IT_ROOT" || exit 1
  fi
  IT_TMP=$(mktemp -d /tmp/bwsh-it.XXXXXX) || exit 1
  chmod 755 "$IT_TMP"
  IT_USER=$(it_random_name)
  it_make_user "$IT_USER" || exit 1
  IT_HOME=$IT_ROOT/home/$IT_USER
  IT_UID=$(id -u "$IT_USER")
  IT_GID=$(id -g "$IT_USER")
  cd / || exit 1
}

# The premise of every session test: the default network (private) can
# start for a user.  On a host without udev /dev/net/tun is crw------- root
# and every session would be refused for that one reason (#27).  The
# fixture finds out once (fixture.sh, with the installed bwshctl doctor) and
# says so; each test then runs in a private mount namespace of its own with
# a tun node of mode 0666 on a tmpfs over /dev/net.  The host's node stays
# as it is, and nothing of it outlives the test.
# sh -c "$IT_TUN_SH" MODE CMD...: CMD with a tun node of MODE on a tmpfs
# over /dev/net, in the mount namespace it is given.
# shellcheck disable=SC2016 # expanded by that sh
IT_TUN_SH='mount -t tmpfs -o mode=0755 tmpfs /dev/net && mknod -m "$0" /dev/net/tun c 10 200 && exec "$@"'

it_tun_premise()
{
  [ "${IT_TUN_PRIVATE:-0}" = 1 ] && [ -z "${BWSH_IT_TUN_NS:-}" ] || return 0
  BWSH_IT_TUN_NS=1 exec unshare -m --propagation private -- sh -c "$IT_TUN_SH" 0666 bash "$0" "${IT_ARGV[@]}"
}

# it_in_tun MODE CMD...: CMD with a /dev/net/tun of MODE of its own, in a
# private mount namespace (the host's node is not touched).
it_in_tun()
{
  local mode=$1
  shift
  unshare -m --propagation private -- sh -c "$IT_TUN_SH" "$mode" "$@"
}

it_skip_unless_bwrap()
{
  if it_as_user /usr/bin/bwrap --ro-bind / / --unshare-user --unshare-pid --proc /proc true \
    && [ "$IT_RC" = 0 ]; then
    return 0
  fi
  if [ "${CI:-}" = true ]; then
    it_fail "bwrap cannot run as an unprivileged user here ($IT_ERR), and CI=true forbids skipping"
    exit 1
  fi
  it_log "SKIP: bwrap cannot run as an unprivileged user: $IT_ERR"
  exit 77
}

# ---------------------------------------------------------------- runners

it_collect()
{
  IT_OUT=$(<"$IT_TMP/out")
  IT_ERR=$(<"$IT_TMP/err")
}

it_run()
{
  IT_RC=0
  setsid -w timeout -k 5 60 su - "$IT_USER" -c "$1" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

it_bwsh()
{
  IT_RC=0
  timeout -k 5 60 setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups \
    "$IT_BWSH" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

it_as_user()
{
  IT_RC=0
  timeout -k 5 60 setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups \
    "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

# it_user_copy FILE: print the path of a world-readable copy of FILE in
# IT_TMP.  An unprivileged user must never run a script from the checkout
# itself: it may lie under a directory they cannot enter (/root/bwsh).
it_user_copy()
{
  mkdir -p "$IT_TMP/user-copies" && chmod 755 "$IT_TMP/user-copies" \
    && install -m 0644 "$1" "$IT_TMP/user-copies/" && printf '%s\n' "$IT_TMP/user-copies/${1##*/}"
}

it_bwsh_paused()
{
  local strace_pid c fd i
  command -v strace >/dev/null || { it_fail "strace is not installed"; exit 1; }
  : >"$IT_TMP/strace" && chown "$IT_USER:" "$IT_TMP/strace"
  # -f: with entries of the user's, bwsh runs bwrap as its child (a
  # guarded launch, shell/guard.c), and that child's execve is the one to
  # hold.  strace counts execve per process and not its own start-up exec
  # of bwsh, so when=1 is the exec of bwrap, in bwsh or in its child.
  # LeakSanitizer cannot run under ptrace and aborts at exit (the guarded
  # launch's bwsh exits; bwsh-netns too): no leak check in an ASan build here.
  # The hold is strace's delay, so what a test does while bwsh is held must
  # fit in it: 3 s did not, on two Debian roots' suites running side by side
  # (finding the held process took most of it).  A hold until released
  # (a SIGSTOP injected instead) stops bwrap after its exec, where the fds'
  # close-on-exec flags test_bwrap_gets_fds.sh reads are gone.
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups \
    strace -f -o "$IT_TMP/strace" -s 4096 -e trace=execve \
    -e inject=execve:delay_enter="${IT_PAUSE_US:-10000000}":when=1 \
    "$IT_BWSH" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" &
  strace_pid=$!
  IT_STRACE_PID=$strace_pid
  it_defer kill -KILL "$strace_pid"
  IT_PAUSED_PID='' IT_PAUSED_ARGS=''
  for ((i = 0; i < 500; i++)); do
    c=$(pgrep -P "$strace_pid" | head -n1)
    # The guarded launch's child, when there is one: the held execve is its.
    [ -z "$c" ] || c=$(pgrep -P "$c" | head -n1 | grep . || echo "$c")
    if [ -n "$c" ] && [ "$(readlink "/proc/$c/exe")" = "$IT_BWSH" ] \
      && grep -q '^State:.*t (tracing stop)' "/proc/$c/status" 2>/dev/null; then
      for fd in /proc/"$c"/fd/*; do
        case $(readlink "$fd") in "/memfd:bwsh-args"*) IT_PAUSED_ARGS=$fd ;; esac
      done
      if [ -n "$IT_PAUSED_ARGS" ]; then
        # shellcheck disable=SC2034 # read by the tests that call it_bwsh_paused
        IT_PAUSED_PID=$c
        return 0
      fi
    fi
    kill -0 "$strace_pid" 2>/dev/null || break
    sleep 0.01
  done
  it_fail "bwsh never reached its execve of bwrap under strace"
  wait "$strace_pid"
  it_collect
  it_show
  return 1
}

it_bwsh_resume()
{
  IT_RC=0
  wait "$IT_STRACE_PID" || IT_RC=$?
  it_collect
}

it_user_config()
{
  local json=$1
  it_as_user mkdir -p "$IT_HOME/.config/bwsh"
  printf '%s\n' "$json" >"$IT_TMP/config.json"
  chmod 644 "$IT_TMP/config.json"
  it_as_user cp "$IT_TMP/config.json" "$IT_HOME/.config/bwsh/config.json"
  [ "$IT_RC" = 0 ] || it_fail "cannot write the user config: $IT_ERR"
}

it_user_policy()
{
  local dropin=$IT_PREFIX/etc/bwsh/conf.d/60-user-$IT_USER.conf
  it_defer rm -f "$dropin"
  printf 'match = ( { user = "%s"; %s } );\n' "$IT_USER" "$1" | it_install_policy "$dropin"
}

it_install_policy()
{
  local new
  new=$(mktemp "$(dirname "$1")/.bwsh.conf.XXXXXX") || exit 1
  cat >"$new"
  if ! { chmod 0644 "$new" && chown root:root "$new" && mv -f "$new" "$1"; }; then
    rm -f "$new"
    it_fail "cannot install the policy $1"
    exit 1
  fi
}

# ---------------------------------------------------------------- assertions

it_show()
{
  printf '    rc=%s\n    stdout: %s\n    stderr: %s\n' "$IT_RC" "${IT_OUT//$'\n'/$'\n            '}" \
    "${IT_ERR//$'\n'/$'\n            '}" >&2
}

it_assert_rc()
{
  [ "$IT_RC" = "$1" ] || { it_fail "exit status $IT_RC, expected $1"; it_show; }
}

it_assert_out_has()
{
  case $IT_OUT in *"$1"*) ;; *) it_fail "stdout lacks '$1'"; it_show ;; esac
}

it_assert_out_lacks()
{
  case $IT_OUT in *"$1"*) it_fail "stdout contains '$1'"; it_show ;; esac
}

it_assert_err_has()
{
  case $IT_ERR in *"$1"*) ;; *) it_fail "stderr lacks '$1'"; it_show ;; esac
}

it_assert_err_lacks()
{
  case $IT_ERR in *"$1"*) it_fail "stderr contains '$1'"; it_show ;; esac
}

it_assert_eq()
{
  [ "$1" = "$2" ] || it_fail "${3:-value}: expected '$1', got '$2'"
}

it_assert_exists()
{
  [ -e "$1" ] || [ -L "$1" ] || it_fail "$1 does not exist on the host"
}

it_assert_absent()
{
  if [ -e "$1" ] || [ -L "$1" ]; then it_fail "$1 exists on the host"; fi
}

# Each FILE is absent or empty on the host: what a session wrote there
# went nowhere (bwrap leaves an empty mount point for a file placeholder).
it_assert_no_content()
{
  for f; do
    [ ! -s "$f" ] || it_fail "$f has content on the host"
  done
}
