# SPDX-License-Identifier: Apache-2.0
"""ksum's algorithms against independent oracles: Python's hashlib,
pycryptodome (SHA3, SHAKE, Keccak, cSHAKE and ParallelHash built on its
cSHAKE), and keccak_ref.py's straightforward Keccak-p for the
KangarooTwelve family and MarsupilamiFourteen (which has no published
vectors)."""
import hashlib
import random

import pytest

import keccak_ref as ref
from conftest import digest_of

rng = random.Random(1234)


def test_reference_matches_hashlib_and_published_values():
    # Validates the oracle itself before it judges anything.
    for n in (0, 1, 135, 136, 137, 300):
        data = bytes(rng.randrange(256) for _ in range(n))
        assert ref.sponge(data, 136, 24, 0x06, 32) == hashlib.sha3_256(data).digest()
        assert ref.sponge(data, 168, 24, 0x1F, 40) == hashlib.shake_128(data).digest(40)
    assert ref.kt128(b"").hex() == "1ac2d450fc3b4205d19da7bfca1b37513c0803577ac7167f06fe2ce1f0ef39e5"
    assert ref.kt128(ref.ptn(17)).hex() == "6bf75fa2239198db4772e36478f8e19b0f371205f6a9a93a273f51df37122888"
    assert ref.kt128(ref.ptn(17 ** 3)).hex() == "cb552e2ec77d9910701d578b457ddf772c12e322e4ee7fe417f92c758f0d59d0"
    assert ref.turboshake(128, b"", 0x1F, 32).hex() == "1e415f1c5983aff2169217277d17bb538cd945a397ddec541f1ce41af2c1b74c"
    assert ref.kt256(b"").hex().startswith("b23d2e9cea9f4904e02bec06817fc10c")


@pytest.mark.parametrize("n", [0, 1, 71, 72, 73, 103, 104, 105, 135, 136, 137, 143, 144, 145, 1000])
def test_sha3_keccak_shake_vs_hashlib_and_pycryptodome(n):
    from Cryptodome.Hash import keccak
    data = bytes(rng.randrange(256) for _ in range(n))
    for bits in (224, 256, 384, 512):
        assert digest_of([f"--sha3-{bits}"], data) == hashlib.new(f"sha3_{bits}", data).hexdigest()
        assert digest_of([f"--keccak-{bits}"], data) == keccak.new(data=data, digest_bits=bits).hexdigest()
    assert digest_of(["--shake128", "-n", "77"], data) == hashlib.shake_128(data).hexdigest(77)
    assert digest_of(["--shake256"], data) == hashlib.shake_256(data).hexdigest(32)


@pytest.mark.parametrize("n", [0, 5, 167, 168, 169, 2000])
def test_cshake_vs_pycryptodome(n):
    data = bytes(rng.randrange(256) for _ in range(n))
    for s in (128, 256):
        assert digest_of([f"--cshake{s}", "-C", "Email Signature"], data) == \
            ref.cshake(s, data, 16 if s == 128 else 32, b"", b"Email Signature").hex()
        assert digest_of([f"--cshake{s}", "-f", "fn", "-C", "cust", "-n", "50"], data) == \
            ref.cshake(s, data, 50, b"fn", b"cust").hex()
        # N = S = empty is SHAKE
        assert digest_of([f"--cshake{s}"], data) == \
            hashlib.new(f"shake_{s}", data).hexdigest(16 if s == 128 else 32)


@pytest.mark.parametrize("n,b", [(0, 8), (1, 1), (24, 8), (100, 7), (8191, 8192), (8193, 8192),
                                 (5000, 1000), (40 * 33, 33)])
def test_parallelhash_vs_pycryptodome_cshake(n, b):
    data = bytes(rng.randrange(256) for _ in range(n))
    for s in (128, 256):
        for xof in (False, True):
            args = [f"--parallelhash{s}", "-B", str(b), "-C", "pd", "-n", "40"]
            if xof:
                args.append("-x")
            assert digest_of(args, data) == \
                ref.parallelhash(s, data, 40, b, b"pd", xof).hex()


def test_kmac_vs_reference():
    data = bytes(rng.randrange(256) for _ in range(500))
    for s in (128, 256):
        for xof in (False, True):
            args = [f"--kmac{s}", "-k", "00112233", "-C", "tag", "-n", "48"] + (["-x"] if xof else [])
            assert digest_of(args, data) == ref.kmac(s, bytes.fromhex("00112233"), data, 48, b"tag", xof).hex()
    # The default key is empty, which SP 800-185 allows.
    assert digest_of(["--kmac128"], b"abc") == ref.kmac(128, b"", b"abc", 16).hex()


# Lengths around the 8192-byte chunk, counting the customization encoding:
# with C = "xyz", S = M || "xyz" || 03 01, so |M| = 8187 makes |S| = 8192.
KANGAROO_LENGTHS = [0, 1, 167, 168, 169, 8187, 8188, 8191, 8192, 8193,
                    2 * 8192, 4 * 8192 + 1, 5 * 8192 - 5, 9 * 8192 + 100]


@pytest.mark.parametrize("n", KANGAROO_LENGTHS)
@pytest.mark.parametrize("custom", [b"", b"xyz"])
def test_kangaroo_family_vs_reference(n, custom):
    data = ref.ptn(n)
    c = ["-C", custom.decode()] if custom else []
    assert digest_of(["--k12", "-n", "32"] + c, data) == ref.kt128(data, custom, 32).hex()
    assert digest_of(["--kt256"] + c, data) == ref.kt256(data, custom, 64).hex()
    assert digest_of(["--m14"] + c, data) == ref.m14(data, custom, 32).hex()


@pytest.mark.parametrize("domain", [0x01, 0x06, 0x0B, 0x1F, 0x7F])
def test_turboshake_vs_reference(domain):
    data = ref.ptn(300)
    assert digest_of(["--turboshake128", "--domain", hex(domain)], data) == \
        ref.turboshake(128, data, domain, 32).hex()
    assert digest_of(["--turboshake256", "--domain", str(domain)], data) == \
        ref.turboshake(256, data, domain, 64).hex()


def test_rawshake_vs_reference():
    data = ref.ptn(500)
    assert digest_of(["--rawshake128"], data) == ref.sponge(data, 168, 24, 0x07, 16).hex()
    assert digest_of(["--rawshake256", "-n", "200"], data) == ref.sponge(data, 136, 24, 0x07, 200).hex()
