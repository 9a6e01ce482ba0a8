#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A symlink swapped in after validation cannot redirect a bind.  The user
# binds ~/proj (a real directory when bwsh checks it) onto ~/work; bwsh is
# then held at its exec of bwrap, ~/proj is replaced by a symlink to ~/.ssh,
# and the session writes ~/work/authorized_keys.  Bound by fd, the write
# lands in the directory that was checked; bound by path (the control, a
# naive wrapper that checks then passes the path to bwrap) it lands in ~/.ssh.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
H=$IT_HOME

prepare()
{
  rm -rf "$H/proj" "$H/proj.checked" "$H/proj.lnk" "$H/work" "$H/.ssh"
  it_as_user sh -c "mkdir -m 700 '$H/.ssh' && mkdir '$H/proj' '$H/work' && echo checked > '$H/proj/marker' && ln -s '$H/.ssh' '$H/proj.lnk'"
  [ "$IT_RC" = 0 ] || it_fail "setup failed: $IT_ERR"
}
swap() { mv "$H/proj" "$H/proj.checked" && mv "$H/proj.lnk" "$H/proj"; }

it_check "control: a wrapper that validates, then passes the path, is redirected"
prepare
mkdir "$IT_TMP/naive" && chown "$IT_USER:" "$IT_TMP/naive"
sync=$IT_TMP/naive/validated
cat >"$IT_TMP/naive.sh" <<NAIVE
#!/bin/sh
# validate: a real directory under \$HOME, not a symlink
[ -d '$H/proj' ] && [ ! -L '$H/proj' ] || { echo "validation failed" >&2; exit 9; }
touch '$sync'
exec /usr/bin/bwrap --ro-bind / / --bind '$H/proj' '$H/work' --proc /proc --dev /dev --unshare-pid \
  -- /bin/sh -c 'echo evil > $H/work/authorized_keys'
NAIVE
chmod 755 "$IT_TMP/naive.sh"
: >"$IT_TMP/strace.naive" && chown "$IT_USER:" "$IT_TMP/strace.naive"
setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups \
  strace -o "$IT_TMP/strace.naive" -e trace=execve -e inject=execve:delay_enter=2000000:when=1 \
  /bin/sh "$IT_TMP/naive.sh" </dev/null >"$IT_TMP/naive.out" 2>&1 &
naive=$!
it_defer kill -KILL "$naive"
for _ in $(seq 500); do [ -e "$sync" ] && break; sleep 0.01; done
[ -e "$sync" ] || it_fail "the naive wrapper never validated: $(cat "$IT_TMP/naive.out")"
swap
wait "$naive" || it_fail "naive wrapper failed: $(cat "$IT_TMP/naive.out")"
[ -e "$H/.ssh/authorized_keys" ] \
  || it_fail "control: the path-based bind was not redirected, so this test could not see a redirect"

it_check "bwsh: the swap after validation does not redirect the bind"
prepare
it_user_config "{\"preferences\":{\"sandboxBwrapMounts\":{\"additionalBinds\":[{\"src\":\"$H/proj\",\"dst\":\"$H/work\"}]}}}"
it_bwsh_paused -c "cat ~/work/marker; echo evil > ~/work/authorized_keys && echo written"
[ -n "$IT_PAUSED_PID" ] || exit 1
bindfd=$(tr '\0' '\n' <"$IT_PAUSED_ARGS" | awk -v d="$H/work" '$0 == "--bind-fd" { getline f; getline t; if (t == d) print f }')
[ -n "$bindfd" ] || it_fail "no --bind-fd for $H/work in the blob"
swap
[ -L "$H/proj" ] || it_fail "the swap did not happen"
# The fd follows the directory it was opened on, whatever its name now is.
it_assert_eq "$H/proj.checked" "$(readlink "/proc/$IT_PAUSED_PID/fd/$bindfd")" "bound fd after the swap"
it_bwsh_resume
it_assert_rc 0
it_assert_out_has checked
it_assert_out_has written
it_assert_absent "$H/.ssh/authorized_keys"
it_assert_eq evil "$(cat "$H/proj.checked/authorized_keys" 2>&1)" "the write went to the checked directory"
