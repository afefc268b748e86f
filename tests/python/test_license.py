# SPDX-License-Identifier: Apache-2.0
"""Every source file carries the project's SPDX line; LICENSE is Apache-2.0."""
import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE_DIRS = ["provider", "cli", "include", "tests/c", "tests/fuzz", "tests/python", "tests/cross", "cmake",
               "bench", "conf", "packaging", ".ci"]
SUFFIXES = {".c", ".h", ".inc", ".py", ".sh", ".cnf", ".1", ".txt", ".in", ".cmake", ""}
TAG = "SPDX-License-Identifier: Apache-2.0"


def source_files():
    yield ROOT / "CMakeLists.txt"
    for d in SOURCE_DIRS:
        base = ROOT / d
        if not base.is_dir():
            continue
        for dirpath, dirnames, names in os.walk(base):
            dirnames[:] = [n for n in dirnames if n not in ("corpus", "__pycache__", ".pytest_cache")]
            for n in names:
                p = pathlib.Path(dirpath) / n
                if p.suffix in SUFFIXES and not n.startswith("."):
                    yield p


def test_license_file_is_apache_2():
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text


def test_every_source_file_has_an_spdx_line():
    missing = [str(p.relative_to(ROOT)) for p in source_files()
               if TAG not in p.read_text(errors="replace").splitlines()[0:3].__str__()]
    assert missing == []
