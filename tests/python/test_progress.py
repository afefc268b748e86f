# SPDX-License-Identifier: Apache-2.0
"""--progress (issue 12, item 6), in a real terminal: ksum runs in a tmux
pane on a large file; the screen, read with capture-pane, shows the
progress line (file, bytes done of total, rate, time left) while it runs,
and only the checksum lines at the end.  Without a terminal on standard
error, --progress writes nothing.  Skipped when tmux is not installed."""
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time

import pytest

from conftest import KSUM, run

TMUX = shutil.which("tmux")
needs_tmux = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)")
SANITIZED = os.environ.get("KSUM_SANITIZED") == "1"
MiB = 1 << 20
# Sizes that take a few seconds to hash: the sanitized builds are slower.
BIG, HALF = (128 * MiB, 64 * MiB) if SANITIZED else (1024 * MiB, 512 * MiB)


def shown(size):
    """As the progress line writes a size."""
    return f"{size / 1024 ** 3:.2f} GiB" if size >= 1 << 30 else f"{size / MiB:.2f} MiB"


def socket_dir(socket):
    """A private directory for tmux's socket, $TMUX_TMPDIR/tmux-UID/SOCKET:
    tmux reads TMUX_TMPDIR, not TMPDIR, and falls back to /tmp, which may
    not be writable; the socket's path must fit in sun_path (108 bytes), so
    a long TMPDIR gives way to the next place."""
    tail = f"/tmux-{os.getuid()}/{socket}"
    for parent in (None, "/tmp", "/dev/shm", "/var/tmp"):
        try:
            d = tempfile.mkdtemp(prefix="ksum-", dir=parent)
        except OSError:
            continue
        if len(os.fsencode(d + tail)) < 108:
            return d
        os.rmdir(d)
    pytest.skip("no writable directory with a path short enough for tmux's socket")


@pytest.fixture
def pane(tmp_path):
    """Runs one command line in a detached tmux pane of its own server;
    yields (start, screen): start(cmd), screen() -> the pane's text."""
    socket = f"ksum-test-{os.getpid()}-{time.monotonic_ns()}"
    sockets = socket_dir(socket)
    env = dict(os.environ, TERM="xterm", TMUX_TMPDIR=sockets)

    def tmux(*args, **kw):
        return subprocess.run([TMUX, "-L", socket] + list(args), env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              check=True, timeout=30, **kw)

    def start(cmd, width=150):
        tmux("new-session", "-d", "-x", str(width), "-y", "30", "-c", str(tmp_path),
             f"{cmd}; echo EXIT=$?; sleep 600")

    def screen():
        # -J: a line the terminal wrapped is one line
        return tmux("capture-pane", "-p", "-J").stdout.decode("utf-8", "replace")

    yield start, screen
    subprocess.run([TMUX, "-L", socket, "kill-server"], env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shutil.rmtree(sockets, ignore_errors=True)


def sparse(path, size):
    with open(path, "wb") as f:
        f.write(b"start")
        f.truncate(size)


def wait_for(screen, pattern, timeout):
    end = time.time() + timeout
    while time.time() < end:
        text = screen()
        if re.search(pattern, text, re.M):
            return text
        time.sleep(0.05)
    raise AssertionError(f"{pattern!r} never appeared; screen:\n{screen()}")


@needs_tmux
def test_progress_line_appears_and_is_gone_at_the_end(tmp_path, pane):
    start, screen = pane
    sparse(tmp_path / "big", BIG)
    (tmp_path / "small").write_bytes(b"abc")
    args = ["--sha3-512", "big", "small"]
    start(" ".join([shlex.quote(KSUM), "--progress"] + args))
    seen = wait_for(screen, r"^big: [0-9.]+ [KMG]?i?B of " + re.escape(shown(BIG)) + r" \(\d+%\), "
                    r"[0-9.]+ [KMG]?i?B/s, \d+:\d\d left\s*$", 120)
    assert "EXIT=" not in seen
    final = wait_for(screen, r"^EXIT=\d+", 600)
    want = run(args, cwd=tmp_path)[1].decode().splitlines()
    lines = [l.rstrip() for l in final.splitlines() if l.strip()]
    assert lines == want + ["EXIT=0"]


@needs_tmux
@pytest.mark.parametrize("width,name", [(40, "big"), (80, "\u6f22" * 60)])
def test_progress_line_never_wraps(tmp_path, pane, width, name):
    """A line wider than the terminal wraps, and each redraw then leaves
    its first rows behind: the numbers are cut on a narrow terminal, and a
    name of double-width characters (CJK) is cut by the columns it takes,
    not by its characters."""
    start, screen = pane
    sparse(tmp_path / "big", HALF)
    if name != "big":
        os.symlink("big", tmp_path / name)
    start(f"{shlex.quote(KSUM)} --progress --sha3-512 --threads 1 {shlex.quote(name)}", width)
    wait_for(screen, r"[0-9.]+ [KMG]?i?B", 120)
    final = wait_for(screen, r"^EXIT=\d+", 600)
    want = run(["--sha3-512", name], cwd=tmp_path)[1].decode().splitlines()
    assert [l.rstrip() for l in final.splitlines() if l.strip()] == want + ["EXIT=0"]


@needs_tmux
def test_progress_with_stdout_redirected(tmp_path, pane):
    """Standard output to a file: it holds only the checksum lines; the
    terminal (standard error) is left clean."""
    start, screen = pane
    (tmp_path / "T").mkdir()
    sparse(tmp_path / "T" / "big", HALF)
    start(f"{shlex.quote(KSUM)} --progress --sha3-512 -r T > out")
    wait_for(screen, r"T/big: .* of " + re.escape(shown(HALF)), 120)
    final = wait_for(screen, r"^EXIT=\d+", 600)
    assert [l for l in final.splitlines() if l.strip()] == ["EXIT=0"]
    assert (tmp_path / "out").read_bytes() == run(["--sha3-512", "-r", "T"], cwd=tmp_path)[1]


@needs_tmux
def test_messages_erase_the_progress_line(tmp_path, pane):
    """An error printed while the line is shown starts on a clean line; a
    stream shows its bytes and rate."""
    start, screen = pane
    sparse(tmp_path / "big", HALF)
    start(f"cat big | {shlex.quote(KSUM)} --progress --sha3-512 --threads 1 big missing -")
    wait_for(screen, r"^-: [0-9.]+ [KMG]?i?B, [0-9.]+ [KMG]?i?B/s\s*$", 120)
    final = wait_for(screen, r"^EXIT=\d+", 600)
    lines = [l.rstrip() for l in final.splitlines() if l.strip()]
    want = run(["--sha3-512", "big"], cwd=tmp_path)[1].decode().splitlines()[0]
    assert lines == [want, "ksum: missing: No such file or directory",
                     want.replace("  big", "  -"), "EXIT=1"]


def test_no_terminal_no_progress(tmp_path):
    sparse(tmp_path / "big", 64 << 20)
    code, out, err = run(["--progress", "big", "-"], cwd=tmp_path, input=b"x")
    assert code == 0 and err == ""
    assert out == run(["big", "-"], cwd=tmp_path, input=b"x")[1]


def check_list(tmp_path, size):
    """A --sha3-512 list of a big file, a small one, a missing one and
    standard input (hashed by the printing thread, not a worker), and a
    line that fails."""
    sparse(tmp_path / "big", size)
    (tmp_path / "small").write_bytes(b"abc")
    sums = run(["--sha3-512", "big", "small"], cwd=tmp_path)[1].decode()
    bad = sums.splitlines()[1].replace("  small", "  missing")
    stdin_line = sums.splitlines()[0].replace("  big", "  -")
    (tmp_path / "L").write_text(sums + bad + "\n" + stdin_line + "\n" + "0" * 128 + "  small\n")
    return ["--sha3-512", "-c", "L"]


PROGRESS_OF = r"^{}: [0-9.]+ [KMG]?i?B of {} \(\d+%\), [0-9.]+ [KMG]?i?B/s, \d+:\d\d left\s*$"


@needs_tmux
def test_check_shows_progress_and_leaves_the_verdicts(tmp_path, pane):
    """-c --progress shows each listed file as it is hashed, a worker's
    file with its size and standard input with its bytes; at the end the
    terminal holds what -c alone prints, and the same exit status."""
    start, screen = pane
    args = check_list(tmp_path, HALF)
    start(f"cat big | {shlex.quote(KSUM)} --progress {' '.join(args)}")
    wait_for(screen, PROGRESS_OF.format("big", re.escape(shown(HALF))), 120)
    wait_for(screen, r"^-: [0-9.]+ [KMG]?i?B, [0-9.]+ [KMG]?i?B/s\s*$", 120)
    final = wait_for(screen, r"^EXIT=\d+", 600)
    code, out, err = run(args, cwd=tmp_path, input=(tmp_path / "big").read_bytes())
    lines = [l.rstrip() for l in final.splitlines() if l.strip()]
    # the terminal shows standard error's lines among standard output's:
    # compare each stream's lines in order
    assert [l for l in lines if l.startswith("ksum: ")] == err.splitlines()
    assert [l for l in lines if not l.startswith(("ksum: ", "EXIT="))] == \
        out.decode().splitlines()
    assert lines[-1] == f"EXIT={code}" and code == 1


@needs_tmux
def test_check_progress_with_stdout_redirected_and_status(tmp_path, pane):
    """Standard output to a file holds the same bytes as without --progress;
    --status shows no progress at all, and exits as without it."""
    start, screen = pane
    args = check_list(tmp_path, HALF)
    start(f"{shlex.quote(KSUM)} --progress {' '.join(args)} < /dev/null > out; "
          f"echo CODE=$?; {shlex.quote(KSUM)} --progress --status {' '.join(args)} < /dev/null")
    wait_for(screen, PROGRESS_OF.format("big", re.escape(shown(HALF))), 120)
    text = wait_for(screen, r"^CODE=\d+", 600)
    code, out, err = run(args, cwd=tmp_path, input=b"")
    assert (tmp_path / "out").read_bytes() == out
    assert f"CODE={code}" in text
    end = time.time() + 600
    while "EXIT=" not in (text := screen()) and time.time() < end:
        assert not re.search(r"big: .* of ", text), text
        time.sleep(0.05)
    lines = [l.rstrip() for l in text.splitlines() if l.strip()]
    assert lines == err.splitlines() + [
        f"CODE={code}", f"EXIT={run(['--status'] + args, cwd=tmp_path)[0]}"]


def test_check_without_a_terminal_no_progress(tmp_path):
    """Not a terminal: -c --progress prints byte for byte what -c prints."""
    args = check_list(tmp_path, 64 << 20)
    for extra in ([], ["--status"], ["--quiet"], ["-w"]):
        assert run(["--progress"] + extra + args, cwd=tmp_path, input=b"x") == \
            run(extra + args, cwd=tmp_path, input=b"x")
