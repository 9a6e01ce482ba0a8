#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bwshctl doctor against fixture files and fixture commands.
#
#   test_doctor.sh BWSHCTL CASE BINDIR
#
# BINDIR is where the build installs bwsh (CMAKE_INSTALL_FULL_BINDIR): the
# fix lines name it.
#
# Every case builds a fake machine under a temporary --root (etc/pam.d,
# etc/shells, proc/sys/..., sys/kernel/security/...), a fake bwrap and a fake
# sshd that print canned output, runs `bwshctl doctor` on it, and asserts the
# finding's message, its fix line and the exit code.  --root, --bwrap and
# --sshd exist only in test builds (BWSH_TEST_BUILD).
set -eu

bwshctl=$1
case=$2
bindir=$3

tmp=$(mktemp -d)
cleanup () { rm -rf "$tmp"; }
trap cleanup EXIT
# The userns probe runs the fake bwrap as nobody when the tests run as root.
chmod 0755 "$tmp"
root=$tmp/root
fixtures=$tmp/bin
mkdir -p "$root/etc/pam.d" "$root/proc/sys/dev/tty" "$root/proc/sys/kernel" "$root/proc/sys/user" \
  "$root/sys/kernel/security/apparmor" "$fixtures"
chmod -R a+rX "$tmp"
# The network probe runs the helper as nobody too: a copy nobody can reach,
# for a checkout nobody may enter (/root/bwsh).
if [ -n "${BWSH_TEST_NETNS_HELPER:-}" ]; then
  cp "$BWSH_TEST_NETNS_HELPER" "$tmp/bwsh-netns"
  chmod 0755 "$tmp/bwsh-netns"
  BWSH_TEST_NETNS_HELPER=$tmp/bwsh-netns
  export BWSH_TEST_NETNS_HELPER
fi

fail () { echo "FAIL ($case): $*" >&2; echo "--- doctor output:" >&2; cat "$tmp/out" >&2; exit 1; }

need_root () {
  # Policies are trusted only when root owns them.
  if [ "$(id -u)" != 0 ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: CI runs as root" >&2; exit 1; fi
    echo "SKIP: needs root (a policy file must be root-owned)"; exit 77
  fi
}

# ------------------------------------------------------------ fixtures

# fake_bwrap [--no-disable-userns] [--no-ro-bind-fd] [--probe-fails] [--version-fails]
fake_bwrap () {
  dis=yes fd=yes probe=ok version=ok
  for a in "$@"; do
    case $a in
      --no-disable-userns) dis=no ;;
      --no-ro-bind-fd) fd=no ;;
      --probe-fails) probe=fail ;;
      --version-fails) version=fail ;;
    esac
  done
  {
    echo '#!/bin/sh'
    # shellcheck disable=SC2016 # a line of the fake bwrap
    echo 'case "$1" in'
    if [ $version = ok ]; then
      echo '--version) echo "bubblewrap 0.8.0"; exit 0 ;;'
    else
      echo '--version) echo "bwrap: cannot run on this kernel" >&2; exit 1 ;;'
    fi
    echo '--help) echo "usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]"'
    echo '  echo "    --bind SRC DEST              Bind mount the host path SRC on DEST"'
    [ $fd = yes ] && echo '  echo "    --ro-bind-fd FD DEST         Bind open directory or path fd read-only on DEST"'
    [ $dis = yes ] && echo '  echo "    --disable-userns             Disable further use of user namespaces inside sandbox"'
    echo '  exit 0 ;;'
    echo 'esac'
    if [ $probe = ok ]; then
      # The probe must ask for a user namespace: anything else is a bug in the doctor.
      # shellcheck disable=SC2016 # a line of the fake bwrap
      echo 'for a in "$@"; do [ "$a" = --unshare-user ] && exit 0; done; echo "bwrap: probe without --unshare-user" >&2; exit 3'
    else
      echo 'echo "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2; exit 1'
    fi
  } >"$fixtures/bwrap"
  chmod 0755 "$fixtures/bwrap"
}

# fake_sshd FILE-WITH-CANNED-T-OUTPUT [exit-code stderr-line]
fake_sshd () {
  cp "$1" "$fixtures/sshd.out"
  {
    echo '#!/bin/sh'
    echo "[ \"\$1\" = -T ] && [ \"\$2\" = -C ] || { echo 'unexpected arguments' >&2; exit 9; }"
    echo "case \"\$3\" in user=*,host=localhost,addr=127.0.0.1) ;; *) echo \"bad -C \$3\" >&2; exit 9 ;; esac"
    if [ $# -ge 3 ]; then
      echo "echo '$3' >&2; exit $2"
    else
      echo "cat '$fixtures/sshd.out'"
    fi
  } >"$fixtures/sshd"
  chmod 0755 "$fixtures/sshd"
}

# A sshd -T that is fine for a subject.
good_sshd_config () {
  cat <<'EOF'
port 22
usepam yes
permituserenvironment no
permituserrc no
allowtcpforwarding no
allowstreamlocalforwarding no
allowagentforwarding no
x11forwarding no
permittunnel no
disableforwarding yes
acceptenv LANG
acceptenv LC_*
subsystem sftp /usr/lib/openssh/sftp-server
forcecommand none
EOF
}

# Debian's layout: pam_bwsh in common-account and common-session, no user_readenv.
good_pam () {
  printf 'account\trequired\tpam_unix.so\naccount\trequired\tpam_bwsh.so\n' >"$root/etc/pam.d/common-account"
  cat >"$root/etc/pam.d/common-session" <<'EOF'
# common-session, as pam-auth-update writes it
session	[default=1]			pam_permit.so
session	requisite			pam_deny.so
session	required			pam_permit.so
session	required	pam_unix.so
session	required	pam_bwsh.so
EOF
  cp "$root/etc/pam.d/common-session" "$root/etc/pam.d/common-session-noninteractive"
  for s in sshd login su su-l; do
    cat >"$root/etc/pam.d/$s" <<'EOF'
@include common-auth
@include common-account
session [success=ok ignore=ignore module_unknown=ignore default=bad]        pam_selinux.so close
session    required     pam_loginuid.so
@include common-session
session    required     pam_env.so readenv=1 envfile=/etc/default/locale
EOF
  done
  for s in cron atd; do
    printf '@include common-auth\nsession required pam_env.so\n@include common-session-noninteractive\n' \
      >"$root/etc/pam.d/$s"
  done
  printf 'auth required pam_unix.so\n' >"$root/etc/pam.d/common-auth"
}

good_machine () {
  fake_bwrap
  good_sshd_config >"$tmp/sshd.conf"
  fake_sshd "$tmp/sshd.conf"
  good_pam
  printf '# /etc/shells: valid login shells\n/bin/sh\n/usr/bin/bash\n' >"$root/etc/shells"
  echo 0 >"$root/proc/sys/dev/tty/legacy_tiocsti"
  policy=/nonexistent/bwsh.conf
  user_args=""
}

# A root-owned policy file in a root-owned directory.
write_policy () {
  need_root
  mkdir -p "$tmp/policy"
  chmod 0755 "$tmp/policy"
  cat >"$tmp/policy/bwsh.conf"
  chmod 0644 "$tmp/policy/bwsh.conf"
  policy=$tmp/policy/bwsh.conf
}

# The network probe starts the real helper and opens the real tun node as
# nobody: the fake machine gets a tun node of its own, mode $tun_mode, in a
# private mount namespace, so that the host's node decides nothing.
tun_mode=0666
in_tun_ns () {
  if [ "$(id -u)" = 0 ] && [ -d /dev/net ] && command -v unshare >/dev/null; then
    # shellcheck disable=SC2016 # expanded by the inner sh
    unshare -m --propagation private sh -c \
      'mount -t tmpfs -o mode=0755 tmpfs /dev/net && mknod -m "$0" /dev/net/tun c 10 200 && exec "$@"' "$tun_mode" "$@"
  else
    "$@"
  fi
}

run () {
  set +e
  # shellcheck disable=SC2086
  in_tun_ns "$bwshctl" doctor --root "$root" --bwrap "$fixtures/bwrap" --sshd "$fixtures/sshd" --policy "$policy" \
    $user_args "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  set -e
  cat "$tmp/err" >>"$tmp/out"
}

expect_rc () { [ "$rc" = "$1" ] || fail "exit code $rc, expected $1"; }
# expect_line TEXT: a line of the output equals TEXT exactly.
expect_line () { grep -qxF -- "$1" "$tmp/out" || fail "no line: $1"; }
expect_no () { ! grep -qF -- "$1" "$tmp/out" || fail "unexpected: $1"; }
# expect_finding LEVEL MESSAGE FIX: the finding line, and its fix right after it.
expect_finding () {
  expect_line "$1: $2"
  if [ -n "${3:-}" ]; then
    awk -v l="$1: $2" -v f="  fix: $3" 'prev == l && $0 == f { ok = 1 } { prev = $0 } END { exit !ok }' "$tmp/out" \
      || fail "finding \"$2\" has not the fix: $3"
  fi
}

# fake_tlog_rec MODE [FAILS]: $root/usr/bin/tlog-rec, the path doctor checks
# under --root, under a policy with record = "required"; it runs the program
# it is given, as doctor asks it to with a writer to /dev/null, or fails the
# way a broken tlog-rec.conf makes it.
fake_tlog_rec () {
  mkdir -p "$root/usr/bin" "$root/run"
  {
    echo '#!/bin/sh'
    # shellcheck disable=SC2016 # a line of the fake tlog-rec
    echo '[ "$1 $2 $3" = "--writer=file --file-path=/dev/null --" ] || { echo "unexpected arguments: $*" >&2; exit 9; }'
    if [ -n "${2:-}" ]; then
      # shellcheck disable=SC2028 # printf, in the fake tlog-rec
      echo 'printf "Expected a value\nFailed loading system configuration\n" >&2; exit 1'
    else
      # shellcheck disable=SC2016 # a line of the fake tlog-rec
      echo 'shift 3; exec "$@"'
    fi
  } >"$root/usr/bin/tlog-rec"
  chmod "$1" "$root/usr/bin/tlog-rec"
  chmod a+rx "$root/usr" "$root/usr/bin" "$root/run"
  install -m 0664 /dev/null "$root/run/utmp"
  write_policy <<'EOF'
landlock = { mode = "off"; };
record = "required";
EOF
  BWSH_TEST_TLOG_REC=/usr/bin/tlog-rec
  export BWSH_TEST_TLOG_REC
}
REC_REFUSED='every interactive login is refused (record = "required")'

# ------------------------------------------------------------------ cases

good_machine
case $case in
all_well)
  # policy: landlock off so the result does not depend on this kernel's ABI
  write_policy <<'EOF'
landlock = { mode = "off"; };
EOF
  run
  expect_rc 0
  expect_line "doctor: 0 errors, 0 warnings"
  expect_finding ok "bwrap: $fixtures/bwrap, bubblewrap 0.8.0, with --disable-userns and --ro-bind-fd"
  expect_finding ok "tiocsti: dev.tty.legacy_tiocsti = 0; the kernel refuses TIOCSTI terminal injection"
  expect_finding ok "shells: bwsh is not in /etc/shells, so su refuses -s for bwsh users and chsh refuses to change their shell"
  expect_finding ok "pam: sshd has pam_bwsh in its session stack"
  expect_finding ok "pam: cron has pam_bwsh in its session stack"
  expect_finding ok "apparmor: no kernel.apparmor_restrict_unprivileged_userns; user namespaces are not restricted by AppArmor"
  grep -qE '^ok: userns: (an unprivileged account \(nobody\)|the caller) can start bwrap in a new user namespace$' "$tmp/out" || fail "userns ok"
  ;;

usage_unknown_option)
  run --frobnicate
  expect_rc 2
  grep -q '^usage: bwshctl doctor' "$tmp/out" || fail "usage"
  ;;

unknown_user)
  user_args="--user bwsh-doctor-no-such-user"
  run
  expect_rc 2
  expect_line "bwshctl doctor: no such user: bwsh-doctor-no-such-user"
  ;;

policy_not_owned_by_root)
  mkdir -p "$tmp/p"
  echo 'strict = true;' >"$tmp/p/bwsh.conf"
  chown 65534 "$tmp/p/bwsh.conf" 2>/dev/null || { [ "$(id -u)" != 0 ] || fail chown; }
  policy=$tmp/p/bwsh.conf
  run
  expect_rc 2
  grep -qE "^error: policy: $tmp/p/bwsh.conf: .*\(refused\) \(every session is refused until this is fixed\)$" "$tmp/out" \
    || fail "policy error line"
  grep -qxF "  fix: correct the policy file, then run \`bwshctl check\`" "$tmp/out" || fail "policy fix"
  ;;

policy_syntax_error)
  write_policy <<'EOF'
strict = tru;
EOF
  run
  expect_rc 2
  grep -qE "^error: policy: $policy:1: .* \(every session is refused until this is fixed\)$" "$tmp/out" || fail "line"
  ;;

policy_missing_uses_defaults)
  run
  expect_finding note "policy: /nonexistent/bwsh.conf does not exist; the built-in defaults apply"
  ;;

bwrap_missing)
  rm "$fixtures/bwrap"
  run
  expect_rc 2
  expect_finding error "bwrap: $fixtures/bwrap: No such file or directory; bwsh cannot start any session" \
    "install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
  ;;

bwrap_not_executable)
  chmod 0644 "$fixtures/bwrap"
  run
  expect_rc 2
  expect_finding error "bwrap: $fixtures/bwrap is not an executable file; bwsh cannot start any session" \
    "reinstall bubblewrap"
  ;;

bwrap_version_fails)
  fake_bwrap --version-fails
  run
  expect_rc 2
  expect_finding error "bwrap: \`$fixtures/bwrap --version\` failed: bwrap: cannot run on this kernel" "reinstall bubblewrap"
  ;;

bwrap_without_disable_userns)
  fake_bwrap --no-disable-userns
  run
  expect_rc 2
  expect_finding error "bwrap: $fixtures/bwrap (bubblewrap 0.8.0) lacks --disable-userns, which every bwsh session uses; sessions will fail" \
    "install bubblewrap 0.8.0 or later"
  ;;

bwrap_without_ro_bind_fd_and_disable_userns)
  fake_bwrap --no-disable-userns --no-ro-bind-fd
  run
  expect_rc 2
  expect_finding error "bwrap: $fixtures/bwrap (bubblewrap 0.8.0) lacks --disable-userns and --ro-bind-fd, which every bwsh session uses; sessions will fail" \
    "install bubblewrap 0.8.0 or later"
  ;;

bwrap_setuid)
  chmod 4755 "$fixtures/bwrap"
  run
  expect_rc 1
  expect_finding warning "bwrap: $fixtures/bwrap is setuid; bwsh does not need that, and a setuid bwrap is attack surface for every local user" \
    "chmod u-s on bwrap (bwsh uses unprivileged user namespaces and does not need setuid)"
  ;;

userns_probe_fails)
  fake_bwrap --probe-fails
  run
  expect_rc 2
  # The rest of the line depends on whether this kernel itself allows user
  # namespaces (the doctor tries that too, for real).
  grep -qE '^error: userns: (an unprivileged account \(nobody\)|the caller) cannot start bwrap in a new user namespace: bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces\. \(' "$tmp/out" \
    || fail "userns error line"
  grep -q '^  fix: ' "$tmp/out" || fail "userns fix"
  ;;

apparmor_restricted_profile_missing)
  echo 1 >"$root/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
  printf 'unix-chkpwd (enforce)\nlsb_release (enforce)\n' >"$root/sys/kernel/security/apparmor/profiles"
  fake_bwrap --probe-fails
  run
  expect_rc 2
  expect_finding error "apparmor: unprivileged user namespaces are restricted (kernel.apparmor_restrict_unprivileged_userns = 1) and the bwsh profile is not loaded; bwrap cannot start any bwsh session" \
    "install the profile: cp /usr/share/bwsh/apparmor/bwsh /etc/apparmor.d/bwsh && apparmor_parser -r /etc/apparmor.d/bwsh"
  grep -qE '^error: userns: (an unprivileged account \(nobody\)|the caller) cannot start bwrap in a new user namespace: bwrap: No permissions' "$tmp/out" || fail "userns"
  grep -qxF '  fix: load the bwsh AppArmor profile (see the apparmor finding above)' "$tmp/out" || fail "userns fix"
  ;;

apparmor_restricted_profile_loaded)
  echo 1 >"$root/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
  printf 'bwsh//bwrap (enforce)\nbwsh (enforce)\n' >"$root/sys/kernel/security/apparmor/profiles"
  fake_bwrap --probe-fails
  write_policy <<'EOF'
landlock = { mode = "off"; };
EOF
  run
  expect_rc 0
  expect_finding ok "apparmor: unprivileged user namespaces are restricted, and the bwsh profile (which lets bwsh's bwrap create them) is loaded"
  grep -qE "^note: userns: a bare bwrap run as (an unprivileged account \(nobody\)|the caller) fails \(bwrap: No permissions.*\); expected under AppArmor's restriction, which bwsh's profile lifts for bwsh only$" "$tmp/out" \
    || fail "userns note"
  ;;

apparmor_profiles_unreadable)
  echo 1 >"$root/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
  run
  expect_rc 1
  grep -qE '^warning: apparmor: unprivileged user namespaces are restricted \(kernel.apparmor_restrict_unprivileged_userns = 1\) and the list of loaded profiles is unreadable \(No such file or directory\); bwsh works only if its profile is loaded$' "$tmp/out" \
    || fail "apparmor warning"
  # shellcheck disable=SC2016 # backquotes of the message itself
  grep -qxF '  fix: run `bwshctl doctor` as root, or check with `aa-status | grep bwsh`' "$tmp/out" || fail fix
  ;;

apparmor_not_restricted)
  echo 0 >"$root/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
  run
  expect_finding ok "apparmor: kernel.apparmor_restrict_unprivileged_userns = 0; not restricted"
  ;;

tiocsti_legacy_enabled)
  echo 1 >"$root/proc/sys/dev/tty/legacy_tiocsti"
  write_policy <<'EOF'
landlock = { mode = "off"; };
EOF
  run
  expect_rc 1
  expect_finding warning "tiocsti: dev.tty.legacy_tiocsti = 1: the kernel lets a process push input into its terminal (TIOCSTI); only bwsh's seccomp filter stops a sandboxed process typing into the shell outside" \
    "sysctl -w dev.tty.legacy_tiocsti=0, and make it permanent: echo dev.tty.legacy_tiocsti=0 > /etc/sysctl.d/60-tiocsti.conf"
  ;;

tiocsti_old_kernel)
  rm "$root/proc/sys/dev/tty/legacy_tiocsti"
  run
  expect_finding note "tiocsti: no dev.tty.legacy_tiocsti (a kernel older than 6.2): TIOCSTI always works in this kernel, and bwsh's seccomp filter is what refuses it inside the sandbox"
  ;;

shells_lists_bwsh_su_s_escape)
  printf '/bin/sh\n# comment /usr/bin/bwsh\n/usr/bin/bash\n%s\n' "$bindir/bwsh" >"$root/etc/shells"
  write_policy <<'EOF'
landlock = { mode = "off"; };
EOF
  run
  expect_rc 1
  expect_finding warning "shells: /etc/shells lists bwsh (line 4): another account that knows a bwsh user's password can then run \`su -s /bin/bash USER\` and get an unsandboxed shell, and the user can chsh away from bwsh" \
    "remove-shell $bindir/bwsh (or delete that line from /etc/shells)"
  ;;

pam_sshd_without_bwsh)
  grep -v '@include common-session' "$root/etc/pam.d/sshd" >"$tmp/x" && mv "$tmp/x" "$root/etc/pam.d/sshd"
  write_policy <<'EOF'
landlock = { mode = "off"; };
EOF
  run
  expect_rc 1
  expect_finding warning "pam: sshd has no pam_bwsh in its session stack: sshd sessions are not checked against the policy (require_shell, refused services) and not audited" \
    "make /etc/pam.d/sshd include common-session (common-session-noninteractive for a service without a terminal) as Debian's own stacks do, then pam-auth-update --enable bwsh; a pam_bwsh line written there by hand would outlive the package and fail every login through sshd after a purge"
  expect_finding ok "pam: login has pam_bwsh in its session stack"
  ;;

pam_bwsh_as_auth_module_does_not_count)
  printf 'auth required pam_bwsh.so\nsession required pam_unix.so\n' >"$root/etc/pam.d/login"
  run
  grep -qxF 'warning: pam: login has no pam_bwsh in its session stack: login sessions are not checked against the policy (require_shell, refused services) and not audited' "$tmp/out" \
    || fail "auth line counted as session"
  ;;

pam_cron_jobs_escape)
  printf '@include common-auth\nsession required pam_unix.so\n' >"$root/etc/pam.d/cron"
  run
  expect_finding warning "pam: cron has no pam_bwsh in its session stack: a subject's cron jobs run without the login shell, outside the sandbox, and nothing refuses them" \
    "make /etc/pam.d/cron include common-session (common-session-noninteractive for a service without a terminal) as Debian's own stacks do, then pam-auth-update --enable bwsh; a pam_bwsh line written there by hand would outlive the package and fail every login through cron after a purge"
  ;;

pam_services_listed_allowed_or_refused)
  # Every service of the host, and what pam_bwsh does with a subject there.
  # runuser (Debian's: no common-session) and samba have no pam_bwsh:
  # nothing refuses there, and doctor does not say "refused" (#38).
  for s in systemd-user cockpit runuser-l; do
    printf 'session include common-session\n' >"$root/etc/pam.d/$s"
  done
  printf 'session required pam_unix.so\n' >"$root/etc/pam.d/runuser"
  printf 'session required pam_unix.so\n' >"$root/etc/pam.d/samba"
  run
  expect_finding note "pam: services that sandbox a subject (they start the login shell, bwsh; pam_bwsh checks and records each session): login, runuser-l, sshd, su, su-l"
  expect_finding note "pam: services that refuse a subject, with an event (allowed_services in the policy allows one): atd, cockpit, cron, systemd-user"
  expect_finding note "pam: services without pam_bwsh, where nothing refuses a subject and nothing records an event: runuser (root only), samba (unsandboxed)"
  ;;

pam_runuser_l_debian12_includes_runuser)
  # Debian 12: runuser-l includes runuser, which includes no common-session,
  # so pam-auth-update never reaches it: the fix names the file only.
  printf 'auth sufficient pam_rootok.so\nsession required pam_limits.so\nsession required pam_unix.so\n' \
    >"$root/etc/pam.d/runuser"
  printf 'auth include runuser\nsession optional pam_keyinit.so force revoke\nsession include runuser\n' \
    >"$root/etc/pam.d/runuser-l"
  # No line by hand: it would outlive the package (#38).
  run
  expect_finding note "pam: runuser-l has no pam_bwsh in its session stack: only root can run runuser, and root is outside bwsh's boundary (it can change any account); \`runuser -l USER\` starts the login shell, so a subject still gets bwsh, unchecked and unrecorded, and \`runuser -u USER\` runs a command unsandboxed. Nothing to fix: pam-auth-update does not reach this stack, and a pam_bwsh line written there by hand would outlive the package and fail every \`runuser -l\` after a purge"
  grep -q 'pam_bwsh.so.*runuser-l\|runuser-l.*add ' "$tmp/out" && fail "doctor asks for a line in runuser-l"
  ;;

pam_sshd_without_account_line_refusal_reaches_stdout)
  rm "$root/etc/pam.d/common-account"
  run
  expect_finding warning "pam: sshd has no pam_bwsh in its account stack: a refused subject's ssh command gets the reason on stdout after the motd, and scp and sftp get \"Received message too long\" instead of it" \
    "pam-auth-update --enable bwsh"
  ;;

pam_sss_localuser_sufficient_ends_account_stack_before_bwsh)
  # common-account as pam-auth-update wrote it with bwsh's old profile
  # (Priority 0) below libpam-sss's (128): pam_localuser ends the stack for
  # every local user before pam_bwsh (#38).
  printf 'account\t[success=1 new_authtok_reqd=done default=ignore]\tpam_unix.so\naccount\trequisite\t\t\tpam_deny.so\naccount\trequired\t\t\tpam_permit.so\n' \
    >"$tmp/primary"
  { cat "$tmp/primary"; printf 'account\tsufficient\t\t\tpam_localuser.so\naccount\t[default=bad success=ok user_unknown=ignore]\tpam_sss.so\naccount\trequired\tpam_bwsh.so\n'; } \
    >"$root/etc/pam.d/common-account"
  run
  expect_finding warning "pam: sshd: /etc/pam.d/common-account:4 (sufficient pam_localuser.so) can end the account stack before pam_bwsh: a local subject it lets through (a lock, a broken policy) is refused only at the session stage, after the motd, on stdout" \
    "pam-auth-update --package (bwsh's profile, Priority 1024, puts pam_bwsh first in common-account's Additional block); a line written by hand before it, or a profile of a higher Priority, still comes first: move that line after pam_bwsh"
  # A jump past pam_bwsh skips it just as well.
  { cat "$tmp/primary"; printf 'account [success=2 default=ignore] pam_localuser.so\naccount\t[default=bad success=ok user_unknown=ignore]\tpam_sss.so\naccount\trequired\tpam_bwsh.so\n'; } \
    >"$root/etc/pam.d/common-account"
  run
  grep -qF "warning: pam: sshd: /etc/pam.d/common-account:4 ([success=2 ... default=ignore] pam_localuser.so) can end the account stack before pam_bwsh" "$tmp/out" \
    || fail "a jump past pam_bwsh not reported"
  # As the Priority 1024 profile writes it: pam_bwsh first in the Additional
  # block; pam_unix's jump over pam_deny lands before it.
  { cat "$tmp/primary"; printf 'account\trequired\tpam_bwsh.so\naccount\tsufficient\t\t\tpam_localuser.so\naccount\t[default=bad success=ok user_unknown=ignore]\tpam_sss.so\n'; } \
    >"$root/etc/pam.d/common-account"
  run
  grep -q 'can end the account stack before pam_bwsh' "$tmp/out" && fail "pam_bwsh first in the Additional block still reported"
  # A substack's "sufficient" ends only the substack.
  printf 'account sufficient pam_localuser.so\n' >"$root/etc/pam.d/sub-account"
  sed -i '1i account substack sub-account' "$root/etc/pam.d/sshd"
  run
  grep -q 'can end the account stack before pam_bwsh' "$tmp/out" && fail "a substack's sufficient reported"
  ;;

pam_without_pam_auth_update_line_by_hand_taken_out_before_removal)
  # No common-session: not pam-auth-update's layout (Fedora's, a custom
  # one); there a line by hand is the only way, and it must go first.
  rm "$root/etc/pam.d/common-session"
  printf 'session required pam_unix.so\n' >"$root/etc/pam.d/login"
  run
  expect_finding warning "pam: login has no pam_bwsh in its session stack: login sessions are not checked against the policy (require_shell, refused services) and not audited" \
    "add \"session required pam_bwsh.so\" to /etc/pam.d/login, and take it out again before removing bwsh (a line naming a missing module fails every login through that stack)"
  ;;

pam_fedora_include_substack)
  rm "$root/etc/pam.d/common-session"
  printf 'session required pam_unix.so\n-session optional pam_systemd.so\nsession [success=1 default=ignore] pam_succeed_if.so service in crond quiet use_uid\nsession required /usr/lib64/security/pam_bwsh.so\n' \
    >"$root/etc/pam.d/system-auth"
  printf 'auth substack password-auth\nsession include password-auth\n' >"$root/etc/pam.d/sshd"
  printf 'session include system-auth\n' >"$root/etc/pam.d/password-auth"
  printf 'auth include system-auth\nsession substack system-auth\n' >"$root/etc/pam.d/login"
  run
  expect_finding ok "pam: sshd has pam_bwsh in its session stack"
  expect_finding ok "pam: login has pam_bwsh in its session stack"
  ;;

pam_include_loop)
  printf 'session include sshd\n' >"$root/etc/pam.d/sshd"
  run
  expect_finding warning "pam: /etc/pam.d/sshd: includes nest deeper than 8 levels" "remove the include loop"
  ;;

pam_env_user_readenv_after_bwsh_ld_preload)
  # Debian 12's own sshd stack: common-session (with pam_bwsh), then pam_env user_readenv=1.
  echo 'session    required     pam_env.so user_readenv=1 envfile=/etc/default/locale' >>"$root/etc/pam.d/sshd"
  run
  expect_rc 1
  expect_finding warning "pam: sshd runs pam_env user_readenv=1 (/etc/pam.d/sshd:7) after pam_bwsh: LD_PRELOAD=... in a subject's ~/.pam_environment would be set after pam_bwsh's scrub and run code outside the sandbox; the sandbox keeps that file read-only, so only one written outside it (by another account, or before the account was confined) can" \
    "remove user_readenv=1 from /etc/pam.d/sshd:7 (Debian's default; Linux-PAM deprecates it)"
  ;;

pam_env_user_readenv_before_bwsh)
  printf 'auth required pam_env.so user_readenv=1\n@include common-session\n' >"$root/etc/pam.d/login"
  run
  expect_rc 1
  expect_finding warning "pam: login reads ~/.pam_environment (pam_env user_readenv=1, /etc/pam.d/login:1) before the sandbox starts; pam_bwsh scrubs the dangerous variables (LD_*, BASH_ENV, ENV, ...) but every other one reaches bwsh" \
    "remove user_readenv=1 from /etc/pam.d/login:1 (Debian's default; Linux-PAM deprecates it)"
  ;;

pam_env_user_readenv_without_bwsh)
  printf 'session required pam_unix.so\nsession required pam_env.so user_readenv=1\n' >"$root/etc/pam.d/su"
  run
  expect_rc 1
  expect_finding warning "pam: su reads ~/.pam_environment (pam_env user_readenv=1, /etc/pam.d/su:2) and has no pam_bwsh to scrub it: LD_PRELOAD=... in a subject's file would run code outside the sandbox; the sandbox keeps that file read-only, so only one written outside it (by another account, or before the account was confined) can" \
    "remove user_readenv=1 from /etc/pam.d/su:2 (Debian's default; Linux-PAM deprecates it)"
  ;;

sshd_no_subject)
  run
  expect_finding note "sshd: no subject to check; run \`bwshctl doctor --user USER\` to check sshd's configuration for USER"
  ;;

sshd_not_installed)
  user_args="--user root"
  rm "$fixtures/sshd"
  run
  expect_finding note "sshd: $fixtures/sshd: No such file or directory; the SSH server is not checked"
  ;;

sshd_T_fails)
  user_args="--user root"
  fake_sshd "$tmp/sshd.conf" 255 "Missing privilege separation directory: /run/sshd"
  run
  expect_rc 1
  expect_finding warning "sshd: cannot read the effective configuration ($fixtures/sshd -T -C user=root,host=localhost,addr=127.0.0.1): Missing privilege separation directory: /run/sshd" \
    "run \`bwshctl doctor\` as root, and fix what sshd reports (sshd -T needs its host keys and /run/sshd)"
  ;;

sshd_good_for_user)
  user_args="--user root"
  run
  expect_finding ok "sshd: sftp for root goes through the login shell"
  expect_finding ok "sshd: no forwarding for root"
  expect_finding ok "sshd: PermitUserEnvironment no for root"
  expect_finding ok "sshd: AcceptEnv admits no variable that acts on bwsh's start-up"
  expect_finding ok "sshd: PermitUserRC no for root"
  ;;

sshd_subject_uses_policy_user)
  write_policy <<'EOF'
subjects = { users = [ "bwsh-doctor-subject" ]; };
landlock = { mode = "off"; };
EOF
  sed 's/^subsystem .*/subsystem sftp internal-sftp/' "$tmp/sshd.conf" >"$tmp/s2"
  fake_sshd "$tmp/s2"
  run
  expect_rc 2
  expect_line "error: sshd: sftp for bwsh-doctor-subject is internal-sftp, which runs inside sshd and never starts the login shell: file transfers are not sandboxed"
  ;;

sshd_internal_sftp_unconfined)
  user_args="--user root"
  sed 's/^subsystem .*/subsystem sftp internal-sftp -l INFO/' "$tmp/sshd.conf" >"$tmp/s2"
  fake_sshd "$tmp/s2"
  run
  expect_rc 2
  expect_finding error "sshd: sftp for root is internal-sftp, which runs inside sshd and never starts the login shell: file transfers are not sandboxed" \
    "serve sftp with the external server: \"Subsystem sftp /usr/lib/openssh/sftp-server\" (see /usr/share/doc/bwsh/examples/sshd_config.d/bwsh.conf), and no ForceCommand internal-sftp for subjects"
  ;;

sshd_forcecommand_internal_sftp)
  user_args="--user root"
  sed 's/^forcecommand .*/forcecommand internal-sftp/' "$tmp/sshd.conf" >"$tmp/s2"
  fake_sshd "$tmp/s2"
  run
  expect_rc 2
  expect_line "error: sshd: sftp for root is internal-sftp, which runs inside sshd and never starts the login shell: file transfers are not sandboxed"
  ;;

sshd_forwarding_outside_sandbox)
  user_args="--user root"
  sed -e '/^disableforwarding/d' -e 's/^allowtcpforwarding .*/allowtcpforwarding yes/' \
    -e 's/^x11forwarding .*/x11forwarding yes/' -e 's/^permittunnel .*/permittunnel point-to-point/' \
    -e 's/^allowagentforwarding .*/allowagentforwarding yes/' -e 's/^allowstreamlocalforwarding .*/allowstreamlocalforwarding local/' \
    "$tmp/sshd.conf" >"$tmp/s2"
  fake_sshd "$tmp/s2"
  run
  expect_rc 2
  expect_finding error "sshd: root may forward (AllowTcpForwarding yes, AllowStreamLocalForwarding local, AllowAgentForwarding yes, X11Forwarding yes, PermitTunnel point-to-point): forwarding is done by sshd itself, outside the sandbox, whatever the login shell" \
    "in a Match block for subjects: DisableForwarding yes, PermitTunnel no (the shipped snippet /usr/share/doc/bwsh/examples/sshd_config.d/bwsh.conf does this)"
  ;;

sshd_disableforwarding_wins)
  user_args="--user root"
  sed -e 's/^allowtcpforwarding .*/allowtcpforwarding yes/' "$tmp/sshd.conf" >"$tmp/s2"
  fake_sshd "$tmp/s2"
  run
  expect_finding ok "sshd: no forwarding for root"
  ;;

sshd_permituserenvironment_ld_preload)
  user_args="--user root"
  sed 's/^permituserenvironment .*/permituserenvironment yes/' "$tmp/sshd.conf" >"$tmp/s2"
  fake_sshd "$tmp/s2"
  run
  expect_rc 2
  expect_finding error "sshd: PermitUserEnvironment yes for root: sshd applies ~/.ssh/environment before bwsh starts, and LD_PRELOAD=... there runs code outside the sandbox" \
    "PermitUserEnvironment no"
  ;;

sshd_acceptenv_ld_preload)
  user_args="--user root"
  { cat "$tmp/sshd.conf"; echo 'acceptenv LD_* XMODIFIERS'; echo 'acceptenv LANG LD_LIBRARY_PATH MALLOC_TRACE LC_*'
    echo 'acceptenv BASH_ENV'; } >"$tmp/s2"
  fake_sshd "$tmp/s2"
  run
  expect_rc 2
  expect_finding error "sshd: AcceptEnv lets the client set variables that act on bwsh before the sandbox starts: LD_* (LD_PRELOAD), LD_LIBRARY_PATH (LD_*), MALLOC_TRACE (MALLOC_*), BASH_ENV (BASH_ENV)" \
    "AcceptEnv LANG LC_* (only names that cannot act on a program's start-up)"
  ;;

sshd_permituserrc_outside_sandbox)
  user_args="--user root"
  sed 's/^permituserrc .*/permituserrc yes/' "$tmp/sshd.conf" >"$tmp/s2"
  fake_sshd "$tmp/s2"
  run
  shell=$(getent passwd root | cut -d: -f7)
  expect_rc 1
  expect_finding warning "sshd: PermitUserRC yes and root's login shell is $shell, not bwsh: ~/.ssh/rc runs outside the sandbox" \
    "PermitUserRC no in a Match block for this user"
  ;;

sshd_usepam_no)
  user_args="--user root"
  sed 's/^usepam .*/usepam no/' "$tmp/sshd.conf" >"$tmp/s2"
  fake_sshd "$tmp/s2"
  run
  expect_rc 1
  expect_finding warning "sshd: UsePAM no: pam_bwsh never sees SSH sessions (no policy check, no audit line)" "UsePAM yes in sshd_config"
  ;;

sshd_subject_without_bwsh_shell)
  write_policy <<'EOF'
subjects = { users = [ "root" ]; };
landlock = { mode = "off"; };
EOF
  user_args="--user root"
  run
  shell=$(getent passwd root | cut -d: -f7)
  expect_rc 2
  expect_finding error "sshd: root is a subject, but the login shell is $shell and there is no ForceCommand bwsh: SSH sessions are not sandboxed" \
    "chsh -s $bindir/bwsh USER (or, for directory accounts, ForceCommand $bindir/bwsh)"
  ;;

sshd_forcecommand_mode)
  write_policy <<'EOF'
subjects = { users = [ "root" ]; };
landlock = { mode = "off"; };
EOF
  user_args="--user root"
  sed -e 's/^forcecommand .*/forcecommand \/usr\/bin\/bwsh/' -e 's/^permituserrc .*/permituserrc yes/' "$tmp/sshd.conf" >"$tmp/s2"
  fake_sshd "$tmp/s2"
  run
  shell=$(getent passwd root | cut -d: -f7)
  expect_rc 0
  expect_finding ok "sshd: ~/.ssh/rc of root runs not at all (ForceCommand)"
  expect_finding note "sshd: root is in ForceCommand mode: the outer login shell ($shell) and its start-up files run before bwsh, outside the sandbox"
  expect_no "is a subject, but"
  ;;

landlock_required_but_missing)
  write_policy <<'EOF'
landlock = { mode = "required"; };
EOF
  export BWSH_TEST_LANDLOCK_ABI=0
  run
  expect_rc 2
  expect_finding error "landlock: the policy requires scope_abstract_unix (needs ABI 6), scope_signal (needs ABI 6), but the kernel has Landlock ABI 0: every session is refused" \
    "run a kernel with Landlock ABI 6 or later (Linux 6.12), or set landlock.mode = \"best_effort\""
  ;;

landlock_best_effort_abstract_sockets_open)
  write_policy <<'EOF'
network = "shared";
landlock = { mode = "best_effort"; };
EOF
  export BWSH_TEST_LANDLOCK_ABI=0
  run
  expect_rc 1
  expect_finding warning "landlock: ABI 0 lacks scope_abstract_unix (needs ABI 6), scope_signal (needs ABI 6): with a shared network, sessions can connect to the host's abstract unix sockets (X11, D-Bus, ...)" \
    "run a kernel with Landlock ABI 6 or later (Linux 6.12), or network = \"private\" in the policy"
  ;;

network_shared_requires_landlock_scopes)
  write_policy <<'EOF'
network = "shared";
EOF
  export BWSH_TEST_LANDLOCK_ABI=5
  run
  expect_rc 2
  expect_finding error "landlock: network = \"shared\" requires scope_abstract_unix (needs ABI 6), scope_signal (needs ABI 6), but the kernel has Landlock ABI 5: every session is refused" \
    "set network = \"private\", run a kernel with Landlock ABI 6 or later (Linux 6.12), or write landlock.mode = \"best_effort\" to accept the shared network without it"
  expect_finding warning "network: shared with the host: every service on the host's loopback is reachable and /proc/net lists the host's sockets; the host's abstract unix sockets are reachable too" \
    "set network = \"private\" in the policy"
  ;;

network_private_without_engine)
  # The default engine missing (#33: slirp4netns).
  export BWSH_TEST_SLIRP4NETNS=/nonexistent/slirp4netns
  run
  expect_rc 2
  expect_finding error "network: private needs slirp4netns: /nonexistent/slirp4netns: No such file or directory; every session is refused" \
    "install slirp4netns (Debian, Ubuntu: apt-get install slirp4netns; Fedora: dnf install slirp4netns)"
  ;;

network_private_pasta_refused)
  # #33: pasta's connections on the host cannot be checked.
  write_policy <<'EOF'
network_engine = "pasta";
EOF
  run
  expect_rc 2
  expect_finding error "network: private through pasta is refused: bwsh cannot check the connections it makes on the host, so the host's own addresses would be within reach; every session is refused" \
    "set network_engine = \"slirp4netns\" in the policy"
  ;;

network_private_tun_closed_to_users)
  # A host without udev: /dev/net/tun crw------- root.  The probe, run as
  # nobody like a subject's login, cannot start the network; doctor names
  # the node and both ways out (#27).
  need_root
  tun_mode=0600
  run
  expect_rc 2
  expect_finding error "network: private cannot start for an unprivileged account (nobody): /dev/net/tun is crw------- root, and slirp4netns must open it as the session's user; every subject's session is refused" \
    "chmod 0666 /dev/net/tun and keep that mode at boot (Debian's udev rule sets it; without udev, for example a systemd-tmpfiles line \"z /dev/net/tun 0666 - - -\"), or set network = \"none\" in the policy"
  ;;
network_private_probe_as_nobody)
  need_root
  run
  expect_finding ok "network: private, egress through slirp4netns (/usr/bin/slirp4netns), which configured a sandbox's network for an unprivileged account (nobody) as it does at a login, confined and watched; blocks the host's loopback services, every address of its interfaces, link-local ones included, its gateway mapping, its abstract unix sockets and its socket tables; connections to other hosts are not filtered"
  ;;
landlock_best_effort_network_none)
  write_policy <<'EOF'
network = "none";
EOF
  export BWSH_TEST_LANDLOCK_ABI=0
  run
  expect_finding note "landlock: ABI 0; best effort leaves out scope_abstract_unix (needs ABI 6), scope_signal (needs ABI 6)"
  ;;

recording_tlog_rec_not_executable)
  fake_tlog_rec 0644
  run
  expect_rc 2
  expect_finding error "recording: the recorder /usr/bin/tlog-rec cannot run: not executable for the user, for an unprivileged account (nobody): $REC_REFUSED" \
    "chmod 0755 the recorder, or reinstall it: apt-get install --reinstall tlog"
  ;;
recording_run_utmp_missing)
  fake_tlog_rec 0755
  rm "$root/run/utmp"
  run
  expect_rc 2
  expect_finding error "recording: /run/utmp is missing: the recorder /usr/bin/tlog-rec cannot add the session's utmp record and fails, for an unprivileged account (nobody): $REC_REFUSED" \
    'install -m 0664 -o root -g utmp /dev/null /run/utmp, and at every boot: a tmpfiles.d line "f /run/utmp 0664 root utmp -" (systemd'"'"'s own tmpfiles.d has it)'
  ;;
recording_tlog_rec_config_broken)
  fake_tlog_rec 0755 fails
  run
  expect_rc 2
  expect_finding error "recording: the recorder /usr/bin/tlog-rec fails as an unprivileged account (nobody) runs it (Expected a value Failed loading system configuration): $REC_REFUSED" \
    "correct /etc/tlog/tlog-rec.conf (tlog-rec.conf(5)), then run bwshctl doctor again"
  ;;
recording_tlog_rec_runs)
  fake_tlog_rec 0755
  run
  expect_finding ok 'recording: /usr/bin/tlog-rec runs for an unprivileged account (nobody) and /run/utmp is there (record = "required")'
  ;;

journal_budget_tlog_pass_limits_nothing)
  # tlog's shipped default: "pass", no limit at all.
  fake_tlog_rec 0755
  mkdir -p "$root/usr/share/tlog"
  printf '{ "payload": 2048, "latency": 10, "limit": { "rate": 16384, "burst": 32768, "action": "pass" },\n  // a comment, as Debian ships\n  "journal": { "priority": "info" } }\n' \
    >"$root/usr/share/tlog/tlog-rec.default.conf"
  run
  expect_rc 1
  expect_finding warning 'journal budget: tlog-rec'"'"'s limit.action is "pass": it writes all a session prints, and journald takes RateLimitBurst=10000 in RateLimitIntervalSec=30s from a unit at priority info: a recorded session that floods its terminal can have its session-ended event dropped' \
    'set "limit": { "action": "delay" } in /etc/tlog/tlog-rec.conf (a flood is slowed to limit.rate, all of it recorded), or "drop" (what exceeds limit.rate is not recorded)'
  ;;
journal_budget_tlog_delay_within_budget)
  fake_tlog_rec 0755
  mkdir -p "$root/usr/share/tlog" "$root/etc/tlog"
  printf '{ "payload": 2048, "latency": 10, "limit": { "rate": 16384, "burst": 32768, "action": "pass" } }\n' \
    >"$root/usr/share/tlog/tlog-rec.default.conf"
  printf '{ "limit": { "action": "delay" } }\n' >"$root/etc/tlog/tlog-rec.conf"
  run
  expect_finding ok "journal budget: tlog-rec writes at most 260 messages in RateLimitIntervalSec=30s, journald takes RateLimitBurst=10000 from the session's unit: a flood leaves room for the session-ended event"
  ;;
journal_budget_flood_can_drop_session_end)
  fake_tlog_rec 0755
  mkdir -p "$root/etc/tlog" "$root/etc/systemd/journald.conf.d"
  printf '{\n  // raised by an administrator\n  "limit": { "rate": 1048576, /* 1 MB/s */ "burst": 1048576, "action": "drop" }\n}\n' >"$root/etc/tlog/tlog-rec.conf"
  printf '[Journal]\nRateLimitIntervalSec=10s\n' >"$root/etc/systemd/journald.conf"
  printf '[Journal]\nRateLimitBurst=5000\n' >"$root/etc/systemd/journald.conf.d/20-site.conf"
  run
  expect_rc 1
  expect_finding warning "journal budget: tlog-rec may write 5634 messages in RateLimitIntervalSec=10s (limit.rate 1048576, payload 2048), journald takes RateLimitBurst=5000 from a unit at priority info: a recorded session that floods its terminal can have its session-ended event dropped" \
    "lower limit.rate in /etc/tlog/tlog-rec.conf (16384 writes about 260 messages in 30 s), or raise RateLimitBurst= in /etc/systemd/journald.conf.d/50-bwsh.conf to twice what tlog-rec writes"
  ;;

landlock_off)
  write_policy <<'EOF'
landlock = { mode = "off"; };
EOF
  run
  grep -qE '^note: landlock: off in the policy \(kernel ABI [0-9]+\)$' "$tmp/out" || fail "landlock off note"
  ;;

*)
  echo "unknown case $case" >&2
  exit 2
  ;;
esac
echo "PASS ($case)"
