# SPDX-License-Identifier: Apache-2.0
"""Property test of check mode: every line of every check file is accounted
for.  Seeded random check files mix valid, wrong, tagged (with and without a
length), foreign-algorithm, other tools' (SHA-256, BLAKE2b), keyed lines of
random lengths, unsupported-algorithm, hex and base64, '-', missing,
not-regular, duplicate, huge, CRLF, NUL, garbage, blank and comment lines; a
small model of the rules (the check-mode rules in
SECURITY.md) predicts each line's fate.  From ksum's output (with -w, standard
error merged into standard output, so the order shows too) the test asserts
that the output is the predicted one, that the reported kinds plus the silent
ones (missing and ignored, blank, comment) add up to the number of lines, and
that the exit status follows from the counts.  Some cases run under an
address-space limit with lines far too long for it."""
import base64
import hashlib
import os
import random
import re
import resource
import subprocess

import pytest

from conftest import KSUM, run
from test_cli import help_switches

MiB = 1 << 20
SANITIZED = os.environ.get("KSUM_SANITIZED") == "1"
KEY = "00112233445566778899aabbccddeeff"
ALGS = {"SHA3-256": 32, "SHA3-512": 64, "SHAKE128": 16, "KMAC128": 16}
# Checked at the length of the line's digest when no -n is given.
VARIABLE = {"SHAKE128", "KMAC128"}
UNSUPPORTED = ["SHA256", "MD5", "BLAKE2b-256", "SHA2-512/224"]
SWITCH = {"SHA3-256": "--sha3-256", "SHA3-512": "--sha3-512", "SHAKE128": "--shake128",
          "KMAC128": "--kmac128"}
# mode: (ksum arguments, algorithm of untagged lines, the switch's algorithm)
MODES = {"default": ([], "SHA3-256", None),
         "sha3-512": (["--sha3-512"], "SHA3-512", "SHA3-512"),
         "kmac": (["--kmac128", "-k", KEY], "KMAC128", "KMAC128")}
FILES = [f"f{i}" for i in range(5)]
MISSING = ["m0", "m1"]
NOT_REGULAR = ["d0"]
STDIN_AS_LIST = "standard input is the checksum list being read"
KEYED_RULE = "(a key: only the length chosen with -n or -l, or the default, is verified)"
KEYLESS_ONE = ("KMAC line was checked with the empty key (no key given), "
               "which anyone can compute")
KEYLESS_MANY = ("KMAC lines were checked with the empty key (no key given), "
                "which anyone can compute")
HINT = ("untagged lines were checked as SHA3-256, since no algorithm was named; "
        "name another with -a NAME or its switch (--sha3-512, --k12, ...)")
# The switches by the hex digits of their default output, as ksum makes it:
# the length hint after an untagged line of another length names them.
FITS = {}
for _sw in help_switches():
    FITS.setdefault(len(run([f"--{_sw}", "/dev/null"])[1].split()[0]), []).append(f"--{_sw}")
# Under the address-space limit ksum runs (it needs less than 40 MiB), a line
# of SPARSE bytes never fits; it is a hole in the file, so cheap to read.
LIMIT = 80 * MiB
SPARSE = 120 * MiB

OK, FAILED, OPENFAIL, IGNORED, MISFORMATTED, UNREAD, NEUTRAL = (
    "OK", "FAILED", "FAILED open or read", "ignored", "improperly formatted",
    "unread", "neutral")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    d = tmp_path_factory.mktemp("props")
    rng = random.Random(9)
    contents = {n: rng.randbytes(rng.randrange(0, 3000)) for n in FILES}
    for n, data in contents.items():
        (d / n).write_bytes(data)
    (d / "d0").mkdir()
    stdin_data = rng.randbytes(5000)
    values = {}
    for alg in ALGS:
        for key in ([None, KEY] if alg == "KMAC128" else [None]):
            args = [SWITCH[alg]] + (["-k", key] if key else [])
            out = run(args + FILES + ["-", "/dev/null"], cwd=d, input=stdin_data)[1]
            sums = [l.split("  ")[0] for l in out.decode().splitlines()]
            for content, hexsum in zip(list(contents.values()) + [stdin_data, b""], sums):
                values[(alg, key, content)] = hexsum
    # the oracle for the unkeyed ones
    assert values[("SHA3-256", None, b"")] == hashlib.sha3_256(b"").hexdigest()
    return d, contents, stdin_data, values


class Line:
    """One generated line: its bytes and what it means (digest: the bytes
    the line's digest stands for; None when it stands for none)."""
    def __init__(self, text=b"", tag=None, name=None, digest=None, kind="entry", written=None):
        self.text, self.tag, self.name, self.digest, self.kind = text, tag, name, digest, kind
        self.written = written or tag   # the tag as written, with its -BITS


def value(world, alg, mode, name, stdin_content):
    _, contents, _, values = world
    key = KEY if (alg == "KMAC128" and MODES[mode][2] == "KMAC128") else None
    content = stdin_content if name == "-" else contents.get(name, b"")
    return values[(alg, key, content)]


def entry(rng, world, mode):
    """A checksum line naming something, right or wrong, tagged or not."""
    untagged, chosen = MODES[mode][1], MODES[mode][2]
    r = rng.random()
    tag = None if r < 0.5 else (chosen or rng.choice(list(ALGS))) if r < 0.75 else \
        rng.choice([a for a in ALGS if a != chosen])   # foreign in switch modes
    alg = tag or (untagged if rng.random() < 0.85 else rng.choice(list(ALGS)))
    name = rng.choice(FILES * 4 + MISSING + NOT_REGULAR + ["-", "-"])
    stdin_content = world[2] if rng.random() < 0.6 else b""
    digest = bytearray.fromhex(value(world, alg, mode, name, stdin_content))
    if rng.random() < 0.2:          # a wrong checksum
        digest[rng.randrange(len(digest))] ^= 1 << rng.randrange(8)
    if tag in VARIABLE and mode == "kmac" and rng.random() < 0.3:
        digest = digest[:rng.randrange(1, len(digest) + 1)]   # a shortened MAC
    digest = bytes(digest)
    r = rng.random()
    text = base64.b64encode(digest).decode() if r < 0.25 else \
        digest.hex().upper() if r < 0.45 else digest.hex()
    written = tag
    if tag in VARIABLE and rng.random() < 0.3:     # the length in the tag
        written = f"{tag}-{8 * len(digest)}"
    if tag is None:
        text = f"{text} {rng.choice([' ', '*'])}{name}"
    else:
        text = rng.choice([f"{written} ({name}) = {text}", f"{written}({name})= {text}"])
    return Line(text.encode(), tag, name, digest, written=written)


def foreign(rng, world):
    """An untagged line of sha256sum or b2sum (-l 256): a digest as long as
    SHA3-256's."""
    _, contents, _, _ = world
    name = rng.choice(FILES)
    data = contents[name]
    digest = hashlib.sha256(data).digest() if rng.random() < 0.5 else \
        hashlib.blake2b(data, digest_size=32).digest()
    return Line(f"{digest.hex()}  {name}".encode(), None, name, digest, kind="foreign")


def unsupported(rng):
    tag = rng.choice(UNSUPPORTED)
    digest = rng.randbytes(rng.choice([16, 20, 32]))
    text = rng.choice([f"{tag} (f0) = {digest.hex()}", f"{tag}(f0)= {digest.hex()}"])
    return Line(text.encode(), tag, "f0", digest, kind="unsupported")


def generate(seed, world, mode, limited):
    rng = random.Random(seed)
    lines = []
    for _ in range(rng.randrange(1, 40)):
        r = rng.random()
        if r < 0.55:
            line = entry(rng, world, mode)
        elif r < 0.62 and lines:
            line = rng.choice(lines)                           # duplicate
        elif r < 0.67:
            good = entry(rng, world, mode)                    # a NUL byte inside
            at = rng.randrange(len(good.text) + 1)
            line = Line(good.text[:at] + b"\0" + good.text[at:], kind="nul")
        elif r < 0.72:
            n = rng.randrange(100000, 3 * MiB // 2)              # huge, but fits
            line = Line(b"a" * n + b"  f0", None, "f0",
                        bytes.fromhex("a" * n) if n % 2 == 0 else None)
        elif r < 0.76 and limited:
            line = Line(kind="sparse")                        # far too long for memory
        elif r < 0.775:
            line = unsupported(rng)
        elif r < 0.79:
            line = foreign(rng, world)
        elif r < 0.84:
            junk = bytes(rng.choice(b"xyz 0123456789abcdef()=*-\\\t") for _ in range(
                rng.randrange(1, 80)))
            line = Line(b"~" + junk, kind="garbage")
        elif r < 0.9:
            line = Line(b"", kind="blank")   # with CRLF: "\r\n"
        else:
            line = Line(b"# a comment " + rng.randbytes(5).hex().encode(), kind="comment")
        lines.append(line)
    return lines


def write_list(path, lines, rng):
    """Writes the lines, some with CRLF, the last maybe without a line end."""
    with open(path, "wb") as f:
        for i, line in enumerate(lines):
            if line.kind == "sparse":
                f.write(b"a")
                f.seek(SPARSE, os.SEEK_CUR)                  # a hole: NUL bytes
                f.write(b"  f0")
            else:
                f.write(line.text)
            last = i == len(lines) - 1
            if not (last and line.text and rng.random() < 0.3):
                f.write(b"\r\n" if rng.random() < 0.2 else b"\n")


class Model:
    """The check-mode rules, applied line by line."""
    def __init__(self, world, mode, stdin_is_list, ignore_missing, limited):
        self.world, self.mode = world, mode
        self.stdin_is_list, self.ignore_missing = stdin_is_list, ignore_missing
        self.limited = limited
        self.keyed = mode == "kmac"
        self.failed_untagged = 0   # in the list being read
        self.ok_untagged = 0
        self.keyless = 0           # KMAC lines verified with no key and no switch
        self.stdin_left = world[2]
        self.fits = None           # the first untagged hex length of FITS misformatted
        self.no_fit = None         # the first such length, even, of none of FITS

    def fate(self, line):
        """(kind, reason for FAILED open or read)."""
        if line.kind in ("blank", "comment"):
            return NEUTRAL, None
        if line.kind == "sparse":
            return (UNREAD, None) if self.limited else (MISFORMATTED, None)
        if line.kind in ("nul", "garbage"):
            return MISFORMATTED, None
        if line.kind == "unsupported":
            return MISFORMATTED, f"unsupported algorithm {line.tag}"
        untagged, chosen = MODES[self.mode][1], MODES[self.mode][2]
        if line.tag is not None and chosen is not None and line.tag != chosen:
            return MISFORMATTED, f"{line.written} line, not checked with {chosen}"
        alg = line.tag or untagged
        if self.keyed and line.written != line.tag and \
                line.written != f"{line.tag}-{8 * ALGS[alg]}":
            return MISFORMATTED, (f"{line.written} line, not checked at {8 * ALGS[alg]} bits "
                                  + KEYED_RULE)
        fixed = alg not in VARIABLE or self.keyed
        if line.digest is None or (fixed and len(line.digest) != ALGS[alg]):
            digits = line.text.split(b" ")[0]
            if line.tag is None and not self.keyed and len(digits) % 2 == 0 and \
                    re.fullmatch(rb"[0-9a-fA-F]+", digits):
                if len(digits) not in FITS:
                    self.no_fit = self.no_fit or len(digits)
                elif self.fits is None:
                    self.fits = len(digits)
            return MISFORMATTED, None
        if line.name in MISSING:
            return (IGNORED, None) if self.ignore_missing else \
                (OPENFAIL, "No such file or directory")
        if line.name in NOT_REGULAR:
            return OPENFAIL, "not a regular file"
        content = b""
        if line.name == "-":
            if self.stdin_is_list:
                return OPENFAIL, STDIN_AS_LIST
            content, self.stdin_left = self.stdin_left, b""
        # a digest of another length than the value's never matches
        want = value(self.world, alg, self.mode, line.name, content)
        self.keyless += alg == "KMAC128" and self.mode == "default"
        if line.digest.hex() == want:
            self.ok_untagged += line.tag is None
            return OK, None
        self.failed_untagged += line.tag is None
        return FAILED, None


def expected_output(label, lines, model):
    """The merged output for one check file, and its counts."""
    out, counts = [], {k: 0 for k in (OK, FAILED, OPENFAIL, IGNORED, MISFORMATTED,
                                      UNREAD, NEUTRAL)}
    for number, line in enumerate(lines, 1):
        kind, reason = model.fate(line)
        counts[kind] += 1
        if kind in (OK, FAILED):
            out.append(f"{line.name}: {kind}")
        elif kind == OPENFAIL:
            out += [f"ksum: {line.name}: {reason}", f"{line.name}: {kind}"]
        elif kind == MISFORMATTED:
            out.append(f"ksum: {label}: {number}: "
                       f"{reason or 'improperly formatted checksum line'}")
        elif kind == UNREAD:
            out.append(f"ksum: {label}: {number}: line could not be read: "
                       "Cannot allocate memory")
    return out + summary(label, counts, model, lines), counts


def plural(n, one, many):
    return [] if n == 0 else [f"{n} {one if n == 1 else many}"]


def summary(label, c, model, lines):
    formatted = c[OK] + c[FAILED] + c[OPENFAIL] + c[IGNORED]
    not_verified = plural(c[MISFORMATTED], "line was not verified", "lines were not verified") \
        if model.keyed else plural(c[MISFORMATTED], "line is improperly formatted",
                                   "lines are improperly formatted")
    keyless, model.keyless = model.keyless, 0
    fits = [] if model.fits is None and model.no_fit is None else [
        f"ksum: {label}: lines of {model.fits} hex digits fit the default length of "
        f"{', '.join(FITS[model.fits])}; name the algorithm that made them with its switch "
        "or -a NAME" if model.fits is not None else
        f"ksum: {label}: lines of {model.no_fit} hex digits fit no algorithm's default length "
        f"(give theirs: -n {model.no_fit // 2}); name the algorithm that made them with its "
        "switch or -a NAME"]
    model.fits = model.no_fit = None
    if formatted == 0:
        model.failed_untagged = model.ok_untagged = 0
        return ([f"ksum: WARNING: {label}: {w}" for w in not_verified] * model.keyed +
                [f"ksum: {label}: no properly formatted checksum lines found"] + fits)
    warnings = (plural(c[UNREAD], "line could not be read", "lines could not be read") +
                plural(c[OPENFAIL], "listed file could not be read",
                       "listed files could not be read") +
                plural(c[FAILED], "computed checksum did NOT match",
                       "computed checksums did NOT match") +
                plural(keyless, KEYLESS_ONE, KEYLESS_MANY))
    out = [f"ksum: {label}: {HINT}"] * (model.mode == "default" and model.failed_untagged > 0
                                        and model.ok_untagged == 0)
    model.failed_untagged = model.ok_untagged = 0
    # the hint follows the count of improper lines, with -w as here
    out += [f"ksum: WARNING: {label}: {w}" for w in not_verified] + fits
    out += [f"ksum: WARNING: {label}: {w}" for w in warnings]
    if model.ignore_missing and formatted == c[IGNORED]:
        out.append(f"ksum: {label}: no file was verified")
    return out


def passed(c, strict, ignore_missing, keyed):
    formatted = c[OK] + c[FAILED] + c[OPENFAIL] + c[IGNORED]
    return (formatted > 0 and c[FAILED] + c[OPENFAIL] + c[UNREAD] == 0 and
            not ((strict or keyed) and c[MISFORMATTED]) and
            not (ignore_missing and formatted == c[IGNORED]))


def reported_counts(output):
    """Kinds counted from ksum's own output."""
    counts = {OK: 0, FAILED: 0, OPENFAIL: 0, MISFORMATTED: 0, UNREAD: 0}
    for l in output:
        if re.fullmatch(r"ksum: .*: \d+: (improperly formatted checksum line|"
                        r"unsupported algorithm [A-Za-z0-9/-]+|"
                        r"[A-Za-z0-9/-]+ line, not checked (with|at) .*)", l):
            counts[MISFORMATTED] += 1
        elif re.fullmatch(r"ksum: .*: \d+: line could not be read: .*", l):
            counts[UNREAD] += 1
        elif not l.startswith("ksum: "):
            for kind in (OPENFAIL, FAILED, OK):
                if l.endswith(": " + kind):
                    counts[kind] += 1
                    break
    return counts


def run_case(seed, world, limited=False):
    d = world[0]
    rng = random.Random(seed * 7919)
    mode = rng.choice(list(MODES))
    nlists = rng.choice([1, 1, 2])
    # -1: no list on standard input (always so under the limit: a list with
    # a huge hole would be slow through a pipe)
    stdin_list = -1 if limited else rng.randrange(-1, nlists)
    strict, ignore_missing = rng.random() < 0.3, rng.random() < 0.4
    model = Model(world, mode, stdin_list >= 0, ignore_missing, limited)
    args, stdin, want, total = MODES[mode][0] + ["-c", "-w"], world[2], [], 0
    all_counts = []
    for i in range(nlists):
        lines = generate(seed * 100 + i, world, mode, limited)
        path = d / f"list{seed}_{i}"
        write_list(path, lines, rng)
        if i == stdin_list:
            stdin = path.read_bytes()
            args.append(rng.choice(["-", "/dev/stdin"]))
            label = "standard input" if args[-1] == "-" else "/dev/stdin"
        else:
            args.append(path.name)
            label = path.name
        out, counts = expected_output(label, lines, model)
        want += out
        all_counts.append(counts)
        total += len(lines)
    args += ["--strict"] * strict + ["--ignore-missing"] * ignore_missing
    p = subprocess.run([KSUM] + args, cwd=d, input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120,
                       preexec_fn=(lambda: resource.setrlimit(
                           resource.RLIMIT_AS, (LIMIT, LIMIT))) if limited else None)
    got = p.stdout.decode("utf-8", "replace").splitlines()
    context = f"seed {seed}: ksum {' '.join(args)}"
    assert got == want, context
    # every line is exactly one kind: the reported ones and the silent ones
    reported = reported_counts(got)
    silent = sum(c[IGNORED] + c[NEUTRAL] for c in all_counts)
    assert sum(reported.values()) + silent == total, context
    for kind in reported:
        assert reported[kind] == sum(c[kind] for c in all_counts), (context, kind)
    ok = all(passed(c, strict, ignore_missing, model.keyed) for c in all_counts)
    assert p.returncode == (0 if ok else 1), context
    for i in range(nlists):
        (d / f"list{seed}_{i}").unlink()


@pytest.mark.parametrize("block", range(4))
def test_every_line_is_accounted_for(world, block):
    for seed in range(block * 15, block * 15 + 15):
        run_case(seed, world)


@pytest.mark.skipif(SANITIZED, reason="address-space limits do not work under the sanitizers")
def test_every_line_is_accounted_for_under_a_memory_limit(world):
    for seed in range(1000, 1008):
        run_case(seed, world, limited=True)
