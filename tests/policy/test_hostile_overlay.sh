#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A hostile user overlay tries to get past the administrator's policy.  Each
# attempt is refused with its reason on a "bwsh: warning:" line and has no
# effect inside; with strict = true the whole session is refused and
# nothing runs.
#   test_hostile_overlay.sh ATTACK
set -u
. "$(dirname "$0")/pol_lib.sh"
pol_setup

attack=${1:?usage: $0 ATTACK}
H=$IT_HOME
UC=$H/.config/bwsh/config.json
pol_project

user_dir()
{
  local d
  for d in "$@"; do
    mkdir -p "$d" && chown "$IT_USER:" "$d" && chmod 0755 "$d"
  done
}

mounts() # mounts KIND JSON-LIST
{
  it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"$1\": $2 } } }"
}

# POLICY (without strict), CHECK (a command whose output proves no effect),
# EXPECT (its output), WARNING (the refusal's reason)
case $attack in
  rw_bind_outside_rw_ceiling)
    # The user owns the directory, but it is outside the read-write ceilings.
    user_dir "$IT_TMP/mine"
    POLICY=''
    mounts additionalBinds "[ \"$IT_TMP/mine\" ]"
    CHECK="touch '$IT_TMP/mine/f' 2>/dev/null && echo written || echo not-written"
    EXPECT=not-written
    WARNING="$IT_TMP/mine: read-write binds are only allowed under the read-write ceilings (the project directory, and what the policy's rw_ceilings adds)"
    ;;
  rw_bind_symlink_out_of_rw_ceiling)
    # Inside $HOME by name, outside it once resolved.
    user_dir "$IT_TMP/mine"
    ln -s "$IT_TMP/mine" "$H/link" && chown -h "$IT_USER:" "$H/link"
    POLICY='rw_ceilings = [ "~" ];'
    mounts additionalBinds "[ \"$H/link\" ]"
    CHECK="touch '$IT_TMP/mine/f' 2>/dev/null && echo written || echo not-written"
    EXPECT=not-written
    WARNING="$H/link: resolves to $IT_TMP/mine: read-write binds are only allowed under the read-write ceilings"
    ;;
  rw_bind_destination_outside_rw_ceiling)
    # A writable source in $HOME mounted over a path outside the ceilings.
    user_dir "$H/w"
    POLICY='rw_ceilings = [ "~" ];'
    it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalBinds\": [ { \"src\": \"$H/w\", \"dst\": \"/opt/w\" } ] } } }"
    CHECK='test -e /opt/w && echo mounted || echo absent'
    EXPECT=absent
    WARNING="/opt/w: destination read-write binds are only allowed under the read-write ceilings"
    ;;
  ro_bind_outside_ro_ceiling)
    # Under /srv, which no refused place covers: only the allow-list stops it.
    srv=$(mktemp -d /srv/bwsh-it-ro.XXXXXX) && chmod 755 "$srv" && it_defer rm -rf "$srv"
    user_dir "$srv/allowed" "$srv/secret"
    echo s >"$srv/secret/f"
    POLICY="ro_ceilings = [ \"$srv/allowed\", \"/usr\" ];"
    mounts additionalROBinds "[ \"$srv/secret\" ]"
    CHECK="cat '$srv/secret/f' 2>/dev/null || echo absent"
    EXPECT=absent
    WARNING="$srv/secret: read-only binds are only allowed under the read-only ceilings (\$HOME, and what the policy's ro_ceilings adds)"
    ;;
  disable_locked_mount)
    echo visible >"$H/readme" && chown "$IT_USER:" "$H/readme"
    POLICY='locked = [ "~" ];'
    mounts disabledDefaultBinds "[ \"$H\" ]"
    # shellcheck disable=SC2016 # expanded in the session
    CHECK='cat "$HOME/readme" 2>/dev/null || echo hidden'
    EXPECT=visible
    WARNING="disabledDefaultBinds $H: is locked and cannot be disabled"
    ;;
  disable_always_locked_etc)
    POLICY=''
    mounts disabledDefaultBinds '[ "/etc" ]'
    CHECK='test -e /etc/passwd && echo etc-there'
    EXPECT=etc-there
    WARNING="disabledDefaultBinds /etc: is locked and cannot be disabled"
    ;;
  disable_policy_forced_bind)
    user_dir "$IT_TMP/forced"
    echo forced >"$IT_TMP/forced/f"
    POLICY="ro_binds = [ \"$IT_TMP/forced\" ];"
    mounts disabledDefaultBinds "[ \"$IT_TMP/forced\" ]"
    CHECK="cat '$IT_TMP/forced/f'"
    EXPECT=forced
    WARNING="disabledDefaultBinds $IT_TMP/forced: is set by the policy and cannot be disabled"
    ;;
  write_into_protected_path)
    it_as_user mkdir -p "$H/.ssh"
    POLICY=''
    mounts additionalBinds "[ \"$H/.ssh\" ]"
    # shellcheck disable=SC2016 # expanded in the session
    CHECK='echo key >>"$HOME/.ssh/authorized_keys" 2>/dev/null && echo written || echo not-written'
    EXPECT=not-written
    WARNING="$H/.ssh: is a protected path and never writable inside the sandbox"
    ;;
  write_policy_protected_path)
    user_dir "$H/audit"
    POLICY='protected = [ "~/.config/bwsh", "~/.ssh", "~/.pam_environment", "~/audit" ];'
    mounts additionalBinds "[ \"$H/audit\" ]"
    # shellcheck disable=SC2016 # expanded in the session
    CHECK='echo x >"$HOME/audit/log" 2>/dev/null && echo written || echo not-written'
    EXPECT=not-written
    WARNING="$H/audit: is a protected path and never writable inside the sandbox"
    ;;
  exceed_mount_limit)
    list=
    # Sources in the home (an overlay never binds /tmp), shown elsewhere.
    for i in 1 2 3 4 5; do
      user_dir "$H/m$i"
      list="$list${list:+, }{ \"src\": \"$H/m$i\", \"dst\": \"/mnt/m$i\" }"
    done
    mounts additionalROBinds "[ $list ]"
    pol_write ''
    base=$(pol_base_mounts)
    max=$((base + 2))
    POLICY="max_mounts = $max;"
    CHECK="for i in 1 2 3 4 5; do test -d /mnt/m\$i && echo -n \$i; done; echo"
    EXPECT=12
    WARNING="/mnt/m5: the policy's limit of $max mounts is reached"
    ;;
  *)
    it_fail "unknown attack $attack"
    exit 1
    ;;
esac

it_check "$attack: refused with a warning, no effect, the rest of the session runs"
pol_write "# hostile overlay: $attack
$POLICY"
pol_session "$CHECK"
pol_assert_ran
it_assert_eq "$EXPECT" "$IT_OUT" "inside the sandbox"
it_assert_err_has "bwsh: warning: $UC:"
it_assert_err_has "$WARNING"
it_assert_absent "$IT_TMP/mine/f"
it_assert_absent "$H/.ssh/authorized_keys"
it_assert_absent "$H/audit/log"

it_check "$attack with strict = true: the whole session is refused"
pol_write "# hostile overlay, strict: $attack
strict = true;
$POLICY"
pol_session "$CHECK"
pol_assert_refused "strict policy: "
it_assert_err_has "$WARNING"
it_assert_eq "" "$IT_OUT" "stdout of a refused session"

it_check "$attack: bwshctl check --user-config reports it and exits 1"
IT_RC=0
setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups "$BWSHCTL" check --user-config "$UC" \
  </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 1
it_assert_err_has "$WARNING"
