#!/usr/bin/env python3
"""An S3 endpoint on 127.0.0.1 whose state the test sets in CONTROL_FILE, read as each
connection (and each chunk a client sends on it) arrives:
  up    - passes the connection through to 127.0.0.1:UPSTREAM_PORT (a real S3 store);
          without an upstream, only answers bucket listings (GET /BUCKET?list-type=2…)
          with an empty listing, which is what `vfs-relay serve` asks before it serves;
  hang  - reads what the client sends and never answers, holding the connection open (a
          store that hung); a connection passed through so far stops being answered;
  down  - resets the connection at once, before any answer (a store that went down
          behind a load balancer that still takes connections).
Without an upstream, bucket listings are answered in every state. Prints its port, then
serves until killed. Usage: fake-s3.py CONTROL_FILE [UPSTREAM_PORT]"""
import socket
import struct
import sys
import threading

LISTING = (b'<?xml version="1.0" encoding="UTF-8"?>\n'
           b'<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
           b'<Name>bucket</Name><Prefix></Prefix><KeyCount>0</KeyCount><MaxKeys>1</MaxKeys>'
           b'<IsTruncated>false</IsTruncated></ListBucketResult>')


def state(control):
    try:
        with open(control) as f:
            return f.read().strip() or "up"
    except OSError:
        return "up"


def reset(connection):
    try:
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    connection.close()


def hang(connection):
    try:
        while connection.recv(65536):
            pass
    except OSError:
        pass
    connection.close()


def head(connection):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            return None
        data += chunk
    return data.split(b"\r\n\r\n", 1)[0]


def answer_alone(connection, control):
    """No upstream: listings answered, everything else as the state says."""
    try:
        while True:
            request = head(connection)
            if request is None:
                connection.close()
                return
            line = request.split(b"\r\n", 1)[0]
            if line.startswith(b"GET ") and b"list-type=2" in line:
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: %d\r\n\r\n"
                                   % len(LISTING) + LISTING)
                continue
            if state(control) == "down":
                reset(connection)
            else:
                hang(connection)
            return
    except OSError:
        connection.close()


def pass_through(client, upstream_port, control):
    try:
        upstream = socket.create_connection(("127.0.0.1", upstream_port))
    except OSError:
        reset(client)
        return

    def answers():
        try:
            while True:
                data = upstream.recv(65536)
                if not data or state(control) != "up":
                    break
                client.sendall(data)
        except OSError:
            pass

    threading.Thread(target=answers, daemon=True).start()
    try:
        while True:
            data = client.recv(65536)
            if not data:
                break
            now = state(control)
            if now == "down":
                reset(client)
                break
            if now == "hang":
                upstream.close()
                hang(client)
                break
            upstream.sendall(data)
    except OSError:
        pass
    finally:
        for s in (client, upstream):
            try:
                s.close()
            except OSError:
                pass


def serve(connection, control, upstream_port):
    if upstream_port is None:
        answer_alone(connection, control)
        return
    now = state(control)
    if now == "down":
        reset(connection)
    elif now == "hang":
        hang(connection)
    else:
        pass_through(connection, upstream_port, control)


def main():
    control = sys.argv[1]
    upstream_port = int(sys.argv[2]) if len(sys.argv) > 2 else None
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection, control, upstream_port), daemon=True).start()


if __name__ == "__main__":
    main()
