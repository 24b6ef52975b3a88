"""Exact advice in an endgame small enough (ludolab.sim.worlds, ludolab.sim.advice): every world consistent
with the seat's observation enumerated once, against the game's ``determinize``, and the exact advice against
a brute force written here (clauses STK-n of seeds/shut_the_books.md)."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from ludolab.sim import advice
from ludolab.sim import books as S
from ludolab.sim import books_kernels as K
from ludolab.sim import books_reference as REF
from ludolab.sim import books_situation as BS
from ludolab.sim.rng import game_state, py_game_state
from ludolab.sim.search import _i64
from ludolab.stdlib import books as B
from ludolab.stdlib.books import BooksRules
from ludolab.stdlib.errors import LudolabError, SituationError

HEURISTIC = S.step_policies()["heuristic/heuristic"]


def endgame(players: int, cards_left: int, key: int, hands: int = 1):
    """The first decision of hand 0 with at most ``cards_left`` cards in every hand and two or more legal
    cards, reached by the heuristic in every seat (pure-Python twin): ``(rules, seat, obs)``."""
    rules = BooksRules(players).game_array(hands)
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    REF.new_game(rules, py_game_state(key, 0), st)
    obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
    acts = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    while REF.current_player(st) >= 0 and st[B.S_HANDNO] == 0:
        p = REF.current_player(st)
        REF.observe(rules, st, p, obs)
        if (st[B.S_PHASE] == B.PH_PLAY and max(st[B.NHAND:B.NHAND + players]) <= cards_left
                and REF.legal_actions(rules, st, acts) >= 2):
            return rules, p, obs
        REF.apply_action(rules, st, REF.act(HEURISTIC[0], np.asarray(HEURISTIC[1]), obs, st))
    raise AssertionError(f"no such endgame in game {key}")


def shown_voids(sit: dict) -> set:
    """(seat, colour) pairs of every seat that did not follow the led colour (STK-5), read from the
    situation's tricks as a player writes them."""
    P = sit["players"]
    tricks = [(t["leader"], t["cards"].split()) for t in sit["tricks"]]
    leader = sit["tricks"][-1]["winner"] if sit["tricks"] else sit["start"]
    tricks.append((leader, sit["trick"].split()))
    out = set()
    for lead, cards in tricks:
        for i, name in enumerate(cards):
            if name[0] != cards[0][0]:
                out.add(((lead + i) % P, cards[0][0]))
    return out


def brute_force_values(rules, seat, obs) -> dict:
    """Each legal card's mean points for ``seat`` over every deal of the unseen cards (itertools), each
    finished by the heuristic in every seat with the pure-Python twin."""
    sit = BS.from_obs(rules, obs)
    P = sit["players"]
    void = shown_voids(sit)
    hidden = [c for c in range(B.N_CARD_IDS) if obs[B.LOC + c] == B.L_HIDDEN]
    others = [s for s in range(P) if s != seat]
    acts = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    legal = [int(a) for a in acts[:REF.legal_actions(rules, obs, acts)]]
    totals = {a: 0.0 for a in legal}
    deals = 0

    def splits(cards, seats):
        if not seats:
            yield ()
            return
        for mine in itertools.combinations(cards, int(obs[B.NHAND + seats[0]])):
            rest = [c for c in cards if c not in mine]
            for more in splits(rest, seats[1:]):
                yield (mine,) + more

    for deal in splits(hidden, others):
        if any((s, B.card_name(c)[0]) in void for s, mine in zip(others, deal) for c in mine):
            continue
        deals += 1
        world = obs.copy()
        world[B.S_VIEWER] = -1
        for s, mine in zip(others, deal):
            for c in mine:
                world[B.LOC + c] = B.L_HAND + s
                REF.mask_add(world, B.HMASK + 4 * s, c)
        for a in legal:
            st = world.copy()
            REF.apply_action(rules, st, a)
            o = np.zeros(K.OBS_SIZE, dtype=np.int64)
            while REF.current_player(st) >= 0:
                REF.observe(rules, st, REF.current_player(st), o)
                REF.apply_action(rules, st, REF.act(HEURISTIC[0], np.asarray(HEURISTIC[1]), o, st))
            ret = np.zeros(P)
            REF.returns(rules, st, ret)
            totals[a] += ret[seat]
    return {a: v / deals for a, v in totals.items()}, deals


def chi_square_bound(df: int, z: float = 3.09) -> float:
    """The upper 0.1% point of chi-square with ``df`` degrees of freedom (Wilson-Hilferty)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def assert_worlds_are_the_determinizations(game, rules, seat, obs, key, s_rng):
    """Every determinization is an enumerated world; the worlds are distinct, consistent with the
    observation and equally frequent under determinize (chi-square at 0.1%)."""
    k = game.kernels
    found = game.extra["enumerate_worlds"](rules, obs, seat, 10_000)
    assert found.states is not None and found.count == len(found.states) >= 2
    index = {w.tobytes(): i for i, w in enumerate(found.states)}
    assert len(index) == found.count  # distinct
    seen = np.zeros(k.OBS_SIZE, dtype=np.int64)
    for w in found.states:
        game.twin.observe(rules, w, seat, seen)
        assert np.array_equal(seen, obs)
    n = 30 * found.count
    freq = np.zeros(found.count)
    world = np.zeros(k.STATE_SIZE, dtype=np.int64)
    for i in range(n):
        k.determinize(rules, obs, seat, _i64(int(game_state(np.uint64(key), np.uint64(i)))), world)
        world[s_rng] = 0
        freq[index[world.tobytes()]] += 1  # a KeyError: a determinization that is not enumerated
    chi2 = float(((freq - n / found.count) ** 2).sum() / (n / found.count))
    assert chi2 < chi_square_bound(found.count - 1), (chi2, found.count)
    return found


@pytest.mark.parametrize("players,cards_left,key", [(3, 3, 9), (4, 2, 2)])
def test_books_worlds_are_the_determinizations_each_equally_likely(players, cards_left, key):
    """The deals of the unseen cards: hand sizes and colours shown out of (STK-5)."""
    rules, seat, obs = endgame(players, cards_left, key)
    assert_worlds_are_the_determinizations(S.step_game(), rules, seat, obs, key, B.S_RNG)


def late_decision(game, rules, key: int, most: int):
    """The first decision of a game of random legal actions (kernels) with 6 to ``most`` consistent worlds
    and two or more legal actions: ``(seat, obs)``."""
    k = game.kernels
    rng = np.random.default_rng(key)
    st = np.zeros(k.STATE_SIZE, dtype=np.int64)
    k.new_game(rules, np.uint64(game_state(np.uint64(key), np.uint64(0))), st)
    out = np.zeros(k.MAX_ACTIONS, dtype=np.int64)
    obs = np.zeros(k.OBS_SIZE, dtype=np.int64)
    while k.current_player(st) >= 0:
        p = int(k.current_player(st))
        k.observe(rules, st, p, obs)
        n = k.legal_actions(rules, st, out)
        if n >= 2 and 6 <= game.extra["enumerate_worlds"](rules, obs, p, 0).count <= most:
            return p, obs
        k.apply_action(rules, st, out[int(rng.integers(n))])
    raise AssertionError(f"no such decision in game {key}")


def test_shelf_worlds_are_the_determinizations_each_equally_likely():
    """Shelve the Book's last turns at 5 players (SHB-3: 90 cards, 86 placed or held at the end): the
    unseen cards in the pile's order and the other hands (SHB-14), u! worlds."""
    from ludolab.sim import shelf as SH
    from ludolab.stdlib.shelf import ShelfRules

    game = SH.step_game()
    rules = SH.step_rules(ShelfRules(players=5))
    seat, obs = late_decision(game, rules, 3, 720)
    found = assert_worlds_are_the_determinizations(game, rules, seat, obs, 3, game.kernels.S_RNG)
    adv = advice.advise(game, rules, 5, seat, obs, measure="shelf_points", key=1)
    assert adv.consistent_worlds == found.count
    bad = obs.copy()
    bad[game.kernels.S_PILE] += 1  # one more card in the pile than the unseen cards fill (SHB-14)
    with pytest.raises(SituationError, match="inconsistent"):
        advice.advise(game, rules, 5, seat, bad, measure="shelf_points")


def test_beverbende_worlds_are_the_determinizations_each_equally_likely():
    """Beverbende with a deck of two kinds only (BVB-1's composition option): cards of a kind are alike,
    so the worlds are the distinct orders of the unseen multiset (rows, drawn card, pile)."""
    from ludolab.sim import beverbende as BV
    from ludolab.stdlib.beverbende import BeverbendeRules

    game = BV.step_game()
    rules = BeverbendeRules(players=2, composition=(6, 6) + (0,) * 11).rules_array()
    seat, obs = late_decision(game, rules, 0, 130)
    found = assert_worlds_are_the_determinizations(game, rules, seat, obs, 0, game.kernels.S_RNG)
    adv = advice.advise(game, rules, 2, seat, obs, measure="bev_score", key=1)
    assert adv.consistent_worlds == found.count


def test_books_worlds_above_the_limit_are_counted_not_built():
    rules, seat, obs = endgame(4, 2, 2)
    enum = S.step_game().extra["enumerate_worlds"]
    every = enum(rules, obs, seat, 10_000)
    few = enum(rules, obs, seat, every.count - 1)
    assert few.states is None and few.count == every.count
    # the first decision of a hand: far too many to build, counted all the same (STK-2)
    rules, seat, obs = endgame(4, 15, 1)
    assert enum(rules, obs, seat, 4096).states is None and enum(rules, obs, seat, 4096).count > 10 ** 12


def test_books_worlds_of_an_impossible_observation_are_none_and_advice_refuses_it():
    rules, seat, obs = endgame(3, 3, 9)
    bad = obs.copy()
    bad[B.NHAND + (seat + 1) % 3] += 1  # a hand one card larger than the unseen cards allow
    assert S.step_game().extra["enumerate_worlds"](rules, bad, seat, 100).count == 0
    with pytest.raises(SituationError, match="inconsistent: the hidden cards do not fill the other hands"):
        advice.advise(S.step_game(), rules, 3, seat, bad, measure="books_points")
    with pytest.raises(LudolabError, match="exact worlds"):
        advice.advise(S.step_game(), rules, 3, seat, obs, measure="books_points", exact_worlds=-1)


@pytest.mark.parametrize("players,cards_left,key", [(3, 3, 9), (4, 2, 4), (4, 3, 7)])
def test_exact_advice_equals_the_brute_force_and_sampling_agrees_within_its_ci(players, cards_left, key):
    """Exact advice is the mean over every deal, computed here by itertools and the twin; advice over
    sampled worlds at a large budget holds the exact value within its CI."""
    rules, seat, obs = endgame(players, cards_left, key)
    want, deals = brute_force_values(rules, seat, obs)
    game = S.step_game()
    adv = advice.advise(game, rules, players, seat, obs, measure="books_points", key=4)
    assert adv.exact and adv.consistent_worlds == deals == adv.worlds and adv.passes == 1
    assert np.array_equal(adv.ci_low, adv.mean) and np.array_equal(adv.ci_high, adv.mean)
    for a, m in zip(adv.actions, adv.mean):
        assert m == pytest.approx(want[int(a)], abs=1e-12)
    assert adv.diff == pytest.approx(adv.mean[0] - adv.mean[1], abs=1e-12)
    assert adv.verdict == ("better" if adv.diff > 0 else "equally good")
    assert f"at all {deals} consistent worlds: gap" in adv.verdict_line() and "(exact)" in adv.verdict_line()
    sampled = advice.advise(game, rules, players, seat, obs, measure="books_points", budget=1500, key=9,
                            exact_worlds=0)
    assert sampled.consistent_worlds is None and not sampled.exact and sampled.worlds == 1500
    widen = 3.29 / 1.96  # every action at once: 99.9%
    for a, m, lo, hi in zip(sampled.actions, sampled.mean, sampled.ci_low, sampled.ci_high):
        assert abs(m - want[int(a)]) <= (hi - lo) / 2 * widen + 1e-9, (a, m, lo, hi, want[int(a)])
    # --max-worlds below the count samples too
    capped = advice.advise(game, rules, players, seat, obs, measure="books_points", budget=20,
                           max_worlds=deals - 1 if deals > 2 else 2, key=1)
    assert capped.consistent_worlds is None or deals <= 2


def test_a_random_continuation_replays_the_world_set_with_cis_over_its_randomness():
    """In a game of two hands (STK-9) the next hand is dealt at random after this one: every deal of this
    hand is played, several times, and the CIs are over the later hand's deals."""
    rules, seat, obs = endgame(3, 3, 9, hands=2)
    adv = advice.advise(S.step_game(), rules, 3, seat, obs, measure="books_points", budget=40, key=2)
    assert not adv.exact and adv.consistent_worlds is not None and adv.passes >= advice.MIN_PASSES
    assert adv.worlds == adv.consistent_worlds * adv.passes
    assert np.all(adv.ci_low <= adv.mean) and np.any(adv.ci_high > adv.ci_low)
    assert "played" in adv.worlds_line() and "random" in adv.worlds_line()


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_the_advise_command_says_the_advice_is_exact(tmp_path, fmt):
    from ludolab.analysis.cli import cli

    rules, seat, obs = endgame(3, 3, 9)
    f = tmp_path / "endgame.json"
    f.write_text(json.dumps(BS.from_obs(rules, obs)))
    res = CliRunner().invoke(cli, ["books", "advise", "--play", "--situation", str(f), "--format", fmt])
    assert res.exit_code == 0, res.output
    n = S.step_game().extra["enumerate_worlds"](rules, obs, seat, 100).count
    if fmt == "json":
        d = json.loads(res.output)
        assert d["exact"] is True and d["consistent_worlds"] == n == d["worlds"]
        assert all(r["ci_low"] == r["value"] == r["ci_high"] for r in d["rows"])
    elif fmt == "csv":
        lines = res.output.strip().splitlines()
        assert lines[0] == "rank,action,code,value,ci_low,ci_high,worlds,exact,continuation"
        assert all(ln.endswith(f",{n},True,heuristic/heuristic") for ln in lines[1:])
    else:
        assert f"all {n} consistent worlds (exact)" in res.output and "gap" in res.output


def test_max_worlds_below_the_count_samples_at_most_that_many_and_says_so(tmp_path):
    """--max-worlds is a cap on the worlds played: below the consistent worlds' count the advice samples
    at most that many (never the larger default) and a note names the count that would make it exact."""
    rules, seat, obs = endgame(4, 2, 2)
    game = S.step_game()
    full = advice.advise(game, rules, 4, seat, obs, measure="books_points", key=4)
    assert full.exact and full.exact_needs is None
    n = full.consistent_worlds
    capped = advice.advise(game, rules, 4, seat, obs, measure="books_points", max_worlds=max(2, n - 1), key=4)
    assert not capped.exact and capped.worlds <= max(2, n - 1) and capped.exact_needs == n
