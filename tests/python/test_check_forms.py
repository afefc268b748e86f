# SPDX-License-Identifier: Apache-2.0
"""The forms of an untagged line: "HEX  NAME" (and "HEX *NAME") or the one-
space form "HEX NAME" of `md5 -r`.  Read line by line, a one-space line whose
name starts with a space reads as the two-space form of another file, so a
list fixes its form at its first untagged line, as GNU coreutils does: a
later line of the other form is improperly formatted, and a one-space list
keeps the leading spaces and stars of its names."""
import os
import subprocess

import pytest

from conftest import run


def coreutils(args, **kw):
    return subprocess.run(args, env=dict(os.environ, LC_ALL="C"), capture_output=True, **kw)


def digest(cwd, name, *switch):
    return run(list(switch) + ["--", name], cwd=cwd)[1].decode().split()[0]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a").write_bytes(b"y\n")
    (tmp_path / " b").write_bytes(b"x\n")
    (tmp_path / "b").write_bytes(b"x\n")
    (tmp_path / "*c").write_bytes(b"z\n")
    return tmp_path


def test_a_leading_space_is_the_name_in_a_one_space_list(files):
    """The issue's reproduction: ' b' was tampered with, b is its copy."""
    listing = f"{digest(files, 'a')} a\n{digest(files, ' b')}  b\n"
    (files / " b").write_bytes(b"tampered\n")
    code, out, err = run(["-c", "-"], input=listing.encode(), cwd=files)
    assert (code, out) == (1, b"a: OK\n b: FAILED\n"), err
    sha = [coreutils(["sha256sum", "--", n], cwd=files, check=True).stdout.split()[0].decode()
           for n in ("a", "b")]
    gnu = coreutils(["sha256sum", "-c"], input=f"{sha[0]} a\n{sha[1]}  b\n".encode(), cwd=files)
    assert (gnu.returncode, gnu.stdout) == (1, b"a: OK\n b: FAILED\n")


def test_a_leading_star_is_the_name_in_a_one_space_list(files):
    listing = f"{digest(files, 'a')} a\n{digest(files, '*c')} *c\n"
    code, out, err = run(["-c", "-"], input=listing.encode(), cwd=files)
    assert (code, out, err) == (0, b"a: OK\n*c: OK\n", "")


def test_a_one_space_line_after_two_space_lines_is_improper(files):
    listing = f"{digest(files, 'a')}  a\n{digest(files, 'b')} b\n"
    code, out, err = run(["-c", "-w", "--strict", "-"], input=listing.encode(), cwd=files)
    assert code == 1
    assert out == b"a: OK\n"
    assert "standard input: 2: improperly formatted checksum line" in err
    assert "1 line is improperly formatted" in err


def test_a_two_space_line_after_one_space_lines_names_the_spaces(files):
    """In a one-space list, "HEX  b" names ' b', whose digest is b's here."""
    listing = f"{digest(files, 'a')} a\n{digest(files, 'b')}  b\n"
    code, out, err = run(["-c", "-"], input=listing.encode(), cwd=files)
    assert (code, out, err) == (0, b"a: OK\n b: OK\n", "")


def test_binary_and_tagged_lines_keep_working(files):
    lines = [f"{digest(files, 'a')} *a", f"{digest(files, 'b')}  b",
             run(["--tag", "a"], cwd=files)[1].decode().rstrip("\n")]
    code, out, err = run(["-c", "-"], input=("\n".join(lines) + "\n").encode(), cwd=files)
    assert (code, out, err) == (0, b"a: OK\nb: OK\na: OK\n", "")


def test_tagged_lines_do_not_fix_the_form(files):
    tagged = run(["--tag", "a"], cwd=files)[1].decode()
    listing = f"{tagged}{digest(files, 'a')} a\n{digest(files, ' b')}  b\n"
    code, out, err = run(["-c", "-"], input=listing.encode(), cwd=files)
    assert (code, out, err) == (0, b"a: OK\na: OK\n b: OK\n", "")


def test_each_list_fixes_its_own_form(files):
    (files / "one").write_text(f"{digest(files, 'a')} a\n")
    (files / "two").write_text(f"{digest(files, 'b')}  b\n")
    code, out, err = run(["-c", "one", "two"], cwd=files)
    assert (code, out, err) == (0, b"a: OK\nb: OK\n", "")


def test_a_one_space_name_that_looks_tagged_is_a_name(files):
    """"HEX (x) = HEX" is the one-space line of a file named "(x) = HEX", as
    md5sum -c reads it: no algorithm is named by hex digits alone, so it is
    no tagged line of an algorithm "HEX"."""
    name = "(x) = 0123456789abcdef0123456789abcdef"
    (files / name).write_bytes(b"q")
    for switch in (["--k12"], []):
        listing = f"{digest(files, name, *switch)} {name}\n"
        code, out, err = run(switch + ["-c", "-w", "-"], input=listing.encode(), cwd=files)
        assert (code, out, err) == (0, f"{name}: OK\n".encode(), "")
    md5 = coreutils(["md5sum", "--", name], cwd=files, check=True).stdout.split()[0].decode()
    gnu = coreutils(["md5sum", "-c"], input=f"{md5} {name}\n".encode(), cwd=files)
    assert (gnu.returncode, gnu.stdout) == (0, f"{name}: OK\n".encode())
