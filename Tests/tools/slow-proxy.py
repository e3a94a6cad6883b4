#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that forwards to 127.0.0.1:TARGET at RATE bytes per second
each way (0: as fast as it comes), so a test can interrupt a transfer halfway; with
DROPS, the first DROPS connections are closed unanswered (reset) as soon as their request
starts arriving, and COUNT_FILE holds how many connections it accepted; with CUTS, the
first CUTS answers that pass CUT_AFTER bytes are cut there (both sides closed, so the
client sees its answer end midway), counting the bytes a connection carries once the
file COUNT_FILE.armed exists, and COUNT_FILE.cuts holds how many were. Prints its
port, then serves until killed.
Usage: slow-proxy.py TARGET_PORT RATE [DROPS COUNT_FILE [CUTS CUT_AFTER]]"""
import os
import socket
import sys
import threading
import time

import tcpproxy


def write_count(path, value):
    with open(path + ".tmp", "w") as f:
        f.write(str(value))
    os.replace(path + ".tmp", path)


def pump(src, dst, rate, cut=None):
    """cut: a function of the bytes this direction has carried since the cuts were armed
    and of the next piece's length, that says how many of it to carry before closing
    (None: all, and go on), and whether the cuts are armed (the piece then counts)."""
    carried = 0
    try:
        while True:
            data = src.recv(16384)
            if not data:
                break
            keep, armed = cut(carried, len(data)) if cut else (None, False)
            if armed:
                carried += len(data)
            if keep is not None:
                dst.sendall(data[:keep])
                # Linger 0: the connection is reset midway through the answer; the shutdown
                # wakes the thread reading the other way (a close alone would not).
                dst.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                tcpproxy.close(src, dst)
                dst.close()
                src.close()
                return
            dst.sendall(data)
            if rate > 0:
                time.sleep(len(data) / rate)
    except OSError:
        pass
    finally:
        tcpproxy.close(src, dst)


def main():
    target, rate = int(sys.argv[1]), float(sys.argv[2])
    drops, count_file = (int(sys.argv[3]), sys.argv[4]) if len(sys.argv) > 4 else (0, None)
    cuts, cut_after = (int(sys.argv[5]), int(sys.argv[6])) if len(sys.argv) > 6 else (0, 0)
    accepted = 0
    cut_count = 0
    lock = threading.Lock()

    def cut(carried, arriving):
        nonlocal cut_count
        if not os.path.exists(count_file + ".armed"):
            return None, False
        if carried + arriving <= cut_after:
            return None, True
        with lock:
            if cut_count >= cuts:
                return None, True
            cut_count += 1
            write_count(count_file + ".cuts", cut_count)
        return cut_after - carried, True

    def admit(client):
        nonlocal accepted
        accepted += 1
        if count_file:
            write_count(count_file, accepted)
        if accepted > drops:
            return True
        try:
            client.recv(1)
        except OSError:
            pass
        # Linger 0: the close resets the connection.
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        client.close()
        return False

    def start(client, upstream):
        threading.Thread(target=pump, args=(client, upstream, rate), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client, rate, cut if cuts else None), daemon=True).start()

    tcpproxy.serve(target, start, admit)


if __name__ == "__main__":
    main()
