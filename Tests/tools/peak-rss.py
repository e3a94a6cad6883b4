#!/usr/bin/env python3
"""Runs CMD (stdin, stdout and stderr passed through) and writes its peak resident
memory in KiB, from wait4's rusage, to REPORT. A child whose resident memory passes
KILL_MIB (read from /proc as it runs), or that still runs after DEADLINE seconds, is
killed with SIGKILL and REPORT says why, so a test of a runaway process ends.
Exits with the child's status (128 + signal when a signal ended it).
usage: peak-rss.py REPORT KILL_MIB DEADLINE CMD [ARG...]
"""
import os
import signal
import subprocess
import sys
import time


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    report, kill_mib, deadline = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    child = subprocess.Popen(sys.argv[4:])
    reason = "exited"
    end = time.monotonic() + deadline
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid == child.pid:
            break
        if rss_kib(child.pid) > kill_mib * 1024:
            reason = "killed: over the memory bound"
            os.kill(child.pid, signal.SIGKILL)
        elif time.monotonic() > end:
            reason = "killed: still running at the deadline"
            os.kill(child.pid, signal.SIGKILL)
        time.sleep(0.02)
    with open(report, "w") as f:
        f.write(f"{usage.ru_maxrss} {reason}\n")
    sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


main()
