"""Match play solved (ludolab.sim.box_matchplay): STB-11, STB-12 and STB-O5.

Exact figures are checked against independent computations (convolutions of the
per-turn score distribution, the beat-target solver, a hand formula for
elimination at 1); Monte Carlo figures against the exact ones inside their CI.
"""

from __future__ import annotations

import numpy as np
import pytest

from ludolab.sim import box as B
from ludolab.sim import box_matchplay as MP
from ludolab.stdlib.box import BoxRules, RulesError

Z99 = 2.5758293035489004


@pytest.fixture(scope="module")
def small():
    return BoxRules(tiles=6)


def _dist(rules, pol):
    """P(score = s) for s = 0..max score under a policy (exact)."""
    final = B.evaluate(pol).final
    return np.bincount(rules.scores, weights=final)


def _total_dist(p, rounds):
    out = np.array([1.0])
    for _ in range(rounds):
        out = np.convolve(out, p)
    return out


def _p_less(a, b):
    """P(A < B) and P(A == B) for independent (sub-)distributions on 0..len-1."""
    n = max(len(a), len(b))
    a = np.pad(a, (0, n - len(a)))
    b = np.pad(b, (0, n - len(b)))
    above = b.sum() - np.cumsum(b)  # P(B > i)
    return float(a @ above), float(a @ b)


@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_stb11_lowest_play_is_a_convolution(rounds):
    """STB-11: both seats play for the lowest score: P(win) = P(total_1 < total_2), totals
    the R-fold convolution of one turn's exact score distribution."""
    rules = BoxRules()
    df = MP.match_play_exact(rules, 2, rounds, play="lowest")
    t = _total_dist(_dist(rules, B.solve(rules).policy()), rounds)
    win, tie = _p_less(t, t)
    assert df["p_win"].tolist() == pytest.approx([win, win], abs=1e-12)
    assert df["p_tie"].tolist() == pytest.approx([tie, tie], abs=1e-12)


def test_stb11_three_players_lowest_play_brute_force():
    """STB-11 with 3 players: sole lowest of three independent totals, against a direct sum."""
    rules = BoxRules(tiles=4)
    df = MP.match_play_exact(rules, 3, 2, play="lowest")
    t = _total_dist(_dist(rules, B.solve(rules).policy()), 2)
    idx = np.nonzero(t)[0]
    win = tie = 0.0
    for a in idx:
        for b in idx:
            for c in idx:
                p = t[a] * t[b] * t[c]
                if a < b and a < c:
                    win += p
                elif a == min(a, b, c):
                    tie += p
    assert df["p_win"].tolist() == pytest.approx([win] * 3, abs=1e-12)
    assert df["p_tie"].tolist() == pytest.approx([tie] * 3, abs=1e-12)


@pytest.mark.parametrize("ties_win", [False, True])
def test_stbo5_last_turn_is_the_beat_target_policy(ties_win):
    """STB-O5 in the last turn of a 2-player, 1-round match: seat 2 plays to beat seat 1's
    score (STB-O3, STB-10), so its chance to win is the beat-target solver's value."""
    rules = BoxRules()
    mp = MP.match_play(rules, 2, 1, ties_win=ties_win)
    for t in (0, 3, 10, 20):
        node = mp.start(1, [t, 0], 1)
        v = mp.value(node)
        if t == 0 and not ties_win:
            assert v[1] == 0.0
            continue
        beat = B.solve(rules, "beat", target=t, ties_win=ties_win).start_value
        assert v[1] + (v[3] if ties_win else 0.0) == pytest.approx(beat, abs=1e-12)
    # seat 1's win chance: seat 1 plays for the match against seat 2's response
    df = mp.seats()
    p1 = _dist(rules, mp.turn_policy(mp.root()))
    p2_win = sum(p1[t] * B.solve(rules, "beat", target=t).start_value for t in range(1, len(p1)) if p1[t] > 0)
    if not ties_win:
        assert df["p_win"][1] == pytest.approx(p2_win, abs=1e-12)


@pytest.mark.parametrize("rounds,threshold", [(1, None), (3, None), (None, 12)])
def test_stbo5_adapting_never_loses(small, rounds, threshold):
    """STB-O5: a seat that plays for the match does at least as well as playing for the lowest
    score, against either kind of opponent; chances add up to 1."""
    lowest = MP.match_play_exact(small, 2, rounds, threshold, play="lowest")
    for s in range(2):
        play = tuple("adaptive" if i == s else "lowest" for i in range(2))
        alone = MP.match_play_exact(small, 2, rounds, threshold, play=play)
        assert alone["p_win"][s] >= lowest["p_win"][s] - 1e-12
    every = MP.match_play_exact(small, 2, rounds, threshold)
    for df in (lowest, every):
        assert df["p_win"].sum() + df["p_tie"][0] == pytest.approx(1.0, abs=1e-12)
        assert df["p_tie"][0] == pytest.approx(df["p_tie"][1], abs=1e-15)


def test_stb12_elimination_at_one_by_hand(small):
    """STB-12 at threshold 1: only a shut box survives a round; if both shut the round
    repeats, if both miss the lower total wins: P(seat 1 wins) = (p(1-p) + P(0 < X1 < X2)) / (1 - p^2)."""
    df = MP.match_play_exact(small, 2, None, 1, play="lowest")
    d = _dist(small, B.solve(small).policy())
    p = d[0]
    pos = d.copy()
    pos[0] = 0.0
    less, eq = _p_less(pos, pos)
    win = (p * (1 - p) + less) / (1 - p * p)
    tie = eq / (1 - p * p)
    assert df["p_win"].tolist() == pytest.approx([win, win], abs=1e-12)
    assert df["p_tie"][0] == pytest.approx(tie, abs=1e-12)


def test_stb11_stb12_lowest_play_matches_the_simulator(small):
    """STB-11, STB-12: exact chances with both seats on the lowest-score play agree with the
    Monte Carlo of the existing match simulator within its 99% interval."""
    pol = B.solve(small).policy()
    for rounds, thr in ((2, None), (None, 15)):
        exact = MP.match_play_exact(small, 2, rounds, thr, play="lowest")
        sim = B.simulate_rounds([pol, pol], 20_000, 5, rounds=rounds, threshold=thr)
        for s in range(2):
            p = exact["p_win"][s]
            half = Z99 * np.sqrt(p * (1 - p) / 20_000)
            assert abs(sim["p_win"][s] - p) <= half


def test_stbo5_adaptive_play_simulated_roll_by_roll():
    """STB-O5: matches played roll by roll with the solved tables agree with the exact chances (99%)."""
    rules = BoxRules(tiles=5)
    for rounds, thr in ((2, None), (None, 8)):
        mp = MP.match_play(rules, 2, rounds, thr)
        exact = mp.seats()
        sim = MP.simulate_match_play(mp, 3000, seed=3, chunks=4)
        for s in range(2):
            p = exact["p_win"][s]
            assert abs(sim["p_win"][s] - p) <= Z99 * np.sqrt(p * (1 - p) / 3000)
        again = MP.simulate_match_play(mp, 3000, seed=3, chunks=4)
        assert again["p_win"].tolist() == sim["p_win"].tolist()


def test_stb11_decided_lead():
    """STB-11: a lead no turn can make up is a sure win; one the last turn can only tie is not a win."""
    rules = BoxRules()
    mp = MP.match_play(rules, 2, 2)
    far = mp.start(0, [0, 45 * 2 + 1], 2)  # seat 1 to move, 91 ahead with 2 rounds each to play
    assert isinstance(far, np.ndarray) and far[0] == 1.0
    tie_only = mp.value(mp.start(1, [45, 0], 1))  # seat 2 plays last, 45 ahead: worst case a tie
    assert tie_only[1] == pytest.approx(1.0 - B.evaluate(B.solve(rules, "beat", target=45,
                                                                  ties_win=True).policy()).final[rules.full])


def test_three_players_adaptive_small():
    """STB-O5 with 3 players: chances add up to 1 with ties, and a lone adapter gains."""
    rules = BoxRules(tiles=5)
    lowest = MP.match_play_exact(rules, 3, 2, play="lowest")
    every = MP.match_play_exact(rules, 3, 2)
    for df in (lowest, every):
        assert df["p_win"].sum() <= 1.0
        assert (df["p_tie"] >= 0).all()
    alone = MP.match_play_exact(rules, 3, 2, play=("lowest", "lowest", "adaptive"))
    assert alone["p_win"][2] >= lowest["p_win"][2] - 1e-12


def test_adaptive_gain_table(small):
    """The report's table: one row per match and seat, gain = alone - lowest, never negative."""
    df = MP.adaptive_gain_table(small, rounds=(1, 2), thresholds=(10,))
    assert list(df.columns) == ["match", "seat", "p_win_lowest", "p_win_alone", "gain", "p_win_all", "p_tie_all"]
    assert df["match"].tolist() == ["1 round", "1 round", "2 rounds", "2 rounds", "elimination at 10",
                                    "elimination at 10"]
    assert (df["gain"] >= -1e-12).all()
    assert np.allclose(df["gain"], df["p_win_alone"] - df["p_win_lowest"])


def test_stbo5_advise_last_turn_is_beat_target():
    """STB-O5 advice: seat 2 in the last round, 7 behind... ranks moves as the beat-target advice
    (target = the gap), with the same values."""
    rules = BoxRules()
    df = MP.advise_match(rules, [1, 2, 3, 4, 5, 6], 7, my_total=10, their_totals=[17], seat=2, rounds_left=1)
    ref = B.advise(rules, [1, 2, 3, 4, 5, 6], 7, "beat", target=7)
    assert df["cover"].tolist() == ref["cover"].tolist()
    assert df["p_win_match"].tolist() == pytest.approx(ref["value"].tolist(), abs=1e-12)
    dice = MP.advise_match(rules, [1, 2], None, my_total=10, their_totals=[17], seat=2, rounds_left=1)
    ref = B.advise(rules, [1, 2], None, "beat", target=7)
    assert dice["dice"].tolist() == ref["dice"].tolist()
    assert dice["p_win_match"].tolist() == pytest.approx(ref["value"].tolist(), abs=1e-12)


def test_stbo5_advise_changes_with_the_situation():
    """STB-O5: the same roll calls for different moves depending on the totals (9 tiles, seat 1,
    2 rounds left, open 1-8, roll 10: level, cover 2,8 as for the lowest score; 24 ahead, 3,7)."""
    rules = BoxRules()
    open_tiles = [1, 2, 3, 4, 5, 6, 7, 8]
    level = MP.advise_match(rules, open_tiles, 10, my_total=20, their_totals=[20], seat=1, rounds_left=2)
    ahead = MP.advise_match(rules, open_tiles, 10, my_total=0, their_totals=[24], seat=1, rounds_left=2)
    for df in (level, ahead):
        assert df["best"].iloc[0]
        assert ((df["p_win_match"] >= 0) & (df["p_win_match"] <= 1)).all()
        assert sorted(df["cover"]) == sorted(B.advise(rules, open_tiles, 10)["cover"])
    assert level["cover"].iloc[0] == B.advise(rules, open_tiles, 10)["cover"].iloc[0] == "2,8"
    assert ahead["cover"].iloc[0] == "3,7"
    assert ahead.attrs["p_win_now"] > level.attrs["p_win_now"]


def test_match_play_errors(small):
    """Bad input: one clear line in the game's terms."""
    with pytest.raises(MP.MatchPlayError, match="players"):
        MP.match_play(small, 4, 2)
    with pytest.raises(MP.MatchPlayError, match="not both"):
        MP.match_play(small, 2, 2, 45)
    with pytest.raises(MP.MatchPlayError, match="digital"):
        MP.match_play(small.replace(score="digital"), 2, 2)
    with pytest.raises(MP.MatchPlayError, match="sum or count"):
        MP.match_play(small.replace(score="all-or-nothing"), 2, None, 3)
    with pytest.raises(MP.MatchPlayError, match="situations"):
        MP.match_play(BoxRules(), 3, None, 45)
    with pytest.raises(MP.MatchPlayError, match="play must be"):
        MP.match_play(small, 2, 2, play="greedy")
    with pytest.raises(MP.MatchPlayError, match="seat"):
        MP.advise_match(small, [1, 2], 3, 0, [0], seat=3)
    with pytest.raises(MP.MatchPlayError, match="below 0|whole number"):
        MP.advise_match(small, [1, 2], 3, -1, [0])
    with pytest.raises(MP.MatchPlayError, match="out"):
        MP.advise_match(small, [1, 2], 3, 50, [0], rounds_left=None, threshold=45)
    with pytest.raises(RulesError):
        MP.advise_match(small, [1, 2], 13, 0, [0])


# ---------------------------------------------------------------- command line
def _cli(*args):
    import json

    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    res = CliRunner().invoke(cli, ["box", *[str(a) for a in args]], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout) if "json" in args else res.stdout


def _cli_error(capsys, *args) -> str:
    from ludolab.analysis.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["box", *[str(a) for a in args]])
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and out == "" and "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:"), err
    return lines[0]


def test_cli_match_exact_and_adaptive(tmp_path):
    """box match --exact: the exact table of STB-O5; --policy adaptive: simulated, exact beside."""
    import json

    rec = _cli("match", "--tiles", 5, "--rounds", 2, "--exact", "--format", "json")
    assert rec["mode"] == "2 rounds" and rec["method"] == "exact" and rec["rules"]["tiles"] == [1, 2, 3, 4, 5]
    want = MP.adaptive_gain_table(BoxRules(tiles=5), rounds=(2,), thresholds=())
    assert [r["gain"] for r in rec["rows"]] == pytest.approx(want["gain"].tolist(), abs=1e-15)
    assert [r["seat"] for r in rec["rows"]] == [1, 2]
    rec = _cli("match", "--tiles", 5, "--elimination", "--threshold", 8, "--exact", "--out", tmp_path,
               "--format", "json")
    assert rec["mode"] == "elimination at 8"
    meta = json.loads((tmp_path / "match_play_exact.meta.json").read_text())
    assert meta["method"] == "exact" and meta["threshold"] == 8 and meta["command"] == "box match"
    rec = _cli("match", "--tiles", 5, "--rounds", 2, "--policy", "adaptive", "--games", 500, "--seed", 2,
               "--format", "json")
    assert rec["policy"] == "adaptive" and rec["games"] == 500
    for row in rec["rows"]:
        assert row["p_win_ci_low"] <= row["p_win"] <= row["p_win_ci_high"]
        assert 0 < row["exact_p_win"] < 1
    rec = _cli("match", "--tiles", 4, "--players", 3, "--elimination", "--threshold", 47, "--policy", "adaptive",
               "--games", 60, "--format", "json")
    assert rec["policy"] == "adaptive heads-up" and "exact_p_win" not in rec["rows"][0]


def test_cli_advise_in_a_match():
    """box advise with a match situation ranks moves by the chance to win the match (STB-O5)."""
    rec = _cli("advise", "--open", "1,2,3,4,5,6,7,8", "--roll", 10, "--my-total", 0, "--their-total", 24,
               "--rounds-left", 2, "--format", "json")
    assert rec["advice"] == "cover 3,7" and rec["rows"][0]["cover"] == [3, 7]
    assert rec["their_totals"] == [24] and rec["rounds_left"] == 2 and rec["objective"] == "max P(win the match)"
    assert 0.9 < rec["p_win_now"] < 1
    rec = _cli("advise", "--open", "1,2", "--my-total", 10, "--their-total", 11, "--seat", 2, "--rounds-left", 1,
               "--format", "json")
    assert rec["dice"] == rec["rows"][0]["dice"] and rec["seat"] == 2
    assert [r["p_win_match"] for r in rec["rows"]] == sorted((r["p_win_match"] for r in rec["rows"]), reverse=True)
    text = _cli("advise", "--open", "1,2,3", "--roll", 3, "--my-total", 30, "--their-total", 17, "--elimination")
    assert "threshold     45" in text and "cover 3" in text


def test_cli_match_play_errors(capsys):
    """Options that do not go together: one line naming them."""
    assert "--exact" in _cli_error(capsys, "match", "--exact")
    assert "--objective" in _cli_error(capsys, "advise", "--open", "1,2", "--their-total", 3, "--rounds-left", 1,
                                       "--objective", "shut")
    assert "--their-total" in _cli_error(capsys, "advise", "--open", "1,2", "--rounds-left", 1)
    assert "--rounds-left" in _cli_error(capsys, "advise", "--open", "1,2", "--their-total", 3)
    assert "--threshold" in _cli_error(capsys, "advise", "--open", "1,2", "--their-total", 3, "--rounds-left", 1,
                                       "--threshold", 30)
    assert "2..3" in _cli_error(capsys, "match", "--rounds", 2, "--players", 4, "--exact")
    assert "--seed" in _cli_error(capsys, "match", "--rounds", 2, "--exact", "--seed", 3)


def test_stbo5_heads_up_play():
    """STB-O5 for 3 players where the exact match is too large: each seat plays the solved 2-player
    match against its strongest opponent; with 2 players that is the exact solution itself, roll for roll."""
    rules = BoxRules(tiles=4)
    duel = MP.HeadsUpPlay(rules, 2, 2, None)
    exact = MP.match_play(rules, 2, 2)
    a = MP.simulate_match_play(duel, 400, seed=9, chunks=2)
    b = MP.simulate_match_play(exact, 400, seed=9, chunks=2)
    assert a["p_win"].tolist() == b["p_win"].tolist() and a["mean_total"].tolist() == b["mean_total"].tolist()
    assert MP.estimated_nodes(BoxRules(), 3, None, 45) > MP.MAX_NODES
    assert isinstance(MP.adaptive_play(BoxRules(), 3, 3), MP.MatchPlay)
    big = MP.adaptive_play(rules, 3, None, 47)
    assert isinstance(big, MP.HeadsUpPlay)
    df = MP.simulate_match_play(big, 200, seed=1, chunks=2)
    assert df["play"].tolist() == ["adaptive heads-up"] * 3
    assert df["p_win"].sum() + df["p_tie"].sum() / 2 <= 1.0 + 1e-12


def test_stbo5_ties_win_gain(small):
    """STB-O5 with ties-win: the player plays for a win or a shared lowest total, so the table counts
    both, and adapting alone never does worse on that count."""
    df = MP.adaptive_gain_table(small, rounds=(1, 2), thresholds=(), ties_win=True)
    assert (df["gain"] >= -1e-12).all()
    lone = MP.match_play_exact(small, 2, 2, ties_win=True, play=("lowest", "adaptive"))
    row = df[(df["match"] == "2 rounds") & (df["seat"] == 2)].iloc[0]
    assert row["p_win_alone"] == pytest.approx(lone["p_win"][1] + lone["p_tie"][1], abs=1e-15)


def test_stb2_stbo5_advise_in_a_match_with_other_dice():
    """STB-2 with STB-O5: with 3d6 the dice choice in a match's last turn is the beat-target one,
    and the command names the full roll in words."""
    rules = BoxRules(dice="3d6")
    df = MP.advise_match(rules, [1, 2, 3], None, my_total=5, their_totals=[9], seat=2, rounds_left=1)
    ref = B.advise(rules, [1, 2, 3], None, "beat", target=4)
    assert df["dice"].tolist() == ref["dice"].tolist()
    assert df["p_win_match"].tolist() == pytest.approx(ref["value"].tolist(), abs=1e-12)
    rec = _cli("advise", "--dice", "3d6", "--open", "1,2,3", "--my-total", 5, "--their-total", 9, "--seat", 2,
               "--rounds-left", 1, "--format", "json")
    assert rec["advice"] == f"roll {rules.dice_words(int(ref['dice'][0]))}"


def test_stbo5_match_decisions():
    """STB-O5: the table of moves that change when playing for the match: every row differs from the
    lowest-score move and gains; the advice example (24 ahead, two rounds left, open 1-8, roll 10) is in it."""
    rules = BoxRules()
    df = MP.match_decisions(rules, rounds_left=2, leads=[0, 24], seats=[1], top=None)
    assert (df["cover_lowest"] != df["cover_match"]).all() and (df["gain"] > 0).all()
    assert np.allclose(df["weighted_gain"], df["p_meet"] * df["gain"])
    assert list(df["weighted_gain"]) == sorted(df["weighted_gain"], reverse=True)
    row = df[(df["lead"] == 24) & (df["open"] == "1,2,3,4,5,6,7,8") & (df["roll"] == "10")].iloc[0]
    assert (row["cover_lowest"], row["cover_match"]) == ("2,8", "3,7")
    adv = MP.advise_match(rules, list(range(1, 9)), 10, my_total=0, their_totals=[24], seat=1, rounds_left=2)
    gap = adv.set_index("cover")["p_win_match"]
    assert row["gain"] == pytest.approx(gap["3,7"] - gap["2,8"], abs=1e-12)
