# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Shared by bench/network.sh and bench/netmem.sh: sessions that differ only
# in their network mode.  Source it, as root, with $top and $out set:
#   bench_net_setup MODE...   a release build of bwsh in $out/build, staged in
#                             $out/stage with its network helper where bwsh
#                             looks for it (libexec/bwsh, #26), and one user
#                             per MODE whose policy match block says
#                             network = MODE; $user_MODE names it, $bwsh the
#                             binary.  MODE "slirp4netns" is network =
#                             "private" with network_engine = "slirp4netns"
#   bench_net_cleanup         the users and $out (set it as the EXIT trap)
bench_users=""
: "${top:?}" "${out:?}"

bench_net_cleanup()
{
  for u in $bench_users; do
    pkill -KILL -u "$u" 2>/dev/null || true
    userdel "$u" 2>/dev/null || true
  done
  rm -rf "$out"
}

bench_net_setup()
{
  cmake -S "$top" -B "$out/build" -DCMAKE_BUILD_TYPE=Release -DBWSH_TESTS=OFF -DBWSH_BENCH=OFF \
    -DCMAKE_INSTALL_PREFIX="$out/stage" >/dev/null
  cmake --build "$out/build" -j2 --target bwsh bwsh-netns >/dev/null
  bwsh=$out/build/shell/bwsh
  install -D -m 0755 "$out/build/helpers/bwsh-netns" "$out/stage/libexec/bwsh/bwsh-netns"
  chmod -R a+rX "$out/build"
  mkdir -p "$out/stage/etc/bwsh"
  policy=$out/stage/etc/bwsh/bwsh.conf
  echo 'match = (' >"$policy"
  sep=""
  for mode in "$@"; do
    u=$(printf '%.32s' "bwsh-nb-$mode-$$")
    useradd -M -d "$out/home-$mode" -s "$bwsh" "$u"
    bench_users="$bench_users $u"
    install -d -o "$u" -g "$(id -g "$u")" -m 0755 "$out/home-$mode"
    case $mode in
      slirp4netns) setting='network = "private"; network_engine = "slirp4netns";' ;;
      *) setting="network = \"$mode\";" ;;
    esac
    printf '%s  { user = "%s"; %s }\n' "$sep" "$u" "$setting" >>"$policy"
    sep=","
    eval "user_$mode=$u"
  done
  echo ');' >>"$policy"
  chmod 0644 "$policy"
  chmod -R go-w "$out/stage"
}
