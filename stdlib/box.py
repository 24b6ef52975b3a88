"""Shut the Box as data: the ruleset, its validation and the derived tables.

Clause ids (``STB-n``) refer to ``seeds/shut_the_box.md``.

The state of a turn is a bitmask of the open tiles: bit ``i`` stands for the
``i``-th smallest tile of the ruleset (``rules.tiles[i]``).  A move is the
bitmask of the tiles it covers.  A *roll outcome* is one entry of a flat list
that holds, first, the outcomes of two dice and then those of one die; each
outcome has an integer weight (its number of ordered dice results out of 36,
or out of 6 for one die).  With ``moves="subset"`` the outcomes of two dice are
the totals 2..12 and those of one die the faces 1..6; with ``moves="thai"``
they are the unordered pairs ``(a, b)`` (STB-5 needs each die) and the faces.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .errors import LudolabError

ONE_DIE_RULES = (
    "never",
    "789-optional",
    "789-forced",
    "le6-optional",
    "le6-forced",
    "always-optional",
)
MOVE_STYLES = ("subset", "thai")
SCORINGS = ("sum", "count", "digital", "all-or-nothing")

#: Dice allowed in a state: bit 0 = one die, bit 1 = two dice.
DICE_ONE = 1
DICE_TWO = 2
DICE_BOTH = 3


class RulesError(LudolabError):
    """An invalid ruleset or rules argument; the message names what is allowed."""


def parse_tiles(spec: str | int | tuple | list) -> tuple[int, ...]:
    """Parse a tile specification (STB-1).

    Args:
        spec: ``9`` or ``"9"`` (tiles 1..9, N from 2 to 12), a range ``"4-9"``,
            a list ``"1,3,5,7,9,11"`` (ranges may be mixed in: ``"1-3,9"``), or
            a sequence of ints.

    Returns:
        The sorted tuple of distinct tile numbers.

    Raises:
        RulesError: on anything else, naming what is allowed.
    """
    allowed = "a tile count 2..12 (e.g. 9), a range like 4-9, or a list like 1,3,5,7,9,11 (tiles 1..12)"
    if isinstance(spec, (int, np.integer)):
        n = int(spec)
        if not 2 <= n <= 12:
            raise RulesError(f"tile count {n} is out of range: use {allowed}")
        return tuple(range(1, n + 1))
    if isinstance(spec, (tuple, list)):
        tiles = []
        for t in spec:
            if not isinstance(t, (int, np.integer)) or isinstance(t, bool):
                raise RulesError(f"tile {t!r} is not a whole number: use {allowed}")
            tiles.append(int(t))
    else:
        text = re.sub(r"\s*([,-])\s*", r"\1", str(spec).strip())
        text = re.sub(r"\s+", ",", text)
        if re.fullmatch(r"\d+", text):
            return parse_tiles(int(text))
        if not re.fullmatch(r"\d+(-\d+)?(,\d+(-\d+)?)*", text):
            raise RulesError(f"cannot read tiles {spec!r}: use {allowed}")
        tiles = []
        for part in text.split(","):
            if "-" in part:
                lo, hi = (int(x) for x in part.split("-"))
                if lo > hi:
                    raise RulesError(f"tile range {part!r} runs backwards: use {allowed}")
                tiles.extend(range(lo, hi + 1))
            else:
                tiles.append(int(part))
    if len(set(tiles)) != len(tiles):
        raise RulesError(f"tiles {spec!r} repeat a number: each tile appears once")
    if len(tiles) < 2:
        raise RulesError(f"a box needs at least 2 tiles, got {len(tiles)}: use {allowed}")
    bad = [t for t in tiles if not 1 <= t <= 12]
    if bad:
        raise RulesError(f"tile {bad[0]} is out of range: tiles are numbered 1..12")
    return tuple(sorted(tiles))


def format_tiles(tiles) -> str:
    """Short text for a tile set: ``1-9`` for a run of consecutive tiles, else ``1,3,5`` (STB-1)."""
    tiles = tuple(tiles)
    if len(tiles) > 1 and tiles == tuple(range(tiles[0], tiles[-1] + 1)):
        return f"{tiles[0]}-{tiles[-1]}"
    return ",".join(str(t) for t in tiles)


@dataclass(frozen=True)
class BoxRules:
    """A Shut the Box ruleset (STB-1..STB-8).

    Attributes:
        tiles: sorted distinct tile numbers, each 1..12 (STB-1); default 1..9.
        one_die: one of :data:`ONE_DIE_RULES` (STB-6); default ``789-optional``.
        moves: ``subset`` (STB-4) or ``thai`` (STB-5).
        max_tiles_per_move: at most this many tiles per move, ``None`` for no
            limit (STB-4).
        score: one of :data:`SCORINGS` (STB-8).

    Raises:
        RulesError: on construction, for any invalid value or combination.
    """

    tiles: tuple[int, ...] = tuple(range(1, 10))
    one_die: str = "789-optional"
    moves: str = "subset"
    max_tiles_per_move: int | None = None
    score: str = "sum"

    def __post_init__(self):
        spec = self.tiles if isinstance(self.tiles, (str, int, np.integer)) else tuple(self.tiles)
        object.__setattr__(self, "tiles", parse_tiles(spec))
        if self.one_die not in ONE_DIE_RULES:
            raise RulesError(f"unknown one-die rule {self.one_die!r}: allowed are {', '.join(ONE_DIE_RULES)}")
        if self.moves not in MOVE_STYLES:
            raise RulesError(f"unknown move style {self.moves!r}: allowed are {', '.join(MOVE_STYLES)}")
        if self.score not in SCORINGS:
            raise RulesError(f"unknown scoring {self.score!r}: allowed are {', '.join(SCORINGS)}")
        k = self.max_tiles_per_move
        if k is not None:
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
                raise RulesError(f"max tiles per move must be a whole number >= 1 (or unlimited), not {k!r}")
            if self.moves == "thai":
                raise RulesError("a limit on tiles per move does not apply to thai moves, which always cover one "
                                 "tile (STB-5)")
            if k > 12:
                raise RulesError(f"max tiles per move must be 1..12 (or unlimited), not {k}")
            object.__setattr__(self, "max_tiles_per_move", int(k))

    # ------------------------------------------------------------------ basics
    @property
    def n_tiles(self) -> int:
        """Number of tiles N (STB-1)."""
        return len(self.tiles)

    @property
    def n_states(self) -> int:
        """Number of states, 2**N (every set of open tiles, the shut box included)."""
        return 1 << len(self.tiles)

    @property
    def full(self) -> int:
        """The start state: every tile open (bitmask ``2**N - 1``)."""
        return self.n_states - 1

    def replace(self, **changes) -> "BoxRules":
        """A copy with some fields changed, validated again.

        Raises:
            RulesError: an invalid value or combination.
        """
        return dataclasses.replace(self, **changes)

    def label(self, with_score: bool = True) -> str:
        """Short human label, e.g. ``tiles 1-9, one-die 789-optional, moves subset, score sum``.

        Args:
            with_score: include the scoring (left out where every scoring is compared).
        """
        parts = [f"tiles {format_tiles(self.tiles)}", f"one-die {self.one_die}", f"moves {self.moves}"]
        if self.max_tiles_per_move is not None:
            k = self.max_tiles_per_move
            parts.append(f"at most {k} tile{'s' if k != 1 else ''} per move")
        if with_score:
            parts.append(f"score {self.score}")
        return ", ".join(parts)

    def to_dict(self) -> dict:
        """The ruleset as a JSON-able record: ``game`` (``box``), ``tiles`` (list of
        ints), ``one_die``, ``moves``, ``max_tiles_per_move`` (``None`` for no
        limit) and ``score``; as written in provenance sidecars and JSON output.
        """
        return {
            "game": "box",
            "tiles": list(self.tiles),
            "one_die": self.one_die,
            "moves": self.moves,
            "max_tiles_per_move": self.max_tiles_per_move,
            "score": self.score,
        }

    # ------------------------------------------------------------ conversions
    def mask_of(self, open_tiles) -> int:
        """Bitmask of a collection of open tile numbers.

        Raises:
            RulesError: if a tile is not in the ruleset or repeats.
        """
        mask = 0
        for t in open_tiles:
            if t not in self.tiles:
                raise RulesError(f"tile {t} is not in this box (tiles {format_tiles(self.tiles)})")
            bit = 1 << self.tiles.index(t)
            if mask & bit:
                raise RulesError(f"tile {t} is listed twice")
            mask |= bit
        return mask

    def tiles_of(self, mask: int) -> tuple[int, ...]:
        """Tile numbers of a bitmask, increasing."""
        return tuple(t for i, t in enumerate(self.tiles) if mask >> i & 1)

    def format_state(self, mask: int) -> str:
        """Open tiles as text (``"1,2,3"``), ``"shut"`` for the empty box."""
        return ",".join(str(t) for t in self.tiles_of(mask)) if mask else "shut"

    # ---------------------------------------------------------------- scoring
    def score_of(self, mask: int) -> int:
        """Score of a turn ending with the open tiles ``mask`` (STB-8): the sum of
        the open tiles, their count, their digits read as one number, or 1 (0
        when shut) for all-or-nothing.
        """
        if mask == 0:
            return 0
        open_tiles = self.tiles_of(mask)
        if self.score == "sum":
            return sum(open_tiles)
        if self.score == "count":
            return len(open_tiles)
        if self.score == "digital":
            return int("".join(str(t) for t in open_tiles))
        return 1  # all-or-nothing: 0 if shut, 1 otherwise

    @cached_property
    def scores(self) -> np.ndarray:
        """int64 array, shape (n_states,): the score of ending in each state (STB-8)."""
        return np.array([self.score_of(s) for s in range(self.n_states)], dtype=np.int64)

    def scores_under(self, scoring: str) -> np.ndarray:
        """Scores of every state under another scoring rule (STB-8).

        Returns:
            int64 array (n_states,).

        Raises:
            RulesError: an unknown scoring.
        """
        return self.replace(score=scoring).scores

    # ------------------------------------------------------------ dice rules
    @cached_property
    def dice_allowed(self) -> np.ndarray:
        """int8 array, shape (n_states,): DICE_ONE, DICE_TWO or DICE_BOTH (STB-6).

        Under ``never`` two dice always, under ``always-optional`` either; the 789
        rules allow one die once every tile of 7 or more is covered, the le6 rules
        once the open tiles total 6 or less (``-forced``: one die is then compulsory).
        """
        rule = self.one_die
        if rule == "never":
            return np.full(self.n_states, DICE_TWO, dtype=np.int8)
        if rule == "always-optional":
            return np.full(self.n_states, DICE_BOTH, dtype=np.int8)
        states = np.arange(self.n_states, dtype=np.int64)
        if rule.startswith("789"):
            high = sum(1 << i for i, t in enumerate(self.tiles) if t >= 7)
            cond = (states & high) == 0
        else:
            cond = _open_sums(self.tiles) <= 6
        one = DICE_ONE if rule.endswith("forced") else DICE_BOTH
        return np.where(cond, one, DICE_TWO).astype(np.int8)

    # ----------------------------------------------------------- roll outcomes
    @cached_property
    def outcomes(self) -> "Outcomes":
        """The flat table of roll outcomes and candidate moves (STB-2, STB-4, STB-5)."""
        return _build_outcomes(self)

    def dice_rule_text(self, state: int) -> str:
        """What the one-die rule (STB-6) asks for with the open tiles ``state`` (a bitmask), as words.

        Example: ``with open 1,2,3,7 the one-die rule "789-optional" calls for two dice until every
        tile of 7 or more is covered``.  Used in messages; ``always-optional`` allows both counts.
        """
        rule = self.one_die
        allowed = int(self.dice_allowed[state])
        where = f"with open {self.format_state(state)}"
        if rule.startswith("le6"):
            where += f" (total {sum(self.tiles_of(state))})"
        if rule == "never":
            return 'under the one-die rule "never" one die is never allowed: every roll is made with two dice'
        if rule == "always-optional" or allowed == DICE_BOTH:
            cond = ("every tile of 7 or more is covered" if rule.startswith("789") else
                    "the open tiles total 6 or less" if rule.startswith("le6") else "always")
            return f'{where} the one-die rule "{rule}" allows one die or two ({cond})'
        if allowed == DICE_TWO:
            until = "every tile of 7 or more is covered" if rule.startswith("789") else "the open tiles total 6 or less"
            return f'{where} the one-die rule "{rule}" calls for two dice until {until}'
        why = "every tile of 7 or more is covered" if rule.startswith("789") else "the open tiles total 6 or less"
        return f'{where} the one-die rule "{rule}" calls for one die ({why})'

    def roll_index(self, roll: str | int, dice: int | None = None, state: int | None = None) -> int:
        """Index of a roll outcome (into :attr:`outcomes`) from its text (STB-2, STB-6).

        Args:
            roll: a total (``7``) for subset moves, or the dice (``"3+4"``,
                ``"3,4"``; one die ``"5"``) for thai moves.
            dice: 1 or 2; ``None`` infers it: for thai moves from the number
                of faces, for subset moves one die when ``state`` allows only
                one (or the total is 1), else two.
            state: open tiles bitmask; when given, the dice must be allowed
                there by the one-die rule (STB-6).

        Returns:
            ``k`` with ``0 <= k < outcomes.n``.

        Raises:
            RulesError: if the roll cannot be read, or cannot happen with that
            number of dice (two dice make 2..12, one die 1..6), or that number
            of dice is not allowed in ``state`` by the one-die rule.
        """
        oc = self.outcomes
        text = str(roll).strip().replace(" ", "")
        if dice not in (None, 1, 2):
            raise RulesError(f"dice must be 1 or 2, not {dice!r}")
        allowed = None if state is None else int(self.dice_allowed[state])
        words = {1: "one die", 2: "two dice"}
        if self.moves == "subset":
            if not re.fullmatch(r"\d+", text):
                raise RulesError(f"cannot read roll {roll!r}: give the total of the dice, 2..12 (1..6 with one die)")
            total = int(text)
            if not 1 <= total <= 12:
                raise RulesError(f"roll {total} is impossible: totals run 2..12 with two dice, 1..6 with one die")
            inferred = dice is None
            if dice is None:
                dice = 1 if (total == 1 or allowed == DICE_ONE) else 2
            want = dice
            shown = str(total)
        else:
            parts = re.split(r"[+,]", text)
            if len(parts) not in (1, 2) or not all(re.fullmatch(r"[1-6]", p) for p in parts):
                raise RulesError(f"cannot read roll {roll!r}: thai moves need the dice, e.g. 3+4, "
                                 "or one face 1..6 when rolling one die")
            faces = sorted(int(p) for p in parts)
            want = len(faces)
            if dice is not None and dice != want:
                raise RulesError(f"roll {roll!r} shows {words[want]}, not {words[dice]}: give both faces "
                                 "(e.g. 3+4) for two dice, one face for one die")
            inferred = False
            shown = "+".join(map(str, faces))
        reach = {1: "its faces run 1..6", 2: "their totals run 2..12"}
        possible = self.moves == "thai" or (2 <= total <= 12 if want == 2 else total <= 6)
        if allowed is not None and not allowed & want:
            if inferred:  # a total of 1 asks for one die, which the rule does not allow here
                raise RulesError(f"{self.dice_rule_text(state)}, and {words[3 - want]} cannot make {shown}: "
                                 f"{reach[3 - want]}")
            raise RulesError(f"{self.dice_rule_text(state)}, so roll {shown} with {words[want]} cannot happen")
        if not possible:
            if inferred and allowed == DICE_ONE:
                raise RulesError(f"{self.dice_rule_text(state)}, and one die cannot make {shown}: {reach[1]}")
            raise RulesError(f"roll {shown} is impossible: {words[want]} cannot make {shown}: {reach[want]}")
        for k in range(oc.n):
            if oc.dice[k] != want:
                continue
            if self.moves == "subset" and oc.total[k] == total:
                return k
            if self.moves == "thai" and tuple(oc.faces[k][:want]) == tuple(faces):
                return k
        raise AssertionError(f"roll {shown} with {words[want]} has no outcome")  # pragma: no cover

    def legal_moves(self, state: int, outcome: int) -> list[int]:
        """Bitmasks of the legal moves for a state and roll outcome (STB-4, STB-5).

        Args:
            state: open tiles bitmask; outcome: index into :attr:`outcomes`.

        Returns:
            The candidate moves of the outcome whose tiles are all open, as ints,
            increasing; empty when the roll cannot be covered (the turn ends, STB-7).
        """
        oc = self.outcomes
        cands = oc.cand_masks[oc.cand_start[outcome] : oc.cand_start[outcome + 1]]
        return [int(m) for m in cands if (int(m) & ~state) == 0]


@dataclass(frozen=True)
class Outcomes:
    """Roll outcomes of a ruleset as flat arrays for the kernels.

    Attributes:
        n: number of outcomes; ``dice[k]`` 1 or 2; ``weight[k]`` ordered dice
            results that give outcome ``k`` (out of ``6 ** dice[k]``);
        total: pip total; faces: (n, 2) die faces (second is 0 for one die);
        label: text of each outcome (``"7"`` or ``"3+4"``);
        cand_start, cand_masks: candidate moves of outcome ``k`` are
            ``cand_masks[cand_start[k]:cand_start[k+1]]`` (a move is legal in
            a state that has all its tiles open);
        draw_map1 (6,), draw_map2 (36,): outcome index of each ordered dice
            result (die a, die b) -> ``6*(a-1) + (b-1)``.
    """

    n: int
    dice: np.ndarray
    weight: np.ndarray
    total: np.ndarray
    faces: np.ndarray
    label: tuple[str, ...]
    cand_start: np.ndarray
    cand_masks: np.ndarray
    draw_map1: np.ndarray
    draw_map2: np.ndarray


def _open_sums(tiles) -> np.ndarray:
    """int64 (2**N,): the pip total of the tiles of every bitmask (bit i = ``tiles[i]``)."""
    states = np.arange(1 << len(tiles), dtype=np.int64)
    total = np.zeros(len(states), dtype=np.int64)
    for i, t in enumerate(tiles):
        total += ((states >> i) & 1) * t
    return total


def _build_outcomes(rules: BoxRules) -> Outcomes:
    tiles = rules.tiles
    n = len(tiles)
    dice, weight, total, faces, label, cands = [], [], [], [], [], []
    draw_map2 = np.zeros(36, dtype=np.int64)
    draw_map1 = np.zeros(6, dtype=np.int64)

    # every move (a non-empty set of tiles) with its pip total and size, once for all rolls
    masks = np.arange(1, 1 << n, dtype=np.int64)
    sums = _open_sums(tiles)[1:]
    kmax = n if rules.max_tiles_per_move is None else min(n, rules.max_tiles_per_move)
    small = np.array([int(m).bit_count() <= kmax for m in masks], dtype=bool)

    def subset_moves(t: int) -> list[int]:
        """Bitmasks of the sets of at most kmax tiles adding up to t, increasing (STB-4)."""
        return [int(m) for m in masks[(sums == t) & small]]

    def thai_moves(values) -> list[int]:
        return sorted({1 << tiles.index(v) for v in values if v in tiles})

    if rules.moves == "subset":
        for t in range(2, 13):
            k = len(dice)
            dice.append(2)
            weight.append(6 - abs(7 - t))
            total.append(t)
            faces.append((0, 0))
            label.append(str(t))
            cands.append(subset_moves(t))
            for a in range(1, 7):
                for b in range(1, 7):
                    if a + b == t:
                        draw_map2[6 * (a - 1) + (b - 1)] = k
        for f in range(1, 7):
            k = len(dice)
            dice.append(1)
            weight.append(1)
            total.append(f)
            faces.append((f, 0))
            label.append(str(f))
            cands.append(subset_moves(f))
            draw_map1[f - 1] = k
    else:
        for a in range(1, 7):
            for b in range(a, 7):
                k = len(dice)
                dice.append(2)
                weight.append(1 if a == b else 2)
                total.append(a + b)
                faces.append((a, b))
                label.append(f"{a}+{b}")
                cands.append(thai_moves((a, b, a + b)))
                draw_map2[6 * (a - 1) + (b - 1)] = k
                draw_map2[6 * (b - 1) + (a - 1)] = k
        for f in range(1, 7):
            k = len(dice)
            dice.append(1)
            weight.append(1)
            total.append(f)
            faces.append((f, 0))
            label.append(str(f))
            cands.append(thai_moves((f,)))
            draw_map1[f - 1] = k
    cand_start = np.zeros(len(cands) + 1, dtype=np.int64)
    for k, c in enumerate(cands):
        cand_start[k + 1] = cand_start[k] + len(c)
    cand_masks = np.array([m for c in cands for m in c], dtype=np.int64)
    return Outcomes(
        n=len(dice),
        dice=np.array(dice, dtype=np.int64),
        weight=np.array(weight, dtype=np.int64),
        total=np.array(total, dtype=np.int64),
        faces=np.array(faces, dtype=np.int64),
        label=tuple(label),
        cand_start=cand_start,
        cand_masks=cand_masks,
        draw_map1=draw_map1,
        draw_map2=draw_map2,
    )
