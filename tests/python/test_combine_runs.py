# SPDX-License-Identifier: Apache-2.0
"""--combine over records whose CV counts sit on every side of 2,048 (the
size the parser once handed on in runs) and of the last record's
customization CVs (beyond its range).  What could go wrong: a CV lost or
taken twice, the customization's CVs dropped, the head wrong, or a record
that turns out bad after many good CVs.  So: every order, with and
without a customization long enough to add chunks, KT128 and KT256, one
and two threads, files and standard input; and bad records whose fault
lies past their first 2,048 CVs."""
import os
import random

import pytest

from conftest import run

CHUNK = 8192
RUN = 2048
CHUNKS = 3 * RUN + 3     # a 48 MiB object: up to three runs in a record


def ok(args, input=None):
    code, out, err = run(args, input=input)
    assert code == 0 and err == "", (args, err)
    return out


def refused(args, input=None):
    code, out, err = run(args, input=input)
    assert code != 0 and out == b"", (args, out, err)
    return err


@pytest.fixture(scope="module")
def obj(tmp_path_factory):
    path = tmp_path_factory.mktemp("runs") / "obj"
    path.write_bytes(os.urandom(CHUNKS * CHUNK - 100))
    return path


def split(obj, alg, custom, cuts):
    """Records of the chunk ranges between cuts (0 < cut < CHUNKS)."""
    edges = [0, *cuts, CHUNKS]
    return [ok([alg, *custom, "--part-range", f"{a}:{b - a}", str(obj)])
            for a, b in zip(edges, edges[1:])]


# Record 0 has no CV for chunk 0, the others one per chunk: cuts at a run
# boundary, one before and one after it, for both kinds of record.
CUTS = [[RUN + 1], [RUN], [RUN + 2], [2 * RUN + 1, 2 * RUN + 2], [RUN - 1, 3 * RUN],
        [RUN + 1, 2 * RUN + 1, 3 * RUN + 1], [1, 2], [3 * RUN + 2]]


@pytest.mark.parametrize("alg,custom", [("--k12", ()), ("--k12", ("-C", "c" * 20000)),
                                        ("--kt256", ("-C", "x" * 9000))])
def test_records_on_every_side_of_a_run_boundary(tmp_path, obj, alg, custom):
    rng = random.Random(7)
    whole = ok([alg, *custom, str(obj)])
    for cuts in CUTS:
        records = split(obj, alg, custom, cuts)
        order = records[:]
        rng.shuffle(order)
        names = []
        for k, rec in enumerate(order):
            names.append(str(tmp_path / f"r{k}"))
            (tmp_path / f"r{k}").write_bytes(rec)
        for threads in ("1", "2"):
            assert ok([alg, *custom, "--threads", threads, "--combine", *names]) == whole, cuts
        # one file of them all, in order: the head's runs first
        (tmp_path / "all").write_bytes(b"".join(records))
        assert ok([alg, *custom, "--combine", str(tmp_path / "all")]) == whole, cuts
        # standard input: a pool once it is read, then the same runs
        assert ok([alg, *custom, "--combine"], input=b"".join(order)) == whole, cuts


def cv_line_numbers(record):
    return [i for i, line in enumerate(record.split(b"\n")) if line.startswith(b"cv ")]


def altered(record, line_no):
    lines = record.split(b"\n")
    cv = bytearray(lines[line_no])
    cv[3] = ord("A") if cv[3] != ord("A") else ord("B")   # still base64
    lines[line_no] = bytes(cv)
    return b"\n".join(lines)


@pytest.mark.parametrize("where", [RUN + 5, RUN + 1000, -1])
def test_a_record_bad_after_its_first_runs_is_refused(tmp_path, obj, where):
    # Its first runs (and the head, in the head record) are in the node
    # before the bad line or the check is read; nothing may be printed,
    # and the head the node copied must not be the freed one (ASan).
    records = split(obj, "--k12", (), [3 * RUN // 2])   # 3,071 and 3,075 CVs
    for victim in (0, 1):
        rec = records[victim]
        lines = cv_line_numbers(rec)
        bad = altered(rec, lines[where])
        trunc = rec[:rec.index(b"\n", len(rec) * 3 // 4) + 1]
        for broken, says in ((bad, "corrupted"), (trunc, "truncated")):
            good = records[1 - victim]
            (tmp_path / "bad").write_bytes(broken)
            (tmp_path / "good").write_bytes(good)
            for threads in ("1", "2"):
                for names in (["bad", "good"], ["good", "bad"]):
                    err = refused(["--k12", "--threads", threads, "--combine",
                                   *[str(tmp_path / n) for n in names]])
                    assert says in err and "bad: part record 1" in err, err
            # the two in one file (a truncated record then runs into the
            # next one's first line, where its 'cvs' line belongs)
            both = good + broken if victim == 1 else broken + good
            (tmp_path / "both").write_bytes(both)
            err = refused(["--k12", "--combine", str(tmp_path / "both")])
            assert f"both: part record {victim + 1}: " in err, err
            err = refused(["--k12", "--combine"], input=both)
            assert f"-: part record {victim + 1}: " in err, err
