#!/usr/bin/env python3
"""Session start, side by side: every command runs once per round, in a
shuffled order, so that drift on a shared machine hits all of them alike.
Prints the median wall time and CPU time (user + system of the command and
the children it waited for, which a busy machine inflates less) of each and,
for each baseline, the medians of the per-round ratios against it."""
import json, os, random, shlex, statistics, subprocess, sys, time

def run_once(cmd):
    """cmd: an argv list, or {"argv": [...], "open": {"9": "/file"}, "env": {...}}."""
    if isinstance(cmd, list):
        cmd = {"argv": cmd}
    argv = cmd["argv"]
    actions = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0)]
    for fd, path in cmd.get("open", {}).items():
        actions.append((os.POSIX_SPAWN_OPEN, int(fd), path, os.O_RDONLY, 0))
    env = cmd.get("env", os.environ)
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
    _, status, ru = os.wait4(pid, 0)
    dt = time.perf_counter_ns() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("command failed: %s" % shlex.join(argv))
    return dt, (ru.ru_utime + ru.ru_stime) * 1e9

def main():
    spec = json.load(open(sys.argv[1]))
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    cmds = spec["commands"]          # name -> argv
    bases = spec.get("baselines", [spec.get("baseline")])
    for name, argv in cmds.items():  # warm caches
        for _ in range(3):
            run_once(argv)
    times = {n: [] for n in cmds}
    cpu = {n: [] for n in cmds}
    for _ in range(rounds):
        order = list(cmds)
        random.shuffle(order)
        for n in order:
            wall, used = run_once(cmds[n])
            times[n].append(wall)
            cpu[n].append(used)
    out = {}
    print("%-34s %8s %8s" % ("command", "wall ms", "CPU ms")
          + "".join(" %20s" % ("/ " + b[:18]) for b in bases))
    print("%-34s %8s %8s" % ("", "", "") + " %20s" % "wall     CPU" * len(bases))
    for n in cmds:
        med, med_cpu = statistics.median(times[n]) / 1e6, statistics.median(cpu[n]) / 1e6
        out[n] = {"median_ms": round(med, 3), "median_cpu_ms": round(med_cpu, 3)}
        line = "%-34s %8.3f %8.3f" % (n, med, med_cpu)
        for b in bases:
            ratio = statistics.median(a / c for a, c in zip(times[n], times[b]))
            ratio_cpu = statistics.median(a / c for a, c in zip(cpu[n], cpu[b]) if c > 0)
            out[n]["paired_ratio_vs_" + b] = round(ratio, 3)
            out[n]["paired_cpu_ratio_vs_" + b] = round(ratio_cpu, 3)
            line += " %11.3f %8.3f" % (ratio, ratio_cpu)
        print(line)
    if len(sys.argv) > 3:
        json.dump(out, open(sys.argv[3], "w"), indent=2)

main()
