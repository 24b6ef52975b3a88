"""Shut The Books situations at a card-play decision, as data (clauses ``STK-n`` of seeds/shut_the_books.md).

A *situation* is what one player knows when it is their turn to play a card to a trick (STK-5) or to
choose which prediction card a won trick closes (STK-6): their hand, every prediction card laid, the
tricks closed so far and the trick in progress.  It is a JSON-able dict::

    {"players": 4, "scoring": "rulebook", "void_trump": "counts",
     "start": 0,                                   # the hand's starting player (led the first trick)
     "hand": "R15 R9 B10 ...",                     # the advised seat's cards in hand, nothing else
     "predictions": ["B3 Y7", "", "R2", "P5 P6"],  # every card each seat laid, open or closed, by seat
     "tricks": [{"cards": "B4 B9 B1 R3", "close": "B3"}, ...],  # closed tricks, cards from the leader
     "trick": "Y2 Y11"}                            # the trick in progress, cards from its leader

Optional keys: ``seat`` (the advised seat; it must be the seat to act, which the tricks decide),
``tie_break``, ``game`` (``{"hand_number": h, "hands": n, "totals": [...]}``: where the hand stands in
a game of ``n`` hands, STK-9), and the derived, checked-if-given keys :func:`from_obs` writes for
reading: ``phase`` (``play`` or ``close``), ``open`` (each seat's open prediction cards),
``cards_in_hand`` (per seat), ``hand_lasts`` (tricks in the hand, STK-7).  A closed trick is a card
list or ``{"leader", "cards", "winner", "close"}``; ``leader`` and ``winner`` are checked if given,
``close`` names the prediction card the winner closed (needed only when the winning card matched two
or more of the winner's open prediction cards; ``null`` for an extra trick).

Scope of the value: without ``game`` the situation is hand 0 of a one-hand game with no points yet,
so the step game's ``returns`` are exactly this hand's points (STK-8) and advice ranks the actions by
the points of this hand.  With ``game`` the rules array asks for ``hands`` hands and the value is the
seat's game total at the end of the game (the totals so far, this hand, and the hands after it played
by the continuation); :func:`value_scope` says which in words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from ludolab.stdlib import books as B
from ludolab.stdlib.books import (BooksRules, CardError, L_CLOSED, L_HAND, L_HIDDEN, L_OPEN, L_OUT, L_PLAYED,
                                  LOC, MAX_PREDICTIONS, N_CARD_IDS, NHAND, NPRED, PH_CLOSE, PH_DONE, PH_FORECAST,
                                  PH_PLAY, PREDS, S_LEADER, S_NPLAYED, S_NTRICKS, S_PENDING, S_PHASE, S_PLAYERS,
                                  S_START, S_TRICK, S_TURN, S_VIEWER, T_CARDS, T_CLOSE, T_LEAD, T_WIN, card_name)
from ludolab.stdlib.errors import LudolabError, SituationError, whole_number

from . import books_reference as REF
from .situation_common import CardPlaces, check_keys, per_seat, shown, whole

#: The keys a situation may have (the first group is what a player writes, the second what
#: :func:`from_obs` adds for reading, checked when given).
SITUATION_KEYS = ("players", "scoring", "void_trump", "tie_break", "seat", "start", "hand", "predictions",
                  "tricks", "trick", "game")
DERIVED_KEYS = ("phase", "open", "cards_in_hand", "hand_lasts")
TRICK_KEYS = ("leader", "cards", "winner", "close")
GAME_KEYS = ("hand_number", "hands", "totals")


@dataclass(frozen=True, eq=False)
class Position:
    """A decision of the step game as the advised seat sees it.

    Attributes:
        rules: int64 (GAME_RULES_SIZE,), ``BooksRules.game_array(hands)``.
        n_players: 3 or 4.
        seat: the seat to act (the observation's viewer).
        obs: int64 (OBS_SIZE,), exactly what ``books_kernels.observe`` writes for ``seat``.
        books_rules: the ruleset.
    """

    rules: np.ndarray
    n_players: int
    seat: int
    obs: np.ndarray
    books_rules: BooksRules

    def __iter__(self):  # (rules, n_players, seat, obs) = position
        return iter((self.rules, self.n_players, self.seat, self.obs))


def _err(msg: str) -> SituationError:
    return SituationError(msg)


def _card_list(rules: BooksRules, value, where: str) -> list[int]:
    if value is None:
        return []
    if not isinstance(value, (str, list, tuple)):
        raise _err(f"{where}: write cards like \"R15 R9 B10\" or [\"R15\", \"R9\"], not {value!r} (STK-2)")
    try:
        return rules.parse_cards(value)
    except CardError as e:
        raise _err(f"{where}: {e} (STK-2)") from None


def _seat_number(value, what: str, P: int, clause: str) -> int:
    try:
        return whole(value, what, 0, P - 1)
    except LudolabError as e:
        raise _err(f"{e} (the seats are 0..{P - 1}, {clause})") from None


def _rules_of_situation(sit: dict) -> BooksRules:
    players = sit.get("players", 4)
    try:
        players = whole(players, "players", 3, 4)
    except LudolabError:
        raise _err(f"players must be 3 or 4, not {shown(players)} (STK-1)") from None
    kw = {}
    for key in ("scoring", "void_trump", "tie_break"):
        if key in sit:
            kw[key] = sit[key]
    try:
        return BooksRules(int(players), **kw)
    except LudolabError as e:
        raise _err(str(e)) from None


def _fresh_hand_state(rules: BooksRules, start: int) -> list:
    """A hand state after the deal as nobody sees it: every card in play hidden (STK-1, STK-3)."""
    st = [0] * B.STATE_SIZE
    arr = rules.as_array()
    st[B.S_PLAYERS], st[B.S_NMAX], st[B.S_HAND], st[B.S_VOIDRULE] = (int(x) for x in arr)
    st[S_START] = start
    st[S_PHASE] = PH_FORECAST
    st[S_TURN] = start
    st[S_LEADER] = start
    st[S_VIEWER] = -1
    st[S_PENDING] = -1
    for c in range(N_CARD_IDS):
        st[LOC + c] = L_OUT
    for c in rules.deck:
        st[LOC + int(c)] = L_HIDDEN
    for i in range(T_LEAD, B.HMASK):
        st[i] = -1
    for s in range(rules.players):
        st[NHAND + s] = rules.hand_size
    return st


def _where_trick(t: int) -> str:
    return f"tricks[{t}] (trick {t + 1})"


def _read_trick(rules: BooksRules, value, where: str) -> dict:
    if isinstance(value, (str, list, tuple)):
        return {"cards": _card_list(rules, value, where)}
    if not isinstance(value, dict):
        raise _err(f"{where}: a trick is a card list or an object with {', '.join(TRICK_KEYS)} (STK-5)")
    extra = [k for k in value if k not in TRICK_KEYS]
    if extra:
        raise _err(f"{where}: unknown field {extra[0]!r}: a trick has {', '.join(TRICK_KEYS)} (STK-5)")
    if "cards" not in value:
        raise _err(f"{where}: cards is missing: list the cards played, from the leader clockwise (STK-5)")
    out = {"cards": _card_list(rules, value["cards"], f"{where} cards")}
    for k in ("leader", "winner"):
        if value.get(k) is not None:
            out[k] = _seat_number(value[k], f"{where} {k}", rules.players, "STK-5")
    if value.get("close") is not None:
        cl = _card_list(rules, value["close"], f"{where} close")
        if len(cl) != 1:
            raise _err(f"{where}: close names one prediction card, not {len(cl)} (STK-6)")
        out["close"] = cl[0]
    return out


def _game_block(value, rules: BooksRules) -> tuple[int, int, list[int]]:
    P = rules.players
    if not isinstance(value, dict):
        raise _err(f"game: an object with {', '.join(GAME_KEYS)}, not {value!r} (STK-9)")
    extra = [k for k in value if k not in GAME_KEYS]
    if extra:
        raise _err(f"game: unknown field {extra[0]!r}: allowed are {', '.join(GAME_KEYS)} (STK-9)")
    try:
        hands = whole_number(value.get("hands", P), "game hands", 1, P)
        h = whole_number(value.get("hand_number", 0), "game hand_number (hands finished before this one)", 0,
                         hands - 1)
    except LudolabError as e:
        raise _err(f"{e} (a game has 1..{P} hands, STK-9)") from None
    totals = per_seat(value.get("totals", [0] * P), P,
                      lambda v: f"game totals: one whole number per seat ({P}), not {v!r} (STK-9)")
    lo, hi = rules.score_bounds()
    out = []
    for s, t in enumerate(totals):
        try:
            out.append(whole_number(t, f"game totals[{s}]", lo * h, hi * h))
        except LudolabError as e:
            raise _err(f"{e}: the points of {h} finished hands (STK-8, STK-9)") from None
    return h, hands, out


def _read_predictions(rules: BooksRules, preds) -> list[list[int]]:
    """Every seat's prediction cards, sorted, once the forecast is complete (STK-4)."""
    P = rules.players
    if not isinstance(preds, list) or len(preds) < P or any(p is None for p in preds):
        n = len(preds) if isinstance(preds, list) else 0
        raise _err(f"the forecast is not complete ({n} of {P} seats' prediction cards given): that is a "
                   "forecast decision (STK-4), advised by `ludolab books advise` without --play; for card play "
                   f"give predictions as a list of {P} card lists, one per seat (\"\" for none)")
    if len(preds) > P:
        raise _err(f"predictions lists {len(preds)} seats; there are {P} players (STK-1, STK-4)")
    pred_cards = []
    for s, p in enumerate(preds):
        cs = _card_list(rules, p, f"predictions[{s}]")
        if len(cs) > MAX_PREDICTIONS:
            raise _err(f"predictions[{s}]: seat {s} laid {len(cs)} prediction cards; at most {MAX_PREDICTIONS} "
                       "(STK-4)")
        pred_cards.append(sorted(cs))
    return pred_cards


def _read_play(rules: BooksRules, situation: dict) -> tuple[list[int], list[dict], list[int]]:
    """The advised seat's hand, the closed tricks and the trick in progress, as written (STK-2, STK-5)."""
    hand = _card_list(rules, situation.get("hand"), "hand")
    if "hand" not in situation:
        raise _err("hand is missing: give the advised seat's cards in hand, e.g. \"R15 R9 B10\" (STK-2)")
    raw_tricks = situation.get("tricks", [])
    if raw_tricks is None:
        raw_tricks = []
    if not isinstance(raw_tricks, list):
        raise _err("tricks: a list of the closed tricks in order, each a card list from its leader (STK-5)")
    tricks = [_read_trick(rules, t, _where_trick(i)) for i, t in enumerate(raw_tricks)]
    return hand, tricks, _card_list(rules, situation.get("trick"), "trick")


def _check_unique(hand, pred_cards, tricks, current) -> None:
    """Every card of the situation is in one place (STK-1)."""
    seen = CardPlaces(lambda card, first, second: f"card {card} is both in {first} and in {second}: every card is "
                      "unique (STK-1)")
    for c in hand:
        seen.see(c, "hand", card_name(c))
    for s, cs in enumerate(pred_cards):
        for c in cs:
            seen.see(c, f"predictions[{s}]", card_name(c))
    for i, t in enumerate(tricks):
        for c in t["cards"]:
            seen.see(c, _where_trick(i), card_name(c))
    for c in current:
        seen.see(c, "trick", card_name(c))


def _read_start(situation: dict, rules: BooksRules, tricks, current) -> tuple[int, int, int, list[int]]:
    """The hand's starting player (STK-3) and where the hand stands in a game (STK-9).

    Returns:
        (start, hand number, hands in the game, totals so far per seat).
    """
    P = rules.players
    if "start" in situation:
        start = _seat_number(situation["start"], "start", P, "STK-3")
    elif tricks and "leader" in tricks[0]:
        start = tricks[0]["leader"]
    elif not tricks and "seat" in situation:
        start = (_seat_number(situation["seat"], "seat", P, "STK-5") - len(current)) % P
    else:
        raise _err(f"start is missing: give the seat 0..{P - 1} of the hand's starting player, who led the "
                   "first trick (STK-3)")
    game = situation.get("game")
    if game is None:
        return start, 0, 1, [0] * P
    hand_no, n_hands, totals = _game_block(game, rules)
    if start != hand_no % P:
        raise _err(f"hand {hand_no + 1} of a game is started by seat {hand_no % P}, not {start}: seat 0 starts "
                   "the first hand and the start moves one seat to the left each hand (STK-3, STK-9)")
    return start, hand_no, n_hands, totals


def _play_cards(st: list, void: list, cards, where: str, closed: bool, trick: dict | None) -> None:
    """Play ``cards`` to the trick in ``st`` from its leader, refusing a wrong leader or card count and a
    card of a colour its player has shown out of (STK-5); marks in ``void`` who shows out of what."""
    P = st[S_PLAYERS]
    leader = st[S_LEADER]
    if trick is not None and "leader" in trick and trick["leader"] != leader:
        who = "the starting player" if st[S_TRICK] == 0 else f"the winner of trick {st[S_TRICK]}"
        raise _err(f"{where}: the leader is {who}, seat {leader}, not seat {trick['leader']} (STK-5)")
    if len(cards) > P or (closed and len(cards) != P):
        raise _err(f"{where}: {len(cards)} cards; every one of the {P} players plays one card to a trick (STK-5)")
    led = None
    for c in cards:
        s = st[S_TURN]
        col = B.colour_of(c)
        if void[s][col]:
            raise _err(f"{where}: seat {s} plays {card_name(c)}, a {B.COLOUR_NAMES[col]} card, after not "
                       f"following {B.COLOUR_NAMES[col]} earlier: they held none (STK-5)")
        if led is None:
            led = col
        elif col != led:
            void[s][led] = True
        REF.play_card(st, c)


def _close_trick(st: list, t: dict, where: str, ti: int) -> None:
    """Close the prediction card trick ``ti``'s winner chose, or check the one the rules close (STK-6)."""
    w = st[T_WIN + ti]
    cc = t.get("close")
    if st[S_PHASE] == PH_CLOSE:
        options = REF.pending_matches(st)
        if cc is None:
            raise _err(f"{where}: close is missing: seat {w} wins with {card_name(st[S_PENDING])}, which matches "
                       f"{' and '.join(card_name(o) for o in options)}; name the one closed (STK-6)")
        if cc not in options:
            only = ", ".join(card_name(o) for o in options)
            raise _err(f"{where}: seat {w} cannot close {card_name(cc)}: the winning card "
                       f"{card_name(st[S_PENDING])} matches only {only} (STK-6)")
        REF.close_card(st, cc)
        return
    done = st[T_CLOSE + ti]
    if cc is not None and cc != done:
        allowed = f"it closes {card_name(done)}" if done >= 0 else "it is an extra trick (close null)"
        other = "no other" if done >= 0 else "no"
        raise _err(f"{where}: seat {w} cannot close {card_name(cc)}: the winning card matches "
                   f"{other} open prediction card of seat {w}, so {allowed} (STK-6)")


def _replay(st: list, tricks: list[dict], current: list[int]) -> None:
    """Play the closed tricks and the trick in progress on ``st`` (STK-5, STK-6)."""
    void = [[False] * 4 for _ in range(st[S_PLAYERS])]
    for i, t in enumerate(tricks):
        where = _where_trick(i)
        ti = st[S_TRICK]
        _play_cards(st, void, t["cards"], where, True, t)
        w = st[T_WIN + ti]
        if "winner" in t and t["winner"] != w:
            raise _err(f"{where}: the trick is won by seat {w}, not seat {t['winner']} (STK-5)")
        _close_trick(st, t, where, ti)
        if st[S_PHASE] == PH_DONE and i + 1 < len(tricks):  # pragma: no cover - the count check comes first
            raise _err(f"{where}: the hand is over after trick {i + 1} (STK-7)")
    _play_cards(st, void, current, "trick", False, None)
    if st[S_NPLAYED] == 0 and current:
        raise _err(f"trick: all {st[S_PLAYERS]} cards are played and the trick closes by itself (no choice of "
                   "prediction card, STK-6): list it under tricks")


def _seat_to_act(situation: dict, st: list, current) -> int:
    """The seat to act; a ``seat`` given must be it (STK-5, STK-6)."""
    seat = st[S_TURN]
    if "seat" in situation:
        given = _seat_number(situation["seat"], "seat", st[S_PLAYERS], "STK-5")
        if given != seat:
            why = ("the winner of the trick in progress chooses the prediction card to close (STK-6)"
                   if st[S_PHASE] == PH_CLOSE else f"seat {st[S_LEADER]} leads the trick and "
                   f"{len(current)} card(s) are played (STK-5)")
            raise _err(f"seat {given} is not the one to act: seat {seat} is ({why}); a situation is advised for the "
                       "seat to act")
    return seat


def _give_hand(st: list, seat: int, hand: list[int], n_pred: int, H: int) -> None:
    """Put the advised seat's hand in ``st``: the size the tricks leave (STK-3, STK-7), and its own earlier
    plays following suit given what it held then (STK-5)."""
    if len(hand) != st[NHAND + seat]:
        played = sum(1 for t in range(min(st[S_TRICK] + 1, B.MAX_TRICKS)) if st[T_CARDS + 4 * t + seat] >= 0)
        raise _err(f"hand: seat {seat} holds {st[NHAND + seat]} cards ({H} dealt - {n_pred} prediction "
                   f"cards - {played} played), not {len(hand)} (STK-3, STK-7)")
    for c in hand:
        st[LOC + c] = L_HAND + seat
        REF.mask_add(st, B.HMASK + 4 * seat, c)
    held = set(hand)
    for t in range(st[S_TRICK], -1, -1):
        c = st[T_CARDS + 4 * t + seat] if t < 16 else -1
        if c < 0:
            continue
        led = B.colour_of(st[T_CARDS + 4 * t + st[T_LEAD + t]])
        held.add(c)
        if B.colour_of(c) != led:
            own = sorted(x for x in held if B.colour_of(x) == led)
            if own:
                where = "trick" if t == st[S_TRICK] else _where_trick(t)
                raise _err(f"{where}: seat {seat} plays {card_name(c)} but holds {card_name(own[0])} and must follow "
                           f"{B.COLOUR_NAMES[led]} (STK-5)")


def _observation(st: list, seat: int, hand_no: int, n_hands: int, totals: list[int]) -> np.ndarray:
    """The seat's int64 observation of the hand state ``st`` in a game at hand ``hand_no`` of ``n_hands``;
    refuses it when no deal of the unseen cards fits (hand sizes, colours shown out of: STK-5)."""
    obs = np.zeros(B.GAME_STATE_SIZE, dtype=np.int64)
    obs[:B.STATE_SIZE] = st
    obs[S_VIEWER] = seat
    obs[B.S_RNG] = 0
    obs[B.S_HANDNO] = hand_no
    obs[B.S_NHANDS] = n_hands
    obs[B.S_TOTAL:B.S_TOTAL + len(totals)] = totals
    world = [int(x) for x in obs[:B.STATE_SIZE]]
    world[S_VIEWER] = -1
    try:
        REF.deal_hidden(world, seat, 1)
    except ValueError:
        raise _err("no deal of the unseen cards fits: the other hands' sizes and the colours their players have "
                   "shown out of leave no place for some card (STK-5)") from None
    return obs


def to_position(situation: dict) -> Position:
    """The step game's decision for a situation (see the module docstring for the format).

    Args:
        situation: a dict as read from JSON (card lists as notation strings or lists of strings).

    Returns:
        :class:`Position` ``(rules, n_players, seat, obs)``; ``obs`` int64 (OBS_SIZE,) is exactly what
        ``books_kernels.observe`` writes for the seat to act at that decision.

    Raises:
        SituationError: (one line, naming the clause) an unknown key; a card outside the deck or seen
            twice (STK-1, STK-2); more than 5 prediction cards (STK-4); an incomplete forecast (a
            forecast decision: ``ludolab books advise`` without ``--play``); a trick with the wrong
            number of cards, a leader or winner the rules do not give, a card that does not follow suit
            while its player held (or later played) the colour led (STK-5); a close the winning card does
            not allow or a missing one (STK-6); a hand already over (STK-7); a hand that is not the
            size the tricks leave (STK-3, STK-7); a ``seat`` that is not the one to act; no deal of the
            unseen cards fits the hand sizes and the colours shown out of (STK-5).
    """
    check_keys(situation, SITUATION_KEYS + DERIVED_KEYS, "the situation", word="field",
               not_object="a situation is a JSON object with " + ", ".join(SITUATION_KEYS))
    rules = _rules_of_situation(situation)
    P, H = rules.players, rules.hand_size
    pred_cards = _read_predictions(rules, situation.get("predictions"))
    hand, tricks, current = _read_play(rules, situation)
    _check_unique(hand, pred_cards, tricks, current)
    start, hand_no, n_hands, totals = _read_start(situation, rules, tricks, current)

    # the forecast (STK-4), in order from the starting player
    st = _fresh_hand_state(rules, start)
    for k in range(P):
        s = (start + k) % P
        REF.apply_forecast(st, s, pred_cards[s])
    n_tricks = st[S_NTRICKS]
    if len(tricks) >= n_tricks:
        raise _err(f"the situation has {len(tricks)} closed tricks, but with these prediction cards the hand "
                   f"lasts {n_tricks} ({H} cards - the most prediction cards laid, STK-7): nothing is left to play")
    _replay(st, tricks, current)
    seat = _seat_to_act(situation, st, current)
    _give_hand(st, seat, hand, len(pred_cards[seat]), H)
    obs = _observation(st, seat, hand_no, n_hands, totals)
    _check_derived(situation, from_obs(rules.game_array(n_hands), obs))
    return Position(rules.game_array(n_hands), P, seat, obs, rules)


def _check_derived(given: dict, derived: dict) -> None:
    for k in DERIVED_KEYS:
        if k in given and _norm(given[k]) != _norm(derived[k]):
            raise _err(f"{k} is {json.dumps(given[k])}, but the cards say {json.dumps(derived[k])} "
                       f"(leave {k} out, it is worked out from the cards)")


def _norm(v):
    if isinstance(v, str):
        return " ".join(sorted(v.upper().replace(",", " ").split()))
    if isinstance(v, (list, tuple)):
        return [_norm(x) for x in v]
    return v


def _rules_from_array(rules_arr, obs) -> BooksRules:
    P = int(obs[S_PLAYERS])
    return BooksRules(P, scoring=B.SCORINGS[int(rules_arr[B.R_SCORING])],
                      void_trump="counts" if int(obs[B.S_VOIDRULE]) == 1 else "ignored",
                      tie_break=B.TIE_BREAKS[int(rules_arr[B.R_TIE_BREAK])])


def from_obs(rules, obs) -> dict:
    """The situation a seat would write for its observation (the inverse of :func:`to_position`).

    Args:
        rules: int64 (GAME_RULES_SIZE,) rules array.
        obs: int64 (OBS_SIZE,), ``books_kernels.observe`` of the seat, at a card-play or close decision.

    Returns:
        A JSON-able dict, cards in notation (STK-2): players and rule options, seat, start, hand,
        predictions, tricks (leader, cards from the leader, winner, close), trick, ``game`` when the
        hand is not hand 0 of a one-hand game without points, and the derived keys phase, open,
        cards_in_hand and hand_lasts.

    Raises:
        SituationError: ``obs`` is at a forecast decision (STK-4) or after the game.
    """
    obs = [int(x) for x in obs]
    P = obs[S_PLAYERS]
    if obs[S_PHASE] not in (PH_PLAY, PH_CLOSE) or obs[B.S_HANDNO] >= obs[B.S_NHANDS]:
        raise _err("the observation is not at a card-play decision (STK-5, STK-6): a forecast (STK-4) is advised "
                   "by `ludolab books advise` without --play")
    br = _rules_from_array(rules, obs)
    seat = obs[S_VIEWER]

    def names(cards):
        return " ".join(card_name(c) for c in cards)

    def trick_cards(t, n):
        lead = obs[T_LEAD + t]
        return [obs[T_CARDS + 4 * t + (lead + k) % P] for k in range(n)]

    sit = {"players": P, "scoring": br.scoring, "void_trump": br.void_trump, "tie_break": br.tie_break,
           "seat": seat, "start": obs[S_START],
           "hand": names(c for c in range(N_CARD_IDS) if obs[LOC + c] == L_HAND + seat),
           "predictions": [names(obs[PREDS + MAX_PREDICTIONS * s + i] for i in range(obs[NPRED + s]))
                           for s in range(P)],
           "tricks": [], "trick": names(trick_cards(obs[S_TRICK], obs[S_NPLAYED]))}
    for t in range(obs[S_TRICK]):
        cl = obs[T_CLOSE + t]
        sit["tricks"].append({"leader": obs[T_LEAD + t], "cards": names(trick_cards(t, P)), "winner": obs[T_WIN + t],
                              "close": card_name(cl) if cl >= 0 else None})
    if obs[B.S_HANDNO] != 0 or obs[B.S_NHANDS] != 1 or any(obs[B.S_TOTAL + s] for s in range(P)):
        sit["game"] = {"hand_number": obs[B.S_HANDNO], "hands": obs[B.S_NHANDS],
                       "totals": [obs[B.S_TOTAL + s] for s in range(P)]}
    sit["phase"] = "close" if obs[S_PHASE] == PH_CLOSE else "play"
    sit["open"] = [names(c for c in range(N_CARD_IDS) if obs[LOC + c] == L_OPEN + s) for s in range(P)]
    sit["cards_in_hand"] = [obs[NHAND + s] for s in range(P)]
    sit["hand_lasts"] = obs[S_NTRICKS]
    return sit


def action_label(rules, obs, action) -> str:
    """A legal action in the game's notation: the card played (``R15``, STK-5), or ``close B3`` for the
    prediction card a won trick closes (STK-6)."""
    a = int(action)
    if not 0 <= a < N_CARD_IDS:
        raise _err(f"action {a} is not a card id 0..{N_CARD_IDS - 1}")
    return f"close {card_name(a)}" if int(obs[S_PHASE]) == PH_CLOSE else card_name(a)


def value_scope(position: Position) -> str:
    """In words, what the value of an action is for this position (see the module docstring)."""
    hand_no, n_hands = int(position.obs[B.S_HANDNO]), int(position.obs[B.S_NHANDS])
    if n_hands == 1:
        return "expected points of this hand (STK-8)"
    if hand_no == n_hands - 1:
        return f"expected game total after this last hand ({n_hands} hands, STK-9)"
    return (f"expected game total after {n_hands} hands (this is hand {hand_no + 1}; the later hands are "
            "dealt and played by the continuation, STK-9)")


def situation_text(situation: dict) -> str:
    """The situation as one-line JSON (for records)."""
    return json.dumps(situation, separators=(",", ":"))


__all__ = ["Position", "SituationError", "SITUATION_KEYS", "DERIVED_KEYS", "to_position", "from_obs",
           "action_label", "value_scope", "L_CLOSED", "L_PLAYED"]
