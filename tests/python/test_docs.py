# SPDX-License-Identifier: Apache-2.0
"""The documents' examples cannot go stale: every ```console block of
README.md, SECURITY.md, CONTRIBUTING.md and docs/*.md is run here and its
output compared, and every ```sh or ```c block must be run by a test that
names its heading (readme.py says the conventions; docs/testing.md too)."""
import glob
import os
import re
import shutil
import subprocess

import pytest

import readme
from conftest import BUILD, KSUM
import keccak_ref as ref

ROOT = readme.ROOT
TESTS = os.path.dirname(os.path.abspath(__file__))


def console_blocks():
    for path in readme.documents():
        text = open(path, encoding="utf-8").read()
        for lang, body, offset in readme.code_blocks(text):
            if lang == "console":
                line = text.count("\n", 0, offset) + 1
                yield pytest.param(body, id=f"{os.path.relpath(path, ROOT)}:{line}")


def matches(want, got):
    """Whether the output lines got match the expected lines want, in which
    `[...]` stands for any text and a line `[...]` for any lines."""
    if not want:
        return not got
    if want[0] == "[...]":
        return any(matches(want[1:], got[i:]) for i in range(len(got) + 1))
    if not got:
        return False
    pattern = ".*".join(re.escape(part) for part in want[0].split("[...]"))
    return re.fullmatch(pattern, got[0], re.S) is not None and matches(want[1:], got[1:])


def commands(body):
    """(command, expected output lines) of a console block."""
    found = []
    for line in body.splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        else:
            assert found, f"output before the first command: {line!r}"
            found[-1][1].append(line)
    return found


@pytest.mark.parametrize("body", list(console_blocks()))
def test_console_block(body, tmp_path):
    if os.environ.get("KSUM_SANITIZED") == "1" and "-provider" in body:
        pytest.skip("a sanitized ksumprov.so cannot load into the uninstrumented openssl")
    build = os.path.abspath(os.path.dirname(KSUM))
    os.symlink(os.path.abspath(BUILD), tmp_path / "build")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENSSL_CONF", "OPENSSL_MODULES",
                                                           "KSUM_SIMD", "KSUM_BATCH")}
    env["PATH"] = build + ":" + os.environ.get("PATH", "/usr/bin:/bin")
    env["LC_ALL"] = "C"
    for command, want in commands(body):
        p = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=tmp_path, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        got = p.stdout.decode("utf-8", "replace").splitlines()
        assert matches(want, got), f"$ {command}\nexpected:\n" + "\n".join(want) + \
            "\ngot:\n" + "\n".join(got)


def named_headings():
    """(heading, lang) of every readme.block/blocks call in the tests."""
    found = set()
    call = re.compile(r"readme\.blocks?\(\s*(['\"])(.+?)\1\s*,\s*(['\"])(\w+)\3")
    for path in glob.glob(os.path.join(TESTS, "*.py")):
        for m in call.finditer(open(path, encoding="utf-8").read()):
            found.add((m.group(2), m.group(4)))
    return found


def test_every_sh_and_c_block_is_run_by_a_test():
    named = named_headings()
    untested = []
    for path in readme.documents():
        text = open(path, encoding="utf-8").read()
        for lang, body, offset in readme.code_blocks(text):
            if lang not in ("sh", "c"):
                continue
            if not any((h, lang) in named for h in readme.enclosing_headings(text, offset)):
                line = text.count("\n", 0, offset) + 1
                untested.append(f"{os.path.relpath(path, ROOT)}:{line}: ```{lang}")
    assert untested == [], "blocks no test runs (name their heading in a test): " + \
        ", ".join(untested)


def test_only_known_block_languages():
    """An example is ```console, ```sh or ```c (tested) or ```text, ```ini
    (not commands): a block without a language could hide a command."""
    for path in readme.documents():
        text = open(path, encoding="utf-8").read()
        for lang, _, offset in readme.code_blocks(text):
            line = text.count("\n", 0, offset) + 1
            assert lang in ("console", "sh", "c", "text", "ini"), \
                f"{os.path.relpath(path, ROOT)}:{line}: ```{lang or '(none)'}"


def test_the_runner_compares():
    assert matches(["a", "[...]", "c"], ["a", "x", "y", "c"])
    assert matches(["KT128 [...]"], ["KT128   1234k"])
    assert not matches(["52f2c88d"], ["e38dd708"])
    assert not matches(["a"], ["a", "b"])


# ---- the README's first commands ----

BUILD_CMD = "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j2"


def test_readme_build_and_run():
    """The README's build command is the one this tree was built with (the
    build itself is test_install's), and its run, as written, in the source."""
    text = readme.blocks("ksum and ksumprov", "sh")[0].strip()
    assert text.startswith(BUILD_CMD + " && ")
    run = text[len(BUILD_CMD) + 4:]
    assert run == "build/ksum --k12 README.md"
    p = subprocess.run([KSUM] + run.split()[1:], cwd=ROOT, stdout=subprocess.PIPE, check=True)
    data = open(os.path.join(ROOT, "README.md"), "rb").read()
    assert p.stdout.decode() == f"{ref.kt128(data, b'', 16).hex()}  README.md\n"


def test_readme_test_command():
    """The README's test command: the same build, then ctest on it, which
    lists the tests without the long ones."""
    text = readme.blocks("ksum and ksumprov", "sh")[1].strip()
    assert text == BUILD_CMD + " && ctest --test-dir build -LE long --output-on-failure"
    if not shutil.which("ctest") or not os.path.exists(os.path.join(BUILD, "CTestTestfile.cmake")):
        pytest.skip("no ctest or no CTest build tree")
    ctest = text.split(" && ")[-1].replace("--test-dir build", f"--test-dir {BUILD}")
    p = subprocess.run(ctest.split() + ["-N"], stdout=subprocess.PIPE, check=True)
    listed = re.findall(r"Test +#\d+: (\S+)", p.stdout.decode())
    assert "pytest" in listed and "kat" in listed
    assert not {"kat_extremely_long", "pytest_large", "pytest_alloc_full"} & set(listed)
    p = subprocess.run(["ctest", "--test-dir", BUILD, "-N", "-L", "long"], stdout=subprocess.PIPE,
                       check=True)
    long = re.findall(r"Test +#\d+: (\S+)", p.stdout.decode())
    readme_text = open(readme.README, encoding="utf-8").read()
    assert f"the {['no', 'one', 'two', 'three', 'four'][len(long)]} long tests" in readme_text
    for name in long:
        assert f"`{name}`" in readme_text


OPTIONAL_PACKAGES = ("tmux", "parallel", "lintian")


def test_readme_packages():
    """The README's apt-get line names the packages this system has (tmux,
    parallel and lintian may be missing: the tests that need them skip and
    name the package)."""
    text = readme.blocks("Build, run, test", "sh")[0].strip()
    assert text.startswith("apt-get install -y ")
    if not shutil.which("dpkg-query"):
        pytest.skip("no dpkg-query")
    for name in text.split()[3:]:
        p = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", name],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert p.returncode == 0 and p.stdout.endswith(b" installed") or name in OPTIONAL_PACKAGES, \
            f"{name}: not installed"
