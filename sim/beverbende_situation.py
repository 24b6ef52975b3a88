"""Beverbende situations: what one player knows at a decision, as data.

A *situation* is a JSON-able dict that describes a decision of a Beverbende
round from the chair of the player to move, and only what that player knows
(BVB-13): their memory of every slot of every row, the card they just drew,
the discard pile (public, BVB-13), the turn count and the knock.  Clause ids
(``BVB-n``) refer to ``seeds/beverbende.md``.

:func:`to_position` checks a situation against the rules and turns it into
the observation the step interface's ``observe`` writes for that seat
(:mod:`ludolab.sim.beverbende_kernels`, offsets ``O_*``); :func:`from_obs` is
its inverse; :func:`action_label` names each legal decision.

The keys (every one but ``players`` and ``seat`` optional)::

    {
      "players": 3,                 # 2..6 (BVB-2)
      "seat": 1,                    # the player to move, who knows this (0-based)
      "turns": 7,                   # turns completed in the round (BVB-5); default 0
      "start": 0,                   # the round's starting seat; default: the one that puts `seat` to move
      "phase": "drawn",             # action | drawn | swap | peek | knock (see below); default action
      "drawn": "4",                 # the card in hand, phase drawn only (BVB-7)
      "draw_twice": false,          # phase drawn: it is the first card of a draw twice (BVB-8)
      "rows": [["?", "?", "?", "?"],       # one row per seat, slots 0..3, as the seat to move
               ["2", "?", "?", "9"],       # remembers them: a card, or "?" for unknown
               ["?", "5", "?", "?"]],
      "discard": ["3", "9", "SW", "7"],    # every card on the discard pile, the top card last
      "knocker": null,              # the seat that knocked this round (BVB-9), or null
      "reshuffles": 0,              # times the pile was rebuilt this round (BVB-11); default 0
      "rules": {"exchange_specials": false, "memory_loss": 0.0, "round_cap": 400,
                "scoring": "sum", "knock_penalty": 5, "deck": [4, 4, 4, 4, 4, 4, 4, 4, 4, 9, 9, 7, 5]},
      "game": {"round": 0, "rounds": 3, "totals": [0, 0, 0], "capped_rounds": 0}
    }

Cards are written as the rules write them (BVB-1): ``0``..``9``, ``SW``
(swap), ``PK`` (peek), ``D2`` (draw twice); a row may also be one string,
``"2 ? ? 9"``, and so may the discard pile.  The phases are the decisions of
the step interface: ``action`` (take the top discard into a slot, or draw;
BVB-6, BVB-7), ``drawn`` (exchange, discard or carry out the drawn card;
BVB-7, BVB-8), ``swap`` and ``peek`` (the special card's choice, BVB-8) and
``knock`` (after the action, BVB-9; ``turns`` then counts the turn just
played).  ``rules`` holds only what differs from the rulebook (any key may be
left out).  ``game`` is informational: where a later round of a whole game
is shown, it carries the round and the game totals so far, which the value
of a decision in this round does not depend on.

The scope of the value: the position's rules array is a **one-round game**
(``rounds = 1``, BVB-14), so the step interface's ``returns`` at the end is
exactly this round's score of each seat (BVB-10, BVB-15: penalty points,
lower is better), whatever round of a game the situation comes from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from ludolab.stdlib.beverbende import (CARD_NAMES, MAX_ROUNDS, SCORINGS, SLOTS, STANDARD_COMPOSITION, BeverbendeRules,
                                       RulesError, parse_composition)
from ludolab.stdlib.errors import SituationError

from . import beverbende_kernels as K
from .situation_common import check_keys, per_seat, seat_keyed, split_cards, whole

__all__ = ["SituationError", "Position", "to_position", "from_obs", "action_label", "legal_actions", "load",
           "parse_card", "parse_cards", "situation_rules", "describe"]


#: The keys of a situation, in the order :func:`from_obs` writes them.
KEYS = ("players", "seat", "turns", "start", "phase", "drawn", "draw_twice", "rows", "discard", "knocker",
        "reshuffles", "rules", "game")
#: The keys of its ``rules`` part (the attributes of :class:`BeverbendeRules` a situation may change).
RULES_KEYS = ("exchange_specials", "memory_loss", "round_cap", "scoring", "knock_penalty", "deck")
#: The keys of its ``game`` part.
GAME_KEYS = ("round", "rounds", "totals", "capped_rounds")
#: Phase names, indexed by the kernels' ``PH_*``.
PHASES = ("action", "drawn", "swap", "peek", "knock")
UNKNOWN = "?"
CARD_TEXT = "cards are 0..9, SW (swap), PK (peek), D2 (draw twice)"
_CARDS = {name: k for k, name in enumerate(CARD_NAMES)}
_SPECIAL_WORD = {K.SWAP: "swap", K.PEEK: "peek", K.DRAW2: "draw twice"}


@dataclass(frozen=True)
class Position:
    """A validated situation in the step interface's terms; unpacks as ``(rules, n_players, seat, obs)``.

    Attributes:
        rules: int64 rules array of a one-round game (``rules_array()`` with ``rounds=1``).
        n_players: 2..6.
        seat: the seat to move, whose observation ``obs`` is.
        obs: int64 (OBS_SIZE,), exactly what ``beverbende_kernels.observe`` writes for that seat.
        ruleset: the :class:`BeverbendeRules` (one round) behind ``rules``.
    """

    rules: np.ndarray
    n_players: int
    seat: int
    obs: np.ndarray
    ruleset: BeverbendeRules

    def __iter__(self):
        return iter((self.rules, self.n_players, self.seat, self.obs))


# ------------------------------------------------------------------ reading pieces
def _where(what: str) -> str:
    return f" in {what}" if what else ""


def parse_card(value, what: str = "", unknown_ok: bool = False) -> int:
    """A card of the game's notation as a kind 0..12 (BVB-1), or -1 for ``"?"``/null where allowed.

    Raises:
        SituationError: a card that does not exist, naming the cards that do.
    """
    if unknown_ok and (value is None or (isinstance(value, str) and value.strip() == UNKNOWN)):
        return -1
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= int(value) <= 9:
        return int(value)
    if isinstance(value, str) and value.strip().upper() in _CARDS:
        return _CARDS[value.strip().upper()]
    extra = ", ? for an unknown card" if unknown_ok else ""
    raise SituationError(f"BVB-1: card {value!r}{_where(what)} does not exist: {CARD_TEXT}{extra}")


def parse_cards(value, what: str, unknown_ok: bool = False) -> list[int]:
    """A list of cards, or one string of them separated by spaces or commas (``"2 ? ? 9"``).

    Raises:
        SituationError: not a list or string, or a card that does not exist.
    """
    if isinstance(value, str):
        items = split_cards(value)
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise SituationError(f"{what} must be a list of cards or a string like \"2 ? ? 9\", not {value!r}")
    return [parse_card(v, what, unknown_ok) for v in items]


def _whole(value, what: str, low: int, high: int | None = None) -> int:
    return whole(value, what, low, high)


def _flag(value, what: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise SituationError(f"{what} must be true or false, not {value!r}")


# ------------------------------------------------------------------ rules
def situation_rules(situation: dict, rules: BeverbendeRules | None = None) -> BeverbendeRules:
    """The one-round ruleset of a situation: its ``players`` and ``rules`` part over ``rules``
    (default the rulebook, BVB-1..BVB-15), with ``rounds = 1`` (the value's scope, BVB-14).

    Raises:
        SituationError: unknown keys, ``rules`` both in the situation and given here, or a bad value
            (the rules' own message, :class:`~ludolab.stdlib.beverbende.RulesError`).
    """
    part = situation.get("rules")
    if part is not None and rules is not None:
        raise SituationError("the rules are given twice: in the situation's \"rules\" and as options; give them once")
    base = rules if rules is not None else BeverbendeRules()
    changes = {}
    if part is not None:
        check_keys(part, RULES_KEYS, "the situation's \"rules\"")
        for k, v in part.items():
            if k == "deck":
                if isinstance(v, str):
                    try:
                        v = parse_composition(v)
                    except RulesError as e:
                        raise SituationError(str(e)) from None
                if not isinstance(v, (list, tuple)):
                    raise SituationError(f"BVB-1: rules.deck is a list of {K.N_KINDS} copy counts (values 0..9, swap, "
                                         f"peek, draw twice), not {v!r}")
                changes["composition"] = tuple(v)
            elif k == "exchange_specials":
                changes[k] = _flag(v, "rules.exchange_specials")
            else:
                changes[k] = v
    if "players" not in situation:
        raise SituationError("the situation needs \"players\" (2..6, BVB-2)")
    changes["players"] = situation["players"]
    changes["rounds"] = 1
    try:
        return base.with_changes(**changes)
    except RulesError as e:
        raise SituationError(str(e)) from None


# ------------------------------------------------------------------ situation -> observation
def _read_turn(situation: dict, P: int) -> tuple[int, int, int, int]:
    """The seat to move, the phase, the turns completed and the starting seat (BVB-5, BVB-9).

    Returns:
        (seat, phase index, turns, start).
    """
    if "seat" not in situation:
        raise SituationError(f"the situation needs \"seat\": the seat to move, 0..{P - 1}")
    seat = _whole(situation["seat"], "the seat to move", 0, P - 1)
    phase_name = situation.get("phase", "action")
    if phase_name not in PHASES:
        raise SituationError(f"unknown phase {phase_name!r}: allowed are {', '.join(PHASES)}")
    phase = PHASES.index(phase_name)
    turns = _whole(situation.get("turns", 0), "turns (turns completed in the round)", 0)
    # BVB-5: the seat to move; in phase knock the turn just played is counted
    played = turns - 1 if phase == K.PH_KNOCK else turns
    if played < 0:
        raise SituationError("BVB-9: the knock decision follows a turn: phase knock needs turns >= 1 "
                             "(turns counts the turn just played)")
    start = situation.get("start")
    if start is None:
        start = (seat - played) % P
    start = _whole(start, "the starting seat", 0, P - 1)
    if (start + played) % P != seat:
        raise SituationError(f"BVB-5: after {played} turns from starting seat {start} the seat to move is "
                             f"{(start + played) % P}, not seat {seat}")
    return seat, phase, turns, start


def _read_hand(situation: dict, phase: int) -> tuple[int, bool]:
    """The card in hand (-1 for none) and whether it is the first of a draw twice (BVB-7, BVB-8)."""
    drawn = situation.get("drawn")
    draw_twice = _flag(situation.get("draw_twice", False), "draw_twice")
    if phase == K.PH_DRAWN:
        if drawn is None:
            raise SituationError("BVB-7: phase drawn needs \"drawn\", the card just drawn (" + CARD_TEXT + ")")
        return parse_card(drawn, "the drawn card"), draw_twice
    if drawn is not None:
        raise SituationError(f"BVB-7: a drawn card is held only in phase drawn, not in phase {PHASES[phase]}")
    if draw_twice:
        raise SituationError(f"BVB-8: draw_twice applies only in phase drawn, not in phase {PHASES[phase]}")
    return -1, False


def _read_rows(situation: dict, P: int) -> list[int]:
    """The rows as the seat remembers them, slot by slot in seat order, -1 unknown (BVB-3, BVB-13)."""
    rows = situation.get("rows", [[UNKNOWN] * SLOTS for _ in range(P)])
    if isinstance(rows, dict):
        got = seat_keyed(rows, lambda k: _whole(k, "a seat of \"rows\"", 0, P - 1), "\"rows\"",
                         twice="\"rows\" gives seat {seat} twice")
        rows = [got.get(q, [UNKNOWN] * SLOTS) for q in range(P)]
    rows = per_seat(rows, P, lambda v: "BVB-3: \"rows\" must give one row per seat "
                    f"({P} players), not {(len(v) if isinstance(v, (list, tuple)) else v)!r}", (list, tuple))
    know = []
    for q, row in enumerate(rows):
        cards = parse_cards(row, f"the row of seat {q}", unknown_ok=True)
        if len(cards) != SLOTS:
            raise SituationError(f"BVB-3: a row holds {SLOTS} cards (slots 0..3; ? for unknown), the row of seat "
                                 f"{q} gives {len(cards)}")
        know += cards
    return know


def _check_counts(comp: list[int], disc: list[int], know: list[int], card: int, P: int) -> int:
    """No card seen more often than the deck holds it (BVB-1); returns the cards left in the pile."""
    for kind in range(K.N_KINDS):
        nd = disc.count(kind)
        nr = know.count(kind)
        nh = 1 if card == kind else 0
        if nd + nr + nh > comp[kind]:
            parts = [f"{n} {w}" for n, w in ((nd, "on the discard pile"), (nr, "in the rows"), (nh, "in hand"))
                     if n]
            raise SituationError(f"BVB-1: card {CARD_NAMES[kind]} is seen {nd + nr + nh} times ({', '.join(parts)}) "
                                 f"but the deck holds {comp[kind]}")
    n_cards = sum(comp)
    pile = n_cards - len(disc) - SLOTS * P - (1 if card >= 0 else 0)
    if pile < 0:
        raise SituationError(f"BVB-1: {len(disc)} cards on the discard pile, {SLOTS * P} in the rows"
                             f"{' and 1 in hand' if card >= 0 else ''} are more than the {n_cards} of the deck")
    return pile


def _read_knock(situation: dict, rs: BeverbendeRules, seat: int, phase: int, turns: int) -> tuple[int, int]:
    """The knocker (-1 for none) and the turns left after the knock (-1 before one): BVB-9, BVB-12."""
    P, cap = rs.players, rs.round_cap
    knocker = situation.get("knocker")
    if knocker is None:
        if phase != K.PH_KNOCK and turns >= cap:
            raise SituationError(f"BVB-12: after {turns} turns without a knock the round is over (round cap "
                                 f"{cap}); turns must be below it")
        if phase == K.PH_KNOCK and not P <= turns <= cap:
            raise SituationError(f"BVB-9: a knock is offered once every player has had a turn: phase knock needs "
                                 f"{P}..{cap} turns (counting the turn just played), not {turns}")
        return -1, -1
    knocker = _whole(knocker, "the knocker", 0, P - 1)
    if phase == K.PH_KNOCK:
        raise SituationError(f"BVB-9: there is one knock per round; seat {knocker} has knocked, so no knock "
                             "decision remains")
    if knocker == seat:
        raise SituationError(f"BVB-9: the knocker (seat {seat}) does not play again after the knock")
    after = (seat - knocker) % P - 1           # turns played since the knocking turn
    at = turns - after                         # turns completed when the knock came
    if not P <= at <= cap:
        raise SituationError(f"BVB-9: seat {knocker} knocked {after} turns ago, after turn {at} of the round; a "
                             f"knock needs every player to have had a turn ({P}..{cap} turns), so turns must "
                             f"be {P + after}..{cap + after}, not {turns}")
    return knocker, P - 1 - after


def _check_first_turn(rs: BeverbendeRules, seat: int, phase: int, know: list[int], disc: list[int]) -> None:
    """Before the first turn is complete nobody has acted (BVB-3, BVB-4, BVB-13)."""
    for j, v in enumerate(know):
        q, s = divmod(j, SLOTS)
        if v >= 0 and q != seat:
            raise SituationError(f"BVB-4: before the first turn is complete no player has seen another's cards; "
                                 f"seat {seat} cannot know seat {q} slot {s}")
        if v >= 0 and s in (1, 2):
            raise SituationError(f"BVB-4: before the first turn is complete a player has seen only the outer "
                                 f"cards (slots 0 and 3) of their row, not slot {s}")
        if v < 0 and q == seat and s in (0, 3) and rs.memory_loss == 0.0:
            raise SituationError(f"BVB-4, BVB-13: with perfect memory the starting player knows the outer cards "
                                 f"of their row before the first turn is complete; slot {s} is unknown")
    if phase == K.PH_ACTION and len(disc) != 1:
        raise SituationError(f"BVB-3: before the first action the discard pile holds only the card turned up at "
                             f"the deal, not {len(disc)}")


def _check_game(game, P: int) -> None:
    """The informational ``game`` part: round, rounds, capped rounds and one total per seat (BVB-14)."""
    check_keys(game, GAME_KEYS, "the situation's \"game\"")
    _whole(game.get("round", 0), "game.round (0-based)", 0, MAX_ROUNDS - 1)
    _whole(game.get("rounds", 1), "game.rounds", 1, MAX_ROUNDS)
    _whole(game.get("capped_rounds", 0), "game.capped_rounds", 0, MAX_ROUNDS)
    tot = per_seat(game.get("totals", [0] * P), P, lambda v: f"game.totals must give one total per seat ({P} "
                   f"players), not {v!r}", (list, tuple))
    for t in tot:
        _whole(t, "a game total", 0)


def to_position(situation: dict, rules: BeverbendeRules | None = None) -> Position:
    """Check a situation (see the module docstring) and build the seat's observation.

    Args:
        situation: the dict of a JSON situation (keys :data:`KEYS`).
        rules: the ruleset when the situation has no ``rules`` part (default the rulebook); its
            number of players and rounds are replaced by the situation's and 1.

    Returns:
        :class:`Position`: a one-round rules array, the players, the seat to move and its
        observation, int64 (OBS_SIZE,), bit for bit what ``observe`` writes at that decision.

    Raises:
        SituationError: one line naming what is wrong and what is allowed: an unknown key, a card
            that does not exist (BVB-1), rows that are not one row of four slots per seat (BVB-3), an
            empty discard pile (BVB-3, BVB-11), more copies of a card than the deck holds or more
            cards than the deck (BVB-1), a seat not to move after the turns given (BVB-5), a phase
            whose card is not on the discard pile (BVB-7, BVB-8), a knock where the rules allow none
            or a knocker who would move again (BVB-9), turns past the round cap (BVB-12), knowledge
            the first turn cannot have (BVB-4, BVB-13), or a scoring the value is not about.
    """
    check_keys(situation, KEYS, "the situation")
    rs = situation_rules(situation, rules)
    P = rs.players
    comp = list(rs.composition)
    seat, phase, turns, start = _read_turn(situation, P)
    card, draw_twice = _read_hand(situation, phase)
    know = _read_rows(situation, P)
    # the discard pile (BVB-3, BVB-11: it always holds at least its top card)
    disc = parse_cards(situation.get("discard", []), "the discard pile")
    if not disc:
        raise SituationError("BVB-3: the discard pile holds at least one card (its top, turned up at the deal and "
                             "kept at a reshuffle, BVB-11): give \"discard\" with the top card last")
    top = disc[-1]
    pile = _check_counts(comp, disc, know, card, P)
    # the phase's special card lies on the discard pile (BVB-7: it goes there as its effect starts)
    need = {K.PH_SWAP: K.SWAP, K.PH_PEEK: K.PEEK}.get(phase, K.DRAW2 if draw_twice else None)
    if need is not None and top != need:
        what = f"phase {PHASES[phase]}" if phase != K.PH_DRAWN else "the first card of a draw twice"
        raise SituationError(f"BVB-7, BVB-8: in {what} the carried-out {CARD_NAMES[need]} is the top of the discard "
                             f"pile, not {CARD_NAMES[top]}")
    knocker, left = _read_knock(situation, rs, seat, phase, turns)
    reshuffles = _whole(situation.get("reshuffles", 0), "reshuffles (BVB-11)", 0, 10**6)
    if turns == 0:
        _check_first_turn(rs, seat, phase, know, disc)
    if situation.get("game") is not None:
        _check_game(situation["game"], P)

    obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
    obs[K.O_SEAT], obs[K.O_NP], obs[K.O_PHASE], obs[K.O_CARD], obs[K.O_TOP] = seat, P, phase, card, top
    obs[K.O_CANKNOCK] = 1 if phase == K.PH_KNOCK else 0
    obs[K.O_TURNS], obs[K.O_KNOCKER], obs[K.O_PILE_N] = turns, knocker, pile
    obs[K.O_MODE] = 1 if draw_twice else 0
    obs[K.O_XSPEC] = int(rs.exchange_specials)
    for kind in range(K.N_KINDS):
        obs[K.O_DCOUNT + kind] = disc.count(kind)
        obs[K.O_COMP + kind] = comp[kind]
    obs[K.O_KNOW:K.O_KNOW + K.MAXP * SLOTS] = -1
    obs[K.O_KNOW:K.O_KNOW + SLOTS * P] = know
    obs[K.O_TURN], obs[K.O_ROUND], obs[K.O_START], obs[K.O_LEFT] = seat, 0, start, left
    obs[K.O_OVER], obs[K.O_RESHUFFLES], obs[K.O_CAPS] = 0, reshuffles, 0
    return Position(rs.rules_array(), P, seat, obs, rs)


def load(text: str) -> dict:
    """A situation from JSON text.

    Raises:
        SituationError: text that is not JSON, or JSON that is not an object.
    """
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise SituationError(f"the situation is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    if not isinstance(d, dict):
        raise SituationError(f"the situation must be a JSON object (keys {', '.join(KEYS)})")
    return d


# ------------------------------------------------------------------ observation -> situation
def _memory_loss(q24: int) -> float:
    """The shortest decimal q whose threshold out of 2**24 is q24 (BVB-13)."""
    for digits in range(1, 12):
        q = round(q24 / K.MEM_ONE, digits)
        if int(round(q * K.MEM_ONE)) == q24:
            return q
    return q24 / K.MEM_ONE


def _ruleset_of(rules: np.ndarray) -> dict:
    """The ``rules`` part of a situation for a rules array: what differs from the rulebook."""
    r = {"exchange_specials": bool(rules[K.R_XSPEC]), "memory_loss": _memory_loss(int(rules[K.R_MEMQ])),
         "round_cap": int(rules[K.R_CAP]), "scoring": SCORINGS[int(rules[K.R_SCORING])],
         "knock_penalty": int(rules[K.R_PENALTY]),
         "deck": [int(x) for x in rules[K.R_COMP:K.R_COMP + K.N_KINDS]]}
    d = BeverbendeRules()
    default = {"exchange_specials": d.exchange_specials, "memory_loss": d.memory_loss, "round_cap": d.round_cap,
               "scoring": d.scoring, "knock_penalty": d.knock_penalty, "deck": list(STANDARD_COMPOSITION)}
    return {k: v for k, v in r.items() if v != default[k]}


def from_obs(rules: np.ndarray, obs: np.ndarray) -> dict:
    """The situation the seat of ``obs`` would write: every key of :data:`KEYS` that applies, cards in
    the game's notation (BVB-1), rows as the seat remembers them (``"?"`` unknown, BVB-13), the
    discard pile in card order with its top card last.

    Args:
        rules: int64 rules array (``BeverbendeRules.rules_array()``); obs: int64 (OBS_SIZE,) of
            ``observe`` for the seat to move, at a decision of a round.

    Returns:
        A JSON-able dict; ``to_position`` of it gives ``obs`` back (with a later round of a whole game:
        ``obs`` of the same decision in a one-round game, the ``game`` part recording the round and
        the totals).

    Raises:
        SituationError: an observation of a finished game, or not of the seat to move.
    """
    obs = np.asarray(obs)
    if obs[K.O_OVER] == 1:
        raise SituationError("the game is over: there is no decision to describe")
    seat = int(obs[K.O_SEAT])
    if int(obs[K.O_TURN]) != seat:
        raise SituationError(f"the observation is seat {seat}'s, but seat {int(obs[K.O_TURN])} is to move")
    P = int(obs[K.O_NP])
    phase = int(obs[K.O_PHASE])
    d: dict = {"players": P, "seat": seat, "turns": int(obs[K.O_TURNS]), "start": int(obs[K.O_START]),
               "phase": PHASES[phase]}
    if phase == K.PH_DRAWN:
        d["drawn"] = CARD_NAMES[int(obs[K.O_CARD])]
        d["draw_twice"] = bool(obs[K.O_MODE])
    d["rows"] = [[UNKNOWN if obs[K.O_KNOW + SLOTS * q + s] < 0 else CARD_NAMES[int(obs[K.O_KNOW + SLOTS * q + s])]
                  for s in range(SLOTS)] for q in range(P)]
    top = int(obs[K.O_TOP])
    disc = []
    for kind in range(K.N_KINDS):
        disc += [CARD_NAMES[kind]] * (int(obs[K.O_DCOUNT + kind]) - (1 if kind == top else 0))
    d["discard"] = disc + ([CARD_NAMES[top]] if top >= 0 else [])
    d["knocker"] = None if obs[K.O_KNOCKER] < 0 else int(obs[K.O_KNOCKER])
    d["reshuffles"] = int(obs[K.O_RESHUFFLES])
    part = _ruleset_of(rules)
    if part:
        d["rules"] = part
    if int(rules[K.R_ROUNDS]) > 1:
        d["game"] = {"round": int(obs[K.O_ROUND]), "rounds": int(rules[K.R_ROUNDS]),
                     "totals": [int(x) for x in obs[K.O_TOTAL:K.O_TOTAL + P]], "capped_rounds": int(obs[K.O_CAPS])}
    return d


# ------------------------------------------------------------------ actions
def _slot(obs, q: int, s: int) -> str:
    v = int(obs[K.O_KNOW + SLOTS * q + s])
    return f"slot {s} ({UNKNOWN if v < 0 else CARD_NAMES[v]})"


def action_label(rules: np.ndarray, obs: np.ndarray, action: int) -> str:
    """A decision in the game's words, short enough for a table row or a button (BVB-6..BVB-9).

    The own slots show the card the seat remembers there (``?`` unknown), e.g. ``take 3 into slot 1
    (9)``, ``draw``, ``exchange 2 into slot 3 (?)``, ``discard 7``, ``discard 7, draw again``
    (the first card of a draw twice), ``carry out SW (swap)``, ``swap slot 0 (9) with seat 2 slot 1
    (?)``, ``peek at slot 2 (?)``, ``knock``, ``do not knock``.

    Args:
        rules: int64 rules array; obs: int64 (OBS_SIZE,) of the seat to move; action: one of its
            legal actions (encoding of ``beverbende_kernels``).

    Raises:
        SituationError: an action outside the phase's encoding.
    """
    obs = np.asarray(obs)
    ph = int(obs[K.O_PHASE])
    seat = int(obs[K.O_SEAT])
    P = int(obs[K.O_NP])
    a = int(action)
    if ph == K.PH_ACTION:
        if a == K.D_DRAW:
            return "draw"
        if 0 <= a < SLOTS:
            return f"take {CARD_NAMES[int(obs[K.O_TOP])]} into {_slot(obs, seat, a)}"
    elif ph == K.PH_DRAWN:
        c = CARD_NAMES[int(obs[K.O_CARD])]
        if 0 <= a < SLOTS:
            return f"exchange {c} into {_slot(obs, seat, a)}"
        if a == K.D_DISCARD:
            return f"discard {c}" + (", draw again" if obs[K.O_MODE] == 1 else "")
        if a == K.D_PERFORM and obs[K.O_CARD] >= 10:
            return f"carry out {c} ({_SPECIAL_WORD[int(obs[K.O_CARD])]})"
    elif ph == K.PH_SWAP:
        own, q, s = a // 24, (a % 24) // 4, a % 4
        if 0 <= own < SLOTS and 0 <= q < P and q != seat and 0 <= a < 24 * SLOTS:
            return f"swap {_slot(obs, seat, own)} with seat {q} {_slot(obs, q, s)}"
    elif ph == K.PH_PEEK:
        if 0 <= a < SLOTS:
            return f"peek at {_slot(obs, seat, a)}"
    elif ph == K.PH_KNOCK:
        if a in (0, 1):
            return "knock" if a == 1 else "do not knock"
    raise SituationError(f"action {a} is not a decision of phase {PHASES[ph] if 0 <= ph < len(PHASES) else ph}")


def legal_actions(position: Position) -> list[int]:
    """The legal decisions of a position, ascending (the step interface's ``legal_actions`` on a
    world determinized from the observation; BVB-6..BVB-9)."""
    rules, _, seat, obs = position
    state = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.determinize(rules, obs, seat, np.uint64(1), state)
    out = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    n = K.legal_actions(rules, state, out)
    return [int(x) for x in out[:n]]


def describe(position: Position) -> str:
    """One line about the value's scope: a one-round game, this round's penalty points, lower is better
    (win-count scoring: whether the seat wins the round, higher is better; BVB-15)."""
    r = position.ruleset
    if r.scoring == "win-count":
        return "whether this round is won (1: the lowest row, ties all win; 0: not), higher is better"
    extra = f", a knocker who is not strictly lowest adds {r.knock_penalty}" if r.scoring == "knocker-penalty" else ""
    return f"this round's points (row total{extra}), lower is better"
