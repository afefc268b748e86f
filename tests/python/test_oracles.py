# SPDX-License-Identifier: Apache-2.0
"""Every algorithm ksumprov registers, as the provider lists them itself
(tests/c/evp_run: EVP_MD_do_all_provided and EVP_MAC_do_all_provided),
computed through EVP and checked against an oracle that is not ksumprov:
hashlib, pycryptodome, keccak_ref.py's Keccak-p, or the official samples
under tests/vectors, which the oracles are first checked against.  Each
algorithm is taken at the lengths around its rate, the empty and one-byte
inputs, several output lengths, and the parameters it takes; the tree
modes over several chunks.  An algorithm the provider registers with no
oracle in ORACLES fails the test, so none is added unchecked."""
import hashlib
import os
import random
import subprocess

import pytest

import keccak_ref as ref
from conftest import BUILD

EVP_RUN = os.path.join(BUILD, "tests", "evp_run")
VECTORS = os.path.join(os.path.dirname(__file__), "..", "vectors")
rng = random.Random(20)


def registered():
    """(kind, EVP's name, every name) of each algorithm ksumprov lists."""
    out = subprocess.run([EVP_RUN, "list"], stdout=subprocess.PIPE, check=True,
                         timeout=60).stdout.decode()
    return [(w[0], w[1], sorted(set(w[2:]))) for w in map(str.split, out.splitlines())]


REGISTERED = registered()


def evp(kind, name, data, n=None, key=None, elements=(), **params):
    """Hex of data through EVP; params: custom, function_name (bytes),
    block_size, domain, message_length, offset (ints), xof (bool)."""
    args = [EVP_RUN, kind, name]
    if n is not None:
        args += ["-n", str(n)]
    if key is not None:
        args += ["-k", key.hex()]
    for e in elements:
        args += ["-e", str(len(e))]
    for k, v in params.items():
        k = k.replace("_", "-")
        if isinstance(v, bytes):
            args.append(f"{k}=x:{v.hex()}")
        elif isinstance(v, bool):
            args.append(f"{k}=i:{int(v)}")
        else:
            args.append(f"{k}=u:{v}")
    p = subprocess.run(args, input=b"".join(elements) or data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    assert p.returncode == 0, p.stderr.decode()
    return p.stdout.decode().strip()


def data(n):
    return bytes(rng.randrange(256) for _ in range(n))


def around(rate):
    """Empty, one byte, one block give or take one, two blocks and more."""
    return [0, 1, rate - 1, rate, rate + 1, 2 * rate + 7]


LONG_CUSTOM = bytes(range(40, 140))   # over pycryptodome 3.11's 31 bytes


# ---- the oracles: name -> a function checking the algorithm of that name ----

def sha3(bits):
    def check(name):
        for n in around(200 - bits // 4):
            m = data(n)
            assert evp("md", name, m) == hashlib.new(f"sha3_{bits}", m).hexdigest(), n
    return check


def keccak(bits):
    def check(name):
        from Cryptodome.Hash import keccak as pkeccak
        for n in around(200 - bits // 4):
            m = data(n)
            assert evp("md", name, m) == pkeccak.new(data=m, digest_bits=bits).hexdigest(), n
    return check


def shake(strength):
    rate = 200 - strength // 4

    def check(name):
        for n in around(rate):
            m = data(n)
            for out in (1, 32, rate + 1, 500):
                assert evp("md", name, m, n=out) == \
                    hashlib.new(f"shake_{strength}", m).hexdigest(out), (n, out)
    return check


def rawshake(strength):
    rate = 200 - strength // 4

    def check(name):
        for n in around(rate):
            m = data(n)
            for out in (1, rate + 1):
                assert evp("md", name, m, n=out) == \
                    ref.sponge(m, rate, 24, 0x07, out).hex(), (n, out)
    return check


def cshake(strength):
    rate = 200 - strength // 4

    def check(name):
        from Cryptodome.Hash import cSHAKE128, cSHAKE256
        pyc = cSHAKE128 if strength == 128 else cSHAKE256
        for n in around(rate):
            m = data(n)
            # N = S = empty is SHAKE (hashlib); S alone, short: pycryptodome.
            assert evp("md", name, m, n=40) == hashlib.new(f"shake_{strength}", m).hexdigest(40)
            assert evp("md", name, m, n=rate + 1, custom=b"Email Signature") == \
                pyc.new(data=m, custom=b"Email Signature").read(rate + 1).hex()
            # N, and a long S: this file's sponge.
            assert evp("md", name, m, n=33, function_name=b"fn", custom=LONG_CUSTOM) == \
                ref.cshake_sponge(strength, m, 33, b"fn", LONG_CUSTOM).hex()
    return check


def kmac(strength):
    rate = 200 - strength // 4

    def check(name):
        for n in around(rate):
            m = data(n)
            for key, custom, out, xof in ((b"", b"", 32, False), (data(32), b"tag", 1, False),
                                          (data(rate + 3), LONG_CUSTOM, rate + 1, True)):
                assert evp("mac", name, m, n=out, key=key, custom=custom, xof=xof) == \
                    ref.kmac(strength, key, m, out, custom, xof).hex(), (n, out, xof)
    return check


def parallelhash(strength):
    def check(name):
        for n, b in ((0, 8), (1, 1), (24, 8), (100, 7), (8191, 8192), (8193, 8192),
                     (3 * 8192 + 5, 8192)):
            m = data(n)
            for out, xof, custom in ((32, False, b""), (1, True, b"pd"), (200, False, LONG_CUSTOM)):
                assert evp("md", name, m, n=out, block_size=b, custom=custom, xof=xof) == \
                    ref.parallelhash(strength, m, out, b, custom, xof).hex(), (n, b, out)
    return check


def parallelhash_cvs(strength, m, b):
    return [ref.cshake(strength, m[i:i + b], strength // 4) for i in range(0, len(m), b)]


def parallelhash_cv(strength):
    def check(name):
        # The CVs of ranges that start on a block: to a block boundary, or
        # to the end of M.
        for n, b in ((1, 1), (24, 8), (100, 7), (8193, 8192), (3 * 8192 + 5, 8192)):
            m = data(n)
            cvs = parallelhash_cvs(strength, m, b)
            for first in range(len(cvs)):
                for last in {first + 1, len(cvs)}:
                    part = m[first * b:min(n, last * b)]
                    want = b"".join(cvs[first:last])
                    assert evp("md", name, part, n=len(want), block_size=b,
                               message_length=n, offset=first * b) == want.hex(), (n, b, first)
    return check


def parallelhash_final(strength):
    def check(name):
        for n, b in ((0, 8), (1, 1), (100, 7), (8191, 8192), (3 * 8192 + 5, 8192)):
            m = data(n)
            given = b"".join(parallelhash_cvs(strength, m, b))
            for out, xof, custom in ((32, False, b""), (1, True, b"pd"), (200, False, LONG_CUSTOM)):
                assert evp("md", name, given, n=out, block_size=b, custom=custom, xof=xof,
                           message_length=n) == \
                    ref.parallelhash(strength, m, out, b, custom, xof).hex(), (n, b, out)
    return check


def tuplehash(strength):
    rate = 200 - strength // 4

    def check(name):
        for sizes in ((0,), (1,), (rate - 1, rate, rate + 1), (3, 0, 2 * rate)):
            elements = [data(k) for k in sizes]
            for out, xof, custom in ((32, False, b""), (1, True, b"tup"),
                                     (rate + 1, False, LONG_CUSTOM)):
                assert evp("md", name, b"", n=out, elements=elements, custom=custom, xof=xof) == \
                    ref.tuplehash(strength, elements, out, custom, xof).hex(), (sizes, out)
    return check


KANGAROO = {"KT128": (168, 12, 32), "KT256": (136, 12, 64), "M14": (136, 14, 64)}
# Around the rate and the 8192-byte chunk, counting C = "xyz" and its
# encoding (4 bytes): 8188 bytes of M fill S_0 exactly.
TREE_LENGTHS = [0, 1, 135, 136, 137, 167, 168, 169, 8188, 8189, 8192, 8193,
                3 * 8192 + 5]


def kangaroo(family):
    rate, rounds, cv = KANGAROO[family]

    def check(name):
        for n in TREE_LENGTHS:
            m = ref.ptn(n)
            for custom, out in ((b"", 32), (b"xyz", 1), (b"xyz", rate + 1)):
                assert evp("md", name, m, n=out, custom=custom) == \
                    ref.kangaroo(m, custom, out, rate, rounds, cv).hex(), (n, custom, out)
    return check


def kangaroo_cv(family):
    rate, rounds, cv = KANGAROO[family]

    def check(name):
        # The CVs of every range that starts on a chunk after the first: to
        # a chunk boundary, or to the end of M (with C's chunks past it).
        for n in (8193, 2 * 8192, 3 * 8192 + 5, 3 * 8192 - 2):
            m = ref.ptn(n)
            for custom in (b"", b"xyz"):
                cvs = ref.kangaroo_cvs(m, custom, rate, rounds, cv)
                for first in range(1, len(cvs) + 1):
                    offset = first * 8192
                    end_cv = len(cvs) if offset + 8192 >= n else first
                    part = m[offset:n if end_cv == len(cvs) else offset + 8192]
                    want = b"".join(cvs[first - 1:end_cv])
                    if offset > n:
                        continue   # a chunk of C alone: no range of M starts there
                    assert evp("md", name, part, n=len(want), custom=custom,
                               message_length=n, offset=offset) == want.hex(), (n, first)
    return check


def kangaroo_final(family):
    rate, rounds, cv = KANGAROO[family]

    def check(name):
        for n in TREE_LENGTHS:
            m = ref.ptn(n)
            for custom, out in ((b"", 32), (b"xyz", rate + 1)):
                cvs = ref.kangaroo_cvs(m, custom, rate, rounds, cv)
                given = m[:8192] + b"".join(cvs)
                assert evp("md", name, given, n=out, custom=custom, message_length=n) == \
                    ref.kangaroo(m, custom, out, rate, rounds, cv).hex(), (n, custom, out)
    return check


def turboshake(strength):
    rate = 200 - strength // 4

    def check(name):
        for n in around(rate):
            m = data(n)
            for domain, out in ((0x1F, 32), (0x01, 1), (0x7F, rate + 1), (0x06, 64)):
                assert evp("md", name, m, n=out, domain=domain) == \
                    ref.turboshake(strength, m, domain, out).hex(), (n, domain, out)
    return check


# EVP's name of each algorithm ksumprov registers -> its oracle.
ORACLES = {
    "SHA3-224": sha3(224), "SHA3-256": sha3(256), "SHA3-384": sha3(384), "SHA3-512": sha3(512),
    "KECCAK-224": keccak(224), "KECCAK-256": keccak(256), "KECCAK-384": keccak(384),
    "KECCAK-512": keccak(512),
    "SHAKE128": shake(128), "SHAKE256": shake(256),
    "RAWSHAKE128": rawshake(128), "RAWSHAKE256": rawshake(256),
    "CSHAKE128": cshake(128), "CSHAKE256": cshake(256),
    "KMAC128": kmac(128), "KMAC256": kmac(256),
    "PARALLELHASH128": parallelhash(128), "PARALLELHASH256": parallelhash(256),
    "TUPLEHASH128": tuplehash(128), "TUPLEHASH256": tuplehash(256),
    "KANGAROOTWELVE": kangaroo("KT128"), "KT256": kangaroo("KT256"),
    "MARSUPILAMIFOURTEEN": kangaroo("M14"),
    "TURBOSHAKE128": turboshake(128), "TURBOSHAKE256": turboshake(256),
    "KT128-CV": kangaroo_cv("KT128"), "KT256-CV": kangaroo_cv("KT256"),
    "M14-CV": kangaroo_cv("M14"),
    "KT128-FINAL": kangaroo_final("KT128"), "KT256-FINAL": kangaroo_final("KT256"),
    "M14-FINAL": kangaroo_final("M14"),
    "PARALLELHASH128-CV": parallelhash_cv(128), "PARALLELHASH256-CV": parallelhash_cv(256),
    "PARALLELHASH128-FINAL": parallelhash_final(128),
    "PARALLELHASH256-FINAL": parallelhash_final(256),
}


def test_every_registered_algorithm_has_an_oracle():
    assert len(REGISTERED) >= len(ORACLES) // 2, REGISTERED   # the listing works
    missing = [name for _, name, _ in REGISTERED if name not in ORACLES]
    assert not missing, f"registered with no oracle in ORACLES: {missing}"
    stale = set(ORACLES) - {name for _, name, _ in REGISTERED}
    assert not stale, f"oracles of algorithms not registered: {stale}"


@pytest.mark.parametrize("kind,name", [(k, n) for k, n, _ in REGISTERED])
def test_algorithm_against_its_oracle(kind, name):
    if name not in ORACLES:
        pytest.fail(f"{name} has no oracle")
    ORACLES[name](name)


def alias_case(name):
    """An input and the parameters name takes it with: a CV range is the
    chunk (ParallelHash: block) after the first, the final node S_0 alone
    (ParallelHash: one CV), the others any output (and a MAC a key)."""
    if name.startswith("PARALLELHASH"):
        # The block after the first (one CV); the final node, one CV.
        cv = 32 if "128" in name else 64
        if name.endswith("-CV"):
            return data(300), {"message_length": 8192 + 300, "offset": 8192, "n": cv}
        return data(cv), {"message_length": 300, "n": 20}
    if name.endswith("-CV"):
        return data(300), {"message_length": 8192 + 300, "offset": 8192}
    if name.endswith("-FINAL"):
        return data(300), {"message_length": 300, "n": 20}
    fixed = name.startswith(("SHA3-", "KECCAK-"))
    return data(300), {} if fixed else {"n": 20}


@pytest.mark.parametrize("kind,name,names", REGISTERED)
def test_every_alias_is_the_same_algorithm(kind, name, names):
    m, args = alias_case(name)
    if kind == "mac":
        args["key"] = b"alias key"
    want = evp(kind, name, m, **args)
    for alias in names:
        assert evp(kind, alias, m, **args) == want, alias


# ---- the oracles themselves, against the official samples ----

def samples(path):
    """The records of a NIST samples file: key = value lines, records apart
    by blank lines; Tuple repeats, strings are quoted."""
    records, rec = [], {}
    for line in open(os.path.join(VECTORS, path)).read().splitlines() + [""]:
        if not line.strip():
            if rec:
                records.append(rec)
            rec = {}
        elif not line.startswith("#") and " = " in line:
            k, v = line.split(" = ", 1)
            if k in ("B", "InLen", "KeyLen", "OutLen"):
                v = int(v)
            else:
                v = v[1:-1].encode() if v.startswith('"') else bytes.fromhex(v)
            rec.setdefault(k, []).append(v)
    return records


@pytest.mark.parametrize("strength", [128, 256])
def test_oracles_match_the_official_samples(strength):
    for r in samples(f"SP800-185/cSHAKE_{strength}_samples.txt"):
        assert ref.cshake_sponge(strength, r["In"][0], len(r["Out"][0]), r["N"][0],
                                 r["S"][0]) == r["Out"][0]
    for xof, f in ((False, f"KMAC_{strength}"), (True, f"KMACXOF_{strength}")):
        for r in samples(f"SP800-185/{f}_samples.txt"):
            assert ref.kmac(strength, r["Key"][0], r["In"][0], len(r["Out"][0]),
                            r["S"][0], xof) == r["Out"][0]
    for xof, f in ((False, f"Tuple_Hash_{strength}"), (True, f"Tuple_Hash_XOF_{strength}")):
        for r in samples(f"SP800-185/{f}_samples.txt"):
            assert ref.tuplehash(strength, r["Tuple"], len(r["Out"][0]), r["S"][0],
                                 xof) == r["Out"][0]
    for xof, f in ((False, f"ParallelHash{strength}"), (True, f"ParallelHashXOF{strength}")):
        for r in samples(f"SP800-185/{f}_samples.txt"):
            assert ref.parallelhash(strength, r["Msg"][0], len(r["MD"][0]), r["B"][0],
                                    r["S"][0], xof) == r["MD"][0]


def test_tree_oracles_match_the_published_values():
    assert ref.kt128(ref.ptn(17 ** 3)).hex() == \
        "cb552e2ec77d9910701d578b457ddf772c12e322e4ee7fe417f92c758f0d59d0"
    assert ref.kt256(b"").hex().startswith("b23d2e9cea9f4904e02bec06817fc10c")
    assert ref.turboshake(128, b"", 0x1F, 32).hex() == \
        "1e415f1c5983aff2169217277d17bb538cd945a397ddec541f1ce41af2c1b74c"
    # The final node from S_0 and the CVs is the tree kangaroo() hashes.
    m = ref.ptn(3 * 8192 + 5)
    cvs = ref.kangaroo_cvs(m, b"xyz", 168, 12, 32)
    node = m[:8192] + b"\x03" + bytes(7) + b"".join(cvs) + \
        ref.length_encode(len(cvs)) + b"\xff\xff"
    assert len(cvs) == 3
    assert ref.sponge(node, 168, 12, 0x06, 32) == ref.kt128(m, b"xyz", 32)
