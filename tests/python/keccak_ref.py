# SPDX-License-Identifier: Apache-2.0
"""Straightforward reference implementations, independent of the C code.

Keccak-p[1600, n] is written from FIPS 202's step mappings (theta, rho, pi,
chi, iota as index formulas, not unrolled), the sponge and the tree modes
from ALGORITHMS.md's definitions.  It is slow and only meant for small
inputs.  It is validated against hashlib (SHA3, 24 rounds) and the official
KangarooTwelve and RFC 9861 values (12 rounds) in test_reference.py, which
is what lets it stand as the oracle for MarsupilamiFourteen (14 rounds),
which has no published vectors.
"""

MASK = (1 << 64) - 1


def _rc(t):
    """Round-constant bit rc(t) from the LFSR of FIPS 202, algorithm 5."""
    if t % 255 == 0:
        return 1
    r = [1, 0, 0, 0, 0, 0, 0, 0]
    for _ in range(t % 255):
        r = [0] + r
        r[0] ^= r[8]
        r[4] ^= r[8]
        r[5] ^= r[8]
        r[6] ^= r[8]
        r = r[:8]
    return r[0]


def _round_constant(ir):
    rc = 0
    for j in range(7):
        rc |= _rc(j + 7 * ir) << ((1 << j) - 1)
    return rc


ROUND_CONSTANTS = [_round_constant(i) for i in range(24)]


def _rho_offsets():
    off = [[0] * 5 for _ in range(5)]
    x, y = 1, 0
    for t in range(24):
        off[x][y] = ((t + 1) * (t + 2) // 2) % 64
        x, y = y, (2 * x + 3 * y) % 5
    return off


RHO = _rho_offsets()


def _rol(v, n):
    n %= 64
    return ((v << n) | (v >> (64 - n))) & MASK if n else v


def keccak_p(lanes, rounds):
    """lanes[x][y]; runs rounds 24 - rounds .. 23."""
    a = [row[:] for row in lanes]
    for ir in range(24 - rounds, 24):
        c = [a[x][0] ^ a[x][1] ^ a[x][2] ^ a[x][3] ^ a[x][4] for x in range(5)]
        d = [c[(x - 1) % 5] ^ _rol(c[(x + 1) % 5], 1) for x in range(5)]
        a = [[a[x][y] ^ d[x] for y in range(5)] for x in range(5)]
        b = [[0] * 5 for _ in range(5)]
        for x in range(5):
            for y in range(5):
                b[y][(2 * x + 3 * y) % 5] = _rol(a[x][y], RHO[x][y])
        a = [[b[x][y] ^ ((~b[(x + 1) % 5][y]) & b[(x + 2) % 5][y])
              for y in range(5)] for x in range(5)]
        a[0][0] ^= ROUND_CONSTANTS[ir]
    return a


def sponge(msg, rate, rounds, domain, outlen):
    state = [[0] * 5 for _ in range(5)]
    padded = bytearray(msg)
    padded.append(domain)
    while len(padded) % rate:
        padded.append(0)
    padded[-1] ^= 0x80

    def xor_block(block):
        for i in range(rate // 8):
            x, y = i % 5, i // 5
            state[x][y] ^= int.from_bytes(block[8 * i:8 * i + 8], "little")

    for off in range(0, len(padded), rate):
        xor_block(padded[off:off + rate])
        state = keccak_p(state, rounds)
    out = bytearray()
    while True:
        for i in range(rate // 8):
            out += state[i % 5][i // 5].to_bytes(8, "little")
        if len(out) >= outlen:
            return bytes(out[:outlen])
        state = keccak_p(state, rounds)


def turboshake(strength, msg, domain, outlen):
    return sponge(msg, 200 - strength // 4, 12, domain, outlen)


def length_encode(x):
    n = (x.bit_length() + 7) // 8
    return x.to_bytes(n, "big") + bytes([n])


def kangaroo(msg, custom, outlen, rate, rounds, cv_len):
    s = msg + custom + length_encode(len(custom))
    if len(s) <= 8192:
        return sponge(s, rate, rounds, 0x07, outlen)
    chunks = [s[i:i + 8192] for i in range(0, len(s), 8192)]
    node = chunks[0] + b"\x03" + bytes(7)
    for chunk in chunks[1:]:
        node += sponge(chunk, rate, rounds, 0x0B, cv_len)
    node += length_encode(len(chunks) - 1) + b"\xff\xff"
    return sponge(node, rate, rounds, 0x06, outlen)


def kt128(msg, custom=b"", outlen=32):
    return kangaroo(msg, custom, outlen, 168, 12, 32)


def kt256(msg, custom=b"", outlen=64):
    return kangaroo(msg, custom, outlen, 136, 12, 64)


def m14(msg, custom=b"", outlen=32):
    return kangaroo(msg, custom, outlen, 136, 14, 64)


def ptn(n):
    return bytes(i % 251 for i in range(n))


# SP 800-185 over pycryptodome's cSHAKE (Debian's python3-pycryptodome).

def left_encode(x):
    n = max(1, (x.bit_length() + 7) // 8)
    return bytes([n]) + x.to_bytes(n, "big")


def right_encode(x):
    n = max(1, (x.bit_length() + 7) // 8)
    return x.to_bytes(n, "big") + bytes([n])


def encode_string(s):
    return left_encode(8 * len(s)) + s


def bytepad(x, w):
    z = left_encode(w) + x
    return z + bytes((-len(z)) % w)


def cshake(strength, data, outlen, function=b"", custom=b""):
    """cSHAKE on pycryptodome's Keccak engine.  Debian's pycryptodome 3.11
    takes only the customization S; with a function name N the same engine
    is started with cSHAKE's domain byte and our bytepad prefix."""
    from Cryptodome.Hash import cSHAKE128, cSHAKE256
    if not function:
        mod = cSHAKE128 if strength == 128 else cSHAKE256
        return mod.new(data=data, custom=custom).read(outlen)
    from ctypes import c_size_t
    from Cryptodome.Hash.cSHAKE128 import cSHAKE_XOF
    from Cryptodome.Hash.keccak import _raw_keccak_lib
    from Cryptodome.Util._raw_api import SmartPointer, VoidPointer
    h = cSHAKE_XOF.__new__(cSHAKE_XOF)
    state = VoidPointer()
    if _raw_keccak_lib.keccak_init(state.address_of(), c_size_t(strength // 4), 0x04):
        raise ValueError("keccak_init failed")
    h._state = SmartPointer(state.get(), _raw_keccak_lib.keccak_destroy)
    h._is_squeezing = False
    h.update(bytepad(encode_string(function) + encode_string(custom), 200 - strength // 4))
    h.update(data)
    return h.read(outlen)


def parallelhash(strength, data, outlen, block_size=8192, custom=b"", xof=False):
    cv_len = strength // 4
    blocks = [data[i:i + block_size] for i in range(0, len(data), block_size)]
    z = left_encode(block_size)
    for b in blocks:
        z += cshake(strength, b, cv_len)
    z += right_encode(len(blocks)) + right_encode(0 if xof else 8 * outlen)
    return cshake(strength, z, outlen, b"ParallelHash", custom)


def kmac(strength, key, data, outlen, custom=b"", xof=False):
    rate = 168 if strength == 128 else 136
    x = bytepad(encode_string(key), rate) + data + right_encode(0 if xof else 8 * outlen)
    return cshake(strength, x, outlen, b"KMAC", custom)


# SP 800-185 and the kangaroo trees on this file's sponge alone, for the
# cases pycryptodome cannot take (Debian's 3.11 encodes a customization
# string over 31 bytes wrongly, and has no TupleHash).

def cshake_sponge(strength, data, outlen, function=b"", custom=b""):
    rate = 200 - strength // 4
    if not function and not custom:
        return sponge(data, rate, 24, 0x1F, outlen)
    prefix = bytepad(encode_string(function) + encode_string(custom), rate)
    return sponge(prefix + data, rate, 24, 0x04, outlen)


def tuplehash(strength, elements, outlen, custom=b"", xof=False):
    x = b"".join(encode_string(e) for e in elements)
    x += right_encode(0 if xof else 8 * outlen)
    return cshake_sponge(strength, x, outlen, b"TupleHash", custom)


def kangaroo_cvs(msg, custom, rate, rounds, cv_len):
    """The chaining values of S's chunks after the first, in order: what
    the final node takes after S_0."""
    s = msg + custom + length_encode(len(custom))
    return [sponge(s[i:i + 8192], rate, rounds, 0x0B, cv_len)
            for i in range(8192, len(s), 8192)]
