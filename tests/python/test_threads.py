# SPDX-License-Identifier: Apache-2.0
"""Threads change speed, never output: tree modes with every thread count on
inputs around ksum's read sizes, and several files hashed at once printed
in argument order."""
import hashlib
import os

import pytest

from conftest import run

MiB = 1 << 20
SIZES = [0, 1, 8193, 4 * MiB - 1, 4 * MiB, 4 * MiB + 1, 12 * MiB + 8193]
TREES = ["k12", "kt256", "m14", "parallelhash128", "parallelhash256"]


@pytest.fixture(scope="module")
def big_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("threads")
    data = os.urandom(max(SIZES))
    names = []
    for n in SIZES:
        (d / f"f{n}").write_bytes(data[:n])
        names.append(f"f{n}")
    return d, names


@pytest.mark.parametrize("alg", TREES)
def test_tree_modes_same_for_every_thread_count(alg, big_files):
    d, names = big_files
    outputs = {run([f"--{alg}", "--threads", str(t)] + names, cwd=d)[1]
               for t in (1, 2, 3, 8)}
    outputs.add(run([f"--{alg}"] + names, cwd=d)[1])   # default: all CPUs
    assert len(outputs) == 1
    assert outputs.pop().count(b"\n") == len(names)


@pytest.mark.parametrize("alg", ["k12", "parallelhash128"])
def test_stdin_pipe_same_as_file(alg, big_files):
    d, names = big_files
    name = names[-1]
    data = (d / name).read_bytes()
    want = run([f"--{alg}", "--threads", "1", name], cwd=d)[1].split()[0]
    for t in ("1", "2"):
        code, out, _ = run([f"--{alg}", "--threads", t, "-"], input=data)
        assert code == 0 and out.split()[0] == want


def test_many_files_at_once_in_argument_order(tmp_path):
    names = []
    for i in range(60):
        (tmp_path / f"x{i}").write_bytes(os.urandom(i * 1000))
        names.append(f"x{i}")
    names.insert(30, "missing")
    names.append("-")
    want_lines = [f"{hashlib.sha3_256((tmp_path / n).read_bytes()).hexdigest()}  {n}"
                  for n in names if n not in ("missing", "-")]
    want_lines.append(f"{hashlib.sha3_256(b'stdin').hexdigest()}  -")
    for t in ("1", "2", "4", "16"):
        code, out, err = run(["--sha3-256", "--threads", t] + names, cwd=tmp_path,
                             input=b"stdin")
        assert code == 1
        assert out.decode().splitlines() == want_lines
        assert err == "ksum: missing: No such file or directory\n"
