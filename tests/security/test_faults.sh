#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Faults: whatever breaks before the sandbox exists, the login ends with one
# clear "bwsh: ..." line and a non-zero status, and no shell ever runs
# outside the sandbox.  The latter is proven, not assumed: every session's
# command tries to create a marker in $MARK, a host directory writable by the
# user that the sandbox cannot see (it lies under the host's /tmp; inside,
# /tmp is a tmpfs).  And nothing in the project dir is lost.
#
# Each fault is made in a private mount namespace (unshare -m) where
# possible, so that no other test, nor the machine, sees it.
. "$(dirname "$0")/sec.sh"

BWRAP=/usr/bin/bwrap # bwsh's compiled-in path (BWSH_BWRAP_PATH)

fault_setup()
{
  MARK=$IT_TMP/mark
  mkdir -m 0777 "$MARK"
  CMD="touch $MARK/unsandboxed; echo SHELL-RAN-\$((6*7))"
  if [ -d "$IT_HOME/project" ]; then
    it_as_user sh -c "echo precious >'$IT_HOME/project/keep.txt'"
  fi
}

# refused MESSAGE STATUS: the session ended with exit STATUS (bwsh(1), EXIT
# STATUS) and this one-line refusal: "bwsh: "
# and the core's exact error MESSAGE, optionally with the front end's
# "what failed: " in between (shell/bwsh.c words that part; the core the
# rest).
refused()
{
  local want=$1 status=$2 line ok=0 mid
  it_check "refused with: bwsh: ...$want, status $status"
  it_assert_rc "$status"
  while IFS= read -r line; do
    case $line in "bwsh: "*"$want") ;; *) continue ;; esac
    mid=${line#bwsh: }
    mid=${mid%"$want"}
    case $mid in "" | [a-z]*": ") ok=1 ;; esac
  done <<<"$IT_ERR"
  [ "$ok" = 1 ] || { it_fail "stderr lacks the line 'bwsh: [what: ]$want'"; it_show; }
  [ "$(grep -c '^bwsh: ' <<<"$IT_ERR")" = 1 ] || { it_fail "not exactly one bwsh: line"; it_show; }
  no_shell_ran
}

no_shell_ran()
{
  it_check "no shell ran, inside or outside, and the project dir is intact"
  it_assert_out_lacks "SHELL-RAN-42"
  it_assert_absent "$MARK/unsandboxed"
  if [ -e "$IT_HOME/project/keep.txt" ] || [ "${KEEP_EXPECTED:-1}" = 1 ]; then
    it_assert_eq precious "$(cat "$IT_HOME/project/keep.txt" 2>&1)" "project/keep.txt"
  fi
}

# A SETUP snippet making /usr/bin look like it does on a machine without
# bubblewrap: a directory of symlinks to every other program there.
hide_bwrap_snippet()
{
  local farm=$IT_TMP/usrbin orig=$IT_TMP/usrbin-orig
  mkdir -m 0755 "$farm" "$orig"
  printf 'mount --bind /usr/bin %q; ln -s %q/* %q/; rm %q/bwrap; mount --bind %q /usr/bin' \
    "$orig" "$orig" "$farm" "$farm" "$farm"
}

case_bwrap_missing_refused()
{
  fault_setup
  sec_run_ns "$(hide_bwrap_snippet)" "$CMD"
  refused "cannot execute $BWRAP: No such file or directory" 69
}

case_bwrap_not_executable_refused()
{
  fault_setup
  sec_run_ns "mount --bind /dev/null $BWRAP" "$CMD"
  refused "cannot execute $BWRAP: Permission denied" 69
}

case_bwrap_failing_gives_no_shell()
{
  # What bwrap does where unprivileged user namespaces are off: one line,
  # exit 1.  bwsh has exec'd bwrap by then, so the line is bwrap's; bwsh's
  # part is that no other program runs after it.
  local fake=$IT_TMP/bwrap
  printf '#!/bin/sh\necho "bwrap: No permissions to create a new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n' >"$fake"
  chmod 0755 "$fake"
  fault_setup
  sec_run_ns "mount --bind $fake $BWRAP" "$CMD"
  it_check "bwrap's failure ends the login"
  it_assert_rc 1
  it_assert_err_has "bwrap: No permissions to create a new namespace"
  no_shell_ran
}

case_policy_unreadable_refused()
{
  local policy
  policy=$(sec_policy '# unreadable')
  chmod 0000 "$policy"
  fault_setup
  sec_run_ns "$(sec_bind_policy "$policy")" "$CMD"
  # The subject hears one line; the file and the reason are the
  # administrator's (#38: bwshctl check, the refusal event).
  refused "the sandbox policy cannot be used (the administrator has the details); no last good policy: refused" 78
  it_assert_err_lacks "$SEC_POLICY"
}

case_policy_not_root_owned_refused()
{
  local policy
  policy=$(sec_policy 'network = "shared";')
  chown "$IT_USER:" "$policy"
  fault_setup
  sec_run_ns "$(sec_bind_policy "$policy")" "$CMD"
  refused "the sandbox policy cannot be used (the administrator has the details); no last good policy: refused" 78
  it_assert_err_lacks "$SEC_POLICY"

  it_check "a group-writable root-owned policy is refused too"
  chown root: "$policy"
  chmod 0664 "$policy"
  sec_run_ns "$(sec_bind_policy "$policy")" "$CMD"
  refused "the sandbox policy cannot be used (the administrator has the details); no last good policy: refused" 78
  it_assert_err_lacks "$SEC_POLICY"
}

case_home_missing_refused()
{
  fault_setup
  rm -rf "${IT_HOME:?}"
  KEEP_EXPECTED=0
  it_run "$CMD"
  refused "home directory $IT_HOME does not exist" 71
  it_assert_absent "$IT_HOME"
}

case_project_dir_is_a_file_refused()
{
  rm -rf "${IT_HOME:?}/project"
  it_as_user sh -c "echo precious >'$IT_HOME/project'"
  KEEP_EXPECTED=0
  fault_setup
  it_run "$CMD"
  refused "cannot create $IT_HOME/project: an element is not a directory" 71
  it_assert_eq precious "$(cat "$IT_HOME/project")" "the file at ~/project"
}

case_home_not_writable_refused()
{
  rm -rf "${IT_HOME:?}/project"
  chmod 0555 "$IT_HOME"
  KEEP_EXPECTED=0
  fault_setup
  it_run "$CMD"
  refused "cannot create $IT_HOME/project: Permission denied" 71
  it_assert_absent "$IT_HOME/project"
}

case_sandbox_tmp_full_is_bounded()
{
  # The sandbox's /tmp is a tmpfs of the policy's tmp_size: filling it
  # stops at that size, costs the host's /tmp nothing, and the session
  # goes on (the project dir is still writable).
  local policy name=bwsh-sec-fill-$RANDOM$RANDOM
  fault_setup
  it_check "the default policy's /tmp is a 1 GiB tmpfs, not the host's /tmp"
  it_run "stat -f -c '%T %b %S' /tmp"
  sec_assert_line "tmpfs $((1024 * 1024 * 1024 / $(getconf PAGESIZE))) $(getconf PAGESIZE)"

  policy=$(sec_policy 'tmp_size = "8M";')
  it_check "with tmp_size = 8M, filling /tmp stops at 8 MiB with ENOSPC"
  sec_run_ns "$(sec_bind_policy "$policy")" \
    "dd if=/dev/zero of=/tmp/$name bs=1M count=64 2>&1; stat -c size=%s /tmp/$name; echo after >~/project/after && echo project-ok"
  it_assert_rc 0
  it_assert_out_has "No space left on device"
  sec_assert_line "size=$((8 * 1024 * 1024))"
  sec_assert_line "project-ok"
  it_assert_absent "/tmp/$name"
  it_assert_eq precious "$(cat "$IT_HOME/project/keep.txt")" "project/keep.txt"
}

case_sandbox_run_and_dev_are_bounded()
{
  # /tmp is not the only memory-backed place a session can write: /run is a
  # tmpfs of its own and bwrap's --dev is one too (with /dev/shm in it).
  # Filling an unsized one takes the kernel's default, half the machine's
  # RAM, each.  With root_size and tmp_size at 8M, no writable tmpfs inside
  # may hold more than 8 MiB.
  local policy limit=$((8 * 1024 * 1024))
  fault_setup
  policy=$(sec_policy 'root_size = "8M"; tmp_size = "8M";')
  sec_run_ns "$(sec_bind_policy "$policy")" \
    "for d in / /tmp /run /dev /dev/shm; do if touch \$d/.bwsh-sec-w 2>/dev/null; then rm -f \$d/.bwsh-sec-w; echo \"\$d \$(stat -f -c '%T %b %S' \$d)\"; fi; done"
  it_assert_rc 0
  it_check "every writable tmpfs inside is at most 8 MiB"
  it_assert_out_has "/tmp tmpfs"
  local d fs blocks bsize
  while read -r d fs blocks bsize; do
    [ -n "$d" ] || continue
    if [ "$fs" = tmpfs ] && [ $((blocks * bsize)) -gt "$limit" ]; then
      it_fail "$d is a writable tmpfs of $((blocks * bsize / 1024 / 1024)) MiB"
    fi
  done <<<"$IT_OUT"
}

case_host_tmp_full_does_not_matter()
{
  # bwsh writes nothing to the host's /tmp (the bwrap arguments and the
  # seccomp filter go through sealed memfds), so a full /tmp must not stop
  # a login.  A full host /run matters as little: bwsh reads nothing there
  # and the sandbox's /run is its own tmpfs.  Here: a private /tmp of 1 MiB,
  # filled up, with only the fixture's tree bound back into it.
  local setup
  fault_setup
  setup=$(printf 'exec 9<%q; mount -t tmpfs -o size=1M,mode=1777 tmpfs /tmp; mkdir -m 0755 %q; mount --no-canonicalize --bind /proc/self/fd/9 %q; exec 9<&-; dd if=/dev/zero of=/tmp/fill bs=4k >/dev/null 2>&1 || true; : >/tmp/fill2 2>/dev/null || true; ! echo x >/tmp/probe-full 2>/dev/null' \
    "$IT_ROOT" "$IT_ROOT" "$IT_ROOT")
  it_check "with the host's /tmp full, a login still starts its sandbox"
  sec_run_ns "$setup" "echo started-\$((6*7)); touch ~/project/after-full"
  it_assert_rc 0
  sec_assert_line "started-42"
  it_assert_exists "$IT_HOME/project/after-full"
  it_assert_err_lacks "bwsh:"
}

sec_main "$@"
