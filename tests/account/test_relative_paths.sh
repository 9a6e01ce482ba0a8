#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Relative paths mean what an SSH user expects: scp, scp -O, sftp, rsync and
# git resolve them against the home directory, so "project/..." lands in
# ~/project.  A relative path to a file the home does not let the user write
# is still refused, and the real home outside the project dir is unchanged.
# Control: with start_dir = "project" (the old behaviour) the same
# "project/" path does not reach ~/project.
# shellcheck disable=SC1091
. "$(dirname "$0")/lib.sh"
acct_prepare
P=$IT_HOME/project
echo "keep me" >"$IT_HOME/notes.txt"
chown "$IT_USER:" "$IT_HOME/notes.txt"
head -c 200000 /dev/urandom >"$IT_TMP/up"
sum() { sha256sum <"$1" | cut -d' ' -f1; }
acct_snapshot "$IT_TMP/before"

it_check 'control: start_dir = "project" makes "project/" relative to the project dir'
acct_policy 'start_dir = "project";'
ssh_start control
acct_scp "$IT_TMP/up" t:project/
[ "$IT_RC" != 0 ] || it_fail "scp into project/ succeeded with start_dir = project"
it_assert_absent "$P/up"
ssh_stop

acct_policy '# shipped defaults'
ssh_start main

it_check "scp f host:project/ (SFTP protocol) lands in ~/project"
acct_scp "$IT_TMP/up" t:project/
it_assert_rc 0
# shellcheck disable=SC2088 # a label in the message, not a path
it_assert_eq "$(sum "$IT_TMP/up")" "$(sum "$P/up" 2>/dev/null)" "~/project/up on the host"

it_check "scp -O f host:project/f-O (scp protocol) lands in ~/project"
acct_scp -O "$IT_TMP/up" t:project/f-O
it_assert_rc 0
# shellcheck disable=SC2088 # a label in the message, not a path
it_assert_eq "$(sum "$IT_TMP/up")" "$(sum "$P/f-O" 2>/dev/null)" "~/project/f-O on the host"

it_check "sftp starts in \$HOME; put project/sftp-put lands in ~/project"
printf 'pwd\nput %s project/sftp-put\n' "$IT_TMP/up" >"$IT_TMP/batch"
acct_sftp "$IT_TMP/batch"
it_assert_rc 0
it_assert_out_has "Remote working directory: $IT_HOME"
# shellcheck disable=SC2088 # a label in the message, not a path
it_assert_eq "$(sum "$IT_TMP/up")" "$(sum "$P/sftp-put" 2>/dev/null)" "~/project/sftp-put on the host"

it_check "rsync -a dir/ host:project/dir/ lands in ~/project/dir"
mkdir -p "$IT_TMP/dir/sub"
cp "$IT_TMP/up" "$IT_TMP/dir/sub/a"
IT_RC=0
timeout -k 5 60 rsync -a -e "ssh -F $SSH_CFG" "$IT_TMP/dir/" t:project/dir/ >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
# shellcheck disable=SC2088 # a label in the message, not a path
it_assert_eq "$(sum "$IT_TMP/up")" "$(sum "$P/dir/sub/a" 2>/dev/null)" "~/project/dir/sub/a on the host"

it_check "git clone and git push with host:project/repo.git"
ssh_run t 'git init -q --bare project/repo.git'
it_assert_rc 0
[ -d "$P/repo.git" ] || it_fail "the bare repo is not in ~/project"
export GIT_SSH_COMMAND="ssh -F $SSH_CFG" GIT_CONFIG_NOSYSTEM=1 HOME=$IT_TMP
git config --global user.email t@example.invalid
git config --global user.name bwsh-test
IT_RC=0
timeout -k 5 60 git clone -q t:project/repo.git "$IT_TMP/clone" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
echo hello >"$IT_TMP/clone/hello"
git -C "$IT_TMP/clone" add hello
git -C "$IT_TMP/clone" commit -q -m first
IT_RC=0
timeout -k 5 60 git -C "$IT_TMP/clone" push -q origin HEAD:main >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
it_assert_eq "$(git -C "$IT_TMP/clone" rev-parse HEAD)" \
  "$(git -c safe.directory='*' --git-dir="$P/repo.git" rev-parse main 2>/dev/null)" "pushed commit in ~/project/repo.git"

it_check "relative paths the home does not allow are refused: notes.txt, .ssh/authorized_keys"
cp "$IT_HOME/.ssh/authorized_keys" "$IT_TMP/keys.before"
for proto in sftp scp; do
  opt=; [ $proto = scp ] && opt=-O
  acct_scp $opt "$IT_TMP/up" t:notes.txt
  [ "$IT_RC" != 0 ] || it_fail "scp $opt to notes.txt succeeded"
  acct_scp $opt "$IT_TMP/up" t:.ssh/authorized_keys
  [ "$IT_RC" != 0 ] || it_fail "scp $opt to .ssh/authorized_keys succeeded"
done
printf 'put %s .ssh/authorized_keys\n' "$IT_TMP/up" >"$IT_TMP/batch"
acct_sftp "$IT_TMP/batch"
[ "$IT_RC" != 0 ] || it_fail "sftp put to .ssh/authorized_keys succeeded"
it_assert_eq "keep me" "$(cat "$IT_HOME/notes.txt")" "notes.txt on the host"
cmp -s "$IT_TMP/keys.before" "$IT_HOME/.ssh/authorized_keys" || it_fail "authorized_keys changed"

it_check "after logout the real home outside the project dir is unchanged"
acct_assert_home_unchanged "$IT_TMP/before"
ssh_stop
ssh_assert_no_user_processes
