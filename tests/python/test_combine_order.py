# SPDX-License-Identifier: Apache-2.0
"""Found in review of b0055cb (--combine reads record files two at a
time): a bad record file must still be reported without reading the files
after it, and standard input given twice must not be read by two threads."""
import os
import subprocess

from conftest import KSUM, run


def ok(args, input=None):
    code, out, err = run(args, input=input)
    assert code == 0 and err == "", (args, err)
    return out


def test_bad_record_file_then_fifo_fails_without_waiting(tmp_path):
    # Before b0055cb: "bad" fails at once.  Now every file is read before
    # the first failure is said: the FIFO nobody writes blocks forever.
    obj = tmp_path / "obj"
    obj.write_bytes(os.urandom(50000))
    (tmp_path / "p1").write_bytes(ok(["--k12", "--part", "1/2", str(obj)]))
    (tmp_path / "bad").write_bytes(b"junk\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for threads in ("1", "2"):
        try:
            p = subprocess.run([KSUM, "--k12", "--threads", threads, "--combine",
                                str(tmp_path / "bad"), str(fifo), str(tmp_path / "p1")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, timeout=10)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"--threads {threads}: hangs on the FIFO after a bad file")
        assert p.returncode != 0 and b"bad" in p.stderr


def test_stdin_twice_is_read_by_one_thread(tmp_path):
    # Both '-' slots are read by different threads at once: the records on
    # standard input are split between them at random, and the message
    # says a good record has "a bad cv line" instead of "-: no part record".
    big = tmp_path / "big"
    with open(big, "wb") as f:
        f.truncate(300 << 20)
    recs = b"".join(ok(["--k12", "--part", f"{k}/2", str(big)]) for k in (1, 2))
    want = run(["--k12", "--threads", "1", "--combine", "-", "-"], input=recs)
    assert want[0] != 0 and "no part record" in want[2]
    for _ in range(3):
        got = run(["--k12", "--threads", "2", "--combine", "-", "-"], input=recs)
        assert got[2] == want[2]


def test_records_of_every_size_through_one_thread_buffer(tmp_path):
    # A thread reads its record files into one buffer kept from file to
    # file: a large record after a small one, a small one after a large one
    # (whose old bytes stay behind its end) and standard input (read in
    # doublings from what the buffer already has) give the whole's digest.
    obj = tmp_path / "object"
    obj.write_bytes(os.urandom(3 << 20))   # 384 chunks
    ranges = ["0:300", "300:5", "305:79"]
    for i, r in enumerate(ranges):
        (tmp_path / f"p{i}").write_bytes(ok(["--k12", "--part-range", r, str(obj)]))
    whole = ok(["--k12", str(obj)])
    for threads in ("1", "2"):
        for order in (["p1", "p0", "-"], ["p0", "p1", "-"], ["-", "p1", "p0"]):
            stdin_part = ({"p0", "p1", "p2"} - set(order)).pop()
            names = [str(tmp_path / n) if n != "-" else "-" for n in order]
            got = ok(["--k12", "--threads", threads, "--combine"] + names,
                      input=(tmp_path / stdin_part).read_bytes())
            assert got == whole, (threads, order)
