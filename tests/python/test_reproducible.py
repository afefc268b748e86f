# SPDX-License-Identifier: Apache-2.0
"""Reproducible and hardened builds.

Two builds of one source in two directories (different paths, different
lengths, a build tree inside the source and one beside it) install
byte-identical files, none of which names either directory (KSUM_REPRODUCIBLE
maps them out of __FILE__ and the debug information): ctest's
`reproducible` (label long; set KSUM_REPRODUCIBLE_TEST=1 to run it here).
The build under test carries the hardening dpkg-buildflags gives (relro,
bind now, stack protector, fortified functions) when nobody passed flags."""
import filecmp
import os
import re
import shutil
import subprocess
import tempfile

import pytest

import readme
from conftest import BUILD

ROOT = readme.ROOT


def cache(name):
    text = open(os.path.join(BUILD, "CMakeCache.txt")).read()
    m = re.search(rf"^{name}:\w+=(.*)$", text, re.M)
    return m.group(1) if m else None


def copy_source(dest):
    keep = ("CMakeLists.txt", "LICENSE", "README.md", "SECURITY.md", "bench", "cli", "conf",
            "include", "packaging", "provider")
    for name in keep:
        path = os.path.join(ROOT, name)
        if os.path.isdir(path):
            shutil.copytree(path, os.path.join(dest, name),
                            ignore=shutil.ignore_patterns("__pycache__"))
        elif os.path.exists(path):
            os.makedirs(dest, exist_ok=True)
            shutil.copy(path, dest)


def build_and_install(src, build, stage):
    def run(cmd, **env):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           env=dict(os.environ, **env), timeout=900)
        assert p.returncode == 0, (cmd, p.stdout.decode()[-3000:])
    run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DKSUM_TESTS=OFF",
         "-DCMAKE_INSTALL_PREFIX=/usr"], CFLAGS="", LDFLAGS="")
    run(["cmake", "--build", build, "-j2", "--target", "ksum", "ksumprov", "ksumprov_static",
         "ksum_docs"])
    run(["cmake", "--install", build], DESTDIR=stage)


def files_under(top):
    found = set()
    for dirpath, _, names in os.walk(top):
        found |= {os.path.relpath(os.path.join(dirpath, n), top) for n in names}
    return found


@pytest.mark.skipif(os.environ.get("KSUM_REPRODUCIBLE_TEST") != "1",
                    reason="set KSUM_REPRODUCIBLE_TEST=1 (ctest label 'long')")
@pytest.mark.skipif(shutil.which("cmake") is None, reason="no cmake")
def test_two_builds_in_two_directories_install_identical_files():
    base = tempfile.mkdtemp(prefix="ksum-repro-")
    try:
        trees = [(os.path.join(base, "a", "ksum"), os.path.join(base, "a", "ksum", "build")),
                 (os.path.join(base, "second-checkout", "src", "k"),
                  os.path.join(base, "second-checkout", "objects-elsewhere"))]
        stages = []
        for i, (src, build) in enumerate(trees):
            copy_source(src)
            stage = os.path.join(base, f"stage{i}")
            build_and_install(src, build, stage)
            stages.append(stage)
        files = files_under(stages[0])
        assert files == files_under(stages[1])
        assert "usr/bin/ksum" in files and any(f.endswith("/ksumprov.so") for f in files)
        assert any(f.endswith("/libksumprov.a") for f in files)
        _, mismatch, errors = filecmp.cmpfiles(stages[0], stages[1], sorted(files),
                                               shallow=False)
        assert mismatch == [] and errors == [], mismatch + errors
        for f in files:
            data = open(os.path.join(stages[0], f), "rb").read()
            assert base.encode() not in data, f
            assert b"/second-checkout/" not in data and b"/a/ksum" not in data, f
    finally:
        shutil.rmtree(base)


def hardening_expected():
    if os.environ.get("KSUM_SANITIZED") == "1" or cache("KSUM_HARDEN") not in ("ON", None):
        return False
    return (cache("CMAKE_C_FLAGS") or "") == "" and \
        (cache("CMAKE_EXE_LINKER_FLAGS") or "") == "" and \
        cache("CMAKE_BUILD_TYPE") in ("Release", "RelWithDebInfo", "MinSizeRel")


@pytest.mark.skipif(not shutil.which("readelf"), reason="no readelf")
@pytest.mark.parametrize("name", ["ksum", "ksumprov.so"])
def test_release_binaries_are_hardened(name):
    if not hardening_expected():
        pytest.skip("not a hardened release build (flags given, KSUM_HARDEN=OFF or sanitizers)")
    path = os.path.join(BUILD, name)

    def readelf(*args):
        # in the C locale: readelf translates its words ("Flags:")
        return subprocess.run(["readelf"] + list(args) + [path], stdout=subprocess.PIPE,
                              env=dict(os.environ, LC_ALL="C"), check=True).stdout.decode()
    dynamic = readelf("-dW")
    assert re.search(r"\(FLAGS\)\s+BIND_NOW", dynamic) or \
        re.search(r"\(FLAGS_1\)\s+Flags:.*\bNOW\b", dynamic), dynamic
    segments = readelf("-lW")
    assert "GNU_RELRO" in segments
    symbols = readelf("--dyn-syms", "-W")
    assert "__stack_chk_fail" in symbols
    if name == "ksum":   # the module has no call that fortifying changes
        assert re.search(r"__\w+_chk\b", symbols.replace("__stack_chk_fail", ""))


def test_no_build_path_in_the_binaries():
    if cache("KSUM_REPRODUCIBLE") == "OFF" or os.environ.get("KSUM_SANITIZED") == "1":
        pytest.skip("KSUM_REPRODUCIBLE=OFF, or sanitizers (their metadata names files)")
    for name in ("ksum", "ksumprov.so", "libksumprov.a"):
        data = open(os.path.join(BUILD, name), "rb").read()
        assert ROOT.encode() not in data, name
        assert os.path.abspath(BUILD).encode() not in data, name
