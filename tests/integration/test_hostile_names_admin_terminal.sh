#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The user cannot write into the administrator's terminal (#25 item 9).
# Names in the real home (made as the user) and overlay entries (written
# from inside the sandbox, as the user would) that hold ESC ]0;...BEL,
# ESC [2J, a newline that forges a mount line, C1 CSI and bytes that are not
# UTF-8 reach root's `bwshctl explain`, `explain --json`, `check` and
# `doctor` escaped: no byte a terminal acts on, no forged line; the shell-
# quoted command line reads back (bash) to the exact names; the JSON parses,
# holds the whole plan and lists the strings it carries escaped.
. "$(dirname "$0")/lib.sh"
it_setup
it_skip_unless_bwrap
BWSHCTL=$IT_PREFIX/bin/bwshctl
POL=$IT_TMP/policy.conf
printf 'subjects = { users = [ "%s" ]; };\n' "$IT_USER" >"$POL"
chmod 644 "$POL"

# The names, as the user: bash's $'...' keeps them exact.
names=($'title\e]0;PWNED\a' $'clear\e[2J' $'forge\naccepted   ro-bind   fake -> fake  [default]' \
  $'csi\x9b31m' $'latin\xff\xfe' $'back\\x1b')
for n in "${names[@]}"; do
  it_as_user touch "$IT_HOME/$n"
  [ "$IT_RC" = 0 ] || it_fail "cannot make ${n@Q} as the user: $IT_ERR"
done
# The overlay, as the user writes it (from inside, where its directory is
# writable): an entry with ESC [2J and one that forges a line.
it_user_config "{\"preferences\":{\"sandboxBwrapMounts\":{\"additionalROBinds\":[
  \"$IT_HOME/x\\u001b[2Jy\", \"$IT_HOME/z\\nsession: allowed\"]}}}"

# No byte a terminal acts on (C0 but newline, DEL, C1, non-ASCII), and no
# line that starts with a forged verdict.
assert_terminal_safe()
{
  local what=$1 file=$2 bad
  bad=$(LC_ALL=C grep -c $'[\x01-\x09\x0b-\x1f\x7f-\xff]' "$file")
  [ "$bad" = 0 ] || { it_fail "$what: $bad lines with a raw control or non-ASCII byte"; LC_ALL=C cat -A "$file" | grep -F '^[' | head -5 >&2; }
  ! grep -qE '^ *accepted +ro-bind +fake' "$file" || it_fail "$what: a forged mount line"
  [ "$(grep -c '^session: ' "$file")" -le 1 ] || it_fail "$what: a forged session line"
}

it_check "explain --user (text): every name escaped, no forged line"
IT_RC=0
"$BWSHCTL" explain --user "$IT_USER" --policy "$POL" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
assert_terminal_safe "explain stdout" "$IT_TMP/out"
assert_terminal_safe "explain stderr" "$IT_TMP/err"
it_assert_out_has "ro-bind   $IT_HOME/title\\x1b]0;PWNED\\x07 -> $IT_HOME/title\\x1b]0;PWNED\\x07"
it_assert_out_has "$IT_HOME/clear\\x1b[2J"
it_assert_out_has "$IT_HOME/forge\\x0aaccepted   ro-bind   fake -> fake  [default]"
it_assert_out_has "$IT_HOME/csi\\x9b31m"
it_assert_out_has "$IT_HOME/latin\\xff\\xfe"
it_assert_out_has "$IT_HOME/back\\x5cx1b"
it_assert_out_has "refused    ro-bind   $IT_HOME/x\\x1b[2Jy"
it_assert_out_has "session: allowed"

it_check "explain's command line reads back, in bash, to the exact names"
line=$(grep -A1 '^command (bwsh passes' "$IT_TMP/out" | tail -1)
# Each word read back by bash itself: every name is one word, exactly.
for n in "${names[@]}"; do
  bash -c "set -- ${line#  env -i }; for a; do [ \"\$a\" = \"\$0\" ] && exit 0; done; exit 1" "$IT_HOME/$n" \
    || it_fail "the command line does not carry ${n@Q} exactly"
done

it_check "explain --json --user: parses, the whole plan, names carried and listed in escaped"
IT_RC=0
"$BWSHCTL" explain --json --user "$IT_USER" --policy "$POL" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
it_assert_rc 0
assert_terminal_safe "explain --json" "$IT_TMP/out"
python3 - "$IT_TMP/out" "$IT_HOME" <<'PY' || it_fail "explain --json: see above"
import json, sys
d = json.load(open(sys.argv[1]))
home = sys.argv[2]
srcs = {m["source"] for m in d["mounts"] if m.get("source")}
want = ["title\x1b]0;PWNED\x07", "clear\x1b[2J", "forge\naccepted   ro-bind   fake -> fake  [default]",
        "back\\x1b"]
missing = [w for w in want if home + "/" + w not in srcs]
# Not UTF-8: carried as \xNN (a backslash is \x5c), its pointer in "escaped".
def at(ptr):
    v = d
    for k in ptr.split("/")[1:]:
        v = v[int(k)] if isinstance(v, list) else v[k]
    return v
escaped = [at(p) for p in d["escaped"]]
for w in [home + "/csi\\x9b31m", home + "/latin\\xff\\xfe"]:
    if w not in escaped:
        missing.append(w)
for k in ("mounts", "argv", "environment", "command_line", "digest", "session"):
    if k not in d:
        missing.append(k)
if d.get("session") != "allowed":
    missing.append("session allowed")
if missing:
    print("missing:", missing, "escaped:", d["escaped"], file=sys.stderr)
    sys.exit(1)
PY

it_check "check --user: the refused overlay entries escaped"
IT_RC=0
"$BWSHCTL" check --user "$IT_USER" --policy "$POL" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
assert_terminal_safe "check stdout" "$IT_TMP/out"
assert_terminal_safe "check stderr" "$IT_TMP/err"
it_assert_out_has "refused ro-bind $IT_HOME/x\\x1b[2Jy -> $IT_HOME/x\\x1b[2Jy: path contains a control character"
it_assert_out_has "refused ro-bind $IT_HOME/z\\x0asession: allowed"

it_check "doctor --user: nothing raw"
IT_RC=0
timeout -k 5 120 "$BWSHCTL" doctor --user "$IT_USER" --policy "$POL" >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
it_collect
assert_terminal_safe "doctor stdout" "$IT_TMP/out"
assert_terminal_safe "doctor stderr" "$IT_TMP/err"
