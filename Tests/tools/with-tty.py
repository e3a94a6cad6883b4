#!/usr/bin/env python3
"""Run a command on a pseudo-terminal, answering each prompt that matches a word.

usage: with-tty.py WORD ANSWER... -- COMMAND...   (WORD matched case-insensitively)
With several answers, the prompts get them in turn (the last one repeats).
Prints everything the command wrote to the terminal; exits with its status.
A command still running after 600 s (a prompt that never came, or never took its
answer) is killed, and the run exits with the signal's status: the test fails rather
than waiting for ever.
"""
import os, pty, signal, sys, select, time

def main():
    split = sys.argv.index("--")
    word, answers = sys.argv[1].lower().encode(), [a.encode() + b"\n" for a in sys.argv[2:split]]
    command = sys.argv[split + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    seen, answered, deadline = b"", 0, time.time() + 600
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            seen += data
            # Answer each new prompt once.
            while seen.lower().count(word) > answered:
                answer = answers[min(answered, len(answers) - 1)]
                answered += 1
                time.sleep(0.05)
                os.write(fd, answer)
    done, status = os.waitpid(pid, os.WNOHANG)
    if done == 0:
        # Past the deadline, or the terminal closed while the command runs on.
        if time.time() >= deadline:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    sys.stdout.buffer.write(seen)
    sys.exit(os.waitstatus_to_exitcode(status))

main()
