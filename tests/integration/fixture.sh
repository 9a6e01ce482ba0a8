#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bwsh_it CTest fixture: build and install bwsh once per ctest run.
#   fixture.sh setup    make $IT_STATE (a shell file: IT_ROOT IT_PREFIX IT_BWSH)
#   fixture.sh cleanup  remove what setup made, and any user a test left behind
# BWSH_IT_PREFIX, when set, names an installed bwsh to test instead of a build.
set -u
: "${IT_STATE:?IT_STATE must name the fixture state file}"
. "$(dirname "$0")/lib.sh"

cleanup_state()
{
  [ -f "$IT_STATE" ] || return 0
  (
    # shellcheck disable=SC2030 # the old state's IT_ROOT must stay in this subshell
    IT_ROOT=
    # shellcheck disable=SC1090
    . "$IT_STATE"
    case ${IT_ROOT:-} in /tmp/bwsh-it.*) ;; *) exit 0 ;; esac
    if [ -f "$IT_ROOT/users" ]; then
      while read -r u; do
        case $u in bwit-*) it_remove_user "$u" ;; esac
      done <"$IT_ROOT/users"
    fi
    rm -rf "$IT_ROOT"
  )
  rm -f "$IT_STATE"
}

case ${1:-} in
  setup)
    [ "$(id -u)" = 0 ] || { it_log "integration tests run as root (they create users)"; exit 1; }
    # A run that was interrupted may have left its tree: clear it first.
    cleanup_state
    it_new_root || exit 1
    # shellcheck disable=SC2031 # it_new_root sets IT_ROOT, not cleanup_state's subshell
    if ! it_build_tree "$IT_ROOT"; then
      rm -rf "$IT_ROOT"
      exit 1
    fi
    # The suite's administrator lets users bind read-write anywhere in their
    # home and read-only anywhere the refused places allow (the ceilings bwsh
    # had before issue 24): these tests are about what such binds
    # do.  The default allow-list (the project, and the user's own home
    # read-only) is the overlay suite's to prove (tests/overlay/test_boundary*).
    mkdir -p "$IT_PREFIX/etc/bwsh/conf.d"
    printf '%s\n' '# tests/integration/fixture.sh: the suite'"'"'s premise' \
      'rw_ceilings = [ "~" ];' 'ro_ceilings = [ "/" ];' >"$IT_PREFIX/etc/bwsh/conf.d/50-it-ceilings.conf"
    chmod 0644 "$IT_PREFIX/etc/bwsh/conf.d/50-it-ceilings.conf"
    # The premise (lib.sh, it_tun_premise): can the default network start
    # for a user here?  Asked once, of the installed doctor, which starts it
    # as nobody the way a login does.
    tun_private=0
    premise=$("$IT_PREFIX/bin/bwshctl" doctor 2>&1 | grep -A1 '^error: network: private cannot start')
    if [ -n "$premise" ]; then
      it_log "PREMISE: the default network cannot start for a user on this host:"
      printf 'it:   %s\n' "$premise" >&2
      if grep -q '/dev/net/tun is' <<<"$premise"; then
        tun_private=1
        it_log "PREMISE: so every session test runs with a /dev/net/tun of mode 0666 in a private mount namespace of its own (the host's node is left as it is)"
      fi
    fi
    # shellcheck disable=SC2031 # it_new_root sets IT_ROOT, not cleanup_state's subshell
    printf 'IT_ROOT=%q\nIT_PREFIX=%q\nIT_BWSH=%q\nIT_TUN_PRIVATE=%q\n' "$IT_ROOT" "$IT_PREFIX" "$IT_BWSH" \
      "$tun_private" >"$IT_STATE.new"
    mv "$IT_STATE.new" "$IT_STATE"
    it_log "installed $IT_BWSH (policy ${IT_PREFIX}/etc/bwsh/bwsh.conf)"
    ;;
  cleanup)
    cleanup_state
    ;;
  *)
    echo "usage: $0 setup|cleanup" >&2
    exit 2
    ;;
esac
