#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the caller leaves in the environment of the login shell cannot steer
# the session: LD_PRELOAD, BASH_ENV, ENV, PATH, HOME=/ and SHELL never reach
# the sandbox, and an over-long allow-listed variable is a clear refusal
# (exit 1, nothing run), never a truncation and never a fallback; a long
# variable that is not allow-listed is simply dropped.
# shellcheck disable=SC2016 # each session's command is expanded in the session
. "$(dirname "$0")/hostile.sh"
h_setup
H=$IT_HOME
printf 'echo EVIL-RAN\n' >"$IT_TMP/evil.sh"
chmod 755 "$IT_TMP/evil.sh"
it_as_user mkdir -p "$H/evilbin"
for t in bwrap bash sh env; do it_as_user cp "$IT_TMP/evil.sh" "$H/evilbin/$t"; done
it_as_user cp "$IT_TMP/evil.sh" "$H/evil.sh"
long() { head -c "$1" /dev/zero | tr '\0' x; }

# h_env_session NAME=VALUE... -- CMD: a session with exactly this environment added.
h_env_session()
{
  local -a envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  h_as_user env "${envs[@]}" "$IT_BWSH" -c "$1; $H_SANDBOX_CHECK"
}
sandboxed()
{
  it_assert_rc 0
  case $IT_OUT in *UNSANDBOXED*) it_fail "THE SESSION RAN UNSANDBOXED" ;; *SANDBOXED) ;; *) it_fail "no sandbox check output"; it_show ;; esac
  it_assert_out_lacks EVIL-RAN
  it_assert_err_lacks EVIL-RAN
}

it_check "LD_PRELOAD is not passed in"
h_env_session LD_PRELOAD="$H/evil.so" -- 'echo "P=${LD_PRELOAD-unset}"'
sandboxed; it_assert_out_has "P=unset"
it_check "BASH_ENV is neither passed in nor run"
h_env_session BASH_ENV="$H/evil.sh" -- 'echo "B=${BASH_ENV-unset}"'
sandboxed; it_assert_out_has "B=unset"
it_check "ENV is neither passed in nor run"
h_env_session ENV="$H/evil.sh" -- 'echo "E=${ENV-unset}"; sh -ic true </dev/null 2>/dev/null'
sandboxed; it_assert_out_has "E=unset"
it_check "the caller's PATH does not pick bwrap or the shell"
h_env_session PATH="$H/evilbin:/usr/bin:/bin" -- 'echo "PATH=$PATH"; env true'
sandboxed; it_assert_out_has "PATH=/usr/local/bin:/usr/bin:/bin"$'\n'
it_check "HOME=/ does not move the home or the project"
h_env_session HOME=/ -- 'echo "HOME=$HOME"; pwd; cd project && pwd'
sandboxed; it_assert_out_has "HOME=$H"$'\n'"$H"$'\n'"$H/project"$'\n'
it_check "SHELL does not choose the inner shell"
h_env_session SHELL="$H/evil.sh" -- 'echo "SHELL=$SHELL"; readlink /proc/$$/exe'
sandboxed; it_assert_out_has "SHELL=/bin/bash"$'\n'"/usr/bin/bash"$'\n'

# TERM is a terminal name or nothing (#36): the recorder outside the sandbox
# and the sandbox both get "dumb" for anything else, whatever its length.
for len in 65 32768 131000; do
  it_check "TERM of $len bytes becomes \"dumb\", inside as for the recorder"
  h_env_session TERM="$(long "$len")" -- 'echo "TERM=$TERM"'
  sandboxed; it_assert_out_has "TERM=dumb"$'\n'
done
it_check "TERM that is a terminal name passes whole"
h_env_session TERM=xterm-256color -- 'echo "TERM=$TERM"'
sandboxed; it_assert_out_has "TERM=xterm-256color"$'\n'
for spec in LC_ALL:131000 LANG:65536; do
  var=${spec%%:*} len=${spec#*:}
  it_check "$var of $len bytes: a clear refusal, nothing run"
  h_as_user env "$var=$(long "$len")" "$IT_BWSH" -c 'echo RAN'
  it_assert_rc 77
  it_assert_eq "bwsh: cannot build the sandbox: environment variable $var is longer than 32768 bytes" "$IT_ERR" "stderr"
  it_assert_eq "" "$IT_OUT" "stdout"
done
it_check "a 131000-byte variable that is not allow-listed is dropped, the session works"
h_env_session FOO_BIG="$(long 131000)" -- 'echo "FOO=${FOO_BIG-unset}"'
sandboxed; it_assert_out_has "FOO=unset"
it_check "140 KB in one variable never even reaches bwsh (the kernel's 128 KiB per string): nothing runs"
h_as_user env TERM="$(long 143360)" "$IT_BWSH" -c 'echo RAN'
[ "$IT_RC" != 0 ] || it_fail "exec with a 140 KB variable succeeded"
it_assert_err_has "Argument list too long"
it_assert_out_lacks RAN
