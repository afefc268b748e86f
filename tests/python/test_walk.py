# SPDX-License-Identifier: Apache-2.0
"""Directories and name lists (issue 12, item 5): -r/--recursive hashes the
regular files under each directory argument, depth first in byte order of
names, printed as reached from the argument; symbolic links are skipped
unless -L (loops reported), special files skipped (said under -w), an
unreadable directory is an error line and the walk goes on.  --files-from
reads names one per line, or NUL-separated with -z.  Both keep the
concurrency (output in order) and bounded memory."""
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import KSUM, run, unprivileged

SANITIZED = os.environ.get("KSUM_SANITIZED") == "1"


def sha3(data):
    return hashlib.sha3_256(data).hexdigest()


def line(path, name=None):
    return f"{sha3(Path(path).read_bytes())}  {name or path}"


@pytest.fixture
def tree(tmp_path):
    """T/ with files, subdirectories, names that sort by bytes (B < a, a-c <
    a/ < a0 since '-' < '/' < '0' only as whole names, UTF-8 after ASCII)."""
    t = tmp_path / "T"
    for d in ["a/b", "a-c", "B", "\u00e9t\u00e9", "empty"]:
        (t / d).mkdir(parents=True)
    files = {"a/b/x": b"x" * 5000, "a/y": b"y", "a-c/q": b"", "B/k": b"k" * 70000,
             "z": os.urandom(200000), "a0": b"a0", "\u00e9t\u00e9/f": b"utf8",
             "Z": b"upper", "a/b/.hidden": b"dot"}
    for name, data in files.items():
        (t / name).write_bytes(data)
    return tmp_path


# Depth first, each directory's names in byte order.
ORDER = ["B/k", "Z", "a/b/.hidden", "a/b/x", "a/y", "a-c/q", "a0", "z", "\u00e9t\u00e9/f"]


@pytest.mark.parametrize("threads", ["1", "2", "4"])
@pytest.mark.parametrize("batch", ["0", "1"])
def test_order_and_names_as_reached(tree, threads, batch):
    env = dict(os.environ, KSUM_BATCH=batch)
    for arg in ("T", "T/", "./T"):
        code, out, err = run(["-r", "--threads", threads, arg], cwd=tree, env=env)
        assert code == 0 and err == ""
        prefix = arg if arg.endswith("/") else arg + "/"
        assert out.decode().splitlines() == [line(tree / "T" / n, prefix + n) for n in ORDER]


def test_file_argument_and_stdin_are_simply_hashed(tree):
    code, out, _ = run(["-r", "T/z", "-", "T/a"], cwd=tree, input=b"in")
    assert code == 0
    assert out.decode().splitlines() == [
        line(tree / "T/z", "T/z"), f"{sha3(b'in')}  -",
        line(tree / "T/a/b/.hidden", "T/a/b/.hidden"), line(tree / "T/a/b/x", "T/a/b/x"),
        line(tree / "T/a/y", "T/a/y")]


def test_directory_without_r_is_still_an_error(tree):
    code, out, err = run(["T", "T/z"], cwd=tree)
    assert code == 1 and err == "ksum: T: Is a directory\n"
    assert out.decode() == line(tree / "T/z", "T/z") + "\n"


def test_round_trip_and_several_algorithms(tree):
    code, sums, _ = run(["-r", "T"], cwd=tree)
    (tree / "S").write_bytes(sums)
    code, out, _ = run(["-c", "S"], cwd=tree)
    assert code == 0 and out.decode().count(": OK\n") == len(ORDER)
    code, out, _ = run(["-r", "--sha3-256", "--shake128", "T"], cwd=tree)
    got = out.decode().splitlines()
    assert len(got) == 2 * len(ORDER)
    assert got[0] == f"SHA3-256 (T/B/k) = {sha3(b'k' * 70000)}"
    assert got[1] == f"SHAKE128 (T/B/k) = {hashlib.shake_128(b'k' * 70000).hexdigest(16)}"


@pytest.fixture
def links(tree):
    t = tree / "T"
    os.symlink("../z", t / "a" / "to_file")
    os.symlink("../B", t / "a" / "to_dir")
    os.symlink("nowhere", t / "a" / "dangling")
    return tree


def test_symlinks_skipped_unless_dereference(links):
    code, out, err = run(["-r", "T"], cwd=links)
    assert code == 0 and err == ""
    assert [l.split("  ")[1] for l in out.decode().splitlines()] == ["T/" + n for n in ORDER]
    code, out2, err = run(["-r", "-w", "T"], cwd=links)
    assert code == 0 and out2 == out
    assert err.splitlines() == [
        "ksum: T/a/dangling: symbolic link: skipped (-L follows them)",
        "ksum: T/a/to_dir: symbolic link: skipped (-L follows them)",
        "ksum: T/a/to_file: symbolic link: skipped (-L follows them)"]


def test_dereference_follows_and_reports_dangling(links):
    code, out, err = run(["-r", "-L", "T"], cwd=links)
    assert code == 1
    assert err == "ksum: T/a/dangling: No such file or directory\n"
    names = [l.split("  ")[1] for l in out.decode().splitlines()]
    assert names[:5] == ["T/B/k", "T/Z", "T/a/b/.hidden", "T/a/b/x", "T/a/to_dir/k"]
    assert "T/a/to_file" in names


@pytest.mark.parametrize("threads", ["1", "2"])
def test_loop_of_symlinks_with_dereference(tree, threads):
    t = tree / "T"
    os.symlink("..", t / "a" / "b" / "up")          # a directory loop
    os.symlink("loop2", t / "loop1")                # links pointing at each other
    os.symlink("loop1", t / "loop2")
    start = time.time()
    code, out, err = run(["-r", "-L", "--threads", threads, "T"], cwd=tree)
    assert time.time() - start < 30
    assert code == 1
    assert err.splitlines() == [
        "ksum: T/a/b/up: file system loop: not followed",
        "ksum: T/loop1: Too many levels of symbolic links",
        "ksum: T/loop2: Too many levels of symbolic links"]
    assert [l.split("  ")[1] for l in out.decode().splitlines()] == ["T/" + n for n in ORDER]


def test_fifo_in_the_tree_is_skipped_without_blocking(tree):
    os.mkfifo(tree / "T" / "a" / "fifo")   # no writer: reading it would block
    start = time.time()
    code, out, err = run(["-r", "T"], cwd=tree)
    assert time.time() - start < 30
    assert code == 0 and err == "" and out.count(b"\n") == len(ORDER)
    code, out2, err = run(["-r", "--warn", "--threads", "1", "T"], cwd=tree)
    assert code == 0 and out2 == out
    assert err == "ksum: T/a/fifo: not a regular file: skipped\n"


def test_errors_keep_their_place_in_a_log(links):
    with open(links / "log", "wb") as f:
        subprocess.run([KSUM, "-r", "-L", "--threads", "2", "T"], cwd=links, stdout=f,
                       stderr=subprocess.STDOUT)
    got = (links / "log").read_text().splitlines()
    at = got.index("ksum: T/a/dangling: No such file or directory")
    assert got[at - 1].endswith("  T/a/b/x") and got[at + 1].endswith("  T/a/to_dir/k")


def test_unreadable_directory_as_an_unprivileged_user():
    user_cmd = unprivileged()[0]
    # As root the test runs ksum as nobody, who must be able to search every
    # directory above it: pytest's tmp_path (and perhaps TMPDIR) is private
    # to root, /tmp is not.  Not as root, ksum runs as the user, and /tmp may
    # not be writable: the default temporary directory.
    top = Path(tempfile.mkdtemp(prefix="ksum-walk-", dir="/tmp" if os.geteuid() == 0 else None))
    try:
        parent = top.parent
        while parent != parent.parent and os.geteuid() == 0:
            if not os.access(parent, os.X_OK) or (parent.stat().st_mode & 0o001) == 0:
                pytest.skip(f"{parent} is not searchable by others")
            parent = parent.parent
        top.chmod(0o755)
        shutil.copy(KSUM, top / "ksum")
        t = top / "T"
        (t / "closed").mkdir(parents=True)
        (t / "open").mkdir()
        (t / "closed" / "secret").write_bytes(b"s")
        (t / "open" / "f").write_bytes(b"f")
        (t / "a").write_bytes(b"a")
        (t / "unreadable").write_bytes(b"u")
        for p in (t, t / "open"):
            p.chmod(0o755)
        for p in (t / "open" / "f", t / "a"):
            p.chmod(0o644)
        # no permission at all: not as root, the user running ksum owns it
        (t / "closed").chmod(0)
        (t / "unreadable").chmod(0)
        for threads in ("1", "2"):
            p = subprocess.run(user_cmd + [str(top / "ksum"), "-r", "--threads", threads, "T"],
                               cwd=top, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            assert p.returncode == 1
            assert p.stdout.decode() == f"{sha3(b'a')}  T/a\n{sha3(b'f')}  T/open/f\n"
            assert p.stderr.decode() == ("ksum: T/closed: Permission denied\n"
                                         "ksum: T/unreadable: Permission denied\n")
    finally:
        if (top / "T" / "closed").exists():
            (top / "T" / "closed").chmod(0o700)   # for rmtree, not as root
        shutil.rmtree(top)


# ---- --files-from ----

def test_files_from_lines_and_nul(tree):
    (tree / "list").write_text("T/z\nT/a/y\nT/z\n")
    code, out, _ = run(["--files-from=list"], cwd=tree)
    assert code == 0
    want = [line(tree / n, n) for n in ("T/z", "T/a/y", "T/z")]
    assert out.decode().splitlines() == want
    (tree / "list0").write_bytes(b"T/z\0T/a/y\0T/z")   # the last without a NUL
    code, out, _ = run(["--files-from", "list0", "-z"], cwd=tree)
    assert code == 0 and out.decode().split("\0")[:-1] == want
    code, out, _ = run(["--files-from=-", "--threads", "1"], cwd=tree, input=b"T/z\nT/a/y\nT/z")
    assert code == 0 and out.decode().splitlines() == want


def test_files_from_with_recursion(tree):
    (tree / "list").write_text("T/a\nT/z\n")
    code, out, _ = run(["--files-from=list", "-r"], cwd=tree)
    assert code == 0
    assert [l.split("  ")[1] for l in out.decode().splitlines()] == \
        ["T/a/b/.hidden", "T/a/b/x", "T/a/y", "T/z"]


@pytest.mark.parametrize("threads", ["1", "2"])
def test_files_from_bad_names(tree, threads):
    (tree / "list").write_bytes(b"T/z\n\nmissing\nT/a\nT/a/y\nbad\0name\nT/Z\n")
    code, out, err = run(["--files-from=list", "--threads", threads], cwd=tree)
    assert code == 1
    assert out.decode().splitlines() == [line(tree / n, n) for n in ("T/z", "T/a/y", "T/Z")]
    assert err.splitlines() == [
        "ksum: list: 2: empty file name",
        "ksum: missing: No such file or directory",
        "ksum: T/a: Is a directory",
        "ksum: list: 6: file name with a NUL byte (-z reads NUL-separated names)"]


def test_files_from_stdin_naming_stdin(tree):
    code, out, err = run(["--files-from=-"], cwd=tree, input=b"T/z\n-\n/dev/stdin\nT/Z\n")
    assert code == 1
    assert out.decode().splitlines() == [line(tree / n, n) for n in ("T/z", "T/Z")]
    assert err.splitlines()[0] == "ksum: -: standard input is the list of names being read"


@pytest.mark.parametrize("listname", ["/dev/stdin", "/proc/self/fd/0"])
def test_files_from_stdin_by_another_name(tree, listname):
    # The list is the pipe on standard input under another name: a '-' in it
    # must not read the rest of the list as data (and drop those names).
    names = [b"T/z", b"-"] + [b"T/Z"] * 20000
    code, out, err = run(["--files-from=" + listname], cwd=tree, input=b"\n".join(names) + b"\n")
    assert code == 1
    assert out.decode().splitlines() == [line(tree / n, n) for n in ["T/z"] + ["T/Z"] * 20000]
    assert err.splitlines() == ["ksum: -: standard input is the list of names being read"]


@pytest.mark.parametrize("args,message", [
    (["--files-from=nope"], "ksum: nope: No such file or directory"),
    (["--files-from=T"], "ksum: T: Is a directory"),
])
def test_files_from_unreadable_list(tree, args, message):
    code, out, err = run(args, cwd=tree)
    assert code == 1 and out == b""
    assert err.splitlines() == [message]


@pytest.mark.parametrize("args,message", [
    (["--files-from=list", "T/z"], "ksum: file operands cannot be combined with --files-from"),
    (["-L", "T"], "ksum: --dereference is only meaningful with --recursive"),
    (["-c", "-r", "S"], "ksum: --recursive is not meaningful with --check"),
    (["-c", "--files-from=list"], "ksum: --files-from is not meaningful with --check"),
    (["-w", "T/z"], "ksum: the --warn option is meaningful only when verifying checksums"),
    (["-w", "--files-from=list"],
     "ksum: the --warn option is meaningful only when verifying checksums"),
    (["--raw", "-r", "T/z"], "ksum: the --raw option is not supported with multiple files"),
    (["--raw", "--files-from=list"],
     "ksum: the --raw option is not supported with multiple files"),
    (["--tuplehash128", "-r", "T"],
     "ksum: --recursive cannot be used with TUPLEHASH128, which hashes the FILEs as one tuple"),
    (["--tuplehash256", "--files-from=list"],
     "ksum: --files-from cannot be used with TUPLEHASH256, which hashes the FILEs as one tuple"),
])
def test_bad_usage(tree, args, message):
    (tree / "list").write_text("T/z\n")
    code, out, err = run(args, cwd=tree)
    assert code == 1 and out == b""
    assert message in err.splitlines()[0]
    assert err.rstrip("\n").endswith("Try 'ksum --help' for more information.")


def test_write_error_stops_the_walk(tree):
    p = subprocess.run(f"{KSUM} -r T > /dev/full", shell=True, cwd=tree,
                       stderr=subprocess.PIPE)
    assert p.returncode == 1
    assert p.stderr.decode() == "ksum: write error: No space left on device\n"


def test_deep_tree(tmp_path):
    d = tmp_path / "D"
    deep = d.joinpath(*["d"] * 120)
    deep.mkdir(parents=True)
    (deep / "f").write_bytes(b"deep")
    code, out, _ = run(["-r", "D"], cwd=tmp_path)
    assert code == 0
    assert out.decode() == f"{sha3(b'deep')}  D/{'d/' * 120}f\n"


def _peak_rss_kib(args, cwd):
    p = subprocess.Popen([KSUM] + args, cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return usage.ru_maxrss


@pytest.mark.skipif(SANITIZED, reason="the sanitizers' own memory hides ksum's")
def test_memory_does_not_grow_with_the_tree(tmp_path):
    """The walk holds only the directories on its path; the window a few
    hundred names: 40,000 files take no more memory than 2,000."""
    def make(root, dirs):
        for i in range(dirs):
            sub = root / f"d{i:03d}" / "sub"
            sub.mkdir(parents=True)
            for j in range(1000):
                (sub / f"f{j:04d}").write_bytes(b"%d" % j)
    make(tmp_path / "small", 2)
    make(tmp_path / "large", 40)
    for args in (["-r"], ["-r", "--threads", "1"], ["-r", "--sha3-512", "--shake256"]):
        small = _peak_rss_kib(args + ["small"], tmp_path)
        large = _peak_rss_kib(args + ["large"], tmp_path)
        assert large < small + 2048, f"{args}: {small} KiB for 2,000 files, {large} for 40,000"
