#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Mount points nothing can race (issue 35).  bwrap (0.8 on Debian 12, 0.11 on
# 13) looks every element of a destination up again, by name, when it
# mounts, with the host's / at /oldroot.  A second session of the same user
# keeps exchanging (renameat2 RENAME_EXCHANGE) a directory of the project
# with a symlink to /oldroot/tmp, and another one with a symlink to the real
# ~/.ssh, while logins run with overlay entries (written from inside) whose
# destinations go through those directories.
# - control: a naive wrapper (the walk, then bwrap by path) creates the name
#   on the host; it stops at the first hit and says after how many tries;
# - bwsh: 100 logins (20 in the fresh roots and the sanitizer build), 0
#   refused, 0 names created on the host, each login with the warning that
#   the entry was skipped and what to do instead.
. "$(dirname "$0")/bd_lib.sh"

bd_setup
ssh_start main
logins=100
case ${BWSH_FRESH:-}/${BWSH_IT_CMAKE_ARGS:-} in 0/* | *SANITIZE=ON*) logins=20 ;; esac
tag=bwsh-race-$$-$RANDOM
P=$H/project
it_as_user mkdir -m 700 -p "$H/.ssh" "$H/data"
it_as_user sh -c "echo data-visible >'$H/data/f'"

# The second session's tool, and the layout it races on, made from inside.
cat >"$IT_TMP/flip.py" <<'PY'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
d = sys.argv[1].encode()
pairs = [(d + b"/R", d + b"/S"), (d + b"/Q", d + b"/T")]
n, end = 0, time.time() + 600
open(d + b"/flipping", "w").close()
while not os.path.exists(d + b"/stop") and time.time() < end:
    for a, b in pairs:
        if libc.renameat2(-100, a, -100, b, 2) != 0:
            sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
    n += 1
for a, b in pairs:
    if os.path.islink(a):
        libc.renameat2(-100, a, -100, b, 2)
print("flips", n)
PY
it_as_user cp "$IT_TMP/flip.py" "$P/flip.py"
it_check "the race's layout is made from inside: R and Q directories, S -> /oldroot/tmp, T -> the real ~/.ssh"
bd_login "mkdir -p '$P/R' '$P/Q' && ln -s /oldroot/tmp '$P/S' && ln -s '/oldroot$H/.ssh' '$P/T' && echo MADE"
bd_assert_login_ran
it_assert_out_has MADE

cat >"$IT_TMP/race.json" <<EOF
{ "preferences": { "sandboxBwrapMounts": { "additionalROBinds": [
  { "src": "$H/data", "dst": "$P/R/$tag" },
  { "src": "$H/data", "dst": "$P/Q/$tag" } ] } } }
EOF
chmod 644 "$IT_TMP/race.json"
bd_overlay "$IT_TMP/race.json"

flipper_start()
{
  rm -f "$P/stop" "$P/flipping"
  setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups "$IT_BWSH" -c "exec python3 '$P/flip.py' '$P'" \
    </dev/null >"$IT_TMP/flipper.out" 2>&1 &
  flipper=$!
  it_defer kill -KILL "$flipper"
  for _ in $(seq 1 200); do
    [ -e "$P/flipping" ] && return 0
    kill -0 "$flipper" 2>/dev/null || break
    sleep 0.05
  done
  it_fail "the second session's flipper did not start: $(cat "$IT_TMP/flipper.out")"
  exit 1
}

flipper_stop()
{
  it_as_user touch "$P/stop"
  wait "$flipper"
  if [ -L "$P/R" ] || [ -L "$P/Q" ]; then it_fail "the flipper left R or Q a symlink"; fi
  it_log "second session: $(cat "$IT_TMP/flipper.out")"
}

host_names()
{
  ls -d "/tmp/$tag" "$H/.ssh/$tag" 2>/dev/null
}

# ------------------------------------------------------------------ control

# The walk bwsh did before this issue (every element a directory, no
# symlink), then bwrap with the destination by path, as a wrapper does.
cat >"$IT_TMP/naive.sh" <<'SH'
P=$1 H=$2 tag=$3 max=$4 target=$5 dir=$6
i=0
while [ "$i" -lt "$max" ]; do
  i=$((i + 1))
  [ -d "$P/$dir" ] && [ ! -L "$P/$dir" ] || continue
  bwrap --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
    --ro-bind /etc /etc --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$H" "$H" --bind "$P" "$P" \
    --ro-bind "$H/data" "$P/$dir/$tag" --unshare-pid --die-with-parent -- /bin/true 2>/dev/null
  if [ -e "$target" ]; then
    echo "hit after $i tries"
    exit 0
  fi
done
echo "no hit in $max tries"
SH
chmod 755 "$IT_TMP/naive.sh"

# Hits came after 1 to 2,192 tries here (8 runs, 2 CPUs under load; a try
# is a few ms): at the worst rate seen, P(no hit in 25,000) is about e^-11.
control_bound=25000
control=$(bd_link_control "creates")
flipper_start
for t in "/tmp/$tag R" "$H/.ssh/$tag Q"; do
  set -- "${t% *}" "${t##* }"
  it_check "control: the naive wrapper under the race creates $1 on the host (at most $control_bound tries)"
  # Not it_as_user, whose 60 s would cut the bound short on a busy host;
  # 100 s each keeps the test within its 300.
  IT_RC=0
  timeout -k 5 100 setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups \
    bash "$IT_TMP/naive.sh" "$P" "$H" "$tag" "$control_bound" "$1" "$2" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" \
    || IT_RC=$?
  it_collect
  it_log "naive wrapper, $1: $IT_OUT"
  if [ "$control" = fails ]; then
    it_log "bwrap resolves destinations in the new root here: no host name expected"
    [ ! -e "$1" ] || it_fail "bwrap >= 0.12 created $1"
  else
    it_assert_out_has "hit after"
    [ "$(stat -c %u "$1" 2>/dev/null)" = "$IT_UID" ] || it_fail "$1 is not the user's"
  fi
  rm -rf "$1"
done

# --------------------------------------------------------------------- bwsh

it_check "bwsh: $logins logins under the same race, 0 refused, 0 names on the host"
refused=0 warned=0
start=$SECONDS
for i in $(seq 1 "$logins"); do
  it_bwsh -c "echo LOGIN-OK; cat '$H/data/f'"
  if [ "$IT_RC" != 0 ] || [ "$IT_OUT" != "LOGIN-OK
data-visible" ]; then
    refused=$((refused + 1))
    [ "$refused" -gt 1 ] || { it_fail "login $i refused or incomplete"; it_show; }
  fi
  case $IT_ERR in
    *"$P/R/$tag: destination "*"(skipped"* ) case $IT_ERR in *"$P/Q/$tag: destination "*"(skipped"*) warned=$((warned + 1)) ;; esac ;;
  esac
  if [ -n "$(host_names)" ]; then
    it_fail "login $i created $(host_names) on the host"
    break
  fi
done
flipper_stop
it_log "$logins logins in $((SECONDS - start)) s: refused=$refused warned=$warned"
it_assert_eq 0 "$refused" "logins refused"
it_assert_eq "$logins" "$warned" "logins that warned about both entries"
it_assert_eq "" "$(host_names)" "names created on the host"

it_check "without the race, the warning says where the entry may go instead"
it_bwsh -c "echo LOGIN-OK"
it_assert_rc 0
bd_assert_warning "$P/R/$tag: destination lies in $P, where another session of yours can swap a directory for a symlink while this one starts (skipped; mount it outside the read-write trees, e.g. at $H/$tag, and link to it from there)"

it_check "what the warning suggests works: the same source at ~/$tag, a symlink to it in the project"
cat >"$IT_TMP/instead.json" <<EOF
{ "preferences": { "sandboxBwrapMounts": { "additionalROBinds": [
  { "src": "$H/data", "dst": "$H/$tag" } ] } } }
EOF
chmod 644 "$IT_TMP/instead.json"
bd_overlay "$IT_TMP/instead.json"
bd_login "ln -sfn '$H/$tag' '$P/R/link' && cat '$P/R/link/f'"
bd_assert_login_ran
it_assert_eq data-visible "$IT_OUT"
it_assert_err_lacks "warning"
