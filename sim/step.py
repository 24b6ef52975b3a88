"""The step interface: every game, one decision at a time, by the same names.

Each game's kernels module (``ludolab.sim.<game>_kernels``) defines these
``@njit(cache=True)`` functions over one int64 **state** array with named
offsets (the game's random stream included, at the offset ``S_RNG``) and an
int64 **rules** array (built by the game's face from its ruleset):

``new_game(rules, key, state)``
    Deal or set up game ``key`` in ``state`` (shape ``(STATE_SIZE,)``, int64).
    ``key`` is the game's own stream start, ``game_state(chunk_key, g)`` of
    :mod:`ludolab.sim.rng`, exactly as the game's fast simulate kernel starts
    game ``g`` of a chunk; the stream then lives in ``state[S_RNG]`` (its
    uint64 bits) and every later draw, chance or policy, comes from there.
``current_player(state) -> int``
    The seat to act, 0-based; -1 once the game is over.  Chance is never a
    player: it happens inside ``new_game`` and ``apply_action`` through the
    game's one random seam (dice roll, shuffle, draw).
``legal_actions(rules, state, out) -> n``
    Writes the ``n`` legal actions, ascending, into ``out[:n]`` (shape
    ``(MAX_ACTIONS,)``, int64).  ``n >= 1`` whenever ``current_player >= 0``.
``apply_action(rules, state, action)``
    Plays one action of the current player in place (then any chance that
    follows, drawn from ``state[S_RNG]``).
``observe(rules, state, seat, obs)``
    Writes into ``obs`` (shape ``(OBS_SIZE,)``, int64) exactly what ``seat``
    knows: public cards, its own hidden cards, its memory where the game has
    one, the phase of the turn; never a card it has not seen.
``determinize(rules, obs, seat, key, state)``
    Writes into ``state`` a full state consistent with ``obs`` (the cards
    ``seat`` cannot see dealt uniformly among the arrangements consistent
    with it), drawing from the stream start ``key``, then sets the state's
    own stream to a state derived from ``key``.  ``observe`` of the result for
    ``seat`` equals ``obs``.
``is_terminal(state) -> bool``
``returns(rules, state, out)``
    Points per seat into ``out[:n_players]`` (float64), in the game's own
    units (points scored; Beverbende's penalty points, where lower is better).
``act(kind, params, obs, state) -> action``
    A named policy: ``kind`` an int64 id, ``params`` its float64 parameter
    vector.  It decides from ``obs`` alone; ``state`` is passed only for its
    stream (``state[S_RNG]``), which it advances exactly as the fast kernels
    do for the same policy, and only for its own random choices.

An action is a small non-negative int whose encoding each game documents in
its kernels module (a turn with several decisions is several actions).

The pure-Python twin (``ludolab.sim.<game>_reference``) defines the same nine
functions, with the same arguments and the same effect on the same arrays
(numpy int64 arrays), drawing the same random numbers.

What else a game provides is :class:`StepGame`, returned by ``step_game()``
of its face (``ludolab.sim.<game>``); the harness in
``tests/test_step_interface.py`` checks every item of it for every
registered game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Callable, Sequence

import numpy as np

#: The names a kernels module and its twin must define, in the order above.
STEP_FUNCTIONS = ("new_game", "current_player", "legal_actions", "apply_action", "observe",
                  "determinize", "is_terminal", "returns", "act")

#: The game's running score and its one-line cached wrappers of the loops written once
#: (:mod:`ludolab.sim.play`, :mod:`ludolab.sim.search`), which the kernels module defines too:
#: ``running_score(rules, state, out) -> k`` writes each seat's running score (the lead is
#: read from it) and returns the scoring moments complete (hands, rounds, rounds of placements).
STEP_LOOPS = ("running_score", "play_many", "play_traced_many", "search", "search_tree")

#: The module constants the harness reads.
STEP_CONSTANTS = ("STATE_SIZE", "OBS_SIZE", "MAX_ACTIONS", "S_RNG")

#: What a column of a fast simulate kernel's accumulator holds, as the harness
#: computes it from step-interface playouts of the same keys:
#:   ``games``      1 per game;
#:   ``points``     the seat's return;
#:   ``points_sq``  the square of the seat's return;
#:   ``wins``       1 when the seat has the best return (highest, or lowest
#:                  where ``StepGame.lower_wins``); ties per ``Column.ties``;
#:   ``decisions``  the number of actions taken by the seat (all seats when
#:                  ``seat`` is None);
#:   ``event``      ``Column.event(rules, before, seat, action, after)``
#:                  summed over every step of the game (a game's own counts,
#:                  read from the trace of states, never from its kernels);
#:   ``final``      ``Column.final(rules, state)`` of the final state.
COLUMN_KINDS = ("games", "points", "points_sq", "wins", "decisions", "event", "final")


@dataclass(frozen=True)
class Column:
    """One entry of a fast simulate kernel's accumulator, described as data.

    Attributes:
        index: index into the accumulator summed over chunks (a tuple for a
            multi-dimensional one).
        kind: one of :data:`COLUMN_KINDS`.
        seat: the seat it is about (None for the whole table).
        ties: for ``wins``: ``"all"`` (every tied best seat counts 1),
            ``"split"`` (1/k each), ``"sole"`` (only an untied best counts) or
            ``"tiebreak"`` (``StepGame.winner(rules, state)`` names the one winner,
            or a sequence of the seats that share the win equally after the tie-break).
        event: for ``event``: ``event(rules, before, seat, action, after) -> float``.
        final: for ``final``: ``final(rules, state) -> float``.
        name: what it means, for messages.
    """

    index: tuple
    kind: str
    seat: int | None = None
    ties: str = "all"
    event: Callable | None = None
    final: Callable | None = None
    name: str = ""


@dataclass(frozen=True)
class RulesCase:
    """One ruleset the harness plays: a label, the rules array and the seat policies.

    Attributes:
        label: for test ids (``"4p-rulebook"``).
        rules: the int64 rules array.
        n_players: seats at the table.
        policies: one ``(kind, params)`` per seat for the accumulator and
            whole-game checks (any named policies of the game).
        named: name -> ``(kind, params)`` of every named policy under these
            rules, where a policy's parameters depend on the rules (a Shut the
            Box policy table); None: the game's ``StepGame.policies``.
    """

    label: str
    rules: np.ndarray
    n_players: int
    policies: tuple
    named: dict | None = None


@dataclass(frozen=True)
class StepGame:
    """Everything the step-interface harness needs of one game.

    Attributes:
        kernels: the kernels module (defines :data:`STEP_FUNCTIONS` and
            :data:`STEP_CONSTANTS`, the step functions ``@njit``).
        twin: the pure-Python twin module (the same names, pure Python).
        cases: the rulesets to play (at least the default one and each player count).
        policies: name -> ``(kind, params)`` for every named policy of the game.
        max_steps: ``max_steps(rules) -> int``, a bound on the actions of one game.
        return_bounds: ``return_bounds(rules) -> (low, high)``, each seat's return within.
        check_state: ``check_state(rules, state) -> None``; raises AssertionError
            naming the broken invariant (cards or tiles conserved, counts in range).
        simulate: ``simulate(rules, policies, chunk_keys, games_per_chunk) -> acc``:
            the fast whole-game kernel on chunk keys (uint64 array), chunk ``c``
            playing games ``g = 0 .. games_per_chunk - 1`` with streams
            ``game_state(chunk_keys[c], g)``; returns the accumulator summed over chunks.
        accumulator: ``accumulator(case) -> list[Column]``: every column the
            harness can compute, described once.
        fast_games: ``fast_games(rules, policies, keys) -> list``: the fast
            kernels' trace of each game (its action sequence, as the kernels'
            tracing mode records it), one list of ints per key.
        lower_wins: True where the lowest return wins (Beverbende).
        winner: for ``ties="tiebreak"`` columns: ``winner(rules, state) -> seat``, or a
            sequence of seats where players still tied after the tie-break share the win.
        hidden_perturbations: optional ``perturb(rules, state, seat, rng) -> state``
            giving a state that differs from ``state`` only in what ``seat``
            cannot see (the harness also uses ``determinize``).
        extra: the game's own items, by name; among them, optionally,
            ``"policies_for"``: ``policies_for(rules) -> dict`` name -> ``(kind, params)``
            of the named policies for that rules array (the same play as ``policies``,
            with parameters that may carry tables built once for the ruleset); and
            ``"enumerate_worlds"``: ``enumerate_worlds(rules, obs, seat, limit) -> Worlds``, every
            world ``determinize`` can deal from ``obs`` once (:mod:`ludolab.sim.worlds`), which
            makes the advice exact in an endgame.
    """

    kernels: ModuleType
    twin: ModuleType
    cases: Sequence[RulesCase]
    policies: dict
    max_steps: Callable
    return_bounds: Callable
    check_state: Callable
    simulate: Callable
    accumulator: Callable
    fast_games: Callable
    lower_wins: bool = False
    winner: Callable | None = None
    hidden_perturbations: Callable | None = None
    extra: dict = field(default_factory=dict)


def named_policies(game: "StepGame", case: RulesCase) -> dict:
    """Every named policy of ``game`` under the rules of ``case``: name -> ``(kind, params)``."""
    return game.policies if case.named is None else case.named


def stream_bits(state: np.ndarray, s_rng: int) -> int:
    """The uint64 stream state kept at ``state[s_rng]`` (stored as int64 bits)."""
    return int(np.int64(state[s_rng]).view(np.uint64))


def expected_totals(game: StepGame, case: RulesCase, columns: list, playouts: list) -> dict:
    """Totals of each accumulator column computed from step-interface playouts.

    Args:
        playouts: one ``(trace, final_state, returns)`` per game, ``trace`` a
            list of ``(before, seat, action, after)``.

    Returns:
        ``{column.index: total}`` (float).

    Raises:
        ValueError: naming an unknown column kind.
    """
    totals = {c.index: 0.0 for c in columns}
    n = case.n_players
    for trace, final, ret in playouts:
        r = np.asarray(ret[:n], dtype=float)
        best = r.min() if game.lower_wins else r.max()
        tied = [s for s in range(n) if r[s] == best]
        for c in columns:
            totals[c.index] += _column_value(game, case, c, trace, final, r, tied)
    return totals


def _column_value(game, case, c, trace, final, r, tied) -> float:
    if c.kind == "games":
        return 1.0
    if c.kind == "points":
        return float(r[c.seat])
    if c.kind == "points_sq":
        return float(r[c.seat]) ** 2
    if c.kind == "wins":
        if c.ties == "tiebreak":
            w = game.winner(case.rules, final)
            if np.ndim(w) == 0:
                return 1.0 if int(w) == c.seat else 0.0
            w = [int(x) for x in w]  # the seats still tied after the tie-break share the win
            return 1.0 / len(w) if c.seat in w else 0.0
        if c.seat not in tied:
            return 0.0
        if c.ties == "all":
            return 1.0
        if c.ties == "split":
            return 1.0 / len(tied)
        if c.ties == "sole":
            return 1.0 if len(tied) == 1 else 0.0
        raise ValueError(f"unknown ties rule {c.ties!r}: allowed all, split, sole, tiebreak")
    if c.kind == "decisions":
        return float(sum(1 for _, s, _, _ in trace if c.seat is None or s == c.seat))
    if c.kind == "event":
        return float(sum(c.event(case.rules, b, s, a, af) for b, s, a, af in trace))
    if c.kind == "final":
        return float(c.final(case.rules, final))
    raise ValueError(f"unknown column kind {c.kind!r}: allowed {', '.join(COLUMN_KINDS)}")
