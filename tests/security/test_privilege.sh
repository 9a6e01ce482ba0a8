#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Setuid programs gain nothing inside: su, passwd, sudo, or any setuid-root
# binary.  Every attempt runs with stdin from /dev/null under a timeout, so a
# password prompt fails instead of hanging the test.
. "$(dirname "$0")/sec.sh"

case_su_root_gains_nothing()
{
  it_check "su -c 'id -u' root fails inside and the uid stays the user's"
  it_run "timeout 10 su -c 'id -u; touch /etc/bwsh-sec-su' root </dev/null; echo su=\$?; id -u; grep NoNewPrivs /proc/self/status"
  it_assert_out_lacks "su=0"
  sec_assert_line "$IT_UID"
  sec_assert_no_line "0"
  grep -qE '^NoNewPrivs:[[:space:]]+1$' <<<"$IT_OUT" || { it_fail "no_new_privs is not set inside"; it_show; }
  it_assert_absent /etc/bwsh-sec-su
}

case_passwd_gains_nothing()
{
  local before after
  # Other tests add and remove users meanwhile: compare this user's entries.
  before=$(grep "^$IT_USER:" /etc/shadow /etc/passwd)
  it_check "passwd fails inside and /etc/shadow is untouched"
  it_run "timeout 10 passwd </dev/null; echo passwd=\$?; timeout 10 chsh -s /bin/sh </dev/null; echo chsh=\$?; id -u"
  it_assert_out_lacks "passwd=0"
  it_assert_out_lacks "chsh=0"
  sec_assert_line "$IT_UID"
  after=$(grep "^$IT_USER:" /etc/shadow /etc/passwd)
  it_assert_eq "$before" "$after" "the user's /etc/shadow and /etc/passwd entries"
  it_assert_eq "$IT_BWSH" "$(getent passwd "$IT_USER" | cut -d: -f7)" "the user's login shell"
}

case_setuid_root_binary_gains_nothing()
{
  # sudo is not always installed; a setuid-root copy of id(1) is the same
  # thing without the configuration: whoever runs it gets euid 0.
  local dir parent
  # Outside /tmp, which an overlay may not bind.
  it_data_dir parent
  dir=$parent/suid
  mkdir -m 0755 "$dir"
  install -o root -g root -m 4755 "$(command -v id)" "$dir/id"

  it_check "control: outside the sandbox the setuid copy does give euid 0"
  it_as_user "$dir/id" -u
  it_assert_eq 0 "$IT_OUT" "euid from the setuid copy, outside"

  it_check "inside (the copy bound read-only), it gives the user's uid"
  it_user_config "{\"preferences\":{\"sandboxBwrapMounts\":{\"additionalROBinds\":[\"$dir\"]}}}"
  it_run "$dir/id -u; if command -v sudo >/dev/null; then timeout 10 sudo -n id -u </dev/null; echo sudo=\$?; fi"
  it_assert_err_lacks "bwsh: warning"
  sec_assert_line "$IT_UID"
  sec_assert_no_line "0"
  it_assert_out_lacks "sudo=0"
}

sec_main "$@"
