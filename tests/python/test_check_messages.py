# SPDX-License-Identifier: Apache-2.0
"""Check mode's messages and verbosity, from an adversarial review
(2026-12-03): every name a message prints is escaped as the checksum lines
escape it, so that a check file, record file or element named with a
newline cannot print a line of its own ("secret.bin: OK"); --status, --warn
and --quiet undo each other as in GNU coreutils; a TupleHash line is
ignored by --ignore-missing only when all its files are missing, and the
message about a '-' element names that element."""
import os
import re
import subprocess

import pytest

from conftest import run

EVIL = "evil\nsecret.bin: OK\nx"


def coreutils(args, **kw):
    """Runs a coreutils tool as the reference, in the C locale: under
    another locale it translates its messages ("abc.txt: Tamam")."""
    return subprocess.run(args, env=dict(os.environ, LC_ALL="C"), capture_output=True, **kw)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "abc.txt").write_bytes(b"abc")
    (tmp_path / "def.txt").write_bytes(b"def")
    return tmp_path


def forged_lines(err):
    """Lines of stderr that are not ksum's own messages."""
    return [line for line in err.splitlines() if not line.startswith("ksum: ")]


def test_summary_of_a_check_file_named_with_a_newline(files):
    d = files / EVIL
    d.mkdir()
    (d / "SUMS").write_text("0000  missing\n")
    code, out, err = run(["-c", f"{EVIL}/SUMS"], cwd=files)
    assert code == 1 and out == b""
    assert forged_lines(err) == []
    assert "ksum: evil\\nsecret.bin: OK\\nx/SUMS: no properly formatted checksum lines found" in err


def test_warning_counts_of_a_check_file_named_with_a_newline(files):
    d = files / EVIL
    d.mkdir()
    good = run(["abc.txt"], cwd=files)[1].decode()
    (d / "SUMS").write_text(good + "junk\n" + "0" * 64 + "  def.txt\n")
    code, out, err = run(["-c", "--ignore-missing", f"{EVIL}/SUMS"], cwd=files)
    assert code == 1
    assert forged_lines(err) == []
    assert "1 line is improperly formatted" in err
    assert "1 computed checksum did NOT match" in err


def test_hint_of_a_check_file_named_with_a_newline(files):
    d = files / EVIL
    d.mkdir()
    sha256 = coreutils(["sha256sum", "../abc.txt"], cwd=d, check=True).stdout
    (d / "SUMS").write_bytes(sha256)
    code, out, err = run(["-c", "SUMS"], cwd=d)
    assert code == 1 and "untagged lines were checked as SHA3-256" in err
    code, out, err = run(["-c", f"{EVIL}/SUMS"], cwd=files)
    assert code == 1
    assert forged_lines(err) == []


def test_combine_names_a_record_file_escaped(files):
    record = files / EVIL
    record.write_bytes(run(["--k12", "--part", "1/2", "abc.txt"], cwd=files)[1])
    code, out, err = run(["--kt256", "--combine", EVIL], cwd=files)
    assert code == 1 and out == b""
    assert forged_lines(err) == []
    assert "evil\\nsecret.bin: OK\\nx" in err


@pytest.mark.parametrize("options, shown", [
    (["--status", "-w"], {"ok", "failed", "warning", "summary"}),
    (["-w", "--status"], set()),
    (["--quiet", "--status"], set()),
    (["--status", "--quiet"], {"failed", "summary"}),
    (["-w", "--quiet"], {"failed", "summary"}),
    (["--quiet", "-w"], {"ok", "failed", "warning", "summary"}),
])
def test_status_warn_and_quiet_the_last_counts(files, options, shown):
    """As GNU coreutils' digest.c: each of the three undoes the others."""
    good = run(["abc.txt"], cwd=files)[1].decode()
    listing = good + "0" * 64 + "  def.txt\n" + "junk\n"
    code, out, err = run(["-c"] + options, input=listing.encode(), cwd=files)
    assert code == 1
    seen = set()
    if b"abc.txt: OK" in out:
        seen.add("ok")
    if b"def.txt: FAILED" in out:
        seen.add("failed")
    if ": 3: improperly formatted" in err:
        seen.add("warning")
    if "computed checksum did NOT match" in err:
        seen.add("summary")
    assert seen == shown, (out, err)


def tuple_list(files):
    return run(["--tuplehash128", "--tag", "abc.txt", "def.txt"], cwd=files)[1].decode()


def test_tuple_with_one_element_missing_is_not_ignored(files):
    listing = tuple_list(files).replace("def.txt", "nosuch")
    code, out, err = run(["-c", "--ignore-missing"], input=listing.encode(), cwd=files)
    assert code == 1
    assert out == b"abc.txt\tnosuch: FAILED open or read\n"
    assert "ksum: nosuch: No such file or directory" in err


def test_tuple_with_every_element_missing_is_ignored(files):
    good = tuple_list(files)
    listing = good + good.replace("abc.txt", "gone1").replace("def.txt", "gone2")
    code, out, err = run(["-c", "--ignore-missing"], input=listing.encode(), cwd=files)
    assert (code, out, err) == (0, b"abc.txt\tdef.txt: OK\n", "")


def test_tuple_refusing_standard_input_names_it(files):
    listing = tuple_list(files).replace("def.txt", "-")
    code, out, err = run(["-c", "-"], input=listing.encode(), cwd=files)
    assert code == 1
    assert "ksum: -: standard input is the checksum list being read" in err
    assert "ksum: abc.txt:" not in err


@pytest.mark.parametrize("sep", ["\t", "\t ", "\t*", " ", "  ", " *"])
def test_digest_and_name_apart_as_coreutils_reads_them(files, sep):
    """sha256sum -c takes a tab after the digest as a space."""
    digest = run(["abc.txt"], cwd=files)[1].decode().split()[0]
    code, out, err = run(["-c"], input=f"{digest}{sep}abc.txt\n".encode(), cwd=files)
    assert (code, out, err) == (0, b"abc.txt: OK\n", "")
    sha = coreutils(["sha256sum", "abc.txt"], cwd=files, check=True).stdout.decode().split()[0]
    gnu = coreutils(["sha256sum", "-c"], input=f"{sha}{sep}abc.txt\n".encode(), cwd=files)
    assert (gnu.returncode, gnu.stdout) == (0, b"abc.txt: OK\n")


def test_the_last_key_option_counts(files):
    (files / "k1").write_bytes(b"KEY")
    (files / "k1").chmod(0o600)
    by_file = run(["--kmac128", "--key-file", "k1", "abc.txt"], cwd=files)[1]
    by_hex = run(["--kmac128", "-k", "00", "abc.txt"], cwd=files)[1]
    assert by_file != by_hex
    assert run(["--kmac128", "-k", "00", "--key-file", "k1", "abc.txt"], cwd=files)[1] == by_file
    assert run(["--kmac128", "--key-file", "k1", "-k", "00", "abc.txt"], cwd=files)[1] == by_hex


def test_tuple_with_standard_input_and_a_missing_file_is_not_ignored(files):
    """Standard input is never missing (helper review): the line fails."""
    line = run(["--tuplehash128", "--tag", "-", "abc.txt"], input=b"hi\n", cwd=files)[1]
    listing = line.decode().replace("abc.txt", "nosuch")
    (files / "L").write_text(listing)
    code, out, err = run(["-c", "--ignore-missing", "L"], input=b"hi\n", cwd=files)
    assert code == 1 and out == b"-\tnosuch: FAILED open or read\n"


@pytest.mark.parametrize("options", [["--status", "-w"], ["-w", "--status"],
                                     ["--quiet", "-w"], ["--status", "--quiet"]])
def test_check_options_without_check_still_refused(files, options):
    """An option undone by a later one was still given (helper review)."""
    code, out, err = run(["-r"] + options + ["."], cwd=files)
    assert code == 1 and out == b""
    assert "option is meaningful only when verifying checksums" in err


def test_a_list_of_another_length_names_the_switches_of_that_length(files):
    """A list made with --k12, checked without it, has no line of SHA3-256's
    length: the message names the switches whose default output has the
    lines' hex digits (as EVP reports each default) and how to name one."""
    (files / "k12.sum").write_bytes(run(["--k12", "abc.txt"], cwd=files)[1])
    code, out, err = run(["-c", "k12.sum"], cwd=files)
    assert code == 1 and out == b""
    first, hint = err.splitlines()
    assert first == "ksum: k12.sum: no properly formatted checksum lines found"
    head, fits, tail = re.fullmatch(r"(ksum: k12.sum: lines of 32 hex digits fit the default "
                                    r"length of )(.*)(; name .*)", hint).groups()
    assert "--k12" in fits.split(", ") and "--shake128" in fits and "--sha3-256" not in fits
    assert tail == "; name the algorithm that made them with its switch or -a NAME"
    assert run(["--k12", "-c", "k12.sum"], cwd=files) == (0, b"abc.txt: OK\n", "")
    # --status prints only coreutils' line, a key no hint (it says which lines
    # it did not verify), and a length no default has gives the -n it needs
    assert run(["--status", "-c", "k12.sum"], cwd=files)[2] == first + "\n"
    assert "fit" not in run(["--kmac128", "-k", "00", "-c", "k12.sum"], cwd=files)[2]
    (files / "odd.sum").write_text("abcdef  abc.txt\n")
    assert run(["-c", "odd.sum"], cwd=files)[2] == (
        "ksum: odd.sum: no properly formatted checksum lines found\n"
        "ksum: odd.sum: lines of 6 hex digits fit no algorithm's default length (give theirs: "
        "-n 3); name the algorithm that made them with its switch or -a NAME\n")
    # with lines that verify, the hint follows the count of improper ones
    # only with -w, which names each of them
    (files / "mixed.sum").write_bytes(run(["abc.txt"], cwd=files)[1] +
                                      (files / "k12.sum").read_bytes())
    code, out, err = run(["-c", "mixed.sum"], cwd=files)
    assert code == 0 and "fit" not in err
    code, out, err = run(["-c", "-w", "mixed.sum"], cwd=files)
    assert code == 0 and err.splitlines()[1:] == [
        "ksum: WARNING: mixed.sum: 1 line is improperly formatted",
        hint.replace("k12.sum", "mixed.sum")]
