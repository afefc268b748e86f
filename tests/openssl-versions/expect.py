#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Expected outputs for the openssl command-line checks of run.sh, from
hashlib and tests/python/keccak_ref.py (not from ksumprov).

Usage: expect.py FILE QUERY...  prints one line "QUERY HEX" per query:
  NAME          the digest at ksumprov's default output length
  NAME:LEN      LEN bytes of the digest (an XOF)
  KMAC128:LEN:XOF:KEYHEX:CUSTOM   (XOF 0 or 1; CUSTOM as text)
An unknown name prints "QUERY ?"."""
import hashlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import keccak_ref as ref  # noqa: E402

# name: (function of (data, outlen), default length or None for fixed)
DIGESTS = {}


def add(names, fn, default):
    for n in names:
        DIGESTS[n] = (fn, default)


for bits in (224, 256, 384, 512):
    add([f"SHA3-{bits}"], lambda d, n, b=bits: hashlib.new(f"sha3_{b}", d).digest(), None)
    add([f"KECCAK-{bits}"], lambda d, n, b=bits: ref.sponge(d, 200 - b // 4, 24, 0x01, b // 8), None)
for s in (128, 256):
    add([f"SHAKE{s}", f"SHAKE-{s}"], lambda d, n, s=s: hashlib.new(f"shake_{s}", d).digest(n), s // 8)
    add([f"RAWSHAKE{s}", f"RAWSHAKE-{s}"], lambda d, n, s=s: ref.sponge(d, 200 - s // 4, 24, 0x07, n), s // 8)
    add([f"CSHAKE{s}", f"CSHAKE-{s}"], lambda d, n, s=s: ref.cshake(s, d, n), s // 8)
    add([f"PARALLELHASH{s}", f"PARALLELHASH-{s}"], lambda d, n, s=s: ref.parallelhash(s, d, n), s // 8)
    add([f"TURBOSHAKE{s}", f"TURBOSHAKE-{s}"], lambda d, n, s=s: ref.turboshake(s, d, 0x1F, n), s // 4)
add(["KANGAROOTWELVE", "KT128", "KT-128", "K12"], lambda d, n: ref.kt128(d, b"", n), 16)
add(["KT256", "KT-256"], lambda d, n: ref.kt256(d, b"", n), 64)
add(["MARSUPILAMIFOURTEEN", "M14"], lambda d, n: ref.m14(d, b"", n), 32)


def answer(query, data):
    parts = query.split(":")
    name = parts[0].upper()
    if name.replace("-", "") in ("KMAC128", "KMAC256"):
        strength = int(name[-3:])
        outlen, xof, key, custom = int(parts[1]), parts[2] == "1", bytes.fromhex(parts[3]), parts[4]
        return ref.kmac(strength, key, data, outlen, custom.encode(), xof).hex()
    if name not in DIGESTS:
        return "?"
    fn, default = DIGESTS[name]
    outlen = int(parts[1]) if len(parts) > 1 else default
    return fn(data, outlen).hex()


def main():
    data = open(sys.argv[1], "rb").read()
    for q in sys.argv[2:]:
        print(q, answer(q, data))


if __name__ == "__main__":
    main()
