# SPDX-License-Identifier: Apache-2.0
"""How options parse, alone and together (issue 21, items 3 and 4): every
spelling getopt_long accepts means the same, the last of a repeated option
counts and is the one messages name, `--` ends the options, options may
follow the FILEs, a value at its bound is taken and one past it refused, and
what reaches EVP is what the user gave: a shim logs the parameters of every
init, in hashing and in check mode at each line's own length."""
import os

import pytest

import keccak_ref as ref
from conftest import run

SANITIZED = os.environ.get("KSUM_SANITIZED") == "1"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a").write_bytes(b"hello\n")
    (tmp_path / "b").write_bytes(b"world\n" * 1000)
    (tmp_path / "key").write_bytes(bytes.fromhex("0011"))
    os.chmod(tmp_path / "key", 0o600)
    return tmp_path


def output(args, d):
    code, out, err = run(args, cwd=d)
    assert code == 0 and err == "", (args, err)
    return out


# Each group: spellings of one request; the first line without the option
# must differ (the option had an effect).
SPELLINGS = [
    (["--shake128"], [["--shake128", "-n", "5"], ["--shake128", "-n5"],
                      ["--shake128", "--output-size=5"], ["--shake128", "--output-size", "5"],
                      ["--shake128", "--output=5"], ["--shake128", "--out", "5"],
                      ["-n5", "--shake128"], ["--shake128", "-l", "40"],
                      ["--shake128", "--length=40"], ["--shake128", "--len", "40"]]),
    (["--cshake128"], [["--cshake128", "-C", "foo"], ["--cshake128", "-Cfoo"],
                       ["--cshake128", "--customization=foo"],
                       ["--cshake128", "--custom", "foo"], ["--cshake128", "--cu=foo"]]),
    (["--cshake128"], [["--cshake128", "-f", "fn"], ["--cshake128", "--function=fn"],
                       ["--cshake128", "--fu", "fn"]]),
    (["--parallelhash128"], [["--parallelhash128", "-B", "16"], ["--parallelhash128", "-B16"],
                             ["--parallelhash128", "--block-size=16"],
                             ["--parallelhash128", "--bl", "16"]]),
    (["--turboshake128"], [["--turboshake128", "--domain", "0x0B"],
                           ["--turboshake128", "--domain=11"],
                           ["--turboshake128", "--domain=0X0b"],
                           ["--turboshake128", "--domain=" + "0" * 30 + "11"],
                           ["--turboshake128", "--domain=0x" + "0" * 30 + "B"],
                           ["--turboshake128", "--dom", "11"],
                           ["--turboshake128", "--do=0xb"]]),
    (["--kmac128"], [["--kmac128", "-k", "0011"], ["--kmac128", "-k0011"],
                     ["--kmac128", "--key=0011"], ["--kmac128", "--key", "0011"],
                     ["--kmac128", "--key-file", "key"], ["--kmac128", "--key-file=key"]]),
    (["--kmac128", "-k", "00"], [["--kmac128", "-xk", "00", "-n3"],
                                 ["--kmac128", "-x", "-k", "00", "-n", "3"],
                                 ["--kmac128", "--xof", "--key=00", "--output-size=3"]]),
    ([], [["-a", "sha3-512"], ["-asha3-512"], ["--algorithm=sha3-512"],
          ["--alg", "sha3-512"], ["--sha3-512"], ["--sha3-5"], ["-a", "SHA3-512"]]),
    (["--sha3-224"], [["--k12"], ["--kangarootwelve"], ["--kang"], ["--kt128"],
                      ["-a", "KT128"]]),
    (["--sha3-256"], [["--tag"], ["--ta"], ["--untagged", "--tag"]]),
]


@pytest.mark.parametrize("without,spellings", SPELLINGS)
def test_every_spelling_of_an_option_means_the_same(without, spellings, files):
    want = output(spellings[0] + ["a", "b"], files)
    assert output(without + ["a", "b"], files) != want
    for args in spellings[1:]:
        assert output(args + ["a", "b"], files) == want, args


@pytest.mark.parametrize("repeated,last", [
    (["--shake128", "-n", "5", "-n", "7"], ["--shake128", "-n", "7"]),
    (["--shake128", "-l", "40", "--length=56"], ["--shake128", "-n", "7"]),
    (["--cshake128", "-C", "one", "-C", "two"], ["--cshake128", "-C", "two"]),
    (["--cshake128", "-f", "one", "--function", "two"], ["--cshake128", "-f", "two"]),
    (["--parallelhash128", "-B", "8", "-B", "16"], ["--parallelhash128", "-B", "16"]),
    (["--turboshake128", "--domain", "3", "--domain", "5"], ["--turboshake128", "--domain", "5"]),
    (["--kmac128", "-k", "00", "-k", "0011"], ["--kmac128", "-k", "0011"]),
    (["--kmac128", "-k", "00", "--key-file", "key"], ["--kmac128", "-k", "0011"]),
    (["--kmac128", "--key-file", "key", "-k", "00"], ["--kmac128", "-k", "00"]),
    (["--tag", "--untagged"], []),
    (["-b", "-t"], ["-t"]),
    (["-t", "-b"], ["-b"]),
    (["--threads", "1", "--threads", "2"], ["--threads", "2"]),
    (["-a", "sha3-512", "-a", "sha3-512"], ["--sha3-512"]),
])
def test_the_last_of_a_repeated_option_counts(repeated, last, files):
    assert output(repeated + ["a"], files) == output(last + ["a"], files)


@pytest.mark.parametrize("args,message", [
    (["--cshake128", "-k", "00", "--key-file", "key"], "option --key-file does not apply to"),
    (["--cshake128", "--key-file", "key", "-k", "00"], "option --key does not apply to"),
    (["--sha3-256", "-n", "5", "-l", "40"], "option --length does not apply to SHA3-256"),
    (["--sha3-256", "-l", "40", "-n", "5"], "option --output-size does not apply to SHA3-256"),
    (["--shake128", "-l", "40", "-n", "6"],
     "--length=40 (bits) and --output-size=6 (bytes) disagree"),
])
def test_a_message_names_the_spelling_given_last(args, message, files):
    code, out, err = run(args + ["a"], cwd=files)
    assert code == 1 and out == b""
    assert err.startswith(f"ksum: {message}")


@pytest.mark.parametrize("prefix,candidates", [
    ("--d", "'--domain' '--dereference'"),
    ("--c", "'--customization' '--check' '--combine' '--cshake128' '--cshake256'"),
    ("--ke", "'--key' '--key-file' '--keccak-224' '--keccak-256' '--keccak-384' '--keccak-512'"),
    ("--r", "'--recursive' '--raw' '--rawshake128' '--rawshake256'"),
    ("--b", "'--base64' '--block-size' '--binary'"),
    ("--f", "'--function' '--files-from'"),
])
def test_an_ambiguous_abbreviation_lists_the_candidates_in_order(prefix, candidates, files):
    """getopt_long lists them in its table's order, which is the option
    table's: --help's."""
    code, out, err = run([prefix, "a"], cwd=files)
    assert code == 1 and out == b""
    assert err.splitlines()[0].endswith(
        f": option '{prefix}' is ambiguous; possibilities: {candidates}")
    # an empty name matches every option, in the table's order
    assert "'--untagged' '--raw' '--no-names' '--dereference'" in run(["--=x"], cwd=files)[2]


def test_double_dash_ends_the_options(files):
    (files / "-n").write_bytes(b"x")
    (files / "--help").write_bytes(b"y")
    out = output(["--", "-n", "--help"], files).decode()
    assert out.splitlines()[0].endswith("  -n") and out.splitlines()[1].endswith("  --help")
    assert output(["a", "--", "-n"], files) == output(["a", "./-n"], files).replace(b"./-n", b"-n")
    code, out, err = run(["--", "-x"], cwd=files)
    assert code == 1 and err == "ksum: -x: No such file or directory\n"


def test_options_may_follow_the_files_unless_posixly_correct(files):
    assert output(["a", "-n", "5", "--shake128"], files) == \
        output(["--shake128", "-n", "5", "a"], files)
    assert output(["a", "--tag", "b"], files) == output(["--tag", "a", "b"], files)
    code, out, err = run(["a", "--tag"], cwd=files,
                         env=dict(os.environ, POSIXLY_CORRECT="1"))
    assert code == 1 and err == "ksum: --tag: No such file or directory\n"


# (what is asked, the message): at the bound the parser takes the value and
# the next judge speaks; past it, the parser refuses it.
BOUNDS = [
    ("--sha3-256 -n 281474976710656",
     "option --output-size does not apply to SHA3-256"),
    ("--shake128 -n 281474976710657",
     "invalid output size '281474976710657': too large (at most 281474976710656)"),
    ("--shake128 -n 0",
     "invalid output size '0': must be at least 1"),
    ("--sha3-256 -l 2251799813685248",
     "option --length does not apply to SHA3-256"),
    ("--shake128 -l 2251799813685256",
     "invalid length '2251799813685256': too large (at most 2251799813685248)"),
    ("--shake128 -l 12",
     "invalid length '12': not a multiple of 8 (it is in bits)"),
    ("--shake128 -l 0",
     "invalid length '0': must be at least 8"),
    ("--sha3-256 -B 2305843009213693951",
     "option --block-size does not apply to SHA3-256"),
    ("--parallelhash128 -B 2305843009213693952",
     "invalid block size '2305843009213693952': too large (at most 2305843009213693951)"),
    ("--parallelhash128 -B 0",
     "invalid block size '0': must be at least 1"),
    ("--threads 257",
     "invalid thread count '257': too large (at most 256)"),
    ("--sha3-256 --domain 255",
     "option --domain does not apply to SHA3-256"),
    ("--sha3-256 --domain 0xff",
     "option --domain does not apply to SHA3-256"),
    ("--turboshake128 --domain 256",
     "invalid domain byte '256': not a byte"),
    ("--turboshake128 --domain 0x100",
     "invalid domain byte '0x100': not a byte"),
    ("--turboshake128 --domain 0x80",
     "invalid domain byte '0x80': parameter out of range ('domain' is out of range (0x01..0x7F))"),
    ("--turboshake128 --domain 0",
     "invalid domain byte '0': parameter out of range"),
    ("--turboshake128 --domain 0x",
     "invalid domain byte '0x': not a number"),
    ("--turboshake128 --domain=",
     "invalid domain byte '': not a number"),
    # the digits only: no sign, no second 0x, no trailing letter, and a
    # number too long for any integer type is still "not a byte"
    ("--turboshake128 --domain=+1", "invalid domain byte '+1': not a number"),
    ("--turboshake128 --domain=-1", "invalid domain byte '-1': not a number"),
    ("--turboshake128 --domain=0x0x1", "invalid domain byte '0x0x1': not a number"),
    ("--turboshake128 --domain=1x", "invalid domain byte '1x': not a number"),
    ("--turboshake128 --domain=" + "9" * 30,
     "invalid domain byte '" + "9" * 30 + "': not a byte"),
    ("--kmac128 -k 00 -n 2097152",
     "KMAC128 refuses the options given: parameter out of range (KMAC output length is out "
     "of range (at most 2097151 bytes))"),
    ("--kmac128 -k 00 -C " + "c" * 513,
     "KMAC128 refuses the options given: parameter out of range (KMAC customization is out "
     "of range (at most 512 bytes))"),
]


@pytest.mark.parametrize("asked,message", BOUNDS)
def test_a_value_past_its_bound_is_refused(asked, message, files):
    code, out, err = run(asked.split(" ") + ["a"], cwd=files)
    assert code == 1 and out == b""
    assert err.startswith(f"ksum: {message}"), err
    assert err.endswith("Try 'ksum --help' for more information.\n")


@pytest.mark.parametrize("args", [
    ["--parallelhash128", "-B", str((1 << 61) - 1)], ["--parallelhash128", "-B", "1"],
    ["--threads", "256"], ["--threads", "0"],
    ["--turboshake128", "--domain", "0x7F"], ["--turboshake128", "--domain", "0x01"],
    ["--turboshake128", "--domain", "127"], ["--turboshake128", "--domain", "010"],
    ["--kmac128", "-k", "00", "-n", "2097151"], ["--kmac128", "-x", "-k", "00", "-n", "2097152"],
    ["--kmac128", "-k", "00", "-C", "c" * 512],
])
def test_a_value_at_its_bound_is_taken(args, files):
    code, out, err = run(args + ["a"], cwd=files)
    assert code == 0 and err == ""


def test_domain_numbers_are_decimal_or_hex_never_octal(files):
    assert output(["--turboshake128", "--domain", "010", "a"], files) == \
        output(["--turboshake128", "--domain", "0x0a", "a"], files)


def test_an_empty_customization_is_no_customization(files):
    data = (files / "a").read_bytes()
    plain = output(["--cshake128", "a"], files)
    assert output(["--cshake128", "-C", "", "a"], files) == plain
    assert output(["--cshake128", "--customization=", "-f", "", "a"], files) == plain
    # cSHAKE with both strings empty is SHAKE (SP 800-185, 3.3)
    assert plain.split()[0].decode() == ref.cshake(128, data, 16).hex() == \
        output(["--shake128", "a"], files).split()[0].decode()
    assert output(["--cshake128", "-C", "x", "a"], files) != plain
    keyed = output(["--kmac128", "-k", "00", "a"], files)
    assert output(["--kmac128", "-k", "00", "-C", "", "a"], files) == keyed
    assert keyed.split()[0].decode() == ref.kmac(128, b"\0", data, 16).hex()


def test_each_option_goes_to_the_algorithms_that_take_it(files):
    out = output(["-a", "shake128,sha3-256", "-n", "5", "a"], files).decode().splitlines()
    assert out[0].startswith("SHAKE128-40 (a) = ") and len(out[0].split()[-1]) == 10
    assert out[1].startswith("SHA3-256 (a) = ") and len(out[1].split()[-1]) == 64
    out = output(["-a", "cshake128,kmac128", "-f", "fn", "-k", "00", "a"], files).decode()
    data = (files / "a").read_bytes()
    assert ref.cshake(128, data, 16, b"fn").hex() in out
    assert ref.kmac(128, b"\0", data, 16).hex() in out
    code, out, err = run(["-a", "sha3-256,sha3-512", "-n", "5", "a"], cwd=files)
    assert code == 1 and err.startswith(
        "ksum: option --output-size does not apply to any of SHA3-256, SHA3-512\n")


def tagged_list(files, args, lengths):
    """A --tag list of a and b, one line per (name, bytes)."""
    lines = b"".join(output(args + ["--tag", "-n", str(n), name], files)
                     for name, n in lengths)
    (files / "list").write_bytes(lines)
    return lines


LENGTHS = [("a", 16), ("b", 48), ("a", 16), ("b", 20), ("a", 64)]


@pytest.mark.parametrize("args,other", [
    (["--cshake128", "-C", "foo"], ["--cshake128", "-C", "bar"]),
    (["--cshake256", "-f", "fn", "-C", "c"], ["--cshake256", "-f", "fn"]),
    (["--parallelhash128", "-B", "16"], ["--parallelhash128", "-B", "17"]),
    (["--turboshake128", "--domain", "5"], ["--turboshake128", "--domain", "6"]),
])
def test_check_lines_of_different_lengths_keep_the_parameters(args, other, files):
    """Each line is verified at its own length with the parameters given, in
    any order of lengths: with the switch, and with the lines choosing."""
    tagged_list(files, args, LENGTHS)
    want = b"a: OK\nb: OK\na: OK\nb: OK\na: OK\n"
    assert output(args + ["-c", "list"], files) == want
    assert output(args[1:] + ["-c", "list"], files) == want
    code, out, err = run(other + ["-c", "list"], cwd=files)
    assert code == 1 and out == want.replace(b"OK", b"FAILED")


def without_batch(params, sent):
    """An init's parameters, the batch id left out, and a worker's threads
    read as the --threads the user gave, or as none: 1 (the road has as many
    workers as threads, so a worker's tree mode starts no helpers of its
    own), or for the last file while the other workers are idle the user's
    --threads, 0 (every CPU) when none was given."""
    p = {k: v for k, v in params.items() if k != "batch"}
    if p.get("threads") in ("1", sent.get("threads", "0")):
        del p["threads"]
        if "threads" in sent:
            p["threads"] = sent["threads"]
    return p


@pytest.mark.parametrize("args,sent", [
    (["--cshake128", "-C", "foo", "-f", "fn", "-n", "40"],
     {"custom": "666f6f", "function-name": "666e", "xoflen": "40"}),
    (["--parallelhash256", "-B", "16", "-x", "--threads", "2", "-n", "7"],
     {"block-size": "16", "xof": "1", "threads": "2", "xoflen": "7"}),
    (["--turboshake256", "--domain", "0x1f"], {"domain": "31", "xoflen": "64"}),
    (["--kmac256", "--key-file", "key", "-C", ""], {"custom": "", "key": "0011", "size": "32"}),
    (["--kmac128", "-x", "-n", "3"], {"key": "", "xof": "1", "size": "3"}),
    (["--kmac128"], {"key": "", "size": "16"}),
    (["--sha3-256"], {}),
    (["--cshake128", "-C", ""], {"custom": "", "xoflen": "16"}),
])
def test_every_init_sends_what_the_user_gave(init_log, args, sent, files):
    """Every file's init carries the parameters of the options, and no init
    (the trials of single values among them) carries any other value or
    parameter (batch ids aside)."""
    _, inits = init_log(args + ["a", "b"], files)
    assert len([p for p in inits if without_batch(p, sent) == sent]) >= 2
    for params in inits:
        assert without_batch(params, sent).items() <= sent.items()


@pytest.mark.parametrize("args,sent", [
    (["--cshake128", "-C", "foo"], {"custom": "666f6f"}),
    (["--cshake256", "-f", "fn", "-C", ""], {"custom": "", "function-name": "666e"}),
    (["--parallelhash128", "-x", "-B", "16"], {"xof": "1", "block-size": "16"}),
])
def test_check_mode_sends_each_lines_length_with_the_options(init_log, args, sent, files):
    """Each line's init carries its own length beside the options' values;
    a switch or the lines' tags choosing the algorithm alike."""
    tagged_list(files, args, LENGTHS)
    for asked in (args, args[1:]):
        out, inits = init_log(asked + ["-c", "list"], files)
        assert out == b"a: OK\nb: OK\na: OK\nb: OK\na: OK\n"
        lines = inits[-len(LENGTHS):]
        # the files are hashed by several workers at once: in any order
        assert sorted(p["xoflen"] for p in lines) == sorted(str(n) for _, n in LENGTHS)
        for params in lines:
            assert without_batch(params, sent) == dict(sent, xoflen=params["xoflen"])


def test_a_workers_tree_mode_has_one_thread(init_log, files):
    """Several files go to as many workers as threads: a worker's context of
    a tree mode is told to use one thread, so that helpers never multiply
    the threads asked for, but for the last file when the other workers
    are idle (at most one of them); a single file is hashed on all."""
    names = ["a", "b"] * 3
    _, inits = init_log(["--parallelhash128", "--threads", "2"] + names, files)
    assert len([p for p in inits if p.get("threads") == "1"]) >= len(names) - 1
    assert all(p.get("threads") in ("1", "2") for p in inits)
    _, inits = init_log(["--parallelhash128", "--threads", "2", "a"], files)
    assert inits and all(p.get("threads") == "2" for p in inits)


def test_key_file_minus_is_refused(tmp_path):
    """`--key-file -` read a file named '-' (a helper review): standard input
    may be the data too, so it is refused by name; /dev/stdin is the way."""
    (tmp_path / "data").write_bytes(b"abc")
    code, out, err = run(["--kmac128", "--key-file", "-", "data"], cwd=tmp_path, input=b"key")
    assert (code, out) == (1, b"")
    assert err.startswith("ksum: --key-file: -: standard input is not read for a key")


@pytest.mark.parametrize("args", [[], ["-r"]])
def test_an_empty_operand_is_named(tmp_path, args):
    """`ksum ''` said 'ksum: : No such file or directory'; sha256sum shows ''."""
    code, out, err = run(args + [""], cwd=tmp_path)
    assert (code, out, err) == (1, b"", "ksum: '': No such file or directory\n")


def test_an_empty_key_file_name_is_named(tmp_path):
    (tmp_path / "data").write_bytes(b"abc")
    code, out, err = run(["--kmac128", "--key-file", "", "data"], cwd=tmp_path)
    assert (code, out, err) == (1, b"", "ksum: --key-file: '': No such file or directory\n")
