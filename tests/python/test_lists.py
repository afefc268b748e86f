# SPDX-License-Identifier: Apache-2.0
"""Keyed and foreign lists (issue 17): a list never decides the length or the
algorithm a keyed check is made at, a digest is hex or base64 by its alphabet
and the expected length, XOF modes have tags of their own, and lists of other
tools name what ksum checked them with.  Each reproduction of the issue is a
test here."""
import base64
import hashlib
import os
import random
import re
import resource
import subprocess

import pytest
import keccak_ref as ref

from conftest import KSUM, build_shim, run

KEY = b"SECRETKEY-0123456789"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "victim.txt").write_bytes(b"the file as it was signed\n")
    (tmp_path / "other").write_bytes(b"another file\n")
    key = tmp_path / "key"
    key.write_bytes(KEY)
    key.chmod(0o600)
    return tmp_path


def kmac(bits, data, size, custom=b""):
    return ref.kmac(bits, KEY, data, size, custom).hex()


def check(tmp_path, args, listing):
    return run(list(args) + ["-c"], input=listing.encode(), cwd=tmp_path)


# ---- 1. a list cannot shorten a KMAC ----

def test_one_byte_tags_never_pass(files):
    """256 one-byte lines: every value fails, none says OK, exit 1."""
    (files / "victim.txt").write_bytes(b"changed by the attacker\n")
    lines = "".join(f"KMAC256-8 (victim.txt) = {i:02x}\n" for i in range(256))
    code, out, err = check(files, ["--kmac256", "--key-file", "key"], lines)
    assert code == 1
    assert b": OK" not in out
    assert "KMAC256-8 line, not checked at 256 bits" in err
    assert "256 lines were not verified" in err


def test_short_line_beside_a_genuine_one_fails_the_run(files):
    genuine = kmac(256, (files / "victim.txt").read_bytes(), 32)
    short = kmac(256, (files / "other").read_bytes(), 2)
    listing = f"KMAC256 (victim.txt) = {genuine}\nKMAC256-16 (other) = {short}\n"
    code, out, err = check(files, ["--kmac256", "--key-file", "key"], listing)
    assert code == 1, (out, err)
    assert out == b"victim.txt: OK\n"
    # reported without -w, with its number and the reason
    assert re.search(r"standard input: 2: KMAC256-16 line, not checked at 256 bits", err)


def test_untagged_short_digest_fails(files):
    short = kmac(128, (files / "victim.txt").read_bytes(), 1)
    code, out, err = check(files, ["--kmac128", "--key-file", "key"], f"{short}  victim.txt\n")
    assert code == 1
    assert b"OK" not in out
    assert "standard input: 1: " in err


def test_keyed_length_chosen_by_the_user(files):
    """-n chooses the length: a line at that length passes, one at the
    default length (16 bytes for KMAC128) does not."""
    data = (files / "victim.txt").read_bytes()
    listing = (f"KMAC128-192 (victim.txt) = {kmac(128, data, 24)}\n"
               f"KMAC128 (victim.txt) = {kmac(128, data, 16)}\n")
    code, out, err = check(files, ["--kmac128", "--key-file", "key", "-n", "24"], listing)
    assert code == 1
    assert out == b"victim.txt: OK\n"
    assert "2: KMAC128 line, not checked at 192 bits" in err
    code, out, err = check(files, ["--kmac128", "--key-file", "key", "-n", "24"],
                           listing.splitlines(True)[0])
    assert (code, out) == (0, b"victim.txt: OK\n"), err


def test_keyed_malformed_line_fails_the_run(files):
    data = (files / "victim.txt").read_bytes()
    listing = f"KMAC128 (victim.txt) = {kmac(128, data, 16)}\nnot a checksum line\n"
    code, out, err = check(files, ["--kmac128", "--key-file", "key"], listing)
    assert code == 1
    assert out == b"victim.txt: OK\n"
    assert "standard input: 2: improperly formatted checksum line" in err
    # unkeyed lists keep coreutils' rule: exit 0 without --strict
    code, out, err = check(files, [], f"{hashlib.sha3_256(data).hexdigest()}  victim.txt\nnot one\n")
    assert code == 0, err


def test_keyed_line_of_another_algorithm_fails_the_run(files):
    data = (files / "victim.txt").read_bytes()
    listing = (f"KMAC256 (victim.txt) = {kmac(256, data, 32)}\n"
               f"SHA3-256 (other) = {hashlib.sha3_256(b'x').hexdigest()}\n")
    code, out, err = check(files, ["--kmac256", "--key-file", "key"], listing)
    assert code == 1
    assert "2: SHA3-256 line, not checked with KMAC256" in err


def test_keyed_full_length_lists_still_pass(files):
    for bits, size in ((128, 32), (256, 64)):
        code, out, err = run([f"--kmac{bits}", "--key-file", "key", "--tag", "victim.txt", "other"],
                             cwd=files)
        assert code == 0, err
        code, out2, err = check(files, [f"--kmac{bits}", "--key-file", "key"], out.decode())
        assert (code, out2) == (0, b"victim.txt: OK\nother: OK\n"), err


# ---- 2. hex of the wrong length is not base64 ----

@pytest.mark.parametrize("make,check_args", [
    (["--sha3-256"], ["--sha3-384"]),
    (["--shake128"], ["--shake128", "-n", "24"]),
    (["--sha3-256"], ["--sha3-512"]),
])
def test_hex_of_another_length_is_improper(files, make, check_args):
    code, out, err = run(make + ["victim.txt"], cwd=files)
    assert code == 0
    code, out2, err = check(files, check_args + ["-w"], out.decode())
    assert b"FAILED" not in out2
    assert code == 1
    assert "improperly formatted" in err
    assert "no properly formatted checksum lines found" in err


def test_base64_still_read(files):
    data = (files / "victim.txt").read_bytes()
    b64 = base64.b64encode(hashlib.sha3_384(data).digest()).decode()
    code, out, err = check(files, ["--sha3-384"], f"{b64}  victim.txt\n")
    assert (code, out) == (0, b"victim.txt: OK\n"), err
    # a base64 digest of 32 bytes is 44 characters: not 48 bytes of anything
    b64 = base64.b64encode(hashlib.sha3_256(data).digest()).decode()
    code, out, err = check(files, ["--sha3-384", "-w"], f"{b64}  victim.txt\n")
    assert code == 1 and b"FAILED" not in out


# ---- 3. XOF output has its own tags ----

@pytest.mark.parametrize("switch,tag", [
    ("--kmac128", "KMACXOF128"), ("--kmac256", "KMACXOF256"),
    ("--parallelhash128", "PARALLELHASHXOF128"), ("--parallelhash256", "PARALLELHASHXOF256"),
    ("--tuplehash128", "TUPLEHASHXOF128"), ("--tuplehash256", "TUPLEHASHXOF256"),
])
def test_xof_tags_round_trip(files, switch, tag):
    for extra, suffix in (([], ""), (["-n", "8"], "-64")):
        code, out, err = run([switch, "-x", "--tag"] + extra + ["victim.txt"], cwd=files)
        assert code == 0, err
        assert out.decode().startswith(f"{tag}{suffix} (victim.txt) = "), out
        code, out2, err = check(files, [], out.decode())
        assert (code, out2) == (0, b"victim.txt: OK\n"), err
        code, out2, err = check(files, [switch], out.decode())
        assert (code, out2) == (0, b"victim.txt: OK\n"), err


def test_kmacxof_line_matches_an_independent_implementation(files):
    data = (files / "victim.txt").read_bytes()
    code, xof, err = run(["--kmac128", "--key-file", "key", "-x", "--tag", "victim.txt"], cwd=files)
    assert xof.decode() == f"KMACXOF128 (victim.txt) = {ref.kmac(128, KEY, data, 16, b'', True).hex()}\n"
    code, out2, err = check(files, ["--kmac128", "--key-file", "key"], xof.decode())
    assert (code, out2) == (0, b"victim.txt: OK\n"), err


def test_old_tags_keep_the_fixed_length_function(files):
    code, out, err = run(["--kmac128", "--tag", "victim.txt"], cwd=files)
    assert out.startswith(b"KMAC128 (victim.txt)")
    code, out2, err = check(files, [], out.decode())
    assert (code, out2) == (0, b"victim.txt: OK\n")
    # a fixed-length line under -x is of another function than asked for
    code, out2, err = check(files, ["--kmac128", "-x", "-w"], out.decode())
    assert code == 1 and b"OK" not in out2
    assert "KMAC128 line, not checked with KMACXOF128" in err


# ---- 4. foreign lists name what ksum checked them with ----

def test_sha256sum_list_names_the_default(files):
    data = (files / "victim.txt").read_bytes()
    listing = f"{hashlib.sha256(data).hexdigest()}  victim.txt\n"
    code, out, err = check(files, [], listing)
    assert code == 1
    assert "checked as SHA3-256" in err
    assert "-a" in err
    # named: no such hint
    code, out, err = check(files, ["--sha3-256"], listing)
    assert code == 1 and "checked as" not in err


def test_no_hint_when_an_untagged_line_passed(files):
    """A SHA3-256 list with one changed file: the FAILED is the file's, not
    the list's algorithm (adversarial review)."""
    code, out, err = run(["victim.txt", "other"], cwd=files)
    (files / "other").write_bytes(b"changed\n")
    code, out2, err = check(files, [], out.decode())
    assert code == 1 and out2 == b"victim.txt: OK\nother: FAILED\n"
    assert "checked as" not in err


def test_xof_without_a_switch_names_the_xof(files):
    code, out, err = run(["--kmac128", "--tag", "victim.txt"], cwd=files)
    code, out2, err = check(files, ["-x", "-w"], out.decode())
    assert code == 1
    assert "1: KMAC128 line, not checked with KMACXOF128" in err


def test_line_of_another_algorithm_named(files):
    code, out, err = run(["--sha3-512", "--tag", "victim.txt"], cwd=files)
    code, out2, err = check(files, ["--sha3-256", "-w"], out.decode())
    assert code == 1
    assert "1: SHA3-512 line, not checked with SHA3-256" in err
    assert "improperly formatted checksum line" not in err


# ---- 5. no crash under an address-space limit ----

SANITIZED = os.environ.get("KSUM_SANITIZED") == "1"


@pytest.mark.skipif(SANITIZED, reason="address-space limits do not work under the sanitizers")
@pytest.mark.parametrize("args", [["--sha3-256"], ["--sha3-256", "--threads", "1"], ["--k12"],
                                  ["--shake128", "-n", "70000"], ["--tuplehash128"]])
def test_no_signal_under_any_address_space_limit(tmp_path, args):
    rng = random.Random(5)
    names = []
    for i in range(16):
        (tmp_path / f"f{i}").write_bytes(rng.randbytes(rng.choice([0, 100, 70000, 1 << 20,
                                                                    3 << 20])))
        names.append(f"f{i}")
    want = run(args + names, cwd=tmp_path)
    assert want[0] == 0
    for kib in list(range(14000, 64000, 2000)) * 2:
        p = subprocess.run([KSUM] + args + names, cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60,
                           preexec_fn=lambda: resource.setrlimit(
                               resource.RLIMIT_AS, (kib << 10, kib << 10)))
        err = p.stderr.decode()
        assert p.returncode in (0, 1), (kib, p.returncode, err)
        if p.returncode == 0:
            assert p.stdout == want[1], kib
        else:
            assert "out of memory" in err or "Cannot allocate memory" in err, (kib, err)
            # what was printed is right, line by line
            assert want[1].startswith(p.stdout) or not p.stdout, kib


@pytest.mark.skipif(SANITIZED, reason="the sanitizers need more stack")
@pytest.mark.parametrize("args", [["--version"], ["--sha3-256", "a", "b"], ["--k12", "a"],
                                  ["-c", "SUMS"], ["-r", "--sha3-256", "."],
                                  ["--tree", "."], ["--shake256", "-n", "100000", "a"],
                                  ["--shake256", "-n", "10000", "--base64", "a", "b"],
                                  ["--k12", "-n", "2000000", "a"],
                                  ["--k12", "--part", "2/3", "b"],
                                  ["--k12", "--combine", "p1", "p2", "p3"]])
def test_a_small_stack_limit(tmp_path, args):
    """ulimit -s of 32 KiB (openssl dgst runs at 16), with 6 KB of
    environment, as a CI job may have: ksum reserved half of the limit at
    start, a hasher_set of 16 KiB lived on the stack, the printing of a sum
    line held 14 KiB of pieces there, and --part's and --combine's 10 KiB
    job; each crashed it (SIGSEGV) while the arguments, the environment and
    the loader's frames took the rest."""
    (tmp_path / "a").write_bytes(b"a" * 100)
    (tmp_path / "b").write_bytes(b"b" * 70000)
    (tmp_path / "SUMS").write_bytes(run(["a", "b"], cwd=tmp_path)[1])
    for k in (1, 2, 3):
        (tmp_path / f"p{k}").write_bytes(run(["--k12", "--part", f"{k}/3", "b"], cwd=tmp_path)[1])
    want = run(args, cwd=tmp_path)
    assert want[0] == 0
    env = {"PATH": os.environ.get("PATH", "/usr/bin"), "X": "x" * 6000}
    for _ in range(10):   # where the stack starts is random
        p = subprocess.run([KSUM] + args, cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60, env=env,
                           preexec_fn=lambda: resource.setrlimit(
                               resource.RLIMIT_STACK, (32 << 10, 32 << 10)))
        assert (p.returncode, p.stdout) == (0, want[1]), p.stderr.decode()


@pytest.mark.skipif(SANITIZED, reason="address-space limits do not work under the sanitizers")
@pytest.mark.parametrize("switch", ["--k12", "--sha3-256"])
def test_one_file_without_room_to_read_ahead(tmp_path, switch):
    """ulimit -v 20000: the read-ahead buffers (16 MiB) do not fit; reading
    ahead is only speed, so one buffer does (it said out of memory)."""
    (tmp_path / "big").write_bytes(random.Random(9).randbytes(12 << 20))
    want = run([switch, "big"], cwd=tmp_path)
    p = subprocess.run([KSUM, switch, "big"], cwd=tmp_path, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60,
                       preexec_fn=lambda: resource.setrlimit(
                           resource.RLIMIT_AS, (20000 << 10, 20000 << 10)))
    assert (p.returncode, p.stdout) == (0, want[1]), p.stderr.decode()


# ---- 6. files whose size is unknown ----

@pytest.mark.parametrize("switch", ["--tuplehash128", "--tuplehash256"])
def test_tuplehash_reads_proc_files_as_streams(tmp_path, switch):
    data = open("/proc/version", "rb").read()
    (tmp_path / "copy").write_bytes(data)
    want = run([switch, "copy"], cwd=tmp_path)[1].split()[0]
    code, out, err = run([switch, "/proc/version"])
    assert code == 0, err
    assert out.split()[0] == want
    with open("/proc/version", "rb") as f:
        p = subprocess.run([KSUM, switch], stdin=f, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == want
    # sysfs: a size of 4096 whatever the contents
    sys_file = "/sys/kernel/mm/transparent_hugepage/enabled"
    if os.path.exists(sys_file):
        (tmp_path / "copy").write_bytes(open(sys_file, "rb").read())
        want = run([switch, "copy"], cwd=tmp_path)[1].split()[0]
        code, out, err = run([switch, sys_file])
        assert (code, out.split()[0]) == (0, want), err


def test_check_mode_reads_proc_files(tmp_path):
    code, out, err = run(["/proc/version", "--tag"])
    assert code == 0
    code, out, err = run(["-c"], input=out)
    assert (code, out) == (0, b"/proc/version: OK\n"), err
    code, out, err = run(["--tuplehash128", "/proc/version"])
    code, out, err = run(["--tuplehash128", "-c"], input=out)
    assert (code, out) == (0, b"/proc/version: OK\n"), err


# ---- 7. a low descriptor limit ----

@pytest.mark.parametrize("args", [["-r"], ["-r", "--k12"], ["-r", "--threads", "2"]])
def test_walk_under_a_low_descriptor_limit(tmp_path, args):
    d = tmp_path / "tree"
    d.mkdir()
    for i in range(1000):
        (d / f"{i:04d}").write_bytes(f"file {i}\n".encode() * (i % 7))
    want = run(args + ["--threads", "1", "tree"], cwd=tmp_path)
    assert want[0] == 0 and want[1].count(b"\n") == 1000
    for limit in (8, 10, 12, 16):
        p = subprocess.run([KSUM] + args + ["tree"], cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120,
                           preexec_fn=lambda: resource.setrlimit(
                               resource.RLIMIT_NOFILE, (limit, limit)))
        assert (p.returncode, p.stderr) == (0, b""), limit
        assert sorted(p.stdout.splitlines()) == sorted(want[1].splitlines()), limit


def test_check_under_a_low_descriptor_limit(tmp_path):
    d = tmp_path / "tree"
    d.mkdir()
    for i in range(300):
        (d / f"{i:04d}").write_bytes(b"x" * i)
    (tmp_path / "list").write_bytes(run(["-r", "tree"], cwd=tmp_path)[1])
    p = subprocess.run([KSUM, "-c", "list"], cwd=tmp_path, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120,
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (10, 10)))
    assert (p.returncode, p.stderr) == (0, b"")
    assert p.stdout.count(b": OK\n") == 300


# ---- issue 18: tree modes on many files start no thread per file ----

THREAD_COUNTER = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
static atomic_int created;
static void report(void) { fprintf(stderr, "threads created: %d\n", created); }
__attribute__((constructor)) static void init(void) { atexit(report); }
int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg)
{
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    if (!real)
        real = dlsym(RTLD_NEXT, "pthread_create");
    created++;
    return real(t, a, f, arg);
}
"""


@pytest.fixture(scope="module")
def thread_counter(tmp_path_factory):
    return build_shim(tmp_path_factory, "threadcount", THREAD_COUNTER)


@pytest.mark.parametrize("switch", ["--k12", "--kt256", "--m14", "--parallelhash128",
                                    "--sha3-256"])
def test_many_small_files_start_few_threads(tmp_path, thread_counter, switch):
    rng = random.Random(18)
    d = tmp_path / "tree"
    d.mkdir()
    for i in range(2000):
        (d / f"{i:04d}").write_bytes(rng.randbytes(rng.randrange(0, 16384)))
    (d / "big").write_bytes(rng.randbytes(9 << 20))
    env = dict(os.environ, LD_PRELOAD=thread_counter)
    p = subprocess.run([KSUM, "-r", switch, "tree"], cwd=tmp_path, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.count(b"\n") == 2001
    created = int(re.search(rb"threads created: (\d+)", p.stderr).group(1))
    assert created <= 16, created
    # the same digests as one file at a time
    want = run([switch, "tree/0007", "tree/big"], cwd=tmp_path)[1].splitlines()
    got = [l for l in p.stdout.splitlines() if l.endswith((b"/0007", b"/big"))]
    assert sorted(got) == sorted(want)


def test_kmac_check_without_a_key_warns(files):
    """A forgotten --key-file: the empty key, which anyone can compute
    (adversarial review)."""
    code, out, err = run(["--kmac128", "--tag", "victim.txt"], cwd=files)
    code, out2, err = check(files, ["--kmac128"], out.decode())
    assert (code, out2) == (0, b"victim.txt: OK\n")
    assert "WARNING: no key given: KMAC128 lines are checked with the empty key" in err
    code, out2, err = check(files, ["--kmac128", "--status"], out.decode())
    assert (code, err) == (0, "")


def test_kmac_check_with_an_empty_key_warns(files):
    """An empty key file, or -k '' from an unset variable, is the empty key
    too: the same warning (adversarial review, 2026-12-03)."""
    empty = files / "emptykey"
    empty.write_bytes(b"")
    empty.chmod(0o600)
    code, forged, err = run(["--kmac128", "--tag", "victim.txt"], cwd=files)
    for key in (["--key-file", "emptykey"], ["-k", ""]):
        code, out, err = check(files, ["--kmac128"] + key, forged.decode())
        assert (code, out) == (0, b"victim.txt: OK\n")
        assert ("ksum: WARNING: the key given is empty: KMAC128 lines are checked with the "
                "empty key, which anyone can compute") in err
        code, out, err = check(files, ["--kmac128", "--status"] + key, forged.decode())
        assert (code, err) == (0, "")
    code, out, err = check(files, ["--kmac128", "--key-file", "key"], forged.decode())
    assert code == 1 and "WARNING" in err and "empty key" not in err


def test_kmac_line_checked_without_a_switch_or_key_warns(files):
    """Without a switch the lines name the algorithm; a KMAC line is then
    checked with the empty key, which the summary says."""
    code, forged, err = run(["--kmac256", "--tag", "victim.txt", "other"], cwd=files)
    sha = run(["--tag", "other"], cwd=files)[1]
    code, out, err = check(files, [], (forged + sha).decode())
    assert code == 0 and out.count(b": OK\n") == 3
    assert err == ("ksum: WARNING: standard input: 2 KMAC lines were checked with the empty "
                   "key (no key given), which anyone can compute\n")
    code, out, err = check(files, [], sha.decode())
    assert (code, err) == (0, "")
    code, out, err = check(files, ["--status"], forged.decode())
    assert (code, err) == (0, "")
