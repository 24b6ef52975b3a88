"""Fill numba's on-disk cache with the kernels every test session needs, one game (or study) at a time.

``python tests/kernel_warmup.py box books`` compiles (or loads) the kernels of those games: a
tiny three-tile box through the solver, the evaluator and every simulation loop, and two games
of each named game through its step interface and compiled whole-game loop.  The test session
calls :func:`warm` in every process; with several workers, ``conftest.py`` first runs one such
process per game side by side, so the workers load the kernels instead of each compiling all of
them at the same time.
"""

from __future__ import annotations

import sys

#: Parts whose kernels take longest to compile, longest first (any other registered game after them).
SLOWEST_FIRST = ("books", "shelf", "books-accuracy", "books-games", "books-records", "box", "beverbende")
#: Shut The Books' compiled studies, each as long to compile as a game's step functions: a part of its own,
#: started once the part it names has filled the cache with the step functions they share.
AFTER = {"books-accuracy": "books", "books-games": "books", "books-records": "books"}


def parts() -> list[str]:
    """Every registered game's id and Shut The Books' study parts, the slowest to compile first."""
    from ludolab.stdlib import registry

    ids = [g.id for g in registry.GAMES] + list(AFTER)
    return sorted(ids, key=lambda i: SLOWEST_FIRST.index(i) if i in SLOWEST_FIRST else len(SLOWEST_FIRST))


def _warm_books_studies(part: str) -> None:
    """One of Shut The Books' compiled studies on a few deals: the accuracy study's hands (the report and
    the accuracy command), whole games (simulate), or the traced hands its records are checked against."""
    from ludolab.sim import books as S
    from ludolab.stdlib.books import BooksRules

    if part == "books-accuracy":
        S.accuracy(BooksRules(4), [("heuristic", "heuristic")], hands=2, chunks=2)
    elif part == "books-games":
        S.simulate(BooksRules(3), games=2, chunks=2)
    else:
        S.conformance().play(11, 1, "kernel")


def _warm_box() -> None:
    """Shut the Box's solver, evaluator and simulation loops on a three-tile box."""
    from ludolab.sim import box as B
    from ludolab.stdlib.box import BoxRules

    tiny = BoxRules(tiles="1-3", one_die="always-optional")
    sol = B.solve(tiny, "shut")
    B.evaluate(sol.policy())
    rnd = B.make_policy(tiny, "random")
    B.simulate(rnd, 20, seed=0, chunks=2)
    B.compare([sol.policy(), rnd], 20, seed=0, chunks=2)
    B.simulate_rounds([rnd, rnd], 10, seed=0, rounds=2, chunks=2)
    B.simulate_rounds([rnd, rnd], 10, seed=0, rounds=None, threshold=5, chunks=2)


def _warm_steps(game_id: str) -> None:
    """Two games of the game's first step case through ``play_many`` (its step functions and
    named policies), and one decision of its determinized search (``search``), which the advice,
    ladder, search and play-page tests all run."""
    import numpy as np

    from ludolab.sim import play, search
    from ludolab.sim.rng import game_state
    from ludolab.stdlib import registry

    step = registry.get(game_id).entry("step_game")()
    case = step.cases[0]
    k = step.kernels
    play.run(k, case.rules, np.array([1, 2], dtype=np.uint64), list(case.policies))
    state, obs = np.zeros(k.STATE_SIZE, dtype=np.int64), np.zeros(k.OBS_SIZE, dtype=np.int64)
    k.new_game(case.rules, np.uint64(game_state(np.uint64(1), np.uint64(0))), state)
    seat = int(k.current_player(state))
    k.observe(case.rules, state, seat, obs)
    rollout = [step.policies[step.extra["best"]]] * case.n_players
    cfg, params = search.config(k, seat, 1, case.n_players, step.lower_wins, 1, rollout,
                                int(step.max_steps(case.rules)))
    k.search(case.rules, (cfg, params, obs, np.zeros(k.STATE_SIZE, dtype=np.int64)),
             search.work_arrays(k, case.n_players))


def warm(games=None) -> None:
    """Compile or load the kernels of ``games`` (registered game ids or study parts of :data:`AFTER`;
    None: every game, the studies left to load when a test first runs them).

    Raises:
        ValueError: an id that is neither a registered game nor a study part."""
    known = parts()
    for p in [k for k in known if k not in AFTER] if games is None else games:  # the studies load when used
        if p not in known:
            raise ValueError(f"unknown game {p!r}; known: {', '.join(known)}")
        if p in AFTER:
            _warm_books_studies(p)
            continue
        if p == "box":
            _warm_box()
        _warm_steps(p)


if __name__ == "__main__":
    warm(sys.argv[1:] or None)
