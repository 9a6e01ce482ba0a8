#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A directory fd the caller leaves open is a way back to the host's
# filesystem (openat(fd, "..")).  bwsh closes everything above 2, so inside
# /proc/self/fd holds 0, 1, 2 and the fd ls itself opens, nothing else.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
secret=$IT_TMP/hostdir
mkdir -p "$secret" && echo host-only >"$secret/file" && chmod -R a+rX "$secret"
exec 7</etc 9<"$secret" 200<"$secret/file"

it_check "setpriv passes the caller's fds on (premise)"
it_as_user /bin/sh -c 'ls /proc/self/fd | sort -n | tr "\n" " "'
it_assert_out_has " 7 "
it_assert_out_has " 9 "
it_assert_out_has " 200 "

it_check "inside, only 0 1 2 and ls's own fd are open"
it_bwsh -c 'ls /proc/self/fd | sort -n | tr "\n" " "; cat /proc/self/fd/9/file 2>/dev/null; cat <&200 2>/dev/null; true'
it_assert_rc 0
it_assert_eq "0 1 2 3 " "$IT_OUT" "fds inside"
it_assert_out_lacks host-only

it_check "the same through su -"
it_run 'ls /proc/self/fd | sort -n | tr "\n" " "'
it_assert_rc 0
it_assert_eq "0 1 2 3 " "$IT_OUT" "fds inside, login path"
exec 7<&- 9<&- 200<&-
