"""Beverbende as data: the ruleset, the deck and their validation.

Clause ids (``BVB-n``) refer to ``seeds/beverbende.md``.

A card is a small int: ``0..9`` are number cards of that value, ``10`` is a
swap, ``11`` a peek and ``12`` a draw twice (BVB-1).  The deck is a
composition: the number of copies of each of the 13 card kinds, so a study
can remove a special kind or double it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from .errors import LudolabError, ascii_whole, unknown, whole_number

#: Card kinds (BVB-1).
SWAP = 10
PEEK = 11
DRAW2 = 12
N_KINDS = 13
SPECIALS = (SWAP, PEEK, DRAW2)
SPECIAL_NAMES = {"swap": SWAP, "peek": PEEK, "draw-twice": DRAW2}
CARD_NAMES = tuple(str(v) for v in range(10)) + ("SW", "PK", "D2")

#: The rulebook's deck: 0..8 four times, 9 nine times, 9 swap, 7 peek, 5 draw twice.
STANDARD_COMPOSITION = (4, 4, 4, 4, 4, 4, 4, 4, 4, 9, 9, 7, 5)
MAX_COPIES = 20
MAX_CARDS = N_KINDS * MAX_COPIES

SCORINGS = ("sum", "knocker-penalty", "win-count")
MIN_PLAYERS, MAX_PLAYERS = 2, 6
SLOTS = 4
MAX_ROUND_CAP = 100_000
MAX_ROUNDS = 20


class RulesError(LudolabError):
    """An invalid Beverbende ruleset; the message names what is allowed."""


def card_name(card: int) -> str:
    """Text of a card (BVB-1): ``"0"``..``"9"``, ``"SW"``, ``"PK"``, ``"D2"``."""
    return CARD_NAMES[int(card)]


def default_rounds(players: int) -> int:
    """Rounds per game (BVB-14): as many as players, four with two players."""
    return 4 if players == 2 else players


@dataclass(frozen=True)
class BeverbendeRules:
    """A Beverbende ruleset (BVB-1..BVB-15).

    Attributes:
        players: 2..6 (BVB-2).
        composition: 13 copy counts, one per card kind 0..9, swap, peek, draw
            twice (BVB-1); each 0..20.
        exchange_specials: a drawn special card may be exchanged into the row
            (BVB-7); default False.
        round_cap: turns after which a round without a knock ends (BVB-12).
        memory_loss: q in [0, 1], the chance per turn of forgetting each
            remembered value (BVB-13).
        rounds: rounds per game, ``None`` for the rulebook's count (BVB-14).
        scoring: one of :data:`SCORINGS` (BVB-15).
        knock_penalty: the penalty of ``knocker-penalty`` (0..36).

    Raises:
        RulesError: on construction, for any invalid value or combination.
    """

    players: int = 4
    composition: tuple[int, ...] = STANDARD_COMPOSITION
    exchange_specials: bool = False
    round_cap: int = 400
    memory_loss: float = 0.0
    rounds: int | None = None
    scoring: str = "sum"
    knock_penalty: int = 5

    def __post_init__(self):
        try:
            p = whole_number(self.players, "the number of players", MIN_PLAYERS, MAX_PLAYERS)
        except LudolabError as e:
            raise RulesError(str(e)) from None
        object.__setattr__(self, "players", p)
        comp = tuple(self.composition)
        if len(comp) != N_KINDS:
            raise RulesError(f"a deck composition has {N_KINDS} counts (values 0..9, swap, peek, draw twice), "
                             f"not {len(comp)}")
        clean = []
        for kind, c in zip(CARD_NAMES, comp):
            if isinstance(c, bool) or int(c) != c or not 0 <= int(c) <= MAX_COPIES:
                raise RulesError(f"the deck must hold 0..{MAX_COPIES} copies of card {kind}, not {c!r}")
            clean.append(int(c))
        object.__setattr__(self, "composition", tuple(clean))
        numbers = sum(clean[:10])
        if numbers < SLOTS * p + 2:
            raise RulesError(f"{p} players need at least {SLOTS * p + 2} number cards in the deck, "
                             f"this deck has {numbers}")
        if sum(clean) < SLOTS * p + 4:
            raise RulesError(f"{p} players need at least {SLOTS * p + 4} cards in the deck, this deck has {sum(clean)}")
        if not isinstance(self.exchange_specials, (bool, np.bool_)):
            raise RulesError(f"exchange_specials must be true or false, not {self.exchange_specials!r}")
        object.__setattr__(self, "exchange_specials", bool(self.exchange_specials))
        try:
            object.__setattr__(self, "round_cap", whole_number(self.round_cap, "the round cap (turns)", 1,
                                                               MAX_ROUND_CAP))
        except LudolabError as e:
            raise RulesError(str(e)) from None
        q = self.memory_loss
        if isinstance(q, bool) or not isinstance(q, (int, float, np.floating, np.integer)) or not 0.0 <= q <= 1.0:
            raise RulesError(f"the memory loss q must be a probability between 0 and 1, not {q!r}")
        object.__setattr__(self, "memory_loss", float(q))
        if self.rounds is not None:
            try:
                object.__setattr__(self, "rounds", whole_number(self.rounds, "the rounds per game", 1, MAX_ROUNDS))
            except LudolabError as e:
                raise RulesError(str(e)) from None
        if self.scoring not in SCORINGS:
            raise RulesError(str(unknown("scoring", self.scoring, SCORINGS)))
        try:
            object.__setattr__(self, "knock_penalty", whole_number(self.knock_penalty, "the knock penalty", 0, 36))
        except LudolabError as e:
            raise RulesError(str(e)) from None

    # ------------------------------------------------------------ derived
    @property
    def n_cards(self) -> int:
        """Cards in the deck (66 for the rulebook's deck)."""
        return sum(self.composition)

    @property
    def n_rounds(self) -> int:
        """Rounds per game (BVB-14)."""
        return self.rounds if self.rounds is not None else default_rounds(self.players)

    @property
    def memory_q24(self) -> int:
        """The memory loss as an integer threshold out of 2**24 (the kernels' form)."""
        return int(round(self.memory_loss * (1 << 24)))

    def deck(self) -> np.ndarray:
        """int64 (n_cards,): the unshuffled deck, kinds in order 0..12 (BVB-1, BVB-3)."""
        return np.repeat(np.arange(N_KINDS, dtype=np.int64), self.composition)

    def with_changes(self, **changes) -> "BeverbendeRules":
        """A copy with some attributes changed (validated again)."""
        d = asdict(self)
        d.update(changes)
        return BeverbendeRules(**d)

    def with_special(self, name: str, factor: float) -> "BeverbendeRules":
        """The deck with special kind ``name`` (swap, peek, draw-twice) removed
        (factor 0) or multiplied (factor 2 doubles it)."""
        if name not in SPECIAL_NAMES:
            raise unknown("special card", name, SPECIAL_NAMES)
        comp = list(self.composition)
        comp[SPECIAL_NAMES[name]] = int(round(comp[SPECIAL_NAMES[name]] * factor))
        return self.with_changes(composition=tuple(comp))

    def as_dict(self) -> dict:
        """JSON-able record of the ruleset, for provenance."""
        d = asdict(self)
        d["composition"] = list(self.composition)
        d["rounds"] = self.n_rounds
        return d

    def rules_array(self) -> np.ndarray:
        """int64 array of the rules for the kernels (see ``beverbende_kernels.R_*``)."""
        scoring = SCORINGS.index(self.scoring)
        return np.array([self.players, int(self.exchange_specials), self.round_cap, self.memory_q24,
                         self.n_rounds, scoring, self.knock_penalty, self.n_cards] + list(self.composition),
                        dtype=np.int64)


def parse_composition(text: str) -> tuple[int, ...]:
    """Read ``"4,4,4,4,4,4,4,4,4,9,9,7,5"`` (13 counts) as a composition (BVB-1).

    Raises:
        RulesError: if it is not 13 whole numbers.
    """
    parts = [p.strip() for p in str(text).split(",")]
    if not all(ascii_whole(p) for p in parts):  # int() would also read fullwidth digits
        raise RulesError(f"cannot read deck composition {text!r}: give {N_KINDS} whole numbers separated by commas "
                         "(copies of 0..9, swap, peek, draw twice)")
    counts = tuple(int(p) for p in parts)
    return counts
