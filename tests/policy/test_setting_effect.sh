#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What one policy SETTING does, seen from inside a real session (su - USER,
# the installed bwsh, the real bwrap), against the shipped default as the
# control: if the setting were ignored, the two would look the same.
#   test_setting_effect.sh SETTING
# shellcheck disable=SC2016 # the sessions' commands are expanded in the session, and labels name $HOME itself
set -u
. "$(dirname "$0")/pol_lib.sh"
pol_setup

setting=${1:?usage: $0 SETTING}
H=$IT_HOME
pol_project

# user_dir NAME...: directories owned by the user (on the host, outside any sandbox)
user_dir()
{
  local d
  for d in "$@"; do
    mkdir -p "$d"
    chown "$IT_USER:" "$d"
    chmod 0755 "$d"
  done
}

# as_user_file PATH TEXT: a file owned by the user
as_user_file()
{
  printf '%s\n' "$2" >"$1"
  chown "$IT_USER:" "$1"
}

out_is()
{
  it_assert_eq "$1" "$IT_OUT" "${2:-session output}"
  [ "$1" = "$IT_OUT" ] || it_show
}

case $setting in
  shell)
    it_check "shipped: the inner shell is bash"
    pol_session 'readlink /proc/$$/exe; echo "$SHELL"'
    pol_assert_ran
    out_is "$(readlink -f /bin/bash)
/bin/bash"
    it_check 'shell = "/bin/sh": the inner shell is sh, and SHELL says so'
    pol_write 'shell = "/bin/sh";'
    pol_session 'readlink /proc/$$/exe; echo "$SHELL"'
    pol_assert_ran
    out_is "$(readlink -f /bin/sh)
/bin/sh"
    ;;

  project_dir)
    it_check 'project_dir = "~/work" (with start_dir = "project"): the session starts there and writes reach the host'
    pol_write 'project_dir = "~/work"; start_dir = "project";'
    pol_session 'pwd; echo w >"$HOME/work/written"; echo p >"$HOME/project/written" || echo project-read-only'
    it_assert_rc 0
    out_is "$H/work
project-read-only"
    it_assert_exists "$H/work/written"
    it_assert_absent "$H/project/written"
    it_assert_eq "$IT_USER" "$(stat -c %U "$H/work/written")" "owner of the file written inside"
    ;;

  user_project_dir)
    user_dir "$H/mine"
    it_user_config "{ \"preferences\": { \"sandboxProjectDir\": \"$H/mine\" } }"
    it_check "shipped (true): the user's sandboxProjectDir is used"
    MARK=$H/mine/ran-marker
    pol_write 'start_dir = "project";'
    pol_session 'pwd; touch mine-file'
    pol_assert_ran
    out_is "$H/mine"
    it_assert_exists "$H/mine/mine-file"
    it_check 'user_project_dir = false: the choice is refused, the policy project dir used'
    rm -f "$H/mine/mine-file"
    pol_project
    pol_write 'user_project_dir = false; start_dir = "project";'
    pol_session 'pwd; touch mine-file; touch "$HOME/mine/x" || echo mine-read-only'
    pol_assert_ran
    out_is "$H/project
mine-read-only"
    it_assert_err_has "bwsh: warning: $H/.config/bwsh/config.json:"
    it_assert_err_has ": sandboxProjectDir $H/mine: the policy does not let users choose the project directory (using the default)"
    it_assert_exists "$H/project/mine-file"
    it_assert_absent "$H/mine/x"
    ;;

  start_dir)
    it_check 'shipped (start_dir = "home"): the session starts in $HOME'
    pol_session 'pwd'
    pol_assert_ran
    out_is "$H"
    it_check 'start_dir = "project": the session starts in the project directory'
    pol_write 'start_dir = "project";'
    pol_session 'pwd'
    pol_assert_ran
    out_is "$H/project"
    pol_explain
    it_assert_rc 0
    it_assert_eq "project $H/project" "$(pol_json 'd["start_dir"] + " " + d["chdir"]')" "explain: start_dir and chdir"
    ;;

  state)
    echo keep >"$H/real.txt"
    chown "$IT_USER:" "$H/real.txt"
    probe='echo s >"$HOME/state-probe" && cat "$HOME/state-probe" || echo home-read-only; echo x >"$HOME/real.txt" || echo real-read-only'
    it_check 'shipped (state = "tmpfs"): new files in $HOME work inside, reach nothing on the host'
    pol_session "$probe"
    pol_assert_ran
    out_is "s
real-read-only"
    it_assert_absent "$H/state-probe"
    it_check 'state = "none": the seed'"'"'s read-only $HOME'
    pol_write 'state = "none";'
    pol_session "$probe"
    pol_assert_ran
    out_is "home-read-only
real-read-only"
    it_assert_absent "$H/state-probe"
    it_check 'state = "persistent": new files in $HOME land in state_dir (~/.local/state/bwsh)'
    pol_write 'state = "persistent";'
    pol_session "$probe"
    pol_assert_ran
    out_is "s
real-read-only"
    it_assert_absent "$H/state-probe"
    it_assert_eq s "$(cat "$H/.local/state/bwsh/state-probe" 2>&1)" "the file in state_dir on the host"
    it_assert_eq "$IT_USER 700" "$(stat -c '%U %a' "$H/.local/state/bwsh")" "state_dir owner and mode"
    it_assert_eq keep "$(cat "$H/real.txt")" "real.txt on the host"
    ;;

  state_dir)
    it_check 'state_dir = "~/st": the persistent state is there'
    pol_write 'state = "persistent"; state_dir = "~/st";'
    pol_session 'echo s >"$HOME/state-probe"'
    pol_assert_ran
    it_assert_eq s "$(cat "$H/st/state-probe" 2>&1)" "the file in ~/st on the host"
    it_check 'a state_dir that contains a protected path refuses the session, nothing runs'
    pol_write 'state = "persistent"; state_dir = "~/st"; protected = [ "~/.ssh", "~/st/keys" ];'
    pol_session 'echo SANDBOX-RAN'
    pol_assert_refused "state_dir $H/st: is, lies in or contains a protected path"
    it_assert_out_lacks SANDBOX-RAN
    it_check 'a state_dir that is a symlink into ~/.config is not used: a tmpfs instead, with a warning'
    mkdir -p "$H/.config/elsewhere"
    ln -s "$H/.config/elsewhere" "$H/st-link"
    chown -h "$IT_USER:" "$H/.config" "$H/.config/elsewhere" "$H/st-link"
    pol_write 'state = "persistent"; state_dir = "~/st-link";'
    pol_session 'echo s >"$HOME/state-probe" && echo written'
    pol_assert_ran
    out_is written
    it_assert_err_has "bwsh: warning: state_dir $H/st-link: cannot create $H/st-link: an element is not a directory; the session's state is a tmpfs this time, gone at logout"
    it_assert_absent "$H/.config/elsewhere/state-probe"
    ;;

  user_config)
    # Read-write binds in the home, which the administrator allows here.
    pol_write 'rw_ceilings = [ "~" ];'
    user_dir "$H/altrw" "$H/defrw" "$H/alt"
    it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalBinds\": [ \"$H/defrw\" ] } } }"
    as_user_file "$H/alt/bwsh.json" "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalBinds\": [ \"$H/altrw\" ] } } }"
    it_check "shipped: ~/.config/bwsh/config.json is read"
    pol_session 'touch "$HOME/defrw/d" && echo def-ok; touch "$HOME/altrw/a" || echo alt-read-only'
    pol_assert_ran
    out_is "def-ok
alt-read-only"
    it_check 'user_config = "~/alt/bwsh.json": that file is read instead'
    rm -f "$H/defrw/d" "$H/altrw/a"
    pol_write 'rw_ceilings = [ "~" ]; user_config = "~/alt/bwsh.json";'
    pol_session 'touch "$HOME/defrw/d" || echo def-read-only; touch "$HOME/altrw/a" && echo alt-ok'
    pol_assert_ran
    out_is "def-read-only
alt-ok"
    it_assert_exists "$H/altrw/a"
    it_assert_absent "$H/defrw/d"
    ;;

  user_overlay)
    pol_write 'rw_ceilings = [ "~" ];'
    user_dir "$H/rw"
    it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalBinds\": [ \"$H/rw\" ] } } }"
    it_check "shipped (true): the user's additional bind applies"
    pol_session 'touch "$HOME/rw/f" && echo rw-ok'
    pol_assert_ran
    out_is "rw-ok"
    it_assert_exists "$H/rw/f"
    it_check "user_overlay = false: the user's file is not read at all"
    rm -f "$H/rw/f"
    pol_write 'rw_ceilings = [ "~" ]; user_overlay = false;'
    pol_session 'touch "$HOME/rw/f" || echo rw-read-only'
    pol_assert_ran
    out_is "rw-read-only"
    it_assert_absent "$H/rw/f"
    pol_explain
    it_assert_eq 0 "$(pol_json 'len([m for m in d["mounts"] if m["origin"] == "user"])')" "user mounts in the plan"
    ;;

  run)
    # shellcheck disable=SC2012 # any one entry will do
    host_entry=$(ls -A /run | head -n1)
    [ -n "$host_entry" ] || { it_fail "the host's /run is empty: nothing to tell host from tmpfs"; exit 1; }
    it_check 'shipped (tmpfs): /run is a fresh tmpfs without the host entries'
    pol_session "stat -f -c %T /run; test -e '/run/$host_entry' && echo host-entry || echo no-host-entry"
    pol_assert_ran
    out_is "tmpfs
no-host-entry"
    it_check 'run = "host": the host /run, read-only'
    pol_write 'run = "host";'
    pol_session "test -e '/run/$host_entry' && echo host-entry; touch /run/x 2>/dev/null || echo read-only"
    pol_assert_ran
    out_is "host-entry
read-only"
    pol_explain
    it_assert_eq 'ro-bind /run /run policy run = "host": host sockets under /run stay connectable' \
      "$(pol_json '[m["kind"] + " " + m["source"] + " " + m["destination"] + " " + m["reason"] for m in d["mounts"] if m["destination"] == "/run"][0]')" \
      "explain's /run mount"
    ;;

  dev)
    dev_only=
    for n in kmsg loop-control cpu_dma_latency fuse tty0 mem; do
      if [ -e "/dev/$n" ]; then dev_only=$n; break; fi
    done
    [ -n "$dev_only" ] || { it_fail "no host device node outside bwrap's minimal /dev found"; exit 1; }
    it_check "shipped (minimal): /dev/$dev_only is not there"
    pol_session "test -e /dev/null && echo null; test -e '/dev/$dev_only' && echo host-node || echo no-host-node"
    pol_assert_ran
    out_is "null
no-host-node"
    it_check "dev = \"host\": /dev/$dev_only is there"
    pol_write 'dev = "host";'
    pol_session "test -e /dev/null && echo null; test -e '/dev/$dev_only' && echo host-node || echo no-host-node"
    pol_assert_ran
    out_is "null
host-node"
    ;;

  network)
    host_ifs=$(tail -n +3 /proc/net/dev | awk -F: '{ gsub(/ /, "", $1); print $1 }' | sort | tr '\n' ' ')
    # slirp4netns, the default engine (#33), gives the sandbox tap0.
    tap=tap0
    it_check "shipped (private): its own loopback and slirp4netns's $tap, not the host's interfaces ($host_ifs)"
    pol_session "tail -n +3 /proc/net/dev | awk -F: '{ gsub(/ /, \"\", \$1); print \$1 }' | sort | tr '\n' ' '"
    pol_assert_ran
    out_is "$(printf '%s\n' "$tap" lo | sort | tr '\n' ' ')"
    it_check "network = \"shared\": the host's interfaces ($host_ifs)"
    pol_write 'network = "shared";'
    pol_session "tail -n +3 /proc/net/dev | awk -F: '{ gsub(/ /, \"\", \$1); print \$1 }' | sort | tr '\n' ' '"
    pol_assert_ran
    out_is "$host_ifs"
    it_check 'network = "none": loopback only'
    pol_write 'network = "none";'
    pol_session "tail -n +3 /proc/net/dev | awk -F: '{ gsub(/ /, \"\", \$1); print \$1 }' | sort | tr '\n' ' '"
    pol_assert_ran
    out_is "lo "
    pol_explain
    it_assert_eq true "$(pol_json 'd["namespaces"]["net"]')" "explain namespaces.net"
    ;;

  root_size | tmp_size)
    where=/; [ "$setting" = tmp_size ] && where=/tmp
    it_check "$setting = \"8M\": the tmpfs at $where holds 8 MiB"
    pol_write "$setting = \"8M\";"
    pol_session "stat -f -c '%T %b %S' $where"
    pol_assert_ran
    read -r fstype blocks bsize <<<"$IT_OUT"
    it_assert_eq tmpfs "$fstype" "file system at $where"
    it_assert_eq 8388608 "$((blocks * bsize))" "size of $where"
    it_check "$setting = 12582912 (bytes): 12 MiB"
    pol_write "$setting = 12582912;"
    pol_session "stat -f -c '%b %S' $where"
    pol_assert_ran
    read -r blocks bsize <<<"$IT_OUT"
    it_assert_eq 12582912 "$((blocks * bsize))" "size of $where"
    if [ "$setting" = tmp_size ]; then
      it_check "tmp_size = \"4M\": writing 6 MiB to /tmp fails"
      pol_write 'tmp_size = "4M";'
      pol_session 'dd if=/dev/zero of=/tmp/big bs=1M count=6 2>/dev/null && echo fits || echo full'
      pol_assert_ran
      out_is full
    fi
    ;;

  rw_ceilings)
    user_dir "$IT_TMP/shared" "$H/only" "$H/other" "$H/project" "$H/project/in"
    it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalBinds\": [ \"$IT_TMP/shared\", \"$H/only\", \"$H/other\", \"$H/project/in\" ] } } }"
    it_check "shipped ([ ]): only a bind in the project directory is accepted, in \$HOME or outside it refused"
    pol_session 'touch "$HOME/project/in/f" && echo project-ok; touch "$HOME/only/f" || echo only-refused; touch '"'$IT_TMP/shared/f'"' || echo shared-refused'
    pol_assert_ran
    out_is "project-ok
only-refused
shared-refused"
    it_assert_err_has "bwsh: warning: $H/.config/bwsh/config.json"
    it_assert_err_has "$H/only: read-write binds are only allowed under the read-write ceilings (the project directory, and what the policy's rw_ceilings adds)"
    it_assert_err_has "$IT_TMP/shared: read-write binds are only allowed under the read-write ceilings (the project directory, and what the policy's rw_ceilings adds)"
    it_assert_absent "$IT_TMP/shared/f"
    it_assert_absent "$H/only/f"
    it_check "rw_ceilings = [ \"~/project\", \"~/only\", \"$IT_TMP/shared\" ]: only those"
    pol_write "rw_ceilings = [ \"~/project\", \"~/only\", \"$IT_TMP/shared\" ];"
    pol_session 'touch "$HOME/only/f" && echo only-ok; touch '"'$IT_TMP/shared/f'"' && echo shared-ok; touch "$HOME/other/f" || echo other-refused'
    pol_assert_ran
    out_is "only-ok
shared-ok
other-refused"
    it_assert_exists "$IT_TMP/shared/f"
    it_assert_absent "$H/other/f"
    it_assert_err_has "$H/other: read-write binds are only allowed under the read-write ceilings"
    ;;

  ro_ceilings)
    # A source in the home and one under /srv, shown under /mnt.
    srv=$(mktemp -d /srv/bwsh-it-ro.XXXXXX) && chmod 755 "$srv" && it_defer rm -rf "$srv"
    user_dir "$H/ro-ok"
    as_user_file "$H/ro-ok/f" home-ok
    echo srv-ok >"$srv/f" && chmod 644 "$srv/f"
    it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalROBinds\": [ { \"src\": \"$H/ro-ok\", \"dst\": \"/mnt/home\" }, { \"src\": \"$srv\", \"dst\": \"/mnt/srv\" } ] } } }"
    it_check "shipped ([ ]): a read-only bind from the home is accepted, one from /srv refused"
    pol_session "cat /mnt/home/f; test -e /mnt/srv/f || echo srv-absent"
    pol_assert_ran
    out_is "home-ok
srv-absent"
    it_assert_err_has "bwsh: warning: $H/.config/bwsh/config.json"
    it_assert_err_has "$srv: read-only binds are only allowed under the read-only ceilings (\$HOME, and what the policy's ro_ceilings adds)"
    it_check "ro_ceilings = [ \"$srv\" ]: the bind under it too"
    pol_write "ro_ceilings = [ \"$srv\" ];"
    pol_session "cat /mnt/home/f /mnt/srv/f"
    pol_assert_ran
    out_is "home-ok
srv-ok"
    ;;

  protected)
    pol_write 'rw_ceilings = [ "~" ];'
    user_dir "$H/notes"
    # The whole home read-write: a protected path below it stays read-only.
    it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalBinds\": [ \"$H\" ] } } }"
    it_check "shipped: ~/notes is writable under a read-write home, the built-in protected set is not"
    pol_session 'touch "$HOME/notes/n" && echo notes-ok; mkdir -p "$HOME/.config/systemd/user" || echo systemd-protected'
    pol_assert_ran
    out_is "notes-ok
systemd-protected"
    it_assert_absent "$H/.config/systemd/user"
    rm -f "$H/notes/n"
    it_check 'protected = [ "~/notes" ]: ~/notes is read-only, the rest of home is not'
    pol_write 'rw_ceilings = [ "~" ]; protected = [ "~/notes" ];'
    pol_session 'touch "$HOME/free" && echo free-ok; touch "$HOME/notes/n" || echo notes-protected'
    pol_assert_ran
    out_is "free-ok
notes-protected"
    it_assert_exists "$H/free"
    it_assert_absent "$H/notes/n"
    ;;

  locked)
    as_user_file "$H/readme" home-visible
    it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"disabledDefaultBinds\": [ \"$H\" ] } } }"
    it_check "shipped ([ ]): the user may disable the home bind"
    pol_session 'cat "$HOME/readme" 2>/dev/null || echo home-hidden'
    pol_assert_ran
    out_is "home-hidden"
    it_check 'locked = [ "~" ]: the home bind cannot be disabled'
    pol_write 'locked = [ "~" ];'
    pol_session 'cat "$HOME/readme" 2>/dev/null || echo home-hidden'
    pol_assert_ran
    out_is "home-visible"
    it_assert_err_has "bwsh: warning: $H/.config/bwsh/config.json"
    it_assert_err_has "disabledDefaultBinds $H: is locked and cannot be disabled"
    ;;

  ro_binds)
    user_dir "$IT_TMP/tools" "$IT_TMP/data"
    as_user_file "$IT_TMP/tools/t" tool
    as_user_file "$IT_TMP/data/d" data
    it_check "shipped: neither directory is in the sandbox"
    pol_session "test -e '$IT_TMP/tools/t' || echo no-tools; test -e /srv/pol-data/d || echo no-data"
    pol_assert_ran
    out_is "no-tools
no-data"
    it_check "ro_binds: both are there, read-only, even though the user owns them"
    pol_write "# forced binds
ro_binds = ( \"$IT_TMP/tools\", { src = \"$IT_TMP/data\"; dst = \"/srv/pol-data\"; } );"
    pol_session "cat '$IT_TMP/tools/t' /srv/pol-data/d; touch '$IT_TMP/tools/x' /srv/pol-data/x 2>/dev/null || echo read-only"
    pol_assert_ran
    out_is "tool
data
read-only"
    it_assert_absent "$IT_TMP/tools/x"
    it_assert_absent "$IT_TMP/data/x"
    pol_explain
    it_assert_eq "[\"ro-bind $IT_TMP/data policy $POL:2 accepted\"]" \
      "$(pol_json '[m["kind"] + " " + m["source"] + " " + m["origin_detail"] + " " + m["verdict"] for m in d["mounts"] if m["destination"] == "/srv/pol-data"]')" \
      "explain's forced bind"
    ;;

  rw_binds)
    user_dir "$IT_TMP/share"
    it_check "shipped: /srv/share is not in the sandbox"
    pol_session 'test -e /srv/share || echo absent'
    pol_assert_ran
    out_is absent
    it_check "rw_binds: /srv/share is there and writes reach the host, outside the rw ceilings"
    pol_write "rw_binds = ( { src = \"$IT_TMP/share\"; dst = \"/srv/share\"; } );"
    pol_session 'echo hello >/srv/share/f && echo written'
    pol_assert_ran
    out_is written
    it_assert_eq hello "$(cat "$IT_TMP/share/f" 2>/dev/null)" "host copy of the file"
    ;;

  env_allow)
    export BWPOL_A=alpha EDITOR=vi BWOTHER=zeta
    it_check "shipped: caller variables outside the built-in list do not pass"
    it_bwsh -c 'echo "[$BWPOL_A][$EDITOR][$BWOTHER]"'
    it_assert_rc 0
    out_is "[][][]"
    it_check 'env_allow = [ "BWPOL_*", "EDITOR" ]: those pass, others still do not'
    pol_write 'env_allow = [ "BWPOL_*", "EDITOR" ];'
    it_bwsh -c 'echo "[$BWPOL_A][$EDITOR][$BWOTHER]"'
    it_assert_rc 0
    out_is "[alpha][vi][]"
    unset BWPOL_A EDITOR BWOTHER
    ;;

  rlimits)
    # The caller's own limits are generous, so each value seen is the policy's.
    lim()
    {
      IT_RC=0
      timeout -k 5 60 prlimit --core=unlimited --nproc=5000:5000 --nofile=321:4096 -- \
        setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups \
        "$IT_BWSH" -c 'ulimit -c; ulimit -u; ulimit -n' </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
      it_collect
    }
    it_check "shipped (core 0, nproc 1024, nofile inherited)"
    lim
    it_assert_rc 0
    out_is "0
1024
321"
    it_check "rlimits = { core = 1048576; nproc = 77; nofile = 99; }"
    pol_write 'rlimits = { core = 1048576; nproc = 77; nofile = 99; };'
    lim
    it_assert_rc 0
    out_is "1024
77
99"
    it_check 'rlimits = { core = "unlimited"; nofile = "inherit"; } (nproc stays 1024)'
    pol_write 'rlimits = { core = "unlimited"; nofile = "inherit"; };'
    lim
    it_assert_rc 0
    out_is "unlimited
1024
321"
    it_check 'rlimits = { nproc = "inherit"; } (the caller'"'"'s nproc)'
    pol_write 'rlimits = { nproc = "inherit"; };'
    lim
    it_assert_rc 0
    out_is "0
5000
321"
    it_check "the same limits through su (the login path)"
    pol_write 'rlimits = { nproc = 77; nofile = 99; };'
    pol_session 'ulimit -c; ulimit -u; ulimit -n'
    pol_assert_ran
    out_is "0
77
99"
    pol_explain
    it_assert_eq '{"core": "0", "nproc": "77", "nofile": "99"}' "$(pol_json 'd["limits"]')" "explain limits"
    ;;

  strict)
    user_dir "$IT_TMP/outside"
    it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalBinds\": [ \"$IT_TMP/outside\" ] } } }"
    it_check "shipped (false): the refused entry is skipped with a warning"
    pol_session 'echo ran'
    pol_assert_ran
    it_assert_err_has "bwsh: warning: "
    it_assert_err_has "$IT_TMP/outside: read-write binds are only allowed under the read-write ceilings"
    it_check "strict = true: the whole session is refused"
    pol_write 'strict = true;'
    pol_session 'echo ran'
    pol_assert_refused "strict policy: 1 configuration entry was refused"
    it_assert_out_lacks ran
    pol_explain
    it_assert_eq refused "$(pol_json 'd["session"]')" "explain session"
    ;;

  hostname)
    it_check "shipped (\"\"): the host's name"
    pol_session 'cat /proc/sys/kernel/hostname'
    pol_assert_ran
    out_is "$(cat /proc/sys/kernel/hostname)"
    it_check 'hostname = "polbox"'
    pol_write 'hostname = "polbox";'
    pol_session 'cat /proc/sys/kernel/hostname; hostname'
    pol_assert_ran
    out_is "polbox
polbox"
    ;;

  max_mounts)
    # Sources in the home (an overlay never binds /tmp), shown under /mnt.
    for i in 1 2 3; do
      user_dir "$H/m$i"
      as_user_file "$H/m$i/f" "m$i"
    done
    it_user_config "{ \"preferences\": { \"sandboxBwrapMounts\": { \"additionalROBinds\": [ { \"src\": \"$H/m1\", \"dst\": \"/mnt/m1\" }, { \"src\": \"$H/m2\", \"dst\": \"/mnt/m2\" }, { \"src\": \"$H/m3\", \"dst\": \"/mnt/m3\" } ] } } }"
    # On a tmpfs state: the home's own limit (more names than max_mounts
    # leaves, and the home is read-only) counts every name of the real home,
    # those the state provides too, and the kept state's state_dir puts
    # ~/.local there, one more than this arithmetic (base + 1) leaves room for.
    pol_write 'state = "tmpfs";'
    it_check "256 (the shipped limit): all three user binds"
    pol_session "cat /mnt/m1/f /mnt/m2/f /mnt/m3/f"
    pol_assert_ran
    out_is "m1
m2
m3"
    base=$(pol_base_mounts)
    max=$((base + 1))
    it_check "max_mounts = $max (the $base of the base plan + 1): one user bind, two refused"
    pol_write "state = \"tmpfs\"; max_mounts = $max;"
    pol_session "cat /mnt/m1/f; test -e /mnt/m2/f || echo no-m2; test -e /mnt/m3/f || echo no-m3"
    pol_assert_ran
    out_is "m1
no-m2
no-m3"
    it_assert_err_has "/mnt/m2: the policy's limit of $max mounts is reached"
    it_assert_err_has "/mnt/m3: the policy's limit of $max mounts is reached"
    ;;

  *)
    it_fail "unknown setting $setting"
    ;;
esac
