# SPDX-License-Identifier: Apache-2.0
"""The threads a file's context is given on the road (issue 21): a worker's
tree mode hashes on its own thread while other files wait or other workers
hash, but the last file, with every other worker idle, gets the threads
asked for (check mode's list of one large image above all: a review found
it hashed on one core)."""
import os

import pytest

from conftest import run


def threads_sent(init_log, d, args, ranges=None):
    """The "threads" each init was given, 0 when none; but the inits of a
    file read in ranges by the threads (cli/input/spread.c), which carry its
    length, go to ranges: each range's context hashes on its thread alone."""
    _, inits = init_log(args, d)
    if ranges is not None:
        ranges.extend(p for p in inits if "offset" in p)
    return [int(p.get("threads", "0")) for p in inits if "message-length" not in p]


@pytest.mark.parametrize("alg", ["--k12", "--kt256", "--parallelhash128"])
def test_check_mode_gives_a_big_tree_file_its_threads(init_log, tmp_path, alg):
    """`ksum -c` over the list of one large tree-mode file (the usual case:
    verifying a downloaded image) hashes it on the threads asked for, as
    `ksum --k12 FILE` does: a worker's context told threads=1 left the other
    cores idle."""
    (tmp_path / "big").write_bytes(os.urandom(16 << 20))
    code, listing, err = run([alg, "big"], cwd=tmp_path)
    assert code == 0, err
    (tmp_path / "list").write_bytes(listing)
    ranges = []
    hashing = threads_sent(init_log, tmp_path, [alg, "--threads", "2", "big"], ranges)
    checking = threads_sent(init_log, tmp_path, [alg, "--threads", "2", "-c", "list"], ranges)
    # four 4 MiB ranges, twice, each run after one empty range at the end,
    # which asks the provider for the span and head of the tree
    probes = [p for p in ranges if p["offset"] == p["message-length"]]
    assert len(ranges) == 10 and len(probes) == 2, ranges
    assert {p["threads"] for p in ranges} == {"1"}, ranges
    assert set(hashing) == {2}
    assert 1 not in checking, checking


def test_only_the_last_file_takes_every_thread(init_log, tmp_path):
    """Several large files on two workers: each on its worker's thread, but
    at most the last one, taken when the other worker was idle."""
    names = [f"f{i}" for i in range(4)]
    for n in names:
        (tmp_path / n).write_bytes(os.urandom(2 << 20))
    sent = threads_sent(init_log, tmp_path, ["--k12", "--threads", "2"] + names)
    # the options' trial and the backend's probe send 2; then one init a file
    files = sent[-len(names):]
    assert files.count(1) >= len(names) - 1 and set(files) <= {1, 2}, sent
