"""The search player against exact answers (issue: strong play, item 7): in endgames small enough to list
every world consistent with the seat's observation, the exact best action against fixed heuristic play in
every seat after it (ludolab.sim.advice with ludolab.sim.worlds: every world once, no sampling) is what the
determinized search (``kernels.search``, the ladder's ``search`` player) picks at a large budget."""

from __future__ import annotations

import numpy as np
import pytest

from test_advice_exact import endgame, late_decision
from ludolab.sim import advice
from ludolab.sim import books as S
from ludolab.sim import search


def _search_pick(game, rules, n_players, seat, obs, budget, key):
    """The action the search player picks: PIMC with the game's best heuristic in every seat's playouts."""
    k = game.kernels
    pol = game.policies[game.extra["best"]] if game.extra["best"] in game.policies else None
    truth = np.zeros(k.STATE_SIZE, dtype=np.int64)
    k.determinize(rules, obs, seat, search._i64(key), truth)
    acts = np.zeros(k.MAX_ACTIONS, dtype=np.int64)
    n = int(k.legal_actions(rules, truth, acts))
    cfg, params = search.config(k, seat, max(1, budget // n), n_players, bool(game.lower_wins), key,
                                [pol] * n_players, int(game.max_steps(rules)))
    work = search.work_arrays(k, n_players)
    m = int(k.search(rules, (cfg, params, obs, truth), work))
    return int(work[0][search.best_index(work[1], m)])


def _exact_then_search(game, rules, n_players, seat, obs, measure, budget):
    exact = advice.advise(game, rules, n_players, seat, obs, measure=measure, key=2)
    assert exact.exact, "the endgame is small enough to list every world, and the heuristic draws no numbers"
    if exact.verdict != "better" or exact.diff < 0.25:
        return None  # no clear best action to find
    return int(exact.actions[0]), _search_pick(game, rules, n_players, seat, obs, budget, key=7)


def test_books_search_finds_the_exact_best_card_in_the_last_tricks():
    """Endgames of 3 and 4 players (the last two or three tricks, STK-5 follow suit): wherever the exact best
    card is clearly better than the second, the search at 4,000 playouts plays it."""
    game = S.step_game()
    checked = []
    for players, cards_left in ((4, 2), (3, 3), (4, 3)):
        for key in range(1, 30):
            try:
                rules, seat, obs = endgame(players, cards_left, key)
            except AssertionError:  # this deal reaches no such decision
                continue
            found = _exact_then_search(game, rules, players, seat, obs, "books_points", budget=4000)
            if found is not None:
                assert found[0] == found[1], (players, cards_left, key, found)
                checked.append(key)
                break
    assert len(checked) >= 2, checked


def test_shelf_search_finds_the_exact_best_action_in_the_last_turns():
    from ludolab.sim import shelf as SH
    from ludolab.stdlib.shelf import ShelfRules

    game = SH.step_game()
    rules = SH.step_rules(ShelfRules(players=5))
    checked = 0
    for key in range(1, 12):
        seat, obs = late_decision(game, rules, key, 720)
        found = _exact_then_search(game, rules, 5, seat, obs, "shelf_points", budget=6000)
        if found is not None:
            assert found[0] == found[1], (key, found)
            checked += 1
        if checked == 2:
            break
    assert checked >= 1, "no late decision with a clearly best action among the games tried"
