#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 to 127.0.0.1:TARGET that holds uploads at a gate the test
moves: the bodies of PATCH requests (tus uploads) pass only while the PATCH bytes
forwarded so far, over every connection, stay within the number in CONTROL_FILE (-1:
no limit); every other request passes at once. So a test holds a push's upload part way,
deterministically, and lets it go by writing -1. Prints its port, then serves until
killed. Usage: gate-proxy.py TARGET_PORT CONTROL_FILE

A request starts with the first bytes a client sends after the server answered the
one before (HTTP/1.1 without pipelining, as the relay's clients speak it)."""
import sys
import threading
import time

import tcpproxy

lock = threading.Lock()
patch_bytes = 0


def budget(control):
    try:
        with open(control) as f:
            return int(f.read().strip() or "-1")
    except (OSError, ValueError):
        return -1


class Connection:
    def __init__(self):
        self.request_starts = True
        self.is_patch = False


def upstream(src, dst, state, control):
    global patch_bytes
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if state.request_starts:
                state.is_patch = data.startswith(b"PATCH ")
                state.request_starts = False
            while data:
                if not state.is_patch:
                    dst.sendall(data)
                    break
                limit = budget(control)
                with lock:
                    room = len(data) if limit < 0 else max(0, limit - patch_bytes)
                    part = data[:room]
                    patch_bytes += len(part)
                if part:
                    dst.sendall(part)
                    data = data[len(part):]
                if data:
                    time.sleep(0.02)
    except OSError:
        pass
    finally:
        tcpproxy.close(src, dst)


def downstream(src, dst, state):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            state.request_starts = True
            dst.sendall(data)
    except OSError:
        pass
    finally:
        tcpproxy.close(src, dst)


def main():
    target, control = int(sys.argv[1]), sys.argv[2]

    def start(client, server):
        state = Connection()
        threading.Thread(target=upstream, args=(client, server, state, control), daemon=True).start()
        threading.Thread(target=downstream, args=(server, client, state), daemon=True).start()

    tcpproxy.serve(target, start)


if __name__ == "__main__":
    main()
