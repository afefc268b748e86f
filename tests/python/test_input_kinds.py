# SPDX-License-Identifier: Apache-2.0
"""Every kind of input crossed with the roads that read it: a digest printed
with exit 0 is of the bytes the user named, or the input is refused.

Kinds: a regular file, standard input at an offset (a descriptor that is
not at byte 0), a pipe, a FIFO, a /proc file (st_size 0), a /sys file
(st_size 4096, fewer bytes), a character device.  Roads: hashing (one
algorithm, several, a tree mode on threads), TupleHash elements, check
mode.  --part and --combine have tests of their own (test_parts.py); the
-r walk skips what is not a regular file (test_walk.py).  The oracle is
hashlib over the bytes Python reads itself, or the project's Python KT128."""
import hashlib
import os
import subprocess
import threading

import pytest

import keccak_ref as ref
from conftest import KSUM, run
from test_tuplehash import tuplehash

OFFSET = 12345


def sha3(data):
    return hashlib.sha3_256(data).hexdigest()


def run_on_descriptor(args, path, offset):
    """ksum ARGS with standard input open on PATH at OFFSET (not byte 0)."""
    with open(path, "rb") as f:
        f.seek(offset)
        p = subprocess.run([KSUM] + args, stdin=f, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


@pytest.fixture
def data(tmp_path):
    """A file of many K12 chunks (the Python KT128 is slow past this)."""
    body = os.urandom(300_000)
    (tmp_path / "f").write_bytes(body)
    return body


@pytest.mark.parametrize("args", [[], ["--threads", "1"], ["--threads", "2"]])
def test_standard_input_at_an_offset_is_read_from_there(tmp_path, data, args):
    rest = data[OFFSET:]
    f = str(tmp_path / "f")
    assert run_on_descriptor(args + ["-"], f, OFFSET) == (0, f"{sha3(rest)}  -\n", "")
    k12 = ref.kt128(rest, b"", 16).hex()
    assert run_on_descriptor(args + ["--k12", "-"], f, OFFSET) == (0, f"{k12}  -\n", "")
    both = run_on_descriptor(args + ["-a", "sha3-256,k12", "-"], f, OFFSET)
    assert both == (0, f"SHA3-256 (-) = {sha3(rest)}\nKANGAROOTWELVE (-) = {k12}\n", "")


@pytest.mark.parametrize("alg", ["--k12", "--kt256", "--parallelhash128", "--sha3-256"])
def test_a_large_standard_input_at_an_offset_on_the_tree_threads(tmp_path, alg):
    """24 MB, past the size from which a tree mode's leaves go to worker
    threads: the digest is that of the bytes after the offset, as the
    same bytes give from a regular file of their own."""
    body = os.urandom(24 << 20)
    (tmp_path / "f").write_bytes(body)
    (tmp_path / "rest").write_bytes(body[OFFSET:])
    want = run([alg, str(tmp_path / "rest")])[1].decode().split()[0]
    for threads in ("1", "2"):
        got = run_on_descriptor([alg, "--threads", threads, "-"], str(tmp_path / "f"), OFFSET)
        assert got == (0, f"{want}  -\n", "")


def test_standard_input_at_an_offset_as_a_tuple_element_and_in_check_mode(tmp_path, data):
    f = str(tmp_path / "f")
    rest = data[OFFSET:]
    want = tuplehash(128, [rest, b"abc"], 32)
    (tmp_path / "abc").write_bytes(b"abc")
    out = run_on_descriptor(["--tuplehash128", "-", str(tmp_path / "abc")], f, OFFSET)
    assert out[0] == 0 and out[1].startswith(want + "  -\t")
    (tmp_path / "SUMS").write_text(f"{sha3(rest)}  -\n")
    assert run_on_descriptor(["-c", str(tmp_path / "SUMS")], f, OFFSET) == (0, "-: OK\n", "")
    (tmp_path / "SUMS").write_text(f"{sha3(data)}  -\n")  # of the whole file: not what - holds
    code, out, _ = run_on_descriptor(["-c", str(tmp_path / "SUMS")], f, OFFSET)
    assert code == 1 and out == "-: FAILED\n"


def test_a_pipe_on_every_road(tmp_path):
    body = os.urandom(200_000)
    (tmp_path / "abc").write_bytes(b"abc")
    assert run(["-"], input=body) == (0, f"{sha3(body)}  -\n".encode(), "")
    assert run(["--k12", "-"], input=body)[1] == f"{ref.kt128(body, b'', 16).hex()}  -\n".encode()
    (tmp_path / "SUMS").write_text(f"{sha3(body)}  -\n")
    assert run(["-c", "SUMS"], input=body, cwd=tmp_path) == (0, b"-: OK\n", "")


def feed_fifo(path, body):
    """Writes body into the FIFO once a reader opens it (in a thread)."""
    def write():
        with open(path, "wb") as w:
            w.write(body)
    t = threading.Thread(target=write, daemon=True)
    t.start()
    return t


def test_a_fifo_is_read_when_named_and_refused_in_check_mode(tmp_path):
    body = os.urandom(100_000)
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    t = feed_fifo(fifo, body)
    assert run([fifo]) == (0, f"{sha3(body)}  {fifo}\n".encode(), "")
    t.join(10)
    t = feed_fifo(fifo, body)
    want = tuplehash(128, [body, b""], 32)
    assert run(["--tuplehash128", fifo, "/dev/null"])[1].decode().startswith(want)
    t.join(10)
    # a check list cannot make ksum wait on a FIFO: refused, never opened
    (tmp_path / "SUMS").write_text(f"{sha3(body)}  fifo\n")
    code, out, err = run(["-c", "SUMS"], cwd=tmp_path)
    assert code == 1 and out == b"fifo: FAILED open or read\n"
    assert "ksum: fifo: not a regular file" in err


def test_proc_files_whose_size_is_zero(tmp_path):
    body = open("/proc/version", "rb").read()
    assert os.stat("/proc/version").st_size == 0 and body
    assert run(["/proc/version"])[1] == f"{sha3(body)}  /proc/version\n".encode()
    k12 = ref.kt128(body, b"", 16).hex()
    assert run(["--k12", "/proc/version"])[1] == f"{k12}  /proc/version\n".encode()
    tuple_out = run(["--tuplehash128", "/proc/version", "/dev/null"])[1].decode()
    assert tuple_out.startswith(tuplehash(128, [body, b""], 32) + "  ")
    (tmp_path / "SUMS").write_text(f"{sha3(body)}  /proc/version\n")
    assert run(["-c", "SUMS"], cwd=tmp_path) == (0, b"/proc/version: OK\n", "")
    (tmp_path / "SUMS").write_text(f"{sha3(body + b'x')}  /proc/version\n")
    assert run(["-c", "SUMS"], cwd=tmp_path)[:2] == (1, b"/proc/version: FAILED\n")


def sys_file_whose_size_lies():
    for path in ("/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/uevent_seqnum",
                 "/sys/kernel/profiling"):
        try:
            body = open(path, "rb").read()
        except OSError:
            continue
        if body and os.stat(path).st_size != len(body):
            return path, body
    return None, None


def test_a_sys_file_whose_size_is_a_page():
    path, body = sys_file_whose_size_lies()
    if path is None:
        pytest.skip("no readable /sys file whose st_size differs from its bytes")
    assert run([path])[1] == f"{sha3(body)}  {path}\n".encode()
    assert run(["--k12", path])[1] == f"{ref.kt128(body, b'', 16).hex()}  {path}\n".encode()


def test_a_character_device(tmp_path):
    assert run(["/dev/null"]) == (0, f"{sha3(b'')}  /dev/null\n".encode(), "")
    # in check mode a device is refused, as a FIFO is (it may never end)
    (tmp_path / "SUMS").write_text(f"{sha3(b'')}  /dev/null\n")
    code, out, err = run(["-c", "SUMS"], cwd=tmp_path)
    assert code == 1 and out == b"/dev/null: FAILED open or read\n"
    assert "ksum: /dev/null: not a regular file" in err
