# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the packaging tests that change a system for real in a private
# mount namespace.  overlay_system TMP: a tmpfs on TMP, and overlays over
# /etc, /usr and /var whose writes land there: the host's own files never
# change.  Another test's useradd on the host may hold a lock file, which
# the overlay copied: this namespace's /etc is its own, so they go.
overlay_system()
{
  local tmp=$1 d
  mount -t tmpfs tmpfs "$tmp" || fail "tmpfs on $tmp"
  for d in etc usr var; do
    mkdir "$tmp/$d-up" "$tmp/$d-work"
    mount -t overlay overlay -o "lowerdir=/$d,upperdir=$tmp/$d-up,workdir=$tmp/$d-work" "/$d" \
      || fail "cannot mount an overlay on /$d"
  done
  rm -f /etc/passwd.lock /etc/group.lock /etc/shadow.lock /etc/gshadow.lock /etc/subuid.lock /etc/subgid.lock
}
