# SPDX-License-Identifier: Apache-2.0
"""Lines reach their descriptor whole: several ksum processes may share one
pipe (xargs -P, GNU parallel), and a write() of at most PIPE_BUF bytes to a
pipe is atomic, so every write ksum makes holds whole lines only, at most
PIPE_BUF bytes of them, or one longer line alone; each message line on
standard error is one write.  Observed through a SOCK_SEQPACKET socket,
which keeps the bounds of every write, so nothing here depends on timing."""
import os
import re
import select
import socket
import subprocess

import pytest

from conftest import KSUM, run

PIPE_BUF = select.PIPE_BUF


def writes(args, cwd, stdin=None):
    """(exit status, the writes to standard output, those to standard
    error), each a list of bytes as write() passed them."""
    out_r, out_w = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    err_r, err_w = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    for s in (out_w, err_w):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    p = subprocess.Popen([KSUM] + args, cwd=cwd, stdout=out_w.fileno(), stderr=err_w.fileno(),
                         stdin=subprocess.DEVNULL if stdin is None else open(stdin, "rb"))
    out_w.close()
    err_w.close()
    got = {out_r: [], err_r: []}
    open_ends = [out_r, err_r]
    while open_ends:
        for s in select.select(open_ends, [], [], 120)[0]:
            msg = s.recv(1 << 20)
            if msg:
                got[s].append(msg)
            else:
                open_ends.remove(s)
    code = p.wait(timeout=120)
    return code, got[out_r], got[err_r]


def whole_lines(chunks, end=b"\n"):
    """What is wrong with the writes: one not ending a line, or one longer
    than PIPE_BUF that holds more than one line."""
    for i, c in enumerate(chunks):
        if not c.endswith(end):
            return f"write {i} ends mid-line: {c[-60:]!r}"
        if len(c) > PIPE_BUF and c.count(end) > 1:
            return f"write {i} of {len(c)} bytes holds {c.count(end)} lines"
    return ""


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    d = tmp_path_factory.mktemp("lines")
    (d / "t").mkdir()
    for i in range(600):
        # names of many lengths, so that no block size falls on a line end
        (d / "t" / (f"{i:04d}" + "n" * (i % 97))).write_bytes(b"%d\n" % i)
    (d / "t" / ("x" * 200 + "\\back")).write_bytes(b"escaped")
    return d


@pytest.mark.parametrize("args", [
    ["-r", "t"],
    ["--threads", "2", "-r", "t"],
    ["--tag", "-r", "t"],
    ["--k12", "-r", "t"],
    ["--shake128", "-n", "64", "--base64", "-r", "t"],
])
def test_hash_lines_are_written_whole(tree, args):
    code, out, err = writes(args, tree)
    assert code == 0, err
    assert len(b"".join(out).splitlines()) == 601
    assert whole_lines(out) == ""


def test_zero_terminated_lines_are_written_whole(tree):
    code, out, err = writes(["-z", "-r", "t"], tree)
    assert code == 0, err
    assert whole_lines(out, b"\0") == ""


def test_check_verdicts_are_written_whole(tree):
    (tree / "sums").write_bytes(run(["-r", "t"], cwd=tree)[1])
    for args in (["-c", "sums"], ["--threads", "2", "-c", "sums"]):
        code, out, err = writes(args, tree)
        assert code == 0, err
        assert len(b"".join(out).splitlines()) == 601
        assert whole_lines(out) == ""


def test_a_line_longer_than_pipe_buf_is_written_alone(tree):
    names = sorted(os.listdir(tree / "t"))[:20]
    code, out, err = writes(["--shake256", "-n", str(PIPE_BUF)] + names, tree / "t")
    assert code == 0, err
    assert whole_lines(out) == ""
    assert len(out) == 20


def test_tuplehash_line_is_written_whole(tree):
    names = sorted(os.listdir(tree / "t"))[:300]
    code, out, err = writes(["--tuplehash128"] + names, tree / "t")
    assert code == 0, err
    assert whole_lines(out) == "" and len(out) == 1


def test_messages_are_one_write_a_line(tree):
    missing = "".join(f"{'0' * 64}  missing-{i}-{'m' * (i % 50)}\n" for i in range(300))
    (tree / "missing").write_text(missing)
    code, out, err = writes(["-c", "missing"], tree)
    assert code == 1
    assert whole_lines(out) == "" and whole_lines(err) == ""
    assert all(c.count(b"\n") == 1 for c in err), err[:3]


def test_processes_sharing_a_pipe_keep_their_lines(tree):
    """The issue's reproduction: two ksum processes on one pipe."""
    names = sorted(os.listdir(tree / "t"))
    r, w = os.pipe()
    procs = [subprocess.Popen([KSUM] + names[k::2], cwd=tree / "t", stdout=w)
             for k in range(2)]
    os.close(w)
    with os.fdopen(r, "rb") as f:
        lines = f.read().splitlines()
    assert all(p.wait(timeout=120) == 0 for p in procs)
    assert len(lines) == len(names)
    broken = [x for x in lines if not re.fullmatch(rb"\\?[0-9a-f]{64}  (?:[0-9]{4}n*|x{200}\\\\back)", x)]
    assert not broken, broken[:3]


def test_processes_sharing_a_terminal_keep_their_lines(tmp_path):
    """On a terminal too, each line is one write (stdio's line buffering
    would cut a line at its 4 KiB buffer, and a -z record anywhere), which
    the terminal keeps whole against other writers: six processes printing
    lines of 5 KB onto one pty tear none of them."""
    import pty
    import tty
    names = []
    for i in range(40):
        (tmp_path / f"f{i}").write_bytes(os.urandom(100 + i))
        names.append(f"f{i}")
    master, slave = pty.openpty()
    tty.setraw(slave)   # no '\n' to "\r\n"
    procs = [subprocess.Popen([KSUM, "--shake128", "-n", "2500", "--threads", "1"] + names,
                              cwd=tmp_path, stdout=slave, stderr=subprocess.DEVNULL)
             for _ in range(6)]
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:     # EIO: every writer has closed it
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    assert [p.wait(timeout=60) for p in procs] == [0] * 6
    lines = data.split(b"\n")
    assert lines.pop() == b""
    torn = [line[:80] for line in lines if not re.fullmatch(rb"[0-9a-f]{5000}  f\d+", line)]
    assert (len(lines), torn) == (6 * len(names), [])
