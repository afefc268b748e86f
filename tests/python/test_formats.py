# SPDX-License-Identifier: Apache-2.0
"""What users of cksum, b3sum and rhash reach for (issue 12, items 1, 2, 3
and 7): lengths written into tags and read back from check lines,
check files from openssl dgst and cksum, output forms (--base64, --raw,
--untagged, --no-names, -l), and the messages of misplaced options."""
import base64
import hashlib
import os
import re
import subprocess

import pytest

from conftest import BUILD, KSUM, run

SANITIZED = os.environ.get("KSUM_SANITIZED") == "1"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "abc").write_bytes(b"abc")
    (tmp_path / "empty").write_bytes(b"")
    return tmp_path


def one_error(code, out, err, message):
    """A usage error: exit 1, nothing on stdout, the message, the hint."""
    assert code == 1 and out == b"", err
    assert err.splitlines() == [message, "Try 'ksum --help' for more information."]


# ---- 7. messages ----

@pytest.mark.parametrize("args,option", [
    (["--status"], "--status"), (["--quiet"], "--quiet"), (["--strict"], "--strict"),
    (["--warn"], "--warn"), (["-w"], "--warn"), (["--ignore-missing"], "--ignore-missing"),
    (["--sha3-512", "--strict", "--quiet"], "--quiet"),
])
def test_check_options_without_check_name_the_option(files, args, option):
    one_error(*run(args + ["abc"], cwd=files),
              f"ksum: the {option} option is meaningful only when verifying checksums")


# ---- 1. lengths that travel ----

def shake128(data, n):
    return hashlib.shake_128(data).hexdigest(n)


@pytest.mark.parametrize("args,tag", [
    (["--shake128", "-n", "8"], "SHAKE128-64"),
    (["--k12", "-n", "32"], "KANGAROOTWELVE-256"),
    (["-a", "KT-128", "-n", "32"], "KANGAROOTWELVE-256"),
    (["--kmac128", "-n", "32"], "KMAC128-256"),
    (["--kmac256", "-x", "-n", "1"], "KMACXOF256-8"),
    (["--kmac256", "-n", "1"], "KMAC256-8"),
    (["--turboshake256", "-n", "100"], "TURBOSHAKE256-800"),
    (["--shake128"], "SHAKE128"),
    (["--shake128", "-n", "16"], "SHAKE128"),       # the default length
    (["--kt256", "-n", "64"], "KT256"),
    (["--sha3-384"], "SHA3-384"),
])
def test_tag_carries_a_length_other_than_the_default(files, args, tag):
    code, out, err = run(args + ["--tag", "abc"], cwd=files)
    assert code == 0, err
    assert out.decode().startswith(f"{tag} (abc) = ")
    (files / "sums").write_bytes(out)
    # checked without the length: the tag (or the digest) says it
    no_length = [a for a in args if a != "-n" and not a.isdigit()]
    assert run(no_length + ["-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\n")
    assert run(args + ["-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\n")


def test_tagged_length_is_right(files):
    code, out, _ = run(["--shake128", "-n", "8", "--tag", "abc"], cwd=files)
    assert out.decode() == f"SHAKE128-64 (abc) = {shake128(b'abc', 8)}\n"
    code, out, _ = run(["--tuplehash128", "-n", "8", "--tag", "abc", "empty"], cwd=files)
    assert out.decode().startswith("TUPLEHASH128-64 (abc\tempty) = ")
    (files / "sums").write_bytes(out)
    assert run(["-c", "sums"], cwd=files)[:2] == (0, b"abc\tempty: OK\n")


def test_untagged_lines_take_the_length_of_their_digest(files):
    lines = "".join(f"{shake128(b'abc', n)}  abc\n" for n in (1, 7, 16, 33, 200))
    (files / "sums").write_text(lines)
    code, out, err = run(["--shake128", "-c", "sums"], cwd=files)
    assert code == 0 and out == b"abc: OK\n" * 5, err
    # -n pins the length: the other lines are improperly formatted
    code, out, err = run(["--shake128", "-n", "7", "-c", "-w", "sums"], cwd=files)
    assert code == 0 and out == b"abc: OK\n"
    assert err.count("improperly formatted checksum line") == 4
    # as -l does, in bits
    code, out, err = run(["--shake128", "-l", "56", "-c", "sums"], cwd=files)
    assert code == 0 and out == b"abc: OK\n"


def test_openssl_lines_of_other_lengths(files):
    """openssl dgst -xoflen N writes no length in its tag; the digest has it."""
    (files / "sums").write_text(f"SHAKE-128(abc)= {shake128(b'abc', 5)}\n"
                                f"SHAKE128(abc)= {shake128(b'abc', 40)}\n")
    assert run(["-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\nabc: OK\n")


def test_kmac_is_computed_at_the_length_the_user_chose(files):
    """With a key, the line's length never decides (issue 17): -n does."""
    key = ["-k", "00112233"]
    for extra in ([], ["-x"]):
        code, out, _ = run(["--kmac128"] + key + extra + ["-n", "20", "abc"], cwd=files)
        (files / "sums").write_bytes(out)
        assert run(["--kmac128"] + key + extra + ["-n", "20", "-c", "sums"],
                   cwd=files)[:2] == (0, b"abc: OK\n")
        code, out, err = run(["--kmac128"] + key + extra + ["-c", "sums"], cwd=files)
        assert (code, out) == (1, b""), err
        assert "ksum: sums: 1: improperly formatted checksum line" in err
    # KMAC's length is part of the MAC: a prefix of a longer KMAC does not pass
    long = run(["--kmac128"] + key + ["-n", "32", "abc"], cwd=files)[1].decode()
    (files / "sums").write_text(long[:40] + "  abc\n")
    assert run(["--kmac128"] + key + ["-n", "20", "-c", "sums"], cwd=files)[:2] == \
        (1, b"abc: FAILED\n")
    # KMACXOF's is not: its prefix property holds
    long = run(["--kmac128", "-x"] + key + ["-n", "32", "abc"], cwd=files)[1].decode()
    (files / "sums").write_text(long[:40] + "  abc\n")
    assert run(["--kmac128", "-x"] + key + ["-n", "20", "-c", "sums"], cwd=files)[:2] == \
        (0, b"abc: OK\n")


BAD_LENGTH_LINES = [
    f"SHAKE128-7 (abc) = {shake128(b'abc', 1)}",
    f"SHAKE128- (abc) = {shake128(b'abc', 16)}",
    f"SHAKE128-064 (abc) = {shake128(b'abc', 8)}",
    f"SHAKE128-72 (abc) = {shake128(b'abc', 8)}",         # disagrees with the digest
    f"SHA3-256-512 (abc) = {hashlib.sha3_256(b'abc').hexdigest()}",
    f"KMAC128-0 (abc) = {'00' * 16}",
    f"SHAKE128-2251799813685256 (abc) = {shake128(b'abc', 8)}",   # over 2^48 bytes
    f"SHAKE128-18446744073709551624 (abc) = {shake128(b'abc', 8)}",
    f"SHAKE128 (abc) = {shake128(b'abc', 8)[:-1]}",      # not whole bytes
    f"{shake128(b'abc', 8)[:-1]}  abc",
]


@pytest.mark.parametrize("line", BAD_LENGTH_LINES)
def test_bad_lengths_are_improperly_formatted(files, line):
    good = f"SHAKE128-64 (abc) = {shake128(b'abc', 8)}\n"
    (files / "sums").write_text(line + "\n" + good)
    # tagged lines choose their algorithm; the untagged one is SHAKE128's
    args = [] if "(" in line else ["--shake128"]
    code, out, err = run(args + ["-c", "-w", "sums"], cwd=files)
    assert code == 0 and out == b"abc: OK\n", err
    assert err.splitlines() == ["ksum: sums: 1: improperly formatted checksum line",
                                "ksum: WARNING: sums: 1 line is improperly formatted"]
    code, out, err = run(args + ["-c", "--strict", "sums"], cwd=files)
    assert code == 1 and out == b"abc: OK\n"


def test_length_disagreeing_with_n_is_improper(files):
    (files / "sums").write_text(f"SHAKE128-64 (abc) = {shake128(b'abc', 8)}\n")
    code, out, err = run(["--shake128", "-n", "16", "-c", "-w", "sums"], cwd=files)
    assert code == 1 and out == b""
    assert err.splitlines() == ["ksum: sums: 1: improperly formatted checksum line",
                                "ksum: sums: no properly formatted checksum lines found"]
    assert run(["--shake128", "-n", "8", "-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\n")
    assert run(["-n", "8", "-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\n")


# ---- 2. interoperable check files ----

SHA3_ABC = hashlib.sha3_256(b"abc").hexdigest()


@pytest.mark.parametrize("name,switch", [
    ("SHAKE-128", "--shake128"), ("KT128", "--k12"), ("sha3-256", "--sha3-256"),
    ("KT-256", "--kt256"), ("TURBOSHAKE-128", "--turboshake128"), ("kt-128", "--kt128"),
    ("K12", "--kangarootwelve"), ("M14", "--marsupilamifourteen"), ("KMAC-256", "--kmac256"),
    ("CSHAKE-128", "--cshake128"), ("RAWSHAKE-256", "--rawshake256"),
    ("PARALLELHASH-128", "--parallelhash128"), ("TUPLEHASH-256", "--tuplehash256"),
    ("Keccak-256", "--keccak-256"), ("2.16.840.1.101.3.4.2.8", "--sha3-256"),
])
def test_algorithm_takes_every_provider_name(files, name, switch):
    code, out, err = run(["-a", name, "abc"], cwd=files)
    assert code == 0, err
    assert out == run([switch, "abc"], cwd=files)[1]


@pytest.mark.parametrize("tag", ["SHA3-256", "sha3-256", "Sha3-256"])
def test_tags_in_any_name_and_case(files, tag):
    for line in (f"{tag} (abc) = {SHA3_ABC}", f"{tag}(abc)= {SHA3_ABC.upper()}"):
        (files / "sums").write_text(line + "\n")
        assert run(["-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\n"), line
        assert run(["-a", "SHA3-256", "-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\n")


@pytest.mark.parametrize("tag,switch", [
    ("shake-128", "--shake128"), ("Kt-128", "--k12"), ("k12", "--kt128"),
    ("kangarootwelve", "--k12"), ("TurboSHAKE-256", "--turboshake256"), ("kt-256", "--kt256"),
    ("2.16.840.1.101.3.4.2.8", "--sha3-256")])
def test_alias_tags_choose_the_algorithm(files, tag, switch):
    digest = run([switch, "abc"], cwd=files)[1].split()[0].decode()
    (files / "sums").write_text(f"{tag} (abc) = {digest}\n{tag}(abc)= {digest}\n")
    assert run(["-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\n" * 2)
    assert run([switch, "-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\n" * 2)


def test_openssl_colon_separated_digest(files):
    colons = ":".join(SHA3_ABC[i:i + 2] for i in range(0, 64, 2))
    (files / "sums").write_text(f"SHA3-256(abc)= {colons}\n")
    assert run(["-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\n")
    for bad in (colons + ":", ":" + colons, colons.replace(":", "::", 1),
                colons[:-3] + colons[-2:], SHA3_ABC[:2] + ":" + SHA3_ABC[2:]):
        (files / "sums").write_text(f"SHA3-256(abc)= {bad}\n")
        code, out, err = run(["-c", "-w", "sums"], cwd=files)
        assert code == 1 and out == b"", bad
        assert "ksum: sums: 1: improperly formatted checksum line" in err
    # only in tagged lines, as openssl writes it
    (files / "sums").write_text(f"{colons}  abc\n")
    assert run(["-c", "sums"], cwd=files)[0] == 1


@pytest.mark.parametrize("tag", ["SHA256", "SHA2-256", "MD5", "BLAKE2b-256", "BLAKE2b",
                                 "SHA2-512/224", "RIPEMD-160", "KECCAK-KMAC-128", "sha1",
                                 "SM3", "X"])
def test_unsupported_algorithms_are_named_under_warn(files, tag):
    lines = f"{SHA3_ABC}  abc\n{tag} (abc) = {'ab' * 32}\n{tag}(abc)= {'ab' * 20}\n"
    (files / "sums").write_text(lines)
    code, out, err = run(["-c", "-w", "sums"], cwd=files)
    assert code == 0 and out == b"abc: OK\n"
    assert err.splitlines() == [f"ksum: sums: 2: unsupported algorithm {tag}",
                                f"ksum: sums: 3: unsupported algorithm {tag}",
                                "ksum: WARNING: sums: 2 lines are improperly formatted"]
    code, out, err = run(["-c", "sums"], cwd=files)
    assert code == 0 and err == "ksum: WARNING: sums: 2 lines are improperly formatted\n"
    code, out, err = run(["-c", "--strict", "sums"], cwd=files)
    assert code == 1 and out == b"abc: OK\n"
    assert err == "ksum: WARNING: sums: 2 lines are improperly formatted\n"
    code, out, err = run(["-c", "--strict", "--warn", "--status", "sums"], cwd=files)
    assert (code, out, err) == (1, b"", "")
    # with a keyed switch too: the untagged line would be a KMAC128 of 32
    # bytes, not the 16 a key verifies
    code, out, err = run(["--kmac128", "-k", "00", "-c", "-w", "sums"], cwd=files)
    assert code == 1 and out == b""
    assert err.splitlines()[:3] == ["ksum: sums: 1: improperly formatted checksum line",
                                    f"ksum: sums: 2: unsupported algorithm {tag}",
                                    f"ksum: sums: 3: unsupported algorithm {tag}"]


def test_only_unsupported_lines(files):
    (files / "sums").write_text(f"SHA256 (abc) = {hashlib.sha256(b'abc').hexdigest()}\n")
    code, out, err = run(["-c", "-w", "sums"], cwd=files)
    assert code == 1 and out == b""
    assert err.splitlines() == ["ksum: sums: 1: unsupported algorithm SHA256",
                                "ksum: sums: no properly formatted checksum lines found"]


def test_unsupported_warnings_keep_their_place_in_a_log(files):
    import subprocess
    from conftest import KSUM
    (files / "sums").write_text(f"{SHA3_ABC}  abc\nMD5 (abc) = {'00' * 16}\n"
                                f"{SHA3_ABC}  abc\n")
    with open(files / "log", "wb") as f:
        subprocess.run([KSUM, "-c", "-w", "sums"], cwd=files, stdout=f,
                       stderr=subprocess.STDOUT)
    assert (files / "log").read_text().splitlines() == [
        "abc: OK", "ksum: sums: 2: unsupported algorithm MD5", "abc: OK",
        "ksum: WARNING: sums: 1 line is improperly formatted"]


def b64(hexdigest):
    return base64.b64encode(bytes.fromhex(hexdigest)).decode()


def test_cksum_base64_lines(files):
    """cksum --base64 writes standard base64 with padding, tagged or not."""
    k12 = run(["--k12", "-n", "32", "abc"], cwd=files)[1].split()[0].decode()
    lines = (f"SHA3-256 (abc) = {b64(SHA3_ABC)}\n"
             f"SHAKE128-64 (abc) = {b64(shake128(b'abc', 8))}\n"
             f"SHAKE128 (abc) = {b64(shake128(b'abc', 30))}\n"
             f"KANGAROOTWELVE-256 (abc) = {b64(k12)}\n"
             f"\\SHA3-256 (abc) = {b64(SHA3_ABC)}\n")
    (files / "sums").write_text(lines)
    assert run(["-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\n" * 5)
    (files / "sums").write_text(f"{b64(SHA3_ABC)}  abc\n{b64(SHA3_ABC)} *abc\n")
    assert run(["-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\n" * 2)
    (files / "sums").write_text(f"{b64(shake128(b'abc', 7))}  abc\n")
    assert run(["--shake128", "-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\n")


def test_leading_blanks_are_skipped_as_coreutils_does(files):
    """sha256sum -c skips spaces and tabs before a line (and before its
    backslash); a line of blanks alone stays improperly formatted."""
    lines = (f"  {SHA3_ABC}  abc\n\t{SHA3_ABC} *abc\n \t SHA3-256 (abc) = {SHA3_ABC}\n"
             f"  \\{SHA3_ABC}  abc\n")
    (files / "sums").write_text(lines)
    assert run(["-c", "--strict", "sums"], cwd=files)[:2] == (0, b"abc: OK\n" * 4)
    (files / "sums").write_text(f"{SHA3_ABC}  abc\n   \n")
    code, out, err = run(["-c", "-w", "sums"], cwd=files)
    assert (code, out) == (0, b"abc: OK\n")
    assert err.splitlines()[0] == "ksum: sums: 2: improperly formatted checksum line"


@pytest.mark.parametrize("digest", [
    b64(SHA3_ABC)[:-1],                     # padding missing
    b64(SHA3_ABC) + "=",                    # too much padding
    b64(SHA3_ABC)[:-2] + "B=",              # bits set after the last byte
    b64(SHA3_ABC)[:20] + "=" + b64(SHA3_ABC)[21:],   # padding inside
    b64(SHA3_ABC)[:-4],                     # a byte short... of 32
    base64.b64encode(bytes.fromhex(SHA3_ABC) + b"x").decode(),   # a byte too many
    base64.urlsafe_b64encode(bytes.fromhex("fbff" * 16)).decode(),  # not the standard alphabet
    "====",
])
def test_malformed_base64_is_improperly_formatted(files, digest):
    (files / "sums").write_text(f"SHA3-256 (abc) = {digest}\n{digest}  abc\n")
    code, out, err = run(["-c", "-w", "sums"], cwd=files)
    assert code == 1 and out == b""
    assert err.splitlines() == ["ksum: sums: 1: improperly formatted checksum line",
                                "ksum: sums: 2: improperly formatted checksum line",
                                "ksum: sums: no properly formatted checksum lines found"]


# ---- 2. openssl dgst's lines, this machine's OpenSSL ----

needs_openssl = pytest.mark.skipif(
    SANITIZED, reason="a sanitized ksumprov.so cannot load into the uninstrumented openssl")
LOAD = ["-provider-path", BUILD, "-provider", "ksumprov", "-provider", "default",
        "-propquery", "provider=ksumprov"]


def openssl(args, cwd, may_fail=False):
    """openssl's output; with may_fail, "" when it fails (from 3.4, dgst
    refuses SHAKE without -xoflen)."""
    p = subprocess.run(["openssl"] + args, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    if may_fail and p.returncode != 0:
        return ""
    assert p.returncode == 0, (args, p.stderr.decode())
    return p.stdout.decode()


def digests_of(provider, args):
    """The name groups of a provider's digests in `openssl list`, OIDs left out."""
    out = openssl(["list", "-digest-algorithms"] + args, cwd=None)
    groups = []
    for line in out.splitlines():
        m = re.fullmatch(r"\s*(?:\{ (.*) \}|(\S+)) @ " + provider, line)
        if m:
            names = [n.strip() for n in (m[1] or m[2]).split(",")]
            groups.append([n for n in names if not n[0].isdigit()])
    assert groups, f"no digest of {provider}"
    return groups


def is_fixed(name):
    return name.upper().startswith(("SHA3-", "KECCAK-"))


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("dgst")
    # less than openssl's read size: one update, so one TupleHash element
    (d / "data").write_bytes(bytes((7 * i + 3) % 251 for i in range(3000)))
    return d


def check_all(d, lines, args=()):
    (d / "sums").write_text(lines)
    code, out, err = run(list(args) + ["-c", "--strict", "-w", "sums"], cwd=d)
    assert code == 0 and err == "", err
    assert out.decode() == "data: OK\n" * lines.count("\n")


@needs_openssl
def test_openssl_dgst_of_every_ksumprov_digest_checks(data):
    lines = ""
    for group in digests_of("ksumprov", ["-provider-path", BUILD, "-provider", "ksumprov"]):
        # A tree in parts (KT128-CV, KT128-FINAL, ...) takes a range or
        # chaining values, not a message: test_parts.py covers them.
        if group[0].upper().endswith(("-CV", "-FINAL")):
            continue
        for name in group:
            fixed = is_fixed(name)
            lines += openssl(["dgst"] + LOAD + [f"-{name}", "data"], data, not fixed)
            lines += openssl(["dgst"] + LOAD + ["-c", f"-{name}", "data"], data, not fixed)
            if not fixed:
                lines += openssl(["dgst"] + LOAD + [f"-{name}", "-xoflen", "40", "data"],
                                 cwd=data)
            # -r: coreutils' format, checked with the algorithm named
            length = [] if fixed else ["-xoflen", "24"]
            check_all(data, openssl(["dgst"] + LOAD + ["-r", f"-{name}"] + length + ["data"],
                                    cwd=data), ["-a", name])
    assert "TUPLEHASH128(data)= " in lines and "KANGAROOTWELVE(data)= " in lines
    check_all(data, lines)


@needs_openssl
def test_openssl_dgst_of_every_shared_digest_checks(data):
    """Digests of OpenSSL's default provider that ksum computes too."""
    lines, shared = "", []
    for group in digests_of("default", []):
        if run(["-a", group[0], "/dev/null"])[0] != 0:
            continue
        shared.append(group[0])
        for name in group:
            lines += openssl(["dgst", f"-{name}", "data"], data, not is_fixed(name))
            if not is_fixed(name):
                lines += openssl(["dgst", f"-{name}", "-xoflen", "40", "data"], cwd=data)
                lines += openssl(["dgst", f"-{name}", "-xoflen", "3", "data"], cwd=data)
    assert {"SHA3-256", "SHA3-512"} <= set(shared) and "SHAKE-128" in str(shared)
    assert "SHAKE-128(data)= " in lines or "SHAKE128(data)= " in lines
    check_all(data, lines)


# ---- 3. output forms ----

def test_base64_as_cksum_writes_it(files):
    digest = bytes.fromhex(SHA3_ABC)
    b = base64.b64encode(digest).decode()
    assert run(["--base64", "abc"], cwd=files)[1].decode() == f"{b}  abc\n"
    assert run(["--base64", "-b", "abc"], cwd=files)[1].decode() == f"{b} *abc\n"
    assert run(["--base64", "--tag", "abc"], cwd=files)[1].decode() == f"SHA3-256 (abc) = {b}\n"
    assert run(["--base64", "-z", "abc"], cwd=files)[1].decode() == f"{b}  abc\0"
    assert run(["--base64", "--no-names", "abc"], cwd=files)[1].decode() == f"{b}\n"
    # every length: padding, and pieces of a streamed output joined up
    for n in (1, 2, 3, 4, 5, 16, 100, 16383, 16384, (1 << 20) + 1, (1 << 20) + 5):
        out = run(["--shake256", "-n", str(n), "--base64", "abc"], cwd=files)[1]
        want = base64.b64encode(hashlib.shake_256(b"abc").digest(n)).decode()
        assert out.decode() == f"{want}  abc\n", n


def test_raw_is_the_digest_bytes_only(files):
    assert run(["--raw", "abc"], cwd=files)[:2] == (0, bytes.fromhex(SHA3_ABC))
    assert run(["--raw"], input=b"abc")[:2] == (0, bytes.fromhex(SHA3_ABC))
    for n in (1, 1000, (1 << 20) + 3):      # the last one streamed
        code, out, _ = run(["--shake128", "-n", str(n), "--raw", "abc"], cwd=files)
        assert code == 0 and out == hashlib.shake_128(b"abc").digest(n)
    # TupleHash: one sum of all the files
    code, out, _ = run(["--tuplehash128", "--raw", "abc", "empty"], cwd=files)
    want = run(["--tuplehash128", "abc", "empty"], cwd=files)[1].split()[0].decode()
    assert code == 0 and out == bytes.fromhex(want)


def test_untagged_is_the_coreutils_format(files):
    for args in (["--untagged"], ["-a", "sha3-256", "--untagged"], ["--tag", "--untagged"]):
        assert run(args + ["abc"], cwd=files)[1].decode() == f"{SHA3_ABC}  abc\n"
    # the last of --tag and --untagged counts, as in cksum
    assert run(["--untagged", "--tag", "abc"], cwd=files)[1].decode() == \
        f"SHA3-256 (abc) = {SHA3_ABC}\n"
    assert run(["-a", "SHAKE-128", "-n", "4", "--untagged", "abc"], cwd=files)[1].decode() == \
        f"{shake128(b'abc', 4)}  abc\n"


def test_no_names(files):
    (files / "back\\slash").write_bytes(b"abc")
    code, out, _ = run(["--no-names", "abc", "empty", "back\\slash"], cwd=files)
    assert code == 0
    assert out.decode() == f"{SHA3_ABC}\n{hashlib.sha3_256(b'').hexdigest()}\n{SHA3_ABC}\n"
    assert run(["--no-names", "-z", "abc"], cwd=files)[1] == SHA3_ABC.encode() + b"\0"
    code, out, err = run(["--no-names", "abc", "missing", "empty"], cwd=files)
    assert code == 1 and out.decode().count("\n") == 2
    assert err == "ksum: missing: No such file or directory\n"


def test_length_in_bits(files):
    for bits in ("8", "64", "800"):
        assert run(["--shake128", "-l", bits, "abc"], cwd=files)[1] == \
            run(["--shake128", "-n", str(int(bits) // 8), "abc"], cwd=files)[1]
    out = run(["--k12", "--length=256", "--tag", "abc"], cwd=files)[1].decode()
    assert out.startswith("KANGAROOTWELVE-256 (abc) = ")
    # both, agreeing
    assert run(["--shake128", "-l", "64", "-n", "8", "abc"], cwd=files)[1].decode() == \
        f"{shake128(b'abc', 8)}  abc\n"


def test_rawshake_switches_and_their_abbreviations(files):
    want128 = run(["--rawshake128", "abc"], cwd=files)[1]
    want256 = run(["--rawshake256", "abc"], cwd=files)[1]
    assert len(want128.split()[0]) == 32 and want128 != want256
    for abbreviation in ("--rawshake1", "--rawshake12", "--rawshake128"):
        assert run([abbreviation, "abc"], cwd=files)[:2] == (0, want128)
    assert run(["--rawshake2", "abc"], cwd=files)[:2] == (0, want256)
    # --raw is exact, never an abbreviation of them
    assert run(["--rawshake128", "--raw", "abc"], cwd=files)[1] == \
        bytes.fromhex(want128.split()[0].decode())
    assert run(["--raw", "--rawshake256", "abc"], cwd=files)[1] == \
        bytes.fromhex(want256.split()[0].decode())


@pytest.mark.parametrize("option", ["--rawsh", "--rawshake", "--ra", "--r"])
def test_ambiguous_abbreviation_is_an_error(files, option):
    code, out, err = run([option, "abc"], cwd=files)
    assert code == 1 and out == b""
    lines = err.splitlines()
    assert f"option '{option}' is ambiguous" in lines[0]
    assert lines[1:] == ["Try 'ksum --help' for more information."]


@pytest.mark.parametrize("args,message", [
    (["-l", "7"], "invalid length '7': not a multiple of 8 (it is in bits)"),
    (["-l", "0"], "invalid length '0': must be at least 8"),
    (["--length=12"], "invalid length '12': not a multiple of 8 (it is in bits)"),
    (["-l", "-8"], "invalid length '-8': not a decimal number"),
    (["-l", "x"], "invalid length 'x': not a decimal number"),
    (["-l", ""], "invalid length '': not a decimal number"),
    (["--shake128", "-l", "128", "-l", "7"], "invalid length '7': not a multiple of 8 (it is in bits)"),
    (["--tag", "--text"], "--tag does not support --text mode"),
    (["--threads", "-1"], "invalid thread count '-1': not a decimal number"),
    (["-l", "2251799813685256"], "invalid length '2251799813685256': too large (at most 2251799813685248)"),
    (["--shake128", "-l", "64", "-n", "16"],
     "--length=64 (bits) and --output-size=16 (bytes) disagree"),
    (["--shake128", "-n", "16", "-l", "64"],
     "--length=64 (bits) and --output-size=16 (bytes) disagree"),
    (["-l", "256"], "option --length does not apply to SHA3-256"),
    (["--sha3-512", "-n", "64"], "option --output-size does not apply to SHA3-512"),
    (["--raw", "--tag"], "--raw and --tag are mutually exclusive"),
    (["--raw", "--base64"], "--raw and --base64 are mutually exclusive"),
    (["--raw", "--untagged"], "--raw and --untagged are mutually exclusive"),
    (["--raw", "--no-names"], "--raw and --no-names are mutually exclusive"),
    (["--raw", "-z"], "--raw and --zero are mutually exclusive"),
    (["--raw", "-b"], "--raw and --binary are mutually exclusive"),
    (["--no-names", "--tag"], "--no-names and --tag are mutually exclusive"),
    (["--no-names", "--binary"], "--no-names and --binary are mutually exclusive"),
    (["-c", "--tag"], "the --tag option is meaningless when verifying checksums"),
    (["-c", "--base64"], "the --base64 option is meaningless when verifying checksums"),
    (["-c", "--raw"], "the --raw option is meaningless when verifying checksums"),
    (["-c", "--no-names"], "the --no-names option is meaningless when verifying checksums"),
    (["-c", "-b"], "the --binary and --text options are meaningless when verifying checksums"),
    (["-c", "-t"], "the --binary and --text options are meaningless when verifying checksums"),
    (["-c", "-z"], "the --zero option is not supported when verifying checksums"),
])
def test_bad_forms_and_lengths(files, args, message):
    one_error(*run(args + ["abc"], cwd=files), f"ksum: {message}")


def test_option_orders_coreutils_takes(files):
    """As coreutils: the last -l counts (an earlier one is not judged),
    --text before --tag is undone by it (and -b after both is fine), and
    --untagged is accepted with -c, where it changes nothing."""
    last = run(["--shake128", "-l", "7", "-l", "128", "abc"], cwd=files)
    assert last == run(["--shake128", "-l", "128", "abc"], cwd=files)
    assert last[0] == 0
    tagged = run(["--tag", "abc"], cwd=files)
    assert tagged[0] == 0
    assert run(["--text", "--tag", "abc"], cwd=files) == tagged
    assert run(["--tag", "--text", "-b", "abc"], cwd=files) == tagged
    listed = run(["abc"], cwd=files)[1]
    with open(os.path.join(files, "SUMS"), "wb") as f:
        f.write(listed)
    assert run(["--untagged", "-c", "SUMS"], cwd=files) == (0, b"abc: OK\n", "")
    assert run(["-c", "--untagged", "SUMS"], cwd=files) == (0, b"abc: OK\n", "")


@pytest.mark.parametrize("args", [["abc", "empty"], ["abc", "-"], ["-", "-"],
                                  ["--k12", "abc", "abc", "abc"]])
def test_raw_with_several_files_is_an_error(files, args):
    one_error(*run(["--raw"] + args, cwd=files),
              "ksum: the --raw option is not supported with multiple files")


# ---- round trips: ksum OPTIONS FILES | ksum -c ----

FIXED = ["sha3-224", "sha3-256", "sha3-384", "sha3-512", "keccak-224", "keccak-256",
         "keccak-384", "keccak-512"]
VARIABLE = ["shake128", "shake256", "rawshake128", "rawshake256", "cshake128", "cshake256",
            "kmac128", "kmac256", "parallelhash128", "parallelhash256", "tuplehash128",
            "tuplehash256", "k12", "kt128", "kt256", "m14", "turboshake128", "turboshake256"]
NAMES = ["plain", "with space", "back\\slash", "new\nline", "tab\there", "ünï", "cr\rx",
         "star*", "(paren) = x"]


def parameters(rng, switch):
    """Random parameters that apply to the algorithm."""
    args = []
    if switch.startswith(("kmac", "cshake", "parallelhash", "tuplehash", "k12", "kt", "m14")) \
            and rng.random() < 0.4:
        args += ["-C", rng.choice(["c", "my app", "x" * 40])]
    if switch.startswith("cshake") and rng.random() < 0.4:
        args += ["-f", "N"]
    if switch.startswith("kmac"):
        args += ["-k", rng.randbytes(rng.choice([0, 1, 32])).hex() or "00"]
    if switch.startswith(("kmac", "parallelhash", "tuplehash")) and rng.random() < 0.4:
        args += ["-x"]
    if switch.startswith("parallelhash") and rng.random() < 0.5:
        args += ["-B", str(rng.choice([1, 7, 64]))]
    if switch.startswith("turboshake") and rng.random() < 0.4:
        args += ["--domain", str(rng.choice([1, 0x0B, 0x7F]))]
    return args


def length(rng):
    n = rng.choice([1, 2, 3, 4, 5, 6, 7, 16, 21, 31, 32, 33, 48, 64, 99, 1000])
    if rng.random() < 0.03:
        n = (1 << 20) + rng.choice([1, 2, 3])        # streamed
    return ["-n", str(n)] if rng.random() < 0.5 else ["-l", str(8 * n)], n


def read_as_hex(text, n):
    """ksum reads a digest that is valid hex as hex."""
    return len(text) == 2 * n or (len(text) % 2 == 0 and
                                  all(c in "0123456789abcdefABCDEF" for c in text))


@pytest.mark.parametrize("block", range(4))
def test_round_trips(tmp_path, block):
    import random
    for seed in range(block * 25, block * 25 + 25):
        rng = random.Random(seed)
        switch = rng.choice(FIXED + VARIABLE * 2)
        algorithm = [f"--{switch}"] if rng.random() < 0.7 else ["-a", switch.upper()]
        params = parameters(rng, switch)
        size, n = [], None
        if switch in VARIABLE and rng.random() < 0.7:
            size, n = length(rng)
        form = rng.choice([[], ["--tag"], ["-b"], ["--untagged"], ["--base64"],
                           ["--base64", "--tag"], ["--base64", "-b"]])
        names = rng.sample(NAMES, rng.randint(1, 3 if n is None or n < 1 << 20 else 1))
        for name in names:
            (tmp_path / name).write_bytes(rng.randbytes(rng.randrange(0, 3000)))
        args = algorithm + params + size + form
        context = f"seed {seed}: ksum {args} {names}"
        code, sums, err = run(args + names, cwd=tmp_path)
        assert code == 0 and err == "", context
        (tmp_path / "SUMS").write_bytes(sums)
        lines = sums.count(b"\n")
        assert lines == (1 if switch.startswith("tuplehash") else len(names)), context
        # checked with the options that made it
        code, out, err = run(algorithm + params + size + ["-c", "--strict", "SUMS"],
                             cwd=tmp_path)
        assert (code, err) == (0, ""), context
        assert out.count(b": OK\n") == lines, context
        # the length travels: no -n or -l, unless an untagged base64 digest
        # reads as hex
        digest = sums.split(b"\n")[0].split(b" = ")[-1].split(b" ")[0].lstrip(b"\\").decode()
        keyed = "-k" in params or "--key-file" in params
        if (n is None or "--tag" in form or "--base64" not in form or
                not read_as_hex(digest, n)) and not (keyed and n is not None):
            code, out, err = run(algorithm + params + ["-c", "--strict", "SUMS"],
                                 cwd=tmp_path)
            assert (code, err) == (0, ""), context + " (length from the lines)"
            assert out.count(b": OK\n") == lines, context
        # tagged lines choose their algorithm (a key still needs its switch)
        if "--tag" in form and not switch.startswith("kmac"):
            code, out, err = run(params + ["-c", "--strict", "SUMS"], cwd=tmp_path)
            assert (code, err) == (0, ""), context + " (algorithm from the tags)"
        # one byte changed: FAILED
        (tmp_path / names[0]).write_bytes((tmp_path / names[0]).read_bytes() + b"!")
        code, out, err = run(algorithm + params + size + ["-c", "SUMS"], cwd=tmp_path)
        assert code == 1 and b": FAILED\n" in out, context
        for name in names:
            (tmp_path / name).unlink()


def test_ambiguous_base64_needs_the_length(files):
    """An untagged base64 digest of 3 bytes that is all hex digits."""
    data = next(bytes([i]) for i in range(256)
                if all(c in "0123456789abcdefABCDEF"
                       for c in base64.b64encode(hashlib.shake_128(bytes([i])).digest(3)).decode()))
    (files / "d").write_bytes(data)
    out = run(["--shake128", "-n", "3", "--base64", "d"], cwd=files)[1]
    (files / "sums").write_bytes(out)
    assert run(["--shake128", "-n", "3", "-c", "sums"], cwd=files)[:2] == (0, b"d: OK\n")
    # without the length it reads as 2 bytes of hex
    assert run(["--shake128", "-c", "sums"], cwd=files)[:2] == (1, b"d: FAILED\n")
    # tagged, its length travels with it
    (files / "sums").write_bytes(run(["--shake128", "-n", "3", "--base64", "--tag", "d"],
                                     cwd=files)[1])
    assert run(["-c", "sums"], cwd=files)[:2] == (0, b"d: OK\n")


@pytest.mark.parametrize("form", [["--raw"], ["--base64"], ["--base64", "--tag"],
                                  ["--no-names"]])
def test_write_error_stops_every_form(files, form):
    # 2^48 bytes would take days: a few seconds prove that it stopped
    with open("/dev/full", "wb") as full:
        from conftest import KSUM
        p = subprocess.run([KSUM, "--shake256", "-n", "281474976710656"] + form + ["abc"],
                           cwd=files, stdout=full, stderr=subprocess.PIPE, timeout=20)
    assert p.returncode == 1
    assert p.stderr == b"ksum: write error: No space left on device\n"


def test_readme_block_of_forms(tmp_path):
    """docs/cli.md's second ksum usage block, run as shown (test_docs.py runs
    every console block too)."""
    import readme
    (tmp_path / "abc.txt").write_bytes(b"abc")
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(KSUM)) + ":" +
               os.environ.get("PATH", ""))
    text = readme.blocks("ksum usage", "console")[1]
    commands = re.split(r"^\$ ", text, flags=re.M)[1:]
    assert len(commands) >= 7
    for command in commands:
        line, _, want = command.partition("\n")
        p = subprocess.run(["bash", "-o", "pipefail", "-c", line], cwd=tmp_path, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        assert p.stdout.decode() == want, line


@needs_openssl
def test_openssl_dgst_names(tmp_path):
    """openssl dgst writes names as they are in its tagged lines; -r escapes
    a newline as coreutils does, but not a backslash beside it."""
    names = ["sp ace", "back\\slash", "par(en)= x", "cr\rx", "new\nline", "b\\oth\nnl"]
    for name in names:
        (tmp_path / name).write_bytes(b"x")
    tagged = openssl(["dgst", "-sha3-256"] + names[:4], cwd=tmp_path)
    (tmp_path / "S").write_text(tagged)
    # (ksum escapes the names it prints)
    assert run(["-c", "--strict", "S"], cwd=tmp_path)[:2] == \
        (0, b"sp ace: OK\n\\back\\\\slash: OK\npar(en)= x: OK\n\\cr\\rx: OK\n")
    (tmp_path / "S").write_text(openssl(["dgst", "-r", "-sha3-256"] + names, cwd=tmp_path))
    code, out, err = run(["-c", "-w", "S"], cwd=tmp_path)
    assert out.decode().splitlines() == ["sp ace: OK", "\\back\\\\slash: OK",
                                         "par(en)= x: OK", "\\cr\\rx: OK",
                                         "\\new\\nline: OK"]
    assert "ksum: S: 6: improperly formatted checksum line" in err
