"""Several players (ludolab.sim.box.match_exact / simulate_rounds): STB-9 .. STB-12."""

from __future__ import annotations

import numpy as np
import pytest

from ludolab.sim import box as B
from ludolab.sim import box_reference as R
from ludolab.sim.experiment import plan_run
from ludolab.sim.rng import py_game_state
from ludolab.sim.stats import wilson_ci
from ludolab.stdlib.box import BoxRules

Z99 = 2.5758293035489004


def _score_dist(rules, domain, pol):
    """P(score = domain[i]) under a policy, from the exact evaluation."""
    idx = np.searchsorted(domain, rules.scores)
    return np.bincount(idx, weights=B.evaluate(pol).final, minlength=len(domain))


@pytest.fixture(scope="module")
def default_rules():
    return BoxRules()


@pytest.fixture(scope="module")
def match2(default_rules):
    return B.match_exact(default_rules, 2)


@pytest.fixture(scope="module")
def match3():
    return B.match_exact(BoxRules(tiles="1-8", one_die="le6-optional"), 3)


def _check_probabilities(m):
    seats = m.seats
    assert list(seats["seat"]) == list(range(1, m.players + 1))
    for col in ("p_win", "p_tie", "p_play"):
        assert ((seats[col] >= -1e-15) & (seats[col] <= 1 + 1e-12)).all(), col
    assert seats.loc[0, "p_play"] == pytest.approx(1.0, abs=1e-15)
    assert (np.diff(seats["p_play"]) <= 1e-15).all()  # STB-9: a shut box stops later seats
    total_win = seats["p_win"].sum()
    assert total_win <= 1 + 1e-12
    assert m.p_tie_game == pytest.approx(1.0 - total_win, abs=1e-12)
    assert m.p_tie_game >= -1e-12
    # every tied game is shared by 2 .. players seats
    tie_mass = seats["p_tie"].sum()
    assert 2 * m.p_tie_game - 1e-12 <= tie_mass <= m.players * m.p_tie_game + 1e-12
    assert (seats["expected_score"] > 0).all()


def test_stb9_match_two_players_probabilities(match2):
    """STB-9: two players: probabilities in [0, 1], seat 1 always plays, wins + tied game sum to 1."""
    _check_probabilities(match2)
    s = match2.seats
    assert s.loc[0, "p_tie"] == pytest.approx(s.loc[1, "p_tie"], abs=1e-15)
    assert s.loc[0, "p_tie"] == pytest.approx(match2.p_tie_game, abs=1e-12)
    assert s["p_win"].sum() + match2.p_tie_game == pytest.approx(1.0, abs=1e-12)
    # seat 2 plays unless seat 1 shut the box
    nb = len(match2.domain)
    p1_shut = B.evaluate(match2.policies[(0, nb)]).p_shut
    assert s.loc[1, "p_play"] == pytest.approx(1.0 - p1_shut, abs=1e-12)


def test_stb9_match_three_players_probabilities(match3):
    """STB-9: three players: the same consistency, including ties shared by 2 or 3 seats."""
    _check_probabilities(match3)


@pytest.mark.parametrize("ties_win", [False, True])
def test_stb10_last_seat_plays_beat_target_policy(default_rules, ties_win):
    """STB-10: with two players the last seat facing best score b plays solve(rules, 'beat', target=b):
    same move and dice tables, and its P(beat b) equals the solver's start value."""
    m = B.match_exact(default_rules, 2, ties_win=ties_win)
    for b in range(1, len(m.domain)):
        target = int(m.domain[b])
        pol = m.policies[(1, b)]
        sol = B.solve(default_rules, "beat", target=target, ties_win=ties_win)
        assert np.array_equal(pol.move, sol.move), target
        assert np.array_equal(pol.dice[1:], sol.dice[1:]), target
        ev = B.evaluate(pol)
        assert ev.p_below(target, ties_win=ties_win) == pytest.approx(sol.start_value, abs=1e-13)


def test_stb9_stb10_two_player_seats_recomputed_from_policies(default_rules, match2):
    """STB-9/STB-10: the seat table equals an independent computation from the stored policies:
    seat 1 wins on a shut or a strictly lower score, seat 2 on a strictly lower score, equal is a tie."""
    m = match2
    dom = m.domain
    nb = len(dom)
    p1 = _score_dist(default_rules, dom, m.policies[(0, nb)])
    win1, win2, tie = p1[0], 0.0, 0.0
    e2 = 0.0
    for b in range(1, nb):
        p2 = _score_dist(default_rules, dom, m.policies[(1, b)])
        win1 += p1[b] * p2[b + 1:].sum()
        tie += p1[b] * p2[b]
        win2 += p1[b] * p2[:b].sum()
        e2 += p1[b] * float(p2 @ dom)
    s = m.seats
    assert s.loc[0, "p_win"] == pytest.approx(win1, abs=1e-12)
    assert s.loc[1, "p_win"] == pytest.approx(win2, abs=1e-12)
    assert s.loc[0, "p_tie"] == pytest.approx(tie, abs=1e-12)
    assert s.loc[0, "expected_score"] == pytest.approx(float(p1 @ dom), abs=1e-9)
    assert s.loc[1, "expected_score"] == pytest.approx(e2 / (1 - p1[0]), abs=1e-9)


def test_stb9_three_player_seats_recomputed_from_policies(match3):
    """STB-9: three seats, enumerated over every score sequence with the stored policies."""
    m = match3
    rules, dom = m.rules, m.domain
    nb = len(dom)
    d1 = _score_dist(rules, dom, m.policies[(0, nb)])
    d2 = {b: _score_dist(rules, dom, m.policies[(1, b)]) for b in range(1, nb)}
    d3 = {b: _score_dist(rules, dom, m.policies[(2, b)]) for b in range(1, nb)}
    win = np.zeros(3)
    tie = np.zeros(3)
    play = np.zeros(3)
    play[0] = 1.0
    win[0] += d1[0]
    for i1 in range(1, nb):
        p = d1[i1]
        play[1] += p
        win[1] += p * d2[i1][0]
        for i2 in range(1, nb):
            q = p * d2[i1][i2]
            if q == 0.0:
                continue
            play[2] += q
            d = d3[min(i1, i2)]
            win[2] += q * d[0]
            for i3 in range(1, nb):
                r = q * d[i3]
                if r == 0.0:
                    continue
                sc = (i1, i2, i3)
                lo = min(sc)
                who = [k for k in range(3) if sc[k] == lo]
                if len(who) == 1:
                    win[who[0]] += r
                else:
                    tie[who] += r
    s = m.seats
    assert np.allclose(s["p_win"], win, atol=1e-12)
    assert np.allclose(s["p_tie"], tie, atol=1e-12)
    assert np.allclose(s["p_play"], play, atol=1e-12)


def test_stb9_match_exact_seat1_win_against_simulation(default_rules, match2):
    """STB-9/STB-10: the exact seat-1 P(win) lies in the 99% Wilson interval of 20 000 simulated games
    (pure-Python turns on the shared streams; a shut box ends the game)."""
    m = match2
    dom = [int(x) for x in m.domain]
    nb = len(dom)
    plan = plan_run(20_000, 424242, 8)
    wins = ties = wins2 = 0
    for key, n in zip(plan.keys, plan.games):
        for g in range(int(n)):
            st = py_game_state(int(key), g)
            s1, st = R.play_turn(default_rules, m.policies[(0, nb)], st)
            x1 = default_rules.score_of(s1)
            if x1 == 0:
                wins += 1
                continue
            s2, st = R.play_turn(default_rules, m.policies[(1, dom.index(x1))], st)
            x2 = default_rules.score_of(s2)
            if x1 < x2:
                wins += 1
            elif x1 == x2:
                ties += 1
            else:
                wins2 += 1
    n = plan.n_games
    assert wilson_ci(wins, n, z=Z99).contains(float(m.seats.loc[0, "p_win"]))
    assert wilson_ci(wins2, n, z=Z99).contains(float(m.seats.loc[1, "p_win"]))
    assert wilson_ci(ties, n, z=Z99).contains(float(m.p_tie_game))


def test_stb9_policies_are_legal_and_keyed(match2, default_rules):
    """STB-9: the stored per-seat policies play legal moves; keys are (seat, best-score index)."""
    nb = len(match2.domain)
    assert match2.domain[0] == 0
    assert set(match2.policies) == {(0, nb)} | {(1, b) for b in range(1, nb)}
    pol = match2.policies[(1, 5)]
    oc = default_rules.outcomes
    for s in range(1, default_rules.n_states, 5):
        assert default_rules.dice_allowed[s] & pol.dice[s]
        for o in range(oc.n):
            legal = default_rules.legal_moves(s, o)
            assert (int(pol.move[s, o]) in legal) if legal else pol.move[s, o] == -1


@pytest.mark.parametrize("players", [1, 7, 0, 2.5, True])
def test_match_exact_player_count_errors(default_rules, players):
    """STB-9: 2..6 players."""
    with pytest.raises(ValueError):
        B.match_exact(default_rules, players)


def test_stb9_ties_win_raises_tie_aware_values():
    """STB-10 ties-win: a seat that counts a shared lowest score as a win plays for it; the reported
    probabilities keep the same consistency."""
    rules = BoxRules(tiles="1-6", one_die="le6-optional")
    plain = B.match_exact(rules, 2)
    tw = B.match_exact(rules, 2, ties_win=True)
    _check_probabilities(tw)
    s0, s1 = plain.seats, tw.seats
    # seat 2 maximises P(win) + P(tie) under ties-win: that sum cannot drop
    assert s1.loc[1, "p_win"] + s1.loc[1, "p_tie"] >= s0.loc[1, "p_win"] + s0.loc[1, "p_tie"] - 1e-12


# ------------------------------------------------------------ several rounds
def _rounds_twin(policies, games, seed, chunks, rounds, threshold):
    """Pure-Python reading of STB-11 / STB-12 on the kernels' streams: (wins, ties, totals, rounds)."""
    rules = policies[0].rules
    n = len(policies)
    plan = plan_run(games, seed, chunks)
    wins = np.zeros(n, dtype=np.int64)
    ties = np.zeros(n, dtype=np.int64)
    totals = np.zeros(n, dtype=np.int64)
    n_rounds = 0
    for key, gm in zip(plan.keys, plan.games):
        for g in range(int(gm)):
            st = py_game_state(int(key), g)
            total = [0] * n
            alive = list(range(n))
            r = 0
            while True:
                r += 1
                for p in alive:
                    s, st = R.play_turn(rules, policies[p], st)
                    total[p] += rules.score_of(s)
                if rounds is not None:
                    if r == rounds:
                        contenders = alive
                        break
                    continue
                out = [p for p in alive if total[p] >= threshold]
                left = [p for p in alive if total[p] < threshold]
                if len(left) >= 2:
                    alive = left
                    continue
                contenders = left if len(left) == 1 else out  # STB-12: all out together -> lowest total
                break
            lo = min(total[p] for p in contenders)
            best = [p for p in contenders if total[p] == lo]
            if len(best) == 1:
                wins[best[0]] += 1
            else:
                ties[best] += 1
            totals += total
            n_rounds += r
    return wins, ties, totals, n_rounds


@pytest.mark.parametrize("seats, rounds, threshold", [(2, 3, 45), (3, 3, 45), (2, None, 45), (3, None, 45),
                                                     (4, None, 20)])
def test_stb11_stb12_simulate_rounds_matches_twin(seats, rounds, threshold):
    """STB-11 (rounds add up, lowest total wins, a shut does not end the game) and STB-12 (elimination at
    the threshold, the last player left wins): the kernel's counts equal a pure-Python twin's."""
    rules = BoxRules()
    names = ["optimal", "greedy-high", "random", "most-options"][:seats]
    pols = [B.make_policy(rules, nm) for nm in names]
    games, seed, chunks = 600, 31, 5
    df = B.simulate_rounds(pols, games, seed=seed, rounds=rounds, threshold=threshold, chunks=chunks)
    wins, ties, totals, n_rounds = _rounds_twin(pols, games, seed, chunks, rounds, threshold)
    assert list(df["policy"]) == names
    assert np.array_equal(np.rint(df["p_win"].to_numpy() * games).astype(int), wins)
    assert np.array_equal(np.rint(df["p_tie"].to_numpy() * games).astype(int), ties)
    assert np.allclose(df["mean_total"], totals / games)
    assert np.allclose(df["mean_rounds"], n_rounds / games)


def _check_round_probabilities(df, players):
    w = df["p_win"].sum()
    t = df["p_tie"].sum()
    assert w <= 1 + 1e-12
    # each game has one sole winner or a tie shared by 2..players seats
    assert 2 * (1 - w) - 1e-9 <= t <= players * (1 - w) + 1e-9
    for col in ("p_win", "p_tie"):
        assert ((df[f"{col}_ci_low"] <= df[col]) & (df[col] <= df[f"{col}_ci_high"])).all()


def test_stb11_three_rounds():
    """STB-11: rounds=3: every game lasts three rounds; totals add up to about 3 single-turn means."""
    rules = BoxRules()
    pols = [B.make_policy(rules, "optimal"), B.make_policy(rules, "random")]
    df = B.simulate_rounds(pols, 20_000, seed=4, rounds=3)
    _check_round_probabilities(df, 2)
    assert (df["mean_rounds"] == 3.0).all()
    for pol, total in zip(pols, df["mean_total"]):
        assert total == pytest.approx(3 * B.evaluate(pol).mean(), rel=0.03)
    assert df.loc[0, "p_win"] > df.loc[1, "p_win"]  # the optimal policy beats random play
    assert df.attrs["mode"] == "3 rounds"
    again = B.simulate_rounds(pols, 20_000, seed=4, rounds=3)
    assert df.equals(again)
    other = B.simulate_rounds(pols, 20_000, seed=5, rounds=3)
    assert not df.equals(other)


def test_stb12_elimination_at_45():
    """STB-12: elimination at 45: sensible probabilities; all but one seat reach the threshold."""
    rules = BoxRules()
    pols = [B.make_policy(rules, n) for n in ("optimal", "greedy-high", "random")]
    df = B.simulate_rounds(pols, 20_000, seed=8, rounds=None, threshold=45)
    _check_round_probabilities(df, 3)
    assert df["mean_total"].sum() >= 2 * 45
    assert (df["mean_rounds"] >= 1).all()
    assert df.attrs["mode"] == "elimination at 45"
    assert df.equals(B.simulate_rounds(pols, 20_000, seed=8, rounds=None, threshold=45))


@pytest.mark.parametrize("kwargs", [
    {"rounds": 0}, {"rounds": -1}, {"rounds": 2.5}, {"rounds": True},
    {"rounds": None, "threshold": 0}, {"rounds": None, "threshold": -45},
    {"rounds": None, "threshold": None}, {"rounds": None, "threshold": 4.5},
    {"rounds": None, "threshold": True},
])
def test_stb11_stb12_simulate_rounds_argument_errors(kwargs):
    """STB-11/STB-12: rounds must be >= 1; the elimination threshold a whole number >= 1."""
    pol = B.make_policy(BoxRules(tiles="1-4"), "random")
    with pytest.raises(ValueError):
        B.simulate_rounds([pol, pol], 10, **kwargs)


def test_simulate_rounds_seat_errors():
    """STB-9: 2..6 seats, all for the same rules."""
    pol = B.make_policy(BoxRules(tiles="1-4"), "random")
    with pytest.raises(ValueError):
        B.simulate_rounds([pol], 10, rounds=2)
    with pytest.raises(ValueError):
        B.simulate_rounds([pol] * 7, 10, rounds=2)
    other = B.make_policy(BoxRules(tiles="1-5"), "random")
    with pytest.raises(ValueError):
        B.simulate_rounds([pol, other], 10, rounds=2)


def test_stb12_elimination_cut_at_max_rounds_is_reported():
    """STB-12: an elimination game still running after max_rounds is decided by the
    lowest total, and the number of such games is reported, never hidden."""
    rules = BoxRules()
    pol = B.make_policy(rules, "optimal")
    df = B.simulate_rounds([pol, pol], 200, seed=1, rounds=None, threshold=10**9, max_rounds=5)
    assert df.attrs["games_cut"] == 200
    assert (df["mean_rounds"] == 5).all()
    ok = B.simulate_rounds([pol, pol], 200, seed=1, rounds=None, threshold=45)
    assert ok.attrs["games_cut"] == 0
    with pytest.raises(ValueError, match="sum or count"):
        B.simulate_rounds([B.make_policy(rules.replace(score="digital"), "optimal")] * 2, 10, rounds=None)
