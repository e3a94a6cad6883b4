#!/usr/bin/env python3
"""Builds the seed corpora of `make fuzz`: OUT/TARGET/ for every fuzz target.

header, armor, bech32 and keyfile come from the CCTV age vectors (read in place, as the
conformance tests do); keychain, manifest, policy and relay-headers from Fuzz/seeds/ (files written by
the tools, and header values written by hand); and every target gets the crashers kept under Fuzz/crashers/.
Existing corpus files are kept, so a corpus grows from run to run.
usage: fuzz-seeds.py CCTV_FOLDER OUT
"""
import hashlib
import os
import sys
import zlib

TARGETS = ["header", "armor", "bech32", "keyfile", "keychain", "manifest", "policy", "relay-headers"]


def put(out, target, data):
    folder = os.path.join(out, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "seed-" + hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def vectors(folder):
    for name in sorted(os.listdir(folder)):
        data = open(os.path.join(folder, name), "rb").read()
        head, _, body = data.partition(b"\n\n")
        fields = [line.split(b":", 1) for line in head.split(b"\n")]
        fields = [(k.strip().decode(), v.strip()) for k, v in fields if v is not None]
        if (b"compressed", b"zlib") in [(k.encode(), v) for k, v in fields]:
            body = zlib.decompress(body)
        yield dict(fields), [v for k, v in fields if k == "identity"], body


def main():
    cctv, out = sys.argv[1], sys.argv[2]
    identities = set()
    for fields, ids, body in vectors(cctv):
        identities.update(ids)
        # The few vectors of megabytes (long payloads) would only slow every run down:
        # the fuzzers' inputs are capped at 64 KiB (fuzz.sh's -max_len).
        if len(body) > 65536:
            continue
        put(out, "header", body)
        if fields.get("armored") == b"yes":
            put(out, "armor", body)
    for identity in sorted(identities):
        put(out, "bech32", identity)
        put(out, "keyfile", b"# created: 2026-11-23T00:00:00Z\n" + identity + b"\n")
    seeds = os.path.join(os.path.dirname(__file__), "..", "Fuzz", "seeds")
    for target in sorted(os.listdir(seeds)):
        for name in sorted(os.listdir(os.path.join(seeds, target))):
            put(out, target, open(os.path.join(seeds, target, name), "rb").read())
    crashers = os.path.join(os.path.dirname(__file__), "..", "Fuzz", "crashers")
    if os.path.isdir(crashers):
        for target in sorted(os.listdir(crashers)):
            for name in sorted(os.listdir(os.path.join(crashers, target))):
                put(out, target, open(os.path.join(crashers, target, name), "rb").read())
    for target in TARGETS:
        os.makedirs(os.path.join(out, target), exist_ok=True)
        print(f"{target}: {len(os.listdir(os.path.join(out, target)))} inputs")


main()
