#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that forwards to 127.0.0.1:TARGET at RATE bytes per second
each way, so a test can interrupt a transfer halfway. Prints its port, then serves until
killed. Usage: slow-proxy.py TARGET_PORT RATE"""
import socket
import sys
import threading
import time


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
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def main():
    target, rate = int(sys.argv[1]), float(sys.argv[2])
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print(listener.getsockname()[1], flush=True)
    while True:
        client, _ = listener.accept()
        upstream = socket.create_connection(("127.0.0.1", target))
        threading.Thread(target=pump, args=(client, upstream, rate), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client, rate), daemon=True).start()


if __name__ == "__main__":
    main()
