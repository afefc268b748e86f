# SPDX-License-Identifier: Apache-2.0
"""One object, many machines (issue 20): --part K/N, --part-range and
--combine.

1. Objects around every chunk boundary of S = M || C || length_encode(|C|)
   (those where only C crosses it too) and random ones up to a few MiB,
   split into random chunk-aligned parts given in random order, combine
   to the whole file's line, byte for byte, for every option that changes
   the digest or its line; the pure-Python reference (and pycryptodome's
   KangarooTwelve where installed) agree.
2. Every refusal: missing, duplicated, another object, algorithm,
   customization or split, truncated, corrupted, reordered lines; each is
   one line naming the file and the part record, exit status 1, nothing
   on standard output.
3. docs/parts.md: its sh blocks run as they are (GNU parallel, xargs -P,
   the object-storage recipe with a stand-in for the upload).
"""
import os
import random
import re
import shutil
import subprocess

import pytest

import readme

import keccak_ref as ref
from conftest import BUILD, KSUM, run

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHUNK = 8192
ALGS = {"--k12": ref.kt128, "--kt256": ref.kt256, "--m14": ref.m14}

try:  # pycryptodome 3.13 and later
    from Cryptodome.Hash import KangarooTwelve as PyK12
except ImportError:  # pragma: no cover - older pycryptodome
    PyK12 = None


def ok(args, input=None, cwd=None):
    code, out, err = run(args, input=input, cwd=cwd)
    assert code == 0 and err == "", (args, err)
    return out


def le_len(n):
    return len(ref.length_encode(n))


def split_points(chunks, rng):
    """Random chunk-aligned (start, length) ranges covering `chunks`."""
    cuts = sorted(rng.sample(range(1, chunks), min(chunks - 1, rng.randint(0, 6))))
    edges = [0] + cuts + [chunks]
    return [(a, b - a) for a, b in zip(edges, edges[1:])]


def make_parts(path, alg_args, rng, tmp, tag):
    """Part records of path in random shares or ranges; their paths, shuffled."""
    size = os.path.getsize(path)
    chunks = max(1, -(-size // CHUNK))
    files = []
    if rng.random() < 0.5:
        n = rng.randint(1, min(6, chunks + 2))
        for k in range(1, n + 1):
            f = tmp / f"{tag}.{k}of{n}"
            f.write_bytes(ok(alg_args + ["--part", f"{k}/{n}", str(path)]))
            files.append(str(f))
    else:
        for i, (start, length) in enumerate(split_points(chunks, rng)):
            f = tmp / f"{tag}.r{i}"
            f.write_bytes(ok(alg_args + ["--part-range", f"{start}:{length}", str(path)]))
            files.append(str(f))
    rng.shuffle(files)
    return files


def boundary_sizes(clen):
    """|M| for which |S| is a few bytes either side of each of the first
    chunk boundaries, so that C (and its length) crosses them too."""
    tail = clen + le_len(clen)
    sizes = {0, 1, CHUNK - 1, CHUNK, CHUNK + 1}
    for k in (1, 2, 5):
        for d in (-1, 0, 1):
            m = k * CHUNK + d - tail
            if m >= 0:
                sizes.add(m)
    return sorted(sizes)


@pytest.fixture(scope="module")
def objects(tmp_path_factory):
    d = tmp_path_factory.mktemp("parts")
    return d


CUSTOMS = ["", "abc", "x" * 300, "c" * 8300]


@pytest.mark.parametrize("custom", CUSTOMS, ids=["none", "short", "300", "8300"])
@pytest.mark.parametrize("alg", list(ALGS))
def test_boundaries_combine_to_the_whole_digest(objects, alg, custom):
    rng = random.Random(f"{alg}{len(custom)}")
    cargs = ["-C", custom] if custom else []
    for size in boundary_sizes(len(custom)):
        path = objects / f"m{size}"
        if not path.exists():
            path.write_bytes(rng.randbytes(size))
        outlen = rng.choice([1, 16, 32, 64, 200])
        args = [alg] + cargs
        whole = ok(args + ["-n", str(outlen), str(path)])
        parts = make_parts(path, args, rng, objects, f"b{alg}{len(custom)}-{size}")
        got = ok(args + ["-n", str(outlen), "--combine"] + parts)
        assert got == whole, (alg, size, len(custom), parts)
        data = path.read_bytes()
        # the pure-Python reference is slow: a sample of the small ones
        if size <= 2 * CHUNK + 100 and rng.random() < 0.25:
            expect = ALGS[alg](data, custom.encode(), outlen).hex()
            assert got.decode().split()[0] == expect


def test_random_objects_every_form(objects):
    """Random sizes up to a few MiB, every option that changes the line."""
    rng = random.Random(20)
    forms = [[], ["--tag"], ["--base64"], ["-l", "256"], ["-n", "64", "--tag"],
             ["--no-names"], ["-z"], ["-n", "3", "--base64", "--tag"]]
    for i in range(14):
        size = rng.choice([rng.randrange(4 << 20), rng.randrange(64 << 10),
                           rng.randrange(1, 400) * CHUNK])
        path = objects / f"r{i}"
        path.write_bytes(rng.randbytes(size))
        alg = rng.choice(list(ALGS))
        custom = rng.choice(CUSTOMS[:3])
        args = [alg] + (["-C", custom] if custom else [])
        parts = make_parts(path, args, rng, objects, f"r{i}")
        for form in rng.sample(forms, 3):
            whole = ok(args + form + [str(path)])
            assert ok(args + form + ["--combine"] + parts) == whole, (size, form)
        # all the records on standard input, in one stream
        stream = b"".join(open(p, "rb").read() for p in parts)
        assert ok(args + ["--combine"], input=stream) == ok(args + [str(path)])
        if PyK12 is not None and alg == "--k12":
            h = PyK12.new(custom=custom.encode()).update(path.read_bytes()).read(16)
            assert ok(args + ["--combine"] + parts).split()[0].decode() == h.hex()


def test_raw_from_several_records(objects):
    path = objects / "raw"
    path.write_bytes(random.Random(8).randbytes(70000))
    parts = make_parts(path, ["--k12"], random.Random(9), objects, "raw")
    assert ok(["--k12", "--raw", "-n", "40", "--combine"] + parts) == \
        ok(["--k12", "--raw", "-n", "40", str(path)])


def test_long_output_is_streamed(objects):
    path = objects / "long"
    path.write_bytes(random.Random(3).randbytes(50000))
    parts = make_parts(path, ["--k12"], random.Random(4), objects, "long")
    args = ["--k12", "-n", str(3 << 20)]
    assert ok(args + ["--combine"] + parts) == ok(args + [str(path)])


def test_algorithm_comes_from_the_records(objects):
    path = objects / "alg"
    path.write_bytes(bytes(range(256)) * 100)
    for alg in ALGS:
        parts = make_parts(path, [alg], random.Random(alg), objects, "alg" + alg)
        assert ok(["--combine"] + parts) == ok([alg, str(path)])
        assert ok(["--tag", "--combine"] + parts) == ok([alg, "--tag", str(path)])


def test_empty_shares_when_there_are_more_shares_than_chunks(objects):
    path = objects / "small"
    path.write_bytes(b"q" * 20000)
    parts = []
    for k in range(1, 8):
        p = objects / f"small.{k}"
        p.write_bytes(ok(["--k12", "--part", f"{k}/7", str(path)]))
        parts.append(str(p))
    assert ok(["--k12", "--combine"] + parts) == ok(["--k12", str(path)])


def test_record_format_as_documented(tmp_path):
    """Every line of a record, recomputed from the object with the
    reference: the format docs/parts.md describes."""
    import base64
    data = bytes(random.Random(11).randbytes(2 * CHUNK + 10))
    (tmp_path / "obj").write_bytes(data)
    custom = b"cust"
    s = data + custom + ref.length_encode(len(custom))
    d = lambda x: ref.kt128(x, b"", 32).hex()   # the records' digest
    for args, begin, end in ((["--part", "1/2"], 0, 1), (["--part", "2/2"], 1, 3),
                             (["--part-range", "1:1"], 1, 2)):
        rec = ok(["--k12", "-C", "cust"] + args + ["obj"], cwd=tmp_path)
        lines = rec.decode().split("\n")
        assert lines[-1] == ""
        want = ["ksum-part 1", "algorithm KANGAROOTWELVE", "customization " + d(custom),
                f"object {len(data)}", "first " + d(data[:CHUNK]),
                "last " + d(data[2 * CHUNK:]), "name " + base64.b64encode(b"obj").decode(),
                "share 1 2" if args == ["--part", "1/2"] else
                "share 2 2" if args[0] == "--part" else "share - -",
                f"chunks {begin} {end}"]
        if begin == 0:
            want += ["head " + base64.b64encode(data[i:min(i + 96, CHUNK)]).decode()
                     for i in range(0, CHUNK, 96)]
        # CV_i of S_i = M || C || length_encode(|C|), i >= 1; the last part's
        # range reaches the end of S
        last = -(-len(s) // CHUNK) if end * CHUNK >= len(data) else end
        cvs = [ref.sponge(s[i * CHUNK:(i + 1) * CHUNK], 168, 12, 0x0B, 32)
               for i in range(max(begin, 1), last)]
        want += ["cv " + base64.b64encode(cv).decode() for cv in cvs]
        want += [f"cvs {len(cvs)}"]
        body = "".join(line + "\n" for line in want)
        assert lines[:-2] == want
        assert lines[-2] == "check " + d(body.encode())


# ---- 2. refusals ----

@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """An object in three shares, and things to mix with them."""
    d = tmp_path_factory.mktemp("refuse")
    rng = random.Random(7)
    data = rng.randbytes(10 * CHUNK + 5)
    (d / "obj").write_bytes(data)
    other = bytearray(data)
    other[0] ^= 1                       # another first chunk, same length
    (d / "other").write_bytes(bytes(other))
    tail = bytearray(data)
    tail[-1] ^= 1                       # another last chunk
    (d / "tail").write_bytes(bytes(tail))
    (d / "longer").write_bytes(data + b"x")
    for k in (1, 2, 3):
        (d / f"p{k}").write_bytes(ok(["--k12", "--part", f"{k}/3", str(d / "obj")]))
        (d / f"o{k}").write_bytes(ok(["--k12", "--part", f"{k}/3", str(d / "other")]))
        (d / f"t{k}").write_bytes(ok(["--k12", "--part", f"{k}/3", str(d / "tail")]))
        (d / f"l{k}").write_bytes(ok(["--k12", "--part", f"{k}/3", str(d / "longer")]))
        (d / f"k{k}").write_bytes(ok(["--kt256", "--part", f"{k}/3", str(d / "obj")]))
        (d / f"c{k}").write_bytes(ok(["--k12", "-C", "c", "--part", f"{k}/3",
                                      str(d / "obj")]))
    (d / "q2").write_bytes(ok(["--k12", "--part", "2/4", str(d / "obj")]))
    (d / "r1").write_bytes(ok(["--k12", "--part-range", "3:4", str(d / "obj")]))
    return d


def refused(d, args, *patterns):
    code, out, err = run(["--k12"] + args, cwd=d)
    assert code == 1 and out == b"", (args, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    for p in patterns:
        assert re.search(p, lines[0]), (p, lines[0])
    return lines[0]


def test_the_shares_combine(three):
    # the line names the file as --part was given it
    assert ok(["--k12", "--combine", "p3", "p1", "p2"], cwd=three) == \
        ok(["--k12", str(three / "obj")])


def test_missing(three):
    refused(three, ["--combine", "p1", "p3"], r"share 2/3 is missing")
    refused(three, ["--combine", "p1", "p2"], r"share 3/3 is missing")
    refused(three, ["--combine", "p2", "p3"], r"share 1/3 is missing")


def test_missing_range(three):
    refused(three, ["--combine", "p1", "r1"],
            r"^ksum: r1 \(part record 1, chunks 3-6\): from another split than p1")
    r = three / "ranges"
    r.mkdir(exist_ok=True)
    for name, rng_ in (("a", "0:3"), ("b", "5:3"), ("c", "8:3")):
        (r / name).write_bytes(ok(["--k12", "--part-range", rng_, str(three / "obj")]))
    refused(r, ["--combine", "a", "b", "c"], r"chunks 3-4 are missing.*\bb\b")
    refused(r, ["--combine", "a", "b"], r"chunks 3-4 are missing")
    refused(r, ["--combine", "a"], r"chunks 3-10 are missing: no part covers them")


def test_duplicated(three):
    shutil.copy(three / "p2", three / "p2copy")
    refused(three, ["--combine", "p1", "p2", "p2", "p3"],
            r"^ksum: p2 \(part record 1, share 2/3, chunks 3-6\): given twice: also p2")
    refused(three, ["--combine", "p1", "p2", "p3", "p2copy"], r"given twice")
    r = three / "overlap"
    r.mkdir(exist_ok=True)
    for name, rng_ in (("a", "0:4"), ("b", "3:9")):
        (r / name).write_bytes(ok(["--k12", "--part-range", rng_, str(three / "obj")]))
    refused(r, ["--combine", "a", "b"], r"^ksum: b \(part record 1, chunks 3-10\): overlaps a")


def test_another_object(three):
    refused(three, ["--combine", "p1", "o2", "p3"], r"^ksum: o2 .*another object than p1.*"
            r"another first chunk")
    refused(three, ["--combine", "p1", "p2", "t3"], r"another object.*another last chunk")
    refused(three, ["--combine", "p1", "p2", "l3"], r"another object.*another length")


def test_another_algorithm_or_customization(three):
    refused(three, ["--combine", "p1", "k2", "p3"], r"^ksum: k2 .*made with KT256, not "
            r"KANGAROOTWELVE")
    code, out, err = run(["--combine", "k1", "k2", "k3"], cwd=three)
    assert code == 0 and out.startswith(ok(["--kt256", str(three / "obj")])[:64])
    refused(three, ["--combine", "c1", "c2", "c3"], r"^ksum: c\d .*another customization")
    refused(three, ["-C", "d", "--combine", "c1", "c2", "c3"], r"another customization")
    refused(three, ["-C", "c", "--combine", "c1", "p2", "c3"], r"^ksum: p2 .*customization")
    assert ok(["--k12", "-C", "c", "--combine", "c3", "c1", "c2"], cwd=three) == \
        ok(["--k12", "-C", "c", str(three / "obj")])


def test_another_split(three):
    refused(three, ["--combine", "p1", "q2", "p3"], r"q2 .*another split")


def test_truncated_anywhere(three):
    whole = (three / "p2").read_bytes()
    rng = random.Random(5)
    cuts = sorted(set([0, 1, len(whole) - 1, len(whole) - 2] +
                      [m.end() for m in re.finditer(b"\n", whole)][:-1] +
                      rng.sample(range(len(whole)), 20)))
    for cut in cuts:
        (three / "cut").write_bytes(whole[:cut])
        line = refused(three, ["--combine", "p1", "cut", "p3"], r"^ksum: cut")
        assert "truncated" in line or "no part record" in line or "not a part" in line \
            or "bad" in line, line


def test_corrupted_anywhere(three):
    whole = (three / "p1").read_bytes()
    rng = random.Random(6)
    # every byte of the check line too (upper-case hex is refused as well)
    check = whole.rindex(b"check ")
    for at in rng.sample(range(len(whole)), 40) + list(range(check, len(whole) - 1)):
        b = bytearray(whole)
        b[at] = ord("A") if b[at] != ord("A") else ord("B")
        (three / "bad").write_bytes(bytes(b))
        refused(three, ["--combine", "bad", "p2", "p3"], r"^ksum: bad: part record 1: ")


def test_reordered_lines(three):
    lines = (three / "p2").read_bytes().split(b"\n")
    cv = [i for i, l in enumerate(lines) if l.startswith(b"cv ")]
    lines[cv[0]], lines[cv[1]] = lines[cv[1]], lines[cv[0]]
    (three / "swapped").write_bytes(b"\n".join(lines))
    refused(three, ["--combine", "p1", "swapped", "p3"], r"^ksum: swapped: part record 1: corrupted")


def resealed(lines):
    """A record of these lines (no cvs or check line) with its cvs count
    and its check made anew, as a forger or a broken writer would."""
    cvs = sum(1 for l in lines if l.startswith(b"cv "))
    body = b"".join(l + b"\n" for l in lines) + b"cvs %d\n" % cvs
    return body + b"check " + ref.kt128(body, b"", 32).hex().encode() + b"\n"


def record_lines(path, keep_cvs=True):
    return [l for l in path.read_bytes().split(b"\n")
            if l and not l.startswith((b"cvs ", b"check ")) and (keep_cvs or not l.startswith(b"cv "))]


def test_cvs_moved_between_records(three):
    # Two records whose checks hold but whose CVs do not fit their ranges:
    # one CV of share 3 moved to the end of share 2.  The CVs in order are
    # still the object's, but a record is its range's CVs and no others
    # (only the one that ends the object has the customization's after
    # them): refused, naming the record.
    p2, p3 = record_lines(three / "p2"), record_lines(three / "p3")
    first_cv = next(i for i, l in enumerate(p3) if l.startswith(b"cv "))
    (three / "m2").write_bytes(resealed(p2 + [p3[first_cv]]))
    (three / "m3").write_bytes(resealed(p3[:first_cv] + p3[first_cv + 1:]))
    refused(three, ["--combine", "p1", "m2", "m3"],
            r"^ksum: m[23]: part record 1: .*cv lines")


def test_empty_share_with_cvs(tmp_path):
    data = random.Random(5).randbytes(2 * CHUNK + 100)
    (tmp_path / "obj").write_bytes(data)
    recs = [ok(["--k12", "--part", f"{k}/5", "obj"], cwd=tmp_path) for k in range(1, 6)]
    empty = [k for k, r in enumerate(recs) if b"\ncvs 0\n" in r and b"\nhead " not in r]
    assert empty, "no empty share in 5 of 3 chunks"
    k = empty[0]
    donor = next(l for r in recs for l in r.split(b"\n") if l.startswith(b"cv "))
    lines = [l for l in recs[k].split(b"\n")
             if l and not l.startswith((b"cvs ", b"check "))] + [donor]
    for i, r in enumerate(recs):
        (tmp_path / f"s{i}").write_bytes(resealed(lines) if i == k else r)
    refused(tmp_path, ["--combine"] + [f"s{i}" for i in range(5)],
            rf"^ksum: s{k}: part record 1: .*cv lines")


def test_bad_cv_lines_named_by_number(three):
    # combine decodes runs of well-formed cv lines on a fast path; a line
    # that is not one is reported with its number as before
    lines = (three / "p2").read_bytes().split(b"\n")
    cv = [i for i, l in enumerate(lines) if l.startswith(b"cv ")]
    at = cv[len(cv) // 2]
    good = lines[at]
    for bad in (good[:-1] + b"A",            # 44 characters, 33 bytes: no padding
                good + b"=",                 # one character more
                good[:-4],                   # a quantum fewer
                b"cv  " + good[3:],          # two spaces
                good + b"\r",                # CRLF
                good[:10] + b"*" + good[11:]):
        mutated = list(lines)
        mutated[at] = bad
        (three / "badcv").write_bytes(b"\n".join(mutated))
        refused(three, ["--combine", "p1", "badcv", "p3"],
                rf"^ksum: badcv: part record 1: line {at + 1}: a bad cv line")


def test_records_in_any_order_and_one_stream(three):
    want = ok(["--k12", str(three / "obj")])
    for order in (["p1", "p2", "p3"], ["p3", "p2", "p1"], ["p2", "p3", "p1"]):
        stream = b"".join((three / p).read_bytes() for p in order)
        assert ok(["--k12", "--combine"], input=stream) == want
    (three / "all").write_bytes(stream)
    refused(three, ["--combine", "all", "p2"], r"given twice")


def test_records_past_a_quarter_mib_in_files_and_one_stream(tmp_path):
    """KT256 records of 1.1 MB each (96 MiB shares): each record file read
    into one huge mapping, and the two as one stream of 2.2 MB, whose
    buffer grows 64 KiB, 128 KiB, then a mapping of 2 MiB moved to 4 MiB
    with what was read kept at every step."""
    obj = tmp_path / "obj"
    obj.write_bytes(random.Random(20).randbytes(192 << 20))
    want = ok(["--kt256", str(obj)])
    for k in (1, 2):
        (tmp_path / f"p{k}").write_bytes(ok(["--kt256", "--part", f"{k}/2", str(obj)]))
    sizes = [os.path.getsize(tmp_path / f"p{k}") for k in (1, 2)]
    assert min(sizes) > 1 << 20 and sum(sizes) > 2 << 20, sizes
    assert ok(["--kt256", "--combine", "p2", "p1"], cwd=tmp_path) == want
    stream = (tmp_path / "p2").read_bytes() + (tmp_path / "p1").read_bytes()
    assert ok(["--kt256", "--combine"], input=stream) == want
    assert ok(["--kt256", "--combine", "--threads", "1"], input=stream) == want


def test_not_records(three):
    (three / "empty").write_bytes(b"")
    refused(three, ["--combine", "empty"], r"^ksum: empty: no part record")
    (three / "text").write_bytes(b"hello\n")
    refused(three, ["--combine", "text"], r"^ksum: text: part record 1: .*not a part record")
    v2 = (three / "p1").read_bytes().replace(b"ksum-part 1", b"ksum-part 2", 1)
    (three / "v2").write_bytes(v2)
    refused(three, ["--combine", "v2"], r"not a part record of this version")
    refused(three, ["--combine", "nonexistent"], r"^ksum: nonexistent: No such file")


def test_part_options_refused(three, tmp_path):
    refused(three, ["--part", "0/3", "obj"], r"--part: '0/3' is not K/N")
    refused(three, ["--part", "4/3", "obj"], r"is not K/N")
    refused(three, ["--part", "x", "obj"], r"is not K/N")
    refused(three, ["--part-range", "11:1", "obj"], r"chunk 11 is past the object's last "
            r"chunk \(10\)")
    refused(three, ["--part-range", "1:0", "obj"], r"START:LEN")
    refused(three, ["--part", "1/2", "obj", "obj"], r"takes one FILE")
    refused(three, ["--part", "1/2", "--combine", "obj"], r"exclude each other")
    code, out, err = run(["--sha3-256", "--part", "1/2", "obj"], cwd=three)
    assert code == 1 and "not hashed in parts" in err
    code, out, err = run(["--k12", "--part", "1/2", "-"], input=b"abc")
    assert code == 1 and "needs a regular file" in err
    # standard input redirected from a regular file is one
    with open(three / "obj", "rb") as f:
        p = subprocess.run([KSUM, "--k12", "--part", "1/1", "-"], stdin=f,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 0
    (tmp_path / "one").write_bytes(p.stdout)
    line = ok(["--k12", "--combine", str(tmp_path / "one")])
    assert line.split()[0] == ok(["--k12", str(three / "obj")]).split()[0]


@pytest.mark.parametrize("opt", [["-n", "64"], ["-l", "512"], ["--tag"], ["--untagged"],
                                 ["--base64"], ["--raw"], ["--no-names"], ["-z"], ["-b"],
                                 ["-t"]])
@pytest.mark.parametrize("mode", [["--part", "1/2"], ["--part-range", "0:1"]])
def test_part_refuses_what_shapes_a_line(three, mode, opt):
    """A record has no checksum line: an option that shapes one is for
    --combine, and given to a part it would be dropped unsaid (a user who
    gave -n 64 to every part gets 16 bytes from a plain --combine)."""
    name = {"-n": "--output-size", "-l": "--length", "-z": "--zero", "-b": "--binary",
            "-t": "--text"}.get(opt[0], opt[0])
    refused(three, mode + opt + ["obj"], rf"^ksum: {mode[0]} cannot be used with {name}: ")


# ---- 3. the recipes in docs/parts.md ----

def doc_blocks():
    return readme.blocks("Recipes", "sh")


def test_docs_blocks_are_tested():
    assert len(doc_blocks()) >= 4


@pytest.mark.parametrize("index", range(len(doc_blocks())))
def test_docs_block_runs(index, tmp_path):
    block = doc_blocks()[index]
    if "parallel" in block and shutil.which("parallel") is None:
        pytest.skip("GNU parallel is not installed (apt-get install parallel)")
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(KSUM)) + ":" +
               os.environ["PATH"], HOSTS=":", SIZE="3000000")
    p = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=tmp_path, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    assert p.returncode == 0, (block, p.stdout.decode(), p.stderr.decode())
