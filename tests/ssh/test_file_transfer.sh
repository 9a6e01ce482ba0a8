#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scp (SFTP protocol and -O), sftp, rsync and git over ssh: each works into
# the project dir and each is confined.  The server side of every one of
# them (sftp-server, scp -t/-f, rsync --server, git-*-pack) is started by
# sshd through the login shell, so it runs inside the sandbox.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC2088,SC1010,SC1003,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
ssh_start main

# Something the user could read on the host, but that is not in the sandbox.
it_add_user VICTIM
printf 'victim secret\n' >"$VICTIM_HOME/secret"
chmod 644 "$VICTIM_HOME/secret"
it_as_user cat "$VICTIM_HOME/secret"
it_assert_eq "victim secret" "$IT_OUT" "the victim's file is readable by the user on the host"

P=$IT_HOME/project
head -c 300000 /dev/urandom >"$IT_TMP/up"
sum() { sha256sum <"$1" | cut -d' ' -f1; }
scp_() { IT_RC=0; timeout -k 5 60 scp -q -F "$SSH_CFG" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?; it_collect; }
ssh_mark

for proto in sftp scp; do
  opt=; [ $proto = scp ] && opt=-O
  it_check "scp $opt ($proto protocol) uploads into the project dir"
  scp_ $opt "$IT_TMP/up" "t:$P/up-$proto"
  it_assert_rc 0
  it_assert_eq "$(sum "$IT_TMP/up")" "$(sum "$P/up-$proto" 2>/dev/null)" "uploaded file"

  it_check "scp $opt ($proto protocol) downloads from the project dir"
  rm -f "$IT_TMP/down"
  scp_ $opt "t:$P/up-$proto" "$IT_TMP/down"
  it_assert_rc 0
  it_assert_eq "$(sum "$IT_TMP/up")" "$(sum "$IT_TMP/down" 2>/dev/null)" "downloaded file"

  it_check "scp $opt ($proto protocol) cannot write to /etc, the real home, or read another home"
  scp_ $opt "$IT_TMP/up" "t:/etc/bwsh-scp-$proto"
  [ "$IT_RC" != 0 ] || it_fail "scp to /etc succeeded"
  it_assert_absent "/etc/bwsh-scp-$proto"
  scp_ $opt "$IT_TMP/up" "t:$IT_HOME/.ssh/escape-$proto"
  [ "$IT_RC" != 0 ] || it_fail "scp to ~/.ssh succeeded"
  it_assert_absent "$IT_HOME/.ssh/escape-$proto"
  # A new name in the home is the session's state: never on the host.
  scp_ $opt "$IT_TMP/up" "t:$IT_HOME/escape-$proto"
  it_assert_absent "$IT_HOME/escape-$proto"
  scp_ $opt "$IT_TMP/up" "t:/tmp/escape-$proto"
  it_assert_absent "/tmp/escape-$proto"
  rm -f "$IT_TMP/stolen"
  scp_ $opt "t:$VICTIM_HOME/secret" "$IT_TMP/stolen"
  [ "$IT_RC" != 0 ] || it_fail "scp read another user's home"
  it_assert_absent "$IT_TMP/stolen"
done

it_check "sftp put, get and ls work in the project dir"
cat >"$IT_TMP/batch" <<B
cd $P
put $IT_TMP/up sftp-put
ls -1
get sftp-put $IT_TMP/sftp-got
B
IT_RC=0
timeout -k 5 60 sftp -q -F "$SSH_CFG" -b "$IT_TMP/batch" t >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
it_assert_out_has "sftp-put"
it_assert_out_has "up-sftp"
it_assert_eq "$(sum "$IT_TMP/up")" "$(sum "$P/sftp-put" 2>/dev/null)" "sftp put"
it_assert_eq "$(sum "$IT_TMP/up")" "$(sum "$IT_TMP/sftp-got" 2>/dev/null)" "sftp get"

it_check "sftp starts in \$HOME and sees the sandbox's filesystem"
printf 'pwd\nls -1 /\nls -1 /var\nls -1 %s\n' "$(dirname "$VICTIM_HOME")" >"$IT_TMP/batch"
IT_RC=0
timeout -k 5 60 sftp -q -F "$SSH_CFG" -b "$IT_TMP/batch" t >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_out_has "Remote working directory: $IT_HOME"
it_assert_out_lacks "$(basename "$VICTIM_HOME")"
it_assert_out_lacks "/var/lib"

for target in /etc/bwsh-sftp "$IT_HOME/.ssh/escape-sftp" "$VICTIM_HOME/escape-sftp"; do
  it_check "sftp put to $target is refused"
  printf 'put %s %s\n' "$IT_TMP/up" "$target" >"$IT_TMP/batch"
  IT_RC=0
  timeout -k 5 60 sftp -q -F "$SSH_CFG" -b "$IT_TMP/batch" t >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
  [ "$IT_RC" != 0 ] || it_fail "sftp put to $target succeeded"
  it_assert_absent "$target"
done

it_check "sftp get of another user's file fails"
printf 'get %s %s\n' "$VICTIM_HOME/secret" "$IT_TMP/stolen" >"$IT_TMP/batch"
IT_RC=0
timeout -k 5 60 sftp -q -F "$SSH_CFG" -b "$IT_TMP/batch" t >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
[ "$IT_RC" != 0 ] || it_fail "sftp get of the victim's file succeeded"
it_assert_absent "$IT_TMP/stolen"

it_check "rsync over ssh both ways"
mkdir -p "$IT_TMP/tree/sub"
head -c 100000 /dev/urandom >"$IT_TMP/tree/a"
printf 'b\n' >"$IT_TMP/tree/sub/b"
ln -s a "$IT_TMP/tree/link"
RSH="ssh -F $SSH_CFG"
IT_RC=0
timeout -k 5 60 rsync -a -e "$RSH" "$IT_TMP/tree/" "t:$P/tree/" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
it_assert_eq "$(sum "$IT_TMP/tree/a")" "$(sum "$P/tree/a" 2>/dev/null)" "rsync push"
it_assert_eq a "$(readlink "$P/tree/link")" "symlink pushed as a symlink"
IT_RC=0
timeout -k 5 60 rsync -a -e "$RSH" "t:$P/tree/" "$IT_TMP/tree-back/" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
diff -r "$IT_TMP/tree" "$IT_TMP/tree-back" >/dev/null || it_fail "rsync pull differs"

it_check "rsync cannot write outside the project dir or read another home"
IT_RC=0
timeout -k 5 60 rsync -a -e "$RSH" "$IT_TMP/tree/" "t:$IT_HOME/.ssh/escape-rsync/" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
[ "$IT_RC" != 0 ] || it_fail "rsync into ~/.ssh succeeded"
it_assert_absent "$IT_HOME/.ssh/escape-rsync"
timeout -k 5 60 rsync -a -e "$RSH" "$IT_TMP/tree/" "t:$IT_HOME/escape-rsync/" >"$IT_TMP/out" 2>"$IT_TMP/err"
it_assert_absent "$IT_HOME/escape-rsync"
IT_RC=0
timeout -k 5 60 rsync -a -e "$RSH" "t:$VICTIM_HOME/secret" "$IT_TMP/stolen" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
[ "$IT_RC" != 0 ] || it_fail "rsync read the victim's file"
it_assert_absent "$IT_TMP/stolen"

it_check "git clone and push over ssh to a bare repo in the project dir"
ssh_run t "git init -q --bare $P/repo.git"
it_assert_rc 0
export GIT_SSH_COMMAND="ssh -F $SSH_CFG" GIT_CONFIG_NOSYSTEM=1 HOME=$IT_TMP
git config --global user.email t@example.invalid
git config --global user.name bwsh-test
git config --global init.defaultBranch main
IT_RC=0
timeout -k 5 60 git clone -q "t:$P/repo.git" "$IT_TMP/clone" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
echo hello >"$IT_TMP/clone/hello"
git -C "$IT_TMP/clone" add hello
git -C "$IT_TMP/clone" commit -q -m "first"
IT_RC=0
timeout -k 5 60 git -C "$IT_TMP/clone" push -q origin HEAD:main >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
it_assert_eq "$(git -C "$IT_TMP/clone" rev-parse HEAD)" \
  "$(git -c safe.directory='*' --git-dir="$P/repo.git" rev-parse main 2>/dev/null)" "pushed commit on the host"
rm -rf "$IT_TMP/clone2"
IT_RC=0
timeout -k 5 60 git clone -q "t:$P/repo.git" "$IT_TMP/clone2" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
it_assert_eq hello "$(cat "$IT_TMP/clone2/hello" 2>/dev/null)" "cloned content"

it_check "git cannot push into a repo outside the project dir"
mkdir -p "$IT_HOME/outside.git"
git init -q --bare "$IT_HOME/outside.git"
chown -R "$IT_USER:" "$IT_HOME/outside.git"
ssh_mark
IT_RC=0
timeout -k 5 60 git -C "$IT_TMP/clone" push -q "t:$IT_HOME/outside.git" HEAD:main >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
[ "$IT_RC" != 0 ] || it_fail "push into the read-only home succeeded"
git -c safe.directory='*' --git-dir="$IT_HOME/outside.git" rev-parse -q --verify main >/dev/null \
  && it_fail "the commit landed outside the project dir"

ssh_assert_confined
ssh_stop
ssh_assert_no_user_processes
