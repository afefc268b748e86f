# SPDX-License-Identifier: Apache-2.0
"""ksumprov.so loaded as a module by the openssl command, directly and
through the conf/ fragment."""
import hashlib
import os
import subprocess

import pytest

import keccak_ref as ref
from conftest import BUILD

pytestmark = pytest.mark.skipif(
    os.environ.get("KSUM_SANITIZED") == "1",
    reason="a sanitized ksumprov.so cannot load into the uninstrumented openssl")

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
LOAD = ["-provider-path", BUILD, "-provider", "ksumprov", "-provider", "default",
        "-propquery", "provider=ksumprov"]


def openssl(args, data=b"", env=None):
    p = subprocess.run(["openssl"] + args, input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, timeout=60)
    assert p.returncode == 0, p.stderr.decode()
    return p.stdout.decode().strip()


def value(line):
    return line.split("= ", 1)[1]


@pytest.fixture(scope="module")
def data_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("ossl") / "data"
    path.write_bytes(ref.ptn(20000))
    return str(path)


def test_list_shows_every_digest():
    out = openssl(["list", "-digest-algorithms", "-provider-path", BUILD,
                   "-provider", "ksumprov"])
    for name in ["SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512", "SHAKE128", "SHAKE256",
                 "RAWSHAKE128", "RAWSHAKE256", "KECCAK-224", "KECCAK-256", "KECCAK-384",
                 "KECCAK-512", "CSHAKE128", "CSHAKE256", "PARALLELHASH128",
                 "PARALLELHASH256", "KANGAROOTWELVE", "KT128", "K12", "KT256",
                 "MARSUPILAMIFOURTEEN", "M14", "TURBOSHAKE128", "TURBOSHAKE256"]:
        assert f"{name}" in out and "@ ksumprov" in out, name
    macs = openssl(["list", "-mac-algorithms", "-provider-path", BUILD, "-provider", "ksumprov"])
    assert "KMAC128" in macs and "KMAC-256" in macs


def test_dgst_values(data_file):
    data = open(data_file, "rb").read()
    assert value(openssl(["dgst"] + LOAD + ["-KANGAROOTWELVE", data_file])) == ref.kt128(data, b"", 16).hex()
    assert value(openssl(["dgst"] + LOAD + ["-SHA3-256", data_file])) == hashlib.sha3_256(data).hexdigest()
    assert value(openssl(["dgst"] + LOAD + ["-SHAKE256", "-xoflen", "100", data_file])) == \
        hashlib.shake_256(data).hexdigest(100)
    assert value(openssl(["dgst"] + LOAD + ["-M14", data_file])) == ref.m14(data, b"", 32).hex()


def test_mac_kmac128(data_file):
    data = open(data_file, "rb").read()
    out = openssl(["mac"] + LOAD + ["-macopt", "hexkey:00010203", "-macopt", "custom:tag",
                                    "-in", data_file, "KMAC128"])
    assert out.lower() == ref.kmac(128, bytes.fromhex("00010203"), data, 32, b"tag").hex()


def test_provider_info():
    out = openssl(["list", "-providers", "-verbose", "-provider-path", BUILD,
                   "-provider", "ksumprov"])
    assert "ksumprov" in out and "status: active" in out


def test_conf_fragment(data_file):
    env = dict(os.environ, OPENSSL_CONF=os.path.join(ROOT, "conf", "openssl.cnf"),
               OPENSSL_MODULES=BUILD)
    data = open(data_file, "rb").read()
    out = openssl(["dgst", "-KANGAROOTWELVE", data_file], env=env)
    assert value(out) == ref.kt128(data, b"", 16).hex()
    # the default provider is still there beside it
    assert value(openssl(["dgst", "-sha256", data_file], env=env)) == hashlib.sha256(data).hexdigest()
