# SPDX-License-Identifier: Apache-2.0
"""The threads a file's context is given on the road (issue 21): a worker's
tree mode hashes on its own thread while other files wait or other workers
hash, but the last file, with every other worker idle, gets the threads
asked for (check mode's list of one large image above all: a review found
it hashed on one core)."""
import os

import pytest

from conftest import build_init_shim, run

THREADS_SHIM = r"""
/* SPDX-License-Identifier: Apache-2.0 */
/* Test shim: appends the "threads" parameter each init is given ("0" when
 * none) to the file $THREADS_LOG. */
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
    const OSSL_PARAM *p = params ? OSSL_PARAM_locate_const(params, "threads") : NULL;
    unsigned n = 0;
    char line[32];
    int fd = open(getenv("THREADS_LOG"), O_WRONLY | O_APPEND | O_CREAT, 0644);

    if (p != NULL)
        OSSL_PARAM_get_uint(p, &n);
    snprintf(line, sizeof line, "%u\n", n);
    if (fd >= 0 && write(fd, line, strlen(line)) < 0)
        perror("shim");
    if (fd >= 0)
        close(fd);
}

"""


@pytest.fixture(scope="module")
def threads_shim(tmp_path_factory):
    return build_init_shim(tmp_path_factory, "threadsshim", THREADS_SHIM)


def threads_sent(shim, d, args):
    log = d / "threads.log"
    if log.exists():
        log.unlink()
    code, out, err = run(args, cwd=d,
                         env=dict(os.environ, LD_PRELOAD=shim, THREADS_LOG=str(log)))
    assert code == 0, err
    return [int(x) for x in log.read_text().split()]


@pytest.mark.parametrize("alg", ["--k12", "--kt256", "--parallelhash128"])
def test_check_mode_gives_a_big_tree_file_its_threads(threads_shim, tmp_path, alg):
    """`ksum -c` over the list of one large tree-mode file (the usual case:
    verifying a downloaded image) hashes it on the threads asked for, as
    `ksum --k12 FILE` does and as check mode did before the road: a worker's
    context told threads=1 leaves the other cores idle (N cores: N times
    slower than hashing the same file)."""
    (tmp_path / "big").write_bytes(os.urandom(16 << 20))
    code, listing, err = run([alg, "big"], cwd=tmp_path)
    assert code == 0, err
    (tmp_path / "list").write_bytes(listing)
    hashing = threads_sent(threads_shim, tmp_path, [alg, "--threads", "2", "big"])
    checking = threads_sent(threads_shim, tmp_path, [alg, "--threads", "2", "-c", "list"])
    assert set(hashing) == {2}
    # the file's own init: every one after the options' trials
    assert 1 not in checking, checking


def test_only_the_last_file_takes_every_thread(threads_shim, tmp_path):
    """Several large files on two workers: each on its worker's thread, but
    at most the last one, taken when the other worker was idle."""
    names = [f"f{i}" for i in range(4)]
    for n in names:
        (tmp_path / n).write_bytes(os.urandom(2 << 20))
    sent = threads_sent(threads_shim, tmp_path, ["--k12", "--threads", "2"] + names)
    # the options' trial and the backend's probe send 2; then one init a file
    files = sent[-len(names):]
    assert files.count(1) >= len(names) - 1 and set(files) <= {1, 2}, sent
