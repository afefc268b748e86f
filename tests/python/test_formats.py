# SPDX-License-Identifier: Apache-2.0
"""What users of cksum, b3sum and rhash reach for (issue 12, items 1, 2, 3
and 7): lengths written into tags and read back from check lines,
check files from openssl dgst and cksum, output forms (--base64, --raw,
--untagged, --no-names, -l), and the messages of misplaced options."""
import pytest

from conftest import run


@pytest.fixture
def files(tmp_path):
    (tmp_path / "abc").write_bytes(b"abc")
    (tmp_path / "empty").write_bytes(b"")
    return tmp_path


def one_error(code, out, err, message):
    """A usage error: exit 1, nothing on stdout, the message, the hint."""
    assert code == 1 and out == b"", err
    assert err.splitlines() == [message, "Try 'ksum --help' for more information."]


# ---- 7. messages ----

@pytest.mark.parametrize("args,option", [
    (["--status"], "--status"), (["--quiet"], "--quiet"), (["--strict"], "--strict"),
    (["--warn"], "--warn"), (["-w"], "--warn"), (["--ignore-missing"], "--ignore-missing"),
    (["--sha3-512", "--strict", "--quiet"], "--quiet"),
])
def test_check_options_without_check_name_the_option(files, args, option):
    one_error(*run(args + ["abc"], cwd=files),
              f"ksum: the {option} option is meaningful only when verifying checksums")
