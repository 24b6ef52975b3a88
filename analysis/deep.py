"""Deep runs: studies of strong play too slow for one report build, filled over as many sittings as it takes.

``ludolab report --deep DIR`` continues every deep study in the folder ``DIR``
(one run folder per study, :mod:`ludolab.sim.runstore`): each finished chunk is
kept on disk as it completes, so a sitting may end at any time (Ctrl-C, a
kill, a lost machine) and the next one computes only the chunks still missing;
the result is the uninterrupted run's, bit for bit.  Once a study's run is
complete its summary is written to ``DIR/<study>.json``: the tables, when it
was made, and its provenance (the study's plan: rules, policies and budgets,
deals, seed, chunks; the ludolab version; a SHA-256 of each source file of the
kernels it ran; and a canary, the digest of a small run of the same kernels and
random streams on a few deals of their own).

``ludolab report`` shows a study from ``DIR/<study>.json`` when ``--deep DIR``
is given and the run is complete there, else from the summary kept with
ludolab (``ludolab/analysis/stored/<study>.json``, copied there from a deep run
folder), and says that these are stored results and when they were made.  It
refuses a summary, saying why in one line of the report, when the plan or the
rules differ from the study's today or when the canary no longer reproduces
bit for bit: the kernels or the random streams changed since.  A change to a
kernel's source that leaves the canary's numbers unchanged (a faster loop, a
mended docstring) keeps the stored results; the report names the source files
that differ.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ludolab.stdlib.errors import LudolabError

#: where summaries kept with ludolab live
STORED_DIR = Path(__file__).with_name("stored")
SUMMARY_VERSION = 1


@dataclass(frozen=True)
class DeepStudy:
    """One deep study.

    Attributes:
        name: file and folder name (``books_strong_accuracy``).
        game: the game id it is about.
        title: what it measures, for progress lines.
        plan: ``plan() -> dict``: everything the numbers depend on besides the code (JSON-able).
        sources: the modules whose source files make up its kernels (their SHA-256 goes into the provenance).
        run: ``run(plan, progress) -> (tables, provenance)``: the study, its tables as ``name -> DataFrame``;
            it runs through :func:`ludolab.sim.runner.run`, so a run folder in force keeps its chunks.
        canary: ``canary(plan) -> str``: the hex digest of a small run of the same kernels and streams.
        tables: ``{table: columns}`` a summary must hold for the report to show it (checked by :func:`stored`).
    """

    name: str
    game: str
    title: str
    plan: Callable[[], dict]
    sources: tuple
    run: Callable
    canary: Callable
    tables: dict = None


# ------------------------------------------------------------------ Shut The Books: strong play
def _books_policies(plan: dict) -> list:
    from ludolab.sim import books as S

    out = []
    for c in plan["configs"]:
        if c["forecast"] == "rollout":
            f = S.forecast_policy("rollout", pool=c["pool"], worlds=c["worlds"])
            p = S.play_policy("rollout", worlds=c["play_worlds"])
            out.append((f, p))
        else:
            out.append((c["forecast"], c["play"]))
    return out


def _books_plan() -> dict:
    return {"players": 4, "scoring": "rulebook", "deals": 1200, "seed": 2026, "chunks": 48,
            "configs": [{"forecast": "rollout", "pool": 8, "worlds": 16, "play": "rollout", "play_worlds": 64},
                        {"forecast": "rollout", "pool": 8, "worlds": 32, "play": "rollout", "play_worlds": 128},
                        {"forecast": "heuristic", "play": "heuristic"}],
            "canary_deals": 2, "canary_seed": 7}


def _books_rules(plan: dict):
    from ludolab.stdlib.books import BooksRules

    return BooksRules(plan["players"], scoring=plan["scoring"])


def _books_run(plan: dict, progress) -> tuple[dict, dict]:
    from ludolab.sim import books as S

    acc = S.accuracy(_books_rules(plan), _books_policies(plan), plan["deals"], plan["seed"], plan["chunks"],
                     progress=progress)
    return ({"overall": acc.overall(), "paired": acc.paired(), "by_seat": acc.by_seat(),
             "by_predictions": acc.by_predictions()}, {"rules": acc.rules.as_dict(), **acc.provenance})


def _books_canary(plan: dict) -> str:
    from ludolab.sim import books as S

    acc = S.accuracy(_books_rules(plan), _books_policies(plan), plan["canary_deals"], plan["canary_seed"], 1)
    return hashlib.sha256(acc.acc.tobytes()).hexdigest()


# ------------------------------------------------------------------ ladder studies (any step game)
def _ladder_setup(plan: dict, policies: list):
    """``(ruleset, table, baseline, contenders)`` of a ladder plan (``game``, ``players``, ``baseline``), as
    ``ludolab GAME ladder`` makes them (:func:`ludolab.analysis.ladder_cli.ladder_field`)."""
    from .ladder_cli import ladder_field

    _, case, table, base, cons = ladder_field(plan["game"], plan["players"], plan["baseline"], policies,
                                              plan.get("variant"), _deck_case(plan))
    return case, table, base, cons


def _deck_case(plan: dict):
    """The ruleset of a plan's ``deck`` (Shelve the Book on one deck of a deck study), or None without one."""
    deck = plan.get("deck")
    if deck is None:
        return None
    if plan["game"] != "shelf":
        raise ValueError(f"a deck study is one of Shelve the Book, not of {plan['game']}")
    from .shelf import deck_case

    return deck_case(plan["players"], deck["params"], deck["seed"])


def _ruleset_name(plan: dict) -> str | None:
    """The name of a plan's rule variant or deck (None for the game's default rules)."""
    return plan.get("variant") or (plan.get("deck") or {}).get("name")


def _chunk_bounds(plan: dict) -> list[tuple[int, int]]:
    """The deals ``[lo, hi)`` of each chunk; a ladder plan's deals are a multiple of its chunks."""
    per, left = divmod(plan["deals"], plan["chunks"])
    if left or per < 1:
        raise ValueError(f"a ladder plan's deals ({plan['deals']}) must be a multiple of its chunks ({plan['chunks']})")
    return [(j * per, (j + 1) * per) for j in range(plan["chunks"])]


def ladder_chunk(plan: dict, policy: str, lo: int, hi: int, seed: int | None = None) -> "np.ndarray":
    """float64 (hi - lo, P, P): deals lo..hi-1 of a ladder plan with ``policy`` in each seat in turn and the
    baseline in the others (:meth:`ludolab.sim.ladder.Table.seat_games`); a module-level function, so that a
    worker process can run it."""
    from ludolab.sim.ladder import deal_keys

    _, table, base, (c,) = _ladder_setup(plan, [policy])
    keys = deal_keys(plan["seed"] if seed is None else seed, hi)[lo:]
    return table.seat_games(c, base, keys)


def self_play_chunk(plan: dict, policy: str, lo: int, hi: int, seed: int | None = None) -> "np.ndarray":
    """float64 (hi - lo, P): the returns of every seat on deals lo..hi-1 of a ladder plan with ``policy`` in
    every seat (self-play, on the ladder's deals: :func:`ludolab.sim.ladder.deal_keys`); module-level, so that
    a worker process can run it."""
    from ludolab.sim.ladder import deal_keys

    _, table, _, (c,) = _ladder_setup(plan, [policy])
    keys = deal_keys(plan["seed"] if seed is None else seed, hi)[lo:]
    if c.kind == "named":  # one game per deal, every seat the same compiled policy
        return table.seat_games(c, c, keys)[:, 0, :]
    return np.stack([table.play([c] * plan["players"], key) for key in keys])


#: what a ladder plan plays: kind -> ``(plan key of its policies, chunk function, kernel label in the run folder)``
CHUNK_KINDS = {"ladder": ("policies", ladder_chunk, "ludolab.sim.ladder:Table.seat_games"),
               "self-play": ("self_play", self_play_chunk, "ludolab.sim.ladder:Table.play")}


def _play_chunk(kind: str, policy: str, plan: dict, lo: int, hi: int) -> "np.ndarray":
    """One chunk of ``kind`` (:data:`CHUNK_KINDS`); module-level, so that a worker process can run it."""
    return CHUNK_KINDS[kind][1](plan, policy, lo, hi)


def _open_stores(plan: dict, bounds: list, folder) -> tuple[list, list, list, list]:
    """The chunk stores of every policy of a ladder plan in the run folder ``folder`` (None: none is kept):
    ``(stores, parts, jobs, todo)``, per policy its store, its chunks found on disk (None where missing) and
    ``(kind, policy)``, and the ``(policy index, chunk)`` pairs still to play, self-play first (its chunks
    are the longest)."""
    from ludolab.sim.runner import RunSpec
    from ludolab.sim.runstore import RunFolder

    P = plan["players"]
    per = bounds[0][1] - bounds[0][0]
    if folder is not None and _ruleset_name(plan) is not None:  # each variant's or deck's runs in a folder of its own
        folder = RunFolder(Path(folder.root) / _folder_name(_ruleset_name(plan)), folder.resume)
    # a run folder keeps its runs by position: each kind has its own, so that a policy appended to either list
    # of the plan leaves every other policy's chunks in use
    folders = {"ladder": folder,
               "self-play": None if folder is None else RunFolder(Path(folder.root) / "self-play", folder.resume)}
    stores, out, jobs, todo = [], [], [], []
    # with deals, seed, chunks: all a chunk depends on
    table = {k: plan[k] for k in ("game", "players", "baseline", "variant", "deck") if plan.get(k) is not None}
    for kind in ("self-play", "ladder"):
        key, _, kernel = CHUNK_KINDS[kind]
        where = folders[kind]
        for policy in plan.get(key, []):
            spec = RunSpec(game=plan["game"], kernel=kernel, args=(json.dumps(table, sort_keys=True), policy),
                           acc_shape=(per, P, P) if kind == "ladder" else (per, P), acc_dtype="float64",
                           games=plan["deals"], seed=plan["seed"], chunks=plan["chunks"],
                           label=policy if kind == "ladder" else f"self-play {policy}")
            store = where.open(spec) if where is not None else None
            parts = [store.load(j, lo, hi - lo) if store is not None else None for j, (lo, hi) in enumerate(bounds)]
            todo += [(len(out), j) for j, x in enumerate(parts) if x is None]
            stores.append(store)
            out.append(parts)
            jobs.append((kind, policy))
    return stores, out, jobs, todo


def _ladder_games(plan: dict, progress) -> dict:
    """Every game of a ladder plan, chunk by chunk through the run folder in force (each finished chunk kept
    as it completes; the missing ones played in worker processes, one per core, or on the Dask cluster in
    force).

    Returns:
        ``{"ladder": [...], "self-play": [...]}``: per policy of ``plan["policies"]`` its float64 (deals, P, P)
        games against the baseline (:meth:`ludolab.sim.ladder.Table.seat_games`), per policy of
        ``plan.get("self_play", [])`` its float64 (deals, P) self-play returns (:func:`self_play_chunk`).

    The workers are started by ``spawn``: a script calling this runs its own code under
    ``if __name__ == "__main__":`` (Python's multiprocessing contract); where the main program is no file a
    worker can import (code read from stdin), every chunk is played in this process."""
    import os

    from ludolab.sim.runner import current_execution, current_session
    from ludolab.sim.experiment import show_progress

    bounds = _chunk_bounds(plan)
    stores, out, jobs, todo = _open_stores(plan, bounds, current_session().folder())
    ex = current_execution()
    bar = None
    if show_progress(progress) and todo:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), unit="chunk", desc="deep run", leave=False)

    done = [0]
    step = max(1, len(todo) // 10)  # with no terminal for a bar (progress left to ludolab): a line per tenth

    def finish(i, j, games):
        out[i][j] = games
        if stores[i] is not None:
            lo, hi = bounds[j]
            stores[i].save(j, lo, hi - lo, games)
        done[0] += 1
        if bar is not None:
            bar.update()
        elif progress is None and (done[0] % step == 0 or done[0] == len(todo)):
            import sys

            print(f"deep run: {done[0]:,} of {len(todo):,} chunks done (each kept)", file=sys.stderr, flush=True)
    try:
        if ex.backend == "dask":
            import distributed

            client = current_session().client()
            futs = {client.submit(_play_chunk, *jobs[i], plan, *bounds[j], pure=False): (i, j) for i, j in todo}
            for fut in distributed.as_completed(futs):
                finish(*futs[fut], fut.result())
        elif len(todo) == 1 or (os.cpu_count() or 1) == 1 or not _spawn_can_start():
            for i, j in todo:
                finish(i, j, _play_chunk(*jobs[i], plan, *bounds[j]))
        elif todo:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor, as_completed
            from concurrent.futures.process import BrokenProcessPool

            n = min(len(todo), os.cpu_count() or 1)
            pool = ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_init)
            old_term = _raise_on_sigterm()
            try:
                futs = {pool.submit(_play_chunk, *jobs[i], plan, *bounds[j]): (i, j) for i, j in todo}
                for fut in as_completed(futs):
                    finish(*futs[fut], fut.result())
            except BrokenProcessPool:
                raise LudolabError("a worker process of the deep run ended abruptly (killed, or out of "
                                   "memory): run again to go on, the finished chunks are kept") from None
            finally:  # a sitting ended (Ctrl-C, a kill, an error): its workers end with it, at once
                _stop_workers(pool)
                _restore_sigterm(old_term)
    finally:
        if bar is not None:
            bar.close()
    games = {"ladder": [], "self-play": []}
    for (kind, _), parts in zip(jobs, out):
        games[kind].append(np.concatenate(parts))
    return games


def _worker_init() -> None:
    """In a deep run's worker process: leave Ctrl-C to the main process (which ends the workers), and end
    when the main process ends, however it ends (Linux: the parent-death signal)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the main process still ends its workers on Ctrl-C or a kill
        pass


def _raise_on_sigterm():
    """Make SIGTERM end the main process through Python (so that its workers are stopped); returns the handler
    it replaced, or None where it cannot be set (not the main thread)."""
    import signal

    def stop(signum, frame):
        raise SystemExit(128 + signum)
    try:
        return signal.signal(signal.SIGTERM, stop)
    except ValueError:
        return None


def _restore_sigterm(old) -> None:
    import signal

    if old is not None:
        signal.signal(signal.SIGTERM, old)


def _stop_workers(pool) -> None:
    """Cancel what is queued and end the pool's worker processes now (a chunk in progress is dropped; the
    finished ones are on disk)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(timeout=5)


def _spawn_can_start() -> bool:
    """Whether a spawned worker can import the main program (it has no file, as in a notebook, or a file
    that exists)."""
    import sys

    main = getattr(sys.modules.get("__main__"), "__file__", None)
    return main is None or Path(main).exists()


def _ladder_run(plan: dict, progress) -> tuple[dict, dict]:
    """A ladder plan's tables: ``ladder`` (one row per policy, as :func:`ludolab.sim.ladder.ladder` gives
    them, with the 95% CI of the win share and ``others_mean``, the mean return of the other seats at its
    table), ``by_seat`` (per policy and seat: the mean difference to the
    baseline in that seat, its paired 95% CI, and the share of the pairs at the table won from that seat) and
    ``paired`` (each policy against the one before it in the plan, on the same deals: the difference of the
    returns, of the win shares and of the margins, each with its paired 95% CI; a budget and its double side
    by side give what the doubling gains); and, when the plan lists ``self_play`` policies, the tables of
    :func:`self_play_tables` (each of them in every seat on the same deals).  Each ``ladder`` row also has
    ``margin``, the policy's own return minus the mean of the other seats' at its table, and ``margin_diff``
    with ``margin_diff_ci_low``, ``margin_diff_ci_high``: that margin minus the baseline's in the same seat on
    the same deals (paired 95% CI)."""
    import pandas as pd

    from ludolab.sim import ladder as L

    case, table, base, cons = _ladder_setup(plan, plan["policies"])
    played = _ladder_games(plan, progress)
    games = played["ladder"]
    b = [c.label for c in cons].index(base.label)  # the baseline's place among the contenders
    rows = L.ladder_rows(table, cons, base, games[b], games)
    shares = [table.seat_shares(g) for g in games]  # (deals, P) each: the pairs won from each seat
    won = [w.sum(axis=1) / plan["players"] for w in shares]  # per deal, as Table.pairwise gives it
    own = [L.own_returns(g) for g in games]  # (deals, P) each: the contender's return in each seat
    margins = [_margins(g) for g in games]  # (deals, P) each: that return minus the other seats' mean
    seat_rows = []
    P = plan["players"]
    for c, mine, w in zip(cons, own, shares):
        for s in range(P):
            m, lo, hi = L._ci(mine[:, s] - own[b][:, s])
            q, qlo, qhi = L._ci(w[:, s])
            seat_rows.append({"policy": c.label, "seat": s + 1, "mean": float(mine[:, s].mean()), "diff": m,
                              "ci_low": lo, "ci_high": hi, "win_share": q, "win_ci_low": qlo, "win_ci_high": qhi})
    for r, mine, mg in zip(rows, own, margins):
        r["others_mean"] = float((mine - mg).mean())  # the other seats' mean return at its table (the baseline's)
        r["margin"] = float(np.round(mg.mean(), 12)) + 0.0  # the baseline's is 0, not a rounding error's -0
        # its margin against the baseline's in the same seat, paired deal by deal
        r["margin_diff"], r["margin_diff_ci_low"], r["margin_diff_ci_high"] = L._ci((mg - margins[b]).mean(axis=1))
    paired = []
    for i in range(1, len(cons)):  # each policy against the one before it in the plan, paired deal by deal
        (m, lo, hi), (q, qlo, qhi) = L._ci((own[i] - own[i - 1]).mean(axis=1)), L._ci(won[i] - won[i - 1])
        g, glo, ghi = L._ci((margins[i] - margins[i - 1]).mean(axis=1))
        paired.append({"policy": cons[i].label, "versus": cons[i - 1].label, "diff": m, "ci_low": lo, "ci_high": hi,
                       "win_share_diff": q, "win_share_diff_ci_low": qlo, "win_share_diff_ci_high": qhi,
                       "margin_diff": g, "margin_diff_ci_low": glo, "margin_diff_ci_high": ghi})
    prov = {"rules": case.label, "baseline": plan["baseline"], "seed": plan["seed"], "deals": plan["deals"],
            "chunks": plan["chunks"]}
    tables = {"ladder": pd.DataFrame(rows), "by_seat": pd.DataFrame(seat_rows), "paired": pd.DataFrame(paired)}
    if plan.get("self_play"):
        tables.update(self_play_tables(plan["self_play"], played["self-play"], table.lower))
    return tables, prov


def _margins(games: "np.ndarray") -> "np.ndarray":
    """float64 (deals, P): from a contender's (deals, P, P) returns (:meth:`ludolab.sim.ladder.Table.seat_games`),
    its margin in each seat: its own return minus the mean return of the other seats at that table."""
    P = games.shape[1]
    return np.stack([games[:, s, s] - np.delete(games[:, s, :], s, axis=1).mean(axis=1) for s in range(P)], axis=1)


def _seat_wins(ret: "np.ndarray", lower: bool) -> "np.ndarray":
    """float64 (deals, P): each seat's share of the game won on each deal, a tie for the best return shared
    equally among the tied seats; ``ret`` float64 (deals, P) returns."""
    best = ret.min(axis=1, keepdims=True) if lower else ret.max(axis=1, keepdims=True)
    top = (ret == best).astype(float)
    return top / top.sum(axis=1, keepdims=True)


def self_play_tables(policies: list, games: list, lower: bool) -> dict:
    """The self-play tables of a ladder plan, from ``games[i]``, float64 (deals, P), the returns of every seat
    with ``policies[i]`` in every seat on the same deals (:func:`self_play_chunk`).

    Returns:
        ``self_play``: per policy ``mean`` (mean return per seat and game) with its 95% CI over the deals
        (``ci_low``, ``ci_high``), ``first_edge`` (the first seat's return minus the mean of the other seats'
        on the same deal: the first player's edge, in the game's units) with its CI, ``edge_vs_first`` (that
        edge minus the first policy's on the same deals, paired) with its CI, and ``first_win_share``
        (the first seat's share of the games won, ties shared) with its CI; ``self_play_paired``: each policy
        against the one before it, the paired difference of the mean return per seat with its CI (a budget
        and its double side by side give what the doubling gains when every seat plays it);
        ``self_play_by_seat``: per policy and seat the mean return and the share of games won, with CIs.
    """
    import pandas as pd

    from ludolab.sim import ladder as L

    rows, seat_rows, paired = [], [], []
    edge0 = games[0][:, 0] - games[0][:, 1:].mean(axis=1)
    for pol, ret in zip(policies, games):
        wins = _seat_wins(ret, lower)
        m, lo, hi = L._ci(ret.mean(axis=1))
        edge = ret[:, 0] - ret[:, 1:].mean(axis=1)
        e, elo, ehi = L._ci(edge)
        d, dlo, dhi = L._ci(edge - edge0)
        w, wlo, whi = L._ci(wins[:, 0])
        rows.append({"policy": pol, "mean": m, "ci_low": lo, "ci_high": hi, "first_edge": e,
                     "first_edge_ci_low": elo, "first_edge_ci_high": ehi, "edge_vs_first": d,
                     "edge_vs_first_ci_low": dlo, "edge_vs_first_ci_high": dhi, "first_win_share": w,
                     "first_win_ci_low": wlo, "first_win_ci_high": whi, "deals": int(ret.shape[0])})
        for s in range(ret.shape[1]):
            m, lo, hi = L._ci(ret[:, s])
            w, wlo, whi = L._ci(wins[:, s])
            seat_rows.append({"policy": pol, "seat": s + 1, "mean": m, "ci_low": lo, "ci_high": hi, "win_share": w,
                              "win_ci_low": wlo, "win_ci_high": whi})
    for i in range(1, len(policies)):
        m, lo, hi = L._ci(games[i].mean(axis=1) - games[i - 1].mean(axis=1))
        paired.append({"policy": policies[i], "versus": policies[i - 1], "diff": m, "ci_low": lo, "ci_high": hi})
    return {"self_play": pd.DataFrame(rows), "self_play_paired": pd.DataFrame(paired),
            "self_play_by_seat": pd.DataFrame(seat_rows)}


def _ladder_canary(plan: dict) -> str:
    """The digest of the plan's canary policies (``canary_policies`` against the baseline, ``canary_self_play``
    in every seat) on the canary's deals."""
    h = hashlib.sha256()
    for policy in plan["canary_policies"]:
        h.update(ladder_chunk(plan, policy, 0, plan["canary_deals"], plan["canary_seed"]).tobytes())
    for policy in plan.get("canary_self_play", []):
        h.update(self_play_chunk(plan, policy, 0, plan["canary_deals"], plan["canary_seed"]).tobytes())
    return h.hexdigest()


def _beverbende_plan() -> dict:
    # the baseline: `ludolab beverbende tune --players 2` (the threshold heuristic tuned at two players)
    return {"game": "beverbende", "players": 2, "baseline": "threshold:knock=8,take=3,unknown=5,swap=4",
            "policies": ["threshold:knock=8,take=3,unknown=5,swap=4", "threshold",
                         "search:budget=1024,rollout=threshold,objective=wins",
                         "search:budget=2048,rollout=threshold,objective=wins",
                         "search:budget=4096,rollout=threshold,objective=wins"],
            "deals": 320, "seed": 2026, "chunks": 32, "canary_deals": 1, "canary_seed": 7,
            "canary_policies": ["threshold:knock=8,take=3,unknown=5,swap=4",
                                "search:budget=16,rollout=threshold,objective=wins"]}


def _beverbende_4p_plan() -> dict:
    # the baseline: `ludolab beverbende tune` (the threshold heuristic tuned at four players, exchange=1 its
    # default); the goal at four players is the margin: the search plays for points at doubling budgets, then
    # to win at the larger one and its double; every seat searching (self-play) gives the first player's edge
    # under strong play
    return {"game": "beverbende", "players": 4, "baseline": "threshold:knock=8,take=4,unknown=6,swap=4",
            "policies": ["threshold:knock=8,take=4,unknown=6,swap=4", "threshold",
                         "search:budget=512,rollout=threshold", "search:budget=1024,rollout=threshold",
                         "search:budget=1024,rollout=threshold,objective=wins",
                         "search:budget=2048,rollout=threshold,objective=wins"],
            "self_play": ["threshold:knock=8,take=4,unknown=6,swap=4", "search:budget=512,rollout=threshold"],
            "deals": 160, "seed": 2026, "chunks": 32, "canary_deals": 1, "canary_seed": 7,
            "canary_policies": ["threshold:knock=8,take=4,unknown=6,swap=4", "search:budget=16,rollout=threshold"]}


def _shelf_plan() -> dict:
    # 4 players, the rulebook scoring; every seat's search at budgets doubling from 128 (self-play: the goal's
    # measure) and one seat's against the best heuristic (the ladder)
    search = [f"search:budget={b},rollout=potential" for b in (128, 256, 512, 1024)]
    return {"game": "shelf", "players": 4, "baseline": "potential",
            "policies": ["potential", "rollout"] + search[1:3],
            "self_play": ["potential", "rollout"] + search,
            "deals": 160, "seed": 2026, "chunks": 32, "canary_deals": 1, "canary_seed": 7,
            "canary_policies": ["potential", "search:budget=8,rollout=potential"],
            "canary_self_play": ["search:budget=8,rollout=potential"]}


def _folder_name(label: str) -> str:
    """A rule variant's or a deck's name as a folder name (``"pairs scoring"`` -> ``pairs-scoring``,
    ``"corr 0 (generated)"`` -> ``corr-0-generated``)."""
    import re

    return re.sub(r"[^A-Za-z0-9.]+", "-", label).strip("-")


def _shelf_variants_plan() -> dict:
    # 4 players, the assumed deck, each scoring variant (SHB-11) on the same deals: random play, the best
    # heuristic and the search in every seat, so that what a variant does to skill is read under strong play
    # beside what the report's variant table reads from the heuristic
    from ludolab.stdlib.shelf import VARIANTS

    return {"game": "shelf", "players": 4, "baseline": "potential",
            "variants": [f"{v} scoring" for v in VARIANTS],
            "self_play": ["random", "potential", "search:budget=256,rollout=potential"],
            "deals": 160, "seed": 2026, "chunks": 32, "canary_deals": 1, "canary_seed": 7,
            "canary_self_play": ["search:budget=8,rollout=potential"]}


def _shelf_decks_plan() -> dict:
    # 4 players, the rulebook scoring, each deck of the report's deck study (SHB-1: the assumed deck and decks
    # generated with one parameter changed, seed 0) on the same deals: random play, the best heuristic and the
    # search in every seat, so that what the deck does to skill's edge is read under strong play
    from .shelf import DECK_STUDY

    return json.loads(json.dumps({  # as a summary holds it (a pair of numbers is a list)
        "game": "shelf", "players": 4, "baseline": "potential",
        "decks": [{"name": name, "params": params} for name, params in DECK_STUDY], "deck_seed": 0,
        "self_play": ["random", "potential", "search:budget=256,rollout=potential"],
        "deals": 48, "seed": 2026, "chunks": 12, "canary_deals": 1, "canary_seed": 7,
        "canary_self_play": ["search:budget=8,rollout=potential"]}))


def _variant_plans(plan: dict) -> list[dict]:
    """One ladder plan per rule variant of a variants plan (``variants``) or per deck of a decks plan (``decks``,
    each drawn with ``deck_seed``): self-play only, the variant or the deck set."""
    rest = {k: v for k, v in plan.items() if k not in ("variants", "decks", "deck_seed")}
    if "decks" in plan:
        return [{**rest, "deck": {**d, "seed": plan["deck_seed"]}, "policies": []} for d in plan["decks"]]
    return [{**rest, "variant": v, "policies": []} for v in plan["variants"]]


def _variants_run(plan: dict, progress) -> tuple[dict, dict]:
    """A variants plan's tables (a decks plan's alike, ``deck`` in place of ``variant``): per variant
    (``variant``) the :func:`self_play_tables` of its self-play policies, stacked (``self_play``,
    ``self_play_paired``, ``self_play_by_seat``), and ``skill``: per variant (``rules`` its ruleset's label),
    with the plan's self-play policies random, the best heuristic and the search in that order, their
    mean scores per player (``mean_random``, ``mean_heuristic``, ``mean_strong``), what each adds over
    random play on the same deals (``spread_heuristic``, ``spread_strong``, each with its paired 95% CI), the
    same in standard deviations of a random player's score (``spread_sd_heuristic``, ``spread_sd_strong``,
    with CIs: comparable across variants whose points differ, as the report's variant table reads them), and
    what the search adds over the heuristic (``gain``, paired CI).  Each variant's chunks are kept in a folder
    of its own inside the study's run folder."""
    import pandas as pd

    from ludolab.sim import ladder as L

    col = "deck" if "decks" in plan else "variant"
    parts = {"self_play": [], "self_play_paired": [], "self_play_by_seat": []}
    skill = []
    for sub in _variant_plans(plan):
        case, table, _, _ = _ladder_setup(sub, [sub["baseline"]])
        games = _ladder_games(sub, progress)["self-play"]
        label = _ruleset_name(sub)
        for name, df in self_play_tables(sub["self_play"], games, table.lower).items():
            parts[name].append(df.assign(**{col: label})[[col, *df.columns]])
        rnd, heur, strong = (g.mean(axis=1) for g in games[:3])  # per deal: the mean score per player
        sd = float(games[0][:, 0].std(ddof=1))  # one random player's score, deal to deal
        row = {col: label, "rules": case.label, "mean_random": float(rnd.mean()),
               "mean_heuristic": float(heur.mean()), "mean_strong": float(strong.mean()), "random_sd": sd}
        for key, x in (("spread_heuristic", heur - rnd), ("spread_strong", strong - rnd)):
            m, lo, hi = L._ci(x)
            row.update({key: m, f"{key}_ci_low": lo, f"{key}_ci_high": hi})
            sd_key = key.replace("spread", "spread_sd")
            row.update({sd_key: m / sd, f"{sd_key}_ci_low": lo / sd, f"{sd_key}_ci_high": hi / sd} if sd > 0 else
                       {sd_key: math.nan, f"{sd_key}_ci_low": math.nan, f"{sd_key}_ci_high": math.nan})
        m, lo, hi = L._ci(strong - heur)
        row.update({"gain": m, "gain_ci_low": lo, "gain_ci_high": hi, "deals": int(rnd.shape[0])})
        skill.append(row)
    tables = {"skill": pd.DataFrame(skill), **{k: pd.concat(v, ignore_index=True) for k, v in parts.items()}}
    prov = {"rules": [_ruleset_name(sub) for sub in _variant_plans(plan)], "players": plan["players"],
            "heuristic": plan["self_play"][1], "strong": plan["self_play"][2], "seed": plan["seed"],
            "deals": plan["deals"], "chunks": plan["chunks"]}
    return tables, prov


def _variants_canary(plan: dict) -> str:
    """The digest of the canary's self-play policies under every variant of a variants plan."""
    h = hashlib.sha256()
    for sub in _variant_plans(plan):
        h.update(_ruleset_name(sub).encode())
        h.update(bytes.fromhex(_ladder_canary({**sub, "canary_policies": []})))
    return h.hexdigest()


STUDIES = {s.name: s for s in (
    DeepStudy("books_strong_accuracy", "books",
              "Shut The Books: rollout forecasts with rollout play at two budgets, beside the heuristics",
              _books_plan, ("ludolab.sim.books_kernels", "ludolab.sim.books", "ludolab.sim.rng",
                            "ludolab.stdlib.books"),
              _books_run, _books_canary,
              {"overall": ("forecast", "play", "exact", "exact_ci_low", "exact_ci_high", "mean_score"),
               "paired": ("diff_vs_first_config", "diff_vs_first_config_ci_low", "diff_vs_first_config_ci_high"),
               "by_seat": (), "by_predictions": ()}),
    DeepStudy("beverbende_strong_2p", "beverbende",
              "Beverbende: search playing to win against the tuned threshold heuristic, two players",
              _beverbende_plan, ("ludolab.sim.beverbende_kernels", "ludolab.sim.beverbende", "ludolab.sim.search",
                                 "ludolab.sim.ladder", "ludolab.sim.rng", "ludolab.stdlib.beverbende"),
              _ladder_run, _ladder_canary,
              {"ladder": ("policy", "mean", "diff", "ci_low", "ci_high", "win_share", "win_ci_low", "win_ci_high",
                          "rating", "rating_ci_low", "rating_ci_high"),
               "paired": ("policy", "versus", "win_share_diff", "win_share_diff_ci_low", "win_share_diff_ci_high"),
               "by_seat": ("policy", "seat")}),
    DeepStudy("beverbende_strong_4p", "beverbende",
              "Beverbende: search for points and to win against the tuned threshold heuristic, four players",
              _beverbende_4p_plan, ("ludolab.sim.beverbende_kernels", "ludolab.sim.beverbende",
                                    "ludolab.sim.search", "ludolab.sim.ladder", "ludolab.sim.rng",
                                    "ludolab.stdlib.beverbende"),
              _ladder_run, _ladder_canary,
              {"ladder": ("policy", "mean", "diff", "ci_low", "ci_high", "win_share", "win_ci_low", "win_ci_high",
                          "margin", "margin_diff", "margin_diff_ci_low", "margin_diff_ci_high", "others_mean"),
               "paired": ("policy", "versus", "diff", "ci_low", "ci_high", "win_share_diff",
                          "win_share_diff_ci_low", "win_share_diff_ci_high", "margin_diff", "margin_diff_ci_low",
                          "margin_diff_ci_high"),
               "by_seat": ("policy", "seat")}),
    DeepStudy("shelf_strong_4p", "shelf",
              "Shelve the Book: search at doubling budgets in every seat and in one seat, four players",
              _shelf_plan, ("ludolab.sim.shelf_kernels", "ludolab.sim.shelf", "ludolab.sim.search", "ludolab.sim.play",
                            "ludolab.sim.ladder", "ludolab.sim.rng", "ludolab.stdlib.shelf"),
              _ladder_run, _ladder_canary,
              {"ladder": ("policy", "mean", "diff", "ci_low", "ci_high", "win_share", "win_ci_low", "win_ci_high"),
               "paired": ("policy", "versus", "diff", "ci_low", "ci_high"),
               "self_play": ("policy", "mean", "ci_low", "ci_high", "first_edge", "first_edge_ci_low",
                             "first_edge_ci_high", "edge_vs_first", "edge_vs_first_ci_low", "edge_vs_first_ci_high",
                             "first_win_share", "first_win_ci_low", "first_win_ci_high"),
               "self_play_paired": ("policy", "versus", "diff", "ci_low", "ci_high"),
               "self_play_by_seat": ("policy", "seat")}),
    DeepStudy("shelf_strong_variants", "shelf",
              "Shelve the Book: each scoring variant under random play, the best heuristic and search in every "
              "seat, four players",
              _shelf_variants_plan, ("ludolab.sim.shelf_kernels", "ludolab.sim.shelf", "ludolab.sim.search",
                                     "ludolab.sim.play", "ludolab.sim.ladder", "ludolab.sim.rng",
                                     "ludolab.stdlib.shelf"),
              _variants_run, _variants_canary,
              {"skill": ("variant", "mean_random", "mean_heuristic", "mean_strong", "spread_heuristic",
                         "spread_heuristic_ci_low", "spread_heuristic_ci_high", "spread_strong",
                         "spread_strong_ci_low", "spread_strong_ci_high", "spread_sd_heuristic",
                         "spread_sd_heuristic_ci_low", "spread_sd_heuristic_ci_high", "spread_sd_strong",
                         "spread_sd_strong_ci_low", "spread_sd_strong_ci_high", "gain", "gain_ci_low",
                         "gain_ci_high"),
               "self_play": ("variant", "policy", "mean", "ci_low", "ci_high", "first_edge", "first_edge_ci_low",
                             "first_edge_ci_high", "first_win_share", "first_win_ci_low", "first_win_ci_high"),
               "self_play_paired": ("variant", "policy", "versus", "diff", "ci_low", "ci_high"),
               "self_play_by_seat": ("variant", "policy", "seat")}),
    DeepStudy("shelf_strong_decks", "shelf",
              "Shelve the Book: each deck of the deck study under random play, the best heuristic and search in "
              "every seat, four players",
              _shelf_decks_plan, ("ludolab.sim.shelf_kernels", "ludolab.sim.shelf", "ludolab.sim.search",
                                  "ludolab.sim.play", "ludolab.sim.ladder", "ludolab.sim.rng",
                                  "ludolab.stdlib.shelf"),
              _variants_run, _variants_canary,
              {"skill": ("deck", "rules", "mean_random", "mean_heuristic", "mean_strong", "spread_heuristic",
                         "spread_heuristic_ci_low", "spread_heuristic_ci_high", "spread_strong",
                         "spread_strong_ci_low", "spread_strong_ci_high", "gain", "gain_ci_low", "gain_ci_high"),
               "self_play": ("deck", "policy", "mean", "ci_low", "ci_high", "first_edge", "first_edge_ci_low",
                             "first_edge_ci_high"),
               "self_play_paired": ("deck", "policy", "versus", "diff", "ci_low", "ci_high"),
               "self_play_by_seat": ("deck", "policy", "seat")}),
)}


# ------------------------------------------------------------------ provenance
def source_digests(modules) -> dict:
    """``{module: SHA-256 of its source file}`` of the named modules (imported to find their files)."""
    import importlib

    out = {}
    for name in modules:
        path = Path(importlib.import_module(name).__file__)
        out[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _records(df) -> list:
    return json.loads(df.to_json(orient="records"))


def run_study(study: DeepStudy, folder: Path, progress=False, log=None) -> dict:
    """Continue ``study`` in its run folder ``folder/<name>/`` until it is complete; write and return its summary.

    Every finished chunk is on disk as soon as it completes, so the call may be ended at any time and
    called again.

    Raises:
        LudolabError: the run folder holds a run made with other parameters, or was begun under kernels or
            random streams whose canary differs from today's (never mixed), or cannot be written (one line).
    """
    from ludolab.sim.runner import current_execution, execution
    from ludolab.sim.runstore import _version

    from .outputs import OutputError, os_error

    plan = study.plan()
    run_dir = Path(folder) / study.name
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(os_error(exc, run_dir)) from None
    if log:
        kept = sum(1 for _ in run_dir.rglob("chunk-*.parquet"))
        log(f"deep: {study.title} ({plan.get('deals', '?'):,} deals) in {run_dir} ..."
            + (f" (continuing: {kept:,} chunks finished earlier are kept)" if kept else ""))
    sources = source_digests(study.sources)  # the code as it is when the sitting starts, the code it runs
    with _ctrl_c_kept():  # compiling the kernels may swallow a Ctrl-C: it is raised once that is over
        canary = study.canary(plan)
    _same_canary(run_dir, canary)  # chunks of other kernels or streams are never mixed with these
    # one game per chunk in a kernel call to begin with: strong play takes seconds a game, and Ctrl-C waits for
    # the call in progress
    with execution(current_execution(), run_dir=str(run_dir), resume=True, first_step=1):
        tables, prov = study.run(plan, progress)
    summary = {"summary_version": SUMMARY_VERSION, "study": study.name, "game": study.game, "title": study.title,
               "made": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "ludolab": _version(),
               "plan": plan, "provenance": prov, "sources": sources,
               "canary": canary, "tables": {k: _records(v) for k, v in tables.items()}}
    path = Path(folder) / f"{study.name}.json"
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        raise OutputError(os_error(exc, path)) from None
    return summary


CANARY_FILE = "canary.json"


@contextmanager
def _ctrl_c_kept():
    """Remember a Ctrl-C inside the block and raise it when the block ends, should code that ignores
    exceptions in its callbacks have swallowed it (numba's compiler does, when a Ctrl-C lands in one)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    seen = []

    def on_int(signum, frame):
        seen.append(signum)
        raise KeyboardInterrupt
    old = signal.signal(signal.SIGINT, on_int)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
    if seen:
        raise KeyboardInterrupt


def _same_canary(run_dir: Path, canary: str) -> None:
    """Record the canary of a run folder's first sitting; refuse a later sitting whose canary differs (the
    kernels or the random streams changed in between: its chunks would not be the same run's).

    Raises:
        LudolabError: the canaries differ, or the record cannot be read or written (one line).
    """
    path = run_dir / CANARY_FILE
    if path.exists():
        try:
            was = json.loads(path.read_text(encoding="utf-8")).get("canary")
        except (OSError, ValueError, UnicodeDecodeError, AttributeError):
            raise LudolabError(f"the deep run in {str(run_dir)!r} has an unreadable {CANARY_FILE}: give another "
                               "folder, or remove that one to begin the run again") from None
        if was != canary:
            raise LudolabError(f"the deep run in {str(run_dir)!r} was begun under other kernels or random streams "
                               f"(its {CANARY_FILE} differs from this ludolab's canary): give another folder, or "
                               "remove that one to begin the run again")
        return
    try:
        path.write_text(json.dumps({"canary": canary}) + "\n", encoding="utf-8")
    except OSError as exc:
        from .outputs import OutputError, os_error

        raise OutputError(os_error(exc, path)) from None


def run_all(folder, progress=False, log=None) -> list[dict]:
    """Continue every deep study in ``folder`` (:func:`run_study`); returns their summaries."""
    return [run_study(s, Path(folder), progress, log) for s in STUDIES.values()]


@dataclass
class Stored:
    """A study's stored summary as the report finds it.

    Attributes:
        summary: the summary (dict), or None when there is none to show.
        where: where it was read (``DIR/<study>.json`` or the copy kept with ludolab).
        status: ``"ok"``, ``"missing"`` or ``"refused"``.
        why: for ``refused``, what differs; for ``missing``, how to make one.
        changed_sources: modules whose source differs from the run's while the canary still reproduces.
    """

    summary: dict | None
    where: str
    status: str
    why: str = ""
    changed_sources: tuple = ()

    def tables(self) -> dict:
        """``name -> DataFrame`` of the summary's tables."""
        import pandas as pd

        return {k: pd.DataFrame(v) for k, v in (self.summary or {}).get("tables", {}).items()}


def table_meta(st: "Stored") -> dict:
    """The provenance sidecar of a report table made from a stored deep run: the build's record
    (:func:`ludolab.analysis.results.provenance`: game, versions, when the table was written), the run's own
    (``stored_deep_run``: study, when it was made, ludolab version, plan, provenance, kernel sources, canary)
    and where the summary was read; no Monte Carlo run of this build is behind it (``runs`` empty)."""
    from .results import provenance

    summ = st.summary
    run = {k: summ[k] for k in ("study", "made", "ludolab", "plan", "provenance", "sources", "canary")}
    return {**provenance(summ["game"]), "stored_deep_run": run, "read_from": st.where, "runs": []}


def section_start(ctx, name: str, game: str, heading: str) -> tuple["Stored", list]:
    """The opening of a report section showing deep study ``name``: ``(its summary as :func:`stored` finds it
    under the report's ``--deep`` folder, the section's first Markdown blocks)``, the blocks its ``heading``
    and, when the run is not shown, why (:func:`not_shown_text`); ``game`` names the game in the progress line."""
    ctx.say(f"{game}: the stored deep run {name} (checking its canary) ...")
    st = stored(name, getattr(ctx, "deep_dir", None))
    head = [f"\n## {heading}\n"]
    if st.status != "ok":
        head.append(not_shown_text(st) + "\n")
    return st, head


def shown_ladder(ladder, columns):
    """The columns of a deep run's ladder table a report shows (those of ``columns`` it has, in that order),
    the CIs renamed after what they bound (``diff_ci_low``, ``win_share_ci_low``, ...) so that a ``Columns:``
    line shows each in brackets with its value."""
    return ladder[[c for c in columns if c in ladder.columns]].rename(columns={
        "ci_low": "diff_ci_low", "ci_high": "diff_ci_high", "win_ci_low": "win_share_ci_low",
        "win_ci_high": "win_share_ci_high"})


def write_tables(ctx, tables: dict, prefix: str, names, meta: dict) -> None:
    """Write the deep run's tables ``names`` (of ``tables``) that the report does not show as
    ``tables/<prefix>_<name>.csv``, each with the run's provenance ``meta`` (:func:`table_meta`)."""
    for name in names:
        ctx.table(tables[name], f"{prefix}_{name}", meta)


def not_shown_text(st: "Stored") -> str | None:
    """What a report says in place of a deep run that is missing or refused (one paragraph); None when the
    run is shown."""
    if st.status == "missing":
        return ("No deep run is stored with this ludolab: `ludolab report --deep DIR` makes one (it may take "
                "several sittings; each keeps its finished chunks in DIR).")
    if st.status == "refused":
        return (f"The stored deep run ({st.where}) is not shown: {st.why}. `ludolab report --deep DIR` makes it "
                "again under this ludolab.")
    return None


def stored_intro(st: "Stored", setting: str, canary: str) -> str:
    """The opening of a report's deep-run section: that these are stored results, when and with which ludolab
    they were made, the run's ``setting`` (players, rules, deals, seed, chunks: the caller's words), where it
    was read, that the ``canary`` (the caller's words for it) reproduced, and the kernel sources that changed
    while it did."""
    summ = st.summary
    changed = (f" The source of {', '.join(f'`{m}`' for m in st.changed_sources)} differs from the run's, "
               "but the canary's numbers do not." if st.changed_sources else "")
    return (f"These are stored results, not recomputed by this build: a deep run made on {summ['made']} with "
            f"ludolab {summ['ludolab']} ({setting}; read from {st.where}). Before showing them this build replayed "
            f"the run's canary ({canary}) and got the stored digest bit for bit, so the rules, the kernels and the "
            f"random streams are the run's.{changed}")


def read_summary(path: Path) -> dict:
    """A summary file's content.

    Raises:
        LudolabError: it cannot be read, is not JSON, or is not a ludolab deep-run summary (one line).
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise LudolabError(f"the deep-run summary {str(path)!r} cannot be read "
                           f"({getattr(exc, 'strerror', None) or 'it is not JSON'})") from None
    if not isinstance(data, dict) or data.get("summary_version") != SUMMARY_VERSION or \
            not isinstance(data.get("tables"), dict) or not isinstance(data.get("plan"), dict):
        raise LudolabError(f"the deep-run summary {str(path)!r} is not one this ludolab wrote "
                           f"(summary version {SUMMARY_VERSION} with a plan and tables)")
    kinds = {"study": str, "game": str, "made": str, "ludolab": str, "canary": str, "provenance": dict,
             "sources": dict}
    bad = [k for k, t in kinds.items() if not isinstance(data.get(k), t)]
    if bad:
        raise LudolabError(f"the deep-run summary {str(path)!r} lacks {', '.join(bad)} (or holds the wrong kind "
                           "of value there)")
    return data


def _tables_missing(study: DeepStudy, summary: dict) -> str:
    """What a summary lacks of the tables and columns its study's report reads (empty when nothing)."""
    for name, cols in (study.tables or {}).items():
        rows = summary["tables"].get(name)
        if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
            return f"its table {name} is missing or is not a list of rows"
        lack = [c for c in cols if any(c not in r for r in rows)]
        if lack:
            return f"its table {name} lacks the column {', '.join(lack)}"
    return ""


def check(study: DeepStudy, summary: dict) -> tuple[str, tuple]:
    """Whether a summary still describes ``study`` under today's code: ``(why it is refused or "", the
    modules whose source changed)``.  It is refused when its plan differs from the study's plan today or its
    canary no longer reproduces bit for bit (the kernels or the random streams changed)."""
    plan = study.plan()
    if summary.get("study") != study.name:
        return f"it is a summary of {summary.get('study')!r}, not of {study.name}", ()
    if summary.get("plan") != plan:
        diff = sorted(k for k in set(plan) | set(summary["plan"]) if plan.get(k) != summary["plan"].get(k))
        return f"it was made for another plan (it differs in {', '.join(diff)})", ()
    now = source_digests(study.sources)
    changed = tuple(m for m in study.sources if (summary.get("sources") or {}).get(m) != now[m])
    if summary.get("canary") != study.canary(plan):
        what = f" ({', '.join(changed)} changed)" if changed else ""
        return f"its canary run no longer reproduces: the kernels or the random streams changed{what}", changed
    return "", changed


def stored(name: str, deep_dir=None) -> Stored:
    """The summary of study ``name`` the report shows: ``deep_dir/<name>.json`` when given and present, else
    the copy kept with ludolab; checked by :func:`check`.

    Raises:
        KeyError: an unknown study.
    """
    study = STUDIES[name]
    candidates = ([Path(deep_dir) / f"{name}.json"] if deep_dir else []) + [STORED_DIR / f"{name}.json"]
    for path in candidates:
        if not path.exists():
            continue
        where = str(path) if path.parent != STORED_DIR else f"stored/{path.name}, the copy kept with ludolab"
        try:
            summary = read_summary(path)
        except LudolabError as exc:
            return Stored(None, where, "refused", str(exc))
        why, changed = check(study, summary)
        why = why or _tables_missing(study, summary)
        if why:
            return Stored(None, where, "refused", why, changed)
        return Stored(summary, where, "ok", "", changed)
    return Stored(None, "", "missing", "`ludolab report --deep DIR` makes one")
