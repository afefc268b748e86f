# SPDX-License-Identifier: Apache-2.0
"""ksum --tuplehash128/256: one checksum of the tuple of all FILEs, each file
one element, against tests/python/keccak_ref.py; check mode verifies it."""
import os
import random
import subprocess
import threading

import pytest

import keccak_ref as ref
from conftest import KSUM, run


def tuplehash(strength, elements, outlen, custom=b"", xof=False):
    x = b"".join(ref.encode_string(e) for e in elements or [b""])
    x += ref.right_encode(0 if xof else 8 * outlen)
    return ref.cshake(strength, x, outlen, b"TupleHash", custom).hex()


@pytest.fixture
def tree(tmp_path):
    return tmp_path


def write(tree, name, data):
    (tree / name).write_bytes(data)
    return name


@pytest.mark.parametrize("seed", range(12))
def test_random_tuples_match_the_reference(tree, seed):
    rnd = random.Random(seed)
    strength = rnd.choice([128, 256])
    sizes = [rnd.choice([0, 1, 135, 136, 137, 8191, 70000]) for _ in range(rnd.randint(1, 5))]
    datas = [rnd.randbytes(n) for n in sizes]
    names = [write(tree, f"f{i}", d) for i, d in enumerate(datas)]
    args = [f"--tuplehash{strength}"]
    outlen, custom, xof = strength // 4, b"", False
    if rnd.random() < 0.5:
        outlen = rnd.choice([1, 16, 100, 300])
        args += ["-n", str(outlen)]
    if rnd.random() < 0.5:
        custom = b"My Tuple App"
        args += ["-C", custom.decode()]
    if rnd.random() < 0.3:
        xof = True
        args += ["-x"]
    code, out, err = run(args + names, cwd=tree)
    assert code == 0, err
    assert out.decode() == tuplehash(strength, datas, outlen, custom, xof) + "  " + "\t".join(names) + "\n"


def test_no_file_is_standard_input_as_one_element(tree):
    code, out, _ = run(["--tuplehash128"], input=b"abc", cwd=tree)
    assert code == 0 and out.decode() == tuplehash(128, [b"abc"], 32) + "  -\n"
    # an empty stream is one empty element, as no update at all
    code, out, _ = run(["--tuplehash256", "-"], input=b"", cwd=tree)
    assert out.decode() == tuplehash(256, [b""], 64) + "  -\n"


@pytest.mark.skipif(os.environ.get("KSUM_SANITIZED") == "1",
                    reason="address-space limits do not work under the sanitizers")
def test_a_long_stream_is_not_held_in_memory(tree):
    # A stream's length is known at its end only; past a bound it waits in an
    # unnamed temporary file, so 300 MiB pass under a 400 MB address space.
    size = 300 << 20
    big = tree / "big"
    with open(big, "wb") as f:
        f.truncate(size)
        f.seek(size // 2)
        f.write(b"middle")
    small = write(tree, "s", b"small")
    want = run(["--tuplehash128", small, str(big), small], cwd=tree)[1].split()[0]
    cmd = f"ulimit -v 400000; cat big | TMPDIR=spill {KSUM} --tuplehash128 {small} - {small}"
    (tree / "spill").mkdir()
    p = subprocess.run(cmd, shell=True, executable="/bin/bash", cwd=tree,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == want
    assert list((tree / "spill").iterdir()) == []   # nothing left behind
    # a stream of exactly 32 MiB, or one byte less, stays in memory
    for size in ((32 << 20) - 1, 32 << 20):
        cmd = f"head -c {size} big | TMPDIR=/nonexistent {KSUM} --tuplehash128 -"
        p = subprocess.run(cmd, shell=True, cwd=tree, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        assert p.returncode == 0, (size, p.stderr)
    # standard input redirected from a regular file needs no temporary file
    cmd = f"TMPDIR=/nonexistent {KSUM} --tuplehash128 {small} - {small} < big"
    p = subprocess.run(cmd, shell=True, cwd=tree, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == want
    # no temporary file: one line that says so, not a wrong digest
    cmd = f"head -c 40000000 /dev/zero | TMPDIR=/nonexistent {KSUM} --tuplehash128 -"
    p = subprocess.run(cmd, shell=True, cwd=tree, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 1 and p.stdout == b""
    assert p.stderr.decode().splitlines() == [
        "ksum: -: a stream over 32 MiB needs a temporary file (TMPDIR or /tmp): cannot write one"
        ": No such file or directory"]   # the reason is kept (issue 17, item 9)


@pytest.mark.parametrize("size", [(32 << 20) - 1, 32 << 20, (32 << 20) + 1, (32 << 20) + 65537])
def test_a_stream_at_the_memory_bound_gives_the_files_digest(tree, size):
    # Streams are read in growing buffers up to the bound, then spilled:
    # at each side of it, and in pieces that end nowhere in particular, the
    # digest is the one of the same bytes as a named file.
    data = random.Random(size).randbytes(size)
    small = write(tree, "s", b"small")
    write(tree, "big", data)
    want = run(["--tuplehash256", small, "big"], cwd=tree)[1].split()[0]
    p = subprocess.Popen([KSUM, "--tuplehash256", small, "-"], cwd=tree,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def feed():
        for i in range(0, size, 65521):
            p.stdin.write(data[i:i + 65521])
        p.stdin.close()

    feeder = threading.Thread(target=feed)
    feeder.start()
    out, err = p.stdout.read(), p.stderr.read()
    feeder.join()
    assert p.wait(timeout=60) == 0, err
    assert out.split()[0] == want


def test_a_stream_among_files(tree):
    a = write(tree, "a", b"first")
    code, out, err = run(["--tuplehash128", a, "-", a], input=b"middle", cwd=tree)
    assert code == 0, err
    assert out.decode().split("  ")[0] == tuplehash(128, [b"first", b"middle", b"first"], 32)
    # the elements are told apart: ("ab", "c") is not ("a", "bc")
    write(tree, "ab", b"ab"), write(tree, "c", b"c"), write(tree, "a1", b"a"), write(tree, "bc", b"bc")
    one = run(["--tuplehash128", "ab", "c"], cwd=tree)[1].split()[0]
    two = run(["--tuplehash128", "a1", "bc"], cwd=tree)[1].split()[0]
    assert one != two


def test_check_round_trip_with_odd_names(tree):
    names = [write(tree, "plain", b"1"), write(tree, "with space", b"22"),
             write(tree, "tab\there", b"333"), write(tree, "back\\slash", b"")]
    lines = b""
    for tag in ([], ["--tag"]):
        code, out, err = run(["--tuplehash256"] + tag + names, cwd=tree)
        assert code == 0, err
        assert out.startswith(b"\\")  # a name needs escaping: the whole line is escaped
        assert out.count(b"\t") == len(names) - 1
        lines += out
    (tree / "SUMS").write_bytes(lines)
    code, out, err = run(["-c", "--tuplehash256", "SUMS"], cwd=tree)
    # the tagged line names its algorithm; the untagged one takes the switch
    assert code == 0, err
    assert out.count(b": OK\n") == 2
    (tree / "with space").write_bytes(b"changed")
    code, out, err = run(["-c", "--tuplehash256", "SUMS"], cwd=tree)
    assert code == 1 and out.count(b": FAILED\n") == 2
    os.remove(tree / "plain")
    code, out, err = run(["-c", "--tuplehash256", "SUMS"], cwd=tree)
    assert code == 1 and out.count(b": FAILED open or read\n") == 2
    assert "plain: No such file or directory" in err


def test_other_algorithms_keep_tabs_in_names(tree):
    name = write(tree, "a\tb", b"x")
    code, out, _ = run([name], cwd=tree)
    assert code == 0 and out.startswith(b"\\") and b"a\\x09b" in out
    (tree / "S").write_bytes(out)
    # a sha256sum-style line with a literal tab names one file
    (tree / "S2").write_bytes(out[1:].replace(b"\\x09", b"\t"))
    for sums in ("S", "S2"):
        code, out2, err = run(["-c", sums], cwd=tree)
        assert code == 0, err


def test_zero_refuses_a_tab_it_could_not_escape(tree):
    write(tree, "a\tb", b"x"), write(tree, "c", b"y")
    code, out, err = run(["--tuplehash128", "-z", "a\tb", "c"], cwd=tree)
    assert code == 1 and out == b""
    assert "cannot be joined" in err and err.count("\n") == 1


def test_a_missing_element_fails_the_tuple(tree):
    write(tree, "a", b"x")
    code, out, err = run(["--tuplehash128", "a", "missing"], cwd=tree)
    assert code == 1 and out == b""
    assert err == "ksum: missing: No such file or directory\n"
