# SPDX-License-Identifier: Apache-2.0
"""The commit-msg hook CONTRIBUTING.md offers: it takes a good message and
refuses a long subject, an empty one and a body without a blank line."""
import os
import subprocess

import pytest

HOOK = os.path.join(os.path.dirname(__file__), "..", "..", ".githooks", "commit-msg")


def hook(tmp_path, text):
    msg = tmp_path / "MSG"
    msg.write_text(text)
    p = subprocess.run(["sh", HOOK, str(msg)], stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode()


@pytest.mark.parametrize("text", [
    "Refuse a part whose size lies\n",
    "Refuse a part whose size lies\n\nThe why, at any length " + "x" * 200 + "\n",
    "x" * 72 + "\n",
    "Fix it\n# Please enter the commit message\n",
])
def test_a_good_message_passes(tmp_path, text):
    assert hook(tmp_path, text) == (0, "")


@pytest.mark.parametrize("text, why", [
    ("x" * 73 + "\n", "73 characters"),
    ("\n\nbody\n", "empty"),
    ("# only a comment\n", "empty"),
    ("Subject\nbody right under it\n", "blank"),
])
def test_a_bad_message_is_refused(tmp_path, text, why):
    status, err = hook(tmp_path, text)
    assert status == 1 and why in err
