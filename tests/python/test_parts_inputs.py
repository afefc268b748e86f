# SPDX-License-Identifier: Apache-2.0
"""--part and --combine on every kind of input: exact or refused.

No road prints, with exit status 0, a digest of other bytes than the
user named: --part covers exactly the bytes `ksum FILE` would hash, or
refuses the file in one line; --combine refuses what is not records
after its first line, in bounded memory, and a record whose parts
disagree.  docs/testing.md ("Parts and combine: inputs tried") lists
the input kinds and what each road does with them.
"""
import base64
import os
import re
import subprocess
import sys
import threading

import pytest

import keccak_ref as ref
from conftest import BUILD, KSUM, run

SANITIZED = os.environ.get("KSUM_SANITIZED") == "1"
SHIM = os.path.join(BUILD, "tests", "fault_shim.so")
needs_shim = pytest.mark.skipif(SANITIZED or not os.path.exists(SHIM),
                                reason="the LD_PRELOAD shim cannot go before a sanitizer runtime")
CHUNK = 8192
MiB = 1 << 20


def ok(args, **kw):
    code, out, err = run(args, **kw)
    assert code == 0 and err == "", (args, err)
    return out


def refused(args, *patterns, **kw):
    """One line on standard error matching every pattern, exit 1, nothing
    on standard output."""
    code, out, err = run(args, **kw)
    assert code == 1 and out == b"", (args, code, out[:200], err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    for p in patterns:
        assert re.search(p, lines[0]), (p, lines[0])
    return lines[0]


def digest(line):
    return line.split()[0]


@pytest.fixture
def obj(tmp_path):
    data = os.urandom(5 * CHUNK + 123)
    (tmp_path / "obj").write_bytes(data)
    return tmp_path, data


def faulty(d, mode, after):
    return dict(os.environ, LD_PRELOAD=SHIM, KSUM_FAULT_MODE=mode,
                KSUM_FAULT_AFTER=str(after), KSUM_FAULT_PATH=str(d / "bad"))


REASON = {"eio": "Input/output error", "truncate": "file changed while it was read",
          "grow": "file changed while it was read",
          "overwrite": "file changed while it was read"}


@pytest.fixture
def records(obj):
    d, data = obj
    for k in (1, 2, 3):
        (d / f"p{k}").write_bytes(ok(["--k12", "--part", f"{k}/3", "obj"], cwd=d))
    return d, data


def resealed(lines):
    """A record of these lines (no cvs or check line) with its cvs count
    and check made anew, as a hand or a broken writer would."""
    cvs = sum(1 for l in lines if l.startswith(b"cv "))
    body = b"".join(l + b"\n" for l in lines) + b"cvs %d\n" % cvs
    return body + b"check " + ref.kt128(body, b"", 32).hex().encode() + b"\n"


# ---- files that change while a part is read ----

@needs_shim
@pytest.mark.parametrize("mode", sorted(REASON))
@pytest.mark.parametrize("share", ["1/1", "1/3", "3/3"])
@pytest.mark.parametrize("after", [100, CHUNK + 1, MiB + 7])
def test_file_that_changes_while_a_part_is_read(tmp_path, mode, share, after):
    """The fault shim's pread: the file cut, grown or written over while
    --part reads it, or a read error: refused, and no check line, so that
    what was printed is no record."""
    (tmp_path / "bad").write_bytes(os.urandom(3 * MiB + 5))
    code, out, err = run(["--k12", "--part", share, "bad"], cwd=tmp_path,
                         env=faulty(tmp_path, mode, after))
    assert code == 1, err
    assert err == f"ksum: bad: {REASON[mode]}\n"
    assert b"\ncheck " not in out


# ---- a record whose head is not its "first" chunk ----

def test_head_that_disagrees_with_first_is_refused(records):
    """The head is what the final node absorbs; the "first" digest is what
    the records are compared by.  A head edited by hand (its check made
    anew) would give the digest of another object."""
    d, data = records
    lines = [l for l in (d / "p1").read_bytes().split(b"\n")
             if l and not l.startswith((b"cvs ", b"check "))]
    at = next(i for i, l in enumerate(lines) if l.startswith(b"head "))
    raw = bytearray(base64.b64decode(lines[at][5:]))
    raw[0] ^= 1
    lines[at] = b"head " + base64.b64encode(bytes(raw))
    (d / "h1").write_bytes(resealed(lines))
    refused(["--k12", "--combine", "h1", "p2", "p3"],
            r"^ksum: h1: part record 1: .*head.*'first'", cwd=d)
    # the same record unedited, resealed, still combines
    (d / "g1").write_bytes(resealed([l for l in (d / "p1").read_bytes().split(b"\n")
                                     if l and not l.startswith((b"cvs ", b"check "))]))
    assert ok(["--k12", "--combine", "g1", "p2", "p3"], cwd=d) == \
        ok(["--k12", "obj"], cwd=d)


# ---- --part: what the file holds, or a refusal ----

SIZE_UNKNOWN = r"size cannot be known before it is read.*hash it whole"


@pytest.mark.parametrize("path", ["/proc/cpuinfo", "/proc/version", "/proc/self/status"])
def test_proc_file_is_refused(path):
    """st_size is 0 in /proc: ranges planned from it covered no byte, and
    the combined digest was that of empty input."""
    if not os.path.exists(path):
        pytest.skip(f"no {path}")
    refused(["--k12", "--part", "1/1", path], "^ksum: " + re.escape(path) + ": ", SIZE_UNKNOWN)


def sys_file_smaller_than_its_size():
    for path in ("/sys/kernel/mm/transparent_hugepage/enabled",
                 "/sys/devices/system/cpu/online", "/sys/power/state",
                 "/sys/kernel/mm/transparent_hugepage/defrag"):
        try:
            with open(path, "rb") as f:
                if 0 < len(f.read()) < os.stat(path).st_size:
                    return path
        except OSError:
            pass
    return None


def test_sys_file_is_refused_as_such():
    """A /sys file says 4096 bytes and holds fewer: not "changed"."""
    path = sys_file_smaller_than_its_size()
    if path is None:
        pytest.skip("no readable /sys file smaller than its st_size")
    refused(["--k12", "--part", "1/1", path], SIZE_UNKNOWN)


def run_stdin_at(path, offset, args):
    with open(path, "rb") as f:
        f.seek(offset)
        p = subprocess.run([KSUM] + args, stdin=f, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout, p.stderr.decode()


@pytest.mark.parametrize("offset", [10, CHUNK, 3 * CHUNK + 5, 10 ** 9])
def test_standard_input_from_where_it_stands(obj, offset):
    """`ksum -` hashes standard input from its offset; so do the parts."""
    d, data = obj
    want = ok(["--k12", "-"], input=data[offset:])
    records = []
    for k in (1, 2, 3):
        code, out, err = run_stdin_at(d / "obj", offset, ["--k12", "--part", f"{k}/3", "-"])
        assert code == 0 and err == "", err
        records.append(out)
    assert ok(["--k12", "--combine", "-"], input=b"".join(records)) == want
    code, out, err = run_stdin_at(d / "obj", offset, ["--k12", "-"])
    assert out == want


def test_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    refused(["--k12", "--part", "1/1", str(tmp_path / "fifo")], "needs a regular file")


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/null"])
def test_devices_are_refused(path):
    refused(["--k12", "--part", "1/1", path], "needs a regular file")


def test_pipe_is_refused():
    refused(["--k12", "--part", "1/1", "-"], "needs a regular file", input=b"abc")


def test_empty_regular_file(tmp_path):
    (tmp_path / "e").write_bytes(b"")
    rec = ok(["--k12", "--part", "1/1", "e"], cwd=tmp_path)
    (tmp_path / "r").write_bytes(rec)
    assert ok(["--k12", "--combine", "r"], cwd=tmp_path) == ok(["--k12", "e"], cwd=tmp_path)


# ---- messages ----

def test_two_algorithms_named_as_such(records):
    d, _ = records
    refused(["--k12", "--kt256", "--combine", "p1", "p2", "p3"],
            r"^ksum: --combine takes one algorithm", cwd=d)
    refused(["--k12", "--kt256", "--part", "1/3", "obj"], r"^ksum: --part takes one algorithm",
            cwd=d)
    refused(["--k12", "--m14", "--part-range", "0:1", "obj"],
            r"^ksum: --part-range takes one algorithm", cwd=d)


ALLOC_ROADS = {
    "part": ["--k12", "--part", "1/3", "obj"],
    "combine": ["--k12", "--combine", "--threads", "1", "p1", "p2", "p3"],
}
WRONG_WORDS = ("cannot compute", "corrupted", "FAILED", "do not make the tree", "changed",
               "size cannot be known", "not a part record", "truncated")


@needs_shim
@pytest.mark.parametrize("road", sorted(ALLOC_ROADS))
def test_allocation_failure_is_said_as_such(records, road):
    """Every allocation of ksum's own failed in turn: a run succeeds with
    the right output, or says the file or option and never blames the
    input for it."""
    d, _ = records
    args = ALLOC_ROADS[road]
    count = d / "count"
    env = dict(os.environ, LD_PRELOAD=SHIM, KSUM_FAULT_ALLOC_SCOPE="ksum",
               KSUM_FAULT_ALLOC_COUNT=str(count))
    want = subprocess.run([KSUM] + args, cwd=d, env=env, stdout=subprocess.PIPE,
                          check=True).stdout
    bad = []
    for n in range(1, int(count.read_text()) + 2):
        p = subprocess.run([KSUM] + args, cwd=d, env=dict(env, KSUM_FAULT_ALLOC=str(n)),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        err = p.stderr.decode("utf-8", "replace")
        first = err.split("\n", 1)[0]
        if p.returncode == 0:
            if p.stdout != want:
                bad.append(f"N={n}: exit 0 with another output")
        elif p.returncode < 0 or not first.startswith("ksum: ") or \
                any(w in first for w in WRONG_WORDS):
            bad.append(f"N={n}: {p.returncode}: {first[:200]!r}")
    assert not bad, "\n".join(bad[:20])


@needs_shim
def test_memory_that_runs_out_in_combine_is_not_blamed_on_the_options(records):
    """--combine judges its options after the records are read, for the
    object they name: memory that runs out there (and stays out), or at any
    step before, is said as such, in one line, not as options the algorithm
    refuses with a pointer to --help, nor as a provider that cannot be
    fetched."""
    d, _ = records
    args = ALLOC_ROADS["combine"]
    count = d / "count"
    env = dict(os.environ, LD_PRELOAD=SHIM, KSUM_FAULT_ALLOC_SCOPE="ksum",
               KSUM_FAULT_ALLOC_COUNT=str(count))
    subprocess.run([KSUM] + args, cwd=d, env=env, stdout=subprocess.PIPE, check=True)
    bad = []
    for n in range(1, int(count.read_text()) + 2):
        p = subprocess.run([KSUM] + args, cwd=d, env=dict(env, KSUM_FAULT_ALLOC_FROM=str(n)),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        err = p.stderr.decode("utf-8", "replace")
        said = "out of memory" in err or "Cannot allocate memory" in err
        if p.returncode != 0 and (not said or "refuses the options" in err or
                                  "--help" in err or len(err.splitlines()) != 1):
            bad.append(f"N={n}: {p.returncode}: {err[:300]!r}")
    assert not bad, "\n".join(bad[:20])


# ---- --combine: records, or refused early and in bounded memory ----

def peak_kib(args, stdin=subprocess.DEVNULL, limit=None):
    """(exit status, stderr, peak resident KiB) of ksum ARGS, run by a
    Python of its own so that the peak is ksum's alone."""
    code = ("import resource, subprocess, sys\n"
            "lim = int(sys.argv[1])\n"
            "pre = (lambda: resource.setrlimit(resource.RLIMIT_AS, (lim, lim))) if lim else None\n"
            "p = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,"
            " preexec_fn=pre, timeout=60)\n"
            "sys.stdout.write('%d %d\\n' % (p.returncode,"
            " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
            "sys.stdout.write(p.stderr.decode())\n")
    p = subprocess.run([sys.executable, "-c", code, str(limit or 0), KSUM] + args,
                       stdin=stdin, stdout=subprocess.PIPE, timeout=120)
    first, _, err = p.stdout.decode().partition("\n")
    status, kib = map(int, first.split())
    return status, err, kib


@pytest.fixture(scope="module")
def baseline():
    """What ksum itself takes: an empty file hashed."""
    code, _, kib = peak_kib(["--k12", "/dev/null"])
    assert code == 0
    return kib


NOT_RECORD = r"part record 1: line 1: not a part record"


@pytest.mark.skipif(SANITIZED, reason="the sanitizers' shadow memory needs more than the limit")
def test_combine_dev_zero_is_refused_at_once(baseline):
    code, err, kib = peak_kib(["--k12", "--combine", "/dev/zero"], limit=400 << 20)
    assert code == 1 and re.search(r"^ksum: /dev/zero: " + NOT_RECORD, err), err
    assert kib < baseline + 8 * 1024, (kib, baseline)


def test_combine_dev_null_has_no_record():
    refused(["--k12", "--combine", "/dev/null"], r"^ksum: /dev/null: no part record")


@pytest.mark.parametrize("where", ["file", "stdin file", "pipe"])
def test_combine_noise_is_refused_in_bounded_memory(tmp_path, baseline, where):
    (tmp_path / "noise").write_bytes(os.urandom(60 << 20))
    if where == "file":
        code, err, kib = peak_kib(["--k12", "--combine", str(tmp_path / "noise")])
    elif where == "stdin file":
        with open(tmp_path / "noise", "rb") as f:
            code, err, kib = peak_kib(["--k12", "--combine"], stdin=f)
    else:
        cat = subprocess.Popen(["cat", str(tmp_path / "noise")], stdout=subprocess.PIPE)
        code, err, kib = peak_kib(["--k12", "--combine"], stdin=cat.stdout)
        cat.stdout.close()
        cat.wait()
    assert code == 1 and NOT_RECORD.split(": ", 1)[1] in err, err
    assert kib < baseline + 8 * 1024, (kib, baseline)


def test_combine_endless_stream_is_refused():
    p = subprocess.Popen(f"head -c 1000000000 /dev/urandom | {KSUM} --k12 --combine",
                         shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate(timeout=60)
    assert p.returncode != 0 and out == b""
    assert re.search(NOT_RECORD, err.decode()), err


def test_record_then_noise(records, baseline):
    d, _ = records
    (d / "pn").write_bytes((d / "p1").read_bytes() + os.urandom(60 << 20))
    code, err, kib = peak_kib(["--k12", "--combine", str(d / "pn"), str(d / "p2"),
                               str(d / "p3")])
    assert code == 1 and re.search(r"pn: part record 2: line \d+: not a part record", err), err
    assert kib < baseline + 16 * 1024, (kib, baseline)


@pytest.mark.parametrize("line, why", [
    (b"head " + b"A" * 128, r"line 95: a bad head line$"),
    (b"cv " + b"A" * 43 + b"=", r"line \d+: more than twice as many cv lines in the file as the "
                                r"object of its first record has chunks"),
])
def test_a_header_then_endless_lines(records, line, why):
    """Lines after a header are bounded by what a record holds: no more
    head lines than the first chunk fills, no more cv lines than twice the
    object's chunks."""
    d, _ = records
    header = b"".join((d / "p2").read_bytes().split(b"\n", 9)[i] + b"\n" for i in range(9))
    p = subprocess.Popen([KSUM, "--k12", "--combine"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def feed():
        try:
            p.stdin.write(header)
            while True:
                p.stdin.write((line + b"\n") * 1000)
        except (BrokenPipeError, ValueError, OSError):
            pass

    threading.Thread(target=feed, daemon=True).start()
    err, out = p.stderr.read(), p.stdout.read()
    p.wait(timeout=60)
    assert p.returncode == 1 and out == b""
    assert re.search(r"^ksum: -: part record 1: " + why, err.decode()), err


def test_a_line_without_end_is_refused(records):
    d, _ = records
    header = b"".join((d / "p2").read_bytes().split(b"\n", 9)[i] + b"\n" for i in range(9))
    (d / "long").write_bytes(header + b"cv " + b"A" * (1 << 20))
    refused(["--k12", "--combine", "long"], r"^ksum: long: part record 1: line 10: longer "
            r"than any line", cwd=d)


# ---- more inputs of each road ----

def test_part_range_of_a_proc_file_is_refused():
    refused(["--k12", "--part-range", "0:1", "/proc/version"], SIZE_UNKNOWN)


def test_combine_reads_standard_input_from_where_it_stands(records):
    d, _ = records
    (d / "s12").write_bytes((d / "p1").read_bytes() + (d / "p2").read_bytes())
    code, out, err = run_stdin_at(d / "s12", os.path.getsize(d / "p1"),
                                  ["--k12", "--combine", "-", str(d / "p1"), str(d / "p3")])
    assert code == 0 and err == "" and out == ok(["--k12", "obj"], cwd=d)


def test_combine_from_a_fifo(records):
    d, _ = records
    os.mkfifo(d / "fifo")

    def writer():
        with open(d / "fifo", "wb") as f:
            for k in (3, 1, 2):
                f.write((d / f"p{k}").read_bytes())

    t = threading.Thread(target=writer)
    t.start()
    assert ok(["--k12", "--combine", "fifo"], cwd=d) == ok(["--k12", "obj"], cwd=d)
    t.join()


COMBINE_REASON = {"eio": r"^ksum: bad: Input/output error$",
                  "truncate": r"^ksum: bad: part record 1: truncated",
                  "grow": r"^ksum: bad: part record 2: line \d+: not a part record"}


@needs_shim
@pytest.mark.parametrize("mode", sorted(COMBINE_REASON))
def test_record_file_that_changes_while_combined(records, mode):
    """A record file cut, grown or failing while --combine reads it."""
    d, _ = records
    (d / "bad").write_bytes((d / "p2").read_bytes())
    code, out, err = run(["--k12", "--combine", "p1", "bad", "p3"], cwd=d,
                         env=faulty(d, mode, 100))
    assert code == 1 and out == b"", err
    assert len(err.splitlines()) == 1 and re.search(COMBINE_REASON[mode], err), err


def test_records_repeated_without_end_are_refused(tmp_path):
    """Valid records, the same one again and again on a pipe: the file's
    cv lines soon pass twice the chunks of its object, and reading stops
    (one record of 2,000 chunks: the fourth passes them, far from the
    records its split allows)."""
    (tmp_path / "obj").write_bytes(os.urandom(2000 * CHUNK))
    one = ok(["--k12", "--part-range", "0:2000", "obj"], cwd=tmp_path)
    p = subprocess.Popen([KSUM, "--k12", "--combine"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def feed():
        try:
            while True:
                p.stdin.write(one * 100)
        except (BrokenPipeError, ValueError, OSError):
            pass

    threading.Thread(target=feed, daemon=True).start()
    err, out = p.stderr.read(), p.stdout.read()
    p.wait(timeout=60)
    assert p.returncode == 1 and out == b""
    assert re.search(r"^ksum: -: part record 4: line \d+: more than twice as many cv lines "
                     r"in the file as the object of its first record has chunks",
                     err.decode()), err


def test_empty_shares_repeated_without_end_are_refused(tmp_path):
    """Records of no chunk (more shares than chunks) hold no cv line: the
    file may hold no more than twice as many records as the split has
    parts, and a few."""
    (tmp_path / "small").write_bytes(b"x" * 100)
    empty = ok(["--k12", "--part", "2/3", "small"], cwd=tmp_path)
    assert b"\ncvs 0\n" in empty
    p = subprocess.Popen([KSUM, "--k12", "--combine"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def feed():
        try:
            while True:
                p.stdin.write(empty * 100)
        except (BrokenPipeError, ValueError, OSError):
            pass

    threading.Thread(target=feed, daemon=True).start()
    err, out = p.stderr.read(), p.stdout.read()
    p.wait(timeout=60)
    assert p.returncode == 1 and out == b""
    assert re.search(r"^ksum: -: part record 23: line \d+: more than twice as many records in "
                     r"the file as the split of its first record has parts \(3\)",
                     err.decode()), err


# ---- records cut short or stretched: each said with its line ----

@pytest.mark.parametrize("tail, why", [
    (b"ksum", r"part record 2: truncated: a last line without its end"),
    (b"ksum-part 1\nalgo", r"part record 2: truncated: it ends before its 'algorithm' line"),
    (b"x", r"part record 2: line \d+: not a part record of this version"),
])
def test_bytes_after_the_last_record_are_refused(records, tail, why):
    d, _ = records
    (d / "bad").write_bytes((d / "p1").read_bytes() + tail)
    refused(["--combine", "bad", "p2", "p3"], r"^ksum: bad: " + why, cwd=d)


def test_a_header_longer_than_any_record_is_refused(records):
    d, _ = records
    lines = (d / "p1").read_bytes().split(b"\n")
    lines[2] = b"customization " + b"a" * (300 << 10)
    (d / "bad").write_bytes(b"\n".join(lines))
    refused(["--combine", "bad", "p2", "p3"],
            r"^ksum: bad: part record 1: line 3: a header longer than any part record's$", cwd=d)


def test_a_body_line_longer_than_any_is_refused(records):
    d, _ = records
    lines = (d / "p1").read_bytes().split(b"\n")
    i = next(j for j, l in enumerate(lines) if l.startswith(b"cv "))
    lines[i] = b"cv " + b"A" * 200000
    (d / "bad").write_bytes(b"\n".join(lines))
    refused(["--combine", "bad", "p2", "p3"],
            rf"^ksum: bad: part record 1: line {i + 1}: longer than any line of a part record$",
            cwd=d)
