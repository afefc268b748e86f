# SPDX-License-Identifier: Apache-2.0
"""ksum's command line: output formats, check mode and its messages, exit
statuses and errors, as GNU coreutils' *sum tools and the original ksum."""
import hashlib
import os
import re
import stat
import subprocess

import pytest

from conftest import KSUM, run

SHA3_ABC = hashlib.sha3_256(b"abc").hexdigest()
SHA3_EMPTY = hashlib.sha3_256(b"").hexdigest()

def help_switches():
    """The algorithm switches, as --help lists them from the provider's
    algorithms: a new algorithm is tested here without editing a list."""
    text = subprocess.run([KSUM, "--help"], stdout=subprocess.PIPE, check=True).stdout.decode()
    section = text.split("\nAlgorithms:\n", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"--([a-z0-9-]+)", re.sub(r"^  [^:\n]*:", "", section, flags=re.M))


ALL_SWITCHES = help_switches()
DEFAULT_SIZES = {"sha3-224": 28, "sha3-256": 32, "sha3-384": 48, "sha3-512": 64,
                 "shake128": 16, "shake256": 32, "rawshake128": 16, "rawshake256": 32,
                 "keccak-224": 28, "keccak-256": 32, "keccak-384": 48, "keccak-512": 64,
                 "cshake128": 16, "cshake256": 32, "kmac128": 16, "kmac256": 32,
                 "parallelhash128": 16, "parallelhash256": 32, "kangarootwelve": 16,
                 "k12": 16, "kt128": 16, "marsupilamifourteen": 32, "m14": 32,
                 "kt256": 64, "turboshake128": 32, "turboshake256": 64,
                 "tuplehash128": 32, "tuplehash256": 64}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "abc").write_bytes(b"abc")
    (tmp_path / "empty").write_bytes(b"")
    return tmp_path


def test_default_is_sha3_256_in_argument_order(files):
    code, out, err = run(["abc", "empty"], cwd=files)
    assert code == 0 and err == ""
    assert out.decode() == f"{SHA3_ABC}  abc\n{SHA3_EMPTY}  empty\n"


def test_stdin_by_default_and_by_dash(files):
    for args in ([], ["-"]):
        code, out, _ = run(args, input=b"abc")
        assert code == 0 and out.decode() == f"{SHA3_ABC}  -\n"


@pytest.mark.parametrize("switch", ALL_SWITCHES)
def test_every_switch_default_size_and_tag_roundtrip(switch, files):
    assert switch in DEFAULT_SIZES, f"--{switch}: add its default size to DEFAULT_SIZES"
    code, out, err = run([f"--{switch}", "abc"], cwd=files)
    assert code == 0, err
    hexpart, name = out.decode().rstrip("\n").split("  ")
    assert name == "abc" and len(hexpart) == 2 * DEFAULT_SIZES[switch]
    assert re.fullmatch(r"[0-9a-f]+", hexpart)
    # -a NAME picks the same algorithm
    assert run(["-a", switch, "abc"], cwd=files)[1] == out
    # generate then check, in every output format
    for fmt in ([], ["--tag"], ["-b"]):
        code, sums, _ = run([f"--{switch}"] + fmt + ["abc", "empty"], cwd=files)
        (files / "sums").write_bytes(sums)
        code, out2, err2 = run([f"--{switch}", "-c", "sums"], cwd=files)
        assert code == 0, err2
        # TupleHash's one line names its tuple, its elements by tabs
        tuple_line = len(sums.splitlines()) == 1
        assert out2.decode() == ("abc\tempty: OK\n" if tuple_line else "abc: OK\nempty: OK\n")
        assert tuple_line == switch.startswith("tuplehash")


def test_tag_line_names_the_provider_algorithm(files):
    code, out, _ = run(["--k12", "--tag", "abc"], cwd=files)
    assert out.decode().startswith("KANGAROOTWELVE (abc) = ")
    # a tagged line selects its algorithm in check mode, whatever the default
    (files / "sums").write_bytes(out)
    code, out, _ = run(["-c", "sums"], cwd=files)
    assert code == 0 and out == b"abc: OK\n"


def test_binary_text_and_zero(files):
    assert run(["-b", "abc"], cwd=files)[1].decode() == f"{SHA3_ABC} *abc\n"
    assert run(["-t", "abc"], cwd=files)[1].decode() == f"{SHA3_ABC}  abc\n"
    assert run(["-z", "abc"], cwd=files)[1].decode() == f"{SHA3_ABC}  abc\0"


def test_escaped_names_roundtrip(files):
    for name in ["new\nline", "back\\slash", "cr\rname"]:
        (files / name).write_bytes(b"abc")
        code, out, _ = run([name], cwd=files)
        text = out.decode()
        assert text.startswith("\\" + SHA3_ABC)
        escaped = name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
        assert text == f"\\{SHA3_ABC}  {escaped}\n"
        # -z disables escaping
        assert run(["-z", name], cwd=files)[1].decode() == f"{SHA3_ABC}  {name}\0"
        (files / "sums").write_bytes(out)
        code, out, _ = run(["-c", "sums"], cwd=files)
        assert code == 0 and out.decode() == f"\\{escaped}: OK\n"
        code, tag, _ = run(["--tag", name], cwd=files)
        assert tag.decode() == f"\\SHA3-256 ({escaped}) = {SHA3_ABC}\n"


def test_output_size_xof_key_custom_block(files):
    ok = lambda args: run(args + ["abc"], cwd=files)
    assert len(ok(["--shake128", "-n", "100"])[1].split()[0]) == 200
    assert ok(["--kmac128", "-x"])[1] != ok(["--kmac128"])[1]
    assert ok(["--kmac128", "-k", "0011"])[1] != ok(["--kmac128"])[1]
    assert ok(["--kmac128", "-k", "AbCd"])[1] == ok(["--kmac128", "-k", "abcd"])[1]
    assert ok(["--k12", "-C", "x"])[1] != ok(["--k12"])[1]
    assert ok(["--parallelhash128", "-B", "1"])[1] != ok(["--parallelhash128"])[1]
    assert ok(["--cshake128", "-f", "N", "-C", "S"])[1] != ok(["--cshake128", "-C", "S"])[1]
    assert ok(["--turboshake128", "--domain", "0x0B"])[1] != ok(["--turboshake128"])[1]


def test_key_file_equals_hex_key_and_warns_when_readable(files):
    key = files / "key"
    key.write_bytes(bytes.fromhex("00ff10"))
    key.chmod(0o600)
    code, out, err = run(["--kmac256", "--key-file", "key", "abc"], cwd=files)
    assert code == 0 and err == ""
    assert out == run(["--kmac256", "-k", "00ff10", "abc"], cwd=files)[1]
    key.chmod(0o644)
    code, out2, err = run(["--kmac256", "--key-file", "key", "abc"], cwd=files)
    assert code == 0 and out2 == out
    assert "WARNING: key file key is accessible by others" in err


def test_check_messages_and_counts(files):
    (files / "bad").write_bytes(b"xyz")
    good = run(["abc", "bad", "empty"], cwd=files)[1].decode().splitlines()
    good[1] = good[1].replace(good[1][:4], "0000")  # corrupt 'bad'
    lines = good + ["not a checksum line", f"{SHA3_ABC}  missing"]
    (files / "sums").write_text("\n".join(lines) + "\n")
    code, out, err = run(["-c", "sums"], cwd=files)
    assert code == 1
    assert out.decode() == "abc: OK\nbad: FAILED\nempty: OK\nmissing: FAILED open or read\n"
    assert err.splitlines() == [
        "ksum: missing: No such file or directory",
        "ksum: WARNING: sums: 1 line is improperly formatted",
        "ksum: WARNING: sums: 1 listed file could not be read",
        "ksum: WARNING: sums: 1 computed checksum did NOT match",
    ]


def test_check_plural_messages(files):
    lines = [f"{'0' * 64}  abc", f"{'0' * 64}  empty", "junk", "junk2"]
    (files / "sums").write_text("\n".join(lines) + "\n")
    code, out, err = run(["-c", "sums"], cwd=files)
    assert code == 1
    assert "ksum: WARNING: sums: 2 computed checksums did NOT match" in err
    assert "ksum: WARNING: sums: 2 lines are improperly formatted" in err


def test_check_quiet_status_strict_warn(files):
    (files / "sums").write_text(f"{SHA3_ABC}  abc\ngarbage\n")
    code, out, err = run(["-c", "sums"], cwd=files)
    assert code == 0 and out == b"abc: OK\n" and "1 line is improperly formatted" in err
    code, out, err = run(["-c", "--quiet", "sums"], cwd=files)
    assert code == 0 and out == b""
    code, out, err = run(["-c", "--status", "sums"], cwd=files)
    assert code == 0 and out == b"" and err == ""
    code, out, err = run(["-c", "--strict", "sums"], cwd=files)
    assert code == 1
    code, out, err = run(["-c", "-w", "sums"], cwd=files)
    assert "ksum: sums: 2: improperly formatted checksum line" in err
    (files / "sums").write_text(f"{'1' * 64}  abc\n")
    code, out, err = run(["-c", "--status", "sums"], cwd=files)
    assert code == 1 and out == b"" and err == ""


def test_check_no_properly_formatted_lines(files):
    (files / "sums").write_text("hello\nworld\n")
    code, out, err = run(["-c", "sums"], cwd=files)
    assert code == 1 and out == b""
    assert "ksum: sums: no properly formatted checksum lines found" in err


def test_check_ignore_missing(files):
    (files / "sums").write_text(f"{SHA3_ABC}  abc\n{SHA3_ABC}  gone\n")
    code, out, err = run(["-c", "--ignore-missing", "sums"], cwd=files)
    assert code == 0 and out == b"abc: OK\n" and err == ""
    (files / "sums").write_text(f"{SHA3_ABC}  gone\n")
    code, out, err = run(["-c", "--ignore-missing", "sums"], cwd=files)
    assert code == 1 and "ksum: sums: no file was verified" in err


def test_check_accepts_crlf_uppercase_blank_openssl_and_stdin(files):
    text = (f"{SHA3_ABC.upper()}  abc\r\n\r\n\n"
            f"SHA3-256(empty)= {SHA3_EMPTY}\r\n"
            f"SHA3-256 (abc) = {SHA3_ABC}\n")
    (files / "sums").write_bytes(text.encode())
    code, out, err = run(["-c", "sums"], cwd=files)
    assert code == 0, err
    assert out == b"abc: OK\nempty: OK\nabc: OK\n"
    code, out, err = run(["-c"], input=text.encode(), cwd=files)
    assert code == 0 and out == b"abc: OK\nempty: OK\nabc: OK\n"
    code, out, err = run(["-c", "-"], input=b"junk\n", cwd=files)
    assert "ksum: standard input: no properly formatted checksum lines found" in err


def test_check_hex_length_must_match_settings(files):
    sums = run(["--shake128", "-n", "20", "abc"], cwd=files)[1]
    (files / "sums").write_bytes(sums)
    assert run(["--shake128", "-n", "20", "-c", "sums"], cwd=files)[0] == 0
    # without -n a variable-length algorithm takes the line's length
    assert run(["--shake128", "-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\n")
    for args in (["--shake128", "-n", "16"], ["--sha3-256"]):
        code, out, err = run(args + ["-c", "sums"], cwd=files)
        assert code == 1 and "no properly formatted checksum lines found" in err


def test_check_with_settings(files):
    args = ["--kmac256", "-k", "aa", "-C", "c", "-x", "-n", "20"]
    (files / "sums").write_bytes(run(args + ["abc"], cwd=files)[1])
    assert run(args + ["-c", "sums"], cwd=files)[:2] == (0, b"abc: OK\n")
    code, out, _ = run(["--kmac256", "-k", "ab", "-C", "c", "-x", "-n", "20", "-c", "sums"], cwd=files)
    assert code == 1 and out == b"abc: FAILED\n"


def test_missing_file_and_directory_do_not_stop_others(files):
    code, out, err = run(["nope", "abc", "."], cwd=files)
    assert code == 1
    assert out.decode() == f"{SHA3_ABC}  abc\n"
    assert err.splitlines() == ["ksum: nope: No such file or directory",
                                "ksum: .: Is a directory"]


@pytest.mark.parametrize("args,message", [
    (["--kmac128", "--key=abc"], "invalid key: odd number of hex digits"),
    (["--kmac128", "--key=zz"], "invalid key: not hexadecimal"),
    (["--shake128", "-n", "abc"], "invalid output size 'abc'"),
    (["--shake128", "-n", "0"], "invalid output size '0': must be at least 1"),
    (["--shake128", "-n", "-5"], "invalid output size '-5'"),
    (["--shake128", "-n", ""], "invalid output size ''"),
    (["--shake128", "-n", "99999999999999999999999"], "invalid output size"),
    (["--parallelhash128", "-B", "0"], "invalid block size '0'"),
    (["--turboshake128", "--domain", "0x80"], "invalid domain byte '0x80'"),
    (["--turboshake128", "--domain", "0"], "invalid domain byte '0'"),
    (["--turboshake128", "--domain", "zz"], "invalid domain byte 'zz'"),
    (["--sha3-256", "-n", "5"], "option --output-size does not apply to SHA3-256"),
    (["--shake128", "-C", "x"], "option --customization does not apply to SHAKE128"),
    (["--k12", "-x"], "option --xof does not apply to KANGAROOTWELVE"),
    (["--cshake128", "-k", "00"], "option --key does not apply to CSHAKE128"),
    (["--kmac128", "-f", "N"], "option --function does not apply to KMAC128"),
    (["--k12", "-B", "8"], "option --block-size does not apply to KANGAROOTWELVE"),
    (["--k12", "--domain", "1"], "option --domain does not apply to KANGAROOTWELVE"),
    (["-a", "md5"], "unknown algorithm 'md5'"),
    (["--no-such-option"], "unrecognized option"),
    (["--quiet"], "the --quiet option is meaningful only when verifying checksums"),
])
def test_bad_options(args, message, files):
    code, out, err = run(args + ["abc"], cwd=files)
    assert code == 1 and out == b""
    assert message in err
    assert err.rstrip("\n").endswith("Try 'ksum --help' for more information.")


def test_write_error_is_reported(files):
    with open("/dev/full", "wb") as full:
        import subprocess
        from conftest import KSUM
        p = subprocess.run([KSUM, "abc"], cwd=files, stdout=full, stderr=subprocess.PIPE)
    assert p.returncode == 1
    assert b"ksum: write error: No space left on device" in p.stderr


def test_help_lists_every_switch_and_option_and_version():
    code, out, _ = run(["--help"])
    text = out.decode()
    assert code == 0
    for switch in ALL_SWITCHES:
        assert f"--{switch}" in text
    for opt in ["--check", "--output-size", "--xof", "--key", "--key-file", "--customization",
                "--function", "--block-size", "--domain", "--tag", "--zero", "--binary",
                "--text", "--quiet", "--status", "--strict", "--warn", "--ignore-missing",
                "--algorithm", "--threads", "--version", "--base64", "--raw", "--untagged",
                "--no-names", "--length"]:
        assert opt in text
    code, out, _ = run(["--version"])
    assert code == 0 and out.startswith(b"ksum (ksumprov) ")
    # b3sum's and rhash's -V
    assert run(["-V"])[:2] == (0, out)
    # the kernel the provider chose, as EVP reports it
    assert re.search(rb"^Keccak-p backend: \S+ \(\d+ states? a call\)$", out, re.M), out
    forced = subprocess.run([KSUM, "-V"], env=dict(os.environ, KSUM_SIMD="portable"),
                            stdout=subprocess.PIPE, check=True).stdout
    assert forced.endswith(b"\nKeccak-p backend: portable (1 state a call)\n")
    # --version ends the options, as in coreutils: what follows is not judged
    assert run(["--version", "--no-such-option"])[:2] == (0, out)
    # one screen, and where the rest is
    assert len(text.splitlines()) <= 45
    assert "man ksum" in text and "bits" in text


def test_thread_counts_and_range_messages(files):
    """--threads 0 is every CPU, as the provider's threads = 0; a value out
    of range names the range."""
    want = run(["abc"], cwd=files)[1]
    assert run(["--threads", "0", "abc"], cwd=files)[:2] == (0, want)
    code, out, err = run(["--threads", "999", "abc"], cwd=files)
    assert code == 1 and "invalid thread count '999': too large (at most 256)" in err
    code, out, err = run(["--shake128", "-n", "0", "abc"], cwd=files)
    assert code == 1 and "invalid output size '0': must be at least 1" in err


def test_man_page_and_readme_document_every_option():
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    man = open(os.path.join(root, "cli", "ksum.1")).read().replace("\\-", "-")
    import readme as docs
    readme = "".join(open(p).read() for p in docs.documents())
    help_text = run(["--help"])[1].decode()
    for opt in set(re.findall(r"--[a-z0-9][a-z0-9-]+", help_text)):
        assert opt in man, f"{opt} missing from ksum.1"
        assert opt in readme, f"{opt} missing from README.md and docs/"


def _run_measuring_rss(args, cwd):
    """Runs ksum; returns (status, stdout, peak resident set in KiB)."""
    import subprocess
    from conftest import KSUM
    p = subprocess.Popen([KSUM] + args, cwd=cwd, stdout=subprocess.PIPE)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, out, usage.ru_maxrss


def test_long_outputs_stream_without_holding_them(files):
    n = 16 << 20
    code, out, rss = _run_measuring_rss(["--shake128", "-n", str(n), "abc"], files)
    assert code == 0
    assert out.decode() == hashlib.shake_128(b"abc").hexdigest(n) + "  abc\n"
    # The peak counts the forked Python before exec too: compare with a
    # short output rather than with an absolute figure.
    _, _, base = _run_measuring_rss(["--shake128", "-n", "16", "abc"], files)
    if os.environ.get("KSUM_SANITIZED") != "1":
        assert rss - base < 8 * 1024, f"peak RSS {rss} KiB against {base} KiB"
    # --tag, KMAC and check mode take the same path
    code, out, _ = run(["--kmac128", "-x", "-n", str(2 << 20), "--tag", "abc"], cwd=files)
    assert code == 0 and len(out) == len("KMACXOF128-16777216 (abc) = \n") + 2 * (2 << 20)
    (files / "sums").write_bytes(out)
    assert run(["--kmac128", "-x", "-n", str(2 << 20), "-c", "sums"], cwd=files)[:2] == \
        (0, b"abc: OK\n")
    bad = out[:-3] + (b"0" if out[-3:-2] != b"0" else b"1") + out[-2:]
    (files / "sums").write_bytes(bad)
    assert run(["--kmac128", "-x", "-n", str(2 << 20), "-c", "sums"], cwd=files)[:2] == \
        (1, b"abc: FAILED\n")
