"""Shelve the Book situations: what one seat knows at one moment, as data in the game's notation.

Clause ids (``SHB-n``) refer to ``seeds/shelve_the_book.md``.

A *situation* is a JSON-able dict that describes the table exactly as one seat
sees it (SHB-14), never a card that seat has not seen.  :func:`to_position`
checks it against the rules and turns it into the step interface's
observation (``observe`` of :mod:`ludolab.sim.shelf_kernels`, bit for bit);
:func:`from_obs` is the inverse; :func:`action_label` names a legal action.

Seats are numbered from 1 (seat 1 is the step interface's seat 0); cards are
written by their deck id (``PHY-R-10`` in the assumed deck, SHB-15).  Keys:

``players`` (required)
    2..5 (SHB-2).
``seat`` (required)
    the seat whose view this is.
``to_move``
    the seat to act (default ``seat``); ``null`` once the game is over.
``decision``
    ``source`` (take an offer card or draw two), ``place`` (place a held card)
    or ``over``; default: ``place`` when ``source`` is given, else ``source``
    (``over`` when ``to_move`` is null).
``variant``, ``tiebreak``
    the scoring variant and the tie-break (SHB-11, SHB-12; default
    ``standard``, ``shared``).
``tableaus`` (required)
    one tableau per seat in seat order; a tableau is a list of shelves, top
    first, each a string of the cards left to right separated by spaces, ``.``
    for an empty place, all shelves as wide as the tableau so far (or the
    shelves joined by ``/`` in one string; ``""`` or ``[]`` for no card yet).
``first_placed``
    ``{"seat": card}``: the first card a seat placed, where it is not the
    first card of the top shelf (it fixes where the tableau sits on the
    step interface's grid; the value of an action does not depend on it).
``starts``
    the seat that started the game (SHB-3); needed once the game is over,
    otherwise implied by the cards placed and the seat to move.
``hand``
    the seat's own hand card (at its place decision: the card it held
    before this turn).
``source``
    at a place decision: ``offer`` or ``draw`` (how the mover took cards).
``offer_place``
    with ``source: offer``: the place of the offer the card was taken from,
    1 = first (default 1).
``taken``
    with ``source: offer``: the card taken (face up, every seat saw it).
``drawn``
    the seat's own place decision after drawing two: the two cards, the
    pile's top first.
``offer`` (required)
    the face-up offer cards, in order (SHB-3, SHB-5).
``pile`` (required)
    the number of cards left in the pile.
``draw_two``
    whether drawing two is allowed (optional; must agree with the pile, SHB-7).
``put_back_by``
    the seat that put the pile's top card back (SHB-6) if nobody has drawn
    from the pile since, else ``null``.
``pile_top``
    that card, when this seat put it back (only it knows it).
``known_hands``
    ``{"seat": card}``: hand cards the whole table knows (a card taken from
    the offer and kept, known until that seat next draws two).

The value the advice reports is the seat's expected **final score** of the
whole game (SHB-9..SHB-11: its points when all tableaus are complete), in
points; the game's rules array is the whole game's, unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ludolab.stdlib.errors import SituationError, ascii_whole
from ludolab.stdlib.shelf import TIEBREAKS, VARIANTS, Deck, DeckError, ShelfRules, assumed_deck

from . import shelf_kernels as K
from .situation_common import CardPlaces, check_keys, fail, per_seat, seat_keyed, split_cards, whole

KEYS = ("players", "seat", "to_move", "decision", "variant", "tiebreak", "tableaus", "first_placed", "starts",
        "hand", "source", "offer_place", "taken", "drawn", "offer", "pile", "draw_two", "put_back_by", "pile_top",
        "known_hands")
REQUIRED = ("players", "seat", "tableaus", "offer", "pile")
DECISIONS = ("source", "place", "over")
EMPTY = "."


@dataclass(frozen=True, eq=False)
class Position:
    """A situation as the step interface sees it.

    Attributes:
        rules: int64 rules array (``shelf.step_rules`` of ``shelf_rules``), the whole game's.
        n_players: seats at the table.
        seat: 0-based seat whose view it is.
        obs: int64 (OBS_SIZE,), exactly as ``shelf_kernels.observe`` writes it for ``seat``.
        shelf_rules: the :class:`~ludolab.stdlib.shelf.ShelfRules`.
        to_move: 0-based seat to act, -1 once the game is over.
    """

    rules: np.ndarray
    n_players: int
    seat: int
    obs: np.ndarray
    shelf_rules: ShelfRules
    to_move: int

    def __iter__(self):  # (rules, n_players, seat, obs), as advice.advise takes them
        return iter((self.rules, self.n_players, self.seat, self.obs))


# ------------------------------------------------------------------ reading
_fail = fail


def _seat_no(v, what: str, n: int) -> int:
    """A 1-based seat number (int or digit string) -> 0-based."""
    ok = not isinstance(v, bool) and (isinstance(v, int) or ascii_whole(v))
    s = int(v) if ok else None
    if s is None or not 1 <= s <= n:
        _fail(f"{what} must be a seat 1..{n}, not {v!r}")
    return s - 1


def _whole(v, what: str, low: int, high: int) -> int:
    return whole(v, what, low, high)


class _Cards:
    """Card ids -> deck indices, each card seen once (SHB-1: no two cards share an id)."""

    def __init__(self, deck: Deck):
        self.deck = deck
        self.places = CardPlaces(lambda card, first, second: f"card {card} is seen twice: {first} and {second} "
                                 "(every card is in one place, SHB-1)")
        self.where = self.places.where

    def card(self, v, where: str) -> int:
        if not isinstance(v, str) or not v.strip():
            _fail(f"{where}: a card is a deck id such as {self.deck.ids[0]} (SHB-15), not {v!r}")
        try:
            i = self.deck.index(v.strip())
        except DeckError:
            _fail(f"{where}: unknown card {v.strip()!r}, not in deck {self.deck.name} (a card is written by its "
                  f"deck id, e.g. {self.deck.ids[0]}, SHB-15)")
        return self.places.see(i, where, v.strip())


def _shelves(v, who: str) -> list[list]:
    """A tableau (list of shelf strings, or one string with '/') -> rows of tokens (None = empty)."""
    if isinstance(v, str):
        v = [] if not v.strip() or v.strip() == "-" else v.split("/")
    if not isinstance(v, list):
        _fail(f"{who}: a tableau is a list of shelves, e.g. [\"PHY-R-10 HIS-B-26\", \". ECO-G-47\"], not {v!r} "
              "(SHB-15)")
    rows = []
    for r, shelf in enumerate(v, start=1):
        if isinstance(shelf, str):
            toks = split_cards(shelf)
        elif isinstance(shelf, list):
            toks = [EMPTY if t is None else t for t in shelf]
        else:
            _fail(f"{who} shelf {r}: a shelf is a string of cards ('.' for an empty place), not {shelf!r}")
        rows.append([None if t == EMPTY else t for t in toks])
    rows = [row for row in rows if row]  # a blank shelf string stands for nothing placed there yet
    if not rows:
        return []
    width = len(rows[0])
    if any(len(row) != width for row in rows):
        _fail(f"{who}: every shelf must be written as wide as the tableau ({width} places, '.' for an empty one), "
              f"not {[len(row) for row in rows]} (SHB-15)")
    if len(rows) > 3 or width > 5:
        _fail(f"{who}: {len(rows)} shelves of {width} places do not fit; a tableau is at most 3 shelves of 5 books "
              "(SHB-8)")
    for j in range(width):  # no empty leading/trailing column or shelf: the frame is the cards' span
        if all(row[j] is None for row in rows):
            _fail(f"{who}: place {j + 1} is empty on every shelf; write only the span of the placed cards (SHB-8)")
    for r, row in enumerate(rows, start=1):
        if all(t is None for t in row):
            _fail(f"{who}: shelf {r} is empty; write only the span of the placed cards (SHB-8)")
    return rows


def _connected(cells: set) -> bool:
    if not cells:
        return True
    start = next(iter(cells))
    seen, todo = {start}, [start]
    while todo:
        r, c = todo.pop()
        for d in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            q = (r + d[0], c + d[1])
            if q in cells and q not in seen:
                seen.add(q)
                todo.append(q)
    return len(seen) == len(cells)


@dataclass(eq=False)
class _Reading:
    """What :func:`to_position` has read of a situation so far (seats 0-based, cards as deck indices)."""

    n: int
    deck: Deck
    seat: int
    over: bool
    mover: int
    decision: str
    cards: _Cards
    grids: list = None      # per seat {(row, col): card} in frame coordinates
    first_of: dict = None   # seat -> the first_placed card as written
    placed: list = None     # cards in each tableau
    turn: int = 0           # cards placed in all
    first: int = 0          # the seat that started
    offer: list = None
    pile: int = 0
    nh: int = 0             # cards the mover holds at a place decision (2 or 3), else 0
    src: int = -1           # offer place taken from, or K.DRAW
    held: list = None
    hands: list = None
    own: int = -1
    known: list = None
    ret: int = -1           # the seat that put the pile's top card back
    top: int = -1           # that card, when this seat knows it

    @property
    def n_deck(self) -> int:
        return len(self.deck)


def _check_keys(sit) -> None:
    """The situation is an object with known keys and every required one (module docstring)."""
    check_keys(sit, KEYS, "the situation", not_object=f"a situation is a JSON object with the keys {', '.join(KEYS)}")
    missing = [k for k in REQUIRED if k not in sit]
    if missing:
        _fail(f"the situation needs the key {missing[0]!r} (required: {', '.join(REQUIRED)})")


def _read_rules(sit: dict, deck: Deck) -> ShelfRules:
    """Players (SHB-2), variant (SHB-11) and tiebreak (SHB-12) as a :class:`ShelfRules`."""
    n = sit["players"]
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 5:
        _fail(f"players must be 2..5 (SHB-2), not {n!r}")
    variant = sit.get("variant", "standard")
    tiebreak = sit.get("tiebreak", "shared")
    if not isinstance(variant, str) or variant not in VARIANTS:
        _fail(f"unknown variant {variant!r}: allowed are {', '.join(VARIANTS)} (SHB-11)")
    if not isinstance(tiebreak, str) or tiebreak not in TIEBREAKS:
        _fail(f"unknown tiebreak {tiebreak!r}: allowed are {', '.join(TIEBREAKS)} (SHB-12)")
    return ShelfRules(players=n, variant=variant, tiebreak=tiebreak, deck=deck)


def _read_turn(sit: dict, n: int, deck: Deck) -> _Reading:
    """The seat, the seat to move and the decision (SHB-9: over exactly when to_move is null)."""
    seat = _seat_no(sit["seat"], "seat", n)
    over = "to_move" in sit and sit["to_move"] is None
    mover = -1 if over else _seat_no(sit.get("to_move", sit["seat"]), "to_move", n)
    decision = sit.get("decision")
    if decision is None:
        decision = "over" if over else ("place" if sit.get("source") is not None else "source")
    if not isinstance(decision, str) or decision not in DECISIONS:
        _fail(f"unknown decision {decision!r}: allowed are {', '.join(DECISIONS)}")
    if (decision == "over") != over:
        _fail("the game is over exactly when to_move is null and the decision is 'over' (SHB-9)")
    return _Reading(n=n, deck=deck, seat=seat, over=over, mover=mover, decision=decision, cards=_Cards(deck))


def _read_tableaus(sit: dict, t: _Reading) -> None:
    """The tableaus (SHB-8): each one connected block within 3 x 5; first_placed in its tableau."""
    n = t.n
    tabs = per_seat(sit["tableaus"], n, lambda v: "tableaus must list one tableau per seat, "
                    f"{n} for {n} players (seat order), not "
                    + (f"{len(v)} tableaus" if isinstance(v, list) else repr(v)))
    t.first_of = seat_keyed(sit.get("first_placed") or {}, lambda k: _seat_no(k, "a first_placed seat", n),
                            "first_placed")
    t.grids = []
    for s, tab in enumerate(tabs):
        who = f"seat {s + 1}'s tableau"
        grid = {}
        for r, row in enumerate(_shelves(tab, who)):
            for c, tok in enumerate(row):
                if tok is not None:
                    grid[(r, c)] = t.cards.card(tok, f"{who} shelf {r + 1} place {c + 1}")
        if not _connected(set(grid)):
            _fail(f"{who} is not one block: every card after the first is placed next to a placed card (SHB-8)")
        if s in t.first_of:
            fv = t.first_of[s]
            if not any(isinstance(fv, str) and t.deck.ids[x] == fv.strip() for x in grid.values()):
                _fail(f"first_placed for seat {s + 1}: {fv!r} is not in that seat's tableau (SHB-8)")
        t.grids.append(grid)
    t.placed = [len(g) for g in t.grids]
    t.turn = sum(t.placed)


def _read_start(sit: dict, t: _Reading) -> None:
    """The starting seat (SHB-3) and the cards in each tableau it implies (SHB-4: one per turn, clockwise)."""
    n, turn = t.n, t.turn
    if t.over:
        if any(p != 15 for p in t.placed):
            _fail(f"the game is over only when every tableau holds 15 cards (SHB-9), not {t.placed}")
        if "starts" not in sit:
            _fail("once the game is over the situation needs 'starts', the seat that started (SHB-3)")
        t.first = _seat_no(sit["starts"], "starts", n)
    else:
        t.first = (t.mover - turn) % n
        if "starts" in sit and _seat_no(sit["starts"], "starts", n) != t.first:
            _fail(f"starts: with {turn} cards placed and seat {t.mover + 1} to move, seat {t.first + 1} started "
                  "(SHB-4: one card per turn, clockwise)")
    for s in range(n):
        want = turn // n + (1 if (s - t.first) % n < turn % n else 0)
        if t.placed[s] != want:
            _fail(f"seat {s + 1}'s tableau holds {t.placed[s]} cards, but with {turn} cards placed, seat "
                  f"{t.first + 1} starting and seat {t.mover + 1 if not t.over else t.first + 1} to move it holds "
                  f"{want} (SHB-4: every turn places one card, clockwise)")


def _read_offer(sit: dict, t: _Reading) -> None:
    """The offer and the pile (SHB-3, SHB-5, SHB-7): a full offer while the pile lasts."""
    n = t.n
    offer_v = sit["offer"]
    if isinstance(offer_v, str):
        offer_v = split_cards(offer_v)
    if not isinstance(offer_v, list):
        _fail(f"offer is a list of cards, not {offer_v!r}")
    if len(offer_v) > n + 1:
        _fail(f"the offer holds at most players + 1 = {n + 1} cards (SHB-3), not {len(offer_v)}")
    t.offer = [t.cards.card(v, f"offer place {j + 1}") for j, v in enumerate(offer_v)]
    t.pile = _whole(sit["pile"], "pile (cards left in the pile)", 0, t.n_deck)
    if t.pile > 0 and len(t.offer) != n + 1:
        _fail(f"the offer holds {len(t.offer)} cards while the pile is not empty; it is refilled to players + 1 = "
              f"{n + 1} until the pile runs out (SHB-5, SHB-7)")


def _read_source(sit: dict, t: _Reading) -> None:
    """How the mover took cards at a place decision (SHB-5 offer, SHB-6 draw two), and nothing else."""
    n, decision, src_v = t.n, t.decision, sit.get("source")
    if decision == "place":
        if src_v not in ("offer", "draw"):
            _fail(f"at a place decision 'source' is 'offer' or 'draw' (how the cards were taken, SHB-5, SHB-6), "
                  f"not {src_v!r}")
        t.nh = 2 if src_v == "offer" else 3
    else:
        for k in ("source", "offer_place", "taken", "drawn"):
            if sit.get(k) is not None:
                _fail(f"{k!r} describes a place decision; at a {decision} decision leave it out (SHB-5, SHB-6)")
    if src_v == "offer":
        # a full offer was refilled from the pile; a shorter one lost the card taken (SHB-5, SHB-7)
        size_before = n + 1 if len(t.offer) == n + 1 else len(t.offer) + 1
        t.src = _whole(sit.get("offer_place", 1), "offer_place (the offer place taken from, SHB-5)", 1,
                       size_before) - 1
    elif src_v == "draw":
        t.src = K.DRAW
        if len(t.offer) != n + 1:
            _fail(f"drawing two needs two cards in the pile, so the offer was full: {n + 1} cards, not "
                  f"{len(t.offer)} (SHB-6, SHB-7)")
        if sit.get("offer_place") is not None:
            _fail("offer_place names the offer card taken; after drawing two leave it out (SHB-6)")
    for k in ("taken", "drawn"):
        if sit.get(k) is not None and src_v != ("offer" if k == "taken" else "draw"):
            _fail(f"{k!r} goes with source {'offer' if k == 'taken' else 'draw'} (SHB-5, SHB-6)")
    if src_v == "draw" and t.mover != t.seat and sit.get("drawn") is not None:
        _fail("the cards another seat drew are hidden (SHB-14): leave 'drawn' out")


def _read_hands(sit: dict, t: _Reading) -> None:
    """The seat's own hand card and the cards the mover holds that this seat has seen (SHB-5, SHB-6)."""
    t.held = [-1, -1, -1]
    t.hands = [-1] * K.MAXP
    own = sit.get("hand")
    if own is None:
        _fail("the situation needs the seat's own hand card 'hand' (every seat holds one, SHB-3, SHB-5, SHB-6)")
    t.own = t.cards.card(own, "your hand")
    if t.decision == "place" and t.mover == t.seat:
        t.held[0] = t.own
        if t.nh == 2:
            if sit.get("taken") is None:
                _fail("after taking from the offer give the card taken: 'taken' (SHB-5)")
            t.held[1] = t.cards.card(sit["taken"], "the card taken")
        else:
            d = sit.get("drawn")
            if isinstance(d, str):
                d = split_cards(d)
            if not isinstance(d, list) or len(d) != 2:
                _fail(f"after drawing two give the two cards drawn, pile's top first: 'drawn' (SHB-6), not {d!r}")
            t.held[1] = t.cards.card(d[0], "the first card drawn")
            t.held[2] = t.cards.card(d[1], "the second card drawn")
    else:
        t.hands[t.seat] = t.own
        if t.decision == "place" and t.nh == 2:
            if sit.get("taken") is None:
                _fail("another seat took from the offer: give the card it took face up, 'taken' (SHB-5, SHB-14)")
            t.held[1] = t.cards.card(sit["taken"], f"the card seat {t.mover + 1} took")


def _read_known(sit: dict, t: _Reading) -> None:
    """The hand cards the whole table knows (SHB-14: a card taken from the offer and kept)."""
    t.known = [-1] * K.MAXP
    kh = seat_keyed(sit.get("known_hands") or {}, lambda k: _seat_no(k, "a known_hands seat", t.n), "known_hands")
    for s, v in kh.items():
        if t.placed[s] == 0:
            _fail(f"known_hands: seat {s + 1} has had no turn, so its hand is hidden (only a card taken from the "
                  "offer and kept is known, SHB-14)")
        if s == t.seat:
            if not isinstance(v, str) or v.strip() != t.deck.ids[t.own]:
                _fail(f"known_hands for your own seat must be your hand card {t.deck.ids[t.own]}, not {v!r} "
                      "(SHB-14)")
            t.known[s] = t.own
            continue
        c = t.cards.card(v, f"seat {s + 1}'s known hand")
        t.known[s] = c
        if s == t.mover and t.decision == "place":
            t.held[0] = c
        else:
            t.hands[s] = c


def _read_put_back(sit: dict, t: _Reading) -> None:
    """The seat that put the pile's top card back, and that card if it is this seat (SHB-6, SHB-7)."""
    ret = sit.get("put_back_by")
    pile_top = sit.get("pile_top")
    if ret is not None:
        t.ret = _seat_no(ret, "put_back_by", t.n)
        prev = (t.first + t.turn - 1) % t.n
        if t.decision == "place" or t.turn == 0 or t.ret != prev or t.pile == 0:
            _fail("put_back_by: only the seat that moved last can have put the pile's top card back, and only "
                  "until someone takes from the pile; the mover's own take does (SHB-6, SHB-7)")
        if t.known[t.ret] >= 0:
            _fail(f"seat {t.ret + 1} drew two in its last turn, so its hand is not known (SHB-6, SHB-14)")
    if pile_top is not None:
        if t.ret != t.seat:
            _fail("pile_top: a seat knows the pile's top card only if it put that card back itself and nobody "
                  "has drawn since (put_back_by must be your seat, SHB-6)")
        t.top = t.cards.card(pile_top, "the pile's top card")
    elif t.ret == t.seat and t.ret >= 0:
        _fail("you put the pile's top card back: give it as pile_top (SHB-6)")


def _check_counts(sit: dict, t: _Reading) -> None:
    """Every card is in a tableau, the offer, a hand, the mover's hands or the pile (SHB-2, SHB-3);
    draw_two, if given, agrees with the pile (SHB-6, SHB-7)."""
    extra = {0: 0, 2: 1, 3: 2}[t.nh]
    need = t.n_deck - t.turn - len(t.offer) - t.n - extra
    if t.pile != need:
        _fail(f"pile: {t.pile} cards left does not add up: {t.n_deck} in the deck - {t.turn} placed - "
              f"{len(t.offer)} in the offer - {t.n + extra} in hands = {need} (SHB-2, SHB-3)")
    dt = sit.get("draw_two")
    if dt is not None:
        if not isinstance(dt, bool):
            _fail(f"draw_two is true or false, not {dt!r}")
        allowed = t.decision == "source" and t.pile >= 2
        if dt != allowed:
            _fail(f"draw_two is {'allowed' if allowed else 'not allowed'} here: drawing two needs a source "
                  f"decision and two or more cards in the pile, which holds {t.pile} (SHB-6, SHB-7)")


def _place_tableaus(state: np.ndarray, t: _Reading) -> None:
    """Write each tableau on the step interface's grid, its first card at the centre (SHB-8)."""
    state[K.GRID0:K.GRID0 + K.MAXP * K.NCELL] = -1
    for s, grid in enumerate(t.grids):
        if not grid:
            continue
        if s in t.first_of:
            anchor = next(p for p, x in grid.items() if t.deck.ids[x] == t.first_of[s].strip())
        else:
            anchor = _default_first(grid)
        r0, c0 = K.CENTRE // K.GW - anchor[0], K.CENTRE % K.GW - anchor[1]
        for (r, c), x in grid.items():
            state[K.GRID0 + s * K.NCELL + (r0 + r) * K.GW + c0 + c] = x
        h = 1 + max(r for r, _ in grid)
        w = 1 + max(c for _, c in grid)
        state[K.NPL0 + s] = len(grid)
        state[K.BB0 + 4 * s:K.BB0 + 4 * s + 4] = (r0, r0 + h - 1, c0, c0 + w - 1)


def _state_of(t: _Reading) -> np.ndarray:
    """A full int64 (STATE_SIZE,) state the reading describes, the cards no seat has seen anywhere hidden."""
    n, pile, decision = t.n, t.pile, t.decision
    state = np.zeros(K.STATE_SIZE, dtype=np.int64)
    state[K.S_NP], state[K.S_SEAT], state[K.S_TURN] = n, t.first if t.over else t.mover, t.turn
    state[K.S_PILE], state[K.S_OFFER], state[K.S_RET], state[K.S_FIRST] = pile, len(t.offer), t.ret, t.first
    state[K.S_NDECK], state[K.S_NHELD], state[K.S_SRC] = t.n_deck, t.nh, t.src
    fill = iter([x for x in range(t.n_deck) if x not in t.cards.where])
    state[K.PILE0:K.PILE0 + K.MAXD] = -1
    for j in range(pile):
        state[K.PILE0 + j] = t.top if (j == pile - 1 and t.top >= 0) else next(fill)
    state[K.OFFER0:K.OFFER0 + K.OFFER_MAX] = -1
    state[K.OFFER0:K.OFFER0 + len(t.offer)] = t.offer
    hands, held = list(t.hands), list(t.held)
    for s in range(n):
        if decision == "place" and s == t.mover:
            continue
        if hands[s] < 0:
            hands[s] = next(fill)
    if decision == "place":
        hands[t.mover] = -1
        for j in range(t.nh):
            if held[j] < 0:
                held[j] = next(fill)
    state[K.HAND0:K.HAND0 + K.MAXP] = hands
    state[K.HELD0:K.HELD0 + 3] = held
    _place_tableaus(state, t)
    state[K.S_KNOWN0:K.S_KNOWN0 + K.MAXP] = t.known
    leftover = list(fill)
    if leftover:  # pragma: no cover - the count check rules it out
        _fail("the situation leaves cards nowhere")
    return state


def to_position(situation: dict, deck: Deck | None = None) -> Position:
    """Check a situation (see the module docstring) and give its step-interface observation.

    Args:
        situation: the JSON-able dict of :data:`KEYS`.
        deck: the deck the card ids refer to (default the assumed deck, SHB-1).

    Returns:
        :class:`Position`: ``(rules, n_players, seat, obs)`` with ``obs`` int64 (OBS_SIZE,) exactly
        as ``shelf_kernels.observe`` writes it for that seat in any state the situation describes.

    Raises:
        SituationError: one line naming what the rules cannot produce and what is allowed: an unknown
            or missing key, an unknown card, a card seen twice (SHB-1), a tableau that is not one
            connected block within 3 shelves of 5 (SHB-8), cards placed out of turn order (SHB-4),
            counts that do not add up to the deck (SHB-2, SHB-3, SHB-5..SHB-7), a decision or a hand
            the turn cannot have (SHB-5, SHB-6), knowledge no seat can have (SHB-14).
        RulesError / UnknownNameError: players, variant or tiebreak out of range.
    """
    from . import shelf as S
    from . import shelf_reference as R

    _check_keys(situation)
    sit = situation
    deck = deck if deck is not None else assumed_deck()
    srules = _read_rules(sit, deck)
    rules = S.step_rules(srules)
    t = _read_turn(sit, srules.players, deck)
    _read_tableaus(sit, t)
    _read_start(sit, t)
    _read_offer(sit, t)
    _read_source(sit, t)
    _read_hands(sit, t)
    _read_known(sit, t)
    _read_put_back(sit, t)
    _check_counts(sit, t)
    obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
    R.observe(rules, _state_of(t), t.seat, obs)
    return Position(rules=rules, n_players=t.n, seat=t.seat, obs=obs, shelf_rules=srules, to_move=t.mover)


def _default_first(grid: dict) -> tuple:
    """The first card of the top shelf (reading order): where a tableau is anchored by default."""
    return min(grid)


# ------------------------------------------------------------------ writing
def _deck_for(rules: np.ndarray, deck: Deck | None) -> Deck:
    deck = deck if deck is not None else assumed_deck()
    n = int(rules[K.R_NDECK])
    if len(deck) != n or not np.array_equal(deck.attrs.astype(np.int64).ravel(), rules[K.R_ATTRS:K.R_ATTRS + 4 * n]):
        raise SituationError(f"the deck {deck.name} is not the deck of these rules ({n} cards): give the deck the "
                             "game was played with")
    return deck


def _frame(obs: np.ndarray, s: int):
    """(r0, c0, h, w) of seat s's placed cards on the grid, or None when it has none."""
    if obs[K.NPL0 + s] == 0:
        return None
    b = K.BB0 + 4 * s
    return int(obs[b]), int(obs[b + 2]), int(obs[b + 1] - obs[b] + 1), int(obs[b + 3] - obs[b + 2] + 1)


def from_obs(rules: np.ndarray, obs: np.ndarray, deck: Deck | None = None) -> dict:
    """The situation a seat would write for its observation (the inverse of :func:`to_position`).

    Args:
        rules: the int64 rules array; obs: int64 (OBS_SIZE,) as ``shelf_kernels.observe`` wrote it.
        deck: the deck of the rules (default the assumed deck) to name the cards (SHB-15).

    Returns:
        A JSON-able dict with every key of the module docstring that applies (cards as deck ids,
        seats from 1), plus nothing the seat cannot see.

    Raises:
        SituationError: the deck is not the rules' deck.
    """
    deck = _deck_for(rules, deck)
    ids = deck.ids
    n = int(obs[K.S_NP])
    seat = int(obs[K.O_SEAT])
    turn = int(obs[K.S_TURN])
    over = turn >= 15 * n
    mover = -1 if over else int(obs[K.S_SEAT])
    nh = int(obs[K.S_NHELD])
    points = tuple(int(x) for x in rules[K.R_POINTS:K.R_POINTS + 6])
    cols = bool(rules[K.R_COLUMNS])
    variant = next((v for v, (p, c) in VARIANTS.items() if tuple(p) == points and c == cols), None)
    out = {"players": n, "seat": seat + 1, "to_move": None if over else mover + 1,
           "decision": "over" if over else ("place" if nh else "source"),
           "variant": variant, "tiebreak": TIEBREAKS[int(rules[K.R_TIEBREAK])], "starts": int(obs[K.S_FIRST]) + 1}
    tabs, firsts = [], {}
    for s in range(n):
        fr = _frame(obs, s)
        if fr is None:
            tabs.append([])
            continue
        r0, c0, h, w = fr
        grid = {}
        rows = []
        for r in range(h):
            row = []
            for c in range(w):
                x = int(obs[K.GRID0 + s * K.NCELL + (r0 + r) * K.GW + c0 + c])
                row.append(ids[x] if x >= 0 else EMPTY)
                if x >= 0:
                    grid[(r, c)] = x
            rows.append(" ".join(row))
        tabs.append(rows)
        anchor = (K.CENTRE // K.GW - r0, K.CENTRE % K.GW - c0)
        if anchor != _default_first(grid):
            firsts[str(s + 1)] = ids[grid[anchor]]
    out["tableaus"] = tabs
    if firsts:
        out["first_placed"] = firsts
    held = [int(x) for x in obs[K.HELD0:K.HELD0 + 3]]
    if mover == seat and nh:
        out["hand"] = ids[held[0]]
    else:
        out["hand"] = ids[int(obs[K.HAND0 + seat])]
    if nh:
        src = int(obs[K.S_SRC])
        out["source"] = "draw" if src == K.DRAW else "offer"
        if src != K.DRAW:
            out["offer_place"] = src + 1
            out["taken"] = ids[held[1]]
        elif mover == seat:
            out["drawn"] = [ids[held[1]], ids[held[2]]]
    out["offer"] = [ids[int(x)] for x in obs[K.OFFER0:K.OFFER0 + int(obs[K.S_OFFER])]]
    pile = int(obs[K.S_PILE])
    out["pile"] = pile
    out["draw_two"] = bool(not over and nh == 0 and pile >= 2)
    ret = int(obs[K.S_RET])
    out["put_back_by"] = ret + 1 if ret >= 0 and pile > 0 else None
    if ret == seat and pile > 0 and obs[K.PILE0 + pile - 1] >= 0:
        out["pile_top"] = ids[int(obs[K.PILE0 + pile - 1])]
    known = {str(s + 1): ids[int(obs[K.O_KNOWN0 + s])] for s in range(n) if obs[K.O_KNOWN0 + s] >= 0}
    out["known_hands"] = known
    return out


def _cell_name(obs: np.ndarray, seat: int, cell: int) -> str:
    """A place of the seat's tableau as ``rRcC``: shelf R and place C counted from 1 in the frame of
    the cards placed so far (0 = a new shelf above / a new place left of them)."""
    fr = _frame(obs, seat)
    if fr is None:
        return "r1c1"
    r0, c0, _, _ = fr
    return f"r{cell // K.GW - r0 + 1}c{cell % K.GW - c0 + 1}"


def action_label(rules: np.ndarray, obs: np.ndarray, action: int, deck: Deck | None = None) -> str:
    """A legal action of the seat to move, in the game's notation (short, for a table or a button).

    ``take PHY-R-10`` (the offer card, SHB-5), ``draw two`` (SHB-6), ``place PHY-R-10 r2c3``
    (SHB-8: shelf 2, place 3 of the frame :func:`from_obs` writes; ``r0`` / ``c0`` a new shelf
    above / place left), with ``, back HIS-B-3`` for the card put back on the pile (SHB-6).

    Raises:
        SituationError: an action that is not of this decision's kind.
    """
    ids = _deck_for(rules, deck).ids
    a = int(action)
    seat = int(obs[K.O_SEAT])
    nh = int(obs[K.S_NHELD])
    if nh == 0:
        if a == K.A_DRAW:
            return "draw two"
        if 0 <= a < int(obs[K.S_OFFER]):
            return f"take {ids[int(obs[K.OFFER0 + a])]}"
        raise SituationError(f"action {a} is not a source of this decision (offer 0..{int(obs[K.S_OFFER]) - 1} "
                             f"or {K.A_DRAW} to draw two)")
    q, cell = divmod(a - K.A_PLACE0, K.NCELL)
    p, r = divmod(q, 3)
    if a < K.A_PLACE0 or p >= nh or r >= nh or obs[K.HELD0 + p] < 0:
        raise SituationError(f"action {a} is not a placement of the {nh} cards held")
    text = f"place {ids[int(obs[K.HELD0 + p])]} {_cell_name(obs, seat, cell)}"
    if r != p:
        text += f", back {ids[int(obs[K.HELD0 + r])]}"
    return text
