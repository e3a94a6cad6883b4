"""What the test proxies of Tests/tools share: listen on 127.0.0.1 (port 0), print the
port, and for each client `admit` lets in (all without one) connect to 127.0.0.1:TARGET
and run `start(client, upstream)` (which starts the threads that pump the bytes), or
close the client if TARGET refuses; serve until killed."""
import socket


def close(*sockets):
    for s in sockets:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(target, start, admit=None):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print(listener.getsockname()[1], flush=True)
    while True:
        client, _ = listener.accept()
        if admit is not None and not admit(client):
            continue
        try:
            upstream = socket.create_connection(("127.0.0.1", target))
        except OSError:
            # The target is down (a relay restarting): the client's connection closes
            # unanswered, as behind a proxy whose upstream is gone; the proxy stays.
            close(client)
            client.close()
            continue
        start(client, upstream)
