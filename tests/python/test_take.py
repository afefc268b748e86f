# SPDX-License-Identifier: Apache-2.0
"""How many files a worker keeps in flight (cli/run/concurrent.c): several
while they pair in a batch (the sequential algorithms for their whole
length, the K12 family for its first chunk), but a worker that holds a long
K12 file takes no other beside it, so that files go to whichever worker
frees up first (8 files of 32 MiB on two workers: one at a time each, not
four each, interleaved)."""
import collections
import os

import pytest

from conftest import build_shim, run, run_logged

# One line per EVP_DigestInit_ex2, per final and per context freed: the
# thread and the context.  A context freed unfinished (spread.c's probe of
# a tree's span) is no file in flight.
OPEN_LOG_SHIM = r"""
/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static void note(char what, const void *ctx)
{
    char line[64];
    int n = snprintf(line, sizeof line, "%c %ld %p\n", what, (long)syscall(SYS_gettid), ctx);
    int fd = open(getenv("OPEN_LOG"), O_WRONLY | O_APPEND | O_CREAT, 0644);

    if (fd >= 0 && write(fd, line, (size_t)n) < 0)
        perror("shim");
    if (fd >= 0)
        close(fd);
}

#define REAL(name, type) ((type)dlsym(RTLD_NEXT, name))

int EVP_DigestInit_ex2(EVP_MD_CTX *ctx, const EVP_MD *md, const OSSL_PARAM params[])
{
    note('i', ctx);
    return REAL("EVP_DigestInit_ex2",
                int (*)(EVP_MD_CTX *, const EVP_MD *, const OSSL_PARAM *))(ctx, md, params);
}

int EVP_DigestFinalXOF(EVP_MD_CTX *ctx, unsigned char *out, size_t len)
{
    note('f', ctx);
    return REAL("EVP_DigestFinalXOF", int (*)(EVP_MD_CTX *, unsigned char *, size_t))(ctx, out, len);
}

int EVP_DigestFinal_ex(EVP_MD_CTX *ctx, unsigned char *out, unsigned int *len)
{
    note('f', ctx);
    return REAL("EVP_DigestFinal_ex",
                int (*)(EVP_MD_CTX *, unsigned char *, unsigned int *))(ctx, out, len);
}

void EVP_MD_CTX_free(EVP_MD_CTX *ctx)
{
    if (ctx != NULL)
        note('e', ctx);
    REAL("EVP_MD_CTX_free", void (*)(EVP_MD_CTX *))(ctx);
}
"""


@pytest.fixture(scope="module")
def open_shim(tmp_path_factory):
    return build_shim(tmp_path_factory, "openlog", OPEN_LOG_SHIM)


def most_in_flight(open_shim, d, args):
    """The most files one thread had begun and not yet finished."""
    out, log = run_logged(open_shim, "OPEN_LOG", args, d)
    begun = collections.defaultdict(set)
    most = collections.Counter()
    finishing = set()   # a thread that only begins (a probe of the backend) hashes nothing
    for line in log.splitlines():
        what, tid, ctx = line.split()
        if what == "i":
            begun[tid].add(ctx)
        elif what == "e":
            begun[tid].discard(ctx)
        else:
            begun[tid].discard(ctx)
            finishing.add(tid)
        most[tid] = max(most[tid], len(begun[tid]))
    return max(most[tid] for tid in finishing), out


def batching_runs():
    code, _, err = run(["/dev/null"], env=dict(os.environ, KSUM_SIMD="avx2"))
    return code == 0 and err == ""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("take")
    big = [f"big{i}" for i in range(6)]
    small = [f"small{i}" for i in range(24)]
    for name in big:
        (d / name).write_bytes(os.urandom(3 << 20))
    for i, name in enumerate(small):
        (d / name).write_bytes(os.urandom(100 + 300 * i))
    return d, big, small


def test_a_worker_with_a_long_k12_file_takes_no_other(open_shim, files):
    if not batching_runs():
        pytest.skip("this CPU has no AVX2: ksum does not batch")
    d, big, small = files
    most, out = most_in_flight(open_shim, d, ["--k12", "--threads", "2"] + big)
    assert most == 1
    (d / "big.k12").write_bytes(out)
    most, out = most_in_flight(open_shim, d, ["--k12", "--threads", "2", "-c", "big.k12"])
    assert most == 1 and out.count(b": OK\n") == len(big)
    # a long file first, short ones after it: they pair with one another
    most, _ = most_in_flight(open_shim, d, ["--k12", "--threads", "2"] + big[:1] + small)
    assert most > 1


def test_a_worker_alone_keeps_pairing_long_files(open_shim, files):
    """With one worker no other would take them sooner: as before the rule."""
    if not batching_runs():
        pytest.skip("this CPU has no AVX2: ksum does not batch")
    d, big, _ = files
    assert most_in_flight(open_shim, d, ["--k12", "--threads", "1"] + big)[0] > 1


def test_short_k12_files_and_long_sequential_ones_stay_paired(open_shim, files):
    if not batching_runs():
        pytest.skip("this CPU has no AVX2: ksum does not batch")
    d, big, small = files
    assert most_in_flight(open_shim, d, ["--k12", "--threads", "1"] + small)[0] > 1
    # SHA3 pairs every block: several long files in flight on one worker
    assert most_in_flight(open_shim, d, ["--sha3-256", "--threads", "1"] + big)[0] > 1
