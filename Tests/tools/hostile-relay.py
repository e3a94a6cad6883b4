#!/usr/bin/env python3
"""A fake, hostile vfs relay on 127.0.0.1 (port 0) for the clients' end-to-end tests.
Prints "hostile relay listening on 127.0.0.1:PORT", then serves until killed. Any token
is accepted. MODE picks the attack:

  traversal   the inbox lists a transfer whose id is "../../victim/taxes"; the cloud
              root lists a file "f.age" whose SHA-256 is "../../victim/taxes"
  digests     ids are fine, but the transfer's and the cloud file's SHA-256 are not
              64 lowercase hex digits
  events      the inbox is empty; GET /v1/events sends one endless line
  json        GET /v1/inbox and GET /v1/cloud answer an endless JSON body
  uploading   the inbox lists a transfer still uploading (no size, no SHA-256 yet) whose
              content is an endless stream of random bytes
  sealed      the inbox lists a transfer still uploading whose content is FILE (a real
              sealed bundle, say), then the end of the body
  long        the inbox lists a finished transfer of 5 bytes (CONTENT's size and SHA-256)
              whose content is an endless stream of random bytes

Content routes serve CONTENT (5 bytes) whatever is asked. Everything else is 404.
With UPSTREAM (a real relay's URL), GET /v1/chain and /v1/devices are its answers (the
client's token passed on), so the client's device chain verifies and the attack is what
comes after.
usage: hostile-relay.py MODE [UPSTREAM [FILE]]
"""
import json
import os
import sys
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1]
UPSTREAM = sys.argv[2] if len(sys.argv) > 2 else None
FILE = sys.argv[3] if len(sys.argv) > 3 else None
CONTENT = b"hello"
GOOD_ID = "0123456789abcdef0123456789abcdef"
SENDER = "fedcba9876543210fedcba9876543210"
GOOD_SHA = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"  # of CONTENT
TRAVERSAL = "../../victim/taxes"
DATE = "2026-11-26T12:00:00Z"
LATER = "2099-01-01T00:00:00Z"


def inbox():
    if MODE == "events":
        return []
    transfer = {"id": GOOD_ID, "sender": SENDER, "size": len(CONTENT), "sha256": GOOD_SHA,
                "created": DATE, "expires": LATER, "status": "unattended"}
    if MODE == "traversal":
        transfer["id"] = TRAVERSAL
    if MODE == "digests":
        transfer["sha256"] = "2CF24DBA\x1b[2J"
    if MODE in ("uploading", "sealed"):
        transfer.update(size=0, sha256="", status="uploading")
    return [transfer]


def cloud_root():
    entry = {"id": GOOD_ID, "name": "f.age", "path": "/f.age", "kind": "file", "size": len(CONTENT),
             "sha256": GOOD_SHA, "created": DATE, "updated": DATE}
    if MODE == "traversal":
        entry["sha256"] = TRAVERSAL
    if MODE == "digests":
        entry["sha256"] = "g" * 64
    return [entry]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def endless(self, content_type, first, piece):
        """An answer without a length that never ends (until the client hangs up)."""
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            self.wfile.write(first)
            while True:
                self.wfile.write(piece)
        except OSError:
            pass

    def whole_file(self):
        """FILE's bytes, without a length: the body's end is the end."""
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            with open(FILE, "rb") as f:
                while piece := f.read(65536):
                    self.wfile.write(piece)
        except OSError:
            pass

    def forward(self):
        request = urllib.request.Request(UPSTREAM + self.path, headers={"Authorization": self.headers.get("Authorization", "")})
        try:
            with urllib.request.urlopen(request) as answer:
                return self.answer(answer.status, answer.read())
        except urllib.error.HTTPError as error:
            return self.answer(error.code, error.read())

    def do_GET(self):
        path = self.path.split("?")[0]
        if UPSTREAM and path in ("/v1/chain", "/v1/devices"):
            return self.forward()
        if MODE in ("uploading", "long") and path.startswith("/v1/transfers/") and path.endswith("/content"):
            return self.endless("application/octet-stream", b"", os.urandom(65536))
        if MODE == "sealed" and path.startswith("/v1/transfers/") and path.endswith("/content"):
            return self.whole_file()
        if path == "/v1/inbox":
            if MODE == "json":
                return self.endless("application/json", b'[{"id":"', b"a" * 65536)
            return self.answer(200, json.dumps(inbox()).encode())
        if path == "/v1/cloud":
            if MODE == "json":
                return self.endless("application/json", b'[{"id":"', b"a" * 65536)
            return self.answer(200, json.dumps(cloud_root()).encode())
        if path == "/v1/devices":
            return self.answer(200, b"[]")
        if path == "/v1/events":
            if MODE == "events":
                return self.endless("text/event-stream", b"data: ", b"x" * 65536)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            return
        if path.startswith("/v1/transfers/") and path.endswith("/content") or path.startswith("/v1/cloud/"):
            return self.answer(200, CONTENT, "application/octet-stream")
        self.answer(404, json.dumps({"error": "not_found", "message": "no such route"}).encode())

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self.answer(404, json.dumps({"error": "not_found", "message": "no such route"}).encode())

    do_PUT = do_PATCH = do_DELETE = do_POST


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"hostile relay listening on 127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


main()
