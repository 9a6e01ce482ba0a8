#!/bin/sh
# The README's two commands on a freshly bootstrapped Debian, per release.
#
#   tests/fresh/run.sh [--commit REV] [SUITE...]     (as root; default: bookworm trixie)
#
# For each SUITE: debootstrap --variant=minbase (plus git, to clone) from the
# mirror apt uses on this machine, into a new directory; enter it in private
# mount and pid namespaces with pivot_root (not chroot: bwrap's user
# namespaces refuse a chrooted caller); there tests/fresh/inside.sh clones
# the commit (HEAD by default; uncommitted changes are not part of it) into
# /root/bwsh and runs the two commands read from README.md, exactly as
# written: the first as a new non-root user before anything is installed
# (it must name what is missing), as root with -c (it must install, build
# and start a confined shell), as that user again; the second as root.
# Nothing is cached between runs: each root is new and removed afterwards.
#
# The suites run concurrently where there are 4 CPUs or more, else one
# after the other (BWSH_FRESH_JOBS overrides).  The inner test run gets BWSH_FRESH=0 (so it leaves this
# stage out instead of recursing), CI=true (a skip is a failure there too)
# and BWSH_FUZZ_SECONDS=${BWSH_FRESH_FUZZ_SECONDS:-10}.  Each suite's wall
# time is printed; BWSH_FRESH_LOGS=DIR keeps the whole logs.  Exit 77 (skip) only when debootstrap cannot reach the
# mirror, and not even then under CI=true.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
rev=HEAD
if [ "${1:-}" = --commit ]; then rev=$2; shift 2; fi
[ $# -gt 0 ] || set -- bookworm trixie
[ "$(id -u)" = 0 ] || { echo "tests/fresh/run.sh: must run as root (debootstrap, namespaces)" >&2; exit 1; }
for c in debootstrap git unshare; do
  command -v "$c" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "$c" >/dev/null 2>&1 \
    || { echo "tests/fresh/run.sh: $c not found" >&2; exit 1; }
done
PATH="$PATH:/usr/sbin:/sbin"

# The mirror apt uses here: the first URIs of a deb822 source, or the first
# deb line of a one-line source, that is not the security archive.
mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '$1 == "URIs:" && $2 !~ /security/ { print $2; exit }')
[ -n "$mirror" ] || mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
  | awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }')
[ -n "$mirror" ] || { echo "tests/fresh/run.sh: no Debian mirror in /etc/apt/sources.list*" >&2; exit 1; }

# The two commands, read from README.md's "Two commands" section.
cmds=$(git -C "$top" show "$rev:README.md" | awk '
  /^## /  { insec = ($0 ~ /^## Two commands/) }
  insec && /^```sh$/ { inb = 1; next }
  inb && /^```$/     { inb = 0; next }
  inb                { print }')
[ "$(printf '%s\n' "$cmds" | wc -l)" = 2 ] \
  || { printf 'tests/fresh/run.sh: README.md must show exactly two one-line commands, found:\n%s\n' "$cmds" >&2; exit 1; }
try_cmd=$(printf '%s\n' "$cmds" | sed -n 1p)
test_cmd=$(printf '%s\n' "$cmds" | sed -n 2p)
commit=$(git -C "$top" rev-parse --verify "$rev^{commit}")
echo "fresh: commit $commit, mirror $mirror"
echo "fresh: first command:  $try_cmd"
echo "fresh: second command: $test_cmd"

work=$(mktemp -d /var/tmp/bwsh-fresh.XXXXXX)
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup () {
  rc=$?
  # Lazily unmounted leftovers cannot hold the trees; -x keeps rm on them.
  rm -rf --one-file-system "$work" 2>/dev/null || true
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# The commit alone, as a branch of a scratch repository, bundled for cloning.
git init -q --bare "$work/src.git"
git -C "$top" push -q "$work/src.git" "$commit:refs/heads/fresh"
git -C "$work/src.git" bundle create -q "$work/bwsh.bundle" fresh
git -C "$top" bundle verify "$work/bwsh.bundle" >/dev/null 2>&1 \
  || { echo "tests/fresh/run.sh: cannot bundle $commit" >&2; exit 1; }

# fresh_one SUITE: bootstrap, enter, run; log in $work/SUITE.log, status in
# $work/SUITE.rc (0 pass, 77 mirror unreachable, else fail), seconds in
# $work/SUITE.time.
fresh_one () {
  suite=$1
  root=$work/$suite
  log=$work/$suite.log
  start=$(date +%s)
  set +e
  (
    set -e
    echo "--- debootstrap $suite"
    if ! debootstrap --variant=minbase --include=git "$suite" "$root" "$mirror" >"$work/$suite.debootstrap" 2>&1; then
      cat "$work/$suite.debootstrap"
      if grep -qE 'Failed getting release file|Couldn.t download|Temporary failure resolving|Could not resolve' \
        "$work/$suite.debootstrap"; then
        exit 77
      fi
      exit 1
    fi
    # No init runs in this root: like Debian's container images, let no
    # package start its service (the tests start what they need).
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
    chmod 0755 "$root/usr/sbin/policy-rc.d"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    mkdir -p "$root/fresh"
    cp "$work/bwsh.bundle" "$top/tests/fresh/inside.sh" "$root/fresh/"
    chmod 0755 "$root/fresh" "$root/fresh/inside.sh"
    chmod 0644 "$root/fresh/bwsh.bundle"
    echo "--- enter $suite (pivot_root)"
    # shellcheck disable=SC2016 # expanded by the inner sh
    unshare --mount --pid --fork --propagation private sh -c '
      set -e
      root=$1
      mount --bind "$root" "$root"
      mount -t proc proc "$root/proc"
      mount --rbind /dev "$root/dev"
      mount --rbind /sys "$root/sys"
      mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
      cd "$root"
      mkdir -p .oldroot
      pivot_root . .oldroot
      umount -l /.oldroot
      rmdir /.oldroot
      cd /
      # This shell stays pid 1 of the namespace and reaps what the tests orphan.
      env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        LANG=C.UTF-8 TERM=dumb FRESH_COMMIT="$2" FRESH_TRY="$3" FRESH_TEST="$4" FRESH_SUITE="$5" \
        FRESH_FUZZ_SECONDS="$6" /bin/sh /fresh/inside.sh &
      wait $!
    ' sh "$root" "$commit" "$try_cmd" "$test_cmd" "$suite" "${BWSH_FRESH_FUZZ_SECONDS:-10}"
  ) >"$log" 2>&1
  rc=$?
  set -e
  echo "$rc" >"$work/$suite.rc"
  echo $(($(date +%s) - start)) >"$work/$suite.time"
  rm -rf --one-file-system "$root" 2>/dev/null || true
}

# Each inner suite runs ctest -j$(nproc) and wants the machine: two at once
# only where there are 4 CPUs or more (timing-sensitive premises, such as a
# race that must really race, suffer on 2 loaded CPUs).
jobs=${BWSH_FRESH_JOBS:-$(test "$(nproc)" -ge 4 && echo 2 || echo 1)}
pids=""
running=0
for suite in "$@"; do
  echo "fresh: $suite: started"
  fresh_one "$suite" &
  pids="$pids $!"
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    # shellcheck disable=SC2086
    wait $pids
    pids=""
    running=0
  fi
done
# shellcheck disable=SC2086
[ -z "$pids" ] || wait $pids

# BWSH_FRESH_LOGS=DIR keeps each release's whole log there.
if [ -n "${BWSH_FRESH_LOGS:-}" ]; then
  mkdir -p "$BWSH_FRESH_LOGS"
  for suite in "$@"; do cp "$work/$suite.log" "$BWSH_FRESH_LOGS/" 2>/dev/null || true; done
fi
status=0
unreachable=0
for suite in "$@"; do
  rc=$(cat "$work/$suite.rc" 2>/dev/null || echo 1)
  t=$(cat "$work/$suite.time" 2>/dev/null || echo '?')
  case $rc in
    0) echo "fresh: $suite: passed in ${t} s" ;;
    77) echo "fresh: $suite: debootstrap cannot reach $mirror (${t} s)"; unreachable=1 ;;
    *) echo "fresh: $suite: FAILED after ${t} s; what failed, then the end of its log:"
       grep -E '\*\*\*Failed|\*\*\*Timeout|^FAIL|FAIL:|^it: ' "$work/$suite.log" | head -n 60 | sed "s/^/  $suite| /"
       echo "  $suite| ..."
       tail -n 40 "$work/$suite.log" | sed "s/^/  $suite| /"
       status=1 ;;
  esac
done
if [ $status = 0 ] && [ $unreachable = 1 ]; then
  if [ "${CI:-}" = true ]; then
    echo "fresh: FAILED: the mirror is unreachable, and CI=true allows no skip"
    exit 1
  fi
  echo "fresh: SKIPPED: the mirror is unreachable"
  exit 77
fi
[ $status = 0 ] && echo "fresh: every release passed"
exit $status
