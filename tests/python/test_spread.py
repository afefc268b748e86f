# SPDX-License-Identifier: Apache-2.0
"""One big file on every core (cli/input/spread.c): a KT128, KT256 or M14
file of at least two 4 MiB ranges is read and hashed in ranges by every
thread.  The digest must be the serial road's (standard input's) for every
thread count, at the edges of chunks and ranges, with customizations that
push the input over a chunk boundary; a file that changes while read is
still an error."""
import os
import subprocess

import pytest

from conftest import KSUM, run
from test_faults import REASON, faulty, needs_shim

MiB = 1 << 20
RANGE = 4 * MiB
SIZES = [2 * RANGE - 1, 2 * RANGE, 2 * RANGE + 1, 3 * RANGE - 8193, 3 * RANGE - 8192,
         3 * RANGE - 1, 3 * RANGE + 8191, 3 * RANGE + 8192, 3 * RANGE + 8193, 4 * RANGE + 1]


def serial(args, path):
    with open(path, "rb") as f:
        p = subprocess.run([KSUM] + args + ["-"], stdin=f, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120, check=True)
    return p.stdout.split()[0]


@pytest.fixture(scope="module")
def data():
    return os.urandom(4 * RANGE + 1)


@pytest.mark.parametrize("alg", ["--k12", "--kt256", "--m14"])
@pytest.mark.parametrize("custom", [[], ["-C", "x" * 8000], ["-n", "200"], ["-n", "1100000"]])
def test_every_thread_count_gives_the_serial_digest(tmp_path, data, alg, custom):
    for size in SIZES:
        path = tmp_path / "f"
        path.write_bytes(data[:size])
        want = serial([alg] + custom, path)
        for threads in ("1", "2", "3", "4", "0"):
            code, out, err = run([alg, "--threads", threads] + custom + [str(path)])
            assert (code, err) == (0, ""), (size, threads)
            assert out.split()[0] == want, (size, threads)


def test_check_mode_and_several_algorithms(tmp_path, data):
    path = tmp_path / "f"
    path.write_bytes(data[:3 * RANGE + 5])
    code, out, _ = run(["--kt256", "--threads", "2", "f"], cwd=tmp_path)
    assert code == 0 and out.split()[0] == serial(["--kt256"], path)
    (tmp_path / "sums").write_bytes(out)
    assert run(["--kt256", "-c", "--threads", "2", "sums"], cwd=tmp_path)[:2] == (0, b"f: OK\n")
    code, out, _ = run(["--k12", "--m14", "--threads", "2", "f"], cwd=tmp_path)
    assert code == 0 and len(out.splitlines()) == 2


@needs_shim
@pytest.mark.parametrize("mode", sorted(REASON))
@pytest.mark.parametrize("threads", ["1", "2", "3", "4"])
@pytest.mark.parametrize("alg", ["--k12", "--m14"])
def test_a_file_that_changes_while_read(tmp_path, data, mode, threads, alg):
    (tmp_path / "bad").write_bytes(data)
    # After the first range, in the middle of a later one.
    code, out, err = run([alg, "--threads", threads, "bad"], cwd=tmp_path,
                         env=faulty(tmp_path, mode, RANGE + 3 * MiB + 7))
    assert (code, out) == (1, b"")
    assert err == f"ksum: bad: {REASON[mode]}\n"


@needs_shim
def test_a_file_that_grows_after_its_last_byte(tmp_path, data):
    """The size said 17 MiB; bytes past it are read as a change, whichever
    thread read the last range."""
    (tmp_path / "bad").write_bytes(data)
    code, out, err = run(["--k12", "--threads", "2", "bad"], cwd=tmp_path,
                         env=faulty(tmp_path, "grow", len(data) - 1))
    assert (code, out, err) == (1, b"", "ksum: bad: file changed while it was read\n")


@needs_shim
@pytest.mark.parametrize("mode", sorted(REASON))
def test_check_mode_of_a_file_that_changes(tmp_path, data, mode):
    """Check mode's one big file is read in ranges too (its worker is the
    last, every other idle): a change is FAILED open or read, as before."""
    (tmp_path / "bad").write_bytes(data)
    (tmp_path / "sums").write_bytes(run(["--k12", "bad"], cwd=tmp_path)[1])
    code, out, err = run(["--k12", "-c", "--threads", "2", "sums"], cwd=tmp_path,
                         env=faulty(tmp_path, mode, 2 * RANGE + 5))
    assert (code, out) == (1, b"bad: FAILED open or read\n")
    assert err.splitlines() == [f"ksum: bad: {REASON[mode]}",
                                "ksum: WARNING: sums: 1 listed file could not be read"]
