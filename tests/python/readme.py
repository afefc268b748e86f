# SPDX-License-Identifier: Apache-2.0
"""The code blocks of the project's Markdown documents (README.md, SECURITY.md,
CONTRIBUTING.md and docs/*.md), so that tests run what the documents show.

Conventions (docs/testing.md):
- every ```console block is run by test_docs.py: each `$ ` line is a command,
  run by bash in a temporary directory holding `build` (a link to the build
  tree) with the build tree first on PATH; the lines after it, up to the next
  `$ ` line, are its standard output and standard error; in an expected line
  `[...]` stands for any text, and a line that is only `[...]` for any number
  of lines;
- every ```sh and ```c block lies under a heading (the nearest before it)
  that a test names in a call readme.block(HEADING, LANG) or
  readme.blocks(HEADING, LANG), which test_docs.py checks by reading the
  tests' source.
"""
import glob
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
README = os.path.join(ROOT, "README.md")


def documents():
    """Every Markdown document whose examples are tested, README.md first."""
    found = [README] + [os.path.join(ROOT, n) for n in ("SECURITY.md", "CONTRIBUTING.md")]
    found += sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    return [p for p in found if os.path.exists(p)]


def headings(text):
    """(level, title, start, end) of every heading outside code blocks: start
    just after the heading's line, end where its section ends (the line of
    the next heading of the same or a higher level)."""
    found, fence, offset = [], False, 0
    for line in text.splitlines(True):
        if line.startswith("```"):
            fence = not fence
        else:
            m = re.match(r"(#+) (.*?)\s*$", line)
            if m and not fence:
                found.append([len(m.group(1)), m.group(2), offset, offset + len(line), None])
        offset += len(line)
    for i, h in enumerate(found):
        h[4] = next((o[2] for o in found[i + 1:] if o[0] <= h[0]), len(text))
    return [(level, title, start, end) for level, title, _, start, end in found]


def code_blocks(text):
    """(lang, body, offset) of every fenced block."""
    return [(m.group(1), m.group(2), m.start())
            for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)]


def section(heading, doc=None):
    """(path, text of the section under `heading`): in `doc` (a path relative
    to the root) or, without it, in the one document that has the heading."""
    paths = [os.path.join(ROOT, doc)] if doc else documents()
    hits = []
    for path in paths:
        text = open(path, encoding="utf-8").read()
        for _, title, start, end in headings(text):
            if title == heading:
                hits.append((path, text[start:end]))
    assert hits, f"no document has a heading {heading!r}"
    assert len(hits) == 1, f"heading {heading!r} in several places: {[h[0] for h in hits]}"
    return hits[0]


def blocks(heading, lang, doc=None):
    """The ```lang blocks of the section under `heading` (up to the next
    heading of the same or a higher level), in order."""
    _, text = section(heading, doc)
    return [body for l, body, _ in code_blocks(text) if l == lang]


def block(heading, lang, index=0, doc=None):
    found = blocks(heading, lang, doc)
    assert len(found) > index, f"section {heading!r} lacks ```{lang} block {index}"
    return found[index]


def enclosing_headings(text, offset):
    """The titles of the sections that hold offset: the nearest heading
    before it and those above it (a set: empty before the first heading)."""
    return {title for _, title, start, end in headings(text) if start <= offset < end}
