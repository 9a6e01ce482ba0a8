#!/bin/sh
# pam_bwsh against a real libpam stack (pam_start_confdir on a service file
# in a temporary directory).  One CTest test per case, each named after what
# it stops:  pam_cases.sh CASE
set -eu
. "$(dirname "$0")/lib.sh"
enter_namespace "$@"
setup

case_name=$1
CONF="$T/etc/bwsh.conf"

subject_policy ()
{
  write_policy "subjects = { users = [\"$1\"]; };
$2"
}

# A user config in the subject's home, written as the user would.
user_config_dir ()
{
  mkdir -p "$T/home/$U/.config/bwsh"
  chown -R "$U:" "$T/home/$U/.config"
  chmod 0700 "$T/home/$U/.config" "$T/home/$U/.config/bwsh"
  CFG="$T/home/$U/.config/bwsh/config.json"
}

# The digest of this user's plan with no overlay at all: what a hostile
# overlay must come down to ("no additions").
baseline_plan ()
{
  write_service login "policy=$CONF"
  harness --expect PAM_SUCCESS "$T/pam" login "$U"
  BASELINE=$(plan_of)
  [ ${#BASELINE} -eq 64 ] || fail "no baseline plan"
}

# hostile_overlay DESCRIPTION EXPECTED-WARNING: the config at $CFG is
# already in place; the session must still open, with no additions, a
# warning naming the reason, and nothing of /etc/shadow anywhere.
hostile_overlay ()
{
  write_service login "policy=$CONF"
  start=$(date +%s)
  harness --expect PAM_SUCCESS "$T/pam" login "$U"
  [ "$RC" -eq 0 ] || fail "$1: the session did not open (harness status $RC)"
  [ $(($(date +%s) - start)) -lt 10 ] || fail "$1: the login took too long"
  [ "$(plan_of)" = "$BASELINE" ] || fail "$1: the overlay changed the plan"
  wait_log "$U: $CFG: $2; user configuration ignored"
  wait_log "session open user=\"$U\" service=\"login\""
  # The overlay pointed at /etc/shadow or another root file: no line of it
  # may reach the user or the log.
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    ! grep -qF -- "$line" "$T/out" || fail "$1: /etc/shadow content reached the user"
    ! grep -qF -- "$line" "$T/syslog" || fail "$1: /etc/shadow content reached the log"
  done </etc/shadow
  ! grep -qF "BWSH-SECRET" "$T/out" "$T/syslog" || fail "$1: a secret file's content leaked"
}

case $case_name in

non_subject_is_ignored)
  # Not named in "subjects": PAM_IGNORE, the stack decides (pam_permit
  # here), and the module touches nothing: no scrub, no plan, no audit.
  make_user /bin/bash
  write_policy 'subjects = { users = ["nobody-in-particular"]; };'
  write_service login "policy=$CONF"
  printf 'session required pam_permit.so\n' >>"$T/pam/login"
  harness --expect PAM_SUCCESS --env LD_PRELOAD=/x.so "$T/pam" login "$U"
  [ "$RC" -eq 0 ] || fail "harness status $RC"
  assert_out "env: LD_PRELOAD=/x.so"
  assert_out_lacks "env: BWSH_PLAN="
  [ ! -e "$T/home/$U/project" ] || fail "a project directory was made for a non-subject"
  # Alone in the stack, the module's PAM_IGNORE leaves no module that said
  # yes: libpam fails the stack rather than treating it as success.
  write_service alone "policy=$CONF"
  harness "$T/pam" alone "$U"
  assert_out "open=PAM_PERM_DENIED"
  log_lacks "session open"
  ;;

subject_session_opens_audited)
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  write_service sshd "policy=$CONF"
  harness --expect PAM_SUCCESS "$T/pam" sshd "$U"
  [ "$RC" -eq 0 ] || fail "harness status $RC"
  plan=$(plan_of)
  echo "$plan" | grep -qxE '[0-9a-f]{64}' || fail "BWSH_PLAN is not 64 hex characters: [$plan]"
  assert_out "close=PAM_SUCCESS"
  wait_log "session open user=\"$U\" service=\"sshd\" rhost=\"-\" tty=\"-\" outcome=accepted digest=$plan mounts="
  wait_log "session close user=\"$U\" service=\"sshd\" rhost=\"-\" tty=\"-\" outcome=closed digest=$plan mounts="
  # No journal in this namespace (a private /run): the syslog line, with
  # what the service runs, and no journal socket was needed for it.
  wait_log "refusals=0 command=\"$BWSH_BINDIR/bwsh\""
  [ ! -e /run/systemd/journal/socket ] || fail "(control) a journal socket exists here"
  # The project directory, created as the user, private.
  [ "$(stat -c '%U %a %F' "$T/home/$U/project")" = "$U 700 directory" ] ||
    fail "project directory: $(stat -c '%U %a %F' "$T/home/$U/project")"
  ;;

audit_line_escapes_rhost)
  # PAM_RHOST and PAM_TTY come from outside (DNS, the client, the service):
  # a forged line break or quote must not forge a log record or a field.
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  write_service sshd "policy=$CONF"
  harness --expect PAM_SUCCESS --rhost 'evil
session open user="root" outcome=accepted' --tty '/dev/pts/9" outcome=accepted' "$T/pam" sshd "$U"
  [ "$RC" -eq 0 ] || fail "harness status $RC"
  wait_log "session open user=\"$U\" service=\"sshd\" rhost=\"evil\\x0asession open user=\\x22root\\x22 outcome=accepted\" tty=\"/dev/pts/9\\x22 outcome=accepted\" outcome=accepted digest=$(plan_of)"
  ;;

ld_preload_scrubbed_for_subject)
  # ~/.pam_environment (pam_env user_readenv=1) or a service could hand
  # these to bwsh, which runs on the host before the sandbox exists.
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  write_service sshd "policy=$CONF"
  # shellcheck disable=SC2016 # a hostile value, literal on purpose
  harness --expect PAM_SUCCESS \
    --env LD_PRELOAD=/tmp/evil.so --env LD_LIBRARY_PATH=/tmp --env LD_AUDIT=/tmp/a.so \
    --env BASH_ENV=/tmp/rc --env ENV=/tmp/rc --env 'BASH_FUNC_id%%=() { evil; }' \
    --env SHELLOPTS=xtrace --env BASHOPTS=extdebug --env 'PS4=$(evil)' --env GCONV_PATH=/tmp \
    --env GLIBC_TUNABLES=glibc.malloc.check=3 --env LOCPATH=/tmp --env NLSPATH=/tmp/%N \
    --env HOSTALIASES=/tmp/h --env RES_OPTIONS=debug --env LOCALDOMAIN=evil --env TMPDIR=/tmp/x \
    --env BWSH_TEST_LANDLOCK_ABI=0 --env BWSH_PLAN=forged \
    --env TERM=xterm-256color --env LANG=C.UTF-8 \
    "$T/pam" sshd "$U"
  [ "$RC" -eq 0 ] || fail "harness status $RC"
  for v in LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT BASH_ENV ENV BASH_FUNC_id%% SHELLOPTS BASHOPTS PS4 \
    GCONV_PATH GLIBC_TUNABLES LOCPATH NLSPATH HOSTALIASES RES_OPTIONS LOCALDOMAIN TMPDIR \
    BWSH_TEST_LANDLOCK_ABI; do
    ! grep -q "^env: $v=" "$T/out" || fail "$v survived the scrub"
    wait_log "removed $v from the PAM environment of $U"
  done
  # Harmless variables stay; BWSH_PLAN is ours, not the forged one.
  assert_out "env: TERM=xterm-256color"
  assert_out "env: LANG=C.UTF-8"
  assert_out_lacks "env: BWSH_PLAN=forged"
  plan_of | grep -qxE '[0-9a-f]{64}' || fail "BWSH_PLAN is not 64 hex characters"
  ;;

policy_syntax_error_refuses_session)
  make_user "$BWSH_BINDIR/bwsh"
  write_policy "subjects = { users = [\"$U\"]; };
strict = maybe;"
  write_service login "policy=$CONF"
  harness --expect PAM_PERM_DENIED "$T/pam" login "$U"
  [ "$RC" -eq 0 ] || fail "harness status $RC"
  # The user hears one line; the file and line are the administrator's (#38).
  assert_out "conv: error: bwsh: the sandbox policy cannot be used (the administrator has the details); no last good policy: refused"
  assert_out_lacks "$CONF"
  wait_log "session refused for $U: the sandbox policy cannot be used: $CONF:2"
  wait_log "session open user=\"$U\" service=\"login\" rhost=\"-\" tty=\"-\" outcome=refused digest=-"
  assert_out_lacks "env: BWSH_PLAN="
  ;;

policy_unknown_setting_refuses_session)
  # A typo in the policy must not weaken it: it refuses the session.
  make_user "$BWSH_BINDIR/bwsh"
  write_policy "subjects = { users = [\"$U\"]; };
requre_shell = false;"
  write_service login "policy=$CONF"
  harness --expect PAM_PERM_DENIED "$T/pam" login "$U"
  assert_out "conv: error: bwsh: the sandbox policy cannot be used (the administrator has the details); no last good policy: refused"
  wait_log "session refused for $U: the sandbox policy cannot be used: $CONF:2: unknown setting \"requre_shell\""
  ;;

policy_world_writable_refuses_session)
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  chmod 0666 "$CONF"
  write_service login "policy=$CONF"
  harness --expect PAM_PERM_DENIED "$T/pam" login "$U"
  assert_out "conv: error: bwsh: the sandbox policy cannot be used (the administrator has the details); no last good policy: refused"
  wait_log "session refused for $U: the sandbox policy cannot be used: $CONF"
  grep -qF "writable" "$T/syslog" || fail "syslog does not say writable"
  ;;

policy_owned_by_user_refuses_session)
  # The adversary's own policy would name nobody a subject.
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  chown "$U" "$CONF"
  write_service login "policy=$CONF"
  harness --expect PAM_PERM_DENIED "$T/pam" login "$U"
  assert_out "conv: error: bwsh: the sandbox policy cannot be used (the administrator has the details); no last good policy: refused"
  wait_log "session refused for $U: the sandbox policy cannot be used: $CONF"
  grep -qF "owned by uid" "$T/syslog" || fail "syslog does not say owned by uid"
  ;;

overlay_symlink_to_shadow_ignored)
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  user_config_dir
  baseline_plan
  ln -s /etc/shadow "$CFG"
  hostile_overlay "symlink to /etc/shadow" "is a symbolic link (refused)"
  ;;

overlay_root_only_file_read_as_user)
  # The overlay is read with the user's filesystem identity: a file only
  # root may read stays unread, whatever its content.
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  user_config_dir
  baseline_plan
  printf '{"BWSH-SECRET": 1}\n' >"$CFG"
  chmod 0600 "$CFG"
  hostile_overlay "root-only file" "cannot open: Permission denied"
  # Readable, but root's: not the user's word either.
  chmod 0644 "$CFG"
  hostile_overlay "root-owned file" "is owned by uid 0, not by the user (refused)"
  ;;

overlay_fifo_does_not_block_login)
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  user_config_dir
  baseline_plan
  mkfifo -m 0600 "$CFG"
  chown "$U:" "$CFG"
  hostile_overlay "FIFO" "is a FIFO, not a regular file (refused)"
  ;;

overlay_dev_zero_ignored)
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  user_config_dir
  baseline_plan
  ln -s /dev/zero "$CFG"
  hostile_overlay "symlink to /dev/zero" "is a symbolic link (refused)"
  rm "$CFG"
  mknod -m 0600 "$CFG" c 1 5
  chown "$U:" "$CFG"
  hostile_overlay "a /dev/zero device node" "is a device, not a regular file (refused)"
  ;;

overlay_world_writable_ignored)
  # Anyone could have written it: not the user's word.
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  user_config_dir
  baseline_plan
  printf '{"preferences":{"sandboxBwrapMounts":{"additionalROBinds":["/opt"]}}}\n' >"$CFG"
  chown "$U:" "$CFG"
  chmod 0666 "$CFG"
  hostile_overlay "world-writable" "is group- or world-writable (mode 0666, refused)"
  ;;

overlay_other_owner_ignored)
  make_user "$BWSH_BINDIR/bwsh"
  other=$U
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  user_config_dir
  baseline_plan
  printf '{"preferences":{"sandboxBwrapMounts":{"additionalROBinds":["/opt"]}}}\n' >"$CFG"
  chown "$other:" "$CFG"
  chmod 0644 "$CFG"
  hostile_overlay "owned by another user" "is owned by uid $(id -u "$other"), not by the user (refused)"
  ;;

overlay_1mib_ignored)
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  user_config_dir
  baseline_plan
  { printf '{"x":"'; head -c 1048576 /dev/zero | tr '\0' a; printf '"}\n'; } >"$CFG"
  chown "$U:" "$CFG"
  chmod 0600 "$CFG"
  hostile_overlay "1 MiB" "is larger than 65536 bytes (refused)"
  ;;

overlay_refused_entry_strict_refuses)
  # A read-write bind outside $HOME is refused; the session still opens and
  # the audit line counts the refusal; a strict policy refuses the session.
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  user_config_dir
  printf '{"preferences":{"sandboxBwrapMounts":{"additionalBinds":["/etc"]}}}\n' >"$CFG"
  chown "$U:" "$CFG"
  chmod 0600 "$CFG"
  write_service login "policy=$CONF"
  harness --expect PAM_SUCCESS "$T/pam" login "$U"
  [ "$RC" -eq 0 ] || fail "harness status $RC"
  wait_log "outcome=accepted digest=$(plan_of) mounts="
  wait_log "refusals=1"
  subject_policy "$U" "strict = true;"
  harness --expect PAM_PERM_DENIED "$T/pam" login "$U"
  [ "$RC" -eq 0 ] || fail "harness status $RC"
  assert_out "conv: error: bwsh: cannot build the sandbox: strict policy: 1 configuration entry was refused"
  wait_log "session refused for $U: cannot build the sandbox: strict policy: 1 configuration entry was refused"
  assert_out_lacks "env: BWSH_PLAN="
  ;;

require_shell_refuses_bash)
  # A subject whose passwd shell is bash would get an unsandboxed shell
  # from sshd or su; the session is refused before it starts.
  make_user /bin/bash
  subject_policy "$U" ""
  write_service sshd "policy=$CONF"
  harness --expect PAM_PERM_DENIED "$T/pam" sshd "$U"
  [ "$RC" -eq 0 ] || fail "harness status $RC"
  assert_out "conv: error: bwsh: the login shell of sandboxed user $U is /bin/bash, not $BWSH_BINDIR/bwsh (require_shell)"
  wait_log "session refused for $U: the login shell of sandboxed user $U is /bin/bash"
  # require_shell = false: the administrator's explicit choice.
  subject_policy "$U" "require_shell = false;"
  harness --expect PAM_SUCCESS "$T/pam" sshd "$U"
  [ "$RC" -eq 0 ] || fail "harness status $RC"
  ;;

require_shell_refuses_lookalike_bwsh)
  # A file merely called "bwsh" is not bwsh.
  mkdir -m 0755 "$T/fake"
  cp /bin/bash "$T/fake/bwsh"
  make_user "$T/fake/bwsh"
  subject_policy "$U" ""
  write_service sshd "policy=$CONF"
  harness --expect PAM_PERM_DENIED "$T/pam" sshd "$U"
  [ "$RC" -eq 0 ] || fail "harness status $RC"
  assert_out "conv: error: bwsh: the login shell of sandboxed user $U is $T/fake/bwsh, not $BWSH_BINDIR/bwsh (require_shell)"
  ;;

cron_service_refused)
  # cron and atd run /bin/sh -c, never the login shell: a subject's job
  # would run unsandboxed.
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  for svc in cron atd; do
    write_service "$svc" "policy=$CONF"
    harness --expect PAM_PERM_DENIED "$T/pam" "$svc" "$U"
    [ "$RC" -eq 0 ] || fail "$svc: harness status $RC"
    assert_out "conv: error: bwsh: service $svc never runs the login shell; refused for sandboxed user $U"
    wait_log "session open user=\"$U\" service=\"$svc\" rhost=\"-\" tty=\"-\" outcome=refused"
  done
  # The policy's own list replaces the default.
  subject_policy "$U" 'refused_services = ["batchjob"];'
  write_service batchjob "policy=$CONF"
  harness --expect PAM_PERM_DENIED "$T/pam" batchjob "$U"
  assert_out "conv: error: bwsh: service batchjob never runs the login shell; refused for sandboxed user $U"
  ;;

documented_messages_are_what_pam_bwsh_says)
  # Every message admin-guide.md's pam_bwsh table quotes is what the module
  # says to the user (conv) or to syslog, checked by tests/doc_messages.py.
  SRC=$(cd "$(dirname "$0")/../.." && pwd)
  : >"$T/real"
  # h ARGS: the harness; what the user was told, and the log, with this
  # test's names put back to the guide's (alice, /etc/bwsh/bwsh.conf).
  h ()
  {
    harness "$@"
    { sed -n 's/^conv: error: //p' "$T/out"; sed 's/^.*pam_bwsh([^)]*): //' "$T/syslog"; } |
      sed -e "s|$CONF|/etc/bwsh/bwsh.conf|g" -e "s|$BWSH_BINDIR/bwsh|/usr/bin/bwsh|g" \
        -e "s|$T/home/$U|/home/alice|g" -e "s|$U|alice|g" >>"$T/real"
  }
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  write_service cron "policy=$CONF"
  h --expect PAM_PERM_DENIED "$T/pam" cron "$U"
  write_service sshd "policy=$CONF"
  h --expect PAM_SUCCESS --env LD_PRELOAD=/tmp/evil.so "$T/pam" sshd "$U"
  wait_log "removed LD_PRELOAD"
  write_service login "policy=$CONF polcy=/x"
  h --expect PAM_SERVICE_ERR "$T/pam" login "$U"
  wait_log 'unknown or invalid option "polcy=/x"'
  write_policy "subjects = { users = [\"$U\"]; };
#
#
network = \"nowhere\";"
  write_service login "policy=$CONF"
  # No last good policy (the sshd login above kept one): the error refuses.
  rm -rf "$BWSH_TEST_LKG_DIR"
  h --expect PAM_PERM_DENIED "$T/pam" login "$U"
  subject_policy "$U" ""
  rm -rf "$T/home/$U/project"
  touch "$T/home/$U/project"
  h --expect PAM_PERM_DENIED "$T/pam" login "$U"
  rm -f "$T/home/$U/project"
  # max_sessions: two live sessions of the user in the registry (this
  # namespace's /run), in the user's place of pam_bwsh's entries, held by
  # processes that live longer than the check.
  # shellcheck disable=SC2174 # every directory is named, so each gets the mode
  mkdir -p -m 0755 /run/bwsh /run/bwsh/sessions /run/bwsh/sessions/uid "/run/bwsh/sessions/uid/$(id -u "$U")"
  for pid in 1 $$; do
    start=$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f20)
    printf '{"user":"%s","uid":%s,"pid":%s,"pid_start":%s,"service":"sshd","rhost":"-","tty":"-","command":"-","policy":"-","plan_digest":"-","policy_digest":"-","start":0}' \
      "$U" "$(id -u "$U")" "$pid" "$start" >"/run/bwsh/sessions/uid/$(id -u "$U")/$pid-$start-0"
  done
  subject_policy "$U" "max_sessions = 2;"
  h --expect PAM_PERM_DENIED "$T/pam" login "$U"
  rm -f /run/bwsh/sessions/uid/*/*-*
  make_user /bin/bash
  subject_policy "$U" ""
  h --expect PAM_PERM_DENIED "$T/pam" login "$U"
  res=$(python3 "$SRC/tests/doc_messages.py" "$SRC" "$T/real" pam)
  case $res in
    "ok "*) echo "$res quoted messages checked" ;;
    *) sed 's/^/  real| /' "$T/real" >&2; fail "quoted but never said: $res" ;;
  esac
  ;;

services_allow_list)
  # Only the services that run the login shell open a subject's session:
  # any other would run the subject's programs without bwsh (systemd-user
  # runs ~/.config/systemd/user units, cockpit a shell, samba and ftp
  # daemons file access, display managers a desktop session).
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  for svc in sshd login su su-l runuser-l; do
    write_service "$svc" "policy=$CONF"
    harness --expect PAM_SUCCESS "$T/pam" "$svc" "$U"
    [ "$RC" -eq 0 ] || fail "$svc: harness status $RC"
    wait_log "session open user=\"$U\" service=\"$svc\" rhost=\"-\" tty=\"-\" outcome=accepted"
  done
  for svc in systemd-user cockpit samba vsftpd gdm-password sshd-custom; do
    write_service "$svc" "policy=$CONF"
    harness --expect PAM_PERM_DENIED "$T/pam" "$svc" "$U"
    [ "$RC" -eq 0 ] || fail "$svc: harness status $RC"
    assert_out "conv: error: bwsh: service $svc never runs the login shell; refused for sandboxed user $U"
    wait_log "session refused for $U: service $svc never runs the login shell; refused for sandboxed user $U"
    wait_log "session open user=\"$U\" service=\"$svc\" rhost=\"-\" tty=\"-\" outcome=refused"
  done
  # The policy names another service that runs the login shell ...
  subject_policy "$U" 'allowed_services = ["sshd-custom"];'
  write_service sshd-custom "policy=$CONF"
  harness --expect PAM_SUCCESS "$T/pam" sshd-custom "$U"
  [ "$RC" -eq 0 ] || fail "sshd-custom: harness status $RC"
  # ... and refused_services still wins over both lists.
  subject_policy "$U" 'allowed_services = ["sshd-custom"]; refused_services = ["sshd-custom", "su"];'
  for svc in sshd-custom su; do
    write_service "$svc" "policy=$CONF"
    harness --expect PAM_PERM_DENIED "$T/pam" "$svc" "$U"
    assert_out "conv: error: bwsh: service $svc never runs the login shell; refused for sandboxed user $U"
  done
  ;;

unknown_option_refused)
  # "polcy=" must not silently mean "the default policy".
  make_user "$BWSH_BINDIR/bwsh"
  subject_policy "$U" ""
  write_service login "policy=$CONF polcy=/etc/other.conf"
  harness --expect PAM_SERVICE_ERR "$T/pam" login "$U"
  [ "$RC" -eq 0 ] || fail "harness status $RC"
  wait_log 'unknown or invalid option "polcy=/etc/other.conf"'
  write_service login "policy=relative.conf"
  harness --expect PAM_SERVICE_ERR "$T/pam" login "$U"
  [ "$RC" -eq 0 ] || fail "harness status $RC"
  wait_log 'unknown or invalid option "policy=relative.conf"'
  ;;

*)
  fail "unknown case $case_name"
  ;;
esac
echo "ok: $case_name"
