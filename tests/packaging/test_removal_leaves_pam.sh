#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# No PAM line outlives the package (#38).  In a private mount namespace with
# overlays over /etc, /usr and /var (and a tmpfs on /run), so that this
# machine is never changed: install the .deb, run the README's enable block,
# apply every PAM fix `bwshctl doctor` prints exactly as printed, then purge.
# Afterwards every stack in /etc/pam.d loads (each module it names exists),
# none names pam_bwsh, and root and a user who never was a subject open
# sessions through sshd's, su's and runuser-l's stacks (pamtester).  On the
# way: a pam_bwsh line written by hand into runuser-l (what doctor used to
# ask for) stops the removal, which names the line and leaves the package
# installed; and the control run shows the check itself catches a stack
# that names a missing module.
#
#   test_removal_leaves_pam.sh SOURCE_DIR [DEB]
#
# Without DEB (or $BWSH_DEB) the .deb is built first, inside the namespace
# (packaging/build-deb.sh; minutes).  packaging/ci.sh passes its own.
set -u
src=$(cd "$1" && pwd)
deb=${2:-${BWSH_DEB:-}}
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! command -v pamtester >/dev/null \
  || ! command -v dpkg >/dev/null || ! command -v pam-auth-update >/dev/null; then
  [ "${CI:-}" = true ] && { echo "FAIL: CI runs as root with unshare, pamtester, dpkg and pam-auth-update"; exit 1; }
  echo "SKIP: needs root, unshare, pamtester and a Debian host (dpkg, pam-auth-update)"
  exit 77
fi
if [ -n "$deb" ]; then deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb"); fi

if [ -z "${BWSH_REMOVAL_IN_NS:-}" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  BWSH_REMOVAL_IN_NS=$tmp unshare -m --propagation private -- bash "$0" "$src" "$deb"
  exit $?
fi

# ----------------------------------------------------- inside the namespace
tmp=$BWSH_REMOVAL_IN_NS
fail () { echo "FAIL: $*" >&2; exit 1; }
step () { echo "--- $*"; }
. "$(dirname "$0")/overlay_lib.sh"
overlay_system "$tmp"
# pam_motd writes /run/motd.dynamic; nothing of the host's /run is needed.
mount -t tmpfs tmpfs /run || fail "tmpfs on /run"
mkdir -p "$tmp/out"
if [ -z "$deb" ]; then
  step "build the .deb (packaging/build-deb.sh)"
  "$src/packaging/build-deb.sh" "$tmp/out" >/dev/null || fail "packaging/build-deb.sh"
  deb=$(ls "$tmp"/out/bwsh_*.deb)
fi
dpkg-query -W -f '${Status}' bwsh 2>/dev/null | grep -q 'installed' && fail "bwsh is already installed"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
pamdir=$(dpkg-query -L libpam-modules | sed -n "s#^\(.*/$multiarch/security\)/pam_unix\.so\$#\1#p")
[ -n "$pamdir" ] || fail "cannot find Debian's PAM directory"

# Every module each stack names exists ("-type" lines PAM skips when it is missing).
stacks_load () {
  local f bad=0
  for f in /etc/pam.d/*; do
    [ -f "$f" ] || continue
    while read -r lineno mod; do
      case $mod in /*) p=$mod ;; *) p=$pamdir/$mod ;; esac
      [ -e "$p" ] || { echo "$f:$lineno: $mod is missing"; bad=1; }
    done < <(awk '/^[ \t]*#/ || NF < 3 || $1 ~ /^-/ || $1 ~ /^@/ { next }
      { c = 2; if ($2 ~ /^\[/) while ($c !~ /\]$/ && c < NF) c++
        if ($2 == "include" || $2 == "substack") next
        print FNR, $(c + 1) }' "$f")
  done
  return $bad
}
# apt-get, as an administrator runs it; dpkg's lines through apt's pty end in \r.
apt () { DEBIAN_FRONTEND=noninteractive apt-get "$@" 2>&1 | tr -d '\r'; return "${PIPESTATUS[0]}"; }
# session USER SERVICE: pamtester's account check and session, as root.
session () {
  pamtester -v "$2" "$1" acct_mgmt open_session close_session >"$tmp/pt" 2>&1 \
    || { cat "$tmp/pt" >&2; return 1; }
}

step "control: a stack that names a missing module is caught"
printf 'session required pam_bwsh.so\n' >/etc/pam.d/bwsh-control
out=$(stacks_load) && fail "stacks_load passed a stack naming the missing pam_bwsh.so"
grep -qxF "/etc/pam.d/bwsh-control:1: pam_bwsh.so is missing" <<<"$out" || fail "stacks_load: $out"
session root bwsh-control 2>/dev/null && fail "pamtester opened a session through a stack naming a missing module"
rm /etc/pam.d/bwsh-control
stacks_load || fail "a stack of this machine does not load before the install"

step "install, and the README's enable block"
getent passwd alice >/dev/null || useradd -M -d /nonexistent -s /bin/bash alice || fail "useradd alice"
getent passwd dave >/dev/null || useradd -M -d /nonexistent -s /bin/bash dave || fail "useradd dave"
dpkg -i "$deb" >"$tmp/install" 2>&1 || { cat "$tmp/install"; fail "dpkg -i"; }
# The block between "## From a build to an installed, enabled system" and its
# closing fence, without the build and the install (done above).
# shellcheck disable=SC2016 # backquotes of a Markdown fence, not an expansion
sed -n '/^## From a build to an installed, enabled system/,/^```$/p' "$src/README.md" | sed '1,/^```sh$/d;/^```$/d' \
  | grep -v -e '^packaging/build-deb.sh ' -e '^apt-get install ' >"$tmp/block"
[ "$(wc -l <"$tmp/block")" -ge 4 ] || fail "the README's enable block not found: $(cat "$tmp/block")"
while IFS= read -r line; do
  case $line in
    "bwshctl doctor"*) ;;
    *) DEBIAN_FRONTEND=noninteractive sh -ec "$line" >>"$tmp/block.out" 2>&1 \
         || { cat "$tmp/block.out"; fail "the README's line failed: $line"; } ;;
  esac
done <"$tmp/block"
grep -q '^session[[:space:]].*pam_bwsh.so' /etc/pam.d/common-session || fail "the README's block did not enable pam_bwsh"

step "every PAM fix doctor prints, applied as printed"
# Debian 12's sshd stack reads ~/.pam_environment (pam_env user_readenv=1),
# which doctor asks to remove; Debian 13's no longer has the line.  Where
# it is missing, the test puts Debian 12's line in (in its overlay), so
# that the fix is printed and applied on both releases.
if ! grep -q '^[^#]*pam_env\.so.*user_readenv=1' /etc/pam.d/sshd; then
  printf 'session    required     pam_env.so user_readenv=1 envfile=/etc/default/locale\n' >>/etc/pam.d/sshd
fi
bwshctl doctor --user alice >"$tmp/doctor" 2>&1
awk '/^(warning|error): pam: / { p = 1; next } p && /^  fix: / { sub(/^  fix: /, ""); print } { p = 0 }' "$tmp/doctor" >"$tmp/fixes"
[ -s "$tmp/fixes" ] || { cat "$tmp/doctor"; fail "doctor printed no PAM fix for an sshd stack with user_readenv=1"; }
grep -q '^remove user_readenv=1 from /etc/pam.d/sshd:' "$tmp/fixes" \
  || { cat "$tmp/doctor"; fail "doctor printed no fix for user_readenv=1 in /etc/pam.d/sshd"; }
while IFS= read -r fix; do
  echo "fix: $fix"
  case $fix in
    "pam-auth-update --enable bwsh")
      DEBIAN_FRONTEND=noninteractive pam-auth-update --enable bwsh || fail "$fix" ;;
    "remove user_readenv=1 from "*:*" ("*)
      at=${fix#remove user_readenv=1 from }; at=${at%% (*}
      sed -i "${at##*:}s/[[:space:]]*user_readenv=1//" "${at%:*}" || fail "$fix" ;;
    *) fail "a PAM fix this test cannot apply as printed (a line by hand would outlive the package): $fix" ;;
  esac
done <"$tmp/fixes"
bwshctl doctor --user alice >"$tmp/doctor" 2>&1
grep -E '^(warning|error): pam: ' "$tmp/doctor" && fail "doctor still warns about PAM after its fixes"
grep -qF 'note: pam: runuser-l has no pam_bwsh in its session stack: only root can run runuser' "$tmp/doctor" \
  || { cat "$tmp/doctor"; fail "doctor does not say that runuser-l is root's"; }
for s in sshd su runuser-l; do
  session root "$s" || fail "root's session through $s with bwsh enabled"
  session dave "$s" || fail "a non-subject's session through $s with bwsh enabled"
done

step "a pam_bwsh line written by hand stops the removal"
printf 'session required pam_bwsh.so\n' >>/etc/pam.d/runuser-l
n=$(wc -l </etc/pam.d/runuser-l)
apt purge -y bwsh >"$tmp/refused" && { cat "$tmp/refused"; fail "the purge went on with a hand-written pam_bwsh line"; }
for l in "bwsh: not removed: these PAM lines name pam_bwsh.so and pam-auth-update does not manage them:" \
  "bwsh:   /etc/pam.d/runuser-l:$n: session required pam_bwsh.so" \
  "bwsh: without the module every login through those stacks, root's included, would fail (\"Module is unknown\");" \
  "bwsh: delete those lines (bwshctl doctor never asks for them), then remove bwsh again."; do
  grep -qxF "$l" "$tmp/refused" || { cat "$tmp/refused"; fail "the refusal lacks: $l"; }
done
dpkg-query -W -f '${Status}\n' bwsh | grep -qx 'install ok installed' || fail "the refused removal left bwsh half removed"
session dave runuser-l || fail "runuser-l after the refused removal"
sed -i '$d' /etc/pam.d/runuser-l

step "purge"
apt remove -y bwsh >"$tmp/remove" || { cat "$tmp/remove"; fail "apt-get remove"; }
grep -qxF "bwsh:   alice    (give it another shell: usermod -s /bin/bash alice)" "$tmp/remove" \
  || { cat "$tmp/remove"; fail "removal does not name alice, whose login shell is bwsh"; }
apt purge -y bwsh >"$tmp/purge" || { cat "$tmp/purge"; fail "apt-get purge"; }
grep -qxF "bwsh: kept the drop-ins in /etc/bwsh/conf.d (BWSH_PURGE_CONF_D=yes on purge removes them)" "$tmp/purge" \
  || { cat "$tmp/purge"; fail "the purge does not say it kept the README's drop-in"; }
dpkg-query -W -f '${Status}' bwsh 2>/dev/null | grep -q 'installed' && fail "bwsh still installed"

step "every stack loads, none names pam_bwsh, sessions open"
grep -rn '^[[:space:]]*[^#[:space:]].*pam_bwsh' /etc/pam.d && fail "a stack still names pam_bwsh after the purge"
stacks_load || fail "a stack does not load after the purge"
for s in sshd su runuser-l; do
  session root "$s" || fail "root's session through $s after the purge"
  session dave "$s" || fail "a non-subject's session through $s after the purge"
done
echo "ok: install, enable, doctor's fixes, purge: every PAM stack loads and none names pam_bwsh"
