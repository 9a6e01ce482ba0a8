#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Escapes through the filesystem and the mount table.  Each case is one CTest
# test (security/CASE); run one by hand with `bash test_filesystem.sh CASE`.
#
# Where a naive wrapper would give a refusal too, the case is built so the
# errno tells the two apart: EROFS (a read-only mount) rather than EACCES (a
# file the user may not write anyway), and EPERM from the seccomp filter for a
# call on a path that does not exist, where the kernel would have answered
# ENOENT before it even checked for privilege.
. "$(dirname "$0")/sec.sh"

# Run the probe over "LABEL SUBCOMMAND ARGS" lines inside one session; the
# output is one "LABEL=ERRNO" line each.
probe_lines()
{
  local script='' label rest
  while read -r label rest; do
    [ -n "$label" ] || continue
    script+="printf '%s=' $label; $SEC_P $rest; "
  done
  it_run "$script"
}

case_home_usr_etc_writes_refused()
{
  echo keep >"$IT_HOME/bwsh-sec-real"
  mkdir "$IT_HOME/bwsh-sec-realdir"
  chown "$IT_USER:" "$IT_HOME/bwsh-sec-real" "$IT_HOME/bwsh-sec-realdir"
  it_check "writes to the real \$HOME, /usr and /etc fail with EROFS, not EACCES"
  probe_lines <<EOF
home create ~/bwsh-sec-real
home_mkdir mkdir ~/bwsh-sec-realdir/sub
usr create /usr/bwsh-sec-new
usr_bin create /usr/bin/bwsh-sec-new
etc create /etc/bwsh-sec-new
etc_passwd create /etc/passwd
EOF
  it_assert_rc 0
  for l in home home_mkdir usr usr_bin etc etc_passwd; do
    sec_assert_line "$l=EROFS"
  done
  it_assert_eq keep "$(cat "$IT_HOME/bwsh-sec-real")" "bwsh-sec-real on the host"
  it_assert_absent "$IT_HOME/bwsh-sec-realdir/sub"
  it_assert_absent /usr/bwsh-sec-new
  it_assert_absent /usr/bin/bwsh-sec-new
  it_assert_absent /etc/bwsh-sec-new

  it_check "a new name in \$HOME is the session's own state: written inside, never on the host"
  probe_lines <<EOF
home_new create ~/bwsh-sec-new
home_newdir mkdir ~/bwsh-sec-dir
EOF
  sec_assert_line "home_new=OK"
  sec_assert_line "home_newdir=OK"
  it_assert_absent "$IT_HOME/bwsh-sec-new"
  it_assert_absent "$IT_HOME/bwsh-sec-dir"

  it_check "the project dir, in contrast, is writable (the probe works)"
  probe_lines <<EOF
project create ~/project/bwsh-sec-new
EOF
  sec_assert_line "project=OK"
  it_assert_exists "$IT_HOME/project/bwsh-sec-new"
}

case_nested_userns_refused()
{
  it_check "unshare -Urm inside the sandbox fails"
  it_run "unshare -Urm sh -c 'echo NESTED-UID=\$(id -u)'; echo rc=\$?"
  sec_assert_line "rc=1"
  it_assert_err_has "unshare failed: Operation not permitted"
  it_assert_out_lacks "NESTED-UID="

  it_check "unshare(CLONE_NEWUSER), clone(CLONE_NEWUSER) give EPERM; clone3 ENOSYS"
  probe_lines <<EOF
unshare unshare-user
clone clone-newuser
clone3 clone3
EOF
  sec_assert_line "unshare=EPERM"
  sec_assert_line "clone=EPERM"
  sec_assert_line "clone3=ENOSYS"
}

case_remount_usr_read_write_refused()
{
  it_check "mount -o remount,rw /usr fails, also after a nested unshare"
  it_run "mount -o remount,rw /usr; echo plain=\$?; unshare -Urm mount -o remount,rw /usr; echo nested=\$?; $SEC_P create /usr/bwsh-sec-new"
  sec_assert_line "nested=1"
  it_assert_out_lacks "plain=0"
  # The nested attempt must stop at the namespace, not at the mount.
  it_assert_err_has "unshare failed: Operation not permitted"
  sec_assert_line "EROFS"
  it_assert_absent /usr/bwsh-sec-new

  it_check "the remount syscall itself is refused by the filter (EPERM, even for a path the kernel would give ENOENT)"
  probe_lines <<EOF
usr remount-rw /usr
missing remount-rw /bwsh-sec-missing
EOF
  sec_assert_line "usr=EPERM"
  sec_assert_line "missing=EPERM"
}

case_umount_usr_refused()
{
  it_check "umount /usr fails and /usr stays"
  it_run "umount /usr; echo plain=\$?; unshare -Urm umount /usr; echo nested=\$?; test -x /usr/bin/bash && echo USR-STILL-THERE"
  it_assert_out_lacks "plain=0"
  sec_assert_line "nested=1"
  it_assert_err_has "unshare failed: Operation not permitted"
  sec_assert_line "USR-STILL-THERE"

  it_check "umount2 gives EPERM from the filter"
  probe_lines <<EOF
usr umount /usr
missing umount /bwsh-sec-missing
EOF
  sec_assert_line "usr=EPERM"
  sec_assert_line "missing=EPERM"
}

case_mount_refused()
{
  it_check "mount(2) gives EPERM, before the kernel looks at the path"
  probe_lines <<EOF
tmp mount /tmp
missing mount /bwsh-sec-missing
EOF
  sec_assert_line "tmp=EPERM"
  sec_assert_line "missing=EPERM"
}

case_pivot_root_refused()
{
  it_check "pivot_root(2) gives EPERM, also from a nested namespace"
  it_run "$SEC_P pivot_root /tmp; unshare -Urm $SEC_P pivot_root /tmp; echo nested=\$?"
  sec_assert_line "EPERM"
  sec_assert_line "nested=1"
  it_assert_err_has "unshare failed: Operation not permitted"
}

case_keyctl_refused()
{
  it_check "keyctl and add_key give EPERM: the kernel keyring is not namespaced"
  probe_lines <<EOF
keyctl keyctl
add_key add_key
EOF
  sec_assert_line "keyctl=EPERM"
  sec_assert_line "add_key=EPERM"
}

case_new_mount_api_refused()
{
  it_check "open_tree and fsopen give ENOSYS"
  probe_lines <<EOF
open_tree open_tree /usr
fsopen fsopen
EOF
  sec_assert_line "open_tree=ENOSYS"
  sec_assert_line "fsopen=ENOSYS"
}

# $HOME read-write through the user's own additionalBinds, with the protected
# paths in place.
rw_home_config()
{
  it_user_config "{\"preferences\":{\"sandboxBwrapMounts\":{\"additionalBinds\":[\"$IT_HOME\"]}}}"
  cp "$IT_HOME/.config/bwsh/config.json" "$IT_TMP/config.orig"
}

case_protected_paths_unwritable_under_rw_home()
{
  rw_home_config
  it_as_user mkdir -m 700 "$IT_HOME/.ssh"
  it_as_user mkdir -p "$IT_HOME/.config/systemd/user"
  it_as_user sh -c "echo orig >'$IT_HOME/.ssh/authorized_keys' && echo orig >'$IT_HOME/.pam_environment' && echo orig >'$IT_HOME/.config/systemd/user/a.service'"

  it_check "with \$HOME read-write, ~/.ssh, ~/.config/systemd and ~/.pam_environment stay read-only"
  probe_lines <<EOF
control create ~/bwsh-sec-rw
ssh_keys create ~/.ssh/authorized_keys
ssh_new create ~/.ssh/bwsh-sec-new
ssh_chmod chmod ~/.ssh/authorized_keys
unit create ~/.config/systemd/user/a.service
unit_new create ~/.config/systemd/user/bwsh-sec-new.service
unit_mkdir mkdir ~/.config/systemd/user/default.target.wants
pam_env create ~/.pam_environment
ssh_rename rename ~/.ssh ~/bwsh-sec-ssh
unit_rename rename ~/.config/systemd ~/bwsh-sec-systemd
pam_env_rename rename ~/.pam_environment ~/bwsh-sec-pam
overlay create ~/.config/bwsh/bwsh-sec-new
overlay_rename rename ~/.config/bwsh ~/bwsh-sec-config
EOF
  sec_assert_line "control=OK"
  for l in ssh_keys ssh_new ssh_chmod unit unit_new unit_mkdir pam_env; do
    sec_assert_line "$l=EROFS"
  done
  # A mount point cannot be renamed away: EBUSY, or EXDEV where the
  # target lies on another mount.
  for l in ssh_rename unit_rename pam_env_rename overlay_rename; do
    grep -qxE "$l=(EBUSY|EXDEV)" <<<"$IT_OUT" || { it_fail "$l: not refused with EBUSY or EXDEV"; it_show; }
  done
  # user_config_mode = "editable" (the default): the overlay's directory is
  # the one deliberate exception, writable at its own place only.
  sec_assert_line "overlay=OK"
  it_assert_exists "$IT_HOME/bwsh-sec-rw"
  it_assert_eq orig "$(cat "$IT_HOME/.ssh/authorized_keys")" "host ~/.ssh/authorized_keys"
  it_assert_eq orig "$(cat "$IT_HOME/.pam_environment")" "host ~/.pam_environment"
  it_assert_eq orig "$(cat "$IT_HOME/.config/systemd/user/a.service")" "host unit file"
  it_assert_absent "$IT_HOME/.ssh/bwsh-sec-new"
  it_assert_absent "$IT_HOME/.config/systemd/user/bwsh-sec-new.service"
  it_assert_absent "$IT_HOME/.config/systemd/user/default.target.wants"
  it_assert_exists "$IT_HOME/.config/bwsh/bwsh-sec-new"
}

case_missing_ssh_dir_not_creatable_under_rw_home()
{
  rw_home_config
  it_check "with \$HOME read-write and no ~/.ssh, nothing can be created at ~/.ssh inside"
  probe_lines <<EOF
control create ~/bwsh-sec-rw
ssh_keys create ~/.ssh/authorized_keys
ssh_dir mkdir ~/.ssh/sub
ssh_rename rename ~/.ssh ~/bwsh-sec-ssh
unit_dir mkdir ~/.config/systemd
unit_file create ~/.local/share/systemd/user/x.service
pam_env create ~/.pam_environment
bashrc create ~/.bashrc
EOF
  sec_assert_line "control=OK"
  sec_assert_line "ssh_keys=EROFS"
  sec_assert_line "ssh_dir=EROFS"
  sec_assert_line "ssh_rename=EBUSY"
  # A missing directory is an empty read-only tmpfs ...
  grep -qxE "unit_dir=(EEXIST|EROFS)" <<<"$IT_OUT" || { it_fail "unit_dir: ~/.config/systemd could be made"; it_show; }
  grep -qxE "unit_file=(ENOENT|EROFS)" <<<"$IT_OUT" || { it_fail "unit_file: a user unit could be made"; it_show; }
  # ... a missing file a read-only bind of /dev/null: what is written there
  # goes nowhere, and the host keeps an empty file (bwrap's mount point).
  it_assert_exists "$IT_HOME/bwsh-sec-rw"
  it_assert_absent "$IT_HOME/.ssh/authorized_keys"
  it_assert_absent "$IT_HOME/.ssh/sub"
  it_assert_absent "$IT_HOME/bwsh-sec-ssh"
  it_assert_absent "$IT_HOME/.local/share/systemd/user/x.service"
  it_assert_no_content "$IT_HOME/.pam_environment" "$IT_HOME/.bashrc"

  it_check "and a second session cannot either"
  probe_lines <<EOF
ssh_keys create ~/.ssh/authorized_keys
EOF
  sec_assert_line "ssh_keys=EROFS"
  it_assert_absent "$IT_HOME/.ssh/authorized_keys"
}

case_protected_parent_rename_cannot_replace_config()
{
  rw_home_config
  # ~/.config/systemd is a read-only mount point, but its parent ~/.config
  # is an ordinary directory of the read-write $HOME: renaming it would carry
  # the mount away, and a fresh ~/.config/systemd/user unit would then run
  # outside at the next start of the user manager.
  it_as_user mkdir -p "$IT_HOME/.config/systemd/user"
  it_check "renaming a parent of a protected dir cannot make room for a new one"
  it_run "mv ~/.config ~/bwsh-sec-config; echo mv=\$?; mkdir -p ~/.config/systemd/user && echo '[Unit]' >~/.config/systemd/user/x.service; echo write=\$?"
  it_assert_out_lacks "write=0"
  it_assert_absent "$IT_HOME/bwsh-sec-config"
  it_assert_absent "$IT_HOME/.config/systemd/user/x.service"
}

case_bind_option_in_command_stays_argument()
{
  it_check "su - user -c '--bind / /x' hands the string to the inner shell, not to bwrap"
  it_run "--bind / /x"
  # bash got it as its command string ("-c -- CMD"): "command not found".
  # Had bwrap seen it, it would have said "bwrap: Unknown option".
  it_assert_rc 127
  it_assert_err_has "--bind: command not found"
  it_assert_err_lacks "bwrap"

  it_check "bwsh -c CMD --bind / /x: the words are \$0 \$1 \$2, and /x does not exist"
  # shellcheck disable=SC2016
  it_bwsh -c 'printf "%s|" "$0" "$@"; echo; test -e /x && echo X-EXISTS; ls / >~/project/root-list; echo done' \
    --bind / /x
  it_assert_rc 0
  sec_assert_line "--bind|/|/x|"
  sec_assert_line "done"
  it_assert_out_lacks "X-EXISTS"
  # The sandbox's / is the plan's tmpfs, not the host's root bound anywhere.
  grep -qx root "$IT_HOME/project/root-list" && it_fail "the host's /root is visible inside"
  grep -qx x "$IT_HOME/project/root-list" && it_fail "/x exists inside"
}

case_proc1_cmdline_hides_mount_arguments()
{
  it_check "/proc/*/cmdline inside shows --args, not the mounts"
  it_run "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' <\$f; echo; done >~/project/cmdlines"
  it_assert_rc 0
  local c
  c=$(cat "$IT_HOME/project/cmdlines" 2>&1)
  case $c in *"--args "*) ;; *) it_fail "no --args in the sandbox's command lines: $c" ;; esac
  for opt in --ro-bind --bind --tmpfs --seccomp --setenv --chdir --unshare --dev --proc "$IT_HOME/project "; do
    case $c in *"$opt"*) it_fail "a command line inside shows '$opt': $c" ;; esac
  done
}

case_core_dump_not_written()
{
  local pattern
  pattern=$(cat /proc/sys/kernel/core_pattern)
  # Raise the limit the session inherits, so that only bwsh's RLIMIT_CORE 0
  # stands between a crash and a core file in the project dir.
  ulimit -c unlimited

  if [ "${pattern#|}" = "$pattern" ] && [ "${pattern#/}" = "$pattern" ]; then
    it_check "control: outside the sandbox a crash of the user does leave a core file here"
    local ctl=$IT_TMP/ctl
    mkdir "$ctl" && chown "$IT_USER:" "$ctl"
    # shellcheck disable=SC2016
    (cd "$ctl" && it_as_user sh -c 'ulimit -c unlimited; sh -c "kill -SEGV \$\$"; true')
    [ -n "$(ls -A "$ctl")" ] || it_fail "no core file outside the sandbox: the test would prove nothing (core_pattern $pattern)"
  else
    it_log "core_pattern is '$pattern' (not a relative file): only the limit is asserted"
  fi

  it_check "inside, the core limit is 0 hard and soft, and a crash leaves no core in the project dir"
  it_run "ulimit -c; ulimit -Hc; ulimit -c unlimited 2>/dev/null && echo RAISED; sh -c 'kill -SEGV \$\$'; echo crashed=\$?; ls -A"
  sec_assert_line "crashed=139"
  it_assert_out_lacks "RAISED"
  [ "$(grep -cx 0 <<<"$IT_OUT")" = 2 ] || { it_fail "ulimit -c is not 0 soft and hard"; it_show; }
  local left
  left=$(find "$IT_HOME/project" -mindepth 1 ! -name bwsh-probe)
  [ -z "$left" ] || it_fail "files appeared in the project dir: $left"
}

sec_main "$@"
