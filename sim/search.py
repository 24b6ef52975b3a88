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
  ``[C_OBJ]`` what a playout is worth (``OBJ_POINTS`` the seat's return,
  ``OBJ_WINS`` its share of the other seats it finishes ahead of, ties 1/2),
  ``[C_KINDS + p]`` seat p's rollout policy kind;
* ``params`` float64 (players, n_params): the rollout policies' parameters;
* ``obs`` (OBS_SIZE,): the searching seat's observation; ``truth``
  (STATE_SIZE,): the true state (read only in ``ALL_SEEING`` mode);
* outputs: ``actions`` (MAX_ACTIONS,) the legal actions, ``sums`` float64
  (MAX_ACTIONS, 2): per action the sum and the sum of squares of the
  searching seat's playout value (its return, negated where the lowest is
  best, so higher is always better; or its share of seats beaten); the number
  of legal actions is returned.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import kernel_cache as _kernel_cache  # noqa: F401  (processes sharing the cache take turns)

from .rng import game_state, next_below, py_game_state, py_next_below

C_SEAT = 0
C_WORLDS = 1
C_PLAYERS = 2
C_LOWER = 3
C_KEY = 4
C_MODE = 5
C_MAXSTEPS = 6
C_SRNG = 7
C_OBJ = 8
C_KINDS = 9
CFG_SIZE = C_KINDS + 8

SAMPLED = 0
ALL_SEEING = 1

#: what a playout is worth to a seat (``cfg[C_OBJ]``)
OBJ_POINTS = 0   #: its return in points (negated where the lowest return is best)
OBJ_WINS = 1     #: its share of the other seats it finishes ahead of, ties 1/2 (the ladder's win share)
OBJECTIVES = {"points": OBJ_POINTS, "wins": OBJ_WINS}


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
def value(ret, p, cfg):
    """What the playout with returns ``ret`` (float64 (players,)) is worth to seat ``p``, higher better:
    under ``OBJ_POINTS`` its return (negated where the lowest is best); under ``OBJ_WINS`` the share of
    the other seats whose return is worse than its own, a tie counting 1/2 (1.0 with one seat)."""
    lower = cfg[C_LOWER] == 1
    if cfg[C_OBJ] == OBJ_POINTS:
        return -ret[p] if lower else ret[p]
    n = cfg[C_PLAYERS]
    if n < 2:
        return 1.0
    s = 0.0
    for q in range(n):
        if q != p:
            if ret[q] == ret[p]:
                s += 0.5
            elif (ret[q] > ret[p]) == lower:
                s += 1.0
    return s / (n - 1)


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
            v = value(ret, seat, cfg)
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


# ------------------------------------------------------------------ ISMCTS
#: per-node columns of the ISMCTS tree (float64 (capacity, N_COLS))
T_ACTION = 0     #: the action into the node
T_PARENT = 1
T_CHILD = 2      #: first child, -1 when none
T_SIBLING = 3    #: next sibling, -1 when none
T_PLAYER = 4     #: the seat whose action led to the node
T_VISITS = 5
T_REWARD = 6     #: sum of that seat's normalised returns
T_AVAIL = 7      #: times the node's action was legal when its parent was visited
N_COLS = 8
#: float settings of ISMCTS (float64 (F_SIZE,))
F_LOW = 0        #: lowest return a seat can get
F_HIGH = 1       #: highest
F_UCT = 2        #: exploration constant on returns normalised to [0, 1]
F_OWN = 3        #: 1.0: only the searching seat's decisions are tree nodes (the others play their rollout policy)
F_SIZE = 4
#: the stream of ISMCTS's own choices is keyed apart from the worlds'
_TREE_SALT = np.uint64(0x5EED5EED5EED5EED)


@njit(inline="always")
def _child_with(tree, node, a):
    c = np.int64(tree[node, T_CHILD])
    while c >= 0:
        if np.int64(tree[c, T_ACTION]) == a:
            return c
        c = np.int64(tree[c, T_SIBLING])
    return -1


@njit(inline="always")
def _reward(ret, p, fcfg, cfg):
    """Seat ``p``'s playout value in [0, 1]: its return normalised by the bounds (``OBJ_POINTS``),
    or its share of seats beaten (``OBJ_WINS``)."""
    if cfg[C_OBJ] == OBJ_WINS:
        return value(ret, p, cfg)
    x = (ret[p] - fcfg[F_LOW]) / (fcfg[F_HIGH] - fcfg[F_LOW])
    return 1.0 - x if cfg[C_LOWER] == 1 else x


@njit(inline="always")
def _count_untried(tree, node, legal, n):
    """How many of the ``n`` legal actions have no child of ``node`` yet; counts the others as available."""
    untried = 0
    for i in range(n):
        c = _child_with(tree, node, legal[i])
        if c < 0:
            untried += 1
        else:
            tree[c, T_AVAIL] += 1.0
    return untried


@njit(inline="always")
def _expand(tree, node, legal, n, untried, size, rs, p):
    """Add one of the ``untried`` legal actions of ``node``, drawn uniformly, as child ``size`` of seat ``p``.

    Returns:
        (the action, the tree stream after the draw).
    """
    j, rs = next_below(rs, untried)
    a = np.int64(-1)
    for i in range(n):
        if _child_with(tree, node, legal[i]) < 0:
            if j == 0:
                a = legal[i]
                break
            j -= 1
    c = size
    tree[c, T_ACTION] = a
    tree[c, T_PARENT] = node
    tree[c, T_CHILD] = -1
    tree[c, T_SIBLING] = tree[node, T_CHILD]
    tree[node, T_CHILD] = c
    tree[c, T_PLAYER] = p
    tree[c, T_VISITS] = 0.0
    tree[c, T_REWARD] = 0.0
    tree[c, T_AVAIL] = 1.0
    return a, rs


@njit(inline="always")
def _select(tree, node, legal, n, uct):
    """The child of ``node`` among the ``n`` legal actions with the highest UCB1 (availability counts)."""
    best = -1
    bv = -1.0
    for i in range(n):
        c = _child_with(tree, node, legal[i])
        v = tree[c, T_REWARD] / tree[c, T_VISITS] + uct * np.sqrt(np.log(tree[c, T_AVAIL]) / tree[c, T_VISITS])
        if v > bv:
            bv = v
            best = c
    return best


@njit(inline="always")
def _descend(current_player, legal_actions, apply_action, observe, act, rules, grow, fixed, size, rs):
    """Play ``sim`` down the tree from the root by UCB1, expanding one untried action where the tree has
    room.  ``grow`` is ``(sim, tree, path, legal)`` of :func:`ismcts`'s work arrays; ``path[1..depth]``
    gets the nodes passed.  ``fixed`` is ``(own, uct, cfg, params, obs2)``: UCB1's exploration constant,
    and with ``own`` true, a seat other than ``cfg[C_SEAT]`` plays its rollout policy on the way down
    instead of a tree node.

    Returns:
        (depth, the tree's size, the tree stream).
    """
    sim, tree, path, legal = grow
    own, uct, cfg, params, obs2 = fixed
    node = 0
    depth = 0
    path[0] = 0
    while True:
        p = current_player(sim)
        if p < 0:
            break
        if own and p != cfg[C_SEAT]:
            observe(rules, sim, p, obs2)
            apply_action(rules, sim, act(cfg[C_KINDS + p], params[p], obs2, sim))
            continue
        n = legal_actions(rules, sim, legal)
        untried = _count_untried(tree, node, legal, n)
        if untried > 0 and size < tree.shape[0]:
            a, rs = _expand(tree, node, legal, n, untried, size, rs, p)
            apply_action(rules, sim, a)
            depth += 1
            path[depth] = size
            size += 1
            break
        if untried > 0:  # the tree is full: play on without growing it
            break
        node = _select(tree, node, legal, n, uct)
        apply_action(rules, sim, np.int64(tree[node, T_ACTION]))
        depth += 1
        path[depth] = node
    return depth, size, rs


@njit(inline="always")
def ismcts(current_player, legal_actions, apply_action, observe, determinize, returns, act, rules, inp, work):
    """Single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012) at one decision.

    Each of ``cfg[C_WORLDS]`` iterations samples a world from the observation, descends
    the tree of action histories by UCB1 with availability counts (only children legal in
    this world compete), expands one untried legal action, plays out with the rollout
    policies and backs up each seat's normalised return to the nodes of its actions.

    With ``fcfg[F_OWN]`` set, only the searching seat's actions are tree nodes and every
    other seat plays its rollout policy throughout: a search of the seat's best reply to
    that field.  In ``ALL_SEEING`` mode against policies that draw no random numbers, in a
    game with no chance left, every iteration meets the same line of play for the same
    actions of the seat, so as the budget grows the most visited root action tends to the
    exact best reply knowing every card (``tests/test_bound_exact.py``: in the Books
    endgames there it is found at 8,000 playouts; in Shelve the Book, where 1-point
    differences sit on a 90-point scale, not in every game).

    Args:
        inp: ``(cfg, params, obs, truth, fcfg)``; ``fcfg`` float64 (F_SIZE,).
        work: ``(actions, stats, world, sim, obs2, ret, tree, path, legal)``: ``stats``
            float64 (MAX_ACTIONS, 2) gets each root action's visits and mean normalised
            return; ``tree`` float64 (iterations + 1, N_COLS); ``path`` int64 (max_steps + 1,);
            ``legal`` int64 (MAX_ACTIONS,) scratch.

    Returns:
        n, the number of legal actions at the root.
    """
    cfg, params, obs, truth, fcfg = inp
    actions, stats, world, sim, obs2, ret, tree, path, legal = work
    seat = cfg[C_SEAT]
    key = np.uint64(cfg[C_KEY])
    tree[0, T_CHILD] = -1
    tree[0, T_SIBLING] = -1
    tree[0, T_VISITS] = 0.0
    size = 1
    n_root = 0
    rs = game_state(key ^ _TREE_SALT, 0)
    for it in range(cfg[C_WORLDS]):
        if cfg[C_MODE] == ALL_SEEING:
            world[:] = truth
            world[cfg[C_SRNG]] = np.int64(game_state(key, it))
        else:
            determinize(rules, obs, seat, game_state(key, it), world)
        if it == 0:
            n_root = legal_actions(rules, world, actions)
        sim[:] = world
        depth, size, rs = _descend(current_player, legal_actions, apply_action, observe, act, rules,
                                   (sim, tree, path, legal), (fcfg[F_OWN] != 0.0, fcfg[F_UCT], cfg, params, obs2),
                                   size, rs)
        playout(current_player, legal_actions, apply_action, observe, act, rules, sim, cfg, params, obs2)
        returns(rules, sim, ret)
        for d in range(1, depth + 1):
            c = path[d]
            tree[c, T_VISITS] += 1.0
            tree[c, T_REWARD] += _reward(ret, np.int64(tree[c, T_PLAYER]), fcfg, cfg)
        tree[0, T_VISITS] += 1.0
    for i in range(n_root):
        c = _child_with(tree, 0, actions[i])
        stats[i, 0] = 0.0 if c < 0 else tree[c, T_VISITS]
        stats[i, 1] = 0.0 if c < 0 or tree[c, T_VISITS] == 0 else tree[c, T_REWARD] / tree[c, T_VISITS]
    return n_root


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


def py_value(ret, p: int, cfg) -> float:
    """Twin of :func:`value`."""
    lower = int(cfg[C_LOWER]) == 1
    if int(cfg[C_OBJ]) == OBJ_POINTS:
        return -float(ret[p]) if lower else float(ret[p])
    n = int(cfg[C_PLAYERS])
    if n < 2:
        return 1.0
    mine = float(ret[p])
    beaten = sum(0.5 if float(ret[q]) == mine else float((float(ret[q]) > mine) == lower) for q in range(n) if q != p)
    return beaten / (n - 1)


def py_pimc(m, rules, inp, work) -> int:
    """Twin of :func:`pimc` over the twin module ``m`` (the same arrays, the same draws)."""
    cfg, params, obs, truth = inp
    actions, sums, world, sim, obs2, ret = work
    seat = int(cfg[C_SEAT])
    key = int(cfg[C_KEY]) & _MASK64
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
            v = py_value(ret, seat, cfg)
            sums[i, 0] += v
            sums[i, 1] += v * v
    return n


def py_ismcts(m, rules, inp, work) -> int:
    """Twin of :func:`ismcts` over the twin module ``m`` (the same arrays, the same draws)."""
    cfg, params, obs, truth, fcfg = inp
    actions, stats, world, sim, obs2, ret, tree, path, legal = work
    seat, key, lower = int(cfg[C_SEAT]), int(cfg[C_KEY]) & _MASK64, int(cfg[C_LOWER])
    children: dict = {0: {}}  # node -> {action: child}
    info = {0: {"player": -1, "visits": 0.0, "reward": 0.0, "avail": 0.0, "action": -1}}
    rs = py_game_state(key ^ int(_TREE_SALT), 0)
    n_root = 0
    cap = tree.shape[0]
    for it in range(int(cfg[C_WORLDS])):
        if cfg[C_MODE] == ALL_SEEING:
            world[:] = truth
            world[int(cfg[C_SRNG])] = _i64(py_game_state(key, it))
        else:
            m.determinize(rules, obs, seat, py_game_state(key, it), world)
        if it == 0:
            n_root = int(m.legal_actions(rules, world, actions))
        sim[:] = world
        node, trail = 0, []
        while m.current_player(sim) >= 0:
            p = m.current_player(sim)
            if fcfg[F_OWN] != 0.0 and p != seat:
                m.observe(rules, sim, p, obs2)
                m.apply_action(rules, sim, m.act(int(cfg[C_KINDS + p]), params[p], obs2, sim))
                continue
            n = int(m.legal_actions(rules, sim, legal))
            acts = [int(x) for x in legal[:n]]
            kids = children[node]
            untried = [a for a in acts if a not in kids]
            for a in acts:
                if a in kids:
                    info[kids[a]]["avail"] += 1.0
            if untried and len(info) < cap:
                j, rs = py_next_below(rs, len(untried))
                a = untried[j]
                c = len(info)
                info[c] = {"player": p, "visits": 0.0, "reward": 0.0, "avail": 1.0, "action": a}
                children[c] = {}
                kids[a] = c
                m.apply_action(rules, sim, a)
                trail.append(c)
                break
            if untried:
                break
            best, bv = -1, -1.0
            for a in acts:
                c = kids[a]
                v = info[c]["reward"] / info[c]["visits"] + fcfg[F_UCT] * np.sqrt(
                    np.log(info[c]["avail"]) / info[c]["visits"])
                if v > bv:
                    best, bv = c, v
            m.apply_action(rules, sim, info[best]["action"])
            node = best
            trail.append(node)
        py_playout(m, rules, sim, cfg, params, obs2)
        m.returns(rules, sim, ret)
        for c in trail:
            p = info[c]["player"]
            info[c]["visits"] += 1.0
            if int(cfg[C_OBJ]) == OBJ_WINS:
                info[c]["reward"] += py_value(ret, p, cfg)
            else:
                x = (float(ret[p]) - fcfg[F_LOW]) / (fcfg[F_HIGH] - fcfg[F_LOW])
                info[c]["reward"] += 1.0 - x if lower == 1 else x
    for i in range(n_root):
        c = children[0].get(int(actions[i]))
        stats[i, 0] = 0.0 if c is None else info[c]["visits"]
        stats[i, 1] = 0.0 if c is None or info[c]["visits"] == 0 else info[c]["reward"] / info[c]["visits"]
    return n_root


# ------------------------------------------------------------------ the face
def work_arrays(kernels, n_players: int) -> tuple:
    """Fresh output and scratch arrays for :func:`pimc` on a game's kernels module."""
    return (np.zeros(kernels.MAX_ACTIONS, dtype=np.int64), np.zeros((kernels.MAX_ACTIONS, 2)),
            np.zeros(kernels.STATE_SIZE, dtype=np.int64), np.zeros(kernels.STATE_SIZE, dtype=np.int64),
            np.zeros(kernels.OBS_SIZE, dtype=np.int64), np.zeros(n_players))


def config(kernels, seat: int, worlds: int, n_players: int, lower_wins: bool, key: int, rollout,
           max_steps: int, mode: int = SAMPLED, objective: str = "points") -> tuple[np.ndarray, np.ndarray]:
    """``(cfg, params)`` for :func:`pimc` and :func:`ismcts`.

    Args:
        rollout: one ``(kind, params)`` per seat, the policy each seat plays in the playouts.
        key: the search's stream start (an int below 2**64).
        objective: what a playout is worth to a seat, a key of :data:`OBJECTIVES`: ``"points"``
            its return, ``"wins"`` its share of the other seats it finishes ahead of (ties 1/2),
            for a search that plays to win rather than to score.

    Raises:
        ValueError: worlds < 1, a seat out of range, rollout not one policy per seat, or an
            unknown objective (``"wins"`` needs two seats or more).
    """
    if int(worlds) < 1:
        raise ValueError(f"worlds must be >= 1, not {worlds}")
    if objective not in OBJECTIVES or (objective == "wins" and int(n_players) < 2):
        raise ValueError(f"objective {objective!r}: allowed {', '.join(OBJECTIVES)} (wins needs 2 seats or more)")
    if not 0 <= int(seat) < int(n_players) or len(rollout) != int(n_players) or n_players > CFG_SIZE - C_KINDS:
        raise ValueError(f"seat {seat} and {len(rollout)} rollout policies do not fit {n_players} players")
    cfg = np.zeros(CFG_SIZE, dtype=np.int64)
    cfg[C_SEAT], cfg[C_WORLDS], cfg[C_PLAYERS], cfg[C_LOWER] = int(seat), int(worlds), int(n_players), int(lower_wins)
    cfg[C_KEY] = _i64(int(key))
    cfg[C_MODE], cfg[C_MAXSTEPS], cfg[C_SRNG] = int(mode), int(max_steps), kernels.S_RNG
    cfg[C_OBJ] = OBJECTIVES[objective]
    width = max(len(p) for _, p in rollout)
    params = np.zeros((n_players, max(width, 1)))
    for p, (kind, par) in enumerate(rollout):
        cfg[C_KINDS + p] = int(kind)
        params[p, :len(par)] = par
    return cfg, params


def ismcts_work(kernels, n_players: int, iterations: int, max_steps: int) -> tuple:
    """Fresh output and scratch arrays for :func:`ismcts`."""
    return (*work_arrays(kernels, n_players), np.zeros((int(iterations) + 1, N_COLS)),
            np.zeros(int(max_steps) + 2, dtype=np.int64), np.zeros(kernels.MAX_ACTIONS, dtype=np.int64))


def ismcts_settings(low: float, high: float, uct: float = 0.7, own_only: bool = False) -> np.ndarray:
    """``fcfg`` for :func:`ismcts`: the return bounds (a seat's lowest and highest return), the
    exploration constant (on returns normalised to [0, 1]) and whether only the searching seat's
    decisions are tree nodes (``own_only``: the other seats play their rollout policies all the way).

    Raises:
        ValueError: high not above low, or a negative constant.
    """
    if not high > low or uct < 0:
        raise ValueError(f"need low < high and uct >= 0, not {low}, {high}, {uct}")
    f = np.zeros(F_SIZE)
    f[F_LOW], f[F_HIGH], f[F_UCT], f[F_OWN] = low, high, uct, 1.0 if own_only else 0.0
    return f


def action_values(sums: np.ndarray, n: int, worlds: int) -> tuple[np.ndarray, np.ndarray]:
    """Per action the mean return and its standard error over the worlds (float64 (n,) each)."""
    mean = sums[:n, 0] / worlds
    var = np.maximum(sums[:n, 1] / worlds - mean * mean, 0.0) * worlds / max(worlds - 1, 1)
    return mean, np.sqrt(var / worlds)
