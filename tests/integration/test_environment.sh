#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The caller's environment does not reach the sandbox: LD_PRELOAD and
# BASH_ENV are dropped (neither bwrap nor the inner shell runs them), and
# HOME/USER/SHELL come from the passwd entry even when the caller lies.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
H=$IT_HOME
cat >"$IT_TMP/preload.c" <<'C'
#include <stdio.h>
#include <unistd.h>
__attribute__ ((constructor)) static void
announce (void)
{
  char exe[256];
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  fprintf (stderr, "PRELOADED-IN %s\n", exe);
}
C
${CC:-cc} -shared -fPIC -o "$IT_TMP/preload.so" "$IT_TMP/preload.c" || { it_fail "cannot build the preload library"; exit 1; }
it_as_user cp "$IT_TMP/preload.so" "$H/preload.so"
printf 'echo BASH_ENV-RAN >&2\n' >"$IT_TMP/bashenv"
it_as_user cp "$IT_TMP/bashenv" "$H/bashenv"

it_check "LD_PRELOAD and BASH_ENV act outside the sandbox (premise)"
LD_PRELOAD=$H/preload.so BASH_ENV=$H/bashenv it_as_user /bin/bash -c true
it_assert_err_has "PRELOADED-IN /usr/bin/bash"
it_assert_err_has BASH_ENV-RAN

it_check "inside, neither is set nor ran, and HOME is the passwd home"
# shellcheck disable=SC2016 # expanded in the session
LD_PRELOAD=$H/preload.so BASH_ENV=$H/bashenv HOME=/ USER=root LOGNAME=root SHELL=/bin/false \
  FOO_SECRET=leak LANG=C.UTF-8 TERM=dumb \
  it_bwsh -c 'printf "%s\n" "HOME=$HOME" "USER=$USER" "LOGNAME=$LOGNAME" "SHELL=$SHELL" "PRELOAD=${LD_PRELOAD-unset}" "BASH_ENV=${BASH_ENV-unset}" "FOO=${FOO_SECRET-unset}" "LANG=$LANG" "TERM=$TERM"; pwd'
it_assert_rc 0
it_assert_out_has "HOME=$H"$'\n'
it_assert_out_has "USER=$IT_USER"$'\n'
it_assert_out_has "LOGNAME=$IT_USER"$'\n'
it_assert_out_has "SHELL=/bin/bash"$'\n'
it_assert_out_has "PRELOAD=unset"
it_assert_out_has "BASH_ENV=unset"
it_assert_out_has "FOO=unset"
it_check "allow-listed variables do pass"
it_assert_out_has "LANG=C.UTF-8"
it_assert_out_has "TERM=dumb"
it_check "the preload ran in the outer tools only, never in bwrap or inside"
it_assert_err_lacks "PRELOADED-IN /usr/bin/bwrap"
it_assert_err_lacks "PRELOADED-IN /usr/bin/bash"
it_assert_err_lacks BASH_ENV-RAN
it_assert_err_has "PRELOADED-IN $IT_BWSH"
