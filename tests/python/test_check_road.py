# SPDX-License-Identifier: Apache-2.0
"""Check mode on the road of `ksum FILE...` (issue 21, item 5): the files a
list names are hashed by the same workers and batches, several at once, yet
every line is still answered in the list's order, with the messages of
missing files, directories, FIFOs and malformed lines and the summaries in
their places (standard error merged into standard output shows the order),
on every road: one thread, batched on one, several workers, unbatched."""
import hashlib
import os
import random
import resource
import subprocess

import pytest

from conftest import KSUM, run

MiB = 1 << 20
ROADS = {"one at a time": (["--threads", "1"], {"KSUM_BATCH": "0"}),
         "batched on one thread": (["--threads", "1"], {}),
         "two workers": (["--threads", "2"], {}),
         "two workers unbatched": (["--threads", "2"], {"KSUM_BATCH": "0"}),
         "seven workers": (["--threads", "7"], {})}
KEY = "000102030405060708090a0b0c0d0e0f"


def sha3(data):
    return hashlib.sha3_256(data).hexdigest()


def merged(args, cwd, road, input=None, stdin=None):
    """Exit status and standard output with standard error merged into it, in
    the order written."""
    extra, env = ROADS[road]
    p = subprocess.run([KSUM] + extra + args, cwd=cwd, input=input, stdin=stdin,
                       env=dict(os.environ, **env), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=300)
    return p.returncode, p.stdout.decode("utf-8", "replace")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    d = tmp_path_factory.mktemp("road")
    rng = random.Random(21)
    sizes = [rng.choice([0, 1, 135, 136, 8191, 8193, 70000, rng.randrange(200000)])
             for _ in range(200)] + [3 * MiB + 5, 9 * MiB]
    files = {}
    for i, size in enumerate(sizes):
        data = rng.randbytes(size)
        (d / f"f{i:03d}").write_bytes(data)
        files[f"f{i:03d}"] = data
    (d / "dir").mkdir()
    os.mkfifo(d / "fifo")   # no writer: a read would wait forever
    return d, files


def warnings(label, malformed=0, unreadable=0, mismatched=0, keyless=0):
    lines = []
    if malformed:
        lines.append(f"ksum: WARNING: {label}: {malformed} "
                     + ("line is improperly formatted" if malformed == 1
                        else "lines are improperly formatted"))
    if unreadable:
        lines.append(f"ksum: WARNING: {label}: {unreadable} "
                     + ("listed file could not be read" if unreadable == 1
                        else "listed files could not be read"))
    if mismatched:
        lines.append(f"ksum: WARNING: {label}: {mismatched} "
                     + ("computed checksum did NOT match" if mismatched == 1
                        else "computed checksums did NOT match"))
    if keyless:
        lines.append(f"ksum: WARNING: {label}: {keyless} KMAC "
                     + ("line was" if keyless == 1 else "lines were")
                     + " checked with the empty key (no key given), which anyone can compute")
    return lines


def mixed_list(files, rng):
    """A list of every kind of line, each file named twice, in random order;
    the lines and the merged output predicted for them (with -w)."""
    kinds = []
    for name, data in files.items():
        kinds += [("ok", name, data), ("ok", name, data)]
    kinds += [("wrong", n, files[n]) for n in rng.sample(sorted(files), 20)]
    kinds += [("missing", f"missing{i}", b"") for i in range(30)]
    kinds += [("notreg", "dir", b""), ("notreg", "fifo", b""), ("notreg", "/dev/null", b"")]
    kinds += [("malformed", "x", b"")] * 10 + [("blank", "", b""), ("comment", "", b"")] * 5
    rng.shuffle(kinds)
    lines, want, counts = [], [], {"malformed": 0, "unreadable": 0, "mismatched": 0}
    for number, (kind, name, data) in enumerate(kinds, 1):
        if kind == "blank":
            lines.append("")
        elif kind == "comment":
            lines.append("# a comment")
        elif kind == "malformed":
            lines.append("not a checksum line")
            want.append(f"ksum: L: {number}: improperly formatted checksum line")
            counts["malformed"] += 1
        elif kind == "wrong":
            lines.append(f"{sha3(data + b'!')}  {name}")
            want.append(f"{name}: FAILED")
            counts["mismatched"] += 1
        else:
            lines.append(f"{sha3(data)}  {name}")
            if kind == "ok":
                want.append(f"{name}: OK")
                continue
            reason = "No such file or directory" if kind == "missing" else "not a regular file"
            want += [f"ksum: {name}: {reason}", f"{name}: FAILED open or read"]
            counts["unreadable"] += 1
    want += warnings("L", counts["malformed"], counts["unreadable"], counts["mismatched"])
    return "\n".join(lines) + "\n", "\n".join(want) + "\n"


@pytest.mark.parametrize("road", sorted(ROADS))
def test_every_line_in_its_place(tree, road):
    d, files = tree
    text, want = mixed_list(files, random.Random(5))
    (d / "L").write_text(text)
    assert merged(["-c", "-w", "L"], d, road) == (1, want)


@pytest.mark.parametrize("road", sorted(ROADS))
def test_a_list_given_twice_and_a_missing_one(tree, road):
    d, files = tree
    names = sorted(files)[:50]
    (d / "L2").write_text("".join(f"{sha3(files[n])}  {n}\n" for n in names))
    one = "".join(f"{n}: OK\n" for n in names)
    code, out = merged(["-c", "L2", "nolist", "L2"], d, road)
    assert (code, out) == (1, one + "ksum: nolist: No such file or directory\n" + one)


@pytest.mark.parametrize("road", sorted(ROADS))
def test_many_missing_files(tree, road):
    """100,000 lines of missing files among real ones: each answered in its
    place, and memory bounded (the list is read through a window)."""
    d, files = tree
    names = sorted(files)
    lines, want = [], []
    for i in range(100000):
        if i % 1000 == 0:
            n = names[(i // 1000) % len(names)]
            lines.append(f"{sha3(files[n])}  {n}")
            want.append(f"{n}: OK")
        else:
            lines.append(f"{sha3(b'')}  gone{i}")
            want += [f"ksum: gone{i}: No such file or directory", f"gone{i}: FAILED open or read"]
    (d / "M").write_text("\n".join(lines) + "\n")
    code, out = merged(["-c", "M"], d, road)
    assert code == 1
    assert out == "\n".join(want + warnings("M", unreadable=99900)) + "\n"
    code, out = merged(["-c", "--ignore-missing", "M"], d, road)
    assert (code, out) == (0, "".join(f"{w}\n" for w in want if w.endswith(": OK")))


@pytest.mark.parametrize("road", sorted(ROADS))
def test_lines_of_several_algorithms(tree, road):
    """Tagged lines of algorithms that batch, that batch with others of
    their rounds only (TurboSHAKE), that do not batch (ParallelHash), of
    lengths their tags say, and keyless KMAC, one after the other."""
    d, files = tree
    algs = [["--sha3-256"], ["--sha3-512"], ["--shake128", "-n", "32"], ["--k12"],
            ["--turboshake128"], ["--parallelhash128"], ["--keccak-256"], ["--m14"],
            ["--kmac128", "-n", "20"]]
    names = sorted(files)
    per_alg = [run(a + ["--tag"] + names, cwd=d)[1].decode().splitlines() for a in algs]
    lines = [per_alg[i % len(algs)][i] for i in range(len(names))]
    (d / "A").write_text("\n".join(lines) + "\n")
    keyless = sum(line.startswith("KMAC") for line in lines)
    assert keyless > 0
    assert merged(["-c", "A"], d, road) == (0, "".join(f"{n}: OK\n" for n in names) +
                                            "\n".join(warnings("A", keyless=keyless)) + "\n")
    # one file changed: its line alone fails, wherever it is
    data = files[names[7]]
    (d / names[7]).write_bytes(data[:-1] + b"?" if data else b"?")
    want = "".join(f"{n}: {'FAILED' if n == names[7] else 'OK'}\n" for n in names)
    try:
        assert merged(["-c", "A"], d, road) == \
            (1, want + "\n".join(warnings("A", mismatched=1, keyless=keyless)) + "\n")
    finally:
        (d / names[7]).write_bytes(data)


@pytest.mark.parametrize("road", sorted(ROADS))
def test_keyed_lists(tree, road):
    """A key fixes the length: a line at another length is not verified,
    said in its place, and fails the run; with -n it is the only length."""
    d, files = tree
    names = sorted(files)[:40]
    short = run(["--kmac128", "-k", KEY, "-n", "20", "--tag"] + names, cwd=d)[1].decode()
    full = run(["--kmac128", "-k", KEY, "--tag"] + names, cwd=d)[1].decode()
    lines = [(short if i % 3 == 0 else full).splitlines()[i] for i in range(len(names))]
    (d / "K").write_text("\n".join(lines) + "\n")
    rule = ("KMAC128-160 line, not checked at 128 bits (a key: only the length chosen with "
            "-n or -l, or the default, is verified)")
    want = [f"ksum: K: {i + 1}: {rule}" if i % 3 == 0 else f"{n}: OK"
            for i, n in enumerate(names)]
    skipped = sum(1 for i in range(len(names)) if i % 3 == 0)
    want.append(f"ksum: WARNING: K: {skipped} lines were not verified")
    code, out = merged(["-c", "--kmac128", "-k", KEY, "K"], d, road)
    assert (code, out) == (1, "\n".join(want) + "\n")
    code, out = merged(["-c", "--kmac128", "-k", KEY, "-n", "20", "K"], d, road)
    rule20 = ("KMAC128 line, not checked at 160 bits (a key: only the length chosen with "
              "-n or -l, or the default, is verified)")
    want = [f"{n}: OK" if i % 3 == 0 else f"ksum: K: {i + 1}: {rule20}"
            for i, n in enumerate(names)]
    want.append(f"ksum: WARNING: K: {len(names) - skipped} lines were not verified")
    assert (code, out) == (1, "\n".join(want) + "\n")
    # the wrong key: every line FAILED, none OK
    code, out = merged(["-c", "--kmac128", "-k", KEY[::-1], "-n", "20", "K"], d, road)
    assert code == 1 and ": OK" not in out


@pytest.mark.parametrize("road", sorted(ROADS))
def test_standard_input_as_the_list_and_in_it(tree, road):
    d, files = tree
    names = sorted(files)[:30]
    body = "".join(f"{sha3(files[n])}  {n}\n" for n in names)
    dash = f"{sha3(b'from stdin')}  -\n"
    # the list on standard input: a '-' in it is refused, in its place
    code, out = merged(["-c", "-"], d, road, input=(body + dash + body).encode())
    ok = "".join(f"{n}: OK\n" for n in names)
    assert (code, out) == (1, ok + "ksum: -: standard input is the checksum list being read\n"
                           "-: FAILED open or read\n" + ok +
                           "ksum: WARNING: standard input: 1 listed file could not be read\n")
    # a list file naming '-': standard input is read, once, in its place
    (d / "S").write_text(body + dash + dash + body)
    code, out = merged(["-c", "S"], d, road, input=b"from stdin")
    assert (code, out) == (1, ok + "-: OK\n-: FAILED\n" + ok +
                           "ksum: WARNING: S: 1 computed checksum did NOT match\n")
    # the same list twice on standard input: the second is empty
    code, out = merged(["-c", "-", "-"], d, road, input=body.encode())
    assert (code, out) == (1, ok + "ksum: standard input: no properly formatted checksum "
                           "lines found\n")


@pytest.mark.parametrize("road", sorted(ROADS))
def test_long_outputs_and_tuples_among_files(tree, road):
    """Lines no worker takes (an output over 1 MiB, compared piece by
    piece; a TupleHash line of several files) keep their places."""
    d, files = tree
    names = sorted(files)[:12]
    lines = []
    for i, n in enumerate(names):
        if i % 4 == 1:
            lines.append(run(["--shake128", "-n", str(MiB + 3), "--tag", n], cwd=d)[1].decode())
        elif i % 4 == 3:
            lines.append(run(["--tuplehash128", "--tag", n, names[0]], cwd=d)[1].decode())
        else:
            lines.append(run(["--tag", n], cwd=d)[1].decode())
    (d / "T").write_text("".join(lines))
    want = "".join(f"{n}\t{names[0]}: OK\n" if i % 4 == 3 else f"{n}: OK\n"
                   for i, n in enumerate(names))
    assert merged(["-c", "T"], d, road) == (0, want)


@pytest.mark.parametrize("road", sorted(ROADS))
def test_a_low_descriptor_limit(tree, road):
    d, files = tree
    names = sorted(files)
    (d / "D").write_text("".join(f"{sha3(files[n])}  {n}\n{sha3(b'')}  nothere\n"
                                 for n in names))
    extra, env = ROADS[road]
    for limit in (8, 10, 16):
        p = subprocess.run([KSUM] + extra + ["-c", "--quiet", "--ignore-missing", "D"], cwd=d,
                           env=dict(os.environ, **env), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120,
                           preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE,
                                                                 (limit, limit)))
        assert (p.returncode, p.stdout, p.stderr) == (0, b"", b""), limit


@pytest.mark.parametrize("road", sorted(ROADS))
def test_output_that_fails_stops_at_once(tree, road):
    d, files = tree
    names = sorted(files)
    (d / "F").write_text("".join(f"{sha3(files[n])}  {n}\n" for n in names) * 50)
    extra, env = ROADS[road]
    with open("/dev/full", "w") as full:
        p = subprocess.run([KSUM] + extra + ["-c", "F"], cwd=d, env=dict(os.environ, **env),
                           stdout=full, stderr=subprocess.PIPE, timeout=120)
    assert (p.returncode, p.stderr) == (1, b"ksum: write error: No space left on device\n")


@pytest.mark.parametrize("road", sorted(ROADS))
@pytest.mark.parametrize("check", [True, False])
def test_a_line_is_answered_before_the_next_is_written(tree, road, check):
    """A list on a pipe (a program writing it, a user typing it): the answer
    to a line must not wait for the next line.  A worker with a file in
    flight read the list ahead and waited there on the writer, with the file
    unhashed (`--files-from -` at --threads 1 did before issue 21)."""
    import pty
    import select
    d, files = tree
    name = sorted(files)[3]
    line = f"{sha3(files[name])}  {name}\n" if check else f"{name}\n"
    want = f"{name}: OK" if check else f"{sha3(files[name])}  {name}"
    extra, env = ROADS[road]
    master, slave = pty.openpty()
    r, w = os.pipe()
    args = ["-c", "-"] if check else ["--files-from", "-"]
    p = subprocess.Popen([KSUM] + extra + args, cwd=d, stdin=r, stdout=slave,
                         stderr=slave, env=dict(os.environ, **env))
    os.close(r)
    os.close(slave)
    try:
        os.write(w, line.encode())
        out = b""
        while b"\n" not in out:
            ready, _, _ = select.select([master], [], [], 20)
            assert ready, f"no answer to the first line: {out!r}"
            out += os.read(master, 4096)
        assert out.decode().splitlines()[0] == want
        os.write(w, line.encode())
        os.close(w)
        w = -1
        assert p.wait(timeout=60) == 0
    finally:
        if w >= 0:
            os.close(w)
        p.kill()
        p.wait()
        os.close(master)
