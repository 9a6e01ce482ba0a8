#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A bad value for SETTING: `bwshctl check` exits 1 with "FILE:LINE: message",
# and the same policy installed refuses every session before anything runs.
# A typo in the policy must never weaken (or silently change) the sandbox.
#   test_bad_values.sh SETTING
set -u
. "$(dirname "$0")/pol_lib.sh"
pol_setup

setting=${1:?usage: $0 SETTING}

# bad LINE2 MESSAGE: the policy is a comment line, then LINE2 (line 2).
bad()
{
  it_check "$setting: $1"
  pol_check_bad "# bad value for $setting
$1" 2 "$2"
}

case $setting in
  shell)
    bad 'shell = "bin/bash";' '"shell": must be an absolute path: "bin/bash"'
    bad 'shell = "~/bin/bash";' '"shell": must be an absolute path: "~/bin/bash"'
    bad 'shell = 1;' '"shell" must be a string (a path), not an integer'
    ;;
  project_dir)
    bad 'project_dir = "project";' '"project_dir": must be an absolute path or start with "~/": "project"'
    bad 'project_dir = "~/a/../../etc";' '"project_dir": path contains "..": "~/a/../../etc"'
    bad 'project_dir = [ "~/p" ];' '"project_dir" must be a string (a path), not an array'
    ;;
  user_project_dir)
    bad 'user_project_dir = "yes";' '"user_project_dir" must be true or false, not a string'
    bad 'user_project_dir = 1;' '"user_project_dir" must be true or false, not an integer'
    ;;
  user_config)
    bad 'user_config = "config.json";' '"user_config": must be an absolute path or start with "~/": "config.json"'
    bad 'user_config = 5;' '"user_config" must be a string (a path), not an integer'
    ;;
  user_overlay)
    bad 'user_overlay = "false";' '"user_overlay" must be true or false, not a string'
    ;;
  run)
    bad 'run = "shared";' '"run" must be "tmpfs" or "host"'
    bad 'run = true;' '"run" must be "tmpfs" or "host"'
    ;;
  dev)
    bad 'dev = "full";' '"dev" must be "minimal" or "host"'
    ;;
  network)
    bad 'network = "host";' '"network" must be "private", "none", or "shared"'
    bad 'network = false;' '"network" must be "private", "none", or "shared"'
    ;;
  start_dir)
    bad 'start_dir = "work";' '"start_dir" must be "home" or "project"'
    bad 'start_dir = "~/project";' '"start_dir" must be "home" or "project"'
    ;;
  state)
    bad 'state = "disk";' '"state" must be "tmpfs", "persistent", or "none"'
    bad 'state = true;' '"state" must be "tmpfs", "persistent", or "none"'
    ;;
  state_dir)
    bad 'state_dir = "state";' '"state_dir": must be an absolute path or start with "~/": "state"'
    # shellcheck disable=SC2016 # the message names $HOME itself
    bad 'state_dir = "~";' '"state_dir": "~" is $HOME or a directory above it'
    # shellcheck disable=SC2016 # the message names $HOME itself
    bad 'state_dir = "/home";' '"state_dir": "/home" is $HOME or a directory above it'
    bad 'state_dir = "~/.config/bwsh-state";' '"state_dir": "~/.config/bwsh-state" lies in ~/.config, ~/.local/share or ~/.local/bin, which programs outside the sandbox read'
    bad 'state_dir = "~/.local/bin/s";' '"state_dir": "~/.local/bin/s" lies in ~/.config, ~/.local/share or ~/.local/bin, which programs outside the sandbox read'
    bad 'state_dir = "/tmp/state/%u";' '"state_dir": "/tmp/state/%u" lies in /etc, /usr, /boot, /run, /tmp, /var/tmp or /dev/shm'
    bad 'state_dir = "/etc/bwsh/%u";' '"state_dir": "/etc/bwsh/%u" lies in /etc, /usr, /boot, /run, /tmp, /var/tmp or /dev/shm'
    ;;
  root_size)
    bad 'root_size = "64X";' '"root_size" must be a number of bytes with an optional K, M or G suffix, not "64X"'
    bad 'root_size = -1;' '"root_size" must not be negative'
    bad 'root_size = "-1M";' '"root_size" must be a number of bytes with an optional K, M or G suffix, not "-1M"'
    ;;
  tmp_size)
    bad 'tmp_size = "99999999999G";' '"tmp_size" is too large'
    bad 'tmp_size = true;' '"tmp_size" must be an integer or a string such as "64M", not a boolean'
    ;;
  rw_ceilings)
    bad 'rw_ceilings = "~";' '"rw_ceilings" must be a list of paths, not a string'
    bad 'rw_ceilings = [ "srv" ];' '"rw_ceilings": must be an absolute path or start with "~/": "srv"'
    bad 'rw_ceilings = [ "~/../.." ];' '"rw_ceilings": path contains "..": "~/../.."'
    ;;
  ro_ceilings)
    bad 'ro_ceilings = [ 1 ];' '"ro_ceilings" entries must be strings (paths), not an integer'
    bad 'ro_ceilings = [ "opt" ];' '"ro_ceilings": must be an absolute path or start with "~/": "opt"'
    ;;
  protected)
    bad 'protected = [ "~/a/../.ssh" ];' '"protected": path contains "..": "~/a/../.ssh"'
    bad 'protected = true;' '"protected" must be a list of paths, not a boolean'
    ;;
  locked)
    bad 'locked = [ "home" ];' '"locked": must be an absolute path or start with "~/": "home"'
    bad 'locked = "/opt";' '"locked" must be a list of paths, not a string'
    ;;
  ro_binds)
    bad 'ro_binds = [ "/proc/self" ];' '"ro_binds": "/proc/self" is forbidden (/, /proc, /dev, /sys and below)'
    bad 'ro_binds = ( { dst = "/data"; } );' '"ro_binds": a { } entry needs "src"'
    bad 'ro_binds = [ "data" ];' '"ro_binds": must be an absolute path or start with "~/": "data"'
    ;;
  rw_binds)
    bad 'rw_binds = [ "/" ];' '"rw_binds": "/" is forbidden (/, /proc, /dev, /sys and below)'
    bad 'rw_binds = ( { src = "/srv"; dst = "/sys/kernel"; } );' '"rw_binds": "/sys/kernel" is forbidden (/, /proc, /dev, /sys and below)'
    bad 'rw_binds = ( { src = "/srv"; mode = "rw"; } );' 'unknown setting "rw_binds.mode" (a bind has only src and dst)'
    bad 'rw_binds = ( 7 );' '"rw_binds" entries must be paths or { src; dst; } groups, not an integer'
    ;;
  env_allow)
    bad 'env_allow = [ "1BAD" ];' '"env_allow": "1BAD" is not a variable name or a prefix glob such as "LC_*"'
    bad 'env_allow = [ "A*B" ];' '"env_allow": "A*B" is not a variable name or a prefix glob such as "LC_*"'
    bad 'env_allow = [ "*" ];' '"env_allow": "*" is not a variable name or a prefix glob such as "LC_*"'
    bad 'env_allow = "EDITOR";' '"env_allow" must be a list of variable names, not a string'
    ;;
  rlimits)
    bad 'rlimits = { core = "lots"; };' '"rlimits.core" must be an integer, "unlimited" or "inherit"'
    bad 'rlimits = { core = -1; };' '"rlimits.core" must be at least 0'
    bad 'rlimits = { nproc = 0; };' '"rlimits.nproc" must be at least 1'
    bad 'rlimits = { nofile = 0; };' '"rlimits.nofile" must be at least 1'
    bad 'rlimits = { stack = 1; };' 'unknown setting "rlimits.stack"'
    bad 'rlimits = 0;' '"rlimits" must be a group { ... }, not an integer'
    ;;
  strict)
    bad 'strict = "yes";' '"strict" must be true or false, not a string'
    ;;
  hostname)
    bad 'hostname = "-box";' "\"hostname\" must be 1 to 63 letters, digits or '-', not starting with '-': \"-box\""
    bad 'hostname = "a.b";' "\"hostname\" must be 1 to 63 letters, digits or '-', not starting with '-': \"a.b\""
    bad "hostname = \"$(printf 'h%.0s' {1..64})\";" "\"hostname\" must be 1 to 63 letters"
    bad 'hostname = 1;' '"hostname" must be a string, not an integer'
    ;;
  max_mounts)
    bad 'max_mounts = 0;' '"max_mounts" must be between 1 and 1024'
    bad 'max_mounts = 1025;' '"max_mounts" must be between 1 and 1024'
    bad 'max_mounts = "256";' '"max_mounts" must be an integer, not a string'
    ;;
  subjects)
    bad 'subjects = { all = "yes"; };' '"subjects.all" must be true or false, not a string'
    bad 'subjects = { users = [ "a:b" ]; };' '"subjects.users": "a:b" is not a user or group name'
    bad 'subjects = { groups = [ "" ]; };' '"subjects.groups": "" is not a user or group name'
    bad 'subjects = { hosts = [ "x" ]; };' 'unknown setting "subjects.hosts"'
    ;;
  require_shell)
    bad 'require_shell = 0;' '"require_shell" must be true or false, not an integer'
    ;;
  refused_services)
    bad 'refused_services = [ "../cron" ];' '"refused_services": "../cron" is not a PAM service name'
    bad 'refused_services = [ ".hidden" ];' '"refused_services": ".hidden" is not a PAM service name'
    bad 'refused_services = "cron";' '"refused_services" must be a list of PAM service names, not a string'
    ;;
  allowed_services)
    bad 'allowed_services = [ "../sshd" ];' '"allowed_services": "../sshd" is not a PAM service name'
    bad 'allowed_services = "sshd";' '"allowed_services" must be a list of PAM service names, not a string'
    ;;
  user_config_mode)
    bad 'user_config_mode = "writable";' '"user_config_mode" must be "editable", "readonly", or "off"'
    bad 'user_config_mode = true;' '"user_config_mode" must be "editable", "readonly", or "off"'
    ;;
  landlock)
    bad 'landlock = { mode = "strict"; };' '"landlock.mode" must be "best_effort", "required", or "off"'
    bad 'landlock = { scope_signal = 1; };' '"landlock.scope_signal" must be true or false, not an integer'
    bad 'landlock = { scope_abstract_unix = "no"; };' '"landlock.scope_abstract_unix" must be true or false, not a string'
    bad 'landlock = { tcp_connect = [ 0 ]; };' '"landlock.tcp_connect": port 0 is not between 1 and 65535'
    bad 'landlock = { tcp_bind = [ 65536 ]; };' '"landlock.tcp_bind": port 65536 is not between 1 and 65535'
    bad 'landlock = { tcp_bind = "none"; };' '"landlock.tcp_bind" must be a list of port numbers or "any", not a string'
    bad 'landlock = { tcp_connect = [ "22" ]; };' '"landlock.tcp_connect" entries must be port numbers, not a string'
    bad 'landlock = { fs = "ro"; };' 'unknown setting "landlock.fs"'
    ;;
  unknown)
    # A misspelt setting is an error, not an ignored line.
    bad 'netwrok = "none";' 'unknown setting "netwrok"'
    bad 'network = ;' 'syntax error'
    ;;
  match)
    bad 'match = ( { user = "a"; group = "b"; network = "none"; } );' 'a "match" block needs exactly one of "user" or "group"'
    bad 'match = ( { network = "none"; } );' 'a "match" block needs exactly one of "user" or "group"'
    bad 'match = ( { user = "a"; match = ( ); } );' '"match" blocks cannot be nested'
    bad 'match = { user = "a"; };' '"match" must be a list of blocks'
    # A bad value in a block for somebody else still refuses everybody:
    # an error must not wait for the one user it concerns.
    bad 'match = ( { user = "nobody-else"; network = "off"; } );' '"network" must be "private", "none", or "shared"'
    bad 'match = ( { group = "no-such-group-x"; max_mounts = 0; } );' '"max_mounts" must be between 1 and 1024'
    ;;
  *)
    it_fail "unknown setting $setting"
    ;;
esac

# The shipped policy, back in place, is valid and lets the session run.
it_check "$setting: shipped policy still fine"
pol_restore
IT_RC=0
"$BWSHCTL" check >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
pol_project
pol_session 'true'
pol_assert_ran
