# SPDX-License-Identifier: Apache-2.0
"""Verification you can trust (issue 9): nothing is reported OK that was not
checked as asked.  Each reproduction of the issue is a test here: keyed
verification, standard input named twice, '-' inside a check file read from
standard input, lines too long for memory, write errors, messages from worker
threads, --domain, keys in messages, KSUM_SIMD, and the order of standard
output and standard error.  test_check_properties.py holds the property
test of check mode."""
import hashlib
import os
import re
import resource
import signal
import subprocess

import pytest

from conftest import BUILD, KSUM, build_shim, run

MiB = 1 << 20
SANITIZED = os.environ.get("KSUM_SANITIZED") == "1"
no_sanitizer = pytest.mark.skipif(SANITIZED, reason="address-space limits and LD_PRELOAD "
                                  "do not work under the sanitizers")


def sha3(data):
    return hashlib.sha3_256(data).hexdigest()


def limit_memory(kib):
    """A preexec_fn: ulimit -v KIB for the child."""
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (kib * 1024, kib * 1024))
    return apply


def sh(command, cwd, timeout=60):
    """Runs a shell command line; on a timeout, kills all it started."""
    p = subprocess.Popen(command, shell=True, executable="/bin/bash", cwd=cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    return subprocess.CompletedProcess(command, p.returncode, out, err)


# ---- 1. keyed verification ----

@pytest.fixture
def keyed(tmp_path):
    (tmp_path / "good").write_bytes(b"good data\n")
    (tmp_path / "other").write_bytes(b"other data\n")
    key = tmp_path / "key"
    key.write_bytes(b"SECRETKEY-0123456789")
    key.chmod(0o600)
    (tmp_path / "plain").write_bytes(run(["good"], cwd=tmp_path)[1])
    return tmp_path


def test_forged_tagged_line_is_not_verified_under_kmac(keyed):
    sha = run(["good"], cwd=keyed)[1].split()[0].decode()
    (keyed / "forged").write_text(f"SHA3-256 (good) = {sha}\n")
    code, out, err = run(["--kmac256", "--key-file", "key", "-c", "forged"], cwd=keyed)
    assert code == 1 and out == b""
    assert err == ("ksum: forged: 1: SHA3-256 line, not checked with KMAC256\n"
                   "ksum: WARNING: forged: 1 line was not verified\n"
                   "ksum: forged: no properly formatted checksum lines found\n")
    code, out, err = run(["--kmac256", "--key-file", "key", "-c", "-w", "forged"], cwd=keyed)
    assert code == 1 and out == b""
    assert err.splitlines()[0] == "ksum: forged: 1: SHA3-256 line, not checked with KMAC256"


def test_only_lines_of_the_chosen_algorithm_are_verified(keyed):
    kmac = run(["--kmac256", "--key-file", "key", "--tag", "good", "other"], cwd=keyed)[1]
    sha = run(["--tag", "good"], cwd=keyed)[1]
    (keyed / "mixed").write_bytes(sha + kmac + b"KMAC-256 (good) = " + kmac.split()[3] + b"\n")
    args = ["--kmac256", "--key-file", "key", "-c", "mixed"]
    code, out, err = run(args, cwd=keyed)
    # with a key every line counts (issue 17): the SHA3 line fails the run
    assert code == 1 and out == b"good: OK\nother: OK\ngood: OK\n"
    assert err == ("ksum: mixed: 1: SHA3-256 line, not checked with KMAC256\n"
                   "ksum: WARNING: mixed: 1 line was not verified\n")
    assert run(args + ["--strict"], cwd=keyed)[0] == 1
    # KMAC128 is another algorithm than KMAC256
    code, out, err = run(["--kmac128", "--key-file", "key", "-c", "-w", "mixed"], cwd=keyed)
    assert code == 1 and out == b""
    assert err.count("line, not checked with KMAC128") == 4
    # -a names the algorithm as a switch does; KT128 and K12 are one algorithm
    code, out, _ = run(["-a", "sha3-512", "-c", "mixed"], cwd=keyed)
    assert code == 1 and out == b""
    (keyed / "k12").write_bytes(run(["--k12", "--tag", "good"], cwd=keyed)[1])
    assert run(["--kt128", "-c", "k12"], cwd=keyed)[:2] == (0, b"good: OK\n")
    assert run(["-c", "k12"], cwd=keyed)[:2] == (0, b"good: OK\n")


@pytest.mark.parametrize("key_args,option", [(["--key-file=key"], "--key-file"),
                                             (["-k", "00ff"], "--key"),
                                             (["--key=00ff"], "--key")])
def test_key_without_keyed_algorithm_is_an_error(keyed, key_args, option):
    kmac_tagged = run(["--kmac256", "--tag"] + key_args + ["good"], cwd=keyed)[1]
    (keyed / "tagged").write_bytes(kmac_tagged)
    for args in (["-c"] + key_args + ["plain"], ["-c"] + key_args + ["tagged"],
                 ["--sha3-256", "-c"] + key_args + ["plain"], key_args + ["good"]):
        code, out, err = run(args, cwd=keyed)
        assert code == 1 and out == b"", args
        first = err.splitlines()[0]
        assert first.startswith(f"ksum: option {option} "), (args, err)
        assert "SECRET" not in err and "00ff" not in err


# ---- 2. one stream, one reader ----

@pytest.fixture(scope="module")
def big(tmp_path_factory):
    d = tmp_path_factory.mktemp("streams")
    data = os.urandom(6 * MiB + 12345)
    (d / "big").write_bytes(data)
    (d / "a").write_bytes(b"a" * 5000)
    (d / "b").write_bytes(b"b" * 70000)
    return d, data


@pytest.mark.parametrize("threads", ["1", "2", "3", "8"])
@pytest.mark.parametrize("second", ["-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"])
def test_stdin_named_twice_is_read_once(big, threads, second):
    d, data = big
    p = sh(f"cat big | {KSUM} --threads {threads} - {second}", cwd=d)
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode() == f"{sha3(data)}  -\n{sha3(b'')}  {second}\n"


@pytest.mark.parametrize("threads", ["2", "4"])
@pytest.mark.parametrize("alg", ["--sha3-256", "--shake128", "--k12"])
def test_streams_among_files_keep_their_order(big, threads, alg):
    d, data = big
    names = ["a", "-", "b", "/dev/stdin", "a", "-", "big", "/dev/null"]
    p = sh(f"cat big | {KSUM} {alg} --threads {threads} {' '.join(names)}", cwd=d)
    assert p.returncode == 0, p.stderr

    def one(name, content):
        return run([alg, "--threads", "1", "-"], input=content)[1].decode().replace(
            "  -\n", f"  {name}\n")
    contents = {"a": (d / "a").read_bytes(), "b": (d / "b").read_bytes(), "big": data,
                "/dev/null": b"", "/dev/stdin": b""}
    want = "".join(one(n, data if (n == "-" and i == 1) else
                       b"" if n == "-" else contents[n]) for i, n in enumerate(names))
    assert p.stdout.decode() == want


# ---- 3. '-' inside a check file read from standard input ----

def test_dash_in_a_list_read_from_stdin_is_failed(tmp_path):
    (tmp_path / "abc").write_bytes(b"abc")
    lines = [f"{sha3(b'')}  -"] + [f"{sha3(b'abc')}  abc"] * 999 + [f"{'0' * 64}  abc"]
    text = ("\n".join(lines) + "\n").encode()
    for args in (["-c"], ["-c", "-"], ["-c", "/dev/stdin"]):
        p = subprocess.run([KSUM] + args, input=text, cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        out = p.stdout.decode().splitlines()
        assert p.returncode == 1
        assert out == ["-: FAILED open or read"] + ["abc: OK"] * 999 + ["abc: FAILED"]
        err = p.stderr.decode().splitlines()
        assert err[0] == "ksum: -: standard input is the checksum list being read"
        assert "1 computed checksum did NOT match" in err[-1]


def test_dash_in_a_list_from_a_file_reads_stdin(tmp_path):
    (tmp_path / "sums").write_text(f"{sha3(b'data')}  -\n{sha3(b'')}  -\n")
    code, out, err = run(["-c", "sums"], input=b"data", cwd=tmp_path)
    assert code == 0 and out == b"-: OK\n-: OK\n", err


def test_dash_in_a_list_with_stdin_a_terminal_is_failed(tmp_path):
    # A hostile list must not leave ksum waiting on the user's terminal.
    import pty
    (tmp_path / "sums").write_text(f"{sha3(b'')}  -\n{sha3(b'data')}  f\n")
    (tmp_path / "f").write_bytes(b"data")
    master, slave = pty.openpty()
    try:
        p = subprocess.run([KSUM, "-c", "sums"], stdin=slave, cwd=tmp_path,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20)
    finally:
        os.close(slave)
        os.close(master)
    assert p.returncode == 1
    assert p.stdout == b"-: FAILED open or read\nf: OK\n"
    assert p.stderr.decode().splitlines()[0] == "ksum: -: standard input is a terminal"


def test_closed_stdin_is_not_the_next_file_opened(tmp_path):
    # With standard input closed, the check file (or list) would be opened as
    # descriptor 0 and a '-' line would read the rest of it: a list carrying
    # the checksum of its own tail passed.  As sha256sum: '-' cannot be read.
    tail = b"\n" * 70000
    forged = f"{sha3(tail)}  -\n".encode()
    forged += b"#" * (65536 - len(forged) - 1) + b"\n" + tail
    (tmp_path / "forged").write_bytes(forged)
    p = sh(f"{KSUM} -c forged <&-", cwd=tmp_path)
    assert p.returncode == 1
    assert p.stdout == b"-: FAILED open or read\n"
    assert p.stderr.decode().splitlines()[0] == "ksum: -: Bad file descriptor"
    (tmp_path / "names").write_bytes(b"-\n" + b"x" * 70000 + b"\n")
    p = sh(f"{KSUM} --files-from=names <&-", cwd=tmp_path)
    assert p.returncode == 1 and p.stdout == b""
    assert p.stderr.decode().splitlines()[0] == "ksum: -: Bad file descriptor"


# ---- 4. lines that cannot be read ----

@no_sanitizer
def test_line_too_long_for_memory_is_failed_and_checking_goes_on(tmp_path):
    (tmp_path / "good").write_bytes(b"good")
    (tmp_path / "bad").write_bytes(b"bad")
    with open(tmp_path / "sums", "wb") as f:
        f.write(f"{sha3(b'good')}  good\n".encode())
        chunk = b"a" * MiB
        for _ in range(400):
            f.write(chunk)
        f.write(b"  huge\n")
        f.write(f"{'0' * 64}  bad\n".encode())
    p = subprocess.run([KSUM, "-c", "sums"], cwd=tmp_path, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, preexec_fn=limit_memory(300000), timeout=120)
    err = p.stderr.decode()
    assert p.returncode == 1, err
    assert p.stdout.decode() == "good: OK\nbad: FAILED\n"
    assert err.splitlines() == [
        "ksum: sums: 2: line could not be read: Cannot allocate memory",
        "ksum: WARNING: sums: 1 line could not be read",
        "ksum: WARNING: sums: 1 computed checksum did NOT match"]


SHIM = os.path.join(BUILD, "tests", "fault_shim.so")


@no_sanitizer
@pytest.mark.skipif(not os.path.exists(SHIM), reason="no fault shim")
def test_read_error_in_a_check_file_names_the_line(tmp_path):
    (tmp_path / "abc").write_bytes(b"abc")
    line = f"{sha3(b'abc')}  abc\n".encode()
    (tmp_path / "sums").write_bytes(line * 3)
    env = dict(os.environ, LD_PRELOAD=SHIM, KSUM_FAULT_MODE="eio",
               KSUM_FAULT_AFTER=str(len(line) + 10), KSUM_FAULT_PATH=str(tmp_path / "sums"))
    code, out, err = run(["-c", "sums"], cwd=tmp_path, env=env)
    assert code == 1
    assert out == b"abc: OK\n"
    assert err.splitlines() == ["ksum: sums: 2: line could not be read: Input/output error",
                                "ksum: WARNING: sums: 1 line could not be read"]


def test_check_file_that_is_a_directory(tmp_path):
    code, out, err = run(["-c", "."], cwd=tmp_path)
    assert code == 1 and out == b""
    assert err == "ksum: .: Is a directory\n"


# ---- 5. write errors stop at once ----

@pytest.mark.parametrize("redirect,reason", [(">/dev/full", "No space left on device"),
                                             (">&-", "Bad file descriptor")])
def test_write_error_stops_squeezing(tmp_path, redirect, reason):
    (tmp_path / "f").write_bytes(b"abc")
    # 2^48 bytes would take days: a few seconds prove that it stopped
    p = sh(f"{KSUM} --shake256 -n 281474976710656 f {redirect}", cwd=tmp_path, timeout=20)
    assert p.returncode == 1
    assert p.stderr.decode() == f"ksum: write error: {reason}\n"


@pytest.mark.parametrize("args", [["--threads", "1"], ["--threads", "3"], ["--k12"]])
def test_write_error_stops_before_the_next_file(tmp_path, args):
    (tmp_path / "f").write_bytes(b"abc")
    os.mkfifo(tmp_path / "fifo")      # no writer: opening it would wait forever
    names = " ".join(["f"] * 300 + ["fifo"])
    p = sh(f"{KSUM} {' '.join(args)} {names} >/dev/full", cwd=tmp_path, timeout=20)
    assert p.returncode == 1
    assert p.stderr.decode() == "ksum: write error: No space left on device\n"


def test_a_file_size_limit_is_a_write_error(tmp_path):
    """Past ulimit -f, a write raises SIGXFSZ, whose default action killed
    ksum without a word (exit 153): the limit is said as a write error,
    on standard output and in the temporary file a long stream spills to
    (TupleHash's, of a stream over 32 MiB)."""
    (tmp_path / "R").mkdir()
    for i in range(200):
        (tmp_path / "R" / f"f{i}").write_text(str(i))
    p = sh(f"ulimit -f 4; exec {KSUM} -r R > out", cwd=tmp_path)
    assert p.returncode == 1
    assert p.stderr.decode() == "ksum: write error: File too large\n"
    (tmp_path / "a").write_bytes(b"a")
    p = sh(f"head -c 40000000 /dev/zero | (ulimit -f 1000; exec {KSUM} --tuplehash128 - a)",
           cwd=tmp_path)
    assert (p.returncode, p.stdout) == (1, b"")
    assert p.stderr.decode().endswith(": cannot write one: File too large\n")
    assert p.stderr.decode().count("\n") == 1


def test_write_error_stops_check_mode(tmp_path):
    (tmp_path / "f").write_bytes(b"abc")
    # after the OK lines, a line naming '-' would read a pipe that never ends
    (tmp_path / "sums").write_text(f"{sha3(b'abc')}  f\n" * 3000 + f"{sha3(b'')}  -\n")
    r, w = os.pipe()
    with open("/dev/full", "wb") as full, open(tmp_path / "err", "wb") as err:
        p = subprocess.Popen([KSUM, "-c", "sums"], cwd=tmp_path, stdin=r, stdout=full,
                             stderr=err)
        os.close(r)
        try:
            code = p.wait(timeout=20)
        finally:
            p.kill()
            os.close(w)
    assert code == 1
    assert (tmp_path / "err").read_text() == "ksum: write error: No space left on device\n"


def test_help_to_a_full_disk(tmp_path):
    p = sh(f"{KSUM} --help >/dev/full", cwd=tmp_path)
    assert p.returncode == 1
    assert p.stderr.decode() == "ksum: write error: No space left on device\n"


# ---- 6. messages ----

EVP_SHIM = r"""
/* SPDX-License-Identifier: Apache-2.0 */
/* Test shim: EVP_DigestUpdate fails on data that starts with POISON and
 * raises an OpenSSL error on the calling thread, as a provider would. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <string.h>

int EVP_DigestUpdate(EVP_MD_CTX *ctx, const void *data, size_t len)
{
    int (*real)(EVP_MD_CTX *, const void *, size_t) =
        (int (*)(EVP_MD_CTX *, const void *, size_t))dlsym(RTLD_NEXT, "EVP_DigestUpdate");

    if (len >= 6 && memcmp(data, "POISON", 6) == 0) {
        ERR_raise_data(ERR_LIB_EVP, ERR_R_INTERNAL_ERROR, "injected fault");
        return 0;
    }
    return real(ctx, data, len);
}
"""


@pytest.fixture(scope="module")
def evp_shim(tmp_path_factory):
    return build_shim(tmp_path_factory, "evp_shim", EVP_SHIM)


@pytest.mark.parametrize("threads", ["1", "2", "4"])
def test_hashing_failure_in_a_worker_gives_the_reason(tmp_path, evp_shim, threads):
    names = []
    for i in range(6):
        (tmp_path / f"f{i}").write_bytes(b"data %d" % i)
        names.append(f"f{i}")
    (tmp_path / "bad").write_bytes(b"POISON and more")
    names.insert(3, "bad")
    env = dict(os.environ, LD_PRELOAD=evp_shim)
    code, out, err = run(["--threads", threads] + names, cwd=tmp_path, env=env)
    assert code == 1
    assert [l.split()[1] for l in out.decode().splitlines()] == [n for n in names if n != "bad"]
    assert err == "ksum: bad: hashing failed: internal error (injected fault)\n"


@pytest.mark.parametrize("value,same_as", [("010", "10"), ("09", "9"), ("0x0A", "10"),
                                           ("0X0a", "10"), ("0x7f", "127"), ("00001", "1"),
                                           ("0x01", "1")])
def test_domain_decimal_or_hex(tmp_path, value, same_as):
    (tmp_path / "f").write_bytes(b"abc")
    code, out, err = run(["--turboshake128", f"--domain={value}", "f"], cwd=tmp_path)
    assert code == 0, err
    assert out == run(["--turboshake128", f"--domain={same_as}", "f"], cwd=tmp_path)[1]


@pytest.mark.parametrize("value", ["0x", "0x-1", "+5", "0b1", "08x", "0x1g", "0o7", "1.0",
                                   "0x 1", "128", "0x80", "0", "00", "0x00", "-0x1"])
def test_domain_errors_are_one_line(tmp_path, value):
    code, out, err = run(["--turboshake128", f"--domain={value}", "/dev/null"])
    assert code == 1 and out == b""
    lines = err.splitlines()
    assert lines[0].startswith(f"ksum: invalid domain byte '{value}': ")
    assert lines[1:] == ["Try 'ksum --help' for more information."]


@pytest.mark.parametrize("option,value,what", [("--domain", "0x80", "domain byte"),
                                                ("-B", "0", "block size")])
def test_bad_values_in_check_mode_without_a_switch(tmp_path, option, value, what):
    # The lines choose the algorithm, but a bad value is still one usage
    # error at the start, not a "could not be read" on every line (or
    # nothing at all when no line takes it).
    (tmp_path / "f").write_bytes(b"abc")
    (tmp_path / "ts").write_bytes(run(["--turboshake128", "--tag", "f"], cwd=tmp_path)[1] +
                                  run(["--parallelhash128", "--tag", "f"], cwd=tmp_path)[1])
    (tmp_path / "plain").write_bytes(run(["f"], cwd=tmp_path)[1])
    for sums in ("ts", "plain"):
        code, out, err = run(["-c", option, value, sums], cwd=tmp_path)
        assert code == 1 and out == b"", err
        lines = err.splitlines()
        assert lines[0].startswith(f"ksum: invalid {what} '{value}': "), err
        assert lines[1:] == ["Try 'ksum --help' for more information."]


def test_options_no_checked_line_took_are_named(tmp_path):
    # Without a switch the lines choose the algorithm; an option none of
    # them takes changed nothing, and the user is told so.
    (tmp_path / "f").write_bytes(b"abc")
    (tmp_path / "plain").write_bytes(run(["f"], cwd=tmp_path)[1])
    code, out, err = run(["-c", "-C", "foo", "-x", "plain"], cwd=tmp_path)
    assert (code, out) == (0, b"f: OK\n")
    assert err.splitlines() == [
        "ksum: WARNING: option --xof applied to no line checked",
        "ksum: WARNING: option --customization applied to no line checked"]
    assert run(["-c", "--status", "-C", "foo", "plain"], cwd=tmp_path)[1:] == (b"", "")
    (tmp_path / "k12").write_bytes(run(["--k12", "-C", "foo", "--tag", "f"], cwd=tmp_path)[1])
    assert run(["-c", "-C", "foo", "k12", "plain"], cwd=tmp_path) == (0, b"f: OK\nf: OK\n", "")


@pytest.mark.parametrize("key", ["0123456789abcdefXY", "0123456789abcdef0", "c0ffee\x1b[2J",
                                 "deadbeefcafe babe"])
def test_invalid_key_is_not_echoed(key):
    code, out, err = run(["--kmac128", "-k", key, "/dev/null"])
    assert code == 1 and out == b""
    assert err.splitlines()[0].startswith("ksum: invalid key: ")
    for i in range(len(key) - 3):
        assert key[i:i + 4] not in err


def test_key_with_an_unkeyed_algorithm_is_refused_in_check_mode(keyed):
    # A key promises keyed verification: an unkeyed algorithm named beside
    # the KMAC would let a plain SHA3 line pass for a KMAC-protected file.
    (keyed / "l2").write_bytes(run(["--tag", "good"], cwd=keyed)[1])
    for algs in (["--kmac256", "--sha3-256"], ["-a", "KMAC256,SHA3-256"],
                 ["--sha3-256", "--kmac128"]):
        code, out, err = run(algs + ["-k", "00112233", "-c", "l2"], cwd=keyed)
        assert code == 1 and out == b"", algs
        assert err.splitlines()[0] == ("ksum: option --key verifies only KMAC lines: "
                                       "SHA3-256 takes no key"), (algs, err)
        assert "00112233" not in err
    # Hashing with both stays allowed: each line says what it is.
    code, out, err = run(["--kmac256", "--sha3-256", "-k", "00112233", "good"], cwd=keyed)
    assert code == 0 and err == "" and len(out.splitlines()) == 2


def test_key_file_errors_name_the_option(tmp_path):
    (tmp_path / "d").mkdir()
    for path, why in (("nope", "No such file or directory"), ("d", "Is a directory")):
        code, out, err = run(["--kmac128", "--key-file", path, "/dev/null"], cwd=tmp_path)
        assert code == 1 and out == b""
        assert err.splitlines() == [f"ksum: --key-file: {path}: {why}"]


def test_key_file_errors_do_not_show_the_key(tmp_path):
    big = tmp_path / "bigkey"
    big.write_bytes(b"SECRET" * (MiB // 6 + 10))
    big.chmod(0o600)
    small = tmp_path / "key"
    small.write_bytes(b"SECRET-KEY")
    small.chmod(0o600)
    for args in (["--kmac128", "--key-file", "bigkey"], ["--key-file", "key"],
                 ["--kmac128", "--key-file", "key", "--function", "x"],
                 ["--kmac128", "--key-file", "key", "-c"],
                 ["--kmac128", "--key-file", "."], ["--kmac128", "--key-file", "nope"]):
        code, _, err = run(args + ["/dev/null"], cwd=tmp_path)
        assert code == 1, args
        assert "SECRET" not in err


# ---- 7. KSUM_SIMD ----

def simd(value, args=("/dev/null",)):
    return run(list(args), env=dict(os.environ, KSUM_SIMD=value))


def test_unknown_ksum_simd_is_reported_once_and_ignored(tmp_path):
    (tmp_path / "e").write_bytes(b"")
    (tmp_path / "sums").write_text(f"{sha3(b'')}  e\n" * 3)
    for args in (["/dev/null"], ["--threads", "4", "/dev/null"] * 3, ["-c", "sums"],
                 ["--k12", "/dev/null"], ["--kmac128", "/dev/null"]):
        want = run(args, cwd=tmp_path)[1]
        code, out, err = run(args, cwd=tmp_path, env=dict(os.environ, KSUM_SIMD="foo"))
        assert code == 0 and out == want
        m = re.fullmatch(r"ksum: KSUM_SIMD=foo is not a backend this build and CPU can "
                         r"run; using (\w+)\n", err)
        assert m, err
        # the backend named is one KSUM_SIMD may name
        assert simd(m.group(1))[2] == ""


@pytest.mark.parametrize("value", ["", "auto", "portable"])
def test_valid_ksum_simd_is_silent(value):
    code, out, err = simd(value)
    assert code == 0 and err == "" and out.decode() == f"{sha3(b'')}  /dev/null\n"


def test_ksum_simd_message_escapes_the_value():
    code, _, err = simd("x\x1b[2J")
    assert code == 0 and "\x1b" not in err
    assert err.startswith("ksum: KSUM_SIMD=x\\x1b[2J is not a backend")


def test_ksum_simd_documented_alike():
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    man = open(os.path.join(root, "cli", "ksum.1")).read().replace("\\-", "-")
    readme = open(os.path.join(root, "docs", "cli.md")).read()
    provider = open(os.path.join(root, "docs", "provider.md")).read()
    for text in (man, readme, provider):
        for word in ("KSUM_SIMD", "portable", "bmi2", "avx2", "auto", "ignored"):
            assert word in text
    # --help fits a screen: it names the variable and points to the rest
    help_text = run(["--help"])[1].decode()
    assert "KSUM_SIMD" in help_text and "man ksum" in help_text


# ---- 8. standard output and standard error in order ----

@pytest.mark.parametrize("args", [["--threads", "1"], ["--threads", "3"]])
def test_messages_keep_their_place_in_a_log(tmp_path, args):
    (tmp_path / "a").write_bytes(b"a")
    (tmp_path / "b").write_bytes(b"b")
    log = tmp_path / "log"
    with open(log, "wb") as f:
        subprocess.run([KSUM] + args + ["a", "missing", "b"], cwd=tmp_path, stdout=f,
                       stderr=subprocess.STDOUT)
    assert log.read_text().splitlines() == [
        f"{sha3(b'a')}  a", "ksum: missing: No such file or directory", f"{sha3(b'b')}  b"]
    (tmp_path / "sums").write_text(f"{sha3(b'a')}  a\n{sha3(b'a')}  missing\njunk\n"
                                   f"{sha3(b'b')}  b\n")
    with open(log, "wb") as f:
        subprocess.run([KSUM, "-c", "-w", "sums"], cwd=tmp_path, stdout=f,
                       stderr=subprocess.STDOUT)
    assert log.read_text().splitlines() == [
        "a: OK", "ksum: missing: No such file or directory", "missing: FAILED open or read",
        "ksum: sums: 3: improperly formatted checksum line", "b: OK",
        "ksum: WARNING: sums: 1 line is improperly formatted",
        "ksum: WARNING: sums: 1 listed file could not be read"]
