#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped snippet dropped into Debian's stock sshd_config
# (/usr/share/openssh/sshd_config, which Includes sshd_config.d/*.conf first):
# sshd accepts it, it applies to members of the group, over the stock
# file's own "X11Forwarding yes", and leaves everybody else alone.
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC2088,SC1010,SC1003,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
it_add_user OTHER
stock=/usr/share/openssh/sshd_config
[ -f "$stock" ] || { it_fail "$stock is missing (openssh-server)"; exit 1; }
d=$IT_TMP/stock
mkdir -p "$d/sshd_config.d" "$d/run-up" "$d/run-work"
sed "s/^Match Group bwsh\$/Match Group $IT_GROUP/" "$SSH_SNIPPET" >"$d/sshd_config.d/bwsh.conf"
ssh-keygen -q -t ed25519 -N '' -f "$d/host_key"
{ printf 'HostKey %s\n' "$d/host_key"
  sed "s|^Include /etc/ssh/sshd_config.d/\*.conf\$|Include $d/sshd_config.d/*.conf|" "$stock"; } >"$d/sshd_config"
grep -q "^Include $d/" "$d/sshd_config" || { it_fail "the stock config has no Include line"; exit 1; }

in_ns()
{
  IT_RC=0
  unshare -m --propagation private -- /bin/sh -c '
    [ -d /run/sshd ] || { mount -t overlay overlay -o "lowerdir=/run,upperdir=$1/run-up,workdir=$1/run-work" /run && mkdir /run/sshd; }
    shift; exec "$@"' sh "$d" "$@" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

it_check "sshd -t accepts the stock config with the snippet"
in_ns /usr/sbin/sshd -t -f "$d/sshd_config"
it_assert_rc 0

it_check "for a subject, every forwarding and ~/.ssh/rc are off, sftp is the external server"
in_ns /usr/sbin/sshd -T -f "$d/sshd_config" -C "user=$IT_USER,host=localhost,addr=127.0.0.1"
it_assert_rc 0
for kv in "disableforwarding yes" "allowtcpforwarding no" "allowstreamlocalforwarding no" \
  "allowagentforwarding no" "x11forwarding no" "permittunnel no" "permituserrc no" \
  "permituserenvironment no" "permitopen none" "permitlisten none" "subsystem sftp /usr/lib/openssh/sftp-server"; do
  grep -qx "$kv" <<<"$IT_OUT" || it_fail "sshd -T for the subject lacks '$kv'"
done

it_check "for a user outside the group, the stock settings are unchanged"
in_ns /usr/sbin/sshd -T -f "$d/sshd_config" -C "user=$OTHER,host=localhost,addr=127.0.0.1"
it_assert_rc 0
grep -qx "x11forwarding yes" <<<"$IT_OUT" || it_fail "the snippet leaked outside its Match block"
grep -qx "disableforwarding no" <<<"$IT_OUT" || it_fail "the snippet leaked outside its Match block"
