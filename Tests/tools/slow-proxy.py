#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that forwards to 127.0.0.1:TARGET at RATE bytes per second
each way, so a test can interrupt a transfer halfway. Prints its port, then serves until
killed. Usage: slow-proxy.py TARGET_PORT RATE"""
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
            time.sleep(len(data) / rate)
    except OSError:
        pass
    finally:
        tcpproxy.close(src, dst)


def main():
    target, rate = int(sys.argv[1]), float(sys.argv[2])

    def start(client, upstream):
        threading.Thread(target=pump, args=(client, upstream, rate), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client, rate), daemon=True).start()

    tcpproxy.serve(target, start)


if __name__ == "__main__":
    main()
