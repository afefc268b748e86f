# SPDX-License-Identifier: Apache-2.0
"""Faults and hostile input: read errors in the middle of a file, files that
change while read, FIFOs and devices, unreadable files, broken standard
output, hostile check files and option values.  Each asserts the message,
the exit status, and that the other files' lines are still right."""
import hashlib
import os
import shutil
import signal
import subprocess
import threading
import time

import pytest

from conftest import BUILD, KSUM, run, unprivileged

SANITIZED = os.environ.get("KSUM_SANITIZED") == "1"
SHIM = os.path.join(BUILD, "tests", "fault_shim.so")
needs_shim = pytest.mark.skipif(SANITIZED or not os.path.exists(SHIM),
                                reason="the LD_PRELOAD shim cannot go before a sanitizer runtime")

MiB = 1 << 20


def sha3(data):
    return hashlib.sha3_256(data).hexdigest()


@pytest.fixture
def three(tmp_path):
    a, bad, c = os.urandom(1000), os.urandom(3 * MiB + 5), os.urandom(2000)
    for name, data in (("a", a), ("bad", bad), ("c", c)):
        (tmp_path / name).write_bytes(data)
    return tmp_path, a, bad, c


def faulty(tmp_path, mode, after):
    return dict(os.environ, LD_PRELOAD=SHIM, KSUM_FAULT_MODE=mode,
                KSUM_FAULT_AFTER=str(after), KSUM_FAULT_PATH=str(tmp_path / "bad"))


@needs_shim
@pytest.mark.parametrize("args", [["--sha3-256", "--threads", "1"],
                                  ["--sha3-256", "--threads", "2"],   # files at once
                                  ["--k12", "--threads", "1"],
                                  ["--k12", "--threads", "2"]])       # reader thread
def test_read_error_in_the_middle(three, args):
    d, a, _, c = three
    code, out, err = run(args + ["a", "bad", "c"], cwd=d, env=faulty(d, "eio", 100000))
    assert code == 1
    assert err == "ksum: bad: Input/output error\n"
    good = run(args + ["a", "c"], cwd=d)[1].decode().splitlines()
    assert out.decode().splitlines() == good


@needs_shim
def test_read_error_in_check_mode(three):
    d, a, bad, c = three
    (d / "sums").write_text(f"{sha3(a)}  a\n{sha3(bad)}  bad\n{sha3(c)}  c\n")
    code, out, err = run(["-c", "sums"], cwd=d, env=faulty(d, "eio", 5000))
    assert code == 1
    assert out.decode() == "a: OK\nbad: FAILED open or read\nc: OK\n"
    assert err.splitlines() == ["ksum: bad: Input/output error",
                                "ksum: WARNING: sums: 1 listed file could not be read"]


@needs_shim
@pytest.mark.parametrize("mode", ["truncate", "grow"])
@pytest.mark.parametrize("args", [["--threads", "1"], ["--k12", "--threads", "2"]])
def test_file_changing_while_read_is_an_error(three, mode, args):
    d, a, _, c = three
    code, out, err = run(args + ["a", "bad", "c"], cwd=d, env=faulty(d, mode, MiB + 7))
    assert code == 1
    assert err == "ksum: bad: file changed while it was read\n"
    assert len(out.decode().splitlines()) == 2


# Every path that feeds a file (one at a time, a worker's files in turns,
# batched or not, a tuple's elements, check mode's workers and its printing
# thread) goes through the one feeding function, which judges the end once.
ROADS = {"one at a time": (["--threads", "1"], {"KSUM_BATCH": "0"}),
         "batched on one thread": (["--threads", "1"], {}),
         "workers": (["--threads", "2"], {}),
         "workers unbatched": (["--threads", "2"], {"KSUM_BATCH": "0"})}


REASON = {"eio": "Input/output error", "truncate": "file changed while it was read",
          "grow": "file changed while it was read",
          "overwrite": "file changed while it was read"}


@needs_shim
@pytest.mark.parametrize("mode", sorted(REASON))
@pytest.mark.parametrize("road", sorted(ROADS))
@pytest.mark.parametrize("check", [False, True])
def test_every_road_judges_a_file_that_changes(three, mode, road, check):
    d, a, bad, c = three
    args, env = ROADS[road]
    (d / "sums").write_text(f"{sha3(a)}  a\n{sha3(bad)}  bad\n{sha3(c)}  c\n")
    operands = ["-c", "sums"] if check else ["a", "bad", "c"]
    code, out, err = run(args + operands, cwd=d, env=dict(faulty(d, mode, MiB + 7), **env))
    (d / "bad").write_bytes(bad)
    assert code == 1
    if check:
        assert out.decode() == "a: OK\nbad: FAILED open or read\nc: OK\n"
        assert err.splitlines() == [f"ksum: bad: {REASON[mode]}",
                                    "ksum: WARNING: sums: 1 listed file could not be read"]
    else:
        assert err == f"ksum: bad: {REASON[mode]}\n"
        assert out.decode().splitlines() == run(["a", "c"], cwd=d)[1].decode().splitlines()


@needs_shim
@pytest.mark.parametrize("mode", sorted(REASON))
def test_a_tuple_element_that_changes(three, mode):
    """An element's length is announced before its bytes: more or fewer
    than that is a changed file, never a digest."""
    d, a, bad, c = three
    code, out, err = run(["--tuplehash128", "a", "bad", "c"], cwd=d,
                         env=faulty(d, mode, MiB + 7))
    assert (code, out, err) == (1, b"", f"ksum: bad: {REASON[mode]}\n")
    (d / "bad").write_bytes(bad)
    want = run(["--tuplehash128", "a", "bad", "c"], cwd=d)[1]
    with open(d / "bad", "rb") as f:
        p = subprocess.run([KSUM, "--tuplehash128", "a", "-", "c"], cwd=d, stdin=f,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    assert p.stdout.split()[0] == want.split()[0]


@needs_shim
@pytest.mark.parametrize("mode", ["truncate", "grow", "overwrite"])
@pytest.mark.parametrize("args", [["--threads", "1"], ["--k12", "--threads", "2"],
                                  ["--tuplehash128"]])
def test_standard_input_that_changes(three, mode, args):
    """A regular file given as standard input is judged as a named one: a
    checksum of bytes from before and after a write, with exit 0, is what a
    helper review found (an in-place write even for TupleHash, whose
    announced length catches only a change of size)."""
    d, a, bad, c = three
    with open(d / "bad", "rb") as f:
        p = subprocess.run([KSUM] + args + ["-"], cwd=d, stdin=f, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=faulty(d, mode, MiB + 7), timeout=60)
    assert (p.returncode, p.stdout, p.stderr) == (1, b"", b"ksum: -: file changed while it was read\n")


def test_fifo_is_read_like_a_file(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    data = os.urandom(300000)

    def writer():
        with open(fifo, "wb") as f:
            f.write(data)
    t = threading.Thread(target=writer)
    t.start()
    code, out, _ = run(["fifo"], cwd=tmp_path)
    t.join()
    assert code == 0 and out.decode() == f"{sha3(data)}  fifo\n"


def test_check_file_naming_fifo_and_devices_does_not_hang(tmp_path):
    os.mkfifo(tmp_path / "fifo")   # no writer: reading it would block forever
    (tmp_path / "ok").write_bytes(b"abc")
    lines = [f"{sha3(b'')}  fifo", f"{sha3(b'')}  /dev/zero", f"{sha3(b'')}  /dev/null",
             f"{sha3(b'abc')}  ok", f"{sha3(b'')}  ."]
    (tmp_path / "sums").write_text("\n".join(lines) + "\n")
    start = time.time()
    code, out, err = run(["-c", "sums"], cwd=tmp_path)
    assert time.time() - start < 20
    assert code == 1
    assert out.decode().splitlines() == [
        "fifo: FAILED open or read", "/dev/zero: FAILED open or read",
        "/dev/null: FAILED open or read", "ok: OK", ".: FAILED open or read"]
    assert "ksum: /dev/zero: not a regular file" in err
    assert "ksum: WARNING: sums: 4 listed files could not be read" in err


def test_devices_on_the_command_line(tmp_path):
    assert run(["/dev/null"])[1].decode() == f"{sha3(b'')}  /dev/null\n"
    zeros = bytes(10 * MiB)
    p = subprocess.Popen(f"head -c {10 * MiB} /dev/zero | {KSUM} -", shell=True,
                         stdout=subprocess.PIPE)
    assert p.communicate(timeout=60)[0].decode() == f"{sha3(zeros)}  -\n"
    # an endless device is read until stopped, and stops when asked
    p = subprocess.Popen([KSUM, "/dev/zero"], stdout=subprocess.PIPE)
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=10) == -signal.SIGTERM


def test_directory_and_dangling_symlink(tmp_path):
    os.symlink("nowhere", tmp_path / "dangling")
    (tmp_path / "sub").mkdir()
    (tmp_path / "ok").write_bytes(b"abc")
    code, out, err = run(["dangling", "sub", "ok"], cwd=tmp_path)
    assert code == 1
    assert out.decode() == f"{sha3(b'abc')}  ok\n"
    assert err.splitlines() == ["ksum: dangling: No such file or directory",
                                "ksum: sub: Is a directory"]


def test_permission_denied_as_an_unprivileged_user():
    import tempfile
    # As root the test runs ksum as nobody, who must be able to search every
    # directory above it: pytest's tmp_path (and perhaps TMPDIR) is private
    # to root, /tmp is not.  Not as root, ksum runs as the user, and /tmp may
    # not be writable: the default temporary directory.
    tmp_dir = "/tmp" if os.geteuid() == 0 else None
    tmp_path = __import__("pathlib").Path(tempfile.mkdtemp(prefix="ksum-perm-", dir=tmp_dir))
    try:
        check_permission_denied(tmp_path)
    finally:
        shutil.rmtree(tmp_path)


def check_permission_denied(tmp_path):
    user_cmd = unprivileged()[0]
    # A directory everyone may enter, with a copy of ksum anyone may run.
    d = tmp_path / "perm"
    d.mkdir()
    for p in (tmp_path, d):
        p.chmod(0o755)
    shutil.copy(KSUM, d / "ksum")
    (d / "secret").write_bytes(b"x")
    (d / "secret").chmod(0)
    (d / "open").write_bytes(b"abc")
    (d / "open").chmod(0o644)
    parent = tmp_path.parent
    while parent != parent.parent and os.geteuid() == 0:
        if not os.access(parent, os.X_OK) or (parent.stat().st_mode & 0o001) == 0:
            pytest.skip(f"{parent} is not searchable by others")
        parent = parent.parent
    p = subprocess.run(user_cmd + [str(d / "ksum"), "secret", "open"], cwd=d,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 1
    assert p.stdout.decode() == f"{sha3(b'abc')}  open\n"
    assert p.stderr.decode() == "ksum: secret: Permission denied\n"


def test_stdout_closed(tmp_path):
    (tmp_path / "f").write_bytes(b"abc")
    p = subprocess.run(f"{KSUM} f >&-", shell=True, cwd=tmp_path, stderr=subprocess.PIPE)
    assert p.returncode == 1
    assert b"ksum: write error: Bad file descriptor" in p.stderr


def test_stdout_pipe_closed_early(tmp_path):
    (tmp_path / "f").write_bytes(os.urandom(1000))
    names = " ".join(["f"] * 20000)
    p = subprocess.run(f"{KSUM} {names} | head -c1; echo \"${{PIPESTATUS[0]}}\"",
                       shell=True, executable="/bin/bash", cwd=tmp_path,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    status = int(p.stdout.decode()[1:].strip())
    # killed by SIGPIPE (141), as coreutils' tools are, or a reported write error
    assert status in (141, 1)


# ---- hostile check files ----

def test_binary_garbage_and_nul_bytes(tmp_path):
    (tmp_path / "garbage").write_bytes(os.urandom(200000))
    code, out, err = run(["-c", "garbage"], cwd=tmp_path)
    assert code == 1 and out == b""
    assert "ksum: garbage: no properly formatted checksum lines found" in err
    (tmp_path / "ok").write_bytes(b"abc")
    (tmp_path / "nul").write_bytes(f"{sha3(b'abc')}  ok\n".encode() +
                                   f"{sha3(b'abc')}  ok\0evil\n".encode())
    code, out, err = run(["-c", "nul"], cwd=tmp_path)
    assert code == 0 and out == b"ok: OK\n"
    assert "1 line is improperly formatted" in err


def test_huge_line(tmp_path):
    with open(tmp_path / "sums", "wb") as f:
        f.write(b"a" * (100 * MiB) + b"  x\n")
        f.write(f"{sha3(b'')}  /dev/null\n".encode())
    code, out, err = run(["-c", "sums"], cwd=tmp_path)
    assert code == 1
    assert "1 line is improperly formatted" in err


def test_a_million_lines(tmp_path):
    (tmp_path / "ok").write_bytes(b"abc")
    line = f"{sha3(b'abc')}  missing\n".encode()
    with open(tmp_path / "sums", "wb") as f:
        f.write(f"{sha3(b'abc')}  ok\n".encode())
        f.write(line * 999999)
    code, out, err = run(["-c", "--ignore-missing", "--quiet", "sums"], cwd=tmp_path)
    assert code == 0 and out == b"" and err == ""
    code, out, err = run(["-c", "--quiet", "sums"], cwd=tmp_path)
    assert code == 1
    assert out.count(b"missing: FAILED open or read\n") == 999999
    assert "ksum: WARNING: sums: 999999 listed files could not be read" in err


def test_dotdot_paths_are_plain_paths(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "top").write_bytes(b"abc")
    (tmp_path / "sub" / "sums").write_text(f"{sha3(b'abc')}  ../top\n")
    code, out, _ = run(["-c", "sums"], cwd=tmp_path / "sub")
    assert code == 0 and out == b"../top: OK\n"


def test_control_characters_are_escaped(tmp_path):
    name = "evil\x1b[2Jname\x07"
    (tmp_path / name).write_bytes(b"abc")
    code, out, _ = run([name], cwd=tmp_path)
    line = out.decode()
    assert "\x1b" not in line and "\x07" not in line
    assert line == f"\\{sha3(b'abc')}  evil\\x1b[2Jname\\x07\n"
    (tmp_path / "sums").write_bytes(out)
    code, out, _ = run(["-c", "sums"], cwd=tmp_path)
    assert code == 0 and out.decode() == "\\evil\\x1b[2Jname\\x07: OK\n"
    code, _, err = run(["missing\x1b]0;pwned\x07"], cwd=tmp_path)
    assert code == 1 and "\x1b" not in err
    assert err == "ksum: missing\\x1b]0;pwned\\x07: No such file or directory\n"


@pytest.mark.parametrize("option", ["-n", "-l", "-B", "--threads", "--domain"])
@pytest.mark.parametrize("value", ["", "-1", "-0", "abc", "12abc", "1e3", " 5",
                                   "99999999999999999999999999", "0x", "--", "18446744073709551616"])
def test_option_values(option, value, tmp_path):
    alg = {"-n": "--shake128", "-l": "--shake128", "-B": "--parallelhash128",
           "--threads": "--sha3-256", "--domain": "--turboshake128"}[option]
    code, out, err = run([alg, option, value, "/dev/null"])
    assert code == 1 and out == b""
    assert err.startswith("ksum: invalid ")
    assert err.rstrip("\n").endswith("Try 'ksum --help' for more information.")
