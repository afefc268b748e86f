# SPDX-License-Identifier: Apache-2.0
"""Every relative link in the repository's Markdown files names a file that
exists, and an anchor names a heading of that file (GitHub's slugs), so a
reader who follows one never lands on a 404 or the top of the wrong page."""
import os
import re
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# [text](target) and [text](target "title"); images too.  Links inside
# code spans and fenced blocks are examples, not links, and are removed first.
LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)


def markdown_files():
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "*.md"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             check=True).stdout.decode()
        files = [f for f in out.splitlines() if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
    if not files:  # not a git checkout (an unpacked source tarball)
        for top, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
            files += [os.path.relpath(os.path.join(top, n), ROOT)
                      for n in names if n.endswith(".md")]
    return sorted(files)


def strip_code(text):
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading):
    """GitHub's anchor for a heading: lower case, markup and punctuation
    dropped but for hyphens and underscores, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # link text only
    text = text.replace("`", "").replace("*", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    with open(path, encoding="utf-8") as f:
        text = FENCE.sub("", f.read())
    seen, out = {}, set()
    for h in HEADING.findall(text):
        s = slug(h)
        n = seen.get(s, 0)
        out.add(s if n == 0 else f"{s}-{n}")
        seen[s] = n + 1
    return out


def links(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = strip_code(f.read())
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # http:, https:, mailto:
        yield target


def broken_links(path):
    here = os.path.dirname(os.path.join(ROOT, path))
    for target in links(path):
        name, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(here, name)) if name else os.path.join(ROOT, path)
        if not os.path.exists(dest):
            yield f"{path}: {target}: no such file"
        elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
            yield f"{path}: {target}: no heading with that anchor"


@pytest.mark.parametrize("path", markdown_files())
def test_relative_links_resolve(path):
    assert list(broken_links(path)) == []


def test_the_checker_finds_a_broken_link(tmp_path):
    """The checker itself: a link to a missing file and one to a missing
    heading are both reported; a good one and a link in code are not."""
    doc = tmp_path / "a.md"
    (tmp_path / "b.md").write_text("# Some heading, with `code`\n")
    doc.write_text("[ok](b.md#some-heading-with-code) [gone](c.md) [bad](b.md#nope)\n"
                   "`[code](missing.md)`\n")
    global ROOT
    saved, ROOT = ROOT, str(tmp_path)
    try:
        found = list(broken_links("a.md"))
    finally:
        ROOT = saved
    assert found == ["a.md: c.md: no such file", "a.md: b.md#nope: no heading with that anchor"]
