#!/usr/bin/env python3
"""tus 1.0 against a live relay with tuspy (pinned from PyPI, `make deps`) and requests
(which tuspy brings): the checksum extension, Tus-Resumable on every answer but OPTIONS
(the refusals too), X-HTTP-Method-Override.

Usage: tus-conformance.py BASE-URL TOKEN. Prints "ok CHECK" per check and "upload NAME ID"
for the uploads the caller reads back; the first failed check prints "FAIL CHECK: why"
and exits 1.
"""
import hashlib
import io
import sys

import requests
from tusclient import client as tus_client
from tusclient.exceptions import TusCommunicationError
from tusclient.uploader import Uploader

base, token = sys.argv[1], sys.argv[2]
uploads = base + "/v1/uploads"
auth = {"Authorization": "Bearer " + token}
tus = {"Tus-Resumable": "1.0.0"}
client = tus_client.TusClient(uploads, headers=dict(auth))


def check(name, condition, detail=""):
    if not condition:
        print(f"FAIL {name}: {detail}", flush=True)
        sys.exit(1)
    print(f"ok {name}", flush=True)


def content(seed, size):
    return bytes((i * 7 + seed) % 251 for i in range(size))


def offset(url):
    answer = requests.head(url, headers={**auth, **tus})
    return int(answer.headers.get("Upload-Offset", "-1"))


# Discovery: the checksum extension and its algorithms (sha1 is what tus requires and tuspy sends).
answer = requests.options(uploads)
check("OPTIONS lists the checksum extension", "checksum" in answer.headers.get("Tus-Extension", "").split(","), answer.headers)
algorithms = answer.headers.get("Tus-Checksum-Algorithm", "").split(",")
check("Tus-Checksum-Algorithm has sha1 and sha256", "sha1" in algorithms and "sha256" in algorithms, answer.headers)

# tuspy's own checksums (sha1 of each PATCH), three PATCHes.
data = content(1, 250_000)
uploader = client.uploader(file_stream=io.BytesIO(data), chunk_size=100_000, upload_checksum=True)
uploader.upload()
check("tuspy sha1 upload in three checked PATCHes", uploader.offset == len(data) and offset(uploader.url) == len(data))
print("upload sha1", uploader.url.rsplit("/", 1)[1], flush=True)


class SHA256Uploader(Uploader):
    CHECKSUM_ALGORITHM_PAIR = ("sha256", hashlib.sha256)


data = content(2, 150_000)
uploader = SHA256Uploader(file_stream=io.BytesIO(data), client=client, chunk_size=64_000, upload_checksum=True)
uploader.upload()
check("tuspy sha256 upload", offset(uploader.url) == len(data))
print("upload sha256", uploader.url.rsplit("/", 1)[1], flush=True)

# A PATCH whose checksum does not match: 460, its bytes discarded, the offset unchanged;
# the upload then resumes from there and ends whole.
calls = []


def lying_sha1(chunk):
    calls.append(len(chunk))
    return hashlib.sha1(chunk if len(calls) != 2 else chunk + b"!")


class LyingUploader(Uploader):
    CHECKSUM_ALGORITHM_PAIR = ("sha1", lying_sha1)


data = content(3, 200_000)
uploader = LyingUploader(file_stream=io.BytesIO(data), client=client, chunk_size=80_000, upload_checksum=True)
try:
    uploader.upload()
    check("a wrong checksum is refused", False, "the upload went through")
except TusCommunicationError as error:
    check("a wrong checksum is 460 Checksum Mismatch", error.status_code == 460, (error.status_code, error.response_content))
headers = uploader.request.response_headers
check("460 carries Tus-Resumable", headers.get("tus-resumable") == "1.0.0", headers)
check("460 leaves the offset at the last good PATCH", offset(uploader.url) == 80_000, offset(uploader.url))
resumed = client.uploader(file_stream=io.BytesIO(data), url=uploader.url, chunk_size=80_000, upload_checksum=True)
check("tuspy resumes from the offset", resumed.offset == 80_000, resumed.offset)
resumed.upload()
check("the resumed upload ends whole", offset(uploader.url) == len(data))
print("upload mismatch", uploader.url.rsplit("/", 1)[1], flush=True)


class MD5Uploader(Uploader):
    CHECKSUM_ALGORITHM_PAIR = ("md5", hashlib.md5)


uploader = MD5Uploader(file_stream=io.BytesIO(content(4, 1000)), client=client, upload_checksum=True)
try:
    uploader.upload()
    check("an algorithm the relay lacks is refused", False, "the upload went through")
except TusCommunicationError as error:
    check("an algorithm the relay lacks is 400", error.status_code == 400, error.status_code)
check("... and nothing was written", offset(uploader.url) == 0)

# Tus-Resumable on every answer but OPTIONS, the refusals included.
url = client.uploader(file_stream=io.BytesIO(content(5, 1000)), chunk_size=1000).create_url()
patch = {**auth, **tus, "Content-Type": "application/offset+octet-stream"}
refusals = [
    ("401 without a token", 401, requests.head(url, headers=tus)),
    ("404 of no such upload", 404, requests.head(uploads + "/nosuchupload", headers={**auth, **tus})),
    ("409 at a wrong offset", 409, requests.patch(url, headers={**patch, "Upload-Offset": "5"}, data=b"x")),
    ("412 without Tus-Resumable", 412, requests.head(url, headers=auth)),
    ("413 past Tus-Max-Size", 413, requests.post(uploads, headers={**auth, **tus, "Upload-Length": str(10**18)})),
    ("415 of another body type", 415, requests.patch(url, headers={**patch, "Upload-Offset": "0", "Content-Type": "text/plain"}, data=b"x")),
    ("405 of a method an upload lacks", 405, requests.get(url, headers={**auth, **tus})),
]
for name, status, answer in refusals:
    check(name, answer.status_code == status and answer.headers.get("Tus-Resumable") == "1.0.0",
          (answer.status_code, dict(answer.headers)))

# X-HTTP-Method-Override: a POST is the method it names.
data = content(6, 1000)
answer = requests.post(url, headers={**patch, "Upload-Offset": "0", "X-HTTP-Method-Override": "PATCH"}, data=data)
check("POST overridden as PATCH appends", answer.status_code == 204 and answer.headers.get("Upload-Offset") == "1000",
      (answer.status_code, answer.text))
answer = requests.post(url, headers={**auth, **tus, "X-HTTP-Method-Override": "HEAD"})
check("POST overridden as HEAD tells the offset", answer.status_code == 200 and answer.headers.get("Upload-Offset") == "1000",
      (answer.status_code, dict(answer.headers)))
answer = requests.post(url, headers={**auth, **tus})
check("POST without an override is 405", answer.status_code == 405 and answer.headers.get("Tus-Resumable") == "1.0.0",
      answer.status_code)
answer = requests.post(url, headers={**auth, **tus, "X-HTTP-Method-Override": "DELETE"})
check("POST overridden as DELETE removes the upload", answer.status_code == 204, (answer.status_code, answer.text))
check("... which is gone", requests.head(url, headers={**auth, **tus}).status_code == 404)
