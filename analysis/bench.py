"""``ludolab bench``: speed of each kernel against the pure-Python reference of
the same rules, measured in the same process.

Every registered game contributes ``bench(games, reference_seconds, say)`` in
its analysis module (:mod:`ludolab.stdlib.registry`).  Each record:
``game``, ``kernel``, ``unit`` (what is counted), ``per_second`` (all
threads), ``threads``, ``per_second_1_thread``, ``reference_per_second`` (the
pure-Python twin, one thread) and ``ratio`` (one kernel thread against the
reference: the speed-up per core), plus ``ms_each`` for solvers.

Every rate is timed by :func:`time_call`: one warm-up call, then a repeat of at least 1 s of
work (``scale`` x 1 s: :func:`bench_scale`).  :func:`run_bench` goes over the whole bench in
:data:`PASSES` passes (``ludolab bench --passes``), one repeat of every timing a pass, so the
repeats of one record lie minutes apart (:func:`merge_passes`).  A rate is its fastest repeat,
with ``<rate>_median`` and ``<rate>_min`` (the slowest) beside it: a shared machine only ever
slows a repeat down, in spells of seconds to tens of seconds, so the fastest of five repeats
minutes apart is the figure that reproduces from run to run.  Each game's first pass runs in a
child process (:func:`_game_pass_apart`), where a fresh machine compiles that game's kernels.  A
kernel's one-thread rate and its twin's are timed by :func:`time_pair`, in turn, and ``ratio`` is
the median of the repeat-by-repeat ratios
(``ratio_min``, ``ratio_max``: their range): each pair saw the same state of the machine.
Every kernel timing repeats the same work in every pass and every run (its workload never
depends on how fast the machine is); a pure-Python twin's repeat plays items of a fixed stream
until its time is up.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from contextlib import contextmanager

import numba

from ludolab.stdlib import registry


#: Seconds of work each repeat of a timing lasts at least (``ludolab bench --scale`` multiplies it).
MIN_SECONDS = 1.0
#: Repeats of a timing outside :func:`run_bench` (which takes one a pass, over :data:`PASSES`).
REPEATS = 3
#: Passes of :func:`run_bench` over the whole bench, one repeat of every timing each.
PASSES = 5
_SETTINGS = {"scale": 1.0, "repeats": REPEATS}


#: glibc ``mallopt`` parameters and the values :func:`steady_allocator` gives them: every block up to
#: 32 MB (glibc's largest threshold) comes from the heap, and freed heap memory stays with the process.
_MALLOPT = {"M_TRIM_THRESHOLD": (-1, 1 << 30), "M_MMAP_THRESHOLD": (-3, 1 << 25)}


def steady_allocator() -> bool:
    """Hold the C allocator (glibc's malloc, which numpy and the kernels' arrays use) to one behaviour
    for the rest of the process, so that a kernel that allocates its work arrays per call is timed
    alike in every process of a bench: big blocks come from the heap and freed memory is kept for
    the next call.  By default glibc maps each big block afresh from the system (a foresight solve
    of 9 tiles met about 660 page faults a call) and moves its threshold as the process frees
    memory, so the time of the same call depends on what the process did before.

    Returns:
        True where glibc took both settings; False elsewhere (another C library or system), which
        leaves the allocator as it was.
    Raises:
        nothing."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return all(mallopt(param, value) == 1 for param, value in _MALLOPT.values())


@contextmanager
def bench_scale(scale: float):
    """Within the block, every :func:`time_call` times ``scale`` x :data:`MIN_SECONDS` of work a
    repeat (the bench's own tests use a small scale to stay short).

    Raises:
        ValueError: a scale that is not a positive finite number."""
    scale = float(scale)
    if not (scale > 0 and math.isfinite(scale)):
        raise ValueError(f"scale must be a positive number, not {scale!r}")
    old = _SETTINGS["scale"]
    _SETTINGS["scale"] = scale
    try:
        yield
    finally:
        _SETTINGS["scale"] = old


@contextmanager
def bench_repeats(repeats: int):
    """Within the block, :func:`time_call` and :func:`time_pair` take ``repeats`` repeats unless
    told otherwise (:func:`run_bench` takes one a pass).

    Raises:
        ValueError: fewer than one repeat."""
    if int(repeats) < 1:
        raise ValueError(f"repeats must be at least 1, not {repeats!r}")
    old = _SETTINGS["repeats"]
    _SETTINGS["repeats"] = int(repeats)
    try:
        yield
    finally:
        _SETTINGS["repeats"] = old


class Timing(float):
    """Seconds per call (the median of the repeats) carrying ``lo`` and ``hi`` (the fastest and
    slowest repeat).  ``n / t`` gives a :class:`Rate` with the same spread, so a bench entry's
    ``games / t`` keeps it; scaling by a number keeps it too.  ``each`` holds every repeat in
    the order run and ``pair`` a token shared with the other timing of a :func:`time_pair`
    (None for a timing on its own); both survive the same arithmetic."""

    def __new__(cls, median: float, lo: float, hi: float, each=(), pair=None):
        t = super().__new__(cls, median)
        t.lo, t.hi = float(lo), float(hi)
        t.each, t.pair = tuple(float(x) for x in each), pair
        return t

    def __rtruediv__(self, n):
        return Rate(n / float(self), n / self.hi, n / self.lo, tuple(n / x for x in self.each), self.pair)

    def __truediv__(self, k):
        return Timing(float(self) / k, self.lo / k, self.hi / k, tuple(x / k for x in self.each), self.pair)

    def __mul__(self, k):
        return Timing(float(self) * k, self.lo * k, self.hi * k, tuple(x * k for x in self.each), self.pair)

    __rmul__ = __mul__


class Rate(float):
    """Items per second (the median) carrying ``lo`` and ``hi``, the slowest and fastest repeat,
    and ``each`` and ``pair`` as :class:`Timing` does."""

    def __new__(cls, median: float, lo: float, hi: float, each=(), pair=None):
        r = super().__new__(cls, median)
        r.lo, r.hi = float(lo), float(hi)
        r.each, r.pair = tuple(float(x) for x in each), pair
        return r


def _repeat(fn, min_seconds: float, max_reps: int) -> float:
    """Seconds per call of ``fn()`` over one repeat: calls until ``min_seconds`` have passed."""
    reps = 0
    t0 = time.perf_counter()
    while True:
        fn()
        reps += 1
        dt = time.perf_counter() - t0
        if dt >= min_seconds or reps >= max_reps:
            return dt / reps


def time_call(fn, min_seconds: float | None = None, max_reps: int = 10_000_000, repeats: int | None = None) -> Timing:
    """Wall time per call of ``fn()`` in seconds, as a :class:`Timing` (median, lo, hi).

    One warm-up call first (compilation, cache loads, first-touch of memory are not timed),
    then ``repeats`` (default :data:`REPEATS`, or as set by :func:`bench_repeats`) repeats, each
    calling ``fn`` until at least ``min_seconds`` (default :data:`MIN_SECONDS` x the
    :func:`bench_scale`) have passed."""
    if min_seconds is None:
        min_seconds = MIN_SECONDS * _SETTINGS["scale"]
    fn()
    per = [_repeat(fn, min_seconds, max_reps) for _ in range(max(1, int(repeats or _SETTINGS["repeats"])))]
    return Timing(statistics.median(per), min(per), max(per), per)


def time_pair(kernel, reference, reference_seconds: float | None = None, threads: int | None = None,
              repeats: int | None = None) -> tuple[Timing, Timing]:
    """Wall time per call of a kernel and of its pure-Python twin, their repeats taken in turn
    (kernel, twin, kernel, twin, ...) so that both see the same state of a shared machine.

    Args:
        kernel, reference: the two calls to time (each warmed up once first).
        reference_seconds: the least time of each repeat of the twin (default: as the kernel's,
            :data:`MIN_SECONDS` x the :func:`bench_scale`).
        threads: the numba threads the kernel runs with (default: as set); the twin is pure Python.
        repeats: repeats of each (default :data:`REPEATS`, or as set by :func:`bench_repeats`).

    Returns:
        (kernel timing, twin timing): :class:`Timing` s sharing one ``pair`` token, so that
        :func:`record` takes the ratio repeat by repeat (its median, min and max)."""
    kernel_seconds = MIN_SECONDS * _SETTINGS["scale"]
    if reference_seconds is None:
        reference_seconds = kernel_seconds

    def run_kernel():
        return _repeat(kernel, kernel_seconds, 10_000_000)

    timed = run_kernel if threads is None else (lambda: with_threads(threads, run_kernel))
    if threads is None:
        kernel()
    else:
        with_threads(threads, kernel)
    reference()
    ks, rs = [], []
    for _ in range(max(1, int(repeats or _SETTINGS["repeats"]))):
        ks.append(timed())
        rs.append(_repeat(reference, reference_seconds, 10_000_000))
    token = object()
    return (Timing(statistics.median(ks), min(ks), max(ks), ks, token),
            Timing(statistics.median(rs), min(rs), max(rs), rs, token))


def calibrate(run_n, seconds: float, n0: int, warm: bool = False) -> int:
    """How many items ``run_n(n)`` should be given to take about ``seconds``: times
    ``run_n(n0)`` and scales (at least ``n0``).  ``warm``: call ``run_n(n0)`` once untimed
    first and take the faster of two timed probes, so compilation or a cache load does not
    shrink the run."""
    best = float("inf")
    if warm:
        run_n(n0)
    for _ in range(2 if warm else 1):
        t0 = time.perf_counter()
        run_n(n0)
        best = min(best, time.perf_counter() - t0)
    return max(n0, int(n0 * seconds / max(best, 1e-6)))


def with_threads(n: int, fn):
    """``fn()`` run with ``n`` numba threads, the thread count restored afterwards."""
    old = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        return fn()
    finally:
        numba.set_num_threads(old)


def paired_ratios(rate, reference) -> list[float] | None:
    """The repeat-by-repeat ratios of a rate and the reference timed in turn with it
    (:func:`time_pair`: one ``pair`` token, as many repeats), or None where they were not."""
    pair = getattr(rate, "pair", None)
    if pair is None or pair is not getattr(reference, "pair", None) or len(rate.each) != len(reference.each):
        return None
    return [a / b for a, b in zip(rate.each, reference.each)]


#: The rates of a record: each is its fastest repeat, with its median and slowest beside it.
RATES = ("per_second", "per_second_1_thread", "reference_per_second")


def record(kernel: str, unit: str, per_second: float, threads: int, per_second_1: float,
           reference: float, ratio_of=None) -> dict:
    """One benchmark record (see the module docstring).

    A rate (:data:`RATES`: ``per_second``, ``per_second_1_thread``, ``reference_per_second``) is
    its fastest repeat, with ``<rate>_median`` and ``<rate>_min`` (the slowest) beside it and
    ``<rate>_max`` equal to it: a shared machine only ever slows a repeat down, so the fastest is
    the figure that reproduces from run to run.  Where the one-thread rate and the reference were
    timed in turn (:func:`time_pair`), ``ratio`` is the median of the ratios repeat by repeat
    (:func:`paired_ratios`), and ``ratio_min`` / ``ratio_max`` their range (each pair saw the same
    state of the machine); otherwise the ratio of the medians, with the range from the slowest
    against the fastest.  ``ratio_of``: the one-thread rate the ratio is taken from where it is
    not ``per_second_1`` (the search rows: the kernel timed in turn with its twin on the twin's
    decisions)."""
    rec = {"kernel": kernel, "unit": unit, "threads": int(threads)}
    for key, r in zip(RATES, (per_second, per_second_1, reference)):
        rec[key] = float(getattr(r, "hi", r))
        rec[key + "_median"] = float(r)
        rec[key + "_min"] = float(getattr(r, "lo", r))
        rec[key + "_max"] = rec[key]
    rate = per_second_1 if ratio_of is None else ratio_of
    ratios = paired_ratios(rate, reference)
    if ratios is not None:
        rec["ratio"] = float(statistics.median(ratios))
        rec["ratio_min"], rec["ratio_max"] = float(min(ratios)), float(max(ratios))
    else:
        rec["ratio"] = float(rate / reference)
        rec["ratio_min"] = float(getattr(rate, "lo", rate)) / rec["reference_per_second_max"]
        rec["ratio_max"] = float(getattr(rate, "hi", rate)) / rec["reference_per_second_min"]
    return rec


def merge_passes(passes: list[list[dict]]) -> list[dict]:
    """One record per timing from the records of several passes over the same bench.

    Each pass holds the same records in the same order (``game`` and ``kernel`` equal), each
    from one repeat.  A rate (:data:`RATES`) becomes its fastest pass, with ``_median`` and
    ``_min`` (the slowest) over the passes and ``_max`` equal to it; ``ratio`` the median of the
    passes' ratios (each paired within its pass), with their range as ``ratio_min`` and
    ``ratio_max``; any other number (``ms_each``, ``seconds_each``, ...) is the fastest pass's,
    the pass with the fastest one-thread rate; the rest is the first pass's.

    Raises:
        ValueError: no pass, or passes whose records differ in number, order or name."""
    if not passes or not all(isinstance(p, list) and all(isinstance(r, dict) for r in p) for p in passes):
        raise ValueError("no pass to merge: give a list of passes, each a list of records")
    missing = {k for p in passes for r in p for k in ("kernel", "ratio", *RATES) if k not in r}
    if missing:
        raise ValueError(f"records without {', '.join(sorted(missing))}: not bench records")
    names = [[(r.get("game"), r["kernel"]) for r in p] for p in passes]
    if any(n != names[0] for n in names[1:]):
        raise ValueError("the passes timed different records")
    merged = []
    for recs in zip(*passes):
        fastest = max(recs, key=lambda r: r["per_second_1_thread"])
        out = {**recs[0], **{k: v for k, v in fastest.items() if isinstance(v, float)}}
        for key in RATES:
            vals = [float(r[key]) for r in recs]
            out[key] = out[key + "_max"] = max(vals)
            out[key + "_median"] = float(statistics.median(vals))
            out[key + "_min"] = min(vals)
        vals = [float(r["ratio"]) for r in recs]
        out["ratio"] = float(statistics.median(vals))
        out["ratio_min"], out["ratio_max"] = min(vals), max(vals)
        merged.append(out)
    return merged


def run_bench(games: int = 5_000_000, reference_seconds: float = 1.0, progress: bool = False,
              game_ids=None, scale: float = 1.0, passes: int = PASSES,
              first_pass_apart: bool = True) -> list[dict]:
    """Run the benchmarks of every registered game (or of ``game_ids``) and return the records.

    The whole bench is gone over ``passes`` times, every timing taking one repeat a pass (after
    its warm-up call), and the passes are merged by :func:`merge_passes`: a record's rates are
    the fastest of ``passes`` repeats taken minutes apart, with their median and slowest, and its
    ratio the median of the passes' paired ratios.

    Args:
        games: games for the Monte Carlo kernels; reference_seconds: rough time
            for each pure-Python reference run; progress: say what runs on stderr.
        game_ids: registry ids to run (default: all).
        scale: every timing repeat lasts at least ``scale`` x :data:`MIN_SECONDS` (1 s) of work
            after a warm-up call.
        passes: passes over the bench (default :data:`PASSES`), so repeats of every record.
        first_pass_apart: run each game's first pass in a child process of its own
            (:func:`_game_pass_apart`), so the compiles of a fresh machine never pile up in one
            process (False: every pass in this process).

    Raises:
        UnknownNameError: an id that is not registered.
        ValueError: a scale or reference time that is not positive, fewer than one game or pass.
    """
    say = _progress(progress)
    if isinstance(passes, bool) or not isinstance(passes, int) or passes < 1:
        raise ValueError(f"passes must be a whole number of at least 1, not {passes!r}")
    if not (isinstance(reference_seconds, (int, float)) and math.isfinite(reference_seconds) and reference_seconds > 0):
        raise ValueError(f"reference_seconds must be a positive number of seconds, not {reference_seconds!r}")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a whole number of at least 1, not {games!r}")
    if isinstance(game_ids, str):
        game_ids = [game_ids]
    games_to_run = registry.GAMES if not game_ids else [registry.get(g) for g in game_ids]
    steady_allocator()
    runs = []
    with bench_scale(scale), bench_repeats(1):
        for p in range(int(passes)):
            rows = []
            for g in games_to_run:
                say(f"pass {p + 1} of {int(passes)}: {g.id}")
                if p == 0 and first_pass_apart:
                    rows.extend(_game_pass_apart(g.id, games, reference_seconds, scale, progress))
                else:
                    rows.extend(game_pass(g.id, games, reference_seconds, say))
            runs.append(rows)
    return merge_passes(runs)


def _progress(progress: bool):
    """The ``say`` of a bench: each line on stderr when ``progress``, else nothing."""
    def say(msg):
        if progress:
            print(msg, file=sys.stderr, flush=True)
    return say


def game_pass(game_id: str, games: int, reference_seconds: float, say) -> list[dict]:
    """One pass over one game's timings (its ``bench`` and :func:`search_bench`), one repeat each
    as :func:`bench_repeats` sets: its records, each with ``game``."""
    bench = registry.get(game_id).load("analysis").bench
    return [{"game": game_id, **rec} for rec in [*bench(games, reference_seconds, say),
                                                 *search_bench(game_id, reference_seconds, say)]]


def _game_pass_apart(game_id: str, games: int, reference_seconds: float, scale: float,
                     progress: bool) -> list[dict]:
    """:func:`game_pass` in a child process: the first pass compiles or loads every kernel the game's
    timings use, and a compile's memory (numba keeps what it compiled) ends with the child, so a
    bench on a fresh machine holds one game's compiles at a time; later passes load the kernels from
    numba's cache.  The twin's decisions of its search row are kept for the later passes."""
    import json
    import subprocess

    args = json.dumps([game_id, games, reference_seconds, scale, progress])
    code = "import sys; from ludolab.analysis.bench import _game_pass_child; _game_pass_child(sys.argv[1])"
    done = subprocess.run([sys.executable, "-c", code, args], stdout=subprocess.PIPE, check=True, text=True)
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    for r in rows:
        if "reference_decisions" in r:
            _TWIN_DECISIONS[_twin_key(game_id, reference_seconds, r["decisions"])] = r["reference_decisions"]
    return rows


def _game_pass_child(args: str) -> None:
    """The child of :func:`_game_pass_apart`: one pass of one game, its records as one JSON line."""
    import json

    game_id, games, reference_seconds, scale, progress = json.loads(args)
    steady_allocator()
    with bench_scale(scale), bench_repeats(1):
        rows = game_pass(game_id, games, reference_seconds, _progress(progress))
    print(json.dumps(rows), flush=True)


#: Sampled worlds per searched decision in :func:`search_bench` (the same for the kernel and its twin).
SEARCH_WORLDS = 1
#: Decisions with more legal actions than this are left out of :func:`search_bench` (a Shut The
#: Books forecast has up to 6,885, each a whole playout per world).
SEARCH_MAX_ACTIONS = 64


def _decisions(step, case, n: int, seed: int = 1) -> list:
    """Up to ``n`` decisions ``(seat, obs, n_legal)`` spread over games of random legal actions
    (at most :data:`SEARCH_MAX_ACTIONS` legal actions each)."""
    import numpy as np

    from ludolab.sim.rng import game_state

    k = step.kernels
    rng = np.random.default_rng(seed)
    state = np.zeros(k.STATE_SIZE, dtype=np.int64)
    acts = np.zeros(k.MAX_ACTIONS, dtype=np.int64)
    out = []
    g = 0
    while len(out) < n and g < 50 * n:
        k.new_game(case.rules, np.uint64(game_state(np.uint64(seed), np.uint64(g))), state)
        g += 1
        steps = 0
        while k.current_player(state) >= 0 and len(out) < n:
            m = int(k.legal_actions(case.rules, state, acts))
            p = int(k.current_player(state))
            if 2 <= m <= SEARCH_MAX_ACTIONS and rng.random() < 0.2:
                obs = np.zeros(k.OBS_SIZE, dtype=np.int64)
                k.observe(case.rules, state, p, obs)
                out.append((p, obs, m))
            k.apply_action(case.rules, state, int(acts[rng.integers(m)]))
            steps += 1
    return out


#: How many of a game's bench decisions its pure-Python twin plays (the first that fill
#: ``reference_seconds``), found by the first pass (:func:`search_bench`, or handed back from its
#: child process by :func:`_game_pass_apart`) and kept for the later passes.
_TWIN_DECISIONS: dict = {}


def _twin_key(game_id: str, reference_seconds: float, decisions: int) -> tuple:
    """The key of :data:`_TWIN_DECISIONS`: the game, the reference time and the decisions timed."""
    return game_id, float(reference_seconds), int(decisions)


def search_bench(game_id: str, reference_seconds: float, say, decisions: int = 24) -> list[dict]:
    """The determinized search (perfect-information Monte Carlo, :func:`ludolab.sim.search.pimc`)
    of one game: the compiled ``search`` against its pure-Python twin (``py_pimc`` on the twin
    module), :data:`SEARCH_WORLDS` worlds each, the game's best heuristic in the playouts, the
    smallest table of the game's step cases, on ``decisions`` decisions drawn from random games
    with a fixed seed (:func:`_decisions`).

    The kernel's rates are timed on all of those decisions, the same work in every pass and every
    run, on one thread (one decision's search is serial, so the record's threads are 1).  The twin
    is slow, so it plays only the first of them: as many as fill ``reference_seconds`` (at least
    one), counted by the first pass and kept for the later ones; the ratio pairs it with the kernel
    on those same decisions, their repeats in turn (:func:`time_pair`), so it compares equal work.
    Where the twin plays all of them, that paired timing is the kernel's rate as well.

    Returns:
        One record (:func:`record`) counting sampled-world playouts (a legal action played out in
        one world), with ``ms_each`` the milliseconds per searched decision (one thread),
        ``decisions_per_second_1_thread``, ``decisions`` (those timed) and
        ``reference_decisions`` (those the twin played, on which the ratio is taken).
    """
    import numpy as np

    from ludolab.sim import search

    step = registry.get(game_id).entry("step_game")()
    k, twin = step.kernels, step.twin
    case = min(step.cases, key=lambda c: c.n_players)
    rollout = [step.policies[step.extra["best"]]] * case.n_players
    dec = _decisions(step, case, decisions)
    max_steps = int(step.max_steps(case.rules))
    truth = np.zeros(k.STATE_SIZE, dtype=np.int64)

    def inputs(seat, obs, key):
        cfg, params = search.config(k, seat, SEARCH_WORLDS, case.n_players, step.lower_wins, key, rollout, max_steps)
        return cfg, params, obs, truth

    prepared = [inputs(p, obs, 1000 + i) for i, (p, obs, _) in enumerate(dec)]
    tw = search.work_arrays(k, case.n_players)
    cached = _twin_key(game_id, reference_seconds, len(dec))
    if cached not in _TWIN_DECISIONS:
        say(f"{game_id} search reference: decisions for {reference_seconds:g} s ...")
        used, t0 = 0, time.perf_counter()
        while used < len(prepared) and (used == 0 or time.perf_counter() - t0 < reference_seconds):
            search.py_pimc(twin, case.rules, prepared[used], tw)
            used += 1
        _TWIN_DECISIONS[cached] = used
    used = _TWIN_DECISIONS[cached]
    work = search.work_arrays(k, case.n_players)

    def kernel(upto):
        def run():
            for inp in prepared[:upto]:
                k.search(case.rules, inp, work)
        return run

    def reference():
        for inp in prepared[:used]:
            search.py_pimc(twin, case.rules, inp, tw)

    playouts = SEARCH_WORLDS * sum(m for _, _, m in dec)
    twin_playouts = SEARCH_WORLDS * sum(m for _, _, m in dec[:used])
    say(f"{game_id} search against its twin: {used} decision{'s' if used != 1 else ''} ...")
    t_pair, t_ref = time_pair(kernel(used), reference, reference_seconds, threads=1)
    t_one = t_pair  # one decision's search is serial: one thread
    if used < len(dec):
        say(f"{game_id} search: {len(dec)} decisions, {SEARCH_WORLDS} world each ...")
        t_one = with_threads(1, lambda: time_call(kernel(len(dec))))
    seats = f"{case.n_players} player" + ("s" if case.n_players > 1 else "")
    label = (f"{game_id}.search (PIMC, {seats}, {SEARCH_WORLDS} world, "
             f"{step.extra['best']} playouts)")
    rec = record(label, "playouts", playouts / t_one, 1, playouts / t_one, twin_playouts / t_ref,
                 ratio_of=twin_playouts / t_pair)
    rec["ms_each"] = 1000.0 * float(t_one) / len(dec)
    rec["decisions_per_second_1_thread"] = len(dec) / float(t_one)
    rec["decisions"], rec["reference_decisions"] = len(dec), int(used)
    return [rec]


def scaling_bench(seconds: float = 4.0, workers: int = 2, say=None, repeats: int = 3) -> list[dict]:
    """Scaling of a long Monte Carlo run (Shut the Box turns under the optimal policy, 64 chunks,
    on the transition-table kernel that ``box simulate`` runs for it).

    Three timings of the same run (same seed, identical results checked): the local backend
    with 1 numba thread and with ``workers`` threads, and a Dask LocalCluster of ``workers``
    single-threaded worker processes (started and warmed before the clock starts).  The run
    is sized from a warmed probe of a million games so one thread takes about ``seconds``;
    each setup is timed ``repeats`` times and
    the fastest counts (other load on the machine only ever slows a run down).

    Returns:
        Records ``setup``, ``seconds``, ``games``, ``games_per_second`` and, for the parallel
        setups, ``efficiency`` (speed-up over one thread divided by ``workers``) or
        ``vs_local`` (wall time against the local backend with as many threads).
    """
    import numpy as np

    from ludolab.sim import box as B
    from ludolab.sim.box_montecarlo import transition_table
    from ludolab.sim.runner import RunSpec, execution, run, run_chunk
    from ludolab.stdlib.box import BoxRules

    say = say or (lambda m: None)
    rules = BoxRules()
    pol = B.make_policy(rules, "optimal")
    table = transition_table(pol)

    def spec(n):  # the kernel and arguments `box simulate` runs for a table policy
        return RunSpec("box", "ludolab.sim.box_kernels:_simulate_fast", (rules.full, *table),
                       (rules.n_states,), "int64", n, 1, 64)

    def timed(fn):
        best, out = float("inf"), None
        for _ in range(max(1, int(repeats))):
            t0 = time.perf_counter()
            out = fn()
            best = min(best, time.perf_counter() - t0)
        return best, out

    games = with_threads(1, lambda: calibrate(lambda n: run(spec(n)), seconds, 1_000_000, warm=True))
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


def _rate(x: float) -> str:
    """A rate with three significant figures and a thousands separator (12.3, 4,560, 78,900,000)."""
    if x >= 100:
        return f"{float(f'{x:.3g}'):,.0f}"
    return f"{x:.3g}"


def format_table(rows: list[dict]) -> str:
    """The bench records as a plain-text table: per kernel the one-thread and all-thread rates
    (the fastest repeat, [median, slowest]), the reference's rate (its fastest repeat) and the
    ratio (one kernel thread against the reference, the median of the paired repeats), and the
    time of one solve where a record has it."""
    head = ("game", "kernel", "unit", "1 thread fastest [median, slowest]", "threads",
            "all threads fastest [median, slowest]", "reference", "ratio", "each")
    body = []

    def spread(r, key):
        med = r.get(key + "_median", r[key])
        return f"{_rate(r[key])} [{_rate(med)}, {_rate(r[key + '_min'])}]"

    for r in rows:
        each = (f"{r['ms_each']:.3f} ms" if r.get("ms_each") == r.get("ms_each") and "ms_each" in r else
                f"{r['seconds_each']:.3f} s" if "seconds_each" in r else "")
        body.append((r["game"], r["kernel"], r["unit"], spread(r, "per_second_1_thread"), str(r["threads"]),
                     spread(r, "per_second"), _rate(r["reference_per_second"]), f"{r['ratio']:,.1f}", each))
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    left = {0, 1, 2}

    def line(cells):
        return "  ".join(c.ljust(w) if i in left else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return "\n".join([line(head), *(line(b) for b in body)])



#: Commands answered at the table, timed warm by :func:`startup_bench` (argv after ``ludolab``).
STARTUP_COMMANDS = (
    ("box", "advise", "--open", "1,2,3,4,5,6,7,8,9", "--roll", "8"),
    ("box", "solve"),
    ("shelf", "score", "{shelf_example}"),
    ("books", "advise", "--players", "4", "--hand", "R15 R9 B10 B3 B7 Y1 Y5 Y12 P2 P4 P8 P11 P13 R2 B14",
     "--position", "3", "--earlier", "P12 Y3", "--earlier", "", "--pool", "1", "--worlds", "1", "--max-worlds", "1"),
    ("books", "advise", "--play", "--hand", "R15 R9 R4 B1 B2 B5 Y1 Y9 Y14 P15 P14 P13 P1", "--predictions",
     "B3 / / Y7 P2 / R1", "--tricks", "B10 B11 B12 B13", "--trick", "Y2", "--start", "0", "--budget", "2"),
    ("beverbende", "advise", "--players", "3", "--seat", "1", "--turns", "7", "--phase", "drawn", "--drawn", "4",
     "--row", "1:2 ? ? 9", "--row", "2:? 5 ? ?", "--discard", "3 9 SW 7", "--budget", "2"),
    ("shelf", "advise", "--situation", "{shelf_situation}", "--budget", "2"),
)


def startup_argv(commands=STARTUP_COMMANDS) -> list[list[str]]:
    """The commands' argv with the shipped example files in place of ``{shelf_example}`` (a
    tableau) and ``{shelf_situation}`` (a Shelve the Book decision)."""
    from importlib import resources

    data = resources.files("ludolab.stdlib") / "data"
    files = {"{shelf_example}": str(data / "shelf_worked_example.json"),
             "{shelf_situation}": str(data / "shelf_example_situation.json")}
    return [[files.get(a, a) for a in argv] for argv in commands]


def search_seconds(text: str) -> float | None:
    """The search's own time an ``advise`` answer prints (its ``seconds`` line, in seconds), or None
    where the text has no such line."""
    import re

    found = re.search(r"^\s*seconds\s+([0-9]+(?:\.[0-9]*)?)\s*$", text, re.MULTILINE)
    return float(found.group(1)) if found else None


def format_startup(rows: list[dict]) -> str:
    """The table of :func:`startup_bench`'s records: command, median, fastest and slowest, and the
    median less the search's own time where the command prints it."""
    width = max(len(r["command"]) for r in rows)
    lines = [f"{'command':<{width}}  {'median':>8}  {'fastest - slowest':<17}  less the search"]
    for r in rows:
        rest = f"{r['less_search']:6.2f} s" if "less_search" in r else ""
        span = f"[{r['seconds_min']:.2f} - {r['seconds_max']:.2f}]"
        lines.append(f"{r['command']:<{width}}  {r['seconds']:6.2f} s  {span:<17}  {rest}".rstrip())
    return "\n".join(lines)


def startup_bench(commands=STARTUP_COMMANDS, repeats: int = REPEATS, say=None) -> list[dict]:
    """Warm start-up of the commands answered at the table: wall time of a whole ``ludolab``
    process (interpreter start, imports, numba cache loads, the answer), each command run once
    untimed (it fills numba's cache and Python's bytecode cache if needed: the runs write
    bytecode even where ``PYTHONDONTWRITEBYTECODE`` is set, so that no run compiles ludolab's
    modules from source, as no warm start does) and then ``repeats`` times.  ``books advise`` runs
    with one candidate and one sampled deal, and each ``advise`` of one decision with ``--budget 2``
    (the fewest worlds that give a CI), so their times are nearly all but the search; where the
    answer prints the search's own time (its ``seconds`` line, which counts loading the search's
    kernels), that is taken off as well.

    Returns:
        Records ``command``, ``seconds`` (median), ``seconds_min``, ``seconds_max``, and for a
        command that prints its search time, ``less_search``: the median of each run's wall time
        less that search time."""
    import os
    import subprocess

    say = say or (lambda m: None)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    rows = []
    for argv in startup_argv(commands):
        cmd = [sys.executable, "-m", "ludolab.analysis.cli", *argv]
        name = "ludolab " + " ".join(argv[:2]) + (" --play" if "--play" in argv else "")
        say("start-up: " + name)
        times, rest = [], []
        for i in range(1 + max(1, int(repeats))):
            t0 = time.perf_counter()
            done = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                                  text=True)
            if i:
                times.append(time.perf_counter() - t0)
                search = search_seconds(done.stdout)
                if search is not None:
                    rest.append(times[-1] - search)
        row = {"command": name, "seconds": statistics.median(times), "seconds_min": min(times),
               "seconds_max": max(times)}
        if rest:
            row["less_search"] = statistics.median(rest)
        rows.append(row)
    return rows
