"""``ludolab bench``: speed of each kernel against the pure-Python reference of
the same rules, measured in the same process.

Each record: ``kernel``, ``unit`` (what is counted), ``per_second`` (all
threads), ``threads``, ``per_second_1_thread``, ``reference_per_second`` (the
pure-Python twin, one thread) and ``ratio`` (one kernel thread against the
reference: the speed-up per core), plus ``ms_each`` for solvers.
"""

from __future__ import annotations

import sys
import time

import numba


def _time(fn, min_seconds: float = 0.0, max_reps: int = 1_000_000) -> tuple[float, int]:
    """Best-effort wall time per call: repeat until min_seconds; returns (seconds per call, reps)."""
    reps = 0
    t0 = time.perf_counter()
    while True:
        fn()
        reps += 1
        dt = time.perf_counter() - t0
        if dt >= min_seconds or reps >= max_reps:
            return dt / reps, reps


def _calibrate(run_n, seconds: float, n0: int) -> int:
    """How many items the reference should run to take about ``seconds``:
    time ``run_n(n0)`` once and scale."""
    t0 = time.perf_counter()
    run_n(n0)
    dt = max(time.perf_counter() - t0, 1e-6)
    return max(n0, int(n0 * seconds / dt))


def _with_threads(n, fn):
    old = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        return fn()
    finally:
        numba.set_num_threads(old)


def run_bench(games: int = 5_000_000, reference_seconds: float = 2.0, progress: bool = False) -> list[dict]:
    """Run every game's benchmark (:data:`BENCHES`) and return the records.

    Args:
        games: games for the Monte Carlo kernels; reference_seconds: rough time
            for each pure-Python reference run; progress: say what runs on stderr.
    """
    def say(msg):
        if progress:
            print(msg, file=sys.stderr, flush=True)

    rows = []
    for bench in BENCHES:
        rows += bench(games, reference_seconds, say)
    return rows


def box_bench(games: int, reference_seconds: float, say) -> list[dict]:
    """Shut the Box: Monte Carlo, exact DP (12 tiles), exact evaluation, multi-round matches."""
    from ludolab.sim import box, box_reference as ref
    from ludolab.sim.experiment import plan_run
    from ludolab.stdlib.box import BoxRules

    threads = numba.get_num_threads()
    rows = []
    r9 = BoxRules()
    r12 = BoxRules(tiles=tuple(range(1, 13)))
    pol = box.solve(r9).policy()

    # warm every kernel once (compilation or cache load is not timed)
    say("warming the kernels ...")
    box.simulate(pol, 1000, 1)
    box.evaluate(pol)
    box.simulate_rounds([pol, pol], 100, 1, rounds=3)
    box.solve(r12)

    # 1. Monte Carlo, one turn per game
    say(f"box.simulate: {games:,} games ...")
    t_all = _time(lambda: box.simulate(pol, games, 1))[0]
    t_one = _with_threads(1, lambda: _time(lambda: box.simulate(pol, games, 1))[0])
    n_ref = _calibrate(lambda n: ref.simulate(pol, *_plan_arrays(plan_run(n, 1, 8))), reference_seconds, 500)
    plan = plan_run(n_ref, 1, 8)
    say(f"reference simulate: {n_ref:,} games ...")
    t_ref = _time(lambda: ref.simulate(pol, plan.keys, plan.games))[0]
    rows.append(_record("box.simulate (9 tiles, optimal table)", "games", games / t_all, threads,
                        games / t_one, n_ref / t_ref))

    # 2. exact DP, 12 tiles
    say("box.solve: 12 tiles ...")
    t_all = _time(lambda: box.solve(r12, "expected-score"), 0.5)[0]
    t_one = _with_threads(1, lambda: _time(lambda: box.solve(r12, "expected-score"), 0.5)[0])
    term = r12.scores.astype(float).tolist()
    say("reference solve: 12 tiles ...")
    t_ref = _time(lambda: ref.solve_values(r12, term, -1, 0.0))[0]
    rec = _record("box.solve (12 tiles, expected score)", "solves", 1 / t_all, threads, 1 / t_one, 1 / t_ref)
    rec["ms_each"] = 1000 * t_one
    rows.append(rec)

    # 3. exact evaluation (forward pass), 9 tiles
    say("box.evaluate ...")
    t_one = _time(lambda: box.evaluate(pol), 0.5)[0]
    t_ref = _time(lambda: ref.evaluate_exact(pol, one=1.0), min(reference_seconds, 0.5))[0]
    rec = _record("box.evaluate (9 tiles, score distribution)", "evaluations", 1 / t_one, threads, 1 / t_one,
                  1 / t_ref)
    rec["ms_each"] = 1000 * t_one
    rows.append(rec)

    # 4. multi-round match, 2 players x 3 rounds
    n_match = max(10_000, games // 6)
    say(f"box.simulate_rounds: {n_match:,} matches ...")
    t_all = _time(lambda: box.simulate_rounds([pol, pol], n_match, 1, rounds=3))[0]
    t_one = _with_threads(1, lambda: _time(lambda: box.simulate_rounds([pol, pol], n_match, 1, rounds=3))[0])
    from ludolab.sim.rng import py_game_state

    def ref_match(n_ref):
        for g in range(n_ref):
            st = py_game_state(12345, g)
            tot = [0, 0]
            for _ in range(3):
                for p in range(2):
                    s, st = ref.play_turn(r9, pol, st)
                    tot[p] += int(r9.scores[s])

    n_ref = _calibrate(ref_match, reference_seconds, 100)
    t_ref = _time(lambda: ref_match(n_ref))[0]
    rows.append(_record("box.simulate_rounds (2 players, 3 rounds)", "matches", n_match / t_all, threads,
                        n_match / t_one, n_ref / t_ref))
    return rows


def _plan_arrays(plan):
    return plan.keys, plan.games


#: One benchmark function per game, each returning its records.
BENCHES = [box_bench]


def _record(kernel, unit, per_second, threads, per_second_1, reference):
    return {"kernel": kernel, "unit": unit, "per_second": float(per_second), "threads": int(threads),
            "per_second_1_thread": float(per_second_1), "reference_per_second": float(reference),
            "ratio": float(per_second_1 / reference)}

