#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Per-session memory and start cost of the private network, per engine (#27).

   netmem.py OUT.json ROUNDS BWSH USER_PRIVATE USER_NONE ENGINE_USER

Run as root by bench/netmem.sh, which makes the users, their policy and a
usable /dev/net/tun.  Two parts, each interleaved round by round so that the
machine's drift hits every candidate alike, and reported as medians:

  sessions  `bwsh -c 'echo up; exec sleep 30'` as a user whose policy says
            network = "private", and one whose policy says "none": once the
            shell runs, the PSS (/proc/PID/smaps_rollup) of every process the
            session keeps outside the sandbox (bwrap's monitor, the network
            helper, pasta), and the time from the exec of bwsh to "up".
  engines   each engine attached, as ENGINE_USER, to a fresh namespace
            (`unshare -rn sleep`) the way bwsh-netns attaches pasta: the
            time until it says the namespace is configured (pasta's pid
            file, slirp4netns's --ready-fd), and its PSS once idle.
"""
import json
import os
import pwd
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

out_path, rounds, bwsh, user_private, user_none, engine_user = sys.argv[1:7]
# A user whose sessions use network_engine = "slirp4netns" ("" without it).
user_slirp = sys.argv[7] if len(sys.argv) > 7 else ""
rounds = int(rounds)
PASTA = "/usr/bin/pasta"
SLIRP = shutil.which("slirp4netns")
BWSH_PASTA = ["--quiet", "--foreground", "--config-net", "--no-map-gw",
              "-t", "none", "-u", "none", "-T", "none", "-U", "none"]


def pss_kb(pid):
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return "?"


def same_pidns(pid):
    try:
        return os.readlink("/proc/%d/ns/pid" % pid) == os.readlink("/proc/self/ns/pid")
    except OSError:
        return False


def outside_tree(pid):
    """pid and its descendants that live in our pid namespace: outside the sandbox."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        if not same_pidns(p):
            continue
        found.append(p)
        todo.extend(children(p))
    return found


def as_user(user, argv):
    return ["/usr/bin/setpriv", "--reuid", user, "--regid", user, "--init-groups", "--"] + argv


def default_signals():
    # pasta (2023-03) will not start with SIGPIPE ignored, as Python leaves it.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def session(user):
    t0 = time.monotonic()
    p = subprocess.Popen(as_user(user, [bwsh, "-c", "echo up; exec sleep 30"]), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=default_signals)
    line = p.stdout.readline()
    up = (time.monotonic() - t0) * 1000
    if line.strip() != b"up":
        p.kill()
        p.wait()
        raise SystemExit("session of %s did not start: %s" % (user, p.stderr.read().decode()))
    time.sleep(0.3)  # let pasta's short-lived clones go
    procs = outside_tree(p.pid)
    detail = {"%s" % comm(q): pss_kb(q) for q in procs}
    total = sum(pss_kb(q) for q in procs)
    p.kill()  # bwrap's monitor: the helper and pasta follow it
    p.wait()
    return up, total, detail


def engine(kind, extra):
    """Attach one engine to a fresh namespace; (ms to configured, PSS kB, ok)."""
    uid = pwd.getpwnam(engine_user).pw_uid
    target = subprocess.Popen(as_user(engine_user, ["/usr/bin/unshare", "-rn", "/bin/sleep", "30"]),
                              stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            if os.readlink("/proc/%d/ns/net" % target.pid) != os.readlink("/proc/self/ns/net") and \
               comm(target.pid) == "sleep":
                break
        except OSError:
            pass
        time.sleep(0.001)
    d = tempfile.mkdtemp(prefix="bwsh-netmem.")
    os.chown(d, uid, -1)
    ready = os.path.join(d, "ready")
    try:
        if kind == "pasta":
            os.mkfifo(ready, 0o600)
            os.chown(ready, uid, -1)
            argv = [PASTA] + BWSH_PASTA + extra + ["--netns", "/proc/%d/ns/net" % target.pid,
                                                  "--userns", "/proc/%d/ns/user" % target.pid, "--pid", ready]
            t0 = time.monotonic()
            e = subprocess.Popen(as_user(engine_user, argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, preexec_fn=default_signals)
            fd = os.open(ready, os.O_RDONLY)  # blocks until pasta opens it to write its pid
            ok = os.read(fd, 32) != b""
            os.close(fd)
        else:
            r, w = os.pipe()
            argv = [SLIRP] + extra + ["--ready-fd", str(w), str(target.pid), "tap0"]
            t0 = time.monotonic()
            e = subprocess.Popen(as_user(engine_user, argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, pass_fds=(w,), preexec_fn=default_signals)
            os.close(w)
            ok = os.read(r, 1) == b"1"
            os.close(r)
        ms = (time.monotonic() - t0) * 1000
        time.sleep(0.3)
        # The engine is setpriv's exec: the same pid.
        kb = sum(pss_kb(q) for q in outside_tree(e.pid))
        e.terminate()
        e.wait()
    finally:
        target.kill()
        target.wait()
        shutil.rmtree(d, ignore_errors=True)
    return ms, kb, ok


engines = {
    "pasta, bwsh's options": ("pasta", []),
    # With --config-net, bwsh's pasta configures the namespace by netlink:
    # its DHCP, DHCPv6 and router advertisements serve nobody.
    "pasta + --no-dhcp --no-dhcpv6 --no-ra": ("pasta", ["--no-dhcp", "--no-dhcpv6", "--no-ra"]),
    # These two take something from the session: ping, and IPv6.
    "pasta + --no-icmp": ("pasta", ["--no-icmp"]),
    "pasta + -4": ("pasta", ["-4"]),
    "pasta + -4 --no-icmp --no-dhcp --no-dhcpv6 --no-ndp --no-ra": (
        "pasta", ["-4", "--no-icmp", "--no-dhcp", "--no-dhcpv6", "--no-ndp", "--no-ra"]),
}
if SLIRP:
    engines["slirp4netns --configure --disable-host-loopback"] = (
        "slirp4netns", ["--configure", "--disable-host-loopback"])

session_users = [("private", user_private), ("none", user_none)]
if user_slirp:
    session_users.append(("private, slirp4netns", user_slirp))
res = {"sessions": {m: [] for m, _ in session_users}, "engines": {k: [] for k in engines}, "detail": {}}
for i in range(rounds + 1):  # round 0 warms the caches and is not counted
    for mode, user in session_users:
        up, kb, detail = session(user)
        if i:
            res["sessions"][mode].append((up, kb))
            res["detail"][mode] = detail
    for name, (kind, extra) in engines.items():
        ms, kb, ok = engine(kind, extra)
        if not ok:
            raise SystemExit("%s never said it was ready" % name)
        if i:
            res["engines"][name].append((ms, kb))


def med(rows, k):
    return statistics.median(r[k] for r in rows)


print("== per session (%d rounds, interleaved, medians): start to the shell's first output; PSS outside the "
      "sandbox" % rounds)
pairs = list(zip(res["sessions"]["private"], res["sessions"]["none"]))
for mode in [m for m, _ in session_users]:
    rows = res["sessions"][mode]
    print("  %-20s %7.1f ms  %7.1f MB   (%s)" % (mode, med(rows, 0), med(rows, 1) / 1024,
                                             ", ".join("%s %.1f MB" % (c, kb / 1024)
                                                       for c, kb in res["detail"][mode].items())))
print("  private (slirp4netns, the default) - none, paired: %+.1f ms, %+.1f MB" % (statistics.median(a[0] - b[0] for a, b in pairs),
                                                       statistics.median(a[1] - b[1] for a, b in pairs) / 1024))
if user_slirp:
    sp = list(zip(res["sessions"]["private, slirp4netns"], res["sessions"]["none"]))
    print("  private with slirp4netns - none, paired: %+.1f ms, %+.1f MB" % (
        statistics.median(a[0] - b[0] for a, b in sp), statistics.median(a[1] - b[1] for a, b in sp) / 1024))
print("== engines attached to a fresh namespace (%d rounds, interleaved, medians)" % rounds)
for name, rows in res["engines"].items():
    print("  %-58s ready %6.1f ms  PSS %6.1f MB" % (name, med(rows, 0), med(rows, 1) / 1024))
json.dump(res, open(out_path, "w"), indent=1)
