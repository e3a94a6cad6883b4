#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that forwards to 127.0.0.1:TARGET at RATE bytes per second
each way (0: as fast as it comes), so a test can interrupt a transfer halfway; with
DROPS, the first DROPS connections are closed unanswered (reset) as soon as their request
starts arriving, and COUNT_FILE holds how many connections it accepted. Prints its port,
then serves until killed. Usage: slow-proxy.py TARGET_PORT RATE [DROPS COUNT_FILE]"""
import os
import socket
import sys
import threading
import time

import tcpproxy


def pump(src, dst, rate):
    try:
        while True:
            data = src.recv(16384)
            if not data:
                break
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
    accepted = 0

    def admit(client):
        nonlocal accepted
        accepted += 1
        if count_file:
            with open(count_file + ".tmp", "w") as f:
                f.write(str(accepted))
            os.replace(count_file + ".tmp", count_file)
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
        threading.Thread(target=pump, args=(upstream, client, rate), daemon=True).start()

    tcpproxy.serve(target, start, admit)


if __name__ == "__main__":
    main()
