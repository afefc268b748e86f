# SPDX-License-Identifier: Apache-2.0
"""Memory that runs out while files are hashed or checked on worker threads,
in batches or not, K12 or SHA-3, with -r: the fault shim fails the Nth
allocation ksum asks for (KSUM_FAULT_ALLOC) or that one and every later one
(KSUM_FAULT_ALLOC_FROM, as under a tight ulimit -v), for every N.  A run
succeeds with the right output and no message, or it says the failure once,
on one line of standard error (a worker thread writes none: one writer owns
it), prints only right lines before it and exits non-zero: an intact file
is never FAILED, nor FAILED open or read, for want of memory.  A line of a
list that memory cannot hold is skipped, said and counted, as documented
(checking goes on with the next line): those messages are its own."""
import concurrent.futures
import os
import re
import subprocess
import threading

import pytest

from conftest import BUILD, KSUM
from test_alloc_faults import lines_in_order

SHIM = os.path.join(BUILD, "tests", "fault_shim.so")
pytestmark = pytest.mark.skipif(os.environ.get("KSUM_SANITIZED") == "1" or
                                not os.path.exists(SHIM),
                                reason="the LD_PRELOAD shim cannot go before a sanitizer runtime")

SCENARIOS = {
    # name: (ksum arguments, environment)
    "check_batched": (["-c", "--threads", "2", "sums"], {}),
    "check_unbatched": (["-c", "--threads", "2", "sums"], {"KSUM_BATCH": "0"}),
    "check_status": (["-c", "--status", "--threads", "2", "sums"], {}),
    "check_k12": (["-c", "--k12", "--threads", "2", "ksums"], {}),
    "walk": (["-r", "--threads", "2", "tree"], {}),
    "walk_k12": (["-r", "--k12", "--threads", "2", "tree"], {}),
    # a directory tree's digest: its walk, its folding, and check mode's
    # tree line, hashed on the printing thread
    "tree": (["--tree", "--threads", "2", "--sha3-256", "--shake128", "tree"], {}),
    "check_tree": (["-c", "--tree", "--threads", "2", "treesums"], {}),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("memory")
    (d / "tree" / "sub" / "deeper").mkdir(parents=True)
    for i in range(10):
        (d / "tree" / f"f{i}").write_bytes(os.urandom(i * 23000 + i))
        (d / "tree" / "sub" / f"g{i}").write_bytes(os.urandom(i * 7))
        (d / "tree" / "sub" / "deeper" / f"h{i}").write_bytes(os.urandom(i))
    (d / "tree" / "big").write_bytes(os.urandom((1 << 20) + 7))
    plain = lambda args: subprocess.run([KSUM] + args, cwd=d, stdout=subprocess.PIPE,
                                        check=True, timeout=60).stdout
    (d / "sums").write_bytes(plain(["-r", "tree"]))
    (d / "ksums").write_bytes(plain(["--k12", "-r", "tree"]))
    (d / "treesums").write_bytes(plain(["--tree", "tree", "tree/sub"]))
    return d


def ksum(args, cwd, env):
    full_env = dict(os.environ, LD_PRELOAD=SHIM, KSUM_FAULT_ALLOC_SCOPE="ksum", **env)
    try:
        p = subprocess.run([KSUM] + args, cwd=cwd, env=full_env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
    except subprocess.TimeoutExpired:
        return None, b"", "hang (60 s)"
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


# A line of a list that memory cannot hold: skipped and said (and counted).
SKIPPED = re.compile(r"ksum: \w+: (\d+: line could not be read: Cannot allocate memory|"
                     r"WARNING: \w+: 1 line could not be read)")
# The start-up's trial of the options (front/resolve.c) blames them for a
# failed allocation, before any file is read: not the road this tests.
START_UP = "refuses the options given"


def verdict(args, code, out, err, want):
    """'' when the run is acceptable, else what is wrong with it."""
    if code is None:
        return err
    if code < 0:
        return f"killed by signal {-code}: {err.strip()[:300]}"
    if code == 0:
        return "" if (out, err) == (want, "") else f"exit 0, output {out == want}, {err[:300]!r}"
    if b"FAILED" in out or not lines_in_order(out, want):
        return f"exit {code}, wrong lines printed: {out[-300:]!r}"
    if not out and START_UP in err:
        return ""
    said = [x for x in err.splitlines() if not SKIPPED.fullmatch(x)]
    if not said and (err or "--status" in args):
        return ""
    if len(said) != 1 or not said[0].startswith("ksum: ") or err[-1:] != "\n":
        return f"exit {code}, not one message: {err[:400]!r}"
    return ""


def sweep(name, files, mode):
    args, env = SCENARIOS[name]
    count = files / f"count-{name}"
    code, want, err = ksum(args, files, dict(env, KSUM_FAULT_ALLOC_COUNT=str(count)))
    assert code == 0, err
    ns = range(1, int(count.read_text()) + 3)
    judge = lambda n: verdict(args, *ksum(args, files, dict(env, **{mode: str(n)})), want)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(judge, ns))
    bad = [f"N={n}: {r}" for n, r in zip(ns, results) if r]
    assert not bad, f"{len(bad)} of {len(ns)} runs:\n" + "\n".join(bad[:12])


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_memory_that_runs_out_is_said_once(name, files):
    sweep(name, files, "KSUM_FAULT_ALLOC_FROM")


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_one_failed_allocation_checks_no_file_wrongly(name, files):
    sweep(name, files, "KSUM_FAULT_ALLOC")


def test_a_directory_changing_while_memory_runs_out(tmp_path):
    """A directory that changes while it is read is an error of the tree,
    with its path copied for the message: when that copy fails, the error
    has no path, and its message once dereferenced it (SIGSEGV).  Files
    are made and removed in T/hot all along, while every allocation in
    turn fails."""
    hot = tmp_path / "T" / "hot"
    hot.mkdir(parents=True)
    for i in range(300):
        (hot / f"g{i}").write_bytes(b"")
    args = ["--tree", "--threads", "1", "T"]
    count = tmp_path / "count"
    assert ksum(args, tmp_path, {"KSUM_FAULT_ALLOC_COUNT": str(count)})[0] == 0
    stop = threading.Event()

    def churn():
        i = 0
        while not stop.is_set():
            p = hot / f"n{i % 5}"
            i += 1
            try:
                p.write_bytes(b"")
                p.unlink()
            except OSError:
                pass

    t = threading.Thread(target=churn)
    t.start()
    try:
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
            runs = list(pool.map(lambda n: ksum(args, tmp_path, {"KSUM_FAULT_ALLOC": str(n)}),
                                 range(1, int(count.read_text()) + 3)))
    finally:
        stop.set()
        t.join()
    # the tree changes: its errors are named, each on a line of its own
    bad = [f"N={n}: {code} {err[:200]!r}" for n, (code, out, err) in enumerate(runs, 1)
           if code is None or code < 0 or (code != 0 and not err.startswith("ksum: "))]
    assert not bad, "\n".join(bad[:12])
