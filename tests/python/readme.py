# SPDX-License-Identifier: Apache-2.0
"""The README's code blocks, so that tests run what the README shows."""
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
README = os.path.join(ROOT, "README.md")


def blocks(heading, lang):
    """The ```lang blocks of the README section under `heading` (up to the
    next heading of the same or a higher level), in order."""
    text = open(README, encoding="utf-8").read()
    m = re.search(r"^(#+) " + re.escape(heading) + r"\s*$", text, re.M)
    assert m, f"README has no heading {heading!r}"
    level = len(m.group(1))
    rest = text[m.end():]
    end = re.search(r"^#{1,%d} " % level, rest, re.M)
    section = rest[:end.start()] if end else rest
    return re.findall(r"^```" + re.escape(lang) + r"\n(.*?)^```", section, re.M | re.S)


def block(heading, lang, index=0):
    found = blocks(heading, lang)
    assert len(found) > index, f"README section {heading!r} lacks ```{lang} block {index}"
    return found[index]
