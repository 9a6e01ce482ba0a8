#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian postinst warns at install time on a host whose /dev/net/tun a
# user cannot open (#27), and says nothing where it can.  The tun node is
# one of the test's own, in a private mount namespace.  It creates the
# group bwsh that the shipped sshd snippet matches.  The postinst runs
# with a PATH that holds only what it needs and a pam-auth-update that
# records its call, so it changes nothing on this machine.
#
#   test_postinst_tun.sh SOURCE_DIR
set -u
src=$1
if [ "$(id -u)" != 0 ] || [ ! -d /dev/net ] || ! command -v unshare >/dev/null; then
  echo "SKIP: needs root, /dev/net and unshare (a private mount namespace)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
for t in sh stat cat readlink echo; do ln -s "$(command -v "$t")" "$tmp/bin/$t"; done
printf '#!/bin/sh\necho "$@" >>"%s/pam-auth-update.calls"\n' "$tmp" >"$tmp/bin/pam-auth-update"
chmod 0755 "$tmp/bin/pam-auth-update"
# No group bwsh yet (getent's exit 2: not found); groupadd records its call.
printf '#!/bin/sh\nexit 2\n' >"$tmp/bin/getent"
printf '#!/bin/sh\necho "$@" >>"%s/groupadd.calls"\n' "$tmp" >"$tmp/bin/groupadd"
chmod 0755 "$tmp/bin/getent" "$tmp/bin/groupadd"
fail=0

# run MODE: the postinst's stderr with a tun node of MODE ("none": no node).
run()
{
  # shellcheck disable=SC2016,SC2069 # expanded by the inner sh; only its stderr is kept
  unshare -m --propagation private -- sh -c '
    mount -t tmpfs -o mode=0755 tmpfs /dev/net || exit 1
    [ "$1" = none ] || mknod -m "$1" /dev/net/tun c 10 200 || exit 1
    PATH=$2 exec sh "$3" configure' sh "$1" "$tmp/bin" "$src/packaging/debian/postinst" 2>&1 >/dev/null
}

out=$(run 0600)
grep -qxF 'bwsh: warning: /dev/net/tun is mode 0600, not open to every user: every session with network = "private" (the default) will be refused.' <<<"$out" \
  || { echo "FAIL: mode 0600: no warning naming the node and its mode: $out" >&2; fail=1; }
if ! grep -qF 'fix: chmod 0666 /dev/net/tun' <<<"$out" || ! grep -qF 'network = "none"' <<<"$out"; then
  echo "FAIL: mode 0600: the warning lacks a fix: $out" >&2
  fail=1
fi
out=$(run none)
grep -qF 'bwsh: warning: /dev/net/tun is missing' <<<"$out" || { echo "FAIL: no node: no warning: $out" >&2; fail=1; }
out=$(run 0666)
[ -z "$out" ] || { echo "FAIL: mode 0666: the postinst said: $out" >&2; fail=1; }
[ "$(grep -c -- --package "$tmp/pam-auth-update.calls" 2>/dev/null)" = 3 ] \
  || { echo "FAIL: the postinst did not run through (pam-auth-update --package not called 3 times)" >&2; fail=1; }
# The group the shipped sshd snippet matches (Match Group bwsh), made once
# per configure where it does not exist.
[ "$(grep -cx -- '--system bwsh' "$tmp/groupadd.calls" 2>/dev/null)" = 3 ] \
  || { echo "FAIL: the postinst did not create the group bwsh (groupadd --system bwsh)" >&2; fail=1; }
[ "$fail" = 0 ] && echo "ok: the postinst warns when /dev/net/tun is closed to users, and only then"
exit "$fail"
