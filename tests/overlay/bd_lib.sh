# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Helpers of the allow-list boundary tests (issue 24), on top of ov_lib.sh.
#
# API (after bd_setup)
#   MARK, pol_project          as in pol_lib.sh: a fresh marker in ~/project
#   bd_policy TEXT             ov_policy with network = "none" and TEXT
#   bd_overlay FILE            write FILE as the overlay from inside, over ssh;
#                              if bwsh refuses the login (a lockout left by an
#                              earlier step), record the failure and write it
#                              as the user so that the later controls still run
#   bd_login CMD               the next login over ssh: "touch $MARK; CMD"
#   bd_assert_login_ran        that login worked: rc 0 and the marker exists
#   bd_assert_warning S1 S2... one "bwsh: warning: " line of stderr holds
#                              every S (the entry's path and the reason)
#   bd_home_snapshot FILE      names, modes, kinds, link targets and file
#                              contents of the real home, except the project
#                              directory and ~/.config/bwsh, into FILE
#   bd_assert_home_unchanged FILE   the home's snapshot still equals FILE
#   bd_home_save / bd_home_restore  put the real home back (as root) after a
#                              control run wrote into it
#   bd_link_control CONTROL    CONTROL for a naive wrapper whose destination
#                              goes through a link: "creates PATH" as given
#                              where bwrap follows it onto the host, "fails"
#                              where bwrap resolves it in the new root
#   bd_assert_control CONTROL  what ov_naive just did is CONTROL: "creates
#                              PATH" (the user's PATH made on the host) or
#                              "fails" (bwrap cannot start: the lockout)

# shellcheck source=ov_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/ov_lib.sh"

# These tests are about the filesystem boundary.  The private network needs
# a /dev/net/tun the user may open (pasta), which not every test host gives
# (0600 here); its tests are tests/network's.  "none" takes the network out
# of the way and changes nothing else the plan decides.
bd_policy()
{
  ov_policy "network = \"none\";
$1"
}

bd_setup()
{
  ov_setup
  bd_policy ''
  pol_project
}

bd_overlay()
{
  ov_write_inside "$1"
  if [ "$IT_RC" != 0 ] || [ "$(cat "$1")" != "$(cat "$CFG" 2>/dev/null)" ]; then
    it_fail "the overlay could not be written from inside (rc $IT_RC): $IT_ERR"
    it_as_user cp "$1" "$CFG"
  fi
}

bd_login()
{
  rm -f "$MARK"
  ssh_run t "touch '$MARK'; $1"
}

bd_assert_login_ran()
{
  it_assert_rc 0
  it_assert_exists "$MARK"
  rm -f "$MARK"
}

bd_assert_warning()
{
  local line s ok
  while IFS= read -r line; do
    case $line in "bwsh: warning: "*) ;; *) continue ;; esac
    ok=1
    for s; do
      case $line in *"$s"*) ;; *) ok=0 ;; esac
    done
    [ "$ok" = 0 ] || return 0
  done <<<"$IT_ERR"
  it_fail "no 'bwsh: warning: ' line on stderr with all of: $*"
  it_show
}

bd_home_snapshot()
{
  # Relative names, sorted: what an outside program would find there.
  (
    cd "$H" || exit 1
    find . \( -path ./project -o -path ./.config/bwsh \) -prune -o -printf '%P %m %y %l\n' | LC_ALL=C sort
    find . \( -path ./project -o -path ./.config/bwsh \) -prune -o -type f -print0 | LC_ALL=C sort -z \
      | xargs -0 -r sha256sum
  ) >"$1"
}

bd_assert_home_unchanged()
{
  bd_home_snapshot "$IT_TMP/snapshot.now"
  if ! cmp -s "$1" "$IT_TMP/snapshot.now"; then
    it_fail "the real home changed outside the project and ~/.config/bwsh: $(diff "$1" "$IT_TMP/snapshot.now" \
      | grep '^[<>]' | head -n 20 | tr '\n' ';')"
  fi
}

bd_home_save()
{
  tar -C "$H" --exclude=./project -cpf "$IT_TMP/home.tar" .
}

bd_home_restore()
{
  find "$H" -mindepth 1 -maxdepth 1 ! -name project -exec rm -rf {} +
  tar -C "$H" -xpf "$IT_TMP/home.tar"
}

# bwrap 0.12 resolves a destination's parents inside the new root
# (CVE-2026-87766, GHSA-pxhw-h44j-8pfx): a link to /oldroot/... no longer
# leads onto the host, and the naive wrapper stops at "Can't mkdir parents"
# instead, which is the other half of the attack: every login under it
# refused.  Debian 12 has 0.8.0, Debian 13 0.11.0 and later 0.12.0 as an
# update.  bwsh must hold on both, so the control says which one this is.
bd_link_control()
{
  local v
  v=$("$OV_BWRAP" --version | awk '{ print $2 }')
  if [ "$1" != fails ] && [ "$(printf '%s\n0.12.0\n' "$v" | sort -V | head -n 1)" = 0.12.0 ]; then
    it_log "bwrap $v resolves destinations in the new root: the control is the lockout, not $1"
    echo fails
  else
    echo "$1"
  fi
}

bd_assert_control()
{
  local control=$1 path
  case $control in
    creates\ *)
      path=${control#creates }
      it_assert_out_has NAIVE-RAN
      it_assert_exists "$path"
      [ "$(stat -c %u "$path" 2>/dev/null)" = "$IT_UID" ] || it_fail "$path is not the user's"
      rm -rf "$path"
      ;;
    fails)
      [ "$IT_RC" != 0 ] || it_fail "the naive wrapper started"
      it_assert_err_has "Can't mkdir"
      it_assert_out_lacks NAIVE-RAN
      ;;
    *) it_fail "bd_assert_control: unknown control $control" ;;
  esac
}
