#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Admission (issue 26): subject, service, shell, lock, max_sessions, decided
# before anything of the user's is opened or created, by pam_bwsh, by bwsh
# itself and by bwshctl explain.
#   - a locked subject is refused through su's stack with pam_bwsh and
#     through a stack WITHOUT pam_bwsh (bwsh refuses by itself), with the
#     lock's reason, and neither opens nor creates anything in the home
#     (strace of the whole login: no project directory, no overlay read);
#   - bwshctl explain --user says "admission: refused: locked";
#   - max_sessions without pam_bwsh: bwsh registers its own session once,
#     bwshctl sessions lists it, a second login is refused; with pam_bwsh
#     the session is registered once, not twice (bwsh sees pam_bwsh's entry).
# Remote commands are single-quoted on purpose: they expand inside the sandbox.
# shellcheck disable=SC2016,SC1091
. "$(dirname "$0")/lib.sh"
ssh_prepare
audit_unlock_at_exit
journal_start
command -v strace >/dev/null || { it_fail "strace is missing"; exit 1; }

# su's stack as the host has it: no pam_bwsh anywhere.
cp -a /etc/pam.d "$IT_TMP/pam.plain"
grep -rl pam_bwsh "$IT_TMP/pam.plain" && { it_fail "the host's /etc/pam.d names pam_bwsh"; exit 1; }

# in_stack DIR CMD... (lib.sh): CMD as root in journald's namespace, with DIR as /etc/pam.d.
# touched_home TRACE: what the traced login opened or created under the home.
touched_home()
{
  grep -E '(open|openat|openat2|mkdir|mkdirat|creat)\(' "$1" | grep -F "$IT_HOME" || true
}

# pasta, traced by strace -f, cannot open its tun device: the user's sessions
# share the host's network here (a drop-in for this user only).
DROPIN=$IT_PREFIX/etc/bwsh/conf.d/50-admission-$IT_USER.conf
mkdir -p "$IT_PREFIX/etc/bwsh/conf.d"
it_defer rm -f "$DROPIN"
dropin() { printf 'match = ( { user = "%s"; network = "shared"; %s } );\n' "$IT_USER" "$1" >"$DROPIN"; chmod 644 "$DROPIN"; }
dropin ""
printf 'match = ( { user = "%s"; network = "shared"; } );\n' "$IT_USER" >>"$SSH_POLICY"

# hold STACK: a login through STACK that lasts until killed (60 s at most).
hold()
{
  # shellcheck disable=SC2016
  timeout -k 5 90 nsenter -t "$JOURNALD_PID" -m -- unshare -m --propagation private -- /bin/sh -c '
    mount --bind "$1" /etc/pam.d && mount --bind "$2" /etc/shells || exit 1
    shift 2; exec "$@"' sh "$1" "$SSH_NS_SHELLS" su - "$IT_USER" -c 'echo started; exec sleep 60' \
    </dev/null >"$IT_TMP/hold.out" 2>"$IT_TMP/hold.err" &
  HOLDER=$!
  it_defer kill "$HOLDER"
}

rm -rf "$IT_HOME/project"
it_user_config '{ "preferences": { "sandboxBwrapMounts": { "additionalROBinds": [] } } }'

it_check "(control) an unlocked su through the stack without pam_bwsh runs the sandbox and opens the overlay"
in_stack "$IT_TMP/pam.plain" strace -f -o "$IT_TMP/trace.control" -e trace=open,openat,openat2,mkdir,mkdirat,creat \
  su - "$IT_USER" -c "$SSH_PROBE"
it_assert_rc 0
it_assert_eq bwrap "$IT_OUT"
grep -q "$IT_HOME/.config/bwsh/config.json" "$IT_TMP/trace.control" \
  || it_fail "(control) the trace does not show the overlay being read"
rm -rf "$IT_HOME/project"

it_check "a locked subject through su WITHOUT pam_bwsh: bwsh refuses with the reason, creates and opens nothing"
bwshctl_run lock "$IT_USER" --reason "ticket 4711" --policy "$SSH_POLICY"
it_assert_rc 0
in_stack "$IT_TMP/pam.plain" strace -f -o "$IT_TMP/trace.plain" -e trace=open,openat,openat2,mkdir,mkdirat,creat \
  su - "$IT_USER" -c "$SSH_PROBE"
it_assert_rc 77
it_assert_eq "" "$IT_OUT" "nothing ran"
it_assert_err_has "bwsh: sessions of $IT_USER are locked: ticket 4711"
it_assert_eq "" "$(touched_home "$IT_TMP/trace.plain")" "opened or created under the home"
it_assert_absent "$IT_HOME/project"
grep -q 'execve("[^"]*bwrap"' "$IT_TMP/trace.plain" && it_fail "bwrap was executed"
in_stack "$IT_TMP/pam.plain" su "$IT_USER" -c "$SSH_PROBE"
it_assert_rc 77
it_assert_err_has "bwsh: sessions of $IT_USER are locked: ticket 4711"

it_check "a locked subject through su with pam_bwsh: refused before anything is opened or created"
in_stack "$IT_TMP/pam.d" strace -f -o "$IT_TMP/trace.pam" -e trace=open,openat,openat2,mkdir,mkdirat,creat \
  su - "$IT_USER" -c "$SSH_PROBE"
[ "$IT_RC" != 0 ] || it_fail "a locked user logged in: $IT_OUT"
it_assert_eq "" "$IT_OUT" "nothing ran"
it_assert_err_has "bwsh: sessions of $IT_USER are locked: ticket 4711"
it_assert_eq "" "$(touched_home "$IT_TMP/trace.pam")" "opened or created under the home"
it_assert_absent "$IT_HOME/project"

it_check "bwshctl explain --user of the locked user: admission refused: locked, with the reason"
bwshctl_run explain --user "$IT_USER" --policy "$SSH_POLICY"
it_assert_rc 0
it_assert_out_has "admission: refused: locked: sessions of $IT_USER are locked: ticket 4711"
it_assert_out_has "session: refused: sessions of $IT_USER are locked: ticket 4711"
it_assert_absent "$IT_HOME/project"
bwshctl_run explain --user "$IT_USER" --policy "$SSH_POLICY" --json
it_assert_rc 0
python3 -c 'import json, sys
d = json.loads(sys.argv[1])
assert d["session"] == "refused", d["session"]
assert d["refusal"] == "sessions of %s are locked: ticket 4711" % sys.argv[2], d["refusal"]' "$IT_OUT" "$IT_USER" \
  || it_fail "explain --json: $IT_OUT"
bwshctl_run unlock "$IT_USER"
it_assert_rc 0
bwshctl_run explain --user "$IT_USER" --policy "$SSH_POLICY"
it_assert_out_has "admission: allowed"

it_check "max_sessions = 1 without pam_bwsh: bwsh registers its session once and refuses a second"
dropin "max_sessions = 1;"
hold "$IT_TMP/pam.plain"
n=
for _ in $(seq 100); do
  bwshctl_run sessions --json
  n=$(python3 -c 'import json, sys
print(sum(1 for s in json.loads(sys.argv[1]) if s["user"] == sys.argv[2]))' "$IT_OUT" "$IT_USER" 2>/dev/null)
  [ "$n" = 1 ] && break
  sleep 0.1
done
it_assert_eq 1 "$n" "sessions listed for the held login without pam_bwsh"
grep -q started "$IT_TMP/hold.out" || it_fail "(control) the held login did not start: $(cat "$IT_TMP/hold.err")"
python3 -c 'import json, sys
s = [s for s in json.loads(sys.argv[1]) if s["user"] == sys.argv[2]][0]
assert s["registered_by"] == "bwsh", s' "$IT_OUT" "$IT_USER" || it_fail "sessions --json: $IT_OUT"
in_stack "$IT_TMP/pam.plain" su - "$IT_USER" -c "$SSH_PROBE"
it_assert_rc 77
it_assert_err_has "bwsh: $IT_USER has 1 sessions open, at most 1 are allowed (max_sessions)"
it_assert_eq "" "$IT_OUT" "nothing ran"
it_check "bwshctl lock ends the session bwsh registered"
bwshctl_run lock "$IT_USER" --reason "end it" --policy "$SSH_POLICY"
it_assert_rc 0
it_assert_out_has "$IT_USER locked; 1 live sessions ended"
bwshctl_run unlock "$IT_USER"
wait "$HOLDER" 2>/dev/null

it_check "with pam_bwsh in the stack (twice: su-l includes su) the session is registered once, not twice"
printf 'max_sessions = 1;\n' >>"$SSH_POLICY"
hold "$IT_TMP/pam.d"
for _ in $(seq 100); do
  bwshctl_run sessions --json
  n=$(python3 -c 'import json, sys
print(sum(1 for s in json.loads(sys.argv[1]) if s["user"] == sys.argv[2]))' "$IT_OUT" "$IT_USER" 2>/dev/null)
  [ "$n" -ge 1 ] 2>/dev/null && pgrep -U "$IT_UID" -x sleep >/dev/null && break
  sleep 0.1
done
sleep 0.5
bwshctl_run sessions --json
python3 -c 'import json, sys
s = [s for s in json.loads(sys.argv[1]) if s["user"] == sys.argv[2]]
assert len(s) == 1, s
assert s[0]["registered_by"] == "pam_bwsh", s' "$IT_OUT" "$IT_USER" || it_fail "sessions --json: $IT_OUT"
pgrep -U "$IT_UID" -x sleep >/dev/null || it_fail "(control) the held session does not run: $(cat "$IT_TMP/hold.err")"
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null
it_remove_user_procs() { local p; for p in $(it_live_pids "$IT_UID"); do kill -KILL "$p" 2>/dev/null; done; }
it_remove_user_procs
ssh_assert_no_user_processes
