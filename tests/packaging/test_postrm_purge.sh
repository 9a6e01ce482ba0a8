#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# postrm purge (#25 item 10): /var/lib/bwsh goes whole (a stale lock must not
# survive a purge and reinstall); the administrator's drop-ins in
# /etc/bwsh/conf.d stay unless BWSH_PURGE_CONF_D=yes; bwsh-enforce.timer's
# enablement goes (#39).  Run as root in a
# private mount namespace with tmpfs over /var/lib and /etc, so the
# machine's own files are never touched (nothing is made on the host).
set -eu
postrm=$1
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
# shellcheck disable=SC2016 # expanded by the inner sh
exec unshare -m --propagation private -- sh -eu -c '
postrm=$1
fail() { echo "FAIL: $*"; exit 1; }
mount -t tmpfs tmpfs /var/lib
mount -t tmpfs tmpfs /etc
setup() {
  mkdir -p /var/lib/bwsh/locks /etc/bwsh/conf.d /etc/systemd/system/timers.target.wants
  echo "reason" >/var/lib/bwsh/locks/user:alice
  echo "max_sessions = 3;" >/etc/bwsh/conf.d/50-site.conf
  # What `systemctl enable bwsh-enforce.timer` makes (the README, #39).
  ln -sf /usr/lib/systemd/system/bwsh-enforce.timer /etc/systemd/system/timers.target.wants/bwsh-enforce.timer
}
setup
sh "$postrm" purge 2>/tmp/postrm.err.$$ || fail "postrm purge failed"
[ ! -e /var/lib/bwsh ] || fail "/var/lib/bwsh survived the purge"
[ ! -L /etc/systemd/system/timers.target.wants/bwsh-enforce.timer ] || fail "the timer is still enabled after the purge"
[ -f /etc/bwsh/conf.d/50-site.conf ] || fail "the drop-in was removed without being asked"
grep -q "kept the drop-ins in /etc/bwsh/conf.d" /tmp/postrm.err.$$ || fail "no note about the kept drop-ins"
rm -f /tmp/postrm.err.$$
setup
BWSH_PURGE_CONF_D=yes sh "$postrm" purge 2>/dev/null || fail "postrm purge failed"
[ ! -e /etc/bwsh/conf.d ] || fail "BWSH_PURGE_CONF_D=yes kept the drop-ins"
[ ! -e /var/lib/bwsh ] || fail "/var/lib/bwsh survived the purge"
setup
sh "$postrm" remove 2>/dev/null || fail "postrm remove failed"
[ -f /var/lib/bwsh/locks/user:alice ] || fail "remove (not purge) deleted the locks"
[ -L /etc/systemd/system/timers.target.wants/bwsh-enforce.timer ] || fail "remove (not purge) disabled the timer"
echo "ok: purge removes /var/lib/bwsh and keeps the drop-ins unless asked"
' sh "$postrm"
