"""Toy games whose balance measures are known, for the tests only (not registered).

Each is a two-seat game on the step interface (the functions the measures
need): ``coin`` (each seat names a side, a coin decides: no skill, no seat
edge), ``first`` (each seat moves once, seat 1 always wins: seat edge 1/2 of
two seats, i.e. its win share is 1), ``fixed`` (seat 1's first move names the
winner, then four moves that change nothing, the running score showing the
winner ahead from the first move: decisiveness 0), and ``skill`` (each seat
picks a number 0..3 and the higher pick plus a die wins: the policy matters).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ludolab.sim import play as _play
from ludolab.sim.rng import next_below

S_RNG = 0
S_TURN = 1
S_KIND = 2
S_PICK = 3   # + seat
S_RET = 5    # + seat
S_DONE = 7
STATE_SIZE = 8
OBS_SIZE = 4
MAX_ACTIONS = 4
COIN, FIRST, FIXED, SKILL = 0, 1, 2, 3
LENGTH = (2, 2, 5, 2)
K_RANDOM = 0
K_BEST = 1


@njit(cache=True)
def new_game(rules, key, state):
    state[:] = 0
    state[S_RNG] = np.int64(np.uint64(key))
    state[S_KIND] = rules[0]


@njit(cache=True)
def current_player(state):
    if state[S_DONE] == 1:
        return -1
    return state[S_TURN] % 2


@njit(cache=True)
def legal_actions(rules, state, out):
    n = 4 if state[S_KIND] == SKILL else 2
    for i in range(n):
        out[i] = i
    return n


@njit(cache=True)
def apply_action(rules, state, action):
    kind = state[S_KIND]
    t = state[S_TURN]
    if t < 2:
        state[S_PICK + t] = action
    if kind == FIXED and t == 0:
        state[S_RET + action] = 1  # the first move names the winner
    state[S_TURN] = t + 1
    if state[S_TURN] < LENGTH[kind]:
        return
    state[S_DONE] = 1
    st = np.uint64(state[S_RNG])
    if kind == COIN:
        u, st = next_below(st, 2)
        state[S_RET + u] = 1
    elif kind == FIRST:
        state[S_RET + 0] = 1
    elif kind == SKILL:
        u, st = next_below(st, 2)
        a = state[S_PICK] + u
        b = state[S_PICK + 1]
        state[S_RET + (0 if a > b else 1)] = 1
    state[S_RNG] = np.int64(st)


@njit(cache=True)
def observe(rules, state, seat, obs):
    obs[0] = seat
    obs[1] = state[S_TURN]
    obs[2] = state[S_KIND]
    obs[3] = 0


@njit(cache=True)
def returns(rules, state, out):
    out[0] = state[S_RET]
    out[1] = state[S_RET + 1]


@njit(cache=True)
def act(kind, params, obs, state):
    n = 4 if obs[2] == SKILL else 2
    if kind == K_BEST:
        return n - 1
    st = np.uint64(state[S_RNG])
    u, st = next_below(st, n)
    state[S_RNG] = np.int64(st)
    return u


@njit(cache=True)
def running_score(rules, state, out):
    out[0] = state[S_RET]
    out[1] = state[S_RET + 1]
    return state[S_TURN]


@njit(cache=True, nogil=True)
def play_traced_many(rules, inp, out):
    _play.play_traced(new_game, current_player, apply_action, observe, returns, act, running_score,
                      rules, inp, out)


@njit(cache=True, nogil=True)
def play_many(rules, inp, out):
    _play.play_games(new_game, current_player, legal_actions, apply_action, observe, returns, act, rules, inp, out)


def step_game(kind: int):
    """What the ladder and the skill chain read of a step game, for toy game ``kind`` at two seats."""
    from types import SimpleNamespace

    case = SimpleNamespace(rules=np.array([kind], dtype=np.int64), n_players=2, named=None, label="toy")
    return SimpleNamespace(kernels=__import__(__name__), cases=[case], lower_wins=False,
                           policies={"best": (K_BEST, np.zeros(1)), "random": (K_RANDOM, np.zeros(1))},
                           max_steps=lambda rules: max(LENGTH), return_bounds=lambda rules: (0.0, 1.0),
                           extra={"best": "best", "random": "random"})
