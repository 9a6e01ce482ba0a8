# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# A confined account used the way an SSH account is (issue #15): a real sshd
# (tests/ssh/lib.sh), the real clients, and the installed bwsh of the policy
# fixture (bwsh_pol), whose one policy file these tests may rewrite while they
# hold RESOURCE_LOCK bwsh_policy.
#
# API (after acct_prepare)
#   acct_policy TEXT     TEXT as the policy of bwsh and of pam_bwsh (the
#                        shipped policy comes back at exit)
#   acct_snapshot FILE [REL...]
#                        the real home outside the project dir (and the
#                        paths REL, relative to it): every name, mode, owner
#                        and content hash, sorted, into FILE
#   acct_assert_home_unchanged BEFORE [REL...]
#                        a fresh snapshot (same REL) equals BEFORE
#   acct_scp ARG...      scp -q -F $SSH_CFG ARG...; IT_RC, IT_OUT, IT_ERR
#   acct_sftp BATCH      sftp -b BATCH t; IT_RC, IT_OUT, IT_ERR
#   acct_make_wheel DIR  a tiny pure-Python wheel "bwshdemo" (import bwshdemo;
#                        bwshdemo.X == 42) in DIR, built offline; path in WHEEL

# shellcheck disable=SC1091
. "$BWSH_SOURCE_DIR/tests/ssh/lib.sh"

ACCT_POL=

acct_restore_policy()
{
  [ -f "$IT_TMP/shipped.conf" ] && install -o root -g root -m 0644 "$IT_TMP/shipped.conf" "$ACCT_POL"
}

acct_prepare()
{
  ssh_prepare
  ACCT_POL=$IT_PREFIX/etc/bwsh/bwsh.conf
  [ -f "$ACCT_POL" ] || { it_fail "$ACCT_POL is missing"; exit 1; }
  cp -p "$ACCT_POL" "$IT_TMP/shipped.conf"
  cp -p "$SSH_POLICY" "$IT_TMP/pam-policy.conf"
  it_defer acct_restore_policy
}

acct_policy()
{
  printf '%s\n' "$1" >"$ACCT_POL.new"
  chown root:root "$ACCT_POL.new"
  chmod 0644 "$ACCT_POL.new"
  mv "$ACCT_POL.new" "$ACCT_POL"
  # pam_bwsh computes the same plan at session open.
  { cat "$IT_TMP/pam-policy.conf"; printf '%s\n' "$1"; } >"$SSH_POLICY"
}

acct_snapshot()
{
  local out=$1 rel prune=(-path ./project)
  shift
  for rel in "$@"; do prune+=(-o -path "./$rel"); done
  (
    cd "$IT_HOME" || exit 1
    # A directory's size is left out: on tmpfs it counts the entries, and
    # a new entry shows by its own name (or, pruned, in the prune list).
    find . \( "${prune[@]}" \) -prune -o -type d -printf '%p %M %u:%g\n' -o -printf '%p %M %u:%g %s\n' | sort
    find . \( "${prune[@]}" \) -prune -o -type f -print0 | sort -z | xargs -0r sha256sum
  ) >"$out"
}

acct_assert_home_unchanged()
{
  local before=$1 after=$IT_TMP/snapshot.after
  shift
  acct_snapshot "$after" "$@"
  if ! diff -u "$before" "$after" >"$IT_TMP/snapshot.diff"; then
    it_fail "the real home changed outside the project dir:"
    sed 's/^/    /' "$IT_TMP/snapshot.diff" >&2
  fi
}

acct_scp()
{
  IT_RC=0
  timeout -k 5 60 scp -q -F "$SSH_CFG" "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

acct_sftp()
{
  IT_RC=0
  timeout -k 5 60 sftp -q -F "$SSH_CFG" -b "$1" t </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}

acct_make_wheel()
{
  mkdir -p "$1"
  WHEEL=$1/bwshdemo-0.1-py3-none-any.whl
  python3 - "$WHEEL" <<'PY'
import base64, hashlib, sys, zipfile
files = {
    "bwshdemo/__init__.py": b"X = 42\n",
    "bwshdemo-0.1.dist-info/METADATA": b"Metadata-Version: 2.1\nName: bwshdemo\nVersion: 0.1\n",
    "bwshdemo-0.1.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: bwsh-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = []
for name, data in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{name},sha256={digest},{len(data)}")
record.append("bwshdemo-0.1.dist-info/RECORD,,")
files["bwshdemo-0.1.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for name, data in files.items():
        z.writestr(name, data)
PY
}
