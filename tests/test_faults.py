"""The fault matrix, on small sizes: interrupt and resume, concurrent writers, a full disk, a
read-only disk and a scheduler that is not there.  Each run loses nothing, mixes nothing and
ends a failure in one line with exit code 2.

Marked ``slow`` (left out by ``-m "not slow"``).  The disk faults use a small tmpfs and a
read-only bind mount (root only; skipped with a message where mounting is not permitted),
unmounted after the test.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest

pytestmark = pytest.mark.slow

RUN = ["box", "simulate", "--policy", "optimal", "--chunks", "32", "--format", "json", "--quiet"]


def cli(*args, timeout=170, prelude=""):
    code = f"{prelude}from ludolab.analysis.cli import main; main({list(args)!r})"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)


def one_line(res) -> str:
    assert res.returncode == 2, (res.returncode, res.stderr)
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:"), res.stderr
    return lines[0]


def _numbers(out: str) -> dict:
    return {k: v for k, v in json.loads(out).items() if k != "rules"}


@contextmanager
def mounted(path: Path, *opts):
    """``mount`` at ``path`` for the block, unmounted after; skips the test where not permitted."""
    path.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", *opts, str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount here ({r.stderr.strip() or 'mount failed'}): needs root in a sandbox")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def _files(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------ interrupt and resume
def test_ctrl_c_then_resume_gives_the_uninterrupted_result(tmp_path):
    """SIGINT to a child in its own session (SIGINT restored to its default, as a background job
    of a non-interactive shell starts with it ignored): exit 130 at once, the kept chunks whole;
    --resume ends with exactly the numbers of a run never interrupted."""
    games = "40000000"
    run_dir = tmp_path / "run"
    code = f"from ludolab.analysis.cli import main; main({RUN + ['--games', games, '--run-dir', str(run_dir)]!r})"
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    chunks = run_dir / "run-000"
    try:
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline and p.poll() is None:
            if chunks.exists() and len(list(chunks.glob("chunk-*.parquet"))) >= 2:
                break
            time.sleep(0.05)
        assert p.poll() is None, "the run ended before it was interrupted"
        os.killpg(p.pid, signal.SIGINT)
        rc = p.wait(timeout=30)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert rc == 130 and "Aborted" in p.stderr.read()
    assert 2 <= len(list(chunks.glob("chunk-*.parquet"))) < 32
    resumed = cli(*RUN, "--games", games, "--run-dir", str(run_dir), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    whole = cli(*RUN, "--games", games)
    assert _numbers(resumed.stdout) == _numbers(whole.stdout)


def test_resume_of_an_empty_run_folder_says_it_starts_fresh(tmp_path):
    (tmp_path / "rd").mkdir()
    res = cli("box", "simulate", "--games", "2000", "--quiet", "--run-dir", str(tmp_path / "rd"), "--resume")
    assert res.returncode == 0, res.stderr
    assert "holds no run yet" in res.stderr and "starting" in res.stderr


# ------------------------------------------------------------------ concurrent writers
def test_concurrent_writers_never_mix_one_folder(tmp_path):
    """Two ``box simulate --out SAME`` at once, three times: both finish (one waits for the
    other), and the folder always holds one run's files, the table and its sidecar agreeing."""
    out = tmp_path / "same"
    for _ in range(3):
        procs = []
        for seed in ("7", "8"):
            code = ("from ludolab.analysis.cli import main; "
                    f"main({['box', 'simulate', '--games', '3000', '--chunks', '4', '--seed', seed, '--quiet', '--out', str(out)]!r})")
            procs.append(subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True))
        for p in procs:
            assert p.wait(timeout=170) == 0, p.stderr.read()
        man = json.loads((out / ".ludolab-manifest.json").read_text())
        assert man["pending"] == {} and len({e["run"] for e in man["files"].values()}) == 1
        table = pd.read_csv(out / "simulate_summary.csv")
        side = json.loads((out / "simulate_summary.meta.json").read_text())
        assert int(table.loc[0, "seed"]) == side["seed"]
        assert not list(out.glob(".ludolab-stage-*"))


# ------------------------------------------------------------------ full and read-only disks
def test_a_full_disk_keeps_the_earlier_files_whole(tmp_path):
    with mounted(tmp_path / "small", "-t", "tmpfs", "-o", "size=2m", "tmpfs") as disk:
        out = disk / "out"
        first = cli("box", "simulate", "--games", "2000", "--chunks", "4", "--quiet", "--out", str(out))
        assert first.returncode == 0, first.stderr
        before = _files(out)
        filler = disk / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)  # fill the disk, then leave about 8 KiB free
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError:
            pass
        finally:
            os.close(fd)
        os.truncate(filler, filler.stat().st_size - 8192)
        res = cli("box", "simulate", "--games", "2000", "--chunks", "4", "--seed", "8", "--quiet", "--out", str(out))
        assert "no space left on the device" in one_line(res)
        assert _files(out) == before  # the earlier run whole: no table of one run beside a chart of another


def test_a_full_disk_during_a_run_folder_is_one_line(tmp_path):
    with mounted(tmp_path / "small", "-t", "tmpfs", "-o", "size=64k", "tmpfs") as disk:
        (disk / "filler").write_bytes(b"\0" * (60 * 1024))
        res = cli(*RUN, "--games", "20000", "--run-dir", str(disk / "rd"))
        line = one_line(res)
        assert "run folder" in line and "No space left" in line


def test_a_read_only_disk_is_one_line(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "report.md").write_text("kept")
    ro = tmp_path / "ro"
    with mounted(ro, "--bind", str(src)):
        r = subprocess.run(["mount", "-o", "remount,ro,bind", str(ro)], capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip(f"cannot remount read-only: {r.stderr.strip()}")
        res = cli("box", "solve", "--tiles", "4", "--out", str(ro / "out"))
        assert "read-only" in one_line(res)
        res = cli("report", "--quick", "--quiet", "--out", str(ro))
        assert "read-only" in one_line(res)
    assert (src / "report.md").read_text() == "kept"


# ------------------------------------------------------------------ a scheduler that is not there
def test_a_dead_scheduler_is_one_line_before_any_work(tmp_path):
    pytest.importorskip("distributed")
    t0 = time.monotonic()
    res = cli("box", "simulate", "--games", "2000", "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path / "o"))
    line = one_line(res)
    assert "scheduler" in line and "tcp://127.0.0.1:9" in line
    assert time.monotonic() - t0 < 60
    assert not (tmp_path / "o").exists()
    res = cli("report", "--quick", "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path / "r"))
    line = one_line(res)
    assert "scheduler" in line and not (tmp_path / "r").exists()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dask(*args):
    exe = Path(sys.executable).with_name("dask")
    if not exe.exists():
        pytest.skip("the dask command is not installed")
    return subprocess.Popen([str(exe), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def _stop(p):
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=30)


def _wait_port(port, seconds=60):
    import socket

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    pytest.skip("the Dask scheduler did not start")


def test_a_cluster_without_workers_ends_in_one_line_within_its_timeout():
    pytest.importorskip("distributed")
    WORKER_TIMEOUT = 4.0  # the runner's 30 s, shortened for the test

    port = _free_port()
    sched = _dask("scheduler", "--host", "127.0.0.1", "--port", str(port), "--dashboard-address", ":0")
    try:
        _wait_port(port)
        t0 = time.monotonic()
        res = cli("box", "simulate", "--games", "2000", "--quiet", "--scheduler", f"tcp://127.0.0.1:{port}",
                  prelude=f"import ludolab.sim.runner as r; r.WORKER_TIMEOUT = {WORKER_TIMEOUT}; ")
        line = one_line(res)
        assert "no workers" in line and f"{WORKER_TIMEOUT:g} s" in line
        assert time.monotonic() - t0 < WORKER_TIMEOUT + 60
    finally:
        _stop(sched)


def test_a_scheduler_killed_during_a_run_ends_in_one_line():
    pytest.importorskip("distributed")
    port = _free_port()
    sched = _dask("scheduler", "--host", "127.0.0.1", "--port", str(port), "--dashboard-address", ":0")
    worker = None
    try:
        _wait_port(port)
        worker = _dask("worker", f"tcp://127.0.0.1:{port}", "--nthreads", "1", "--no-nanny",
                       "--dashboard-address", ":0")
        code = ("from ludolab.analysis.cli import main; "
                f"main(['box', 'simulate', '--games', '3000000000', '--chunks', '64', '--quiet', "
                f"'--scheduler', 'tcp://127.0.0.1:{port}'])")
        p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, start_new_session=True)
        try:
            time.sleep(25)  # connected and computing
            assert p.poll() is None, p.stderr.read()
            _stop(sched)
            rc = p.wait(timeout=120)
            err = p.stderr.read()
        finally:
            _stop(p)
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert rc == 2 and len(lines) == 1 and lines[0].startswith("Error:"), err
        assert "scheduler" in lines[0] or "Dask" in lines[0]
    finally:
        _stop(sched)
        if worker is not None:
            _stop(worker)
