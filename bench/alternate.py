#!/usr/bin/env python3
"""Times shell commands against each other, alternating them run by run.

The machine is shared and noisy: running all of one tool's runs and then all of the
other's would charge a burst of load to one of them. Here each round runs every
command once, in an order that rotates from round to round, after one warm-up run
each. Prints, per command: the median wall time, the spread (min-max), the peak RSS
of the largest process of the pipeline, the ratio of the first command's median
to this one's (> 1.00x: faster than the first), and the same for the median CPU
time (user + system) of the whole pipeline, which a loaded machine disturbs less.

usage: alternate.py LABEL RUNS BYTES NAME=COMMAND [NAME=COMMAND ...]
"""
import os
import statistics
import subprocess
import sys
import time


def run_once(command):
    start = time.perf_counter()
    proc = subprocess.Popen(["bash", "-c", "set -o pipefail; " + command],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if proc.returncode != 0:
        sys.exit(f"command failed ({proc.returncode}): {command}\n{err}")
    # The rusage of a reaped shell covers its reaped children: ru_maxrss is the
    # pipeline's largest process, the CPU times are the whole pipeline's.
    return elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def main():
    label, runs, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    commands = [arg.split("=", 1) for arg in sys.argv[4:]]
    times = {name: [] for name, _ in commands}
    rss = {name: 0.0 for name, _ in commands}
    cpu = {name: [] for name, _ in commands}
    for _, command in commands:
        run_once(command)
    for round_ in range(runs):
        order = commands[round_ % len(commands):] + commands[:round_ % len(commands)]
        for name, command in order:
            elapsed, peak, seconds = run_once(command)
            times[name].append(elapsed)
            cpu[name].append(seconds)
            rss[name] = max(rss[name], peak)
    base = statistics.median(times[commands[0][0]])
    base_cpu = statistics.median(cpu[commands[0][0]])
    for name, _ in commands:
        t = times[name]
        median = statistics.median(t)
        c = statistics.median(cpu[name])
        print(f"{label:<22} {name:<5} {median:8.3f} s  ({min(t):.3f}-{max(t):.3f})"
              f" {size / median / 1e6:7.0f} MB/s {rss[name]:7.1f} MiB  {base / median:5.2f}x"
              f" {c:7.3f} s {base_cpu / c:5.2f}x")


if __name__ == "__main__":
    main()
