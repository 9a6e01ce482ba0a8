#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A policy file that someone other than root could have written, or an
# @include that reaches outside the policy's folder, is not trusted: every
# session is refused with a clear "bwsh: " message and nothing runs (the
# subject's one line has no file; root's names the file and the reason, #38),
# and `bwshctl check` says the same and exits 1.
#   test_unsafe_policy.sh CASE
set -u
. "$(dirname "$0")/pol_lib.sh"
pol_setup

what=${1:?usage: $0 CASE}
pol_project

# A would-be "policy" that loosens everything, outside the folder.
pol_file outside.conf 'user_overlay = true; rw_ceilings = [ "/" ];'
OUTSIDE=$POL_FILE

case $what in
  world_writable)
    pol_write 'hostname = "unsafe";'
    chmod 0666 "$POL"
    MSG="$POL: is group- or world-writable (mode 0666, refused)"
    ;;
  group_writable)
    pol_write 'hostname = "unsafe";'
    chmod 0664 "$POL"
    MSG="$POL: is group- or world-writable (mode 0664, refused)"
    ;;
  not_owned_by_root)
    pol_write 'hostname = "unsafe";'
    chown "$IT_USER:" "$POL"
    MSG="$POL: is owned by uid $IT_UID, not by root (refused)"
    ;;
  directory_world_writable)
    pol_write 'hostname = "unsafe";'
    chmod 0777 "$POL_DIR"
    MSG="$POL: directory $POL_DIR is group- or world-writable (mode 0777, refused)"
    ;;
  directory_not_owned_by_root)
    pol_write 'hostname = "unsafe";'
    chown "$IT_USER:" "$POL_DIR"
    MSG="$POL: directory $POL_DIR is owned by uid $IT_UID (refused)"
    ;;
  policy_is_symlink)
    ln -sf "$OUTSIDE" "$POL.link" && mv -f "$POL.link" "$POL"
    MSG="$POL: is a symbolic link (refused)"
    ;;
  include_parent_dir)
    pol_write '# include outside
@include "../../../../outside.conf"'
    MSG="$POL:2: @include \"../../../../outside.conf\" refused: only a plain file name in the policy's own directory may be included"
    ;;
  include_absolute_path)
    pol_write "# include outside
@include \"$OUTSIDE\""
    MSG="$POL:2: @include \"$OUTSIDE\" refused: only a plain file name in the policy's own directory may be included"
    ;;
  include_symlink_to_outside)
    ln -s "$OUTSIDE" "$POL_DIR/site.inc"
    pol_write '# include a symlink
@include "site.inc"'
    MSG="$POL_DIR/site.inc: is a symbolic link (refused)"
    ;;
  include_world_writable)
    install -o root -g root -m 0666 "$OUTSIDE" "$POL_DIR/site.inc"
    chmod 0666 "$POL_DIR/site.inc"
    pol_write '# include an untrusted file
@include "site.inc"'
    MSG="$POL_DIR/site.inc: is group- or world-writable (mode 0666, refused)"
    ;;
  include_hidden_in_comment)
    install -o root -g root -m 0644 "$OUTSIDE" "$POL_DIR/site.inc"
    pol_write '/* a comment
@include "site.inc"
*/'
    MSG="$POL:2: @include inside a comment or a string is refused"
    ;;
  include_missing)
    pol_write '# include a missing file
@include "nothere.inc"'
    MSG="$POL:2: @include \"nothere.inc\": no such file in $POL_DIR"
    ;;
  dropin_symlink)
    ln -s "$OUTSIDE" "$POL_DIR/conf.d/50-link.conf"
    MSG="$POL_DIR/conf.d/50-link.conf: is a symbolic link (refused)"
    ;;
  dropin_not_owned_by_root)
    install -o "$IT_USER" -g root -m 0644 "$OUTSIDE" "$POL_DIR/conf.d/50-user.conf"
    MSG="$POL_DIR/conf.d/50-user.conf: is owned by uid $IT_UID, not by root (refused)"
    ;;
  *)
    it_fail "unknown case $what"
    exit 1
    ;;
esac

it_check "$what: the session is refused; the subject hears one line without the file"
pol_session 'echo SANDBOX-RAN'
pol_assert_policy_refused
it_assert_out_lacks SANDBOX-RAN

it_check "$what: root's bwsh is refused with the reason"
pol_bwsh_as_root
pol_assert_refused "$MSG"
it_assert_out_lacks SANDBOX-RAN
it_assert_err_has "bwsh: the sandbox policy cannot be used: "

it_check "$what: bwshctl check exits 1 with the same message"
IT_RC=0
"$BWSHCTL" check >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 1
it_assert_err_has "$MSG"
it_assert_out_lacks "policy valid"

it_check "$what: repaired, the session runs again"
pol_restore
pol_session 'true'
pol_assert_ran
