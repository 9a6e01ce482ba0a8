#!/bin/sh
# pam_bwsh under real programs: the libpam harness and pamtester under
# valgrind, pamtester with an AddressSanitizer build of the module, and su
# with the module in its real session stack.  pam_stacks.sh CASE
set -eu
. "$(dirname "$0")/lib.sh"
enter_namespace "$@"
setup

case_name=$1
CONF="$T/etc/bwsh.conf"

VALGRIND="valgrind -q --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --error-exitcode=99"

# A subject with an overlay that exercises the whole plan: a read-only
# bind, a read-write bind under $HOME, and an entry that is refused.
subject_with_overlay ()
{
  make_user "$BWSH_BINDIR/bwsh"
  SUBJECT=$U
  # The administrator allows these binds (issue 24's allow-list): of the
  # overlay's four entries, only the read-write /etc is refused.
  write_policy "subjects = { users = [\"$U\"]; }; rw_ceilings = [ \"~\" ]; ro_ceilings = [ \"/opt\", \"/nonexistent\" ];"
  mkdir -p "$T/home/$U/.config/bwsh" "$T/home/$U/work"
  printf '{"preferences":{"sandboxBwrapMounts":{"additionalROBinds":["/opt", "/nonexistent"],
    "additionalBinds":["%s/work", "/etc"]}}}\n' "$T/home/$U" >"$T/home/$U/.config/bwsh/config.json"
  chown -R "$U:" "$T/home/$U/.config" "$T/home/$U/work"
  chmod 0600 "$T/home/$U/.config/bwsh/config.json"
}

# bind_pam_d DIR: DIR becomes /etc/pam.d in this namespace only.
bind_pam_d ()
{
  mount --bind "$1" /etc/pam.d
}

case $case_name in

valgrind_harness)
  # Every path through the module, in a process that keeps running after
  # it (as sshd does): no invalid access, no leak, no descriptor left.
  command -v valgrind >/dev/null || skip "valgrind is not installed"
  subject_with_overlay
  printf 'session required %s policy=%s\n' "$BWSH_PAM_MODULE" "$CONF" >"$T/pam/login"
  run ()
  {
    expect=$1
    shift
    RC=0
    $VALGRIND "$BWSH_PAM_HARNESS" --expect "$expect" "$@" >"$T/out" 2>&1 || RC=$?
    sed 's/^/  | /' "$T/out"
    [ "$RC" -ne 99 ] || fail "valgrind found errors ($*)"
    [ "$RC" -eq 0 ] || fail "harness status $RC ($*)"
  }
  run PAM_SUCCESS --env LD_PRELOAD=/x.so --env TERM=xterm "$T/pam" login "$SUBJECT"
  grep -q '^env: BWSH_PLAN=' "$T/out" || fail "no BWSH_PLAN"
  # Hostile overlay: a symlink.
  ln -sf /etc/shadow "$T/home/$SUBJECT/.config/bwsh/config.json"
  run PAM_SUCCESS "$T/pam" login "$SUBJECT"
  # Strict refusal, refused service, require_shell, bad policy, non-subject, bad option.
  write_policy "subjects = { users = [\"$SUBJECT\"]; }; strict = true;"
  rm "$T/home/$SUBJECT/.config/bwsh/config.json"
  printf '{"preferences":{"sandboxBwrapMounts":{"additionalBinds":["/etc"]}}}\n' \
    >"$T/home/$SUBJECT/.config/bwsh/config.json"
  chown "$SUBJECT:" "$T/home/$SUBJECT/.config/bwsh/config.json"
  run PAM_PERM_DENIED "$T/pam" login "$SUBJECT"
  write_policy "subjects = { users = [\"$SUBJECT\"]; };"
  printf 'session required %s policy=%s\n' "$BWSH_PAM_MODULE" "$CONF" >"$T/pam/cron"
  run PAM_PERM_DENIED "$T/pam" cron "$SUBJECT"
  make_user /bin/bash
  write_policy "subjects = { users = [\"$SUBJECT\", \"$U\"]; };"
  run PAM_PERM_DENIED "$T/pam" login "$U"
  write_policy "subjects = { users = [\"$SUBJECT\"]; }; bogus = 1;"
  # The last good policy (kept by the logins above) decides; without it the
  # error refuses the bwsh account.
  run PAM_SUCCESS "$T/pam" login "$SUBJECT"
  rm -rf "$BWSH_TEST_LKG_DIR"
  run PAM_PERM_DENIED "$T/pam" login "$SUBJECT"
  write_policy "subjects = { users = [\"$SUBJECT\"]; };"
  printf 'session required %s policy=%s\nsession required pam_permit.so\n' "$BWSH_PAM_MODULE" "$CONF" \
    >"$T/pam/other-user"
  run PAM_SUCCESS "$T/pam" other-user root
  printf 'session required %s policy=%s debug typo\n' "$BWSH_PAM_MODULE" "$CONF" >"$T/pam/typo"
  run PAM_SERVICE_ERR "$T/pam" typo "$SUBJECT"
  ;;

valgrind_pamtester)
  command -v valgrind >/dev/null || skip "valgrind is not installed"
  command -v pamtester >/dev/null || skip "pamtester is not installed"
  subject_with_overlay
  mkdir -m 0755 "$T/pam.d"
  printf 'session required %s policy=%s\n' "$BWSH_PAM_MODULE" "$CONF" >"$T/pam.d/login"
  bind_pam_d "$T/pam.d"
  RC=0
  $VALGRIND pamtester -v -I rhost=client.example -I tty=pts/3 login "$SUBJECT" open_session close_session \
    >"$T/out" 2>&1 || RC=$?
  sed 's/^/  | /' "$T/out"
  [ "$RC" -ne 99 ] || fail "valgrind found errors under pamtester"
  [ "$RC" -eq 0 ] || fail "pamtester status $RC"
  wait_log "session open user=\"$SUBJECT\" service=\"login\" rhost=\"client.example\" tty=\"pts/3\" outcome=accepted"
  wait_log "session close user=\"$SUBJECT\" service=\"login\" rhost=\"client.example\" tty=\"pts/3\" outcome=closed"
  wait_log "refusals=1"
  ;;

asan_pamtester)
  # The module built with AddressSanitizer and UBSan, loaded into an
  # uninstrumented pamtester (the runtime must come first: LD_PRELOAD).
  command -v pamtester >/dev/null || skip "pamtester is not installed"
  : "${BWSH_PAM_ASAN_MODULE:?}" "${BWSH_PAM_ASAN_RUNTIME:?}"
  [ -f "$BWSH_PAM_ASAN_RUNTIME" ] || fail "no ASan runtime at $BWSH_PAM_ASAN_RUNTIME"
  readelf -d "$BWSH_PAM_ASAN_MODULE" | grep -q 'NEEDED.*libasan' || fail "the module is not instrumented"
  subject_with_overlay
  mkdir -m 0755 "$T/pam.d"
  printf 'session required %s policy=%s\n' "$BWSH_PAM_ASAN_MODULE" "$CONF" >"$T/pam.d/login"
  printf 'session required %s policy=%s\n' "$BWSH_PAM_ASAN_MODULE" "$CONF" >"$T/pam.d/cron"
  bind_pam_d "$T/pam.d"
  asan ()
  {
    RC=0
    LD_PRELOAD=$BWSH_PAM_ASAN_RUNTIME ASAN_OPTIONS=detect_leaks=1:exitcode=98 \
      UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=98 \
      pamtester -v "$@" >"$T/out" 2>&1 || RC=$?
    sed 's/^/  | /' "$T/out"
    ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$T/out" ||
      fail "a sanitizer reported an error ($*)"
    [ "$RC" -ne 98 ] || fail "a sanitizer reported an error ($*)"
  }
  asan login "$SUBJECT" open_session close_session
  [ "$RC" -eq 0 ] || fail "pamtester status $RC"
  wait_log "session open user=\"$SUBJECT\" service=\"login\""
  ln -sf /etc/shadow "$T/home/$SUBJECT/.config/bwsh/config.json"
  asan login "$SUBJECT" open_session close_session
  [ "$RC" -eq 0 ] || fail "pamtester status $RC"
  asan cron "$SUBJECT" open_session
  [ "$RC" -ne 0 ] || fail "pamtester opened a cron session for a subject"
  grep -qF "bwsh: service cron never runs the login shell; refused for sandboxed user $SUBJECT" "$T/out" ||
    fail "no refusal message"
  ;;

su_real_stack)
  # su - USER with the module at the end of su's real session stack (a
  # copy of this machine's /etc/pam.d, bound over it in this namespace).
  # "su -" runs the su-l service, which includes su.
  command -v su >/dev/null || skip "su is not installed"
  make_user "$BWSH_BINDIR/bwsh"
  SUBJECT=$U
  make_user /bin/bash
  BASHUSER=$U
  # bwrap must be able to run for the user at all; that is the only skip.
  setpriv --reuid "$SUBJECT" --regid "$(id -g "$SUBJECT")" --clear-groups \
    bwrap --ro-bind / / --unshare-user --unshare-pid true 2>"$T/bwrap.err" ||
    skip "bwrap cannot run for an unprivileged user here: $(cat "$T/bwrap.err")"
  write_policy "subjects = { users = [\"$SUBJECT\", \"$BASHUSER\"]; };"
  cp -a /etc/pam.d "$T/pam.d"
  printf '\n# added by the pam_bwsh test\nsession required %s policy=%s\n' "$BWSH_PAM_MODULE" "$CONF" \
    >>"$T/pam.d/su"
  bind_pam_d "$T/pam.d"
  grep -qF "$BWSH_PAM_MODULE" /etc/pam.d/su || fail "the namespace does not see the test stack"

  RC=0
  # shellcheck disable=SC2016 # expanded by the user's shell
  su - "$SUBJECT" -c 'echo "uid=$(id -u) pid1=$(cat /proc/1/comm)"' </dev/null >"$T/out" 2>&1 || RC=$?
  sed 's/^/  | /' "$T/out"
  [ "$RC" -eq 0 ] || fail "su status $RC"
  # pid 1 of a bwrap --unshare-pid sandbox is bwrap itself.
  assert_out "uid=$(id -u "$SUBJECT") pid1=bwrap"
  wait_log "session open user=\"$SUBJECT\" service=\"su-l\""
  wait_log "session close user=\"$SUBJECT\" service=\"su-l\""
  plan=$(sed -n "s/.*session open user=\"$SUBJECT\" service=\"su-l\" .*outcome=accepted digest=\([0-9a-f]*\) .*/\1/p" \
    "$T/syslog")
  echo "$plan" | grep -qxE '[0-9a-f]{64}' || fail "no digest in the su audit line"
  # bwsh got BWSH_PLAN through su and computed the same plan itself.
  log_lacks "plan for $SUBJECT differs"

  # The module checks a plan that is not the one bwsh will run (here: the
  # module's policy is strict, bwsh's compiled-in one is not): bwsh says so.
  write_policy "subjects = { users = [\"$SUBJECT\", \"$BASHUSER\"]; }; strict = true;"
  su - "$SUBJECT" -c 'true' </dev/null >"$T/out" 2>&1 || fail "su status $?"
  wait_log "plan for $SUBJECT differs from the one pam_bwsh checked"

  # A subject with bash as the login shell: su is refused, nothing runs.
  RC=0
  su - "$BASHUSER" -c 'echo RAN-UNSANDBOXED' </dev/null >"$T/out" 2>&1 || RC=$?
  sed 's/^/  | /' "$T/out"
  [ "$RC" -ne 0 ] || fail "su succeeded for a subject whose shell is bash"
  assert_out_lacks "RAN-UNSANDBOXED"
  assert_out_has "bwsh: the login shell of sandboxed user $BASHUSER is /bin/bash, not $BWSH_BINDIR/bwsh (require_shell)"
  wait_log "session open user=\"$BASHUSER\" service=\"su-l\" rhost=\"-\""
  ;;

*)
  fail "unknown case $case_name"
  ;;
esac
echo "ok: $case_name"
