#!/usr/bin/env python3
"""Runs CMD (stdin, stdout and stderr passed through) and writes its peak resident
memory in KiB and the bytes it wrote to files (both from wait4's rusage: ru_maxrss,
ru_oublock x 512, counted as the pages are written, even of a file removed before it
reached the disk) to REPORT, as "KIB BYTES REASON". A child whose resident memory or
bytes written pass KILL_MIB (read from /proc as it runs), or that still runs after
DEADLINE seconds, is killed with SIGKILL and REPORT says why, so a test of a runaway
process ends (and does not fill the disk).
Exits with the child's status (128 + signal when a signal ended it).
usage: peak-rss.py REPORT KILL_MIB DEADLINE CMD [ARG...]
"""
import os
import signal
import subprocess
import sys
import time


def proc_number(pid, name, key):
    """The number after KEY in /proc/PID/NAME (status: VmRSS in KiB; io: write_bytes)."""
    try:
        with open(f"/proc/{pid}/{name}") as f:
            for line in f:
                if line.startswith(key + ":"):
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
        if proc_number(child.pid, "status", "VmRSS") > kill_mib * 1024:
            reason = "killed: over the memory bound"
            os.kill(child.pid, signal.SIGKILL)
        elif proc_number(child.pid, "io", "write_bytes") > kill_mib * 1024 * 1024:
            reason = "killed: over the bound of bytes written"
            os.kill(child.pid, signal.SIGKILL)
        elif time.monotonic() > end:
            reason = "killed: still running at the deadline"
            os.kill(child.pid, signal.SIGKILL)
        time.sleep(0.02)
    with open(report, "w") as f:
        f.write(f"{usage.ru_maxrss} {usage.ru_oublock * 512} {reason}\n")
    sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


main()
