# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Fleet harness: a real directory.  OpenLDAP's slapd (its own slapd.conf and
# mdb database in the test's scratch dir, on a loopback port) holds 1,000
# users and 100 groups in the rfc2307bis layout (posixGroup with "member"
# DNs, nested groups); SSSD (sssd -i with a config in the scratch dir) serves
# them through NSS.  Built on tests/ssh/lib.sh; source it from bash, as root,
# and call fleet_enter_namespace "$@" first.
#
# The machine is not touched: slapd and sssd are not installed (their
# packages' maintainer scripts would add sss to nsswitch.conf and pam_sss to
# /etc/pam.d for good).  tests/fleet/root.sh unpacks their .debs, untouched
# by any maintainer script, into the build tree (IT_STATE's directory, or
# IT_TMP), and the whole test runs in a private mount namespace
# (unshare -m) in which
#   - /usr is an overlay with the unpacked packages' usr/ above the
#     machine's own: /usr/sbin/slapd, /usr/sbin/sssd, its helpers in
#     /usr/libexec/sssd, its modules and libnss_sss.so.2 at their
#     compiled-in paths; slapd.conf includes the unpacked schema files;
#   - /var/lib/sss (SSSD's compiled-in cache, pipes and memory cache) is a
#     tmpfs (on a machine that has no /var/lib/sss, /var/lib is first an
#     overlay whose upper layer, in the scratch dir, holds the mount point);
#   - /run is an overlay whose upper layer is in the scratch dir (sssd.pid);
#   - /etc/nsswitch.conf is a bind of "passwd/group: files sss".
# sshd (tests/ssh/lib.sh) nests its own namespace inside this one, so it sees
# the same SSSD.  slapd and sssd are killed by pid at exit.
#
# The tree (FLEET_PFX is random per run, uids/gids start at FLEET_BASE):
#   users  ${PFX}u0001 .. ${PFX}u1000, primary group ${PFX}users, loginShell
#          /bin/bash: the directory itself knows nothing of bwsh
#   groups ${PFX}g001 .. ${PFX}g100; user N is a member of g(N mod 100 + 1)
#   ${PFX}confined  the subject group; member: u0001
#   ${PFX}staff     has the GROUP ${PFX}confined as its member (nesting)
#   ${PFX}locked    no members: a policy's lock group (lock_groups, #39)
# slapd's memberof overlay keeps memberOf on the users (direct membership).
#
# SSSD (fleet_write_sssd_conf) has two domains on that one directory, the
# tested way to give ONE group bwsh as its shell without touching LDAP:
#   [domain/confined]  users filtered by memberOf=${PFX}confined,
#                      override_shell = bwsh; asked first
#   [domain/fleet]     everybody, the shell from LDAP
#
# API
#   fleet_enter_namespace "$@"   re-exec the script in a private mount namespace
#   fleet_setup            ssh_prepare, the mounts, the tree, slapd, sssd
#   fleet_user N           the name of user N (1..1000); FLEET_UID_N=uid
#   fleet_home_for NAME    create NAME's home under $IT_ROOT/home with the
#                          client key in authorized_keys (for ssh logins)
#   fleet_slapd_start / fleet_slapd_stop
#   fleet_sssd_start online|offline   start sssd; wait until it resolves
#                          user 1 (offline: only until its NSS socket exists)
#   fleet_sssd_stop
#   fleet_sssd_cold        stop sssd and remove its cache (db and memory cache)
#   fleet_policy TEXT      TEXT is the policy of pam_bwsh ($SSH_POLICY) and,
#                          bound over it in this namespace only, of the
#                          installed bwsh and bwshctl
#   fleet_ldap_modify LDIF ldapmodify as the directory's root DN
#   fleet_ssh_as NAME CMD  ssh to the test sshd as NAME (sets IT_RC/OUT/ERR)
#   fleet_assert_session NAME "PID1 HOSTNAME"
#                          NAME logs in over ssh and FLEET_PROBE shows pid 1's
#                          name, the hostname, then NAME's uid

# shellcheck disable=SC1091,SC2034
. "$BWSH_SOURCE_DIR/tests/ssh/lib.sh"

FLEET_USERS=1000
FLEET_GROUPS=100
FLEET_SUFFIX=dc=bwsh,dc=test
FLEET_ROOTDN=cn=admin,$FLEET_SUFFIX
FLEET_ROOTPW=
FLEET_DIR=
FLEET_PFX=
FLEET_BASE=
FLEET_LDAP_PORT=
FLEET_SLAPD_PID=
FLEET_SSSD_PID=
FLEET_ROOT=

fleet_log() { printf 'fleet: %s\n' "$*" >&2; }

fleet_enter_namespace()
{
  [ -n "${FLEET_IN_NS:-}" ] && return 0
  [ "$(id -u)" = 0 ] || { fleet_log "fleet tests run as root"; exit 1; }
  FLEET_IN_NS=1 exec unshare -m --propagation private -- bash "$0" "$@"
}

# fleet_mount_daemons: unpack (or reuse) the daemon packages and lay their
# usr/ over /usr in this namespace.
fleet_mount_daemons()
{
  local cache
  if [ -n "${IT_STATE:-}" ]; then cache=$(dirname "$IT_STATE")/fleet-root; else cache=$IT_TMP/fleet-root; fi
  FLEET_ROOT=$(bash "$BWSH_SOURCE_DIR/tests/fleet/root.sh" stage "$cache") \
    || { it_fail "cannot unpack slapd and sssd (tests/fleet/root.sh stage $cache)"; exit 1; }
  mount -t overlay overlay -o "ro,lowerdir=$FLEET_ROOT/usr:/usr" /usr \
    || { it_fail "cannot mount the unpacked packages over /usr"; exit 1; }
}

# fleet_require: the daemons and tools are there, and every library they and
# their modules link against resolves (scripts/deps.sh installs those).
fleet_require()
{
  local b missing
  for b in /usr/sbin/slapd /usr/sbin/slapadd /usr/sbin/sssd /usr/sbin/sss_cache /usr/bin/ldapmodify \
    /usr/bin/ldapsearch /usr/lib/ldap/back_mdb.so /usr/lib/ldap/memberof.so; do
    [ -e "$b" ] || { it_fail "$b is missing (tests/fleet/root.sh unpacks slapd and sssd; scripts/deps.sh installs ldap-utils)"; exit 1; }
  done
  compgen -G '/usr/lib/*/libnss_sss.so.2' >/dev/null || { it_fail "libnss_sss.so.2 is missing"; exit 1; }
  missing=$(for b in /usr/sbin/slapd /usr/sbin/sssd /usr/sbin/sss_cache /usr/libexec/sssd/* /usr/lib/ldap/*.so \
    /usr/lib/*/sssd/*.so /usr/lib/*/libnss_sss.so.2; do
    [ -f "$b" ] && ldd "$b" 2>/dev/null | awk -v b="$b" '/not found/ { print b ": " $1 }'
  done)
  [ -z "$missing" ] || { it_fail "libraries missing (scripts/deps.sh installs them): $missing"; exit 1; }
}

fleet_user() { printf '%su%04d' "$FLEET_PFX" "$1"; }

fleet_cleanup()
{
  local pid
  fleet_sssd_stop
  fleet_slapd_stop
  # A private tree (no fixture) is removed after this: not while bound.
  umount "$IT_PREFIX/etc/bwsh/bwsh.conf" 2>/dev/null
  # Sessions of directory users, found by uid range, killed by pid.
  for pid in $(ps -e -o pid= -o uid= -o stat= | awk -v lo="$FLEET_BASE" -v hi=$((FLEET_BASE + FLEET_USERS)) \
    '$2 > lo && $2 <= hi && $3 !~ /^Z/ { print $1 }'); do
    kill -KILL "$pid" 2>/dev/null
  done
}

fleet_setup()
{
  [ -n "${FLEET_IN_NS:-}" ] || { fleet_log "call fleet_enter_namespace \"\$@\" first"; exit 1; }
  ssh_prepare
  fleet_mount_daemons
  fleet_require
  it_defer fleet_cleanup
  FLEET_DIR=$IT_TMP/fleet
  mkdir -p "$FLEET_DIR/db" "$FLEET_DIR/run-up" "$FLEET_DIR/run-work"
  chmod 700 "$FLEET_DIR"
  FLEET_PFX=f$(tr -dc 'a-z0-9' </dev/urandom | head -c 5)
  # 100 disjoint ranges of 2,000 ids from 3,000,000: parallel runs and
  # the host's own accounts never share a uid.
  FLEET_BASE=$((3000000 + (RANDOM % 100) * 2000))
  FLEET_ROOTPW=$(tr -dc 'a-zA-Z0-9' </dev/urandom | head -c 20)

  if [ ! -d /var/lib/sss ]; then
    mkdir -p "$FLEET_DIR/varlib-up" "$FLEET_DIR/varlib-work"
    if ! mount -t overlay overlay -o "lowerdir=/var/lib,upperdir=$FLEET_DIR/varlib-up,workdir=$FLEET_DIR/varlib-work" \
      /var/lib || ! mkdir /var/lib/sss; then
      it_fail "cannot make /var/lib/sss in an overlay"
      exit 1
    fi
  fi
  mount -t tmpfs -o mode=0755,size=64m tmpfs /var/lib/sss || { it_fail "cannot mount a tmpfs on /var/lib/sss"; exit 1; }
  mkdir -m 0700 /var/lib/sss/db /var/lib/sss/secrets
  mkdir -m 0755 /var/lib/sss/pipes /var/lib/sss/pubconf /var/lib/sss/mc /var/lib/sss/gpo_cache
  mkdir -m 0700 /var/lib/sss/pipes/private
  mount -t overlay overlay -o "lowerdir=/run,upperdir=$FLEET_DIR/run-up,workdir=$FLEET_DIR/run-work" /run \
    || { it_fail "cannot mount an overlay on /run"; exit 1; }
  printf 'passwd: files sss\ngroup: files sss\nshadow: files\nhosts: files\n' >"$FLEET_DIR/nsswitch.conf"
  chmod 644 "$FLEET_DIR/nsswitch.conf"
  mount --bind "$FLEET_DIR/nsswitch.conf" /etc/nsswitch.conf || { it_fail "cannot bind nsswitch.conf"; exit 1; }

  fleet_write_people >"$FLEET_DIR/people.ldif"
  fleet_write_groups >"$FLEET_DIR/groups.ldif"
  fleet_write_slapd_conf
  # The people offline (fast); the groups through slapd, so that the
  # memberof overlay sets memberOf on their members.
  slapadd -q -f "$FLEET_DIR/slapd.conf" -l "$FLEET_DIR/people.ldif" 2>"$FLEET_DIR/slapadd.log" \
    || { cat "$FLEET_DIR/slapadd.log" >&2; it_fail "slapadd failed"; exit 1; }
  fleet_slapd_start
  ldapadd -x -H "ldap://127.0.0.1:$FLEET_LDAP_PORT" -D "$FLEET_ROOTDN" -w "$FLEET_ROOTPW" \
    -f "$FLEET_DIR/groups.ldif" >"$FLEET_DIR/ldapadd.log" 2>&1 \
    || { tail "$FLEET_DIR/ldapadd.log" >&2; it_fail "ldapadd of the groups failed"; exit 1; }
  fleet_sssd_start online
  fleet_log "directory $FLEET_SUFFIX on 127.0.0.1:$FLEET_LDAP_PORT, $FLEET_USERS users ${FLEET_PFX}u*, uids from $((FLEET_BASE + 1))"
}

fleet_write_slapd_conf()
{
  cat >"$FLEET_DIR/slapd.conf" <<EOF
include $FLEET_ROOT/etc/ldap/schema/core.schema
include $FLEET_ROOT/etc/ldap/schema/cosine.schema
include $FLEET_ROOT/etc/ldap/schema/nis.schema
include $FLEET_ROOT/etc/ldap/schema/inetorgperson.schema
pidfile $FLEET_DIR/slapd.pid
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload memberof
database mdb
maxsize 268435456
suffix "$FLEET_SUFFIX"
rootdn "$FLEET_ROOTDN"
rootpw $FLEET_ROOTPW
directory $FLEET_DIR/db
index objectClass eq
index uid,cn,member,memberUid eq
index uidNumber,gidNumber eq
index memberOf eq
overlay memberof
memberof-group-oc posixGroup
memberof-member-ad member
memberof-memberof-ad memberOf
memberof-refint true
EOF
  chmod 600 "$FLEET_DIR/slapd.conf"
}

# rfc2307bis without an rfc2307bis schema file (Debian ships nis.schema,
# where posixGroup is structural): extensibleObject lets a posixGroup carry
# "member" DNs, which SSSD's rfc2307bis mode reads, nested groups included.
FLEET_PEOPLE=ou=people,$FLEET_SUFFIX
FLEET_GROUPS_DN=ou=groups,$FLEET_SUFFIX

fleet_write_people()
{
  local i people=$FLEET_PEOPLE groups=$FLEET_GROUPS_DN
  printf 'dn: %s\nobjectClass: dcObject\nobjectClass: organization\no: bwsh\ndc: bwsh\n\n' "$FLEET_SUFFIX"
  printf 'dn: %s\nobjectClass: organizationalUnit\nou: people\n\n' "$people"
  printf 'dn: %s\nobjectClass: organizationalUnit\nou: groups\n\n' "$groups"
  for ((i = 1; i <= FLEET_USERS; i++)); do
    printf 'dn: uid=%s,%s\nobjectClass: inetOrgPerson\nobjectClass: posixAccount\n' "$(fleet_user "$i")" "$people"
    printf 'uid: %s\ncn: %s\nsn: %s\nuidNumber: %d\ngidNumber: %d\n' \
      "$(fleet_user "$i")" "$(fleet_user "$i")" "$(fleet_user "$i")" $((FLEET_BASE + i)) "$FLEET_BASE"
    printf 'homeDirectory: %s/home/%s\nloginShell: /bin/bash\n\n' "$IT_ROOT" "$(fleet_user "$i")"
  done
}

fleet_write_groups()
{
  local i g people=$FLEET_PEOPLE groups=$FLEET_GROUPS_DN
  printf 'dn: cn=%susers,%s\nobjectClass: posixGroup\ncn: %susers\ngidNumber: %d\n\n' \
    "$FLEET_PFX" "$groups" "$FLEET_PFX" "$FLEET_BASE"
  for ((g = 1; g <= FLEET_GROUPS; g++)); do
    printf 'dn: cn=%sg%03d,%s\nobjectClass: posixGroup\nobjectClass: extensibleObject\n' "$FLEET_PFX" "$g" "$groups"
    printf 'cn: %sg%03d\ngidNumber: %d\n' "$FLEET_PFX" "$g" $((FLEET_BASE + 1000 + g))
    for ((i = g - 1; i <= FLEET_USERS; i += FLEET_GROUPS)); do
      [ "$i" -ge 1 ] && printf 'member: uid=%s,%s\n' "$(fleet_user "$i")" "$people"
    done
    printf '\n'
  done
  printf 'dn: cn=%sconfined,%s\nobjectClass: posixGroup\nobjectClass: extensibleObject\n' "$FLEET_PFX" "$groups"
  printf 'cn: %sconfined\ngidNumber: %d\nmember: uid=%s,%s\n\n' "$FLEET_PFX" $((FLEET_BASE + 1998)) \
    "$(fleet_user 1)" "$people"
  printf 'dn: cn=%sstaff,%s\nobjectClass: posixGroup\nobjectClass: extensibleObject\n' "$FLEET_PFX" "$groups"
  printf 'cn: %sstaff\ngidNumber: %d\nmember: cn=%sconfined,%s\n\n' "$FLEET_PFX" $((FLEET_BASE + 1999)) \
    "$FLEET_PFX" "$groups"
  printf 'dn: cn=%slocked,%s\nobjectClass: posixGroup\nobjectClass: extensibleObject\n' "$FLEET_PFX" "$groups"
  printf 'cn: %slocked\ngidNumber: %d\n\n' "$FLEET_PFX" $((FLEET_BASE + 1997))
}

fleet_slapd_start()
{
  local try
  for try in 1 2 3 4 5; do
    [ -n "$FLEET_LDAP_PORT" ] && [ "$try" = 1 ] || FLEET_LDAP_PORT=$(ssh_free_port)
    : >"$FLEET_DIR/slapd.log"
    # -d 0: stay in the foreground (killed by this pid), log nothing.
    /usr/sbin/slapd -f "$FLEET_DIR/slapd.conf" -h "ldap://127.0.0.1:$FLEET_LDAP_PORT/" -d 0 \
      </dev/null >>"$FLEET_DIR/slapd.log" 2>&1 &
    FLEET_SLAPD_PID=$!
    for _ in $(seq 100); do
      ldapsearch -x -LLL -H "ldap://127.0.0.1:$FLEET_LDAP_PORT" -b "$FLEET_SUFFIX" -s base dn >/dev/null 2>&1 \
        && return 0
      kill -0 "$FLEET_SLAPD_PID" 2>/dev/null || break
      sleep 0.05
    done
    fleet_slapd_stop
  done
  cat "$FLEET_DIR/slapd.log" >&2
  it_fail "slapd did not start"
  exit 1
}

# fleet_stop_pid PID: SIGTERM, up to 5 s, then SIGKILL; reaped.
fleet_stop_pid()
{
  [ -n "$1" ] || return 0
  kill -TERM "$1" 2>/dev/null
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.05; done
  kill -KILL "$1" 2>/dev/null
  wait "$1" 2>/dev/null
}

fleet_slapd_stop()
{
  fleet_stop_pid "$FLEET_SLAPD_PID"
  FLEET_SLAPD_PID=
}

# The cache settings that matter (docs/admin-guide.md, "Fleets"): entries
# stay valid entry_cache_timeout seconds; offline, cache_credentials and the
# cached entries keep known users working; the memory cache is on (default).
fleet_write_sssd_conf()
{
  {
    printf '[sssd]\nservices = nss, pam\ndomains = confined, fleet\n\n[nss]\n\n[pam]\n\n'
    printf '[domain/confined]\n'
    fleet_sssd_domain
    printf 'ldap_user_search_base = %s?subtree?(memberOf=cn=%sconfined,%s)\n' \
      "$FLEET_PEOPLE" "$FLEET_PFX" "$FLEET_GROUPS_DN"
    printf 'override_shell = %s\n\n' "$IT_BWSH"
    printf '[domain/fleet]\n'
    fleet_sssd_domain
  } >"$FLEET_DIR/sssd.conf"
  chmod 600 "$FLEET_DIR/sssd.conf"
}

fleet_sssd_domain()
{
  printf 'id_provider = ldap\nauth_provider = none\n'
  # SSSD 2.10 (Debian 13) asks for StartTLS on identity lookups by default;
  # this directory is plain LDAP on loopback, inside the test's namespace.
  printf 'ldap_id_use_start_tls = false\n'
  printf 'ldap_uri = ldap://127.0.0.1:%s\nldap_search_base = %s\n' "$FLEET_LDAP_PORT" "$FLEET_SUFFIX"
  printf 'ldap_schema = rfc2307bis\nldap_group_member = member\nldap_group_object_class = posixGroup\n'
  printf 'ldap_network_timeout = 2\nldap_opt_timeout = 2\nldap_search_timeout = 3\n'
  printf 'cache_credentials = true\nentry_cache_timeout = 600\n'
}

fleet_sssd_start()
{
  fleet_write_sssd_conf
  : >"$FLEET_DIR/sssd.log"
  /usr/sbin/sssd -i -c "$FLEET_DIR/sssd.conf" --logger=stderr -d 1 </dev/null >>"$FLEET_DIR/sssd.log" 2>&1 &
  FLEET_SSSD_PID=$!
  for _ in $(seq 200); do
    [ -S /var/lib/sss/pipes/nss ] && { [ "$1" = offline ] || getent passwd "$(fleet_user 1)" >/dev/null; } \
      && return 0
    kill -0 "$FLEET_SSSD_PID" 2>/dev/null || break
    sleep 0.05
  done
  tail -n 30 "$FLEET_DIR/sssd.log" >&2
  it_fail "sssd did not start (or does not resolve $(fleet_user 1))"
  exit 1
}

fleet_sssd_stop()
{
  [ -n "$FLEET_SSSD_PID" ] || return 0
  fleet_stop_pid "$FLEET_SSSD_PID"
  FLEET_SSSD_PID=
  rm -f /var/lib/sss/pipes/nss /var/lib/sss/pipes/pam /var/lib/sss/pipes/private/* /run/sssd.pid
}

# Start sssd with no cache at all: the state of a machine that has never
# seen the directory (or whose cache was wiped).
fleet_sssd_cold()
{
  fleet_sssd_stop
  rm -rf /var/lib/sss/db/* /var/lib/sss/mc/*
}

fleet_policy()
{
  local installed=$IT_PREFIX/etc/bwsh/bwsh.conf
  printf '%s\n' "$1" >"$SSH_POLICY"
  chmod 644 "$SSH_POLICY"
  mountpoint -q "$installed" 2>/dev/null || grep -q " ${installed} " /proc/self/mountinfo \
    || mount --bind "$SSH_POLICY" "$installed" || { it_fail "cannot bind the policy"; exit 1; }
}

fleet_ldap_modify()
{
  ldapmodify -x -H "ldap://127.0.0.1:$FLEET_LDAP_PORT" -D "$FLEET_ROOTDN" -w "$FLEET_ROOTPW" \
    >"$FLEET_DIR/ldapmodify.log" 2>&1 <<<"$1" || { cat "$FLEET_DIR/ldapmodify.log" >&2; it_fail "ldapmodify failed"; exit 1; }
}

fleet_home_for()
{
  local name=$1 home=$IT_ROOT/home/$1 uid
  uid=$(id -u "$name") || { it_fail "NSS does not know $name"; exit 1; }
  mkdir -p "$home/.ssh" "$home/project"
  cp "$IT_TMP/client_key.pub" "$home/.ssh/authorized_keys"
  chmod 755 "$home"
  chmod 700 "$home/.ssh" "$home/project"
  chmod 600 "$home/.ssh/authorized_keys"
  chown -R "$uid:$FLEET_BASE" "$home"
  it_defer rm -rf "$home"
}

# What a session shows of where it runs: pid 1's name (bwrap in the
# sandbox), the hostname (a policy match block sets one) and the uid.
# shellcheck disable=SC2016 # expanded by the session's shell
FLEET_PROBE='printf "%s %s %s\n" "$(cat /proc/1/comm)" "$(cat /proc/sys/kernel/hostname)" "$(id -u)"'

# fleet_assert_session NAME WANT: ssh in as NAME, run FLEET_PROBE; it
# succeeds and prints WANT followed by NAME's uid.
fleet_assert_session()
{
  fleet_ssh_as "$1" "$FLEET_PROBE"
  it_assert_rc 0
  it_assert_eq "$2 $(id -u "$1")" "$IT_OUT" "pid 1, hostname and uid of $1's session"
}

fleet_ssh_as()
{
  local name=$1
  shift
  IT_RC=0
  timeout -k 5 60 ssh -F "$SSH_CFG" -l "$name" t "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
}
