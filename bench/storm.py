#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One login storm (#27): N bwsh sessions released at once by one barrier.

  storm.py BWSH BWSHCTL N USER[,USER...] [--json FILE] [--detail] [--perf-lock FILE]
           [--registry-cost NOEXEC_BWSH]

Session i runs as USER number i % (number of users), started the way a login
shell is: a forked child takes the user's uid, gid and groups, waits on the
barrier (a pipe whose write end this process closes), reads the clock and
execs `bwsh -c CMD`.  CMD, in the sandbox's shell, prints bash's
$EPOCHREALTIME (the same clock, read without starting a process) and then
holds the session open until its stdin closes, so that all N overlap.
Start time = the stamp - the clock read just before the exec of bwsh.

Once every session has stamped or failed (the hold), the registry is read
as root (`bwshctl sessions --json`, which drops the entries of processes
that are gone) and compared with the sessions running, and the CPU time and
time spent waiting for a CPU of every session process are read from
/proc/PID/schedstat; then every session is released, and the registry is
read again once all have ended.  Prints one line (start times and CPU
figures are those of the sessions that started):

  N USERS failed p50 p99 max wall cpu% cpu/session cpu-wait/session registry/running left

then the reasons for any failure.  --detail adds the schedstat figures by
process; --perf-lock FILE records the storm's kernel lock contention with
`perf lock record` attached to the waiting sessions (so only their own
waits count, whatever else the machine runs) and prints it by lock;
--registry-cost counts, with callgrind, the instructions of one more
`NOEXEC_BWSH -c true` of the first user (a build whose bwrap path points
nowhere) before the storm and at the hold: the difference is the
registry's count of the storm's live sessions.
"""
import json, os, pwd, re, selectors, signal, subprocess, sys, time

CMD = 'echo "$EPOCHREALTIME"; read -r hold || :'
HOLD_TIMEOUT = 180  # s: a session neither started nor ended by then has failed
END_TIMEOUT = 60    # s: after the release, every session must end


def cpu_ticks():
    """(busy, total) jiffies of all CPUs, from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:8]]
    return sum(v) - v[3] - v[4], sum(v)  # less idle and iowait


def registry(bwshctl, names):
    """Live registry entries of @names, read as root (bwshctl drops dead ones)."""
    r = subprocess.run([bwshctl, "sessions", "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return sum(1 for e in json.loads(r.stdout) if e.get("user") in names)


def fifo_dirs(uids):
    """bwsh-netns's directories for pasta's pid FIFO (in P_tmpdir) owned by @uids."""
    found = set()
    for de in os.scandir("/tmp"):
        try:
            if de.name.startswith("bwsh-net.") and de.stat(follow_symlinks=False).st_uid in uids:
                found.add(de.path)
        except OSError:
            pass
    return found


def instructions(bwsh, user):
    """Instructions `bwsh -c true` runs as @user before its exec of bwrap
    (callgrind; @bwsh is a build whose bwrap path points nowhere), or None."""
    pw = pwd.getpwnam(user)
    out = os.path.join(pw.pw_dir, ".storm-callgrind")
    env = {"PATH": "/usr/bin:/bin", "HOME": pw.pw_dir, "USER": user, "LOGNAME": user, "LANG": "C.UTF-8"}
    subprocess.run(["setpriv", "--reuid", user, "--regid", user, "--init-groups", "--", "valgrind",
                    "--tool=callgrind", "--callgrind-out-file=" + out, bwsh, "-c", "true"], env=env,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with open(out) as f:
            return next((int(ln.split()[1]) for ln in f if ln.startswith("summary:")), None)
    except OSError:
        return None
    finally:
        if os.path.exists(out):
            os.unlink(out)


def percentile(v, p):
    """Nearest rank: the smallest value with at least p % of them at or below it."""
    s = sorted(v)
    return s[max(0, -(-len(s) * p // 100) - 1)] if s else float("nan")


def processes(uids):
    """pid -> (ppid, comm, state) of every process of @uids."""
    found = {}
    for de in os.scandir("/proc"):
        if not de.name.isdigit():
            continue
        try:
            if de.stat().st_uid not in uids:
                continue
            with open("/proc/%s/stat" % de.name) as f:
                s = f.read()
        except OSError:
            continue
        end = s.rindex(")")
        found[int(de.name)] = (int(s[end + 2:].split()[1]), s[s.index("(") + 1:end], s[end + 2])
    return found


def role(pid, comm, session):
    """What a process of a session is: bwsh's own pid becomes bwrap's monitor."""
    if pid == session:
        return "bwsh, then bwrap's monitor"
    return {"bwrap": "bwrap in the sandbox", "bash": "the shell", "passt.avx2": "pasta",
            "passt": "pasta"}.get(comm, comm)


def session_of(pid, procs, sessions):
    for _ in range(16):
        if pid in sessions:
            return pid
        if pid not in procs:
            return None
        pid = procs[pid][0]
    return None


# Which lock a wait was for: the first frame of its kernel stack that one of
# these names (perf lock contention -v prints the stacks); the last word of
# each says what in a session takes it.
LOCKS = [
    (r"copy_mnt_ns", "namespace_sem: a new mount namespace (bwrap's clone)"),
    (r"path_mount|do_lock_mount|__do_sys_pivot_root|m_start|do_mount|path_umount|move_mount|do_umount",
     "namespace_sem: bwrap's mounts, pivot_root, umount and mountinfo reads"),
    (r"synchronize_rcu\w*|synchronize_srcu\w*", "an RCU grace period (after an umount, or a namespace's end)"),
    (r"do_task_stat", "exec_update_lock: /proc/PID/stat of a process in exec (bwsh's registry count)"),
    (r"setup_net|copy_net_ns|cleanup_net|register_pernet\w*", "a new network namespace (pernet_ops_rwsem, net mutexes)"),
    # tun's ioctl and close take rtnl_lock(), which a tail call hides.
    (r"rtnl_\w*|rtnetlink_rcv\w*|netlink_unicast|netlink_rcv_skb|__tun_chr_ioctl|tun_chr_close|tun_detach\w*",
     "rtnl_mutex: netlink and tun (bwrap's lo; pasta's tap, addresses, routes)"),
    (r"flock\w*|locks_lock_\w+|__do_sys_flock", "the registry's lock (flock)"),
    (r"unlink_file_vma\w*|vma_link\w*|i_mmap\w*|__vma_link_file|__mmap_region|mmap_region|vma_prepare|dup_mmap|"
     r"unlink_anon_vmas|anon_vma_\w+|vm_mmap_pgoff", "mmap_lock, anon_vma, i_mmap_rwsem: mapping memory (exec, fork, exit)"),
    (r"anon_pipe_read|pipe_read", "a pipe's mutex (mostly the storm's barrier, before any clock starts)"),
    (r"do_mkdirat|filename_create|do_rmdir|do_unlinkat|do_renameat2|open_last_lookups|lookup_slow|iterate_dir",
     "a shared directory's inode lock (mkdir, rmdir, readdir)"),
]


def perf_locks(data):
    """perf lock contention of @data, by lock: [(what, contended, total ms, max ms)]."""
    r = subprocess.run(["perf", "lock", "contention", "-i", data, "-v", "-E", "100000"], capture_output=True, text=True)
    unit = {"s": 1e3, "ms": 1.0, "us": 1e-3, "ns": 1e-6}
    entries, cur = [], None
    for ln in (r.stdout + r.stderr).splitlines():
        m = re.match(r"\s*(\d+)\s+([\d.]+) (s|ms|us|ns)\s+([\d.]+) (s|ms|us|ns)\s+\S+ \S+\s+(\S+)\s+(\S+)\s*$", ln)
        if m:
            cur = [int(m.group(1)), float(m.group(2)) * unit[m.group(3)], float(m.group(4)) * unit[m.group(5)],
                   m.group(6), m.group(7), []]
            entries.append(cur)
            continue
        m = re.match(r"\s+0x[0-9a-f]+\s+(\S+)", ln)
        if m and cur:
            cur[5].append(m.group(1).split("+")[0])
    by = {}
    for count, total, worst, kind, caller, stack in entries:
        frames = stack or [caller.split("+")[0]]
        what = next((name for fr in frames for pat, name in LOCKS if re.fullmatch(pat, fr)), None)
        if what is None:
            what = "%s in %s" % (kind, next((fr for fr in frames if not re.search(r"slowpath|^down_|^mutex_|^__mutex|"
                                                                                  r"^rwsem|^_raw_|^queued_", fr)),
                                            caller))
        v = by.setdefault(what, [0, 0.0, 0.0])
        v[0] += count
        v[1] += total
        v[2] = max(v[2], worst)
    return sorted(((k, c, t, w) for k, (c, t, w) in by.items()), key=lambda e: -e[2])


def schedstat(uids, started):
    """role -> [processes, CPU ns, ns waiting for a CPU, times run] of the
    sessions @started, from /proc/PID/schedstat (a failed one has no
    processes left)."""
    procs = processes(uids)
    by = {}
    for pid, (_, comm, _) in procs.items():
        s = session_of(pid, procs, started)
        if s is None:
            continue
        try:
            with open("/proc/%d/schedstat" % pid) as f:
                run, wait, slices = (int(x) for x in f.read().split()[:3])
        except (OSError, ValueError):
            continue
        v = by.setdefault(role(pid, comm, s), [0, 0, 0, 0])
        v[0] += 1
        v[1] += run
        v[2] += wait
        v[3] += slices
    return by


def child(bwsh, user, barrier, ready, stdin_r, stdout_w, err_path, close):
    """The session's own process, up to the exec of bwsh."""
    try:
        # The barrier's write end above all: held here, it would never close.
        for fd in close:
            os.close(fd)
        pw = pwd.getpwnam(user)
        fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(stdin_r, 0)
        os.dup2(stdout_w, 1)
        os.dup2(fd, 2)
        os.setgroups(os.getgrouplist(user, pw.pw_gid))
        os.setgid(pw.pw_gid)
        os.setuid(pw.pw_uid)
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": pw.pw_dir, "USER": user, "LOGNAME": user,
               "SHELL": pw.pw_shell, "LANG": "C.UTF-8"}
        os.write(ready, b".")
        ready = None
        os.read(barrier, 1)  # end of file: released
        t0 = time.time_ns()
        os.write(1, b"%d\n" % t0)
        os.execve(bwsh, [bwsh, "-c", CMD], env)
    except BaseException as e:  # noqa: BLE001 - whatever it is, this child ends here
        os.write(2, ("storm.py: %s\n" % e).encode())
        # Counted as ready all the same: the others wait for the barrier.
        if ready is not None:
            os.write(ready, b".")
    os._exit(127)


def main():
    args, opts = [], {}
    it = iter(sys.argv[1:])
    for a in it:
        if a == "--json":
            opts[a] = next(it)
        elif a == "--perf-lock":
            opts[a] = next(it)
        elif a == "--registry-cost":
            opts[a] = next(it)
        elif a == "--detail":
            opts[a] = True
        else:
            args.append(a)
    bwsh, bwshctl, n, users = args[0], args[1], int(args[2]), args[3].split(",")
    work = os.environ.get("STORM_DIR", ".")
    names = set(users)
    uids = {pwd.getpwnam(u).pw_uid for u in users}
    barrier_r, barrier_w = os.pipe()
    ready_r, ready_w = os.pipe()
    sessions = {}
    for i in range(n):
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err = os.path.join(work, "session-%d.err" % i)
        pid = os.fork()
        if pid == 0:
            child(bwsh, users[i % len(users)], barrier_r, ready_w, in_r, out_w, err, [barrier_w, ready_r])
        os.close(in_r)
        os.close(out_w)
        sessions[pid] = {"i": i, "stdin": in_w, "stdout": out_r, "buf": b"", "err": err,
                         "t0": None, "stamp": None, "rc": None}
    os.close(barrier_r)
    os.close(ready_w)
    got = 0
    while got < n:
        b = os.read(ready_r, n - got)
        if not b:
            break
        got += len(b)
    perf = None
    if "--perf-lock" in opts:
        # Attached to the waiting children, it follows every process they
        # start: only the storm's own lock waits are recorded.
        perf = subprocess.Popen(["perf", "lock", "record", "-o", opts["--perf-lock"], "-p",
                                 ",".join(str(p) for p in sessions)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        # Released once perf has an event on each of them.
        for _ in range(600):
            try:
                fds = [os.readlink("/proc/%d/fd/%s" % (perf.pid, fd)) for fd in os.listdir("/proc/%d/fd" % perf.pid)]
            except OSError:
                fds = []
            if sum(1 for f in fds if "perf_event" in f) >= n or perf.poll() is not None:
                break
            time.sleep(0.05)
        time.sleep(0.5)
    cost0 = instructions(opts["--registry-cost"], users[0]) if "--registry-cost" in opts else None
    started = set()
    dirs_before = fifo_dirs(uids)
    busy0, total0 = cpu_ticks()
    t_release = time.time_ns()
    os.close(barrier_w)

    sel = selectors.DefaultSelector()
    for pid, s in sessions.items():
        sel.register(s["stdout"], selectors.EVENT_READ, pid)
    pending = n
    deadline = time.monotonic() + HOLD_TIMEOUT
    t_last = t_release
    while pending and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=1):
            pid = key.data
            s = sessions[pid]
            b = os.read(s["stdout"], 4096)
            s["buf"] += b
            lines = s["buf"].split(b"\n")
            if s["t0"] is None and len(lines) > 1:
                s["t0"] = int(lines[0])
            if s["stamp"] is None and len(lines) > 2:
                try:
                    s["stamp"] = round(float(lines[1].replace(b",", b".")) * 1e9)
                    t_last = max(t_last, s["stamp"])
                    started.add(pid)
                except ValueError:
                    pass
            if s["stamp"] is not None or not b:
                sel.unregister(s["stdout"])
                pending -= 1
            if s["stamp"] is None and not b:
                # Failed: reaped now, so that the registry no longer counts it.
                s["rc"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    busy1, total1 = cpu_ticks()
    sched = schedstat(uids, started)
    if perf:
        perf.send_signal(signal.SIGINT)
        perf.wait()
    seen = registry(bwshctl, names)
    # One more session of the first user, now that the storm's are live.
    cost1 = instructions(opts["--registry-cost"], users[0]) if "--registry-cost" in opts else None

    for s in sessions.values():
        os.close(s["stdin"])
    end = time.monotonic() + END_TIMEOUT
    while any(s["rc"] is None for s in sessions.values()) and time.monotonic() < end:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            time.sleep(0.05)
        elif pid in sessions:
            sessions[pid]["rc"] = os.waitstatus_to_exitcode(status)
    for pid, s in sessions.items():
        if s["rc"] is None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    # bwrap's monitor ends with the sandbox, pasta and the helper right
    # after it: the registry is read again once none of them is left.
    for _ in range(400):
        if not processes(uids):
            break
        time.sleep(0.05)
    left = registry(bwshctl, names)
    # The helper removes its directory once pasta is up or given up on;
    # what is left is garbage in the host's /tmp.
    dirs_left = sorted(fifo_dirs(uids) - dirs_before)

    starts, failures = [], []
    for pid, s in sorted(sessions.items(), key=lambda kv: kv[1]["i"]):
        if s["rc"] == 0 and s["stamp"] is not None and s["t0"] is not None:
            starts.append((s["stamp"] - s["t0"]) / 1e6)
        else:
            with open(s["err"], "rb") as f:
                msg = f.read(2000).decode(errors="replace").strip().splitlines()
            failures.append((s["i"], s["rc"], msg[:4]))
    wall = (t_last - t_release) / 1e9
    cpu = 100.0 * (busy1 - busy0) / max(1, total1 - total0)
    per_cpu = sum(v[1] for v in sched.values()) / 1e6 / max(1, len(started))
    per_wait = sum(v[2] for v in sched.values()) / 1e6 / max(1, len(started))
    row = {"sessions": n, "users": len(users), "failed": len(failures), "p50_ms": percentile(starts, 50),
           "p99_ms": percentile(starts, 99), "max_ms": max(starts, default=float("nan")), "wall_s": wall,
           "cpu_busy_pct": cpu, "cpu_ms_per_session": per_cpu, "cpu_wait_ms_per_session": per_wait,
           "running_at_hold": len(started), "registry_at_hold": seen, "registry_after": left,
           "fifo_dirs_left": dirs_left,
           "schedstat": {k: {"processes": v[0], "cpu_ms": v[1] / 1e6, "cpu_wait_ms": v[2] / 1e6, "runs": v[3]}
                         for k, v in sched.items()}}
    def ms(v):
        return "-" if v != v else "%.0f" % v  # NaN: no session started

    print("%5d %5d %6d %7s %7s %7s %6.1f %4.0f%% %7.1f %8.0f %9s %5s" % (
        n, len(users), len(failures), ms(row["p50_ms"]), ms(row["p99_ms"]), ms(row["max_ms"]), wall, cpu, per_cpu,
        per_wait, "%s/%d" % ("?" if seen is None else seen, len(started)), "?" if left is None else left))
    # The distinct reasons, then all that the first failure said.
    why = {}
    for _, rc, msg in failures:
        # bwsh's own line says why; pasta may have said something first.
        k = next((m for m in msg if m.startswith("bwsh:")), msg[0] if msg else "exit status %s, nothing on stderr" % rc)
        why[k] = why.get(k, 0) + 1
    for k, c in sorted(why.items(), key=lambda kv: -kv[1]):
        print("         %4d x %s" % (c, k[:200]))
    for i, rc, msg in failures[:1]:
        print("         e.g. session %d, exit status %s: %s" % (i, rc, " | ".join(m[:200] for m in msg) or "(no stderr)"))
    if dirs_left:
        inside = set()
        for d in dirs_left:
            try:
                inside.update(os.listdir(d))
            except OSError:
                pass
        print("         %d x bwsh-netns's directory left in /tmp after the end (holding: %s)"
              % (len(dirs_left), ", ".join(sorted(inside)) or "nothing"))
    if "--detail" in opts:
        print("         per session started, by process (/proc/PID/schedstat at the hold): CPU time, time waiting"
              " for a CPU, times it ran")
        k = max(1, len(started))
        for name, v in sorted(sched.items(), key=lambda kv: -kv[1][1]):
            print("           %-30s %7.1f ms %9.1f ms %7.0f" % (name, v[1] / 1e6 / k, v[2] / 1e6 / k, v[3] / k))
    if "--registry-cost" in opts:
        row["registry_cost"] = {"instructions_alone": cost0, "instructions_with_storm": cost1}
        if cost0 and cost1:
            print("         bwsh's own instructions (callgrind, up to its exec of bwrap): %s with no live session,"
                  " %s with these %d live: %s per live session (the registry's count)"
                  % (format(cost0, ","), format(cost1, ","), len(started),
                     format(round((cost1 - cost0) / max(1, len(started))), ",")))
        else:
            print("         (callgrind of bwsh failed: no registry cost)")
    if perf:
        locks = perf_locks(opts["--perf-lock"])
        row["locks"] = [{"lock": k, "contended": c, "wait_ms": t, "max_ms": w} for k, c, t, w in locks]
        print("         kernel locks the storm waited for (perf lock contention): times contended, wait per session, longest")
        for k, c, t, w in locks[:8]:
            print("           %-78s %5d %8.1f ms %7.1f ms" % (k, c, t / n, w))
        if not locks:
            print("           (none recorded)")
    sys.stdout.flush()
    if "--json" in opts:
        row["failures"] = [{"session": i, "exit_status": rc, "stderr": msg} for i, rc, msg in failures]
        row["start_ms"] = starts
        with open(opts["--json"], "w") as f:
            json.dump(row, f)


main()
