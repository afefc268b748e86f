# SPDX-License-Identifier: Apache-2.0
"""Large inputs (label 'long' in ctest): a 5 GiB sparse file gives the same
value by every path (file and stdin, one thread and all), and SHA3-256 the
same as OpenSSL's default provider."""
import os
import subprocess

import pytest

from conftest import KSUM

pytestmark = pytest.mark.skipif(os.environ.get("KSUM_LARGE") != "1",
                                reason="set KSUM_LARGE=1 (ctest label 'long')")

SIZE = 5 << 30


@pytest.fixture(scope="module")
def sparse(tmp_path_factory):
    path = tmp_path_factory.mktemp("large") / "sparse"
    with open(path, "wb") as f:
        f.write(b"start")
        f.seek(SIZE - 3)
        f.write(b"end")
    return str(path)


def hex_of(args, path, stdin=False):
    if stdin:
        with open(path, "rb") as f:
            out = subprocess.run([KSUM] + args + ["-"], stdin=f, stdout=subprocess.PIPE,
                                 check=True).stdout
    else:
        out = subprocess.run([KSUM] + args + [path], stdout=subprocess.PIPE,
                             check=True).stdout
    return out.split()[0].decode()


@pytest.mark.parametrize("alg", [["--k12"], ["--parallelhash128", "-B", str(1 << 20)],
                                 ["--sha3-256"]])
def test_every_path_agrees(alg, sparse):
    values = {hex_of(alg + ["--threads", t], sparse, stdin)
              for t in ("1", "2") for stdin in (False, True)}
    assert len(values) == 1
    if alg == ["--sha3-256"]:
        out = subprocess.run(["openssl", "dgst", "-sha3-256", "-r", sparse],
                             stdout=subprocess.PIPE, check=True).stdout
        assert out.split()[0].decode() == values.pop()
