# SPDX-License-Identifier: Apache-2.0
"""How files are dealt to the workers (cli/run/concurrent.c, may_take): in
the first deal, until a file is finished, the k-th file goes to worker k
mod workers, so that files next to each other in the arguments (alike in
size, and in what copying them costs) go to the workers in turns, not in a
run to whichever started first; whatever the deal, the lines come in
argument order, the digests exact, a file that changes is refused."""
import collections
import hashlib
import os

import pytest

from conftest import BUILD, build_shim, run, run_logged

SANITIZED = os.environ.get("KSUM_SANITIZED") == "1"
FAULT_SHIM = os.path.join(BUILD, "tests", "fault_shim.so")
MiB = 1 << 20

# One line per file opened ("o TID NAME") and per final ("f TID").
DEAL_LOG_SHIM = r"""
/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void note(const char *what, const char *name)
{
    char line[512];
    int n = snprintf(line, sizeof line, "%s %ld %s\n", what, (long)syscall(SYS_gettid), name);
    int fd = syscall(SYS_openat, AT_FDCWD, getenv("DEAL_LOG"), O_WRONLY | O_APPEND | O_CREAT, 0644);

    if (fd >= 0 && write(fd, line, (size_t)n) < 0)
        perror("shim");
    if (fd >= 0)
        close(fd);
}

#define REAL(name, type) ((type)dlsym(RTLD_NEXT, name))

int openat(int dirfd, const char *path, int flags, ...)
{
    va_list ap;
    mode_t mode;

    va_start(ap, flags);
    mode = (mode_t)va_arg(ap, int);
    va_end(ap);
    if (strncmp(path, "deal", 4) == 0)
        note("o", path);
    return REAL("openat", int (*)(int, const char *, int, ...))(dirfd, path, flags, mode);
}

/* A build with _FORTIFY_SOURCE (a release build) calls this one instead. */
int __openat_2(int dirfd, const char *path, int flags)
{
    if (strncmp(path, "deal", 4) == 0)
        note("o", path);
    return REAL("__openat_2", int (*)(int, const char *, int))(dirfd, path, flags);
}

int EVP_DigestFinal_ex(EVP_MD_CTX *ctx, unsigned char *out, unsigned int *len)
{
    note("f", "-");
    return REAL("EVP_DigestFinal_ex",
                int (*)(EVP_MD_CTX *, unsigned char *, unsigned int *))(ctx, out, len);
}
"""


@pytest.fixture(scope="module")
def deal_shim(tmp_path_factory):
    return build_shim(tmp_path_factory, "deallog", DEAL_LOG_SHIM)


def batching_runs():
    code, _, err = run(["/dev/null"], env=dict(os.environ, KSUM_SIMD="avx2"))
    return code == 0 and err == ""


@pytest.fixture(scope="module")
def equal(tmp_path_factory):
    d = tmp_path_factory.mktemp("deal")
    names = [f"deal{i:02d}" for i in range(16)]
    for name in names:
        (d / name).write_bytes(os.urandom(2 * MiB))
    return d, names


def first_deal(log, names):
    """The thread that took each file opened before the first final, by its
    place in the arguments (after a final the deal is over)."""
    took = {}
    for line in log.splitlines():
        what, tid, name = line.split()
        if what == "f":
            break
        took[names.index(name)] = tid
    # The shim must have seen the opens, or every test on the deal is empty.
    assert took, "the shim logged no open: does ksum open files another way?"
    return took


@pytest.mark.parametrize("threads", [2, 3, 4])
def test_the_first_deal_goes_in_turns(deal_shim, equal, threads):
    if not batching_runs():
        pytest.skip("this CPU has no AVX2: ksum does not batch, one file a worker")
    d, names = equal
    out, log = run_logged(deal_shim, "DEAL_LOG", ["--sha3-256", "--threads", str(threads)]
                          + names, d)
    assert out.decode().splitlines() == [
        f"{hashlib.sha3_256((d / n).read_bytes()).hexdigest()}  {n}" for n in names]
    # (a worker started late, the load on the machine, may find every file
    # taken once the deal is over: no more threads than asked, not as many)
    assert len(set(line.split()[1] for line in log.splitlines() if line[0] == "o")) <= threads
    # Before any file is finished, the files of one worker are those whose
    # places are alike modulo the workers (as many as the lanes let in).
    by_turn = collections.defaultdict(set)
    for k, tid in first_deal(log, names).items():
        by_turn[k % threads].add(tid)
    assert all(len(tids) == 1 for tids in by_turn.values()), by_turn
    assert len(set().union(*by_turn.values())) == len(by_turn), by_turn


def test_one_thread_takes_every_file(deal_shim, equal):
    if not batching_runs():
        pytest.skip("this CPU has no AVX2: ksum does not batch")
    d, names = equal
    _, log = run_logged(deal_shim, "DEAL_LOG", ["--sha3-256", "--threads", "1"] + names, d)
    assert len(set(line.split()[1] for line in log.splitlines() if line[0] == "o")) == 1


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    d = tmp_path_factory.mktemp("mixed")
    sizes = [3 * MiB, 0, 100, 2 * MiB + 1, 0, 0, 65536, 65535, 4 * MiB + 3, 1, 0, MiB,
             136, 135, 137, 0, 3 * MiB - 1]
    names = []
    for i, size in enumerate(sizes):
        name = f"m{i:02d}"
        (d / name).write_bytes(os.urandom(size))
        names.append(name)
    return d, names


@pytest.mark.parametrize("threads", ["1", "2", "3", "4"])
@pytest.mark.parametrize("alg,py", [("--sha3-256", hashlib.sha3_256),
                                    ("--sha3-512", hashlib.sha3_512)])
def test_mixed_sizes_and_empty_files_in_argument_order(mixed, threads, alg, py):
    d, names = mixed
    want = [f"{py((d / n).read_bytes()).hexdigest()}  {n}" for n in names]
    code, out, err = run([alg, "--threads", threads] + names, cwd=d)
    assert (code, err) == (0, "")
    assert out.decode().splitlines() == want
    # check mode takes the same road
    (d / "sums").write_text("".join(line + "\n" for line in want))
    code, out, err = run([alg, "--threads", threads, "-c", "sums"], cwd=d)
    assert (code, err) == (0, "")
    assert out.decode() == "".join(f"{n}: OK\n" for n in names)


@pytest.mark.skipif(SANITIZED or not os.path.exists(FAULT_SHIM),
                    reason="the LD_PRELOAD shim cannot go before a sanitizer runtime")
@pytest.mark.parametrize("threads", ["1", "2", "3", "4"])
@pytest.mark.parametrize("check", [False, True])
def test_a_file_shrinking_among_dealt_files(mixed, threads, check):
    d, names = mixed
    (d / "bad").write_bytes(os.urandom(3 * MiB + 5))
    chosen = names[:5] + ["bad"] + names[5:]
    want = [f"{hashlib.sha3_256((d / n).read_bytes()).hexdigest()}  {n}" for n in names]
    (d / "sums").write_text("".join(line + "\n" for line in want[:5])
                            + f"{hashlib.sha3_256((d / 'bad').read_bytes()).hexdigest()}  bad\n"
                            + "".join(line + "\n" for line in want[5:]))
    env = dict(os.environ, LD_PRELOAD=FAULT_SHIM, KSUM_FAULT_MODE="truncate",
               KSUM_FAULT_AFTER=str(MiB + 7), KSUM_FAULT_PATH=str(d / "bad"))
    try:
        operands = ["-c", "sums"] if check else chosen
        code, out, err = run(["--sha3-256", "--threads", threads] + operands, cwd=d, env=env)
    finally:
        os.unlink(d / "bad")
    assert code == 1
    if check:
        assert out.decode() == "".join(f"{n}: OK\n" for n in names[:5]) + \
            "bad: FAILED open or read\n" + "".join(f"{n}: OK\n" for n in names[5:])
        assert err.splitlines() == ["ksum: bad: file changed while it was read",
                                    "ksum: WARNING: sums: 1 listed file could not be read"]
    else:
        assert err == "ksum: bad: file changed while it was read\n"
        assert out.decode().splitlines() == want
