"""Shut The Books as data: the ruleset, the deck, card notation and scoring.

Clause ids (``STK-n``) refer to ``seeds/shut_the_books.md``.

A card is a small int ``colour * 15 + (number - 1)`` with colours
``0 = red (R), 1 = blue (B), 2 = yellow (Y), 3 = purple (P)``, so ids run
0..59 whatever the number of players; with three players only the ids whose
number is at most 12 are in the deck (STK-1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .errors import LudolabError, ascii_digits, unknown

COLOURS = "RBYP"
COLOUR_NAMES = ("red", "blue", "yellow", "purple")
RED = 0
N_COLOURS = 4
MAX_NUMBER = 15
N_CARD_IDS = N_COLOURS * MAX_NUMBER
MAX_PREDICTIONS = 5
PLAYER_COUNTS = (3, 4)
SCORINGS = ("rulebook", "exact-only", "linear")
VOID_TRUMP = ("counts", "ignored")
TIE_BREAKS = ("last-start", "shared")


class RulesError(LudolabError):
    """An invalid ruleset or rules argument; the message names what is allowed."""


class CardError(LudolabError):
    """Card notation that cannot be read or names a card outside the deck (STK-2)."""


def card_id(colour: int, number: int) -> int:
    """Card id of ``colour`` (0..3) and ``number`` (1..15)."""
    return colour * MAX_NUMBER + number - 1


def colour_of(card: int) -> int:
    """Colour index 0..3 (R, B, Y, P) of a card id."""
    return card // MAX_NUMBER


def number_of(card: int) -> int:
    """Number 1..15 of a card id."""
    return card % MAX_NUMBER + 1


def card_name(card: int) -> str:
    """Notation of a card id, e.g. ``R15`` (STK-2)."""
    return f"{COLOURS[colour_of(card)]}{number_of(card)}"


def cards_text(cards) -> str:
    """Space-separated notation of a sequence of card ids."""
    return " ".join(card_name(int(c)) for c in cards)


@dataclass(frozen=True)
class BooksRules:
    """A Shut The Books ruleset.

    Attributes:
        players: 3 or 4 (STK-1).
        scoring: ``rulebook`` (4 / 2 / -k), ``exact-only`` (10 + tricks if exact,
            else 0) or ``linear`` (4 - 2 off) (STK-8).
        void_trump: ``counts`` (a red card that won while its player was void in
            the colour led also matches that colour) or ``ignored`` (STK-6).
        tie_break: ``last-start`` or ``shared`` (STK-9).

    Raises:
        RulesError: on a value outside the allowed ones.
    """

    players: int = 4
    scoring: str = "rulebook"
    void_trump: str = "counts"
    tie_break: str = "last-start"

    def __post_init__(self):
        if isinstance(self.players, bool) or self.players not in PLAYER_COUNTS:
            raise RulesError(f"Shut The Books is played by 3 or 4 players, not {self.players!r}")
        object.__setattr__(self, "players", int(self.players))
        if self.scoring not in SCORINGS:
            raise RulesError(unknown("scoring", self.scoring, SCORINGS).args[0])
        if self.void_trump not in VOID_TRUMP:
            raise RulesError(unknown("void-trump rule", self.void_trump, VOID_TRUMP).args[0])
        if self.tie_break not in TIE_BREAKS:
            raise RulesError(unknown("tie-break", self.tie_break, TIE_BREAKS).args[0])

    # ------------------------------------------------------------ deck (STK-1)
    @property
    def max_number(self) -> int:
        """Highest number in play: 15 with four players, 12 with three (STK-1)."""
        return 15 if self.players == 4 else 12

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player: 15 with four players, 16 with three (STK-3)."""
        return N_COLOURS * self.max_number // self.players

    @property
    def deck(self) -> np.ndarray:
        """int64 (players * hand_size,): the card ids in play, colour by colour, low to high."""
        return np.array([card_id(c, n) for c in range(N_COLOURS) for n in range(1, self.max_number + 1)],
                        dtype=np.int64)

    @property
    def scoring_id(self) -> int:
        return SCORINGS.index(self.scoring)

    def game_array(self, hands: int | None = None) -> np.ndarray:
        """int64 (GAME_RULES_SIZE,): the rules of the step interface's game: :meth:`as_array`, then
        the scoring id, the tie-break id and the number of hands (STK-9: as many as players).

        Raises:
            RulesError: ``hands`` outside 1..players.
        """
        h = self.players if hands is None else hands
        if isinstance(h, bool) or not isinstance(h, (int, np.integer)) or not 1 <= h <= self.players:
            raise RulesError(f"a game has 1..{self.players} hands, not {hands!r}")
        return np.concatenate([self.as_array(), np.array([self.scoring_id, TIE_BREAKS.index(self.tie_break), h],
                                                         dtype=np.int64)])

    def as_array(self) -> np.ndarray:
        """int64 (4,): ``[players, max_number, hand_size, void_trump_counts]`` for the kernels."""
        return np.array([self.players, self.max_number, self.hand_size,
                         int(self.void_trump == "counts")], dtype=np.int64)

    def score(self, off: int, tricks_won: int) -> int:
        """Points of one hand for a player who is ``off`` tricks off (STK-8)."""
        return score_hand(off, tricks_won, self.scoring)

    def score_bounds(self) -> tuple[int, int]:
        """Lowest and highest possible score of one hand under this scoring (STK-8)."""
        h = self.hand_size
        worst_off = MAX_PREDICTIONS + h  # every prediction open, every trick extra (not reachable, a bound)
        if self.scoring == "rulebook":
            return -worst_off, 4
        if self.scoring == "exact-only":
            return 0, 10 + h
        return 4 - 2 * worst_off, 4

    def describe(self) -> str:
        return (f"{self.players} players (numbers 1-{self.max_number}, {self.hand_size} cards each), "
                f"scoring {self.scoring}, void trump {self.void_trump}, tie-break {self.tie_break}")

    def as_dict(self) -> dict:
        return {"players": self.players, "scoring": self.scoring, "void_trump": self.void_trump,
                "tie_break": self.tie_break}

    # -------------------------------------------------------- notation (STK-2)
    def parse_card(self, text: str) -> int:
        """Card id of one card in notation (``R15``, ``y3``), checked against this deck.

        Raises:
            CardError: unknown notation or a number outside 1..max_number.
        """
        return parse_card(text, self.max_number)

    def parse_cards(self, text) -> list[int]:
        """Card ids of a list of cards (``"R15 R9 B10"``, commas allowed; a list of strings too).

        Raises:
            CardError: unreadable notation, a card outside the deck, or a card named twice.
        """
        return parse_cards(text, self.max_number)


def score_hand(off: int, tricks_won: int, scoring: str = "rulebook") -> int:
    """Points of one hand (STK-8).

    Args:
        off: open prediction cards left plus extra tricks (>= 0).
        tricks_won: tricks won in the hand (used by ``exact-only``).
        scoring: one of :data:`SCORINGS`.

    Raises:
        RulesError: unknown scoring or negative counts.
    """
    if off < 0 or tricks_won < 0:
        raise RulesError(f"off and tricks won must be >= 0, not {off} and {tricks_won}")
    if scoring == "rulebook":
        return 4 if off == 0 else 2 if off == 1 else -off
    if scoring == "exact-only":
        return 10 + tricks_won if off == 0 else 0
    if scoring == "linear":
        return 4 - 2 * off
    raise RulesError(unknown("scoring", scoring, SCORINGS).args[0])


_CARD_RE = re.compile(r"([A-Za-z])([0-9]{1,2})")


def parse_card(text: str, max_number: int = MAX_NUMBER) -> int:
    """Card id of one card written as colour letter and number (STK-2).

    Raises:
        CardError: naming the bad text and what is allowed.
    """
    allowed = f"a colour letter R, B, Y or P and a number 1..{max_number}, e.g. R{max_number} or Y3"
    s = str(ascii_digits(text, "card", CardError)).strip()
    m = _CARD_RE.fullmatch(s)
    if not m:
        raise CardError(f"cannot read card {text!r}: write {allowed}")
    letter, num = m.group(1).upper(), int(m.group(2))
    if letter not in COLOURS:
        raise CardError(f"unknown colour {m.group(1)!r} in card {text!r}: write {allowed}")
    if not 1 <= num <= max_number:
        raise CardError(f"card {text!r} is not in the deck: write {allowed}")
    return card_id(COLOURS.index(letter), num)


def parse_cards(text, max_number: int = MAX_NUMBER) -> list[int]:
    """Card ids of a list of cards, in the order written (STK-2).

    Args:
        text: a string with cards separated by spaces and/or commas (may be
            empty), or a list of card strings.

    Raises:
        CardError: unreadable notation, a card outside the deck, a card named twice.
    """
    if isinstance(text, (list, tuple)):
        parts = [str(t) for t in text]
    elif isinstance(text, str):
        parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
    else:
        raise CardError(f"cannot read cards {text!r}: write cards like \"R15 R9 B10\"")
    cards = [parse_card(p, max_number) for p in parts]
    seen = set()
    for p, c in zip(parts, cards):
        if c in seen:
            raise CardError(f"card {card_name(c)} is named twice in {' '.join(parts)!r}: every card is unique")
        seen.add(c)
    return cards


#: The rulebook's scoring examples (STK-8): (open predictions left, extra tricks, points).
RULEBOOK_EXAMPLES = ((0, 0, 4), (0, 1, 2), (2, 1, -3), (1, 0, 2))


# ------------------------------------------------------------ state layout
# A hand's state is one small-int array (int16) with these named offsets; the
# kernels and the pure-Python reference share it, and ``observe(state, seat)``
# returns the same layout with the cards the player cannot see marked hidden.
S_PLAYERS = 0      #: number of players (STK-1)
S_NMAX = 1         #: highest number in play
S_HAND = 2         #: cards dealt to each player
S_VOIDRULE = 3     #: 1 if a red card won while void counts as the colour led (STK-6)
S_START = 4        #: seat of the starting player (STK-3)
S_PHASE = 5        #: PH_FORECAST, PH_PLAY, PH_CLOSE or PH_DONE
S_TURN = 6         #: seat to act
S_NFORECAST = 7    #: players who have forecast so far (STK-4)
S_TRICK = 8        #: index of the current trick (0-based)
S_NPLAYED = 9      #: cards played to the current trick
S_LEADER = 10      #: leader of the current trick
S_NTRICKS = 11     #: tricks in this hand, known once everyone has forecast (STK-7)
S_VIEWER = 12      #: -1 for the full state, else the seat whose observation this is
S_PENDING = 13     #: winning card waiting for its player to choose which prediction to close
LOC = 16           #: LOC + card: where each card id is (L_* codes)
NPRED = LOC + N_CARD_IDS   #: + seat: prediction cards laid
NCLOSED = NPRED + 4        #: + seat: prediction cards closed
NEXTRA = NCLOSED + 4       #: + seat: extra tricks won
NHAND = NEXTRA + 4         #: + seat: cards in hand
NWON = NHAND + 4           #: + seat: tricks won
MAX_TRICKS = 16
T_LEAD = NWON + 4                  #: + trick: leader
T_WIN = T_LEAD + MAX_TRICKS        #: + trick: winner
T_CLOSE = T_WIN + MAX_TRICKS       #: + trick: prediction card closed, -1 for an extra trick
T_CARDS = T_CLOSE + MAX_TRICKS     #: + 4 * trick + seat: card played by the seat, -1 if none
PREDS = T_CARDS + 4 * MAX_TRICKS    #: + 5 * seat + i: the seat's i-th prediction card (ascending), -1 if none
# Card sets as bitmasks, one 15-bit word per colour (bit number - 1), so a set of card ids is
# ``w0 | w1 << 15 | w2 << 30 | w3 << 45`` (bit = card id).  They repeat what LOC says, for speed:
# following suit, matching and the heuristics read them instead of scanning LOC.
HMASK = PREDS + 4 * MAX_PREDICTIONS  #: + 4 * seat + colour: the seat's hand (0 in an observation for other seats)
OMASK = HMASK + 16                   #: + 4 * seat + colour: the seat's open prediction cards
STATE_SIZE = OMASK + 16

# The step interface's game state (int64): the hand state above, then the game around it (STK-9).
S_RNG = STATE_SIZE         #: the game's random stream: its uint64 state stored as int64 bits
S_HANDNO = S_RNG + 1       #: hands finished so far in this game
S_NHANDS = S_RNG + 2       #: hands in the game (as many as players, STK-9)
S_TOTAL = S_RNG + 3        #: + seat: points scored in the finished hands (STK-9)
GAME_STATE_SIZE = S_TOTAL + 4
#: Entries of the game's rules array after the four of ``BooksRules.as_array``.
R_SCORING, R_TIE_BREAK, R_HANDS = 4, 5, 6
GAME_RULES_SIZE = 7
#: Forecast actions: every subset of at most 5 positions of a 16-card hand, sum of C(16, k), k <= 5.
MAX_FORECAST_ACTIONS = 6885
#: A seat's policy pair in the step interface: kind = POLICY_PAIR_BASE * forecast kind + play kind.
POLICY_PAIR_BASE = 8

L_OUT = -1         #: not in the deck in play
L_HAND = 0         #: + seat: in that seat's hand
L_OPEN = 4         #: + seat: that seat's open prediction card
L_CLOSED = 8       #: + seat: that seat's closed prediction card
L_PLAYED = 12      #: played to a trick
L_HIDDEN = 13      #: (observations only) in a hand the viewer cannot see

PH_FORECAST, PH_PLAY, PH_CLOSE, PH_DONE = 0, 1, 2, 3

# Trace codes: one (code, seat, card) row per event of a game.
A_HAND = 0         #: a new hand starts; card = starting seat
A_DEAL = 1         #: card dealt to seat
A_PREDICT = 2      #: seat lays card as a prediction card
A_FORECAST = 3     #: seat's forecast is complete; card = number of prediction cards
A_PLAY = 4         #: seat plays card to the current trick
A_CLOSE = 5        #: trick winner closes prediction card
A_EXTRA = 6        #: trick winner takes an extra trick (card = -1)
A_SCORE = 7        #: seat's score for the hand (card = points)

# Policy kinds (a policy is a kind id plus a float64 parameter array).
F_ZERO, F_HEURISTIC, F_ROLLOUT, F_RANDOM = 0, 1, 2, 3
P_RANDOM, P_HEURISTIC, P_ROLLOUT = 0, 1, 2
N_PARAMS = 16
#: Rollout policies keep the hand-strength forecaster's parameters (used for the forecasts and
#: the ranking of prediction cards inside their rollouts) at this offset of their parameter array.
ROLLOUT_HEURISTIC_AT = 4
FORECAST_POLICIES = ("zero", "heuristic", "rollout", "random")
PLAY_POLICIES = ("random", "heuristic", "rollout")

#: Hand-strength forecaster parameters (tuned by coordinate search for the mean hand score of
#: heuristic play, rulebook scoring, 3 and 4 players alike): red base value, red value per rank,
#: value of the top non-red card, rank share below which a non-red card counts
#: nothing, trump bonus per short colour, tricks taken off per earlier prediction
#: card above the baseline, that baseline, weight of the shorter hand, bias.
HEURISTIC_FORECAST_PARAMS = (0.0, 0.65, 1.25, 0.72, 0.05, 0.15, 1.1, 0.5, -0.15)
FORECAST_PARAM_NAMES = ("trump_base", "trump_rank", "high_value", "high_cut", "short_colour_bonus",
                        "earlier_weight", "earlier_baseline", "short_hand_weight", "bias")
