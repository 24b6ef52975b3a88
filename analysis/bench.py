"""``ludolab bench``: speed of each kernel against the pure-Python reference of
the same rules, measured in the same process.

Every registered game contributes ``bench(games, reference_seconds, say)`` in
its analysis module (:mod:`ludolab.stdlib.registry`).  Each record:
``game``, ``kernel``, ``unit`` (what is counted), ``per_second`` (all
threads), ``threads``, ``per_second_1_thread``, ``reference_per_second`` (the
pure-Python twin, one thread) and ``ratio`` (one kernel thread against the
reference: the speed-up per core), plus ``ms_each`` for solvers.
"""

from __future__ import annotations

import sys
import time

import numba

from ludolab.stdlib import registry


def time_call(fn, min_seconds: float = 0.0, max_reps: int = 1_000_000) -> float:
    """Wall time per call of ``fn()`` in seconds: repeated until ``min_seconds`` have passed."""
    reps = 0
    t0 = time.perf_counter()
    while True:
        fn()
        reps += 1
        dt = time.perf_counter() - t0
        if dt >= min_seconds or reps >= max_reps:
            return dt / reps


def calibrate(run_n, seconds: float, n0: int) -> int:
    """How many items ``run_n(n)`` should be given to take about ``seconds``:
    times ``run_n(n0)`` once and scales (at least ``n0``)."""
    t0 = time.perf_counter()
    run_n(n0)
    dt = max(time.perf_counter() - t0, 1e-6)
    return max(n0, int(n0 * seconds / dt))


def with_threads(n: int, fn):
    """``fn()`` run with ``n`` numba threads, the thread count restored afterwards."""
    old = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        return fn()
    finally:
        numba.set_num_threads(old)


def record(kernel: str, unit: str, per_second: float, threads: int, per_second_1: float,
           reference: float) -> dict:
    """One benchmark record (see the module docstring); ``ratio`` = per_second_1 / reference."""
    return {"kernel": kernel, "unit": unit, "per_second": float(per_second), "threads": int(threads),
            "per_second_1_thread": float(per_second_1), "reference_per_second": float(reference),
            "ratio": float(per_second_1 / reference)}


def run_bench(games: int = 5_000_000, reference_seconds: float = 2.0, progress: bool = False,
              game_ids=None) -> list[dict]:
    """Run the benchmarks of every registered game (or of ``game_ids``) and return the records.

    Args:
        games: games for the Monte Carlo kernels; reference_seconds: rough time
            for each pure-Python reference run; progress: say what runs on stderr.
        game_ids: registry ids to run (default: all).

    Raises:
        UnknownNameError: an id that is not registered.
    """
    def say(msg):
        if progress:
            print(msg, file=sys.stderr, flush=True)

    games_to_run = registry.GAMES if not game_ids else [registry.get(g) for g in game_ids]
    rows = []
    for g in games_to_run:
        for rec in g.load("analysis").bench(games, reference_seconds, say):
            rows.append({"game": g.id, **rec})
    return rows


def scaling_bench(seconds: float = 4.0, workers: int = 2, say=None, repeats: int = 3) -> list[dict]:
    """Scaling of a long Monte Carlo run (Shut the Box turns under the optimal policy, 64 chunks).

    Three timings of the same run (same seed, identical results checked): the local backend
    with 1 numba thread and with ``workers`` threads, and a Dask LocalCluster of ``workers``
    single-threaded worker processes (started and warmed before the clock starts).  The run
    is sized so one thread takes about ``seconds``; each setup is timed ``repeats`` times and
    the fastest counts (other load on the machine only ever slows a run down).

    Returns:
        Records ``setup``, ``seconds``, ``games``, ``games_per_second`` and, for the parallel
        setups, ``efficiency`` (speed-up over one thread divided by ``workers``) or
        ``vs_local`` (wall time against the local backend with as many threads).
    """
    import numpy as np

    from ludolab.sim import box as B
    from ludolab.sim.box_montecarlo import _sim_args
    from ludolab.sim.runner import RunSpec, execution, run, run_chunk
    from ludolab.stdlib.box import BoxRules

    say = say or (lambda m: None)
    rules = BoxRules()
    pol = B.make_policy(rules, "optimal")

    def spec(n):
        return RunSpec("box", "ludolab.sim.box_kernels:_simulate", (*_sim_args(rules), pol.move, pol.dice),
                       (rules.n_states,), "int64", n, 1, 64)

    def timed(fn):
        best, out = float("inf"), None
        for _ in range(max(1, int(repeats))):
            t0 = time.perf_counter()
            out = fn()
            best = min(best, time.perf_counter() - t0)
        return best, out

    games = with_threads(1, lambda: calibrate(lambda n: run(spec(n)), seconds, 200_000))
    s = spec(games)
    say(f"scaling: {games:,} games, 1 thread")
    t1, a1 = with_threads(1, lambda: timed(lambda: run(s)))
    n = max(1, min(int(workers), numba.config.NUMBA_NUM_THREADS))
    say(f"scaling: {n} threads")
    tn, an = with_threads(n, lambda: timed(lambda: run(s)))
    rows = [{"setup": "local, 1 thread", "seconds": t1, "games": games, "games_per_second": games / t1},
            {"setup": f"local, {n} threads", "seconds": tn, "games": games, "games_per_second": games / tn,
             "efficiency": (t1 / tn) / n}]
    try:
        import distributed
    except ImportError:  # pragma: no cover
        return rows
    say(f"scaling: Dask LocalCluster, {workers} workers")
    cluster = distributed.LocalCluster(n_workers=int(workers), threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=":0")
    client = distributed.Client(cluster)
    try:
        client.run(lambda: None)
        warm = spec(1000)
        client.gather([client.submit(run_chunk, warm, int(k), 10, pure=False) for k in range(int(workers) * 2)])
        with execution(client=client):
            tc, ac = timed(lambda: run(s))
    finally:
        client.close()
        cluster.close()
    if not (np.array_equal(a1, an) and np.array_equal(a1, ac)):  # pragma: no cover - a bug, not a timing
        raise AssertionError("the scaling runs gave different numbers")
    rows.append({"setup": f"dask LocalCluster, {workers} workers", "seconds": tc, "games": games,
                 "games_per_second": games / tc, "vs_local": tc / tn})
    return rows
