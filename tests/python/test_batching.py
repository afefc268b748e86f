# SPDX-License-Identifier: Apache-2.0
"""Several files absorbed together (issue 13, item 3): with a sequential
algorithm, each worker keeps four files in flight, fed in turns through
contexts of one batch group (KSUM_PARAM_BATCH).  Batching changes speed,
never output: every file's line is the one the unbatched path
(KSUM_BATCH=0) prints, and hashlib's where it has the algorithm, for files
of random sizes around the block and turn boundaries, streams among them,
errors in the middle, every thread count and every backend."""
import hashlib
import os
import random
import shutil
import subprocess

import pytest

from conftest import BUILD, KSUM, build_init_shim, run

MiB = 1 << 20
SANITIZED = os.environ.get("KSUM_SANITIZED") == "1"
SHIM = os.path.join(BUILD, "tests", "fault_shim.so")
# Rates of SHA3-256 (136), SHAKE128 (168), SHA3-512 (72); the turn (64 KiB).
EDGES = [0, 1, 71, 72, 73, 135, 136, 137, 167, 168, 169, 4095, 4096, 65535, 65536,
         65537, 2 * 65536 + 136, 3 * 65536 - 1]
ALGS = [["--sha3-256"], ["--sha3-512"], ["--shake128", "-n", "40"], ["--keccak-256"],
        ["--rawshake256"], ["--cshake128", "-C", "c", "-f", "N"],
        ["--kmac128", "-k", "00112233"], ["--kmac256", "-x", "-n", "20"],
        ["--turboshake128"], ["--turboshake256", "--domain", "0x0B"]]


def sizes(seed, count, biggest):
    rng = random.Random(seed)
    out = list(EDGES)
    while len(out) < count:
        out.append(rng.randrange(biggest))
    rng.shuffle(out)
    return out


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    d = tmp_path_factory.mktemp("batching")
    biggest = MiB if SANITIZED else 3 * MiB
    data = os.urandom(biggest + 1)
    names = []
    for i, n in enumerate(sizes(13, 40 if SANITIZED else 70, biggest)):
        start = (i * 7919) % (len(data) - n) if n < len(data) else 0
        (d / f"f{i:03d}").write_bytes(data[start:start + n])
        names.append(f"f{i:03d}")
    return d, names


def lines(args, names, cwd, **env):
    code, out, err = run(args + names, cwd=cwd, env=dict(os.environ, **env),
                         input=b"standard input\n")
    return code, out.decode().splitlines(), err


@pytest.mark.parametrize("alg", ALGS, ids=lambda a: a[0].lstrip("-"))
def test_batched_same_as_unbatched_every_thread_count(alg, tree):
    d, names = tree
    _, want, _ = lines(alg + ["--threads", "1"], names, d, KSUM_BATCH="0")
    assert len(want) == len(names)
    for threads in ("1", "2", "3", "8"):
        code, got, err = lines(alg + ["--threads", threads], names, d)
        assert code == 0 and err == ""
        assert got == want, f"--threads {threads}"


def test_batched_against_hashlib(tree):
    d, names = tree
    code, got, _ = lines(["--sha3-256", "--threads", "2"], names, d)
    assert code == 0
    assert got == [f"{hashlib.sha3_256((d / n).read_bytes()).hexdigest()}  {n}"
                   for n in names]
    code, got, _ = lines(["--shake128", "-n", "32", "--threads", "1"], names, d)
    assert got == [f"{hashlib.shake_128((d / n).read_bytes()).hexdigest(32)}  {n}"
                   for n in names]


@pytest.mark.parametrize("simd", ["portable", "bmi2", "avx2"])
@pytest.mark.parametrize("threads", ["1", "2"])
def test_every_backend(simd, threads, tree):
    d, names = tree
    _, want, _ = lines(["--threads", "1"], names, d, KSUM_BATCH="0")
    code, got, err = lines(["--threads", threads], names, d, KSUM_SIMD=simd)
    assert code == 0 and got == want, err


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_streams_and_errors_among_batched_files(threads, tree):
    d, names = tree
    mixed = list(names[:20])
    mixed[3:3] = ["-"]
    mixed[9:9] = ["missing"]
    mixed[12:12] = ["/dev/null"]
    mixed[15:15] = ["."]
    mixed += ["-", names[0]]
    code, want, want_err = lines(["--threads", "1"], mixed, d, KSUM_BATCH="0")
    assert code == 1
    assert want_err == ("ksum: missing: No such file or directory\n"
                        "ksum: .: Is a directory\n")
    code, got, err = lines(["--threads", threads], mixed, d)
    assert code == 1 and got == want and err == want_err
    assert f"{hashlib.sha3_256(b'standard input' + bytes([10])).hexdigest()}  -" in got


needs_shim = pytest.mark.skipif(SANITIZED or not os.path.exists(SHIM),
                                reason="the LD_PRELOAD shim cannot go before a sanitizer runtime")


@needs_shim
@pytest.mark.parametrize("mode,message", [("eio", "Input/output error"),
                                          ("truncate", "file changed while it was read"),
                                          ("grow", "file changed while it was read")])
@pytest.mark.parametrize("threads", ["1", "2"])
def test_read_fault_in_the_middle_of_a_batch(mode, message, threads, tree):
    d, names = tree
    big = max(names, key=lambda n: (d / n).stat().st_size)
    shutil.copy(d / big, d / "bad")
    try:
        chosen = names[:12] + ["bad"] + names[12:24]
        env = dict(LD_PRELOAD=SHIM, KSUM_FAULT_MODE=mode, KSUM_FAULT_AFTER=str(MiB + 7),
                   KSUM_FAULT_PATH=str(d / "bad"))
        code, got, err = lines(["--threads", threads], chosen, d, **env)
        _, want, _ = lines(["--threads", "1"], names[:24], d, KSUM_BATCH="0")
        assert code == 1
        assert err == f"ksum: bad: {message}\n"
        assert got == want
    finally:
        os.unlink(d / "bad")


EVP_INIT_SHIM = r"""
/* SPDX-License-Identifier: Apache-2.0 */
/* Test shim: appends the batch id each EVP_DigestInit_ex2 and EVP_MAC_init
 * is given ("0" when none) to the file $BATCH_LOG. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <openssl/core.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void note(const OSSL_PARAM *params)
{
    const OSSL_PARAM *p = params ? OSSL_PARAM_locate_const(params, "batch") : NULL;
    uint64_t id = 0;
    char line[32];
    int fd = open(getenv("BATCH_LOG"), O_WRONLY | O_APPEND | O_CREAT, 0644);

    if (p != NULL)
        OSSL_PARAM_get_uint64(p, &id);
    snprintf(line, sizeof line, "%llu\n", (unsigned long long)id);
    if (fd >= 0 && write(fd, line, strlen(line)) < 0)
        perror("shim");
    if (fd >= 0)
        close(fd);
}

"""


@pytest.fixture(scope="module")
def init_shim(tmp_path_factory):
    return build_init_shim(tmp_path_factory, "initshim", EVP_INIT_SHIM)


def avx2_runs():
    code, _, err = run(["/dev/null"], env=dict(os.environ, KSUM_SIMD="avx2"))
    return code == 0 and err == ""


def batch_ids(init_shim, d, args, names, **env):
    log = d / "batch.log"
    if log.exists():
        log.unlink()
    code, _, err = run(args + names, cwd=d,
                       env=dict(os.environ, LD_PRELOAD=init_shim, BATCH_LOG=str(log), **env))
    assert code == 0, err
    return [int(x) for x in log.read_text().split()]


@pytest.mark.parametrize("alg", [["--sha3-256"], ["--kmac128"]])
def test_every_init_names_the_workers_group(init_shim, tree, alg):
    """The id goes with every init (OpenSSL 3.0 makes a new context at each),
    one group per worker; none when batching cannot gain."""
    if not avx2_runs():
        pytest.skip("this CPU has no AVX2: ksum does not batch")
    d, names = tree
    ids = batch_ids(init_shim, d, alg + ["--threads", "2"], names)
    # the options' trial and the printing thread's probe of the backend, then
    # one init per file
    assert ids.count(0) <= 2
    assert sorted(set(ids) - {0}) == [1, 2]
    assert len([i for i in ids if i]) >= len(names)
    assert set(batch_ids(init_shim, d, alg + ["--threads", "1"], names)) <= {0, 1}
    for env in ({"KSUM_BATCH": "0"}, {"KSUM_SIMD": "portable"}, {"KSUM_SIMD": "bmi2"}):
        assert set(batch_ids(init_shim, d, alg + ["--threads", "2"], names, **env)) == {0}
    # K12 batches the first chunks of several files (issue 18, item 4), as
    # the sequential algorithms batch whole files; one file goes to its
    # tree's threads, never to a group
    # (a worker may hash them all before the other is first scheduled on a
    # loaded machine: K12 takes milliseconds here; one of a few runs must
    # show both groups, which a policy that never shares would not)
    assert any(sorted(set(batch_ids(init_shim, d, ["--k12", "--threads", "2"], names)) - {0})
               == [1, 2] for _ in range(5))
    assert set(batch_ids(init_shim, d, ["--k12"], names[:1])) == {0}


def test_two_files_on_two_threads_are_not_batched_on_one(init_shim, tree):
    """A worker takes a second file only when no other worker waits for
    one: two big files on two threads are hashed one per thread."""
    if not avx2_runs():
        pytest.skip("this CPU has no AVX2: ksum does not batch")
    d, names = tree
    two = sorted(names, key=lambda n: (d / n).stat().st_size)[-2:]
    # Each run either splits them, or one worker hashed its file before the
    # other was first scheduled (a loaded machine) and took the second as a
    # worker with nothing in flight: never both in flight on one worker.
    # A policy that paired them would pair them in every run.
    runs = [sorted(i for i in batch_ids(init_shim, d, ["--threads", "2"] + two, []) if i)
            for _ in range(8)]
    assert all(r in ([1, 2], [1, 1], [2, 2]) for r in runs), runs
    assert [1, 2] in runs, runs
