"""Shelve the Book situations (ludolab.sim.shelf_situation): the seat's view as data and back, bit for bit,
at every decision of random games; every situation the rules cannot produce is refused in one line citing
its clause (SHB-n, seeds/shelve_the_book.md); action labels are distinct."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from ludolab.sim import shelf as S
from ludolab.sim import shelf_kernels as K
from ludolab.sim import shelf_situation as SS
from ludolab.sim.rng import game_state
from ludolab.stdlib.errors import LudolabError, SituationError
from ludolab.stdlib.shelf import ShelfRules

CASES = [(2, "standard", "shared"), (3, "columns", "sequences"), (5, "pairs", "shared")]


def _playout(rules, key, rng):
    """Every state of one game of random legal actions through the kernels' step interface."""
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.new_game(rules, np.uint64(game_state(np.uint64(key), np.uint64(0))), st)
    out = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    states = [st.copy()]
    while K.current_player(st) >= 0:
        n = K.legal_actions(rules, st, out)
        K.apply_action(rules, st, out[int(rng.integers(n))])
        states.append(st.copy())
    return states


@pytest.mark.parametrize("players,variant,tiebreak", CASES)
def test_round_trip_determinize_and_labels_at_every_decision(players, variant, tiebreak):
    """SHB-14: from_obs then to_position (through JSON) gives the observation back bit for bit, for every
    seat at every moment of a game; a world determinized from it is observed the same; every legal
    action of the seat to act has its own label."""
    rules = S.step_rules(ShelfRules(players=players, variant=variant, tiebreak=tiebreak))
    rng = np.random.default_rng(players)
    obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
    obs2 = np.zeros(K.OBS_SIZE, dtype=np.int64)
    world = np.zeros(K.STATE_SIZE, dtype=np.int64)
    out = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    checked = 0
    for i, st in enumerate(_playout(rules, 40 + players, rng)):
        mover = K.current_player(st)
        for seat in range(players):
            K.observe(rules, st, seat, obs)
            sit = json.loads(json.dumps(SS.from_obs(rules, obs)))
            pos = SS.to_position(sit)
            assert np.array_equal(pos.obs, obs), (i, seat, sit)
            assert np.array_equal(pos.rules, rules)
            assert (pos.n_players, pos.seat, pos.to_move) == (players, seat, mover)
            if seat == mover or i % 7 == 0:
                K.determinize(pos.rules, pos.obs, seat, np.uint64(game_state(np.uint64(i), np.uint64(seat))), world)
                K.observe(rules, world, seat, obs2)
                assert np.array_equal(obs2, obs)
            checked += 1
        if mover >= 0:
            K.observe(rules, st, mover, obs)
            n = K.legal_actions(rules, st, out)
            labels = [SS.action_label(rules, obs, int(a)) for a in out[:n]]
            assert len(set(labels)) == n, labels
    assert checked == players * (30 * players + 1)


# ------------------------------------------------------------------ refusals
def _situation(decision="source", players=3, turn=7, seed=3):
    """A real situation of the seat to act at ``decision`` after ``turn`` turns of a random game."""
    rules = S.step_rules(ShelfRules(players=players))
    rng = np.random.default_rng(seed)
    obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
    for key in range(50):
        for st in _playout(rules, key, rng):
            if st[K.S_TURN] != turn or K.current_player(st) < 0:
                continue
            want = {"source": 0, "offer": 2, "draw": 3}[decision]
            if st[K.S_NHELD] == want:
                K.observe(rules, st, K.current_player(st), obs)
                return SS.from_obs(rules, obs)
    raise AssertionError("no such situation")  # pragma: no cover


@pytest.fixture(scope="module")
def sits():
    return {d: _situation(d) for d in ("source", "offer", "draw")}


def _other_card(sit, n=1):
    """Cards of the deck the situation does not show (unseen by the seat)."""
    from ludolab.stdlib.shelf import assumed_deck

    shown = set(json.dumps(sit).replace('"', " ").replace(",", " ").replace("[", " ").replace("]", " ").split())
    return [c for c in assumed_deck().ids if c not in shown][:n]


def _first_card(sit, s=0):
    return next(c for c in sit["tableaus"][s][0].split() if c != ".")


REFUSALS = [
    # (clause, decision, edit, words in the message)
    ("SHB-15", "source", lambda s: s.update(hand="XYZ-Q-1"), "unknown card 'XYZ-Q-1'"),
    ("SHB-1", "source", lambda s: s.update(hand=s["offer"][0]), "seen twice"),
    ("SHB-1", "source", lambda s: s["offer"].__setitem__(1, _first_card(s)), "seen twice"),
    ("SHB-3", "source", lambda s: s["offer"].extend(_other_card(s, 1)), "at most players + 1"),
    ("SHB-7", "source", lambda s: s["offer"].pop(), "refilled"),
    ("SHB-2", "source", lambda s: s.update(pile=s["pile"] + 1), "does not add up"),
    ("SHB-7", "source", lambda s: s.update(draw_two=False), "draw_two is allowed"),
    ("SHB-8", "source", lambda s: s["tableaus"].__setitem__(0, ["A B C D E F".replace("A", _first_card(s))]),
     "do not fit"),
    ("SHB-8", "source", lambda s: s["tableaus"].__setitem__(0, [_first_card(s), "."]), "is empty"),
    ("SHB-8", "source", lambda s: s["tableaus"].__setitem__(0, [f"{_first_card(s)} .", f". {_other_card(s, 1)[0]}"]),
     "not one block"),
    ("SHB-15", "source", lambda s: s["tableaus"].__setitem__(0, [f"{_first_card(s)} .", "."]), "as wide"),
    ("SHB-4", "source", lambda s: (s["tableaus"].__setitem__(0, []), s.pop("first_placed", None)), "SHB-4"),
    ("SHB-4", "source", lambda s: s.update(starts=s["starts"] % 3 + 1), "started"),
    ("SHB-2", "source", lambda s: s.update(players=6), "2..5"),
    ("SHB-11", "source", lambda s: s.update(variant="triple"), "unknown variant"),
    ("SHB-6", "source", lambda s: s.update(put_back_by=s["seat"]), "put_back_by"),
    ("SHB-14", "source", lambda s: s.update(pile_top=_other_card(s, 1)[0]), "pile_top"),
    ("SHB-14", "source", lambda s: s.update(known_hands={str(s["seat"]): _other_card(s, 1)[0]}), "your hand card"),
    ("SHB-5", "source", lambda s: s.update(taken=_other_card(s, 1)[0]), "place decision"),
    ("SHB-9", "source", lambda s: s.update(to_move=None), "game is over"),
    ("SHB-5", "offer", lambda s: s.pop("taken"), "taken"),
    ("SHB-5", "offer", lambda s: s.update(offer_place=9), "offer_place"),
    ("SHB-6", "offer", lambda s: s.update(drawn=_other_card(s, 2)), "goes with source draw"),
    ("SHB-6", "draw", lambda s: s.update(drawn=s["drawn"][:1]), "two cards drawn"),
    ("SHB-6", "draw", lambda s: s.update(source="pile"), "'offer' or 'draw'"),
    ("SHB-7", "draw", lambda s: s.update(draw_two=True), "draw_two is not allowed"),
    ("SHB-6", "draw", lambda s: s.update(offer_place=2), "offer_place"),
    ("keys", "source", lambda s: s.update(colour="red"), "unknown key 'colour'"),
    ("keys", "source", lambda s: s.pop("pile"), "needs the key 'pile'"),
]


@pytest.mark.parametrize("clause,decision,edit,words", REFUSALS,
                         ids=[f"{r[0]}-{r[1]}-{i}" for i, r in enumerate(REFUSALS)])
def test_a_situation_the_rules_cannot_produce_is_refused_in_one_line(sits, clause, decision, edit, words):
    sit = copy.deepcopy(sits[decision])
    SS.to_position(copy.deepcopy(sit))  # the real one is accepted
    edit(sit)
    with pytest.raises(LudolabError) as exc:
        SS.to_position(sit)
    msg = str(exc.value)
    assert words in msg and "\n" not in msg, msg
    if clause.startswith("SHB") and isinstance(exc.value, SituationError) and "unknown key" not in msg:
        assert "SHB-" in msg or "2..5" in msg, msg


def test_labels_name_the_cards_and_places():
    """SHB-5, SHB-6, SHB-8, SHB-15: 'take CARD', 'draw two', 'place CARD rRcC[, back CARD]'."""
    rules = S.step_rules(ShelfRules(players=3))
    sit = _situation("draw")
    pos = SS.to_position(sit)
    out = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.determinize(rules, pos.obs, pos.seat, np.uint64(1), st)
    n = K.legal_actions(rules, st, out)
    labels = [SS.action_label(rules, pos.obs, int(a)) for a in out[:n]]
    assert all(lab.startswith("place ") and ", back " in lab for lab in labels)
    assert any(sit["drawn"][0] in lab.split(",")[0] for lab in labels)
    src = SS.to_position(_situation("source"))
    assert SS.action_label(rules, src.obs, K.A_DRAW) == "draw two"
    assert SS.action_label(rules, src.obs, 0) == f"take {_situation('source')['offer'][0]}"
    with pytest.raises(SituationError):
        SS.action_label(rules, src.obs, K.A_PLACE0)
