"""Shut the Box as data: the ruleset, its validation and the derived tables.

Clause ids (``STB-n``) refer to ``seeds/shut_the_box.md``.

The state of a turn is a bitmask of the open tiles: bit ``i`` stands for the
``i``-th smallest tile of the ruleset (``rules.tiles[i]``).  A move is the
bitmask of the tiles it covers.  A *roll outcome* is one entry of a flat list
that holds, first, the outcomes of the full roll (all the dice of the ruleset,
two dice by default) and then those of one die; each outcome has an integer
weight (its number of ordered dice results out of ``S**N`` for ``N`` dice of
``S`` sides, or out of ``S`` for one die).  With ``moves="subset"`` the
outcomes of the full roll are the totals ``N..N*S`` (2..12 for 2d6) and those
of one die the faces ``1..S``; with ``moves="thai"`` (two dice only) they are
the unordered pairs ``(a, b)`` (STB-5 needs each die) and the faces.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .errors import LudolabError, ascii_digits

ONE_DIE_RULES = (
    "never",
    "789-optional",
    "789-forced",
    "le6-optional",
    "le6-forced",
    "always-optional",
)
#: Today's one-die names and the family member each one is (STB-6).
ONE_DIE_ALIASES = {
    "789-optional": "max-le-6-optional",
    "789-forced": "max-le-6-forced",
    "le6-optional": "sum-le-6-optional",
    "le6-forced": "sum-le-6-forced",
}
#: The one-die family (STB-6): a condition on the open tiles, then ``-optional`` or ``-forced``.
ONE_DIE_FAMILY = ("sum-le-K", "sum-lt-K", "max-le-K", "only-1")
#: Most tiles in a box (STB-1), and the largest tile number.
MAX_TILES = 20
#: Largest policy table (states x roll outcomes) the solver builds: 2**25 entries, about
#: 100 MB per int32 table; 20 tiles fit with 2d6, 3d6, 4d6 or 1d20 (STB-1, STB-2).
MAX_TABLE_ENTRIES = 1 << 25
#: Dice limits (STB-2): 1..8 dice of 2..100 sides, at most 2**20 ordered results per roll.
MAX_DICE = 8
MAX_SIDES = 100
MAX_DRAW = 1 << 20
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
        spec: ``9`` or ``"9"`` (tiles 1..9, N from 1 to 20), a range ``"4-9"``,
            a list ``"1,3,5,7,9,11"`` (ranges may be mixed in: ``"1-3,9"``), or
            a sequence of ints.

    Returns:
        The sorted tuple of distinct tile numbers.

    Raises:
        RulesError: on anything else, naming what is allowed.
    """
    allowed = (f"a tile count 1..{MAX_TILES} (e.g. 9), a range like 4-9, or a list like 1,3,5,7,9,11 "
               f"(tiles 1..{MAX_TILES})")
    if isinstance(spec, (int, np.integer)):
        n = int(spec)
        if not 1 <= n <= MAX_TILES:
            raise RulesError(f"tile count {n} is out of range: use {allowed}")
        return tuple(range(1, n + 1))
    if isinstance(spec, (tuple, list)):
        tiles = []
        for t in spec:
            if not isinstance(t, (int, np.integer)) or isinstance(t, bool):
                raise RulesError(f"tile {t!r} is not a whole number: use {allowed}")
            tiles.append(int(t))
    else:
        ascii_digits(spec, "tiles", RulesError)
        text = re.sub(r"\s*([,-])\s*", r"\1", str(spec).strip())
        text = re.sub(r"\s+", ",", text)
        if re.fullmatch(r"[0-9]+", text):
            return parse_tiles(int(text))
        if not re.fullmatch(r"[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*", text):
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
    if len(tiles) < 1:
        raise RulesError(f"a box needs at least 1 tile, got none: use {allowed}")
    bad = [t for t in tiles if not 1 <= t <= MAX_TILES]
    if bad:
        raise RulesError(f"tile {bad[0]} is out of range: tiles are numbered 1..{MAX_TILES}")
    return tuple(sorted(tiles))


def format_tiles(tiles) -> str:
    """Short text for a tile set: ``1-9`` for a run of consecutive tiles, else ``1,3,5`` (STB-1)."""
    tiles = tuple(tiles)
    if len(tiles) > 1 and tiles == tuple(range(tiles[0], tiles[-1] + 1)):
        return f"{tiles[0]}-{tiles[-1]}"
    return ",".join(str(t) for t in tiles)


_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def parse_dice(spec: str) -> tuple[int, int]:
    """Parse the dice of a ruleset (STB-2): ``"NdS"``, N dice of S sides.

    Args:
        spec: text like ``"2d6"`` (default), ``"3d6"`` or ``"1d20"``; N from 1 to
            :data:`MAX_DICE`, S from 2 to :data:`MAX_SIDES`, and at most
            :data:`MAX_DRAW` ordered results (``S**N``).

    Returns:
        ``(N, S)``.

    Raises:
        RulesError: text that is not NdS, or dice beyond those limits.
    """
    text = str(ascii_digits(spec, "dice", RulesError)).strip().lower()
    m = re.fullmatch(r"([0-9]+)d([0-9]+)", text)
    if not m:
        raise RulesError(f"cannot read dice {spec!r}: give N dice of S sides as NdS, e.g. 2d6, 3d6 or 1d20")
    n, sides = int(m.group(1)), int(m.group(2))
    if not 1 <= n <= MAX_DICE:
        raise RulesError(f"dice {spec!r}: roll 1..{MAX_DICE} dice, not {n}")
    if not 2 <= sides <= MAX_SIDES:
        raise RulesError(f"dice {spec!r}: a die has 2..{MAX_SIDES} sides, not {sides}")
    if sides ** n > MAX_DRAW:
        raise RulesError(f"dice {spec!r} have {sides ** n:,} ordered results; at most {MAX_DRAW:,} are allowed "
                         "(e.g. 6d6 or 4d20)")
    return n, sides


def parse_one_die(rule: str) -> tuple[str, int | None, bool]:
    """Parse a one-die rule (STB-6) into ``(condition, K, forced)``.

    Args:
        rule: ``never``, ``always-optional``, a family member ``sum-le-K``
            (open tiles total at most K), ``sum-lt-K`` (total below K),
            ``max-le-K`` (highest open tile at most K) or ``only-1`` (only tile 1
            left), each followed by ``-optional`` or ``-forced``; or one of
            today's names (:data:`ONE_DIE_ALIASES`: ``789-optional`` is
            ``max-le-6-optional``, ``le6-forced`` is ``sum-le-6-forced``, ...).

    Returns:
        ``condition`` one of ``never``, ``always``, ``sum-le``, ``sum-lt``,
        ``max-le``, ``only-1``; ``K`` an int (``None`` where the condition has
        none); ``forced`` True when one die is then compulsory.

    Raises:
        RulesError: anything else, naming the allowed forms.
    """
    text = str(ascii_digits(rule, "one-die rule", RulesError)).strip()
    text = ONE_DIE_ALIASES.get(text, text)
    if text == "never":
        return "never", None, False
    if text == "always-optional":
        return "always", None, False
    m = re.fullmatch(r"(sum-le|sum-lt|max-le)-([0-9]+)-(optional|forced)|only-1-(optional|forced)", text)
    if not m:
        raise RulesError(f"unknown one-die rule {rule!r}: allowed are never, always-optional, "
                         "sum-le-K, sum-lt-K, max-le-K or only-1 followed by -optional or -forced "
                         "(e.g. sum-lt-6-forced), or today's names " + ", ".join(ONE_DIE_ALIASES))
    if m.group(4):
        return "only-1", None, m.group(4) == "forced"
    k = int(m.group(2))
    if k > 1000:
        raise RulesError(f"one-die rule {rule!r}: K must be 0..1000, not {k}")
    return m.group(1), k, m.group(3) == "forced"


def one_die_condition_text(rule: str) -> str:
    """Words for when a one-die rule (STB-6) applies, e.g. ``the open tiles total less than 6``.

    Raises:
        RulesError: an unknown rule (see :func:`parse_one_die`).
    """
    cond, k, _ = parse_one_die(rule)
    if cond == "sum-le":
        return f"the open tiles total {k} or less"
    if cond == "sum-lt":
        return f"the open tiles total less than {k}"
    if cond == "max-le":
        return f"every tile of {k + 1} or more is covered"
    if cond == "only-1":
        return "only tile 1 is left open"
    return "always" if cond == "always" else "never"


@dataclass(frozen=True)
class BoxRules:
    """A Shut the Box ruleset (STB-1..STB-8).

    Attributes:
        tiles: sorted distinct tile numbers, each 1..20, one to 20 of them
            (STB-1); default 1..9.
        one_die: a one-die rule (STB-6): ``never``, ``always-optional``, a
            family member such as ``sum-lt-6-forced`` (see
            :func:`parse_one_die`) or one of today's names in
            :data:`ONE_DIE_RULES`; kept as given; default ``789-optional``.
        moves: ``subset`` (STB-4) or ``thai`` (STB-5, two dice only).
        max_tiles_per_move: at most this many tiles per move, ``None`` for no
            limit (STB-4).
        score: one of :data:`SCORINGS` (STB-8).
        dice: the dice of a full roll, ``"NdS"`` (STB-2); default ``"2d6"``.

    Raises:
        RulesError: on construction, for any invalid value or combination,
        including a ruleset whose policy tables would exceed
        :data:`MAX_TABLE_ENTRIES` entries (states x roll outcomes).
    """

    tiles: tuple[int, ...] = tuple(range(1, 10))
    one_die: str = "789-optional"
    moves: str = "subset"
    max_tiles_per_move: int | None = None
    score: str = "sum"
    dice: str = "2d6"

    def __post_init__(self):
        spec = self.tiles if isinstance(self.tiles, (str, int, np.integer)) else tuple(self.tiles)
        object.__setattr__(self, "tiles", parse_tiles(spec))
        n_dice, sides = parse_dice(self.dice)
        object.__setattr__(self, "dice", f"{n_dice}d{sides}")
        if not isinstance(self.one_die, str):
            raise RulesError(f"unknown one-die rule {self.one_die!r}: give its name, e.g. 789-optional")
        object.__setattr__(self, "one_die", self.one_die.strip())
        cond, _, _ = parse_one_die(self.one_die)
        if n_dice == 1 and cond != "never":
            raise RulesError(f"with a single die ({self.dice}) every roll is already one die: the one-die rule "
                             f"must be never, not {self.one_die!r}")
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
        if self.moves == "thai" and n_dice != 2:
            raise RulesError(f"thai moves cover a tile equal to one of two dice or their total (STB-5): they need "
                             f"2 dice, not {self.dice}")
        if self.score == "digital" and len("".join(str(t) for t in self.tiles)) > 18:
            raise RulesError(f"digital scoring of tiles {format_tiles(self.tiles)} would write numbers of more than "
                             "18 digits: use at most 18 digits of tiles (e.g. tiles 1..13) or another scoring")
        n_out = self.n_outcomes
        if (1 << len(self.tiles)) * n_out > MAX_TABLE_ENTRIES:
            raise RulesError(f"tiles {format_tiles(self.tiles)} with {self.dice} need a policy table of "
                             f"{(1 << len(self.tiles)) * n_out:,} entries ({1 << len(self.tiles):,} states x "
                             f"{n_out} rolls); the limit is {MAX_TABLE_ENTRIES:,} (20 tiles fit with 2d6, 3d6, "
                             "4d6 or 1d20)")

    # ------------------------------------------------------------------ basics
    @property
    def n_dice(self) -> int:
        """Number of dice N in a full roll (STB-2); 2 by default."""
        return parse_dice(self.dice)[0]

    @property
    def sides(self) -> int:
        """Sides S of each die (STB-2); 6 by default."""
        return parse_dice(self.dice)[1]

    @property
    def n_outcomes(self) -> int:
        """Number of roll outcomes (columns of a policy table), computed without building them (STB-2)."""
        n, sides = parse_dice(self.dice)
        one = 0 if n == 1 else sides
        if self.moves == "thai":
            return sides * (sides + 1) // 2 + one
        return n * sides - n + 1 + one

    @property
    def move_dtype(self):
        """numpy dtype of the move tables: int16 up to 15 tiles, int32 beyond (a move is a bitmask)."""
        return np.int16 if len(self.tiles) <= 15 else np.int32

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
        if self.dice != "2d6":
            parts.insert(1, f"dice {self.dice}")
        if self.max_tiles_per_move is not None:
            k = self.max_tiles_per_move
            parts.append(f"at most {k} tile{'s' if k != 1 else ''} per move")
        if with_score:
            parts.append(f"score {self.score}")
        return ", ".join(parts)

    def to_dict(self) -> dict:
        """The ruleset as a JSON-able record: ``game`` (``box``), ``tiles`` (list of
        ints), ``one_die``, ``moves``, ``max_tiles_per_move`` (``None`` for no
        limit), ``score`` and ``dice`` (``"2d6"``); as written in provenance
        sidecars and JSON output.
        """
        return {
            "game": "box",
            "tiles": list(self.tiles),
            "one_die": self.one_die,
            "moves": self.moves,
            "max_tiles_per_move": self.max_tiles_per_move,
            "score": self.score,
            "dice": self.dice,
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
        if self.score == "sum":
            return _open_sums(self.tiles)
        if self.score in ("count", "all-or-nothing"):
            states = np.arange(self.n_states, dtype=np.int64)
            count = np.zeros(self.n_states, dtype=np.int64)
            for i in range(self.n_tiles):
                count += (states >> i) & 1
            return count if self.score == "count" else (count > 0).astype(np.int64)
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

        ``DICE_TWO`` stands for the full roll (all the dice of :attr:`dice`).
        Under ``never`` the full roll always, under ``always-optional`` either;
        a family rule allows one die where its condition holds: ``sum-le-K`` the
        open tiles total K or less, ``sum-lt-K`` less than K, ``max-le-K`` no
        open tile above K, ``only-1`` tile 1 alone is open (``-forced``: one
        die is then compulsory).  The 789 rules are ``max-le-6``, the le6 rules
        ``sum-le-6``.
        """
        cond_name, k, forced = parse_one_die(self.one_die)
        if cond_name == "never":
            return np.full(self.n_states, DICE_TWO, dtype=np.int8)
        if cond_name == "always":
            return np.full(self.n_states, DICE_BOTH, dtype=np.int8)
        states = np.arange(self.n_states, dtype=np.int64)
        if cond_name == "max-le":
            high = sum(1 << i for i, t in enumerate(self.tiles) if t > k)
            cond = (states & high) == 0
        elif cond_name == "sum-le":
            cond = _open_sums(self.tiles) <= k
        elif cond_name == "sum-lt":
            cond = _open_sums(self.tiles) < k
        else:  # only-1
            cond = states == (1 if self.tiles[0] == 1 else -1)
        one = DICE_ONE if forced else DICE_BOTH
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
        cond_name, _, _ = parse_one_die(rule)
        allowed = int(self.dice_allowed[state])
        full = self.dice_words(2)
        where = f"with open {self.format_state(state)}"
        if cond_name in ("sum-le", "sum-lt"):
            where += f" (total {sum(self.tiles_of(state))})"
        if cond_name == "never":
            return (f'under the one-die rule "never" one die is never allowed: every roll is made with '
                    f'{full}')
        cond = one_die_condition_text(rule)
        if cond_name == "always" or allowed == DICE_BOTH:
            return f'{where} the one-die rule "{rule}" allows one die or {full} ({cond})'
        if allowed == DICE_TWO:
            return f'{where} the one-die rule "{rule}" calls for {full} until {cond}'
        return f'{where} the one-die rule "{rule}" calls for one die ({cond})'

    def dice_words(self, dice: int) -> str:
        """Words for a dice count code (STB-2): ``one die`` for 1, the full roll for 2 (``two dice`` with
        2d6, ``three dice`` with 3d6, ``the d20`` with 1d20)."""
        if dice == 1:
            return "one die"
        n, sides = parse_dice(self.dice)
        if n == 1:
            return f"the d{sides}"
        return f"{_NUMBER_WORDS.get(n, str(n))} dice"

    def roll_index(self, roll: str | int, dice: int | None = None, state: int | None = None) -> int:
        """Index of a roll outcome (into :attr:`outcomes`) from its text (STB-2, STB-6).

        Args:
            roll: a total (``7``) for subset moves, or the dice (``"3+4"``,
                ``"3,4"``; one die ``"5"``) for thai moves.
            dice: 1 (one die) or 2 (the full roll: two dice with 2d6, all N
                dice with NdS); ``None`` infers it: for thai moves from the
                number of faces, for subset moves one die when ``state``
                allows only one (or the total is below what the full roll can
                make), else the full roll.
            state: open tiles bitmask; when given, the dice must be allowed
                there by the one-die rule (STB-6).

        Returns:
            ``k`` with ``0 <= k < outcomes.n``.

        Raises:
            RulesError: if the roll cannot be read, or cannot happen with that
            number of dice (two dice make 2..12, one die 1..6 with 2d6), or that
            number of dice is not allowed in ``state`` by the one-die rule.
        """
        oc = self.outcomes
        n_dice, sides = parse_dice(self.dice)
        text = str(ascii_digits(roll, "roll", RulesError)).strip().replace(" ", "")
        if dice not in (None, 1, 2):
            raise RulesError(f"dice must be 1 or 2, not {dice!r}")
        if n_dice == 1 and dice == 1:
            dice = 2  # a single die: one die is the full roll
        allowed = None if state is None else int(self.dice_allowed[state])
        words = {1: "one die", 2: self.dice_words(2)}
        lo2, hi2 = n_dice, n_dice * sides
        if self.moves == "subset":
            if not re.fullmatch(r"[0-9]+", text):
                thai = " (faces such as 3+4 are for --moves thai)" if re.fullmatch(r"[0-9]+[+,][0-9]+", text) else ""
                raise RulesError(f"cannot read roll {roll!r}: give the total of the dice, {lo2}..{hi2}"
                                 + (f" (1..{sides} with one die)" if n_dice > 1 else "") + thai)
            total = int(text)
            if not 1 <= total <= max(hi2, sides):
                raise RulesError(f"roll {total} is impossible: totals run {lo2}..{hi2} with {words[2]}"
                                 + (f", 1..{sides} with one die" if n_dice > 1 else ""))
            inferred = dice is None
            if dice is None:
                dice = 1 if (n_dice > 1 and (total < lo2 or allowed == DICE_ONE)) else 2
            want = dice
            shown = str(total)
        else:
            parts = re.split(r"[+,]", text)
            if len(parts) not in (1, 2) or not all(re.fullmatch(r"[0-9]+", p) and 1 <= int(p) <= sides
                                                    for p in parts):
                raise RulesError(f"cannot read roll {roll!r}: thai moves need the dice, e.g. 3+4, "
                                 f"or one face 1..{sides} when rolling one die")
            faces = sorted(int(p) for p in parts)
            want = len(faces)
            if dice is not None and dice != want:
                raise RulesError(f"roll {roll!r} shows {words[want]}, not {words[dice]}: give both faces "
                                 "(e.g. 3+4) for two dice, one face for one die")
            inferred = False
            shown = "+".join(map(str, faces))
        reach = {1: f"its faces run 1..{sides}", 2: f"their totals run {lo2}..{hi2}"}
        if n_dice == 1:
            reach[2] = f"its faces run 1..{sides}"
        possible = self.moves == "thai" or (lo2 <= total <= hi2 if want == 2 else total <= sides)
        if allowed is not None and not allowed & want:
            if inferred:  # a total only one count can make, which the rule does not allow here
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
    """Roll outcomes of a ruleset as flat arrays for the kernels (STB-2).

    Attributes:
        n: number of outcomes; ``dice[k]`` 1 (one die) or 2 (the full roll:
            two dice with 2d6, all N dice with NdS); ``weight[k]`` ordered
            dice results that give outcome ``k``, out of ``den[k]`` (``S**N``
            for the full roll, ``S`` for one die); ``prob[k] = weight[k] /
            den[k]``, the chance of outcome ``k`` once the dice count is chosen;
        total: pip total; faces: (n, 2) die faces (0 where not needed: every
            full-roll outcome of subset moves, the second face of one die);
        label: text of each outcome (``"7"`` or ``"3+4"``);
        cand_start, cand_masks: candidate moves of outcome ``k`` are
            ``cand_masks[cand_start[k]:cand_start[k+1]]`` (a move is legal in
            a state that has all its tiles open);
        draw_map1 (S,), draw_map2 (S**N,): outcome index of each ordered dice
            result; for two dice (a, b) -> ``S*(a-1) + (b-1)``, in general the
            result read as N digits in base S (first die most significant).
            A roll draws one number below the length of the map.
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
    den: np.ndarray = None
    prob: np.ndarray = None


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
    n_dice, sides = parse_dice(rules.dice)
    dice, weight, total, faces, label, cands, den = [], [], [], [], [], [], []
    n_draw = sides ** n_dice
    draw_map2 = np.zeros(n_draw, dtype=np.int64)
    draw_map1 = np.zeros(sides, dtype=np.int64)

    # every move (a non-empty set of tiles) with its pip total and size, once for all rolls
    masks = np.arange(1, 1 << n, dtype=np.int64)
    sums = _open_sums(tiles)[1:]
    kmax = n if rules.max_tiles_per_move is None else min(n, rules.max_tiles_per_move)
    size = np.zeros(len(masks), dtype=np.int64)
    for i in range(n):
        size += (masks >> i) & 1
    small = size <= kmax

    def subset_moves(t: int) -> list[int]:
        """Bitmasks of the sets of at most kmax tiles adding up to t, increasing (STB-4)."""
        return [int(m) for m in masks[(sums == t) & small]]

    def thai_moves(values) -> list[int]:
        return sorted({1 << tiles.index(v) for v in values if v in tiles})

    def add(n_used, w, d, t, face, lab, moves) -> int:
        """One outcome: dice used, weight over the denominator d, total, faces, label, candidate moves;
        returns its index."""
        for column, value in zip((dice, weight, den, total, faces, label, cands), (n_used, w, d, t, face, lab, moves)):
            column.append(value)
        return len(dice) - 1

    if rules.moves == "subset":
        # totals of every ordered result: digits in base S, first die most significant
        draws = np.arange(n_draw, dtype=np.int64)
        tot = np.zeros(n_draw, dtype=np.int64)
        rest = draws.copy()
        for _ in range(n_dice):
            tot += rest % sides + 1
            rest //= sides
        counts = np.bincount(tot, minlength=n_dice * sides + 1)
        for t in range(n_dice, n_dice * sides + 1):
            draw_map2[tot == t] = add(2, int(counts[t]), n_draw, t, (0, 0), str(t), subset_moves(t))
        if n_dice > 1:
            for f in range(1, sides + 1):
                draw_map1[f - 1] = add(1, 1, sides, f, (f, 0), str(f), subset_moves(f))
        else:
            draw_map1[:] = draw_map2
    else:
        for a in range(1, sides + 1):
            for b in range(a, sides + 1):
                k = add(2, 1 if a == b else 2, n_draw, a + b, (a, b), f"{a}+{b}", thai_moves((a, b, a + b)))
                draw_map2[sides * (a - 1) + (b - 1)] = k
                draw_map2[sides * (b - 1) + (a - 1)] = k
        for f in range(1, sides + 1):
            draw_map1[f - 1] = add(1, 1, sides, f, (f, 0), str(f), thai_moves((f,)))
    cand_start = np.zeros(len(cands) + 1, dtype=np.int64)
    for k, c in enumerate(cands):
        cand_start[k + 1] = cand_start[k] + len(c)
    cand_masks = np.array([m for c in cands for m in c], dtype=np.int64)
    weight = np.array(weight, dtype=np.int64)
    den = np.array(den, dtype=np.int64)
    return Outcomes(
        n=len(dice),
        dice=np.array(dice, dtype=np.int64),
        weight=weight,
        total=np.array(total, dtype=np.int64),
        faces=np.array(faces, dtype=np.int64),
        label=tuple(label),
        cand_start=cand_start,
        cand_masks=cand_masks,
        draw_map1=draw_map1,
        draw_map2=draw_map2,
        den=den,
        prob=weight / den,
    )
