"""Backends: the same seed gives bit-identical accumulators on the local backend (any
wave size, any thread count) and on a real Dask LocalCluster on loopback (worker
processes), including when a worker is killed mid-run (its chunks are retried
elsewhere and none is counted twice)."""

from __future__ import annotations

import os
import signal
import threading
import time

import numba
import numpy as np
import pytest

from ludolab.sim import box as B
from ludolab.sim.box_montecarlo import _sim_args, paired_args
from ludolab.sim.runner import Execution, RunSpec, execution, outcomes, run, run_chunk
from ludolab.stdlib.box import BoxRules
from ludolab.stdlib.errors import LudolabError

distributed = pytest.importorskip("distributed")


def box_spec(games=20_000, seed=5, chunks=12, policy="random"):
    rules = BoxRules()
    pol = B.make_policy(rules, policy)
    return RunSpec("box", "ludolab.sim.box_kernels:_simulate", (_sim_args(rules), pol.move, pol.dice),
                   (rules.n_states,), "int64", games, seed, chunks)


def paired_spec(games=6_000, seed=9, chunks=10):
    """A float accumulator (sums of products of scores): rounding would show any change of order."""
    rules = BoxRules()
    pols = [B.make_policy(rules, p) for p in ("random", "greedy-high")]
    return RunSpec("box", "ludolab.sim.box_kernels:_simulate_paired_t",
                   paired_args(rules, pols, rules.scores.astype(np.float64) + 0.1), (2, 3), "float64", games, seed,
                   chunks)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=":0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_run_chunk_is_the_local_chunk():
    """The unit of work of the cluster: one chunk's accumulator, bit for bit the local one."""
    spec = paired_spec()
    local = run(spec)
    plan = spec.plan()
    for j in (0, 3, plan.n_chunks - 1):
        assert np.array_equal(run_chunk(spec, int(plan.keys[j]), int(plan.games[j])), local[j])


@pytest.mark.parametrize("wave", [1, 3, 64])
def test_local_waves_do_not_change_a_result(tmp_path, wave):
    """Chunks run in waves (as with a run folder) give the accumulators of the run at once."""
    for spec in (box_spec(), paired_spec()):
        whole = run(spec)
        with execution(run_dir=tmp_path / f"{wave}-{spec.acc_dtype}", wave=wave):
            waved = run(spec, first_step=1)
        assert np.array_equal(whole, waved)


def test_local_cluster_gives_identical_results(client):
    """A 2-worker LocalCluster (processes, loopback): identical accumulators, chunk by chunk."""
    for spec in (box_spec(), paired_spec()):
        local = run(spec)
        old = numba.get_num_threads()
        try:
            numba.set_num_threads(1)
            one_thread = run(spec)
        finally:
            numba.set_num_threads(old)
        with execution(client=client) as sess:
            on_cluster = run(spec)
        assert sess.outcomes[-1].backend == "dask"
        assert np.array_equal(local, on_cluster)
        assert np.array_equal(local, one_thread)


def test_workers_option_starts_and_closes_a_local_cluster():
    spec = box_spec(games=2_000, chunks=4)
    with execution(workers=1) as sess:
        got = run(spec)
        assert sess._cluster is not None
    assert sess._cluster is None
    assert np.array_equal(got, run(spec))


def test_unreachable_scheduler_is_one_line():
    with pytest.raises(LudolabError, match="cannot reach the Dask scheduler"):
        with execution(scheduler="tcp://127.0.0.1:9"):
            run(box_spec(games=100, chunks=2))


def test_execution_settings_are_checked():
    with pytest.raises(LudolabError, match="backend"):
        Execution(backend="spark")
    with pytest.raises(LudolabError, match="precision"):
        Execution(precision=0)
    with pytest.raises(LudolabError, match="--run-dir"):
        Execution(resume=True)


def test_a_worker_killed_mid_run_loses_nothing_and_counts_nothing_twice():
    """Kill one of two workers while chunks run: they are retried on the other worker
    (and on the restarted one); the result equals the local backend's."""
    spec = box_spec(games=10_000_000, seed=21, chunks=16, policy="optimal")
    local = run(spec)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=":0")
    c = distributed.Client(cluster)
    try:
        c.submit(run_chunk, box_spec(games=10, chunks=2), 1, 5).result()  # workers warm
        victim = list(cluster.workers.values())[0]
        pid = victim.process.process.pid
        killed = {}

        def kill_soon():
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                done = sum(1 for ts in cluster.scheduler.tasks.values()
                           if ts.key.startswith("ludolab-chunk-") and ts.state == "memory")
                if done >= 2:
                    break
                time.sleep(0.02)
            os.kill(pid, signal.SIGKILL)
            killed["at"] = time.monotonic()

        t = threading.Thread(target=kill_soon)
        t.start()
        with execution(client=c):
            got = run(spec)
        ended = time.monotonic()
        t.join()
        assert killed and killed["at"] < ended, "the worker was not killed during the run"
        assert np.array_equal(got, local)
        assert got.sum() == spec.games
    finally:
        c.close()
        cluster.close()


def test_outcomes_record_the_backend(client):
    spec = box_spec(games=1_000, chunks=3)
    with execution(client=client):
        run(spec)
        o = outcomes()[-1]
    assert (o.backend, o.games, o.chunks, o.loaded_chunks) == ("dask", 1000, 3, 0)


def test_progress_bar_on_the_cluster(client, capsys):
    """The bar moves per finished chunk on the cluster too, and the numbers do not change."""
    spec = box_spec(games=4_000, chunks=6)
    with execution(client=client):
        got = run(spec, progress=True)
    err = capsys.readouterr().err
    assert "4.00k/4.00k" in err or "4000/4000" in err
    assert np.array_equal(got, run(spec))


def test_ctrl_c_stops_a_cluster_run():
    """Ctrl-C during a run on a LocalCluster: exit code 130, "Aborted.", the cluster closed."""
    import subprocess
    import sys

    code = ("from ludolab.analysis.cli import main\n"
            "if __name__ == '__main__':\n"
            "    main(['box', 'simulate', '--games', '1000000000000', '--quiet', '--workers', '1'])\n")
    p = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(8)  # cluster start-up and the first tasks
    assert p.poll() is None, "the run ended before it was interrupted"
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert rc == 130 and "Aborted" in p.stderr.read()
    assert time.monotonic() - t0 < 30
