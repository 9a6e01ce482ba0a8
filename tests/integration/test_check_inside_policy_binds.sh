#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `bwshctl check` run inside the sandbox cannot see the source of a policy
# bind that the sandbox mounts elsewhere (src /srv/..., dst ~/data): it used
# to warn "source does not exist" for it, a line the user cannot act on (the
# policy is root's).  Inside, such sources are one note; outside, as root,
# a source that really is missing is still a warning (#25 item 10).
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
POLICY=$IT_PREFIX/etc/bwsh/bwsh.conf
it_data_dir DATA
echo shared >"$DATA/f"
chmod 644 "$DATA/f"
cat >"$IT_TMP/policy.conf" <<POL
network = "none";
ro_binds = ( "$IT_PREFIX", { src = "$DATA"; dst = "~/data"; } );
POL
chmod 644 "$IT_TMP/policy.conf"

it_check "inside: no 'source does not exist' for the policy's bind, one note instead"
IT_RC=0
# shellcheck disable=SC2016 # expanded by the inner bash
timeout -k 5 60 unshare -m --propagation private -- bash -c 'mount --bind "$1" "$2" || exit 1
  exec setpriv --reuid="$3" --regid="$4" --init-groups "$5" -c "cat ~/data/f; \"\$0\" check" "$6"' sh \
  "$IT_TMP/policy.conf" "$POLICY" "$IT_UID" "$IT_GID" "$IT_BWSH" "$IT_PREFIX/bin/bwshctl" \
  </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
it_assert_out_has shared
it_assert_out_has "$POLICY: policy valid"
it_assert_err_lacks "source does not exist"
it_assert_err_has "note: 1 source of the policy's binds is not visible inside this sandbox; the login mounts what exists outside"

it_check "outside, a policy source that is missing is still a warning"
rm -rf "$DATA"
IT_RC=0
"$IT_PREFIX/bin/bwshctl" check --user "$IT_USER" --policy "$IT_TMP/policy.conf" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_err_has "$IT_TMP/policy.conf:2: $DATA: source does not exist (skipped)"
it_assert_err_lacks "not visible inside this sandbox"
