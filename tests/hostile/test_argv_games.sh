#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# argv games against the login shell: -c '' and -c twice (sh semantics),
# argv[0] "-", "-bash", empty, 100 KB long or with a newline (exec -a), and
# commands or arguments that begin with "--": each either runs sandboxed
# exactly as sh would, or is a usage error (exit 2) with nothing run.
. "$(dirname "$0")/hostile.sh"
h_setup
login_probe='if shopt -q login_shell; then echo LOGIN; else echo NOLOGIN; fi'
sandboxed()
{
  it_assert_rc 0
  case $IT_OUT in *UNSANDBOXED*) it_fail "THE SESSION RAN UNSANDBOXED" ;; *SANDBOXED) ;; *) it_fail "no sandbox check output"; it_show ;; esac
}
# as0 ARGV0 ARG...: bwsh with that argv[0], as the user.
# shellcheck disable=SC2016 # expanded by the inner bash
as0() { local a0=$1; shift; h_as_user /bin/bash -c 'a0=$1; shift; exec -a "$a0" "$@"' _ "$a0" "$IT_BWSH" "$@"; }

it_check "-c '' runs nothing and succeeds"
h_as_user "$IT_BWSH" -c ''
it_assert_rc 0; it_assert_eq "" "$IT_OUT" stdout; it_assert_eq "" "$IT_ERR" stderr
it_check "-c given twice: the second -c is \$0, as in sh"
# shellcheck disable=SC2016 # expanded in the session
h_as_user "$IT_BWSH" -c 'echo "$0"; '"$H_SANDBOX_CHECK" -c x
sandboxed; it_assert_eq "-c"$'\n'SANDBOXED "$IT_OUT" stdout
it_check "-c without a command is a usage error"
h_as_user "$IT_BWSH" -c
it_assert_rc 2; it_assert_err_has "bwsh: -c: option requires an argument"; it_assert_eq "" "$IT_OUT" stdout
# The inner bash, not bwrap, gets the string: bwrap would mount / on /host
# or print "bubblewrap" for --version.  bwsh passes "-c -- CMD", so bash
# runs the string as a command (not found) instead of reading it as options.
it_check "a command that begins with -- reaches the inner shell, never bwrap"
h_as_user "$IT_BWSH" -c '--bind / /host'
it_assert_rc 127
it_assert_err_has "--bind: command not found"; it_assert_err_lacks "bwrap:"; it_assert_err_lacks "bubblewrap"
h_as_user "$IT_BWSH" -c '--version'
it_assert_out_lacks bubblewrap; it_assert_err_lacks bubblewrap; it_assert_err_lacks "bwrap:"
it_check "arguments that begin with -- stay \$0 and \$@"
# shellcheck disable=SC2016 # expanded in the session
h_as_user "$IT_BWSH" -c 'test -e /host && echo HOST-BOUND; echo "$0|$*"; '"$H_SANDBOX_CHECK" --bind / /host
sandboxed; it_assert_eq "--bind|/ /host"$'\n'SANDBOXED "$IT_OUT" stdout
it_check "-- and bwrap options as bwsh's own arguments are usage errors"
h_as_user "$IT_BWSH" -- -c 'echo RAN'
it_assert_rc 2; it_assert_err_has "bwsh: --: unsupported argument"; it_assert_out_lacks RAN
h_as_user "$IT_BWSH" --bind / /host -c 'echo RAN'
it_assert_rc 2; it_assert_err_has "bwsh: --bind: unsupported argument"; it_assert_out_lacks RAN

it_check "argv[0] \"-\" alone: a login shell, sandboxed"
as0 - -c "$login_probe; $H_SANDBOX_CHECK"
sandboxed; it_assert_out_has LOGIN$'\n'SANDBOXED
it_check "argv[0] \"-bash\": a login shell, sandboxed"
as0 -bash -c "$login_probe; $H_SANDBOX_CHECK"
sandboxed; it_assert_out_has LOGIN$'\n'SANDBOXED
it_check "empty argv[0]: not a login shell, sandboxed"
as0 '' -c "$login_probe; $H_SANDBOX_CHECK"
sandboxed; it_assert_out_has NOLOGIN$'\n'SANDBOXED
it_check "a 100 KB argv[0]: sandboxed"
as0 "$(head -c 100000 /dev/zero | tr '\0' b)" -c "$login_probe; $H_SANDBOX_CHECK"
sandboxed; it_assert_out_has NOLOGIN$'\n'SANDBOXED
it_check "argv[0] with a newline and bwrap options in it: sandboxed, nothing parsed from it"
as0 $'-bwsh\n--bind / /host' -c "test -e /host && echo HOST-BOUND; $login_probe; $H_SANDBOX_CHECK"
sandboxed; it_assert_out_has LOGIN$'\n'SANDBOXED; it_assert_out_lacks HOST-BOUND
it_check "-l: a login shell"
h_as_user "$IT_BWSH" -l -c "$login_probe; $H_SANDBOX_CHECK"
sandboxed; it_assert_out_has LOGIN$'\n'SANDBOXED
