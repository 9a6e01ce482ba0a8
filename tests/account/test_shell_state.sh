#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shell's own state is writable inside, and never written to the real
# home: git config --global, pip install --user, bash history, ~/.cache, vi
# and less, through real ssh logins.
#   test_shell_state.sh tmpfs        state = "tmpfs": all of it works in
#                                    one session and is gone after logout
#   test_shell_state.sh persistent   state = "persistent" (shipped): it is
#                                    kept from one login to the next, in
#                                    state_dir only
# Either way, a before/after listing of the real home (names, modes, owners,
# hashes) shows nothing changed outside the project dir (and state_dir).
# shellcheck disable=SC2016,SC1091
. "$(dirname "$0")/lib.sh"
mode=${1:?usage: $0 tmpfs|persistent}
acct_prepare
P=$IT_HOME/project
acct_make_wheel "$P"
chown -R "$IT_USER:" "$P"
printf 'one\nneedle\nthree\n' >"$P/less.txt"
# A home that already has what the tools write: they must still work.
printf '[user]\n\tname = Host Name\n' >"$IT_HOME/.gitconfig"
mkdir -p "$IT_HOME/.cache" "$IT_HOME/.local/state"
chown -R "$IT_USER:" "$IT_HOME/.gitconfig" "$IT_HOME/.cache" "$IT_HOME/.local"
STATE_REL=.local/state/bwsh
if [ "$mode" = persistent ]; then
  acct_policy "state = \"persistent\"; state_dir = \"~/$STATE_REL\";"
  acct_snapshot "$IT_TMP/before" "$STATE_REL"
else
  acct_policy 'state = "tmpfs";'
  acct_snapshot "$IT_TMP/before"
fi
ssh_start main

# Everything the first session does.
FIRST='
set -e
git config --global user.name "Bwsh Tester"
echo "git-name=$(git config --global --get user.name)"
python3 -m pip install -q --user --no-index --break-system-packages --no-warn-script-location \
  ~/project/bwshdemo-0.1-py3-none-any.whl
python3 -c "import bwshdemo; print(\"pip-import=%d\" % bwshdemo.X)"
bash -i >/dev/null 2>&1 <<EOS
echo hist-marker-\$((40+2))
EOS
echo "history=$(grep -c "hist-marker" ~/.bash_history)"
mkdir -p ~/.cache/demo && echo cached >~/.cache/demo/f && echo "cache=$(cat ~/.cache/demo/f)"
vi -es -N -c "call histadd(\"cmd\", \"vi-marker\")" -c "wviminfo! ~/.viminfo" -c "qa!"
grep -q vi-marker ~/.viminfo && echo viminfo=ok
vi -es -c "normal! ivi-wrote" -c wq ~/project/vi.txt
python3 - <<PY
import os, pty, time
pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm"
    os.execvp("less", ["less", os.path.expanduser("~/project/less.txt")])
time.sleep(0.5)
os.write(fd, b"/needle\r")
time.sleep(0.3)
os.write(fd, b"q")
while True:
    try:
        if not os.read(fd, 4096):
            break
    except OSError:
        break
print("less-exit=%d" % os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
PY
grep -q needle ~/.lesshst && echo lesshst=ok
'

it_check "first session: git config --global, pip install --user, history, ~/.cache, vi, less"
ssh_run t "$FIRST"
it_assert_rc 0
for line in "git-name=Bwsh Tester" "pip-import=42" "history=1" "cache=cached" "viminfo=ok" "less-exit=0" "lesshst=ok"; do
  it_assert_out_has "$line"
done
it_assert_eq vi-wrote "$(cat "$P/vi.txt" 2>/dev/null)" "the file vi wrote in the project dir"

SECOND='
echo "history=$(cat ~/.bash_history 2>/dev/null | grep -c "hist-marker")"
echo "git-name=$(git config --global --get user.name)"
python3 -c "import bwshdemo; print(\"pip-import=%d\" % bwshdemo.X)" 2>/dev/null || echo pip-import=none
cd ~/project && rm -rf r && git init -q r && cd r && echo x >x && git add x \
  && git -c user.email=t@example.invalid commit -q -m one && echo "author=$(git log -1 --format=%an)"
'
it_check "second login"
ssh_run t "$SECOND"
if [ "$mode" = persistent ]; then
  it_check "persistent: history, git config --global and the pip --user package are kept"
  it_assert_out_has "history=1"
  it_assert_out_has "git-name=Bwsh Tester"
  it_assert_out_has "author=Bwsh Tester"
  it_assert_out_has "pip-import=42"
  it_check "persistent: the state is in state_dir on the host, owned by the user"
  it_assert_eq "$IT_USER 700" "$(stat -c '%U %a' "$IT_HOME/$STATE_REL" 2>&1)" "state_dir owner and mode"
  grep -q hist-marker "$IT_HOME/$STATE_REL/.bash_history" 2>/dev/null || it_fail "no history in state_dir"
  grep -q "Bwsh Tester" "$IT_HOME/$STATE_REL/.gitconfig" 2>/dev/null || it_fail "no .gitconfig in state_dir"
else
  it_check "tmpfs: nothing of the first session is left"
  it_assert_out_has "history=0"
  it_assert_out_has "pip-import=none"
  it_assert_out_lacks "Bwsh Tester"
fi

it_check "after logout the real home is unchanged outside the project dir${STATE_REL:+ and state_dir}"
if [ "$mode" = persistent ]; then
  acct_assert_home_unchanged "$IT_TMP/before" "$STATE_REL"
else
  acct_assert_home_unchanged "$IT_TMP/before"
fi
it_assert_eq "[user]
	name = Host Name" "$(cat "$IT_HOME/.gitconfig")" "the real ~/.gitconfig"
ssh_stop
ssh_assert_no_user_processes
