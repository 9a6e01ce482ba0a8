#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pam_bwsh's place in the stacks next to SSSD's profile (#38).  libpam-sss's
# pam-auth-update profile (Priority 128) adds "account sufficient
# pam_localuser.so" and pam_sss to common-account's Additional block; with
# bwsh's profile below it, pam_localuser ended the account stack for every
# local user before pam_bwsh, and a locked local subject was refused only at
# the session stage (after the motd, on stdout).
#
# In a private mount namespace with overlays over /etc, /usr and /var (this
# machine is never changed): libpam-sss's profile and pam_sss.so from its
# .deb (apt-get download, dpkg-deb -x: no maintainer script runs), the
# package's profile (packaging/debian/pam-configs/bwsh) verbatim and the
# build's pam_bwsh.so, then pam-auth-update as the two packages' postinsts
# and the README run it.  The generated common-account has pam_bwsh before
# pam_localuser and pam_sss, and pamtester's acct_mgmt refuses a locked local
# subject with the lock's reason, through sshd's own stack.  The control: the
# same with the profile's old Priority 0 puts pam_localuser first, and the
# account stage lets the locked subject through.
#
#   test_pam_profile_sss.sh SOURCE_DIR PAM_MODULE BWSHCTL BWSH BINDIR POLICY CACHE_DIR [-- CMD...]
#
# BINDIR and POLICY are the build's compiled-in bwsh directory and policy file.
#
# With "-- CMD...", CMD runs as root in that namespace once the checks pass,
# with the generated stacks in /etc/pam.d: the ssh and audit suites copy the
# host's /etc/pam.d, so `... -- ctest --test-dir build -R '^(ssh|audit)\.'`
# runs them on a host with SSSD's profile.
set -u
src=$1 module=$2 bwshctl=$3 bwsh=$4 bindir=$5 policy=$6 cache=$7
shift 7
[ "${1:-}" = -- ] && shift
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! command -v pamtester >/dev/null \
  || ! command -v pam-auth-update >/dev/null || ! command -v dpkg-deb >/dev/null; then
  [ "${CI:-}" = true ] && { echo "FAIL: CI runs as root with unshare, pamtester, dpkg-deb and pam-auth-update"; exit 1; }
  echo "SKIP: needs root, unshare, pamtester and a Debian host (dpkg-deb, pam-auth-update)"
  exit 77
fi
fail () { echo "FAIL: $*" >&2; exit 1; }
step () { echo "--- $*"; }

if [ -z "${BWSH_SSS_IN_NS:-}" ]; then
  # libpam-sss unpacked once per candidate version, in the build tree.
  mkdir -p "$cache"
  chmod 755 "$cache"
  uri=$(apt-get download --print-uris libpam-sss 2>/dev/null | awk '{ print $2 }')
  [ -n "$uri" ] || fail "apt knows no libpam-sss (run apt-get update)"
  if [ "$(cat "$cache/stamp" 2>/dev/null)" != "$uri" ] || [ ! -f "$cache/root/usr/share/pam-configs/sss" ]; then
    rm -rf "$cache/debs" "$cache/root" "$cache/stamp"
    mkdir -p "$cache/debs" && chmod 777 "$cache/debs"
    (cd "$cache/debs" && apt-get download -qq libpam-sss) || fail "apt-get download libpam-sss"
    dpkg-deb -x "$cache"/debs/libpam-sss_*.deb "$cache/root" || fail "dpkg-deb -x libpam-sss"
    rm -rf "$cache/debs"
    echo "$uri" >"$cache/stamp"
  fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  BWSH_SSS_IN_NS=$tmp unshare -m --propagation private -- bash "$0" "$src" "$module" "$bwshctl" "$bwsh" "$bindir" "$policy" "$cache" -- "$@"
  exit $?
fi

# ----------------------------------------------------- inside the namespace
tmp=$BWSH_SSS_IN_NS
. "$(dirname "$0")/overlay_lib.sh"
overlay_system "$tmp"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
pamdir=$(dpkg-query -L libpam-modules | sed -n "s#^\(.*/$multiarch/security\)/pam_unix\.so\$#\1#p")
[ -n "$pamdir" ] || fail "cannot find Debian's PAM directory"
sss=$(find "$cache/root" -name pam_sss.so -print -quit)
[ -n "$sss" ] || fail "no pam_sss.so in libpam-sss"
cp "$sss" "$pamdir/pam_sss.so"
cp "$cache/root/usr/share/pam-configs/sss" /usr/share/pam-configs/sss
cp "$module" "$pamdir/pam_bwsh.so"
if ! grep -qx 'Account-Type: Additional' /usr/share/pam-configs/sss \
  || ! grep -q 'sufficient[[:space:]]*pam_localuser.so' /usr/share/pam-configs/sss; then
  fail "libpam-sss's profile no longer adds pam_localuser to the Additional block: $(cat /usr/share/pam-configs/sss)"
fi

# pam_bwsh's registry and state: nothing of the host's /run.
mount -t tmpfs tmpfs /run || fail "tmpfs on /run"
# A local subject of the compiled-in policy (its directory this test's
# alone: no drop-in of the host's), its shell the compiled-in bwsh.
mkdir -p "$bindir" "$(dirname "$policy")"
mount -t tmpfs tmpfs "$(dirname "$policy")" || fail "tmpfs on $(dirname "$policy")"
cp "$bwsh" "$bindir/bwsh"
user=bwshsss$$
useradd -M -d "$tmp/home" -s "$bindir/bwsh" "$user" || fail "useradd"
mkdir -m 700 "$tmp/home" && chown "$user:" "$tmp/home"
printf 'subjects = { users = [ "%s" ]; };\n' "$user" >"$policy"
chmod 644 "$policy"
"$bwshctl" lock "$user" --reason "sss drill" >"$tmp/lock" 2>&1 || { cat "$tmp/lock"; fail "bwshctl lock"; }

# The account stage alone, through sshd's stack, as sshd runs it.
acct () { pamtester -v sshd "$user" acct_mgmt >"$tmp/pt" 2>&1; }
# pam-auth-update as the packages run it: libpam-sss's postinst, then the README.
enable () {
  rm -f /var/lib/pam/seen
  DEBIAN_FRONTEND=noninteractive pam-auth-update --package >/dev/null 2>&1 || fail "pam-auth-update --package"
  DEBIAN_FRONTEND=noninteractive pam-auth-update --enable bwsh >/dev/null 2>&1 || fail "pam-auth-update --enable bwsh"
}
# order FILE MODULE...: the line numbers of MODULE... in FILE.
order () {
  local f=$1 m
  shift
  for m in "$@"; do grep -n "^[^#].*[[:space:]]$m" "$f" | head -1 | cut -d: -f1; done | tr '\n' ' '
}

step "control: the profile's old Priority 0 puts pam_localuser first"
sed 's/^Priority: .*/Priority: 0/' "$src/packaging/debian/pam-configs/bwsh" >/usr/share/pam-configs/bwsh
enable
read -r b l s < <(order /etc/pam.d/common-account pam_bwsh.so pam_localuser.so pam_sss.so)
if [ -z "$b" ] || [ -z "$l" ] || [ -z "$s" ]; then fail "common-account lacks a line: $(cat /etc/pam.d/common-account)"; fi
[ "$l" -lt "$b" ] || fail "control: pam_localuser after pam_bwsh with Priority 0: $(cat /etc/pam.d/common-account)"
acct || { cat "$tmp/pt"; fail "control: the account stage refused the locked subject with pam_localuser first"; }
grep -q 'account management done' "$tmp/pt" || { cat "$tmp/pt"; fail "control: pamtester did not run acct_mgmt"; }

step "the package's profile: pam_bwsh first in common-account's Additional block"
cp "$src/packaging/debian/pam-configs/bwsh" /usr/share/pam-configs/bwsh
enable
read -r b l s < <(order /etc/pam.d/common-account pam_bwsh.so pam_localuser.so pam_sss.so)
if [ -z "$b" ] || [ "$b" -gt "$l" ] || [ "$b" -gt "$s" ]; then
  fail "pam_bwsh is not before pam_localuser and pam_sss: $(cat /etc/pam.d/common-account)"
fi
grep -E '^account[[:space:]]+required[[:space:]]+pam_bwsh\.so' /etc/pam.d/common-account >/dev/null \
  || fail "pam_bwsh's account line is not \"required\": $(cat /etc/pam.d/common-account)"
# Before it only the Primary block, whose jumps land on pam_permit.
awk -v b="$b" 'NR < b && /^account/ && !/pam_unix.so|pam_deny.so|pam_permit.so/ { bad = 1; print } END { exit bad }' \
  /etc/pam.d/common-account || fail "another module before pam_bwsh"
echo "common-session: $(grep -E '^session' /etc/pam.d/common-session | awk '{ print $NF }' | tr '\n' ' ')"
grep -q '^session[[:space:]].*pam_bwsh.so' /etc/pam.d/common-session || fail "no session line"
"$bwshctl" doctor --user "$user" >"$tmp/doctor" 2>&1
grep -F 'can end the account stack before pam_bwsh' "$tmp/doctor" && fail "doctor still warns about the order"

step "a locked local subject is refused at the account stage"
acct && { cat "$tmp/pt"; fail "the account stage let the locked subject through"; }
grep -qF "bwsh: sessions of $user are locked: sss drill" "$tmp/pt" || { cat "$tmp/pt"; fail "not the lock's message"; }
# The control of doctor's check: the old order again, written by hand.
cp /etc/pam.d/common-account "$tmp/common-account"
sed -i '/pam_bwsh.so/d' /etc/pam.d/common-account
printf 'account\trequired\tpam_bwsh.so\n' >>/etc/pam.d/common-account
"$bwshctl" doctor --user "$user" >"$tmp/doctor" 2>&1
if ! grep -qF "warning: pam: sshd: /etc/pam.d/common-account:" "$tmp/doctor" \
  || ! grep -qF "(sufficient pam_localuser.so) can end the account stack before pam_bwsh" "$tmp/doctor"; then
  cat "$tmp/doctor"
  fail "doctor does not name pam_localuser before pam_bwsh"
fi
cp "$tmp/common-account" /etc/pam.d/common-account
"$bwshctl" unlock "$user" >/dev/null 2>&1
userdel "$user" 2>/dev/null
rm -f "$policy"
echo "ok: pam_bwsh's account line comes before SSSD's pam_localuser; a locked local subject is refused at the account stage"

if [ $# -gt 0 ]; then
  step "in this namespace: $*"
  exec "$@"
fi
