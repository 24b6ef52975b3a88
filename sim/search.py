"""Determinized search over the step interface, written once for every game.

Perfect-information Monte Carlo (PIMC; Ginsberg's GIB, analysed by Frank and
Basin 1998 and Long et al. 2010): the searching seat sees only its
observation; each of ``worlds`` sampled worlds is a full state drawn by the
game's ``determinize`` from that observation, every legal action is played in
it and the game is played out by a named rollout policy for every seat; an
action's value is its mean return over the worlds.  Every action of a world
starts from the same copy of it, its random stream included, so the actions
meet the same cards and dice to come (common random numbers) and their
differences are paired.  The same code with the true state in place of the
sampled worlds is the all-seeing player (``ALL_SEEING``): an estimate of what
full information is worth, never a strategy to advise.

The generic functions take a game's step functions as arguments and are
``inline="always"``: each game's kernels module calls them from a small
``@njit(cache=True)`` wrapper (numba does not cache a function that receives
functions as arguments), so one specialisation per game is compiled and
cached.  Their pure-Python twins (``py_*``) take the twin module instead and
draw the same random numbers.

Arrays (all int64 unless said):

* ``cfg`` (CFG_SIZE,): ``[C_SEAT]`` the searching seat, ``[C_WORLDS]`` worlds
  to sample, ``[C_PLAYERS]`` seats, ``[C_LOWER]`` 1 where the lowest return is
  best, ``[C_KEY]`` the search's stream start (uint64 bits), ``[C_MODE]``
  ``SAMPLED`` or ``ALL_SEEING``, ``[C_MAXSTEPS]`` a bound on a playout's
  actions, ``[C_SRNG]`` the offset of the state's stream (``S_RNG``),
  ``[C_KINDS + p]`` seat p's rollout policy kind;
* ``params`` float64 (players, n_params): the rollout policies' parameters;
* ``obs`` (OBS_SIZE,): the searching seat's observation; ``truth``
  (STATE_SIZE,): the true state (read only in ``ALL_SEEING`` mode);
* outputs: ``actions`` (MAX_ACTIONS,) the legal actions, ``sums`` float64
  (MAX_ACTIONS, 2): per action the sum and the sum of squares of the
  searching seat's return (negated where the lowest is best, so higher is
  always better); the number of legal actions is returned.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .rng import game_state, py_game_state

C_SEAT = 0
C_WORLDS = 1
C_PLAYERS = 2
C_LOWER = 3
C_KEY = 4
C_MODE = 5
C_MAXSTEPS = 6
C_SRNG = 7
C_KINDS = 8
CFG_SIZE = C_KINDS + 8

SAMPLED = 0
ALL_SEEING = 1


@njit(inline="always")
def playout(current_player, legal_actions, apply_action, observe, act, rules, state, cfg, params, obs2):
    """Play ``state`` to the end with each seat's rollout policy; returns the actions taken.

    Raises:
        (numba) nothing; a playout longer than ``cfg[C_MAXSTEPS]`` stops there.
    """
    n = 0
    while n < cfg[C_MAXSTEPS]:
        p = current_player(state)
        if p < 0:
            break
        observe(rules, state, p, obs2)
        a = act(cfg[C_KINDS + p], params[p], obs2, state)
        apply_action(rules, state, a)
        n += 1
    return n


@njit(inline="always")
def pimc(current_player, legal_actions, apply_action, observe, determinize, returns, act, rules, inp, work):
    """Flat determinized search at one decision: see the module docstring.

    Args:
        inp: ``(cfg, params, obs, truth)``.
        work: ``(actions, sums, world, sim, obs2, ret)``: outputs and scratch
            (``world``, ``sim``: (STATE_SIZE,); ``obs2``: (OBS_SIZE,); ``ret``
            float64 (players,)).

    Returns:
        n, the number of legal actions (``actions[:n]``, ``sums[:n]``).
    """
    cfg, params, obs, truth = inp
    actions, sums, world, sim, obs2, ret = work
    seat = cfg[C_SEAT]
    key = np.uint64(cfg[C_KEY])
    sign = -1.0 if cfg[C_LOWER] == 1 else 1.0
    n = 0
    for w in range(cfg[C_WORLDS]):
        if cfg[C_MODE] == ALL_SEEING:
            world[:] = truth  # the chance to come is drawn anew in every world
            world[cfg[C_SRNG]] = np.int64(game_state(key, w))
        else:
            determinize(rules, obs, seat, game_state(key, w), world)
        if w == 0:
            n = legal_actions(rules, world, actions)
            for i in range(n):
                sums[i, 0] = 0.0
                sums[i, 1] = 0.0
        for i in range(n):
            sim[:] = world
            apply_action(rules, sim, actions[i])
            playout(current_player, legal_actions, apply_action, observe, act, rules, sim, cfg, params, obs2)
            returns(rules, sim, ret)
            v = sign * ret[seat]
            sums[i, 0] += v
            sums[i, 1] += v * v
    return n


@njit(cache=True)
def best_index(sums, n):
    """The index of the action with the highest sum (the lowest index among equals)."""
    b = 0
    for i in range(1, n):
        if sums[i, 0] > sums[b, 0]:
            b = i
    return b


# ----------------------------------------------------------------- pure Python
_MASK64 = (1 << 64) - 1


def _i64(x: int) -> int:
    x &= _MASK64
    return x - (1 << 64) if x >> 63 else x


def py_playout(m, rules, state, cfg, params, obs2) -> int:
    """Twin of :func:`playout` over the twin module ``m``."""
    n = 0
    while n < cfg[C_MAXSTEPS]:
        p = m.current_player(state)
        if p < 0:
            break
        m.observe(rules, state, p, obs2)
        a = m.act(int(cfg[C_KINDS + p]), params[p], obs2, state)
        m.apply_action(rules, state, a)
        n += 1
    return n


def py_pimc(m, rules, inp, work) -> int:
    """Twin of :func:`pimc` over the twin module ``m`` (the same arrays, the same draws)."""
    cfg, params, obs, truth = inp
    actions, sums, world, sim, obs2, ret = work
    seat = int(cfg[C_SEAT])
    key = int(cfg[C_KEY]) & _MASK64
    sign = -1.0 if cfg[C_LOWER] == 1 else 1.0
    n = 0
    for w in range(int(cfg[C_WORLDS])):
        if cfg[C_MODE] == ALL_SEEING:
            world[:] = truth
            world[int(cfg[C_SRNG])] = _i64(py_game_state(key, w))
        else:
            m.determinize(rules, obs, seat, py_game_state(key, w), world)
        if w == 0:
            n = int(m.legal_actions(rules, world, actions))
            sums[:n] = 0.0
        for i in range(n):
            sim[:] = world
            m.apply_action(rules, sim, int(actions[i]))
            py_playout(m, rules, sim, cfg, params, obs2)
            m.returns(rules, sim, ret)
            v = sign * float(ret[seat])
            sums[i, 0] += v
            sums[i, 1] += v * v
    return n


# ------------------------------------------------------------------ the face
def work_arrays(kernels, n_players: int) -> tuple:
    """Fresh output and scratch arrays for :func:`pimc` on a game's kernels module."""
    return (np.zeros(kernels.MAX_ACTIONS, dtype=np.int64), np.zeros((kernels.MAX_ACTIONS, 2)),
            np.zeros(kernels.STATE_SIZE, dtype=np.int64), np.zeros(kernels.STATE_SIZE, dtype=np.int64),
            np.zeros(kernels.OBS_SIZE, dtype=np.int64), np.zeros(n_players))


def config(kernels, seat: int, worlds: int, n_players: int, lower_wins: bool, key: int, rollout,
           max_steps: int, mode: int = SAMPLED) -> tuple[np.ndarray, np.ndarray]:
    """``(cfg, params)`` for :func:`pimc`.

    Args:
        rollout: one ``(kind, params)`` per seat, the policy each seat plays in the playouts.
        key: the search's stream start (an int below 2**64).

    Raises:
        ValueError: worlds < 1, a seat out of range, or rollout not one policy per seat.
    """
    if int(worlds) < 1:
        raise ValueError(f"worlds must be >= 1, not {worlds}")
    if not 0 <= int(seat) < int(n_players) or len(rollout) != int(n_players) or n_players > CFG_SIZE - C_KINDS:
        raise ValueError(f"seat {seat} and {len(rollout)} rollout policies do not fit {n_players} players")
    cfg = np.zeros(CFG_SIZE, dtype=np.int64)
    cfg[C_SEAT], cfg[C_WORLDS], cfg[C_PLAYERS], cfg[C_LOWER] = int(seat), int(worlds), int(n_players), int(lower_wins)
    cfg[C_KEY] = _i64(int(key))
    cfg[C_MODE], cfg[C_MAXSTEPS], cfg[C_SRNG] = int(mode), int(max_steps), kernels.S_RNG
    width = max(len(p) for _, p in rollout)
    params = np.zeros((n_players, max(width, 1)))
    for p, (kind, par) in enumerate(rollout):
        cfg[C_KINDS + p] = int(kind)
        params[p, :len(par)] = par
    return cfg, params


def action_values(sums: np.ndarray, n: int, worlds: int) -> tuple[np.ndarray, np.ndarray]:
    """Per action the mean return and its standard error over the worlds (float64 (n,) each)."""
    mean = sums[:n, 0] / worlds
    var = np.maximum(sums[:n, 1] / worlds - mean * mean, 0.0) * worlds / max(worlds - 1, 1)
    return mean, np.sqrt(var / worlds)
