#!/bin/sh
# Package CI: build the .deb, lint it, install it on this machine, run the
# integration tests against the installed paths, purge it, and prove the
# machine is as it was; then build the RPM.
#
#   packaging/ci.sh [OUTDIR]      (as root; OUTDIR defaults to a temporary dir)
#
# Needs the packages of scripts/deps.sh (the build, run, test and package
# lists; scripts/test installs them).
#
# What "as it was" means, checked with checksums taken before the install:
# /etc/shells, every file under /etc/pam.d and /var/lib/pam (pam-auth-update's
# state), /usr/share/pam-configs, no /etc/bwsh, no /usr/bin/bwsh, no bwsh
# package known to dpkg.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "packaging/ci.sh: must run as root (it installs the package)" >&2; exit 1; }

work=$(mktemp -d)
installed=0
# The package's group stays at purge (postinst); a group this run made goes.
group_before=$(getent group bwsh || true)
cleanup () {
  rc=$?
  if [ $installed = 1 ]; then
    # The drop-ins in conf.d are this run's own: a failed run must not
    # leave /etc/bwsh behind for the next one to find.
    echo "ci.sh: purging bwsh after a failure" >&2
    BWSH_PURGE_CONF_D=yes apt-get purge -y bwsh >/dev/null 2>&1 \
      || BWSH_PURGE_CONF_D=yes dpkg --purge bwsh >/dev/null 2>&1 || true
  fi
  if [ -z "$group_before" ] && getent group bwsh >/dev/null; then
    groupdel bwsh || true
  fi
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT INT TERM
out=${1:-$work/out}
mkdir -p "$out"

step () { printf '\n=== %s\n' "$*"; }
fail () { echo "FAIL: $*" >&2; exit 1; }

# The machine's state that the package must not change (or must restore).
snapshot () {
  {
    sha256sum /etc/shells
    for d in /etc/pam.d /var/lib/pam /usr/share/pam-configs; do
      [ -d "$d" ] && find "$d" -type f -exec sha256sum {} + | sort -k2
      [ -d "$d" ] && find "$d" | sort
    done
    for p in /etc/bwsh /usr/bin/bwsh /usr/bin/bwshctl /usr/share/bwsh /usr/share/doc/bwsh; do
      [ -e "$p" ] && echo "present $p"
    done
    dpkg-query -W -f '${Package} ${Status}\n' bwsh 2>/dev/null || true
  } | sed "s|$work|WORK|g"
}

if dpkg-query -W -f '${Status}' bwsh 2>/dev/null | grep -q 'installed'; then
  fail "bwsh is already installed here; CI must start from a machine without it"
fi
snapshot >"$work/before"

# ----------------------------------------------------------------- build
step "build the .deb"
"$top/packaging/build-deb.sh" "$out"
deb=$(ls "$out"/bwsh_*.deb)

step "lintian --pedantic (every tag fails, but the overrides, each with its reason)"
lintian --pedantic --display-info "$deb" 2>&1 | tee "$work/lintian" | grep -v 'running with root privileges' || true
lintian --pedantic --fail-on error,warning,info,pedantic "$deb" >/dev/null 2>&1 || fail "lintian --pedantic reports tags"

# ---------------------------------------------------------------- install
step "install"
installed=1
dpkg -i "$deb" || apt-get -f install -y
dpkg-query -W -f '${Status}\n' bwsh | grep -qx 'install ok installed' || fail "bwsh is not installed"

step "installed paths"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
# Debian's PAM directory on this release: where libpam-modules has pam_unix.so
# (/lib/<triplet>/security on Debian 12, /usr/lib/<triplet>/security on 13).
pamdir=$(dpkg-query -L libpam-modules | sed -n "s#^\(.*/$multiarch/security\)/pam_unix\.so\$#\1#p")
[ -n "$pamdir" ] || fail "cannot find Debian's PAM directory"
dpkg-query -L bwsh | grep -qx "$pamdir/pam_bwsh.so" || fail "pam_bwsh.so is not installed to Debian's PAM directory $pamdir"
echo "pam_bwsh.so in $pamdir, beside pam_unix.so"
for p in /usr/bin/bwsh /usr/bin/bwshctl /usr/libexec/bwsh/bwsh-netns /usr/libexec/bwsh/bwsh-landlock "$pamdir/pam_bwsh.so" /etc/bwsh/bwsh.conf \
  /usr/share/bash-completion/completions/bwshctl \
  /usr/share/pam-configs/bwsh /usr/share/doc/bwsh/examples/sshd_config.d/bwsh.conf \
  /usr/share/doc/bwsh/examples/pam.d/bwsh-session /usr/share/bwsh/config.schema.json /usr/share/bwsh/apparmor/bwsh \
  /usr/lib/systemd/system/bwsh-enforce.service /usr/lib/systemd/system/bwsh-enforce.timer; do
  [ -e "$p" ] || fail "missing $p"
done
# bwsh-enforce.timer (#39): installed, not enabled; the README's enable block enables it.
[ ! -e /etc/systemd/system/timers.target.wants/bwsh-enforce.timer ] || fail "installing enabled bwsh-enforce.timer"
[ -d /etc/bwsh/conf.d ] || fail "missing /etc/bwsh/conf.d"
dpkg-query --control-show bwsh conffiles | grep -qx '/etc/bwsh/bwsh.conf' || fail "/etc/bwsh/bwsh.conf is not a conffile"
for page in bwsh.1 bwshctl.8 pam_bwsh.8 bwsh.conf.5 bwsh-config.json.5; do
  f=$(find /usr/share/man -name "$page.gz")
  [ -n "$f" ] || fail "man page $page not installed"
  zcat "$f" | mandoc -Tlint -Wwarning >"$work/lint" 2>&1 || { cat "$work/lint"; fail "installed $page: mandoc warnings"; }
done
# shellcheck disable=SC2015 # fails when either test does
[ ! -u /usr/bin/bwsh ] && [ ! -g /usr/bin/bwsh ] || fail "/usr/bin/bwsh must not be setuid/setgid"
/usr/bin/bwsh --version
/usr/bin/bwshctl check | grep -qx '/etc/bwsh/bwsh.conf: policy valid' || fail "the installed policy is not valid at its compiled-in path"
grep -qx 'Default: no' /usr/share/pam-configs/bwsh || fail "the pam-auth-update profile must be off by default"
getent group bwsh >/dev/null || fail "no group bwsh, which the shipped sshd snippet matches (Match Group bwsh)"
grep -qx 'Match Group bwsh' /usr/share/doc/bwsh/examples/sshd_config.d/bwsh.conf \
  || fail "the shipped sshd snippet does not match the group the package creates"

step "installing changed no PAM stack and not /etc/shells"
snapshot >"$work/after-install"
# Only the package's own paths may differ right after the install, and
# pam-auth-update's bookkeeping (/var/lib/pam/seen records that it has seen
# the profile; the purge must take that out again, checked below).
filter='^present |^bwsh |/usr/share/pam-configs/bwsh$|/var/lib/pam/seen$'
grep -vE "$filter" "$work/before" >"$work/b"
grep -vE "$filter" "$work/after-install" >"$work/a"
diff -u "$work/b" "$work/a" || fail "installing bwsh changed the machine beyond its own files"
grep -q 'pam_bwsh' /etc/pam.d/common-session && fail "pam_bwsh enabled by default"
grep -q 'bwsh' /etc/shells && fail "bwsh listed in /etc/shells"

step "the installed build has no test-only options"
set +e
/usr/bin/bwshctl doctor --root / >"$work/o" 2>&1; rc=$?
set -e
# shellcheck disable=SC2015 # fails when either the status or the message is wrong
[ $rc = 2 ] && grep -q '^usage: bwshctl doctor \[--user USER\] \[--policy FILE\]$' "$work/o" \
  || { cat "$work/o"; fail "bwshctl doctor --root must be refused by an installed build"; }

step "bwshctl doctor on this machine (informational; exit 0, 1 or 2 by the machine)"
set +e
/usr/bin/bwshctl doctor; rc=$?
set -e
[ $rc -le 2 ] || fail "doctor exit code $rc"

step "pam-auth-update --enable bwsh, in a private mount namespace"
# The real /etc/pam.d and /var/lib/pam are never written: copies are bound
# over them for the length of one command.
mkdir -p "$work/pam.d" "$work/varlibpam"
cp -a /etc/pam.d/. "$work/pam.d/"
cp -a /var/lib/pam/. "$work/varlibpam/" 2>/dev/null || true
# shellcheck disable=SC2016 # expanded by the inner sh
unshare -m sh -c '
  set -e
  mount --make-rprivate /
  mount --bind "$1/pam.d" /etc/pam.d
  mount --bind "$1/varlibpam" /var/lib/pam
  DEBIAN_FRONTEND=noninteractive pam-auth-update --enable bwsh
  grep -E "^session[[:space:]]+required[[:space:]]+pam_bwsh.so" /etc/pam.d/common-session
  grep -E "^session[[:space:]]+required[[:space:]]+pam_bwsh.so" /etc/pam.d/common-session-noninteractive
  /usr/bin/bwshctl doctor >"$1/doctor" || true
' sh "$work" >"$work/pam-enable" 2>&1 || { cat "$work/pam-enable"; fail "pam-auth-update --enable bwsh"; }
grep -qx 'ok: pam: login has pam_bwsh in its session stack' "$work/doctor" || { cat "$work/doctor"; fail "doctor does not see the enabled profile"; }
grep -qx 'ok: pam: cron has pam_bwsh in its session stack' "$work/doctor" || fail "the profile does not cover cron (noninteractive)"
grep -q 'pam_bwsh' /etc/pam.d/common-session && fail "the real /etc/pam.d was changed"

step "integration tests against the installed paths (BWSH_IT_PREFIX=/usr)"
# A few that cover the whole path: the sandbox's root, read-only /usr and
# home, the project dir, a user bind, and a refused entry.  With the
# integration suite's premise as a drop-in (tests/integration/fixture.sh: a
# read-write bind anywhere in the home), taken out again afterwards.
printf '%s\n' '# packaging/ci.sh: the integration suite'"'"'s premise' 'rw_ceilings = [ "~" ];' 'ro_ceilings = [ "/" ];' \
  >/etc/bwsh/conf.d/50-it-ceilings.conf
chmod 0644 /etc/bwsh/conf.d/50-it-ceilings.conf
for t in test_root_is_tmpfs.sh test_usr_and_home_read_only.sh test_project_dir.sh \
  test_additional_bind.sh test_refused_entry.sh test_exit_and_args.sh; do
  [ -f "$top/tests/integration/$t" ] || continue
  echo "--- $t"
  CI=true BWSH_IT_PREFIX=/usr BWSH_SOURCE_DIR="$top" IT_STATE='' bash "$top/tests/integration/$t" \
    || fail "integration test $t against the installed package"
done
rm -f /etc/bwsh/conf.d/50-it-ceilings.conf

step "bash completion of bwshctl, as installed"
bash "$top/tests/packaging/test_completion.sh" /usr/share/bash-completion/completions/bwshctl /usr/bin/bwshctl \
  || fail "the installed bash completion"

# ------------------------------------------------------------------ purge
step "bwsh-enforce.timer enabled as the README does"
# Without a running systemd, the link only.  Enabled before the removal,
# while the unit is installed: remove and purge must then take the
# enablement out (the snapshot after the purge checks).
systemctl enable bwsh-enforce.timer || fail "systemctl enable bwsh-enforce.timer"
[ -L /etc/systemd/system/timers.target.wants/bwsh-enforce.timer ] || fail "systemctl enable made no link"

step "removal names the accounts whose login shell is bwsh"
# A real account with bwsh as its shell: removal warns (it does not refuse:
# see the admin guide), names it, and the account then fails closed.
shelluser=bwshrm$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
useradd -M -d /nonexistent -s /usr/bin/bwsh "$shelluser"
# A drop-in of the administrator's: remove keeps it, and so does a plain
# purge (tests/packaging/test_postrm_purge.sh); purge with
# BWSH_PURGE_CONF_D=yes, below, removes it with /etc/bwsh.
printf '# added by packaging/ci.sh\n' >/etc/bwsh/conf.d/50-ci.conf
apt-get remove -y bwsh >"$work/remove" 2>&1 || { cat "$work/remove"; userdel "$shelluser"; fail "apt-get remove"; }
cat "$work/remove"
# shellcheck disable=SC2015 # fails when either line is missing
grep -q "bwsh: warning: these accounts have bwsh as their login shell" "$work/remove" \
  && grep -q "bwsh:   $shelluser    (give it another shell: usermod -s /bin/bash $shelluser)" "$work/remove" \
  || { userdel "$shelluser"; fail "removal does not name $shelluser, whose shell is bwsh"; }
userdel "$shelluser"
[ -d /etc/bwsh/conf.d ] || fail "remove (not purge) took /etc/bwsh/conf.d"

step "purge"
BWSH_PURGE_CONF_D=yes apt-get purge -y bwsh 2>&1 | tee "$work/purge"
[ ! -e /etc/systemd/system/timers.target.wants/bwsh-enforce.timer ] || fail "the purge left bwsh-enforce.timer enabled"
grep -q 'not empty so not removed' "$work/purge" && fail "dpkg left a directory behind on purge"
installed=0
snapshot >"$work/after"
diff -u "$work/before" "$work/after" || fail "the machine is not as it was after the purge"
for p in /etc/bwsh /usr/bin/bwsh /usr/bin/bwshctl /usr/libexec/bwsh "$pamdir/pam_bwsh.so" /usr/share/pam-configs/bwsh \
  /usr/share/bash-completion/completions/bwshctl /etc/apparmor.d/bwsh; do
  [ ! -e "$p" ] || fail "$p left after purge"
done
echo "machine as it was: /etc/shells, /etc/pam.d, /var/lib/pam, /usr/share/pam-configs unchanged; no /etc/bwsh"

# --------------------------------------------------------------- apparmor
step "AppArmor profile syntax"
if command -v apparmor_parser >/dev/null 2>&1; then
  if [ -e /etc/apparmor.d/abi/4.0 ]; then
    apparmor_parser -Q -K "$top/packaging/apparmor/bwsh" || fail "apparmor_parser refuses the profile"
    echo "apparmor: the whole profile parses (AppArmor 4)"
  else
    # AppArmor 3.0 (Debian 12) has no "userns" rule and no abi/4.0: check
    # everything else, which is all this parser can.
    sed -e 's#abi/4.0#abi/3.0#' -e '/^ *userns,$/d' "$top/packaging/apparmor/bwsh" >"$work/aa3"
    apparmor_parser -Q -K "$work/aa3" 2>"$work/aa3.err" || { cat "$work/aa3.err"; fail "apparmor_parser refuses the profile"; }
    echo "apparmor: parses without the userns rule ($(apparmor_parser --version | head -n 1)); userns needs AppArmor 4"
  fi
else
  echo "apparmor: apparmor_parser not installed; profile not checked"
  [ "${CI:-}" != true ] || fail "CI needs apparmor_parser (apt-get install apparmor)"
fi

# -------------------------------------------------------------------- rpm
step "build the rpm"
"$top/packaging/build-rpm.sh" "$out"
rpm=$(ls "$out"/bwsh-*.rpm)
rpm -qlp "$rpm" 2>/dev/null | grep -qx /usr/bin/bwsh || fail "the rpm lacks /usr/bin/bwsh"
rpm -qlp "$rpm" 2>/dev/null | grep -qx /usr/libexec/bwsh/bwsh-netns || fail "the rpm lacks the network helper /usr/libexec/bwsh/bwsh-netns"
rpm -qlp "$rpm" 2>/dev/null | grep -qx /usr/libexec/bwsh/bwsh-landlock || fail "the rpm lacks the recording's Landlock helper /usr/libexec/bwsh/bwsh-landlock"
rpm -qp --configfiles "$rpm" 2>/dev/null | grep -qx /etc/bwsh/bwsh.conf || fail "bwsh.conf is not %config in the rpm"
rpm -qlp "$rpm" 2>/dev/null | grep -qx /usr/lib/tmpfiles.d/bwsh.conf || fail "the rpm lacks its tmpfiles.d snippet (the registry)"
rpm -qlp "$rpm" 2>/dev/null | grep -qx /usr/lib/systemd/system/bwsh-enforce.timer || fail "the rpm lacks bwsh-enforce.timer"
rpm -qp --scripts "$rpm" 2>/dev/null | grep -q 'groupadd -r bwsh' || fail "the rpm does not create the group bwsh"

step "packages"
ls -l "$deb" "$rpm"
echo "packaging CI passed"
