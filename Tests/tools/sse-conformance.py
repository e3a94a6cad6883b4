#!/usr/bin/env python3
"""The relay's event stream read by sseclient-py, a client nobody here wrote.

Usage: sse-conformance.py BASE_URL TOKEN COUNT
Reads the first COUNT events of a new stream (the relay replays the stored ones), then
opens a second stream with Last-Event-ID set to the first event's id and reads COUNT-1.
Prints one line per event: "first ID EVENT DATA" or "resumed ID EVENT DATA".
The whole run has a deadline (keep-alive comments would renew a read timeout forever), so
a stream that never sends what is expected fails the run instead of hanging it.
"""
import os
import sys
import threading

import requests
import sseclient


def read(base, token, count, last_id=None):
    headers = {"Authorization": "Bearer " + token, "Accept": "text/event-stream"}
    if last_id is not None:
        headers["Last-Event-ID"] = last_id
    with requests.get(base + "/v1/events", headers=headers, stream=True, timeout=(10, 30)) as answer:
        if answer.status_code != 200:
            sys.exit("GET /v1/events: %d %s" % (answer.status_code, answer.text[:200]))
        events = []
        for event in sseclient.SSEClient(answer).events():
            events.append(event)
            if len(events) == count:
                break
        return events


def give_up(*_):
    # Out at once: an exception could wait on the stream's close.
    sys.stdout.flush()
    sys.stderr.write("sse-conformance: not every expected event came in 60 s\n")
    os._exit(1)


def main():
    # A timer thread, not SIGALRM: the test runner may start us with signals blocked.
    threading.Timer(60, give_up).start()
    base, token, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    first = read(base, token, count)
    for event in first:
        print("first", event.id, event.event, event.data.replace("\n", " "))
    resumed = read(base, token, count - 1, last_id=first[0].id)
    for event in resumed:
        print("resumed", event.id, event.event, event.data.replace("\n", " "))
    sys.stdout.flush()
    os._exit(0)  # the timer thread would keep the process for its 60 s


if __name__ == "__main__":
    main()
