# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# The user overlay in the user's own hands (issue 13): written from inside
# the sandbox, over the real login paths, against the real bwrap, sshd and
# dbus-daemon.  Built on tests/ssh/lib.sh and the policy suite's tree (the
# bwsh_pol fixture), whose compiled-in policy these tests rewrite.
#
# API (after ov_setup)
#   POL, POL_DIR, BWSHCTL, H    as in tests/policy/pol_lib.sh; H = IT_HOME
#   CFG                         the overlay's path, ~/.config/bwsh/config.json
#   ov_policy TEXT              install TEXT, plus a read-only bind of the
#                               policy's directory (in this test tree it lies
#                               under /tmp, which is a tmpfs inside; on a real
#                               host /etc/bwsh is visible anyway) so that
#                               bwshctl inside reads the same policy
#   ov_write_inside FILE        copy FILE to $CFG from inside a session, over ssh
#   ov_put_sftp FILE            the same over sftp (the external sftp-server,
#                               run by bwsh inside the sandbox)
#   ov_naive CMD                the control: CMD as the user under a naive
#                               wrapper, a few lines of shell that run bwrap
#                               with the overlay's paths as given; IT_RC/OUT/ERR
#     It reads three optional variables, for the layouts bwsh uses:
#     OV_NAIVE_HOME=DIR         bind DIR read-write at $H instead of the real
#                               home read-only (the persistent-state layout:
#                               the session's state is the home)
#     OV_NAIVE_EXTRA=(ARG...)   more bwrap arguments after the overlay's binds
#                               (a wrapper's own binds, e.g. the overlay's
#                               directory)
#     OV_NAIVE_MKDIR=1          make every destination on the host first, as
#                               the user (what a wrapper does so that bwrap can
#                               mount on a read-only home)

_ov_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../ssh/lib.sh
. "$_ov_dir/../ssh/lib.sh"
# pol_write, pol_restore and friends; its own it_setup is not called.
# shellcheck source=../policy/pol_lib.sh
. "$_ov_dir/../policy/pol_lib.sh"

ov_setup()
{
  ssh_prepare
  pol_init
  H=$IT_HOME
  CFG=$H/.config/bwsh/config.json
  # bwshctl inside runs from the installed tree, which lies under /tmp too.
  ov_policy ''
}

ov_policy()
{
  pol_write "ro_binds = [ \"$IT_PREFIX\" ];
$1"
}

# Send FILE's bytes through the session's stdin: they never pass a shell's
# quoting, so the test writes exactly what a user's editor would.
ov_write_inside()
{
  IT_RC=0
  # shellcheck disable=SC2016 # expanded in the session
  timeout -k 5 60 ssh -F "$SSH_CFG" t 'mkdir -p "$HOME/.config/bwsh" && cat >"$HOME/.config/bwsh/config.json"' \
    <"$1" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

ov_put_sftp()
{
  IT_RC=0
  # Absolute paths: sftp-server starts in the session's working directory.
  printf -- '-mkdir %s/.config\n-mkdir %s/.config/bwsh\nput %s %s\n' "$H" "$H" "$1" "$CFG" >"$IT_TMP/sftp.batch"
  timeout -k 5 60 sftp -F "$SSH_CFG" -b "$IT_TMP/sftp.batch" t >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

OV_NAIVE_HOME=
OV_NAIVE_EXTRA=()
# The bwrap on PATH, which bd_link_control asks for its version.
OV_BWRAP=$(command -v bwrap)
OV_NAIVE_MKDIR=0

ov_naive()
{
  local cmd=$1 line
  local -a binds=() home=(--ro-bind "$H" "$H")
  [ -z "$OV_NAIVE_HOME" ] || home=(--bind "$OV_NAIVE_HOME" "$H")
  # "ro SRC DST" / "rw SRC DST" per entry, exactly as the overlay says.
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    # shellcheck disable=SC2086 # split into ro|rw SRC DST, as a naive wrapper does
    set -- $line
    if [ "$1" = ro ]; then binds+=(--ro-bind "$2" "$3"); else binds+=(--bind "$2" "$3"); fi
    [ "$OV_NAIVE_MKDIR" != 1 ] || setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups mkdir -p -- "$3"
  done < <(python3 - "$CFG" <<'PY'
import json, sys
try:
    m = json.load(open(sys.argv[1]))
except FileNotFoundError:
    m = {}
m = m.get("preferences", {}).get("sandboxBwrapMounts", {})
for kind, key in (("rw", "additionalBinds"), ("ro", "additionalROBinds")):
    for e in m.get(key, []):
        s, d = (e, e) if isinstance(e, str) else (e["src"], e["dst"])
        print(kind, s, d)
PY
)
  IT_RC=0
  timeout -k 5 60 setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups \
    env -i HOME="$H" PATH=/usr/bin:/bin \
    "$OV_BWRAP" --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
    --symlink usr/sbin /sbin --ro-bind /etc /etc --proc /proc --dev /dev --tmpfs /tmp --tmpfs /run \
    "${home[@]}" "${binds[@]}" "${OV_NAIVE_EXTRA[@]}" --unshare-pid --die-with-parent -- /bin/sh -c "$cmd" \
    </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}
