# SPDX-License-Identifier: Apache-2.0
"""One digest for a directory tree: `ksum --tree DIR` against an independent
implementation of docs/tree.md ("ksum tree v1"), written here from the
document alone: a plain walk with os.lstat, the SP 800-185 encodings of
keccak_ref, and hashlib, pycryptodome or keccak_ref for the algorithms.
Generated trees with awkward names (newlines, 0xff, spaces, backslashes),
deep nesting, empty directories, links, exec bits and excludes; the same
tree elsewhere and built in another order gives the same digest, and every
change the document counts gives another; check mode, the manifest, the
errors, the refusals, and memory that does not grow with the files."""
import base64
import fnmatch
import hashlib
import os
import resource
import random
import shutil
import socket
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

import keccak_ref as ref
import readme
from conftest import BUILD, KSUM, build_shim, run, unprivileged

HEADER = b"ksum tree v1"


# ---- the reference, from docs/tree.md ----

def digest(alg, data, size, key=b"", custom=b""):
    """The algorithm's digest of data, size bytes."""
    if alg == "sha3-256":
        return hashlib.sha3_256(data).digest()
    if alg == "sha3-512":
        return hashlib.sha3_512(data).digest()
    if alg == "shake128":
        return hashlib.shake_128(data).digest(size)
    if alg == "shake256":
        return hashlib.shake_256(data).digest(size)
    if alg == "k12":
        return ref.kt128(data, custom, size)
    if alg == "kmac128":
        return ref.kmac(128, key, data, size, custom)
    if alg == "cshake128":
        return ref.cshake(128, data, size, b"", custom)
    raise ValueError(alg)


# The length of the values inside a tree: a fixed digest's own, an XOF's
# capacity (twice its security strength).
INNER = {"sha3-256": 32, "sha3-512": 64, "shake128": 32, "shake256": 64, "k12": 32,
         "kmac128": 32, "cshake128": 32}


def excluded(patterns, rel, name, is_dir):
    """rsync's and tar's rule as docs/tree.md states it: a pattern without
    a slash matches the name, one with a slash the path from the DIR (a
    leading slash only anchors it), '*' never crossing a slash; a final
    slash matches directories only."""
    for p in patterns:
        p = os.fsencode(p)
        anchored = p.startswith(b"/")
        p = p[1:] if anchored else p
        if p.endswith(b"/"):
            if not is_dir:
                continue
            p = p[:-1]
        if b"/" in p or anchored:
            pp, rr = p.split(b"/"), rel.split(b"/")
            if len(pp) == len(rr) and all(fnmatch.fnmatchcase(r, q) for r, q in zip(rr, pp)):
                return True
        elif fnmatch.fnmatchcase(name, p):
            return True
    return False


def node(alg, top, rel=b"", excludes=(), **kw):
    """The encoding of the directory top/rel: the header, then each entry
    (name, type, value) in the byte order of the names."""
    here = os.path.join(top, rel) if rel else top
    out = ref.encode_string(HEADER)
    for name in sorted(os.listdir(here)):
        path, sub = os.path.join(here, name), (rel + b"/" + name if rel else name)
        st = os.lstat(path)
        if excluded(excludes, sub, name, stat.S_ISDIR(st.st_mode)):
            continue
        if stat.S_ISREG(st.st_mode):
            kind = b"x" if st.st_mode & stat.S_IXUSR else b"f"
            value = digest(alg, open(path, "rb").read(), INNER[alg], **kw)
        elif stat.S_ISLNK(st.st_mode):
            kind, value = b"l", digest(alg, os.readlink(path), INNER[alg], **kw)
        elif stat.S_ISDIR(st.st_mode):
            kind = b"d"
            value = digest(alg, node(alg, top, sub, excludes, **kw), INNER[alg], **kw)
        else:
            raise ValueError(path)
        out += ref.encode_string(name) + ref.encode_string(kind) + ref.encode_string(value)
    return out


def tree_digest(alg, top, size=None, excludes=(), **kw):
    top = os.fsencode(top)
    return digest(alg, node(alg, top, b"", excludes, **kw), size or INNER[alg], **kw)


# ---- generated trees ----

NAMES = [b"a", b"B", b"with space", b"new\nline", b"\xff\xfe", b"back\\slash", b"a-b",
         b"a0", b".hidden", b"\xc3\xa9t\xc3\xa9", b"x.o", b"tab\there"]


def make_tree(top, seed, depth=3):
    """A random tree under top: files of a few sizes, exec bits, links
    (to names in it and dangling), empty directories, awkward names."""
    rnd = random.Random(seed)
    top = os.fsencode(top)
    os.makedirs(top, exist_ok=True)

    def fill(d, level):
        for name in rnd.sample(NAMES, rnd.randint(2, 7)):
            path = os.path.join(d, name)
            r = rnd.random()
            if r < 0.25 and level < depth:
                os.mkdir(path)
                fill(path, level + 1)
            elif r < 0.32:
                os.mkdir(path)                      # empty
            elif r < 0.42:
                os.symlink(rnd.choice(NAMES + [b"../nowhere", b"."]), path)
            else:
                with open(path, "wb") as f:
                    f.write(rnd.randbytes(rnd.choice([0, 1, 100, 8191, 8193, 70000])))
                if rnd.random() < 0.3:
                    os.chmod(path, 0o755)
    fill(top, 0)
    return top


def ksum_tree(args, cwd=None):
    code, out, err = run(["--tree"] + args, cwd=cwd)
    assert code == 0, err
    assert err == ""
    return out.decode()


def hex_of(line):
    return line.split()[0]


# ---- against the reference ----

@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("alg,args,kw", [
    ("sha3-256", [], {}),
    ("sha3-512", ["--sha3-512"], {}),
    ("shake128", ["--shake128"], {}),
    ("shake256", ["--shake256"], {}),
    ("k12", ["--k12"], {}),
    ("k12", ["--k12", "-C", "tree app"], {"custom": b"tree app"}),
    ("kmac128", ["--kmac128", "-k", "000102030405"], {"key": bytes(range(6))}),
    ("cshake128", ["--cshake128", "-C", "c"], {"custom": b"c"}),
])
def test_matches_the_reference(tmp_path, seed, alg, args, kw):
    make_tree(tmp_path / "T", seed)
    want = tree_digest(alg, tmp_path / "T", **kw)
    got = ksum_tree(args + ["-n", str(len(want))] * (alg not in ("sha3-256", "sha3-512"))
                    + ["T"], cwd=tmp_path)
    assert got == f"{want.hex()}  T/\n"


@pytest.mark.parametrize("alg,size", [("shake256", 16), ("k12", 100), ("kmac128", 7),
                                      ("shake128", 3 << 20)])  # streamed, never held
def test_n_is_the_roots_length_only(tmp_path, alg, size):
    make_tree(tmp_path / "T", 7)
    kw = {"key": b"k"} if alg == "kmac128" else {}
    args = ["-k", "6b"] if kw else []
    got = ksum_tree([f"--{alg}", "-n", str(size)] + args + ["T"], cwd=tmp_path)
    assert hex_of(got) == tree_digest(alg, tmp_path / "T", size, **kw).hex()
    (tmp_path / "SUMS").write_text(got)
    assert run(["--tree", "-c", f"--{alg}", "-n", str(size)] + args + ["SUMS"],
               cwd=tmp_path)[:2] == (0, b"T/: OK\n")


def test_deep_nesting(tmp_path):
    d = tmp_path / "T"
    p = d
    for i in range(120):
        p = p / f"d{i % 3}"
    p.mkdir(parents=True)
    (p / "leaf").write_bytes(b"deep")
    assert hex_of(ksum_tree(["--k12", "T"], cwd=tmp_path)) == \
        tree_digest("k12", d, 16).hex()


def test_a_path_longer_than_path_max_is_refused_as_such(tmp_path):
    """A directory whose path is longer than PATH_MAX cannot be checked to
    be still there at its end: the tree is refused, naming it and that
    reason, not as a tree that changed while it was read."""
    (tmp_path / "T").mkdir()
    fd = os.open(tmp_path / "T", os.O_RDONLY)
    for _ in range(25):     # 25 names of 200 bytes: past 4096
        os.mkdir("d" * 200, dir_fd=fd)
        inner = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)
    code, out, err = run(["--tree", "T"], cwd=tmp_path)
    assert (code, out) == (1, b"")
    assert err.count("\n") == 1 and err.endswith(": File name too long\n"), err


@pytest.mark.parametrize("patterns", [["x.o"], ["*.o", "with space"], ["/a"], ["*/a"],
                                      ["a/"], ["\xff\xfe".encode("latin-1").decode(
                                          "utf-8", "surrogateescape")], ["[a-c]*"]])
def test_excludes(tmp_path, patterns):
    t = make_tree(tmp_path / "T", 3)
    os.makedirs(os.path.join(t, b"zz", b"a"), exist_ok=True)
    for name in (b"a", b"x.o", b"with space", b"\xff\xfe"):
        for d in (b"zz", b"zz/a"):
            open(os.path.join(t, d, name + b".f" * (d == b"zz" and name == b"a")), "wb").close()
    if not os.path.lexists(os.path.join(t, b"a")):
        os.mkdir(os.path.join(t, b"a"))
    args = []
    for p in patterns:
        args += ["--exclude", p]
    want = tree_digest("sha3-256", tmp_path / "T", excludes=patterns)
    assert ksum_tree(args + ["T"], cwd=tmp_path) == f"{want.hex()}  T/\n"
    assert want != tree_digest("sha3-256", tmp_path / "T")


def test_excluded_special_files_and_directories_are_absent(tmp_path):
    t = tmp_path / "T"
    (t / "build" / "deep").mkdir(parents=True)
    (t / "build" / "deep" / "o").write_bytes(b"o")
    (t / "src").mkdir()
    (t / "src" / "m.c").write_bytes(b"int main;")
    os.mkfifo(t / "src" / "fifo")
    clean = tmp_path / "C"
    (clean / "src").mkdir(parents=True)
    (clean / "src" / "m.c").write_bytes(b"int main;")
    got = ksum_tree(["--exclude", "build", "--exclude", "fifo", "T"], cwd=tmp_path)
    assert hex_of(got) == hex_of(ksum_tree(["C"], cwd=tmp_path))


# ---- what counts and what does not ----

def build(top, entries):
    """Makes the tree the list describes, in the list's order."""
    for path, what in entries:
        p = top / path
        p.parent.mkdir(parents=True, exist_ok=True)
        if what == "dir":
            p.mkdir(exist_ok=True)
        elif isinstance(what, tuple):
            os.symlink(what[1], p)
        else:
            p.write_bytes(what)


BASE = [("a/x", b"x"), ("a/y", b""), ("b/deep/z", b"z" * 9000), ("empty", "dir"),
        ("link", ("link", "a/x")), ("top", b"top"), ("run.sh", b"#!/bin/sh\n")]


def digest_of(top, *args):
    return hex_of(ksum_tree(list(args) + [str(top)]))


def test_same_tree_in_another_order_and_place(tmp_path):
    build(tmp_path / "one", BASE)
    build(tmp_path / "two" / "elsewhere" / "copy", list(reversed(BASE)))
    assert digest_of(tmp_path / "one") == digest_of(tmp_path / "two" / "elsewhere" / "copy")
    shutil.copytree(tmp_path / "one", tmp_path / "three", symlinks=True)
    os.utime(tmp_path / "three" / "top", (0, 0))                # times do not count
    os.chmod(tmp_path / "three" / "top", 0o600)                 # nor other mode bits
    os.link(tmp_path / "three" / "a" / "x", tmp_path / "hard")  # nor hard links
    os.unlink(tmp_path / "three" / "a" / "x")
    os.link(tmp_path / "hard", tmp_path / "three" / "a" / "x")
    if os.geteuid() == 0:                                       # nor owners
        os.chown(tmp_path / "three" / "a" / "y", 65534, 65534)
        os.lchown(tmp_path / "three" / "link", 65534, 65534)
    assert digest_of(tmp_path / "one") == digest_of(tmp_path / "three")
    assert digest_of(tmp_path / "one") == digest_of(Path(os.path.relpath(tmp_path / "one")))


def change_content(t): (t / "a" / "x").write_bytes(b"X")
def rename(t): os.rename(t / "a" / "x", t / "a" / "x2")
def add_file(t): (t / "new").write_bytes(b"")
def add_empty_dir(t): (t / "a" / "e").mkdir()
def remove_empty_dir(t): (t / "empty").rmdir()
def exec_bit(t): os.chmod(t / "top", 0o744)
def retarget(t): os.unlink(t / "link"); os.symlink("a/y", t / "link")
def link_to_file(t): os.unlink(t / "link"); (t / "link").write_bytes(b"a/x")
def file_to_dir(t): os.unlink(t / "top"); (t / "top").mkdir()
def move(t): os.rename(t / "a" / "x", t / "b" / "x")
def empty_file_to_dir(t): os.unlink(t / "a" / "y"); (t / "a" / "y").mkdir()
def boundary(t): os.rename(t / "top", t / "to"); (t / "to").write_bytes(b"ptop")


@pytest.mark.parametrize("change", [change_content, rename, add_file, add_empty_dir,
                                    remove_empty_dir, exec_bit, retarget, link_to_file,
                                    file_to_dir, move, empty_file_to_dir, boundary])
def test_every_change_gives_another_digest(tmp_path, change):
    build(tmp_path / "T", BASE)
    os.chmod(tmp_path / "T" / "run.sh", 0o755)
    before = digest_of(tmp_path / "T")
    change(tmp_path / "T")
    after = digest_of(tmp_path / "T")
    assert before != after
    assert after == tree_digest("sha3-256", tmp_path / "T").hex()


def test_a_tree_is_not_a_file(tmp_path):
    """Separation by the header: an empty directory's digest is no file's
    but that of a file holding exactly the header's encoding, the residual
    case docs/tree.md states."""
    (tmp_path / "E").mkdir()
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "node").write_bytes(ref.encode_string(HEADER))
    tree = digest_of(tmp_path / "E")
    code, out, _ = run([str(tmp_path / "empty"), str(tmp_path / "node")])
    empty, node_file = [hex_of(line) for line in out.decode().splitlines()]
    assert tree != empty and tree == node_file


# ---- forms and check mode ----

def test_forms(tmp_path):
    build(tmp_path / "T", BASE)
    h = tree_digest("sha3-256", tmp_path / "T").hex()
    assert ksum_tree(["--tag", "T"], cwd=tmp_path) == f"SHA3-256 (T/) = {h}\n"
    assert ksum_tree(["-z", "T/"], cwd=tmp_path) == f"{h}  T/\0"
    assert ksum_tree(["--no-names", "./T"], cwd=tmp_path) == f"{h}\n"
    b64 = base64.b64encode(bytes.fromhex(h)).decode()
    assert ksum_tree(["--base64", "T"], cwd=tmp_path) == f"{b64}  T/\n"
    (tmp_path / "B64").write_text(f"{b64}  T/\n")
    assert run(["--tree", "-c", "B64"], cwd=tmp_path)[:2] == (0, b"T/: OK\n")
    assert ksum_tree(["--tag", "--k12", "-n", "8", "T"], cwd=tmp_path) == \
        f"KANGAROOTWELVE-64 (T/) = {tree_digest('k12', tmp_path / 'T', 8).hex()}\n"
    two = ksum_tree(["-a", "sha3-256,k12", "T"], cwd=tmp_path)
    assert two == f"SHA3-256 (T/) = {h}\n" \
                  f"KANGAROOTWELVE (T/) = {tree_digest('k12', tmp_path / 'T', 16).hex()}\n"


@pytest.mark.parametrize("threads", ["1", "2", "4"])
@pytest.mark.parametrize("batch", ["0", "1"])
def test_threads_and_batches_agree(tmp_path, threads, batch):
    make_tree(tmp_path / "T", 11, depth=4)
    env = dict(os.environ, KSUM_BATCH=batch)
    p = subprocess.run([KSUM, "--tree", "--k12", "--threads", threads, "T"], cwd=tmp_path,
                       env=env, stdout=subprocess.PIPE, check=True)
    assert hex_of(p.stdout.decode()) == tree_digest("k12", tmp_path / "T", 16).hex()


def test_check(tmp_path):
    build(tmp_path / "T", BASE)
    build(tmp_path / "U", BASE)
    sums = ksum_tree(["T", "U"], cwd=tmp_path)
    (tmp_path / "SUMS").write_text(sums)
    assert run(["--tree", "-c", "SUMS"], cwd=tmp_path)[:2] == (0, b"T/: OK\nU/: OK\n")
    (tmp_path / "U" / "a" / "x").write_bytes(b"changed")
    code, out, err = run(["--tree", "-c", "SUMS"], cwd=tmp_path)
    assert (code, out) == (1, b"T/: OK\nU/: FAILED\n")
    assert "1 computed checksum did NOT match" in err
    # Without --tree a tree's line is not taken for a file.
    code, out, err = run(["-c", "SUMS"], cwd=tmp_path)
    assert code == 1 and b"T/: FAILED open or read" in out
    assert "ksum: T/: a directory tree's line: check it with --tree" in err


def test_check_a_missing_tree(tmp_path):
    (tmp_path / "SUMS").write_text("00" * 32 + "  gone/\n")
    code, out, err = run(["--tree", "-c", "SUMS"], cwd=tmp_path)
    assert (code, out) == (1, b"gone/: FAILED open or read\n")
    assert "ksum: gone/: No such file or directory" in err
    assert run(["--tree", "-c", "--ignore-missing", "SUMS"], cwd=tmp_path)[0] == 1
    (tmp_path / "SUMS").write_text(ksum_tree(["--exclude", "SUMS", "."], cwd=tmp_path) +
                                   "00" * 32 + "  gone/\n")
    assert run(["--tree", "-c", "--exclude", "SUMS", "--ignore-missing", "SUMS"],
               cwd=tmp_path)[:2] == (0, b"./: OK\n")


def test_check_a_directory_replaced_by_a_file(tmp_path):
    build(tmp_path / "T", BASE)
    (tmp_path / "SUMS").write_text(ksum_tree(["--manifest", "T"], cwd=tmp_path))
    shutil.rmtree(tmp_path / "T" / "b" / "deep")
    (tmp_path / "T" / "b" / "deep").write_bytes(b"")
    code, out, err = run(["--tree", "-c", "SUMS"], cwd=tmp_path)
    assert code == 1
    assert b"T/b/deep/: FAILED open or read" in out and b"T/b/deep/z: FAILED open" in out
    assert "T/b/deep/: Not a directory" in err


def test_keyed_check(tmp_path):
    build(tmp_path / "T", BASE)
    (tmp_path / "SUMS").write_text(ksum_tree(["--kmac128", "-k", "aa", "T"], cwd=tmp_path))
    assert run(["--tree", "-c", "--kmac128", "-k", "aa", "SUMS"], cwd=tmp_path)[:2] == \
        (0, b"T/: OK\n")
    assert run(["--tree", "-c", "--kmac128", "-k", "ab", "SUMS"], cwd=tmp_path)[:2] == \
        (1, b"T/: FAILED\n")


def test_manifest_names_what_changed(tmp_path):
    build(tmp_path / "T", BASE)
    manifest = ksum_tree(["--manifest", "--k12", "T"], cwd=tmp_path)
    lines = manifest.splitlines()
    assert [line.split("  ", 1)[1] for line in lines] == [
        "T/a/x", "T/a/y", "T/a/", "T/b/deep/z", "T/b/deep/", "T/b/", "T/empty/", "T/run.sh",
        "T/top", "T/"]
    assert lines[-1] == ksum_tree(["--k12", "T"], cwd=tmp_path).rstrip("\n")
    shutil.copytree(tmp_path / "T", tmp_path / "copy", symlinks=True)
    (tmp_path / "copy" / "b" / "deep" / "z").write_bytes(b"other")
    (tmp_path / "M").write_text(manifest.replace("  T/", "  copy/"))
    code, out, _ = run(["--tree", "-c", "--k12", "--quiet", "M"], cwd=tmp_path)
    assert (code, out) == (1, b"copy/b/deep/z: FAILED\ncopy/b/deep/: FAILED\n"
                              b"copy/b/: FAILED\ncopy/: FAILED\n")


def test_manifest_escapes_names(tmp_path):
    t = make_tree(tmp_path / "T", 5)
    code, out, err = run(["--tree", "--manifest", "-z", "T"], cwd=tmp_path)
    assert code == 0
    names = [entry.split(b"  ", 1)[1] for entry in out.split(b"\0")[:-1]]
    assert b"T/" in names and all(n.startswith(b"T/") for n in names)
    code, out, _ = run(["--tree", "--manifest", "T"], cwd=tmp_path)
    (tmp_path / "M").write_bytes(out)
    code, out, err = run(["--tree", "-c", "M"], cwd=tmp_path)
    assert code == 0, err
    assert t


# ---- errors ----

def make_socket(path):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()


@pytest.mark.parametrize("excluded_too", [False, True])
@pytest.mark.parametrize("make", [os.mkfifo, make_socket])
def test_special_file_is_an_error_naming_it(tmp_path, excluded_too, make):
    build(tmp_path / "T", BASE)
    make(tmp_path / "T" / "a" / "pipe")
    args = ["--exclude", "a/pipe"] if excluded_too else []
    code, out, err = run(["--tree"] + args + ["T", "--", "T"], cwd=tmp_path)
    if excluded_too:
        assert code == 0 and err == ""
        return
    assert code == 1 and out == b""
    assert err.count("ksum: T/a/pipe: not a regular file: a FIFO, socket or device") == 2


SHIM = os.path.join(BUILD, "tests", "fault_shim.so")


@pytest.mark.skipif(os.environ.get("KSUM_SANITIZED") == "1" or not os.path.exists(SHIM),
                    reason="the LD_PRELOAD shim cannot go before a sanitizer runtime")
@pytest.mark.parametrize("mode", ["truncate", "grow", "overwrite"])
@pytest.mark.parametrize("args", [["--threads", "1"], ["--threads", "2"], ["--k12"],
                                  ["-c", "SUMS"]])
def test_a_file_that_changes_while_hashed(tmp_path, mode, args):
    """As for -r (the fault shim of test_faults.py changes the file once a
    MiB of it was read): an error naming it, no digest."""
    build(tmp_path / "T", BASE + [("sub/bad", os.urandom(3 << 20))])
    (tmp_path / "SUMS").write_text(ksum_tree(["T"], cwd=tmp_path))
    env = dict(os.environ, LD_PRELOAD=SHIM, KSUM_FAULT_MODE=mode,
               KSUM_FAULT_AFTER=str((1 << 20) + 7),
               KSUM_FAULT_PATH=str(tmp_path / "T" / "sub" / "bad"))
    p = subprocess.run([KSUM, "--tree"] + args + ["T"] * (args[0] != "-c"), cwd=tmp_path,
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 1
    assert p.stderr.decode().startswith("ksum: T/sub/bad: file changed while it was read\n")
    assert p.stdout == (b"T/: FAILED open or read\n" if args[0] == "-c" else b"")


def test_not_a_directory(tmp_path):
    (tmp_path / "f").write_bytes(b"f")
    code, out, err = run(["--tree", "f", "missing"], cwd=tmp_path)
    assert (code, out) == (1, b"")
    assert err == "ksum: f: Not a directory\nksum: missing: No such file or directory\n"


def test_unreadable_as_an_unprivileged_user():
    user_cmd = unprivileged()[0]
    top = Path(tempfile.mkdtemp(prefix="ksum-tree-", dir="/tmp" if os.geteuid() == 0 else None))
    try:
        top.chmod(0o755)
        shutil.copy(KSUM, top / "ksum")
        t = top / "T"
        build(t, [("closed/s", b"s"), ("open/f", b"f"), ("secret", b"x")])
        for p in (t, t / "open", t / "closed"):
            p.chmod(0o755)
        for p in (t / "open" / "f", t / "secret", t / "closed" / "s"):
            p.chmod(0o644)
        (t / "closed").chmod(0o300)
        (t / "secret").chmod(0o200)
        p = subprocess.run(user_cmd + [str(top / "ksum"), "--tree", "T"], cwd=top,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert (p.returncode, p.stdout) == (1, b"")
        err = p.stderr.decode()
        assert "ksum: T/closed: Permission denied" in err
        assert "ksum: T/secret: Permission denied" in err
    finally:
        (top / "T" / "closed").chmod(0o755)
        shutil.rmtree(top)


@pytest.mark.parametrize("pattern", ["/build", "sub/*.tmp", "sub/cache/"])
def test_manifest_refuses_excludes_on_paths(tmp_path, pattern):
    # A pattern with a slash is matched on the path from DIR, but check mode
    # hashes a manifest's inner directory lines as DIRs of their own: the
    # same pattern would match other entries there, and an unchanged tree
    # would fail its check.  Such a manifest is refused when made.
    (tmp_path / "T" / "sub" / "build").mkdir(parents=True)
    (tmp_path / "T" / "sub" / "build" / "x").write_bytes(b"1")
    (tmp_path / "T" / "sub" / "k.tmp").write_bytes(b"2")
    code, out, err = run(["--tree", "--manifest", "--exclude", pattern, "T"], cwd=tmp_path)
    assert code == 1 and out == b""
    assert "--manifest cannot be used with an --exclude holding a slash" in err
    # without a slash, the pattern matches alike at every depth: checked OK
    code, out, err = run(["--tree", "--manifest", "--exclude", "*.tmp", "T"], cwd=tmp_path)
    assert code == 0
    (tmp_path / "M").write_bytes(out)
    code, out, err = run(["--tree", "-c", "--exclude", "*.tmp", "M"], cwd=tmp_path)
    assert code == 0 and b"FAILED" not in out


@pytest.mark.parametrize("args,message", [
    (["--tree", "-r", "T"], "--tree cannot be used with --recursive"),
    (["--tree", "--part", "1/2", "T"], "--tree cannot be used with --part"),
    (["--tree", "--combine", "T"], "--tree cannot be used with --combine"),
    (["--tree", "--tuplehash128", "T"], "--tree cannot be used with TUPLEHASH128"),
    (["--exclude", "x", "T"], "--exclude is only meaningful with --tree"),
    (["--manifest", "T"], "--manifest is only meaningful with --tree"),
    (["--tree"], "--tree needs a DIR operand"),
    (["--tree", "-c", "--manifest", "T"], "--manifest is not meaningful with --check"),
    (["--tree", "--manifest", "--raw", "T"], "--raw and --manifest are mutually exclusive"),
])
def test_refusals(tmp_path, args, message):
    code, out, err = run(args, cwd=tmp_path)
    assert code == 1 and out == b"" and message in err
    if "--tree cannot be used with --" in message:
        assert err == f"ksum: {message}\n"      # one line


# ---- bounded memory ----

def peak_rss_kib(args, cwd):
    p = subprocess.Popen([KSUM] + args, cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    assert status == 0
    return usage.ru_maxrss


@pytest.mark.skipif(os.environ.get("KSUM_SANITIZED") == "1",
                    reason="AddressSanitizer keeps freed memory in quarantine: resident size grows")
def test_memory_does_not_grow_with_the_files(tmp_path):
    """A tenth of the files or all of them: the same memory, give or take
    the widest directory's names (bench/tree.sh has a million files)."""
    for name, count in (("small", 300), ("large", 6000)):
        for d in range(3):
            (tmp_path / name / f"d{d}").mkdir(parents=True)
            for i in range(count // 3):
                (tmp_path / name / f"d{d}" / f"f{i}").write_bytes(b"")
    small = peak_rss_kib(["--tree", "--k12", "--threads", "2", "small"], tmp_path)
    large = peak_rss_kib(["--tree", "--k12", "--threads", "2", "large"], tmp_path)
    assert large < small + 2048, (small, large)


# ---- the document's vectors ----

def test_document_vectors_by_the_reference(tmp_path):
    """docs/tree.md's test vectors, reproduced by this reference from the
    commands that build its tree."""
    body = readme.block("Test vectors", "console", doc="docs/tree.md")
    for line in body.splitlines():
        if line.startswith("$ ") and "ksum" not in line:
            subprocess.run(["bash", "-c", line[2:]], cwd=tmp_path, check=True)
    want = {}
    cmd = None
    for line in body.splitlines():
        if line.startswith("$ "):
            cmd = line[2:]
        elif cmd is not None and "ksum --tree" in cmd:
            want[(cmd, line)] = line
    assert want
    for cmd, line in want:
        alg = "k12" if "--k12" in cmd else "shake256" if "--shake256" in cmd else "sha3-256"
        size = {"k12": 16, "shake256": 32, "sha3-256": 32}[alg]
        if line.endswith("  T/"):
            assert hex_of(line) == tree_digest(alg, tmp_path / "T", size).hex(), cmd


def test_exclude_on_a_long_path(tmp_path):
    """A path from DIR longer than any buffer on the stack is matched too."""
    p = tmp_path / "T"
    for i in range(12):
        p = p / (chr(ord("a") + i) * 60)
    p.mkdir(parents=True)
    (p / "leaf").write_bytes(b"l")
    (p / "kept").write_bytes(b"k")
    pattern = "/".join(["*"] * 12) + "/leaf"
    want = tree_digest("sha3-256", tmp_path / "T", excludes=[pattern])
    assert want != tree_digest("sha3-256", tmp_path / "T")
    assert ksum_tree(["--exclude", pattern, "T"], cwd=tmp_path) == f"{want.hex()}  T/\n"


def test_dir_reached_through_a_link(tmp_path):
    """DIR itself may be a link to a directory (as under -r); the links
    inside are never followed."""
    build(tmp_path / "T", BASE)
    os.symlink("T", tmp_path / "L")
    os.symlink("../b", tmp_path / "T" / "a" / "up")
    assert ksum_tree(["L"], cwd=tmp_path) == \
        f"{tree_digest('sha3-256', tmp_path / 'T').hex()}  L/\n"


@pytest.mark.skipif(os.environ.get("KSUM_SANITIZED") == "1" or not os.path.exists(SHIM),
                    reason="the LD_PRELOAD shim cannot go before a sanitizer runtime")
@pytest.mark.parametrize("check", [False, True])
def test_memory_that_runs_out_in_a_tree(tmp_path, check):
    """Every allocation from the Nth on fails, for every N: ksum says so
    and exits 1, or prints the right lines; never a crash or a hang, never
    a line that is not the tree's, never a failure left unsaid."""
    build(tmp_path / "T", BASE)
    want = subprocess.run([KSUM, "--tree", "--manifest", "T"], cwd=tmp_path, check=True,
                          stdout=subprocess.PIPE).stdout
    (tmp_path / "M").write_bytes(want)
    args = ["--tree", "--threads", "2"] + (["-c", "M"] if check else ["--manifest", "T"])
    if check:
        want = b"".join(line.split(b"  ", 1)[1] + b": OK\n" for line in want.splitlines())
    env = dict(os.environ, LD_PRELOAD=SHIM, KSUM_FAULT_ALLOC_SCOPE="ksum")
    count = tmp_path / "count"
    subprocess.run([KSUM] + args, cwd=tmp_path, env=dict(env, KSUM_FAULT_ALLOC_COUNT=str(count)),
                   check=True, stdout=subprocess.PIPE)
    bad = []
    for n in range(1, int(count.read_text()) + 3):
        p = subprocess.run([KSUM] + args, cwd=tmp_path, env=dict(env, KSUM_FAULT_ALLOC_FROM=str(n)),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        # a tree that memory could not hold is not read, as a file that could not be
        wrong = [x for x in p.stdout.splitlines(keepends=True)
                 if x not in want and not x.endswith(b": FAILED open or read\n")]
        if p.returncode not in (0, 1) or (p.returncode == 0 and p.stdout != want) or wrong \
                or (p.returncode == 1 and not p.stderr):
            bad.append(f"N={n}: exit {p.returncode}, {p.stdout[-200:]!r}, {p.stderr[:200]!r}")
    assert not bad, "\n".join(bad[:10])


# Swaps a directory for a link out of the tree the first time ksum opens a
# given path (or, through openat, its last name): the moment between reading
# a directory and opening what is in it, where a race would put it.  With
# SWAP_BACK the directory is put back once that open is made, so that
# nothing is left to see at the directory's end; SWAP_TO.swapped says it
# was made.
SWAP_SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int done;
static __thread int mine;   /* this thread made the swap: it puts it back */

static void aside(char *buf, size_t size)
{
    snprintf(buf, size, "%s.aside", getenv("SWAP_DIR"));
}

static void swap(const char *path, int relative)
{
    const char *at = getenv("SWAP_AT"), *last = at ? strrchr(at, '/') : NULL;
    char buf[4096];
    size_t n = strlen(path), m = at ? strlen(at) : 0;

    if (done || at == NULL)
        return;
    if (relative ? last == NULL || strcmp(path, last + 1) != 0
                 : n < m || strcmp(path + n - m, at) != 0)
        return;
    done = mine = 1;
    aside(buf, sizeof buf);
    if (rename(getenv("SWAP_DIR"), buf) != 0 || symlink(getenv("SWAP_TO"), getenv("SWAP_DIR")))
        abort();
    snprintf(buf, sizeof buf, "%s.swapped", getenv("SWAP_TO"));
    close(creat(buf, 0600));
}

static int back(int fd)
{
    char buf[4096];

    if (mine && getenv("SWAP_BACK") != NULL) {
        mine = 0;
        aside(buf, sizeof buf);
        if (unlink(getenv("SWAP_DIR")) != 0 || rename(buf, getenv("SWAP_DIR")) != 0)
            abort();
    }
    return fd;
}

#define WRAP(name)                                                  \
    int name(const char *path, int flags, ...)                      \
    {                                                               \
        static int (*real)(const char *, int, ...);                 \
        va_list ap;                                                 \
        int mode;                                                   \
        va_start(ap, flags);                                        \
        mode = va_arg(ap, int);                                     \
        va_end(ap);                                                 \
        if (real == NULL)                                           \
            real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name); \
        swap(path, 0);                                              \
        return back(real(path, flags, mode));                       \
    }
WRAP(open)
WRAP(open64)

#define WRAP_AT(name)                                               \
    int name(int dir, const char *path, int flags, ...)             \
    {                                                               \
        static int (*real)(int, const char *, int, ...);            \
        va_list ap;                                                 \
        int mode;                                                   \
        va_start(ap, flags);                                        \
        mode = va_arg(ap, int);                                     \
        va_end(ap);                                                 \
        if (real == NULL)                                           \
            real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, #name); \
        swap(path, dir != AT_FDCWD);                                \
        return back(real(dir, path, flags, mode));                  \
    }
WRAP_AT(openat)
WRAP_AT(openat64)

int __open_2(const char *path, int flags)
{
    static int (*real)(const char *, int);
    if (real == NULL)
        real = (int (*)(const char *, int))dlsym(RTLD_NEXT, "__open_2");
    swap(path, 0);
    return back(real(path, flags));
}

int __openat_2(int dir, const char *path, int flags)
{
    static int (*real)(int, const char *, int);
    if (real == NULL)
        real = (int (*)(int, const char *, int))dlsym(RTLD_NEXT, "__openat_2");
    swap(path, dir != AT_FDCWD);
    return back(real(dir, path, flags));
}
"""


@pytest.mark.parametrize("at", ["T/sub/etc", "T/sub/a", "T/sub/zz"])
def test_a_directory_swapped_for_a_link_is_not_followed(tmp_path, tmp_path_factory, at):
    """T/sub is read, then replaced by a link to a directory outside with
    the same names before what is in it is opened: nothing outside is
    hashed, and T gets no digest (it changed while it was walked)."""
    shim = build_shim(tmp_path_factory, "swapdir", SWAP_SHIM)
    build(tmp_path / "T", [("sub/a", b"a"), ("sub/etc/inside", b"i"), ("sub/zz", b"z")])
    build(tmp_path / "O", [("a", b"A"), ("etc/SECRET", b"s"), ("zz", b"Z")])
    env = dict(os.environ, LD_PRELOAD=shim, SWAP_AT=at, SWAP_DIR=str(tmp_path / "T" / "sub"),
               SWAP_TO=str(tmp_path / "O"))
    p = subprocess.run([KSUM, "--tree", "--manifest", "--threads", "2", "T"], cwd=tmp_path,
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert (tmp_path / "T" / "sub").is_symlink()         # the swap was made
    assert b"SECRET" not in p.stdout and b"T/\n" not in p.stdout
    assert p.returncode == 1
    # the walk says the swap, or a worker a file it no longer finds
    assert "file changed while it was read" in p.stderr.decode() or \
        "No such file or directory" in p.stderr.decode()


@pytest.mark.parametrize("threads", ["1", "2"])
@pytest.mark.parametrize("at", ["T/sub/etc", "T/sub/a", "T/sub/zz"])
def test_a_directory_swapped_and_put_back_is_not_read_through(tmp_path, at, threads):
    """T/sub is replaced by a link out of the tree for the moment an entry
    of it is opened, then put back: what is hashed is still what the walk
    listed (opened from the directory read, not by its path): every line
    of the manifest is one of T untouched.  A directory whose path was
    checked while swapped (at its end, the printing thread beside the
    workers) is named as changed, and T gets no digest."""
    shim = build_shim(None, "swapdir", SWAP_SHIM)
    build(tmp_path / "T", [("sub/a", b"a"), ("sub/etc/inside", b"i"), ("sub/zz", b"z")])
    build(tmp_path / "O", [("a", b"A"), ("etc/SECRET", b"s"), ("zz", b"Z")])
    args = ["--tree", "--manifest", "--threads", threads, "T"]
    want = subprocess.run([KSUM] + args, cwd=tmp_path, stdout=subprocess.PIPE, check=True).stdout
    env = dict(os.environ, LD_PRELOAD=shim, SWAP_AT=at, SWAP_DIR=str(tmp_path / "T" / "sub"),
               SWAP_TO=str(tmp_path / "O"), SWAP_BACK="1")
    p = subprocess.run([KSUM] + args, cwd=tmp_path, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert (tmp_path / "O.swapped").exists()
    assert (tmp_path / "T" / "sub").is_dir() and not (tmp_path / "T" / "sub.aside").exists()
    assert set(p.stdout.splitlines()) <= set(want.splitlines())
    if p.returncode != 0 or p.stdout != want:
        assert p.returncode == 1 and b"T/sub" in p.stderr and b"changed" in p.stderr


@pytest.mark.parametrize("limit", [24, 64])
def test_directories_held_open_fit_a_low_descriptor_limit(tmp_path, limit):
    """Every file is opened in its directory, held open while the file
    waits in the road's window: a low ulimit -n means fewer files in
    flight, never a directory or a file failed for it."""
    build(tmp_path / "T", [(f"d{i:03}/f", str(i).encode()) for i in range(300)])
    want = ksum_tree(["--threads", "8", "T"], cwd=tmp_path)
    p = subprocess.run([KSUM, "--tree", "--threads", "8", "T"], cwd=tmp_path,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE,
                                                             (limit, limit)))
    assert (p.returncode, p.stdout.decode(), p.stderr) == (0, want, b"")


@pytest.mark.parametrize("threads", ["1", "2"])
def test_a_file_named_dash_is_that_file(tmp_path, threads):
    """Entries are opened by their names in their directory: one named
    "-" is that file, never standard input."""
    build(tmp_path / "T", [("-", b"dash\n"), ("a", b"a")])
    p = subprocess.run([KSUM, "--tree", "--manifest", "--threads", threads, "T"], cwd=tmp_path,
                       input=b"standard input\n", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 0 and p.stderr == b""
    assert p.stdout.splitlines()[0] == hashlib.sha3_256(b"dash\n").hexdigest().encode() + b"  T/-"
