"""Luck against skill in Shut the Box: the value of foresight (STB-O5), exactly.

A player with *foresight* knows, before the turn starts, every die that will be
thrown in it: the dice are thrown in advance as one sequence of faces, and each
roll takes the next faces from it (two faces for a roll of two dice, one for a
roll of one die, STB-2, STB-6).  Such a player still plays by the rules (a roll
that can be covered must be covered, STB-4, STB-7) but picks the moves and the
dice counts knowing the whole sequence.  Their chance to shut the box and their
mean score are upper bounds on what any real player can reach; set beside
random play, the best named heuristic and optimal play they say how much of
the game is skill and how much is luck (:func:`foresight_table`).

Method (exact, no sampling).  Knowing the sequence, the player takes the best
of all the paths it allows, so the result of one sequence is the lowest final
score over the paths.  The paths are followed all at once, face by face: after
some faces the *knowledge set* is the set of positions the player could be in
(open tiles, plus the faces already thrown of a roll not yet complete), and the
lowest score of the paths that already had to stop.  Every path meets the same
next face, so the next face moves the whole set at once:

    F(set, best) = sum over faces f of 1/S * F(set after f, best after f)

ending when the set is empty (the value is ``best``) or holds the shut box
(the value is 0).  ``F`` is memoised on (set, best); ``best`` is forgotten once
no path in the set can end above it (the scores only fall as tiles are
covered), which keeps the memo small.  The lowest score of a sequence is 0
exactly when some path shuts the box, so one pass gives both the chance to
shut and the mean score of the foresight player.  With 9 tiles and the default
rules the memo holds about 12,000 knowledge sets; two dice always on 12 tiles
about 55,000.  When the sets outgrow
``max_sets`` (one die or two before every roll lets the paths drift apart on
the sequence) the computation stops with a :class:`ForesightError`: one die or two
before every roll fits up to 8 tiles (about 113,000 sets), thai moves up to 7 tiles with two
dice always and 6 with the default one-die rule.

Two engines give the same floats: the numba kernel
(:mod:`ludolab.sim.box_foresight_kernels`, the default, tens of milliseconds on
9 tiles) and its pure-Python twin :class:`_Search` (``engine="reference"``,
about a second), which alone also computes in exact fractions.  They visit the
knowledge sets in the same order, so they memoise as many and give up at the
same ``max_sets``.

Functions for tables and the report: :func:`foresight` (one ruleset) and
:func:`foresight_table` (the "how much is skill" table).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ludolab.stdlib.box import DICE_ONE, DICE_TWO, BoxRules
from ludolab.stdlib.errors import LudolabError, unknown

#: Most knowledge sets the memo may hold before :func:`foresight` gives up.
MAX_SETS = 150_000
#: The engines of :func:`foresight`: the numba kernel and its pure-Python twin.
ENGINES = ("kernel", "reference")


class ForesightError(LudolabError):
    """The foresight computation does not fit (too many knowledge sets)."""


@dataclass(frozen=True)
class Foresight:
    """Result of :func:`foresight`.

    Attributes:
        rules: the ruleset.
        p_shut: probability that the foresight player shuts the box (float, or
            Fraction when computed ``exact``).
        mean_score: expected final score of the foresight player, in points of
            the ruleset's scoring (STB-8).
        knowledge_sets: how many (knowledge set, best) entries the memo held.
    """

    rules: BoxRules
    p_shut: float | Fraction
    mean_score: float | Fraction
    knowledge_sets: int


def _dice_shape(rules: BoxRules) -> tuple[int, int]:
    return int(getattr(rules, "n_dice", 2)), int(getattr(rules, "sides", 6))


def foresight(rules: BoxRules, exact: bool = False, max_sets: int = MAX_SETS, engine: str = "kernel") -> Foresight:
    """The chance to shut and the mean score of a player who knows every die in advance (STB-O5).

    Args:
        rules: the ruleset (tiles, dice, one-die rule, moves, scoring).
        exact: compute with fractions (slower; meant for small boxes and tests); always by the
            pure-Python reference, whatever ``engine`` says.
        max_sets: give up beyond this many memoised knowledge sets.
        engine: ``kernel`` (the numba kernel of :mod:`ludolab.sim.box_foresight_kernels`) or
            ``reference`` (the pure-Python search of this module); the same floats either way.

    Returns:
        :class:`Foresight`: ``p_shut`` (probability), ``mean_score`` (points),
        ``knowledge_sets`` (count).  The method is in the module docstring.

    Raises:
        ForesightError: the knowledge sets outgrow ``max_sets`` (the message
        names the ruleset and the limit).
        UnknownNameError: an engine other than ``kernel`` or ``reference``.
    """
    import sys

    if engine not in ENGINES:
        raise unknown("engine", engine, ENGINES)
    if engine == "kernel" and not exact:
        return _kernel_foresight(rules, max_sets)
    search = _Search(rules, exact, max_sets)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 100 + 4 * rules.n_tiles * (search.n_dice + 1)))
    try:
        mean, shut = search.value(frozenset({(rules.full, 0, 0)}), None)
    finally:
        sys.setrecursionlimit(limit)
    if not exact:
        mean, shut = float(mean), float(shut)
    return Foresight(rules, shut, mean, len(search.memo))


def _too_many_sets(rules: BoxRules, max_sets: int) -> ForesightError:
    """The error of a search whose memo would outgrow ``max_sets``."""
    return ForesightError(
        f"foresight for {rules.label()} needs more than {max_sets:,} knowledge sets: it is computed "
        "exactly where the paths stay in step on the dice sequence (subset moves with the full roll, or "
        "one die only near the end): up to 12 tiles with the one-die rule never, 789-optional or "
        "sum-lt-6-forced, but only 8 with always-optional")


def _kernel_foresight(rules: BoxRules, max_sets: int) -> Foresight:
    """:func:`foresight` in floats by the numba kernel (the same search as :class:`_Search`).

    Raises:
        ForesightError: the memo would outgrow ``max_sets``.
    """
    from . import box_foresight_kernels as fk

    mean, shut, n_memo, overflow = fk._foresight(_packed_rules(rules), min(int(max_sets), np.iinfo(np.int64).max))
    if overflow:
        raise _too_many_sets(rules, max_sets)
    return Foresight(rules, float(shut), float(mean), int(n_memo))


@functools.lru_cache(maxsize=32)
def _packed_rules(rules: BoxRules) -> np.ndarray:
    """The rules array of the foresight kernel for ``rules`` (int64; the kernel only reads it)."""
    from . import box_foresight_kernels as fk

    n_dice, sides = _dice_shape(rules)
    oc = rules.outcomes
    thai = rules.moves == "thai"
    by_total = np.full(n_dice * sides + 1, -1, dtype=np.int64)
    if not thai:
        for o in range(oc.n):
            if int(oc.dice[o]) == DICE_TWO:
                by_total[int(oc.total[o])] = o
    per_outcome = int(np.diff(oc.cand_start).max(initial=0))
    code_bits = (sides - 1 if thai else (n_dice - 1) * sides).bit_length()  # a roll's faces so far
    header = {fk.N_DICE: n_dice, fk.SIDES: sides, fk.THAI: int(thai), fk.FULL: rules.full, fk.CODE_BITS: code_bits,
              fk.TILE_SHIFT: code_bits + (n_dice - 1).bit_length(), fk.PER_POS: 2 * per_outcome + 1}
    return fk.pack_rules(header, [rules.dice_allowed, rules.scores, oc.draw_map1, oc.draw_map2, by_total,
                                  oc.cand_start, oc.cand_masks])


class _Search:
    """The memoised recursion ``F(set, best)`` of the module docstring for one ruleset.

    A knowledge set holds positions ``(open tiles, faces thrown of the roll so far, their code)``:
    the code is the faces' total, or for thai moves the draw index of the faces thrown (STB-2,
    STB-6).  Probabilities are Fractions when ``exact``, else floats.
    """

    def __init__(self, rules: BoxRules, exact: bool, max_sets: int):
        self.rules, self.max_sets = rules, max_sets
        self.n_dice, self.sides = _dice_shape(rules)
        oc = self.oc = rules.outcomes
        self.allowed = [int(x) for x in rules.dice_allowed]
        self.scores = [int(x) for x in rules.scores]
        self.thai = rules.moves == "thai"
        self.draw1 = [int(x) for x in oc.draw_map1]
        self.draw2 = [int(x) for x in oc.draw_map2]
        self.by_total = {int(oc.total[o]): o for o in range(oc.n) if int(oc.dice[o]) == DICE_TWO}
        self.starts = oc.cand_start
        self.cands = [int(m) for m in oc.cand_masks]
        self.succ_cache: dict = {}
        self.one = Fraction(1, self.sides) if exact else 1.0 / self.sides
        self.memo: dict = {}

    def successors(self, s: int, o: int) -> tuple[int, ...]:
        """The positions open tiles ``s`` can move to on roll outcome ``o`` (STB-4, STB-7)."""
        key = s * self.oc.n + o
        got = self.succ_cache.get(key)
        if got is None:
            got = tuple(s ^ m for m in self.cands[self.starts[o]:self.starts[o + 1]] if m & s == m)
            self.succ_cache[key] = got
        return got

    def full_outcome(self, code: int, face: int) -> int:
        """Outcome of a full roll whose earlier faces are ``code`` (their total, or the draw index for thai)."""
        if self.thai:
            return self.draw2[code * self.sides + face - 1]
        return self.by_total[code + face]

    def after_face(self, knowledge: frozenset, face: int, best):
        """The knowledge set after the next face is ``face``, and the lowest score of the paths that stop on it.

        Returns:
            (set of positions, lowest score so far or None).
        """
        allowed, draw1, draw2, scores, successors = self.allowed, self.draw1, self.draw2, self.scores, self.successors
        n_dice, sides, thai, full_outcome = self.n_dice, self.sides, self.thai, self.full_outcome
        nxt = set()
        b = best
        for (s, j, code) in knowledge:
            if j == 0:  # between rolls: the player picks the dice this face starts
                a = allowed[s]
                if a & DICE_ONE:
                    succ = successors(s, draw1[face - 1])
                    if succ:
                        nxt.update((x, 0, 0) for x in succ)
                    elif b is None or scores[s] < b:
                        b = scores[s]
                if not a & DICE_TWO:
                    continue
                if n_dice != 1:
                    nxt.add((s, 1, face - 1 if thai else face))
                    continue
                o = draw2[face - 1]
            elif j + 1 < n_dice:  # a roll of several dice, not complete yet
                nxt.add((s, j + 1, code * sides + face - 1 if thai else code + face))
                continue
            else:
                o = full_outcome(code, face)
            succ = successors(s, o)
            if succ:
                nxt.update((x, 0, 0) for x in succ)
            elif b is None or scores[s] < b:
                b = scores[s]
        return nxt, b

    def value(self, knowledge: frozenset, best):
        """``F(knowledge, best)``: the mean final score and the chance to shut from here.

        Raises:
            ForesightError: the memo would outgrow ``max_sets``.
        """
        key = (knowledge, best)
        got = self.memo.get(key)
        if got is not None:
            return got
        if len(self.memo) >= self.max_sets:
            raise _too_many_sets(self.rules, self.max_sets)
        one = self.one
        mean = 0 * one
        shut = 0 * one
        for face in range(1, self.sides + 1):
            nxt, b = self.after_face(knowledge, face, best)
            if (0, 0, 0) in nxt:  # some path shuts the box: score 0
                shut += one
                continue
            if not nxt:
                mean += one * b
                continue
            if b is not None and b >= max(self.scores[s] for s, _, _ in nxt):
                b = None  # every remaining path ends at or below b: b no longer matters
            m, p = self.value(frozenset(nxt), b)
            mean += one * m
            shut += one * p
        self.memo[key] = (mean, shut)
        return mean, shut


def foresight_table(rules: BoxRules, thumb: bool = True, tie_break: str = "high",
                    with_foresight: bool = True) -> "pd.DataFrame":
    """How much is skill: random play, the best heuristic, optimal play and foresight side by side.

    Every figure is exact (forward pass or dynamic programming; foresight by
    :func:`foresight`).

    Args:
        rules: the ruleset.
        thumb: also list the best rule of thumb for the mean score
            (:func:`ludolab.sim.box_thumb.best_rules_of_thumb`).
        tie_break: how the named heuristics break ties (``high``, ``low`` or
            ``random``, STB-T1); the rules of thumb break theirs high or low
            (high when ``random``).
        with_foresight: include the foresight row (without it the share
            columns are NaN: there is nothing to measure against).

    Returns:
        DataFrame, one row per player, from least to most able: ``player``
        (``random``, ``best named heuristic``, ``best rule of thumb``,
        ``optimal for the mean score``, ``optimal for shutting``,
        ``foresight``), ``policy`` (the policy's name or rule), ``p_shut``
        (probability to shut), ``mean_score`` (points), ``share_of_p_shut``
        and ``share_of_mean`` (how far this player gets from random play
        towards foresight: 0 for random play, 1 for foresight).

    Raises:
        ForesightError: see :func:`foresight`; PolicyError: an unknown tie-break.
    """
    import pandas as pd

    from . import box_exact, box_policies

    def ev(pol):
        e = box_exact.evaluate(pol)
        return e.p_shut, e.mean()

    rows = []
    rnd = ev(box_policies.make_policy(rules, "random"))
    rows.append(("random", "random", *rnd))
    best = None
    for name in box_policies.POLICY_NAMES:
        if name in ("optimal", "random"):
            continue
        pol = box_policies.make_policy(rules, name, tie_break=tie_break)
        v = ev(pol)
        if best is None or v[1] < best[2] - 1e-12:
            best = (pol.label, *v)
    rows.append(("best named heuristic", *best))
    if thumb:
        from .box_thumb import best_rules_of_thumb

        top = best_rules_of_thumb(rules, "expected-score", top=1,
                                  tie_break=tie_break if tie_break in ("high", "low") else "high").iloc[0]
        rows.append(("best rule of thumb", top["rule"], top["p_shut"], top["mean_score"]))
    for player, objective in (("optimal for the mean score", "expected-score"), ("optimal for shutting", "shut")):
        sol = box_exact.solve(rules, objective)
        rows.append((player, f"optimal ({sol.label})", *ev(sol.policy())))
    if with_foresight:
        fs = foresight(rules)
        rows.append(("foresight", "knows every die in advance", fs.p_shut, fs.mean_score))
    df = pd.DataFrame(rows, columns=["player", "policy", "p_shut", "mean_score"])
    span_p = fs.p_shut - rnd[0] if with_foresight else 0.0
    span_m = rnd[1] - fs.mean_score if with_foresight else 0.0
    df["share_of_p_shut"] = (df["p_shut"] - rnd[0]) / span_p if span_p > 0 else np.nan
    df["share_of_mean"] = (rnd[1] - df["mean_score"]) / span_m if span_m > 0 else np.nan
    df.attrs["knowledge_sets"] = fs.knowledge_sets if with_foresight else None
    return df
