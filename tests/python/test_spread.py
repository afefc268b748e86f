# SPDX-License-Identifier: Apache-2.0
"""One big file on every core (cli/input/spread.c): a KT128, KT256, M14 or
ParallelHash file of at least two ranges (4 MiB, or whole ParallelHash
blocks) is read and hashed in ranges by every thread.  The digest must be
the serial road's (standard input's) for every thread count, at the edges
of chunks, blocks and ranges, with customizations that push the input over
a chunk boundary, ParallelHash's block sizes and XOF form, and
keccak_ref.py's ParallelHash; a file that changes while read is still an
error."""
import os
import subprocess

import pytest

import keccak_ref as ref
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


# ParallelHash: -B B gives ranges of min(4 MiB // B, 512) blocks (one
# block when B is longer); under 1 MiB (B < 2048) the serial road.
def ph_range(b):
    return b * max(1, min(RANGE // b, 512))


PH_CASES = {  # id: (options, block size)
    "default": ([], 8192),
    "C": (["-C", "tenant-7"], 8192),
    "B4096-longC": (["-B", "4096", "-C", "x" * 300], 4096),
    "B3000": (["-B", "3000"], 3000),             # ranges of 1536000 bytes, no power of 2
    "B2048": (["-B", "2048"], 2048),             # the shortest ranges spread: 1 MiB
    "B2047": (["-B", "2047"], 2047),             # serial road
    "B5000000": (["-B", "5000000"], 5000000),    # a block over 4 MiB: one a range
    "B65536-xof": (["-B", "65536", "-x", "-n", "100"], 65536),
    "streamed": (["-B", "8192", "-n", "1100000"], 8192),   # output over a MiB
}


def ph_sizes(b):
    r = ph_range(b)
    return sorted(n for n in {2 * r - 1, 2 * r, 3 * r - b - 1, 3 * r - b, 3 * r + b - 1,
                              3 * r + 1} if n <= 4 * RANGE + 1)


def ph_oracle(strength, data, opts, block):
    custom = opts[opts.index("-C") + 1].encode() if "-C" in opts else b""
    n = int(opts[opts.index("-n") + 1]) if "-n" in opts else strength // 8
    return ref.parallelhash(strength, data, n, block, custom, "-x" in opts).hex().encode()


@pytest.mark.parametrize("strength", [128, 256])
@pytest.mark.parametrize("case", sorted(PH_CASES))
def test_parallelhash_gives_the_serial_digest(tmp_path, data, strength, case):
    opts, block = PH_CASES[case]
    alg = [f"--parallelhash{strength}"] + opts
    sizes = ph_sizes(block)
    for k, size in enumerate(sizes):
        path = tmp_path / "f"
        path.write_bytes(data[:size])
        want = serial(alg, path)
        if k == len(sizes) // 2:   # the oracle is slow: one size of each case
            assert want == ph_oracle(strength, data[:size], opts, block), size
        for threads in ("1", "2", "3", "4")[k % 2::2] + ("0",):
            code, out, err = run(alg + ["--threads", threads, str(path)])
            assert (code, err) == (0, ""), (size, threads)
            assert out.split()[0] == want, (size, threads)


def test_parallelhash_is_read_in_ranges(tmp_path, data):
    """Every thread preads its own ranges: the file is not read with read()
    by one reader thread (strace, where there is one)."""
    strace = subprocess.run(["sh", "-c", "command -v strace"], stdout=subprocess.PIPE).stdout
    if not strace:
        pytest.skip("no strace")
    path = tmp_path / "f"
    path.write_bytes(data[:3 * RANGE])
    for opts, preads in ((["--threads", "2"], True), (["--threads", "1"], False),
                         (["-B", "1000", "--threads", "2"], False)):
        p = subprocess.run(["strace", "-f", "-e", "trace=pread64", KSUM, "--parallelhash128"] +
                           opts + [str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120, check=True,
                           # LeakSanitizer cannot run under ptrace
                           env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
        big = [line for line in p.stderr.decode().splitlines()
               if line.rstrip().endswith("= 1048576")]   # a piece of a range
        assert bool(big) == preads, opts


@needs_shim
@pytest.mark.parametrize("mode", sorted(REASON))
@pytest.mark.parametrize("threads", ["1", "2", "4"])
@pytest.mark.parametrize("alg", [["--parallelhash128"], ["--parallelhash256", "-B", "3000", "-x"]])
def test_a_parallelhash_file_that_changes_while_read(tmp_path, data, mode, threads, alg):
    (tmp_path / "bad").write_bytes(data)
    code, out, err = run(alg + ["--threads", threads, "bad"], cwd=tmp_path,
                         env=faulty(tmp_path, mode, RANGE + 3 * MiB + 7))
    assert (code, out) == (1, b"")
    assert err == f"ksum: bad: {REASON[mode]}\n"
