# SPDX-License-Identifier: Apache-2.0
"""Several algorithms in one read (issue 12, item 4): more than one algorithm
switch, or -a A,B, computes all of them from a single read of each file and
prints one tagged line per algorithm per file; options go to the algorithms
that take them; check mode verifies the tagged lines of the algorithms
named."""
import base64
import hashlib
import os
import subprocess

import pytest

from conftest import KSUM, run

MiB = 1 << 20


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a").write_bytes(b"abc")
    (tmp_path / "b").write_bytes(os.urandom(3 * MiB + 17))
    (tmp_path / "c").write_bytes(b"")
    return tmp_path


def tagged(args, name, cwd, data=None):
    """The tagged line of one algorithm alone."""
    code, out, err = run(args + ["--tag", name], cwd=cwd, input=data)
    assert code == 0, err
    return out.decode()


@pytest.mark.parametrize("threads", ["1", "2"])
@pytest.mark.parametrize("algs", [
    [["--sha3-256"], ["--sha3-512"]],
    [["--shake128"], ["--k12"], ["--sha3-224"]],          # a tree mode among them
    [["--kmac128", "-k", "0011"], ["--sha3-256"]],
    [["--turboshake128"], ["--keccak-256"], ["--rawshake128"], ["--cshake256"]],
])
def test_one_tagged_line_per_algorithm_per_file(files, threads, algs):
    names = ["a", "b", "c"]
    args = [x for a in algs for x in a]
    code, out, err = run(args + ["--threads", threads] + names, cwd=files)
    assert code == 0, err
    key = ["-k", "0011"] if "-k" in args else []
    want = "".join(tagged([a[0]] + (key if a[0] == "--kmac128" else []), n, files)
                   for n in names for a in algs)
    assert out.decode() == want


def test_a_list_and_switches_are_the_same(files):
    by_switches = run(["--sha3-256", "--shake256", "a", "b"], cwd=files)
    assert by_switches[0] == 0
    assert run(["-a", "sha3-256,shake256", "a", "b"], cwd=files) == by_switches
    assert run(["-a", "SHA3-256,SHAKE-256", "a", "b"], cwd=files) == by_switches
    assert run(["-a", "sha3-256", "--shake256", "a", "b"], cwd=files) == by_switches
    assert run(["-a", "sha3-256", "-a", "shake256", "a", "b"], cwd=files) == by_switches


def test_each_algorithm_once(files):
    code, out, _ = run(["--k12", "--kt128", "-a", "KT128,k12", "--sha3-256", "--k12", "a"],
                       cwd=files)
    assert code == 0
    assert [l.split(" (")[0] for l in out.decode().splitlines()] == \
        ["KANGAROOTWELVE", "SHA3-256"]


def test_one_read_of_standard_input(files):
    data = os.urandom(5 * MiB + 3)
    code, out, _ = run(["--sha3-256", "--shake128", "-n", "32", "--sha3-512", "-"], input=data)
    assert code == 0
    assert out.decode() == (
        f"SHA3-256 (-) = {hashlib.sha3_256(data).hexdigest()}\n"
        f"SHAKE128-256 (-) = {hashlib.shake_128(data).hexdigest(32)}\n"
        f"SHA3-512 (-) = {hashlib.sha3_512(data).hexdigest()}\n")


def test_output_size_goes_to_the_variable_length_ones(files):
    code, out, _ = run(["--sha3-256", "--shake128", "--shake256", "-n", "8", "a"], cwd=files)
    assert code == 0
    assert out.decode() == (
        f"SHA3-256 (a) = {hashlib.sha3_256(b'abc').hexdigest()}\n"
        f"SHAKE128-64 (a) = {hashlib.shake_128(b'abc').hexdigest(8)}\n"
        f"SHAKE256-64 (a) = {hashlib.shake_256(b'abc').hexdigest(8)}\n")


def test_streamed_output_among_others(files):
    n = 2 * MiB
    code, out, _ = run(["--shake128", "-n", str(n), "--sha3-256", "a", "c"], cwd=files)
    assert code == 0
    assert out.decode() == (
        f"SHAKE128-{8 * n} (a) = {hashlib.shake_128(b'abc').hexdigest(n)}\n"
        f"SHA3-256 (a) = {hashlib.sha3_256(b'abc').hexdigest()}\n"
        f"SHAKE128-{8 * n} (c) = {hashlib.shake_128(b'').hexdigest(n)}\n"
        f"SHA3-256 (c) = {hashlib.sha3_256(b'').hexdigest()}\n")


@pytest.mark.parametrize("args,message", [
    (["--sha3-256", "--sha3-512", "-n", "8"],
     "ksum: option --output-size does not apply to any of SHA3-256, SHA3-512"),
    (["--sha3-256", "--shake128", "-k", "00"],
     "ksum: option --key does not apply to any of SHA3-256, SHAKE128"),
    (["--tuplehash128", "--sha3-256"],
     "ksum: TUPLEHASH128 hashes all the FILEs as one tuple: it cannot be computed with "
     "other algorithms"),
    (["-a", "sha3-256,md5"], "ksum: unknown algorithm 'md5'"),
    (["-a", "sha3-256,"], "ksum: unknown algorithm ''"),
])
def test_bad_combinations(files, args, message):
    code, out, err = run(args + ["a"], cwd=files)
    assert code == 1 and out == b""
    assert err.splitlines() == [message, "Try 'ksum --help' for more information."]


@pytest.mark.parametrize("form", ["--untagged", "--no-names", "--raw"])
def test_untagged_forms_are_refused_with_several(files, form):
    code, out, err = run([form, "--sha3-256", "--sha3-512", "a"], cwd=files)
    assert code == 1 and out == b""
    assert err.splitlines() == [f"ksum: {form} cannot be used with several algorithms: "
                                "each line names its algorithm",
                                "Try 'ksum --help' for more information."]
    code, out, _ = run(["--base64", "--sha3-256", "--sha3-512", "a"], cwd=files)
    assert code == 0 and out.decode() == "".join(
        f"{name} (a) = {base64.b64encode(h(b'abc').digest()).decode()}\n"
        for name, h in (("SHA3-256", hashlib.sha3_256), ("SHA3-512", hashlib.sha3_512)))


def test_roundtrip_and_check_with_several_switches(files):
    code, sums, _ = run(["--sha3-256", "--k12", "--kmac128", "-k", "00", "a", "b"], cwd=files)
    assert code == 0
    (files / "S").write_bytes(sums + f"{hashlib.sha3_256(b'abc').hexdigest()}  a\n".encode())
    # a key verifies KMAC lines only: not beside unkeyed switches (SECURITY.md rule 3)
    code, out, err = run(["-c", "S", "--kmac128", "-k", "00", "--sha3-256", "--k12"],
                         cwd=files)
    assert code == 1 and out == b""
    assert err.startswith("ksum: option --key verifies only KMAC lines: SHA3-256 takes no key")
    # one switch: its tagged lines; the untagged line, 32 bytes where a
    # keyed KMAC128 is 16, is not verified (issue 17: a key makes every line count)
    code, out, err = run(["-c", "S", "--kmac128", "-k", "00"], cwd=files)
    assert code == 1
    assert out.decode() == "a: OK\nb: OK\n"
    assert "5 lines were not verified" in err
    # several switches: their tagged lines; the untagged line does not say which
    code, out, err = run(["-c", "-w", "S", "--sha3-256", "--k12"], cwd=files)
    assert out.decode() == "a: OK\na: OK\nb: OK\nb: OK\n"
    assert err.splitlines() == ["ksum: S: 3: KMAC128 line, not checked with SHA3-256, KANGAROOTWELVE",
                                "ksum: S: 6: KMAC128 line, not checked with SHA3-256, KANGAROOTWELVE",
                                "ksum: S: 7: improperly formatted checksum line",
                                "ksum: WARNING: S: 3 lines are improperly formatted"]
    # one switch: its lines and the untagged one
    code, out, _ = run(["-c", "S", "--sha3-256"], cwd=files)
    assert out.decode() == "a: OK\nb: OK\na: OK\n"


def test_several_on_a_pipe_with_threads(files):
    """A stream among files, several algorithms, files at once."""
    p = subprocess.run(f"printf abc | {KSUM} --sha3-256 --sha3-384 --threads 2 a - c",
                       shell=True, cwd=files, stdout=subprocess.PIPE, check=True)
    out = p.stdout.decode().splitlines()
    assert out[2:4] == [f"SHA3-256 (-) = {hashlib.sha3_256(b'abc').hexdigest()}",
                        f"SHA3-384 (-) = {hashlib.sha3_384(b'abc').hexdigest()}"]
    assert len(out) == 6


@pytest.mark.parametrize("form", [[], ["--base64"], ["-b"]])
def test_roundtrip_with_lengths_and_forms(files, form):
    """Tagged lines carry each algorithm's length; ksum -c needs no option."""
    args = ["--shake128", "--shake256", "--sha3-384", "--kt256", "-n", "20"] + form
    code, sums, err = run(args + ["a", "b", "c"], cwd=files)
    assert code == 0, err
    (files / "S").write_bytes(sums)
    code, out, err = run(["-c", "S"], cwd=files)
    assert code == 0, err
    assert out.decode() == "a: OK\n" * 4 + "b: OK\n" * 4 + "c: OK\n" * 4
