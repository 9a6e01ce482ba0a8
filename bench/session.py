#!/usr/bin/env python3
"""Session start, side by side: every command runs once per round, in a
shuffled order, so that drift on a shared machine hits all of them alike.
Prints the median wall time of each and, for each baseline, the median of
the per-round ratios against it."""
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
    _, status = os.waitpid(pid, 0)
    dt = time.perf_counter_ns() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("command failed: %s" % shlex.join(argv))
    return dt

def main():
    spec = json.load(open(sys.argv[1]))
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    cmds = spec["commands"]          # name -> argv
    bases = spec.get("baselines", [spec.get("baseline")])
    for name, argv in cmds.items():  # warm caches
        for _ in range(3):
            run_once(argv)
    times = {n: [] for n in cmds}
    for _ in range(rounds):
        order = list(cmds)
        random.shuffle(order)
        for n in order:
            times[n].append(run_once(cmds[n]))
    out = {}
    print("%-34s %10s" % ("command", "median ms") + "".join(" %14s" % ("/ " + b[:12]) for b in bases))
    for n in cmds:
        med = statistics.median(times[n]) / 1e6
        out[n] = {"median_ms": round(med, 3)}
        line = "%-34s %10.3f" % (n, med)
        for b in bases:
            ratio = statistics.median(a / c for a, c in zip(times[n], times[b]))
            out[n]["paired_ratio_vs_" + b] = round(ratio, 3)
            line += " %14.3f" % ratio
        print(line)
    if len(sys.argv) > 3:
        json.dump(out, open(sys.argv[3], "w"), indent=2)

main()
