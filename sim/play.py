"""Whole games through the step interface, written once for every game.

:func:`play_games` plays a batch of games, each seat by a named policy
(``act``), from the games' keys; each game's kernels module calls it from a
small ``@njit(cache=True)`` wrapper ``play_many(rules, inp, out)``, so the
loop runs compiled at kernel speed for every game alike.  It is what the
strength ladder, the balance metrics and the tests use to play many games of
fixed policies; :mod:`ludolab.sim.ladder` drives search players decision by
decision.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import kernel_cache as _kernel_cache  # noqa: F401  (processes sharing the cache take turns)


@njit(inline="always")
def policy_step(current_player, apply_action, observe, act, rules, state, kinds, params, obs):
    """One action of the seat to act, by its named policy; returns that seat, or -1 at the end."""
    p = current_player(state)
    if p >= 0:
        observe(rules, state, p, obs)
        apply_action(rules, state, act(kinds[p], params[p], obs, state))
    return p


@njit(inline="always")
def play_games(new_game, current_player, legal_actions, apply_action, observe, returns, act, rules, inp, out):
    """Play one game per key with one named policy per seat.

    Args:
        inp: ``(keys, kinds, params)``: uint64 (G,) the games' stream starts
            (``game_state(chunk_key, g)``), int64 (P,) each seat's policy kind,
            float64 (P, n) its parameters.
        out: ``(ret, steps, state, obs)``: float64 (G, P) each seat's return,
            int64 (G, P) the actions each seat took; scratch int64 (STATE_SIZE,)
            and (OBS_SIZE,).
    """
    keys, kinds, params = inp
    ret, steps, state, obs = out
    for g in range(keys.shape[0]):
        new_game(rules, keys[g], state)
        while True:
            p = policy_step(current_player, apply_action, observe, act, rules, state, kinds, params, obs)
            if p < 0:
                break
            steps[g, p] += 1
        returns(rules, state, ret[g])


def pack(keys, policies) -> tuple:
    """``(keys, kinds, params)`` as the compiled loops take them: uint64 (G,), int64 (P,) and
    float64 (P, n) from one ``(kind, params)`` per seat.

    Raises:
        ValueError: no policies.
    """
    if not policies:
        raise ValueError("one policy per seat is needed, not none")
    width = max(max(len(p) for _, p in policies), 1)
    kinds = np.array([int(k) for k, _ in policies], dtype=np.int64)
    params = np.zeros((len(policies), width))
    for i, (_, p) in enumerate(policies):
        params[i, :len(p)] = p
    return np.ascontiguousarray(keys, dtype=np.uint64), kinds, params


def run(kernels, rules: np.ndarray, keys, policies) -> tuple[np.ndarray, np.ndarray]:
    """Games of named policies through a kernels module's ``play_many``, on every numba thread
    (:func:`in_threads`: the games are split into contiguous blocks; each game depends only on its
    key, so the results do not depend on the thread count).

    Args:
        kernels: a game's kernels module.
        rules: its int64 rules array.
        keys: the games' stream starts (uint64 (G,)).
        policies: one ``(kind, params)`` per seat.

    Returns:
        ``(ret, steps)``: float64 (G, P) the returns, int64 (G, P) the actions per seat.

    Raises:
        ValueError: no policies.
    """
    keys, kinds, params = pack(keys, policies)
    n = len(policies)
    ret = np.zeros((len(keys), n))
    steps = np.zeros((len(keys), n), dtype=np.int64)

    def block(a, b):
        out = (ret[a:b], steps[a:b], np.zeros(kernels.STATE_SIZE, dtype=np.int64),
               np.zeros(kernels.OBS_SIZE, dtype=np.int64))
        kernels.play_many(rules, (keys[a:b], kinds, params), out)

    in_threads(block, len(keys))
    return ret, steps


#: Fewest games a thread is given by :func:`in_threads` (below it, fewer threads are used).
MIN_GAMES_A_THREAD = 64


def in_threads(block, games: int, threads: int | None = None) -> None:
    """Call ``block(a, b)`` on contiguous blocks covering games ``0..games``, one block a thread.

    The per-game wrappers (``play_many``, ``play_traced_many``) release the GIL (``nogil``), so the
    blocks run side by side; ``threads`` defaults to numba's thread count (``--threads``,
    ``NUMBA_NUM_THREADS``), and each thread gets at least :data:`MIN_GAMES_A_THREAD` games.
    An exception in a block is raised here."""
    import numba

    t = int(threads or numba.get_num_threads())
    t = max(1, min(t, games // MIN_GAMES_A_THREAD))
    if t == 1:
        block(0, games)
        return
    from concurrent.futures import ThreadPoolExecutor

    edges = [games * i // t for i in range(t + 1)]
    with ThreadPoolExecutor(t) as pool:
        for f in [pool.submit(block, edges[i], edges[i + 1]) for i in range(t)]:
            f.result()


@njit(inline="always")
def play_traced(new_game, current_player, apply_action, observe, returns, act, running_score, rules, inp, out):
    """:func:`play_games` that also records the running score at every scoring moment.

    ``running_score(rules, state, score) -> k`` writes each seat's running score
    (float64 (P,), in the game's units) and returns how many scoring moments
    (hands, rounds, rounds of placements) are complete; a moment is recorded
    each time k grows, and the final returns are recorded last.

    Args:
        inp: ``(keys, kinds, params)`` as in :func:`play_games`.
        out: ``(ret, steps, marks, scores, state, obs, score)``: float64 (G, P)
            returns; int64 (G, P) actions per seat; int64 (G,) moments
            recorded; float64 (G, M, P) the running scores at each moment, the end
            last (M must hold every moment of a game: beyond M - 1 moments the
            latest overwrites slot M - 2);
            scratch state, observation and float64 (P,) score.
    """
    keys, kinds, params = inp
    ret, steps, marks, scores, state, obs, score = out
    m_cap = scores.shape[1]
    for g in range(keys.shape[0]):
        new_game(rules, keys[g], state)
        done = 0
        n = 0
        while True:
            p = policy_step(current_player, apply_action, observe, act, rules, state, kinds, params, obs)
            if p < 0:
                break
            steps[g, p] += 1
            k = running_score(rules, state, score)
            if k > done and current_player(state) >= 0:
                done = k
                if n < m_cap - 1:
                    scores[g, n, :] = score
                    n += 1
                else:
                    scores[g, m_cap - 2, :] = score
        returns(rules, state, ret[g])
        scores[g, n, :] = ret[g]
        marks[g] = n + 1


def run_traced(kernels, rules: np.ndarray, keys, policies, moments: int) -> dict:
    """Games of named policies with their running scores, through ``kernels.play_traced_many``, on
    every numba thread as :func:`run`.

    Args:
        moments: room for the scoring moments of one game (its bound, the end included).

    Returns:
        dict of ``ret`` float64 (G, P), ``steps`` int64 (G, P), ``marks`` int64 (G,),
        ``scores`` float64 (G, moments, P).
    """
    keys, kinds, params = pack(keys, policies)
    n = len(policies)
    G = len(keys)
    ret, steps = np.zeros((G, n)), np.zeros((G, n), dtype=np.int64)
    marks, scores = np.zeros(G, dtype=np.int64), np.zeros((G, int(moments), n))

    def block(a, b):
        out = (ret[a:b], steps[a:b], marks[a:b], scores[a:b], np.zeros(kernels.STATE_SIZE, dtype=np.int64),
               np.zeros(kernels.OBS_SIZE, dtype=np.int64), np.zeros(n))
        kernels.play_traced_many(rules, (keys[a:b], kinds, params), out)

    in_threads(block, G)
    return {"ret": ret, "steps": steps, "marks": marks, "scores": scores}
