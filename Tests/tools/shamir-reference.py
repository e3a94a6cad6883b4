#!/usr/bin/env python3
"""An independent reference for vfs-keychain escrow (Sources/VFSCore/Escrow): Shamir's
secret sharing over GF(2^8) with the AES polynomial x^8+x^4+x^3+x+1 (0x11B), written
another way than the Swift code (log and antilog tables over the generator 3, where
Swift multiplies bit by bit), so the tests can check one against the other.

  shamir-reference.py split SECRET_HEX COUNT ROW_HEX...   the shares' values, one hex line each
  shamir-reference.py combine INDEX:HEX...                 the secret, in hex
  shamir-reference.py shares SECRET_HEX SPLIT_HEX COUNT ROW_HEX...
                                                           the escrow share texts, one after the other

A ROW is the coefficient of x^(j+1) for every byte of what is shared; for `shares`
that is the secret followed by the first 16 bytes of its SHA-256.
"""
import base64
import hashlib
import sys

EXP = [0] * 510
LOG = [0] * 256
value = 1
for power in range(255):
    EXP[power] = value
    LOG[value] = power
    doubled = value << 1
    if doubled & 0x100:
        doubled ^= 0x11B
    value = doubled ^ value  # times 3 = times 2 plus itself
for power in range(255, 510):
    EXP[power] = EXP[power - 255]


def mul(a, b):
    return 0 if a == 0 or b == 0 else EXP[LOG[a] + LOG[b]]


def div(a, b):
    assert b != 0
    return 0 if a == 0 else EXP[(LOG[a] - LOG[b]) % 255]


def evaluate(coefficients, x):
    """Sum of c_j x^j, constant first, by powers (Swift uses Horner's rule)."""
    total, power = 0, 1
    for coefficient in coefficients:
        total ^= mul(coefficient, power)
        power = mul(power, x)
    return total


def split(secret, count, rows):
    assert all(len(row) == len(secret) for row in rows) and len(rows) < count <= 255
    return [bytes(evaluate([secret[b]] + [row[b] for row in rows], x) for b in range(len(secret)))
            for x in range(1, count + 1)]


def combine(points):
    out = []
    for b in range(len(points[0][1])):
        total = 0
        for i, (xi, yi) in enumerate(points):
            weight = 1
            for j, (xj, _) in enumerate(points):
                if j != i:
                    weight = mul(weight, div(xj, xj ^ xi))
            total ^= mul(yi[b], weight)
        out.append(total)
    return bytes(out)


def share_texts(secret, split_id, count, rows):
    payload = secret + hashlib.sha256(secret).digest()[:16]
    values = split(payload, count, rows)
    return "".join(
        "vfs-escrow-share v1\n"
        f"split: {split_id.hex()}\n"
        f"share: {index} of {count}\n"
        f"threshold: {len(rows) + 1}\n"
        f"value: {base64.b64encode(value).decode()}\n"
        for index, value in enumerate(values, start=1))


def main(argv):
    command = argv[1]
    if command == "split":
        for value in split(bytes.fromhex(argv[2]), int(argv[3]), [bytes.fromhex(row) for row in argv[4:]]):
            print(value.hex())
    elif command == "combine":
        points = [(int(index), bytes.fromhex(data)) for index, data in (arg.split(":") for arg in argv[2:])]
        print(combine(points).hex())
    elif command == "shares":
        sys.stdout.write(share_texts(bytes.fromhex(argv[2]), bytes.fromhex(argv[3]), int(argv[4]),
                                     [bytes.fromhex(row) for row in argv[5:]]))
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv)
