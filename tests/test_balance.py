"""The balance measures (``ludolab.sim.balance``) on toy games whose answers are known, and on
Shut the Box against its exact distributions."""

from __future__ import annotations

import numpy as np
import pytest

import toy_games as T
from ludolab.sim import balance as BAL
from ludolab.sim import box as B
from ludolab.sim.box_step import step_game

RND = (T.K_RANDOM, np.zeros(1))
BEST = (T.K_BEST, np.zeros(1))


def _rows(kind, policies=(BEST, BEST), games=3000, skill=True):
    rows = BAL.study(T, np.array([kind], dtype=np.int64), list(policies), False, games, 3, 8,
                     random_policy=RND if skill else None)
    return {r["metric"]: r for r in rows}


def _holds(row, x, widen=1.0):
    """x inside the row's 95% CI (``widen``: its half-width times this, for many checks at once)."""
    mid, half = (row["ci_low"] + row["ci_high"]) / 2, (row["ci_high"] - row["ci_low"]) / 2 * widen
    return mid - half <= x <= mid + half


def test_a_coin_toss_has_no_skill_and_no_seat_edge():
    r = _rows(T.COIN)
    assert _holds(r["seat_win_share[1]"], 0.5) and _holds(r["seat_win_share[2]"], 0.5)
    assert r["seat_edge"]["ci_low"] <= 0
    assert _holds(r["skill_share"], 0.0), r["skill_share"]
    assert _holds(r["skill_expression"], 0.0)
    assert r["ties"]["value"] == 0
    assert r["duration"]["value"] == 2


def test_a_game_the_first_player_always_wins_has_seat_edge_one():
    r = _rows(T.FIRST)
    assert r["seat_win_share[1]"]["value"] == 1.0
    assert r["seat_edge"]["value"] == 1.0
    assert r["skill_share"]["value"] <= 0.0 + 1e-12  # no policy changes anything


def test_a_game_decided_at_the_first_move_has_decisiveness_zero():
    r = _rows(T.FIXED, skill=False)
    assert r["decisiveness"]["value"] == 0.0
    assert r["decided_early"]["value"] == 1.0
    assert r["lead_changes"]["value"] == 0.0
    assert r["duration"]["value"] == 5 and r["duration_p50"]["value"] == 5
    coin = _rows(T.COIN, skill=False)
    assert coin["decisiveness"]["value"] == 1.0, "a coin decides only at the end"


def test_a_game_of_skill_shows_it():
    """Both seats pick 3 when they play their best; at random a seat wins 1/8 instead of 1/2,
    so the skill expression is exactly 3/8."""
    r = _rows(T.SKILL, games=2000)
    assert r["skill_share"]["ci_low"] > 0.1, r["skill_share"]
    assert _holds(r["skill_expression"], 0.375), r["skill_expression"]


def test_the_skill_chain_tells_skill_apart_and_a_coin_toss_not():
    """Known answers: in the game of picks the best pick beats a random one on the same deals (1 of 1
    step); in a coin toss both policies get the same returns on every deal (0 of 1)."""
    skill = T.step_game(T.SKILL)
    row = BAL.skill_chain(skill, skill.cases[0], 400, 5, variant="toy")
    assert (row["metric"], row["value"], row["steps"], row["chain"]) == ("skill_chain", 1.0, 1, "best > random")
    assert row["ci_low"] == row["ci_high"] == 1.0 and "of 1 (400 duplicate deals against best)" in row["meaning"]
    coin = T.step_game(T.COIN)
    row = BAL.skill_chain(coin, coin.cases[0], 400, 5)
    assert row["value"] == 0.0 and row["steps"] == 1 and " ~ " in row["chain"]


def test_strong_play_is_the_top_of_the_ladder_only_when_a_ci_says_so():
    """Known answers: with random play as the game's heuristic, the game of picks' best policy beats it by a
    paired CI and is chosen; in a coin toss nothing beats it, so the heuristic itself stays."""
    skill = T.step_game(T.SKILL)
    skill.extra = {**skill.extra, "best": "random"}
    pick = BAL.strongest(skill, skill.cases[0], 300, 2)
    assert pick["policy"] == "best" and pick["baseline"] == "random" and pick["ci_low"] > 0
    coin = T.step_game(T.COIN)
    coin.extra = {**coin.extra, "best": "random"}
    pick = BAL.strongest(coin, coin.cases[0], 300, 2)
    assert pick["policy"] == "random" and pick["diff"] == 0


def test_balance_strong_names_its_pick_and_plays_it_in_every_seat():
    """``--strong`` prints the policy it chose and its paired gain, plays it in every seat, gives it as a JSON
    row, and is refused beside --policy."""
    import json

    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    res = CliRunner().invoke(cli, ["balance", "shelf", "--strong", "--games", "40", "--no-skill"])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("strong play: rollout, the top of a ladder") and "seats rollout, rollout;" in res.stdout
    j = json.loads(CliRunner().invoke(cli, ["balance", "shelf", "--strong", "--games", "40", "--no-skill",
                                            "--format", "json"]).stdout)
    assert j[0]["metric"] == "strong_play" and j[0]["policy"] == "rollout" and j[0]["baseline"] == "potential"
    assert j[0]["ci_low"] > 0 and j[0]["deals"] == 40
    bad = CliRunner().invoke(cli, ["balance", "shelf", "--strong", "--policy", "greedy"])
    assert bad.exit_code == 2 and "give it or --policy, not both" in bad.output


def test_the_skill_chain_row_is_the_ladders_chain_on_the_same_deals():
    """``balance`` and ``ladder`` give the same chain: the balance row plays the same ladder over the
    game's fast named policies, at min(games, CHAIN_DEALS) deals."""
    import json

    from click.testing import CliRunner

    from ludolab.analysis.cli import cli
    from ludolab.sim.ladder import chain_text

    res = CliRunner().invoke(cli, ["balance", "box", "--games", "300", "--seed", "4", "--format", "json"])
    assert res.exit_code == 0, res.output
    (row,) = [r for r in json.loads(res.stdout) if r["metric"] == "skill_chain"]
    lad = CliRunner().invoke(cli, ["box", "ladder", "--players", "2", "--deals", "300", "--seed", "4", "--format", "json"])
    assert lad.exit_code == 0, lad.output
    rows = json.loads(lad.stdout)["rows"]
    assert row["value"] == rows[0]["skill_chain"] and row["ci_low"] == row["ci_high"] == row["value"]
    assert row["steps"] == len(rows) - 1 and row["chain"] == chain_text(rows)
    text = CliRunner().invoke(cli, ["balance", "box", "--games", "300", "--seed", "4"]).stdout
    assert f"of {len(rows) - 1} steps" in text and chain_text(rows) in text
    assert "skill_chain" not in CliRunner().invoke(cli, ["balance", "box", "--games", "300", "--no-skill"]).stdout


def test_shut_the_box_seat_win_shares_match_the_exact_distributions():
    """Seat 1 plays optimally, seat 2 at random, one round (STB-9): the exact chance that seat 1
    scores less (a tie split) from the two exact score distributions, inside the CI."""
    g = step_game()
    case = next(c for c in g.cases if c.label == "2p-1round")
    rules = B.BoxRules()
    dist = []
    for name in ("optimal", "random"):
        ev = B.evaluate(B.make_policy(rules, name))
        p = np.zeros(int(rules.scores.max()) + 1)
        np.add.at(p, rules.scores, ev.final)
        dist.append(p)
    a, b = dist
    cb = np.cumsum(b)
    exact = float(sum(a[x] * ((1 - cb[x]) + 0.5 * b[x]) for x in range(len(a))))
    rows = {r["metric"]: r for r in BAL.study(g.kernels, case.rules, list(case.policies), True, 4000, 5, 2)}
    assert _holds(rows["seat_win_share[1]"], exact), (rows["seat_win_share[1]"], exact)
    assert _holds(rows["seat_win_share[2]"], 1 - exact)


def test_exact_seat_measures_equal_brute_force_over_every_outcome():
    """:func:`exact_seats` against enumerating every combination of three seats' points."""
    import itertools

    rng = np.random.default_rng(1)
    dists = [(np.array([0, 1, 2, 3]) + i, rng.dirichlet(np.ones(4))) for i in range(3)]
    for lower in (True, False):
        rows = {r["metric"]: r["value"] for r in BAL.exact_seats(dists, lower)}
        share, tie = np.zeros(3), 0.0
        for combo in itertools.product(range(4), repeat=3):
            p = np.prod([dists[i][1][combo[i]] for i in range(3)])
            ret = np.array([[dists[i][0][combo[i]] for i in range(3)]])
            share += p * BAL.win_shares(ret, lower)[0]
            best = ret.min() if lower else ret.max()
            tie += p * float((ret == best).sum() > 1)
        assert np.allclose([rows[f"exact_seat_win_share[{s}]"] for s in (1, 2, 3)], share, atol=1e-12)
        assert abs(rows["exact_ties"] - tie) < 1e-12
        assert abs(rows["exact_seat_edge"] - (share.max() - 1 / 3) / (2 / 3)) < 1e-12
    with pytest.raises(ValueError, match="sums to"):
        BAL.exact_seats([(np.array([0]), np.array([0.5]))], True)


def test_balance_of_shut_the_box_is_exact_and_the_simulation_agrees():
    """Three seats, three rounds (totals: each seat's round distribution convolved three times):
    the command prints the exact seat measures, and the simulated ones hold them in their CIs."""
    import json

    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    r = CliRunner().invoke(cli, ["balance", "box", "--players", "3", "--games", "3000", "--no-skill",
                                 "--policy", "optimal", "--policy", "random", "--policy", "greedy-high",
                                 "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = {x["metric"]: x for x in json.loads(r.output)}
    for s in (1, 2, 3):
        ex = rows[f"exact_seat_win_share[{s}]"]
        assert ex["ci_low"] == ex["value"] == ex["ci_high"]
        assert _holds(rows[f"seat_win_share[{s}]"], ex["value"]), (s, rows[f"seat_win_share[{s}]"], ex)
        assert _holds(rows[f"seat_points[{s}]"], rows[f"exact_seat_points[{s}]"]["value"])
    assert _holds(rows["ties"], rows["exact_ties"]["value"])
    assert rows["exact_seat_win_share[1]"]["value"] > 0.5
    r = CliRunner().invoke(cli, ["balance", "box", "--games", "200", "--no-skill"])
    assert r.exit_code == 0 and "exact_seat_edge" in r.output and "(exact)" in r.output


def test_study_refuses_too_few_games():
    with pytest.raises(ValueError, match="at least 2"):
        BAL.study(T, np.array([0], dtype=np.int64), [BEST, BEST], False, 1, 0, 4)


def test_balance_command_json_rows_and_bad_input():
    import json

    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    r = CliRunner().invoke(cli, ["balance", "box", "--players", "3", "--games", "200", "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    base = {"metric", "variant", "value", "ci_low", "ci_high"}
    assert all(set(x) == (base | {"steps", "chain"} if x["metric"] == "skill_chain" else base) for x in rows)
    metrics = {x["metric"] for x in rows}
    assert {"seat_edge", "skill_share", "decisiveness", "lead_changes", "duration_p95", "ties"} <= metrics
    lead = next(x for x in rows if x["metric"] == "lead_changes")
    assert lead["value"] > 0, "three rounds of totals give the lead a chance to change"
    for bad, says in [(["chess"], "unknown game"), (["box", "--policy", "nope"], "not a named policy"),
                      (["box", "--players", "2", "--policy", "random", "--policy", "random", "--policy", "random"],
                       "one per seat"), (["box", "--players", "6"], "measured at")]:
        r = CliRunner().invoke(cli, ["balance", *bad, "--games", "10"])
        assert r.exit_code == 2 and says in r.output and "Traceback" not in r.output, (bad, r.output)


def test_balance_variants_side_by_side_on_the_same_deals():
    """--variants: one column per named rule variant (BVB-15 scorings, the BVB-7 option), every measure of each,
    the same deals for all: a rule that only changes scoring leaves the length of the game (turns) unchanged."""
    import json

    from click.testing import CliRunner

    from ludolab.analysis.cli import cli
    from ludolab.sim.beverbende import step_variants

    labels = [c.label for c in step_variants(3)]
    assert labels == ["sum scoring", "knocker-penalty scoring", "exchange specials"]
    r = CliRunner().invoke(cli, ["balance", "beverbende", "--players", "3", "--variants", "--games", "60",
                                 "--no-skill", "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    by = {(x["metric"], x["variant"]): x for x in rows}
    assert {x["variant"] for x in rows} == set(labels)
    assert by[("duration", "sum scoring")]["value"] == by[("duration", "knocker-penalty scoring")]["value"]
    t = CliRunner().invoke(cli, ["balance", "beverbende", "--players", "3", "--variants", "--games", "60", "--no-skill"])
    assert t.exit_code == 0 and all(lab in t.output.splitlines()[1] for lab in labels)
    assert "e-0" not in t.output and "e+0" not in t.output  # no scientific notation for people
    # a rule the heuristic never uses shows in no measure: said, not left for a reader to take as "no effect"
    assert "note: exchange specials equals sum scoring in every measure" in t.output



def test_shut_the_box_variants_are_measured_exactly_beside_the_simulation():
    """balance box --variants: the one-die rules (STB-6) and count scoring (STB-8), each with its own optimal
    policy; every variant's simulated seat measures hold its exact ones."""
    import json

    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    r = CliRunner().invoke(cli, ["balance", "box", "--variants", "--games", "1500", "--no-skill", "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    by = {(x["metric"], x["variant"]): x for x in rows}
    variants = sorted({x["variant"] for x in rows})
    assert variants == sorted(["rulebook 2p", "one-die never 2p", "one-die always 2p", "one-die forced 2p",
                               "count scoring 2p"])
    for v in variants:  # 15 checks at once: each CI widened to 99.9% (Bonferroni, z 3.29 / 1.96)
        for m in ("seat_points[1]", "seat_points[2]", "ties"):
            assert _holds(by[(m, v)], by[("exact_" + m, v)]["value"], widen=3.29 / 1.96), (m, v, by[(m, v)])
    # count scoring ties far more often than the sum of the open tiles (exact)
    assert by[("exact_ties", "count scoring 2p")]["value"] > 3 * by[("exact_ties", "rulebook 2p")]["value"]
    t = CliRunner().invoke(cli, ["balance", "box", "--variants", "--games", "200", "--no-skill"])
    assert t.exit_code == 0 and "(exact)" in t.output and "e-0" not in t.output


@pytest.mark.parametrize("game_id", ["box", "beverbende"])
def test_games_split_over_threads_are_the_games_of_one_thread(game_id, monkeypatch):
    """``play.run`` and ``play.run_traced`` split the games over threads in blocks: every game
    depends only on its key, so 1, 2 and 3 threads (blocks of uneven size) give the same arrays."""
    from ludolab.sim import play
    from ludolab.stdlib import registry

    step = registry.get(game_id).entry("step_game")()
    case = step.cases[0]
    keys = np.arange(1, 2 * play.MIN_GAMES_A_THREAD * 3 + 7, dtype=np.uint64)
    pols = list(case.policies)
    results, real = [], play.in_threads
    for threads in (1, 2, 3):
        monkeypatch.setattr(play, "in_threads", lambda block, games, t=threads: real(block, games, t))
        ret, steps = play.run(step.kernels, case.rules, keys, pols)
        results.append((ret, steps, play.run_traced(step.kernels, case.rules, keys, pols, 64)))
    for ret, steps, tr in results[1:]:
        assert np.array_equal(ret, results[0][0]) and np.array_equal(steps, results[0][1])
        for k in ("ret", "steps", "marks", "scores"):
            assert np.array_equal(tr[k], results[0][2][k]), k
    assert np.array_equal(results[0][2]["ret"], results[0][0])


def test_balance_box_strong_adds_the_exact_match_equilibrium():  # STB-9, STB-10
    """For Shut the Box, --strong adds the one-round match equilibrium of `box match` (later seats play to beat
    the score so far): the same win and tie chances, and for two seats the seat edge with ties split."""
    import json

    from click.testing import CliRunner

    from ludolab.analysis.cli import cli
    from ludolab.sim.box_match import match_exact
    from ludolab.stdlib.box import BoxRules

    res = CliRunner().invoke(cli, ["balance", "box", "--strong", "--games", "200", "--no-skill", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = {r["metric"]: r for r in json.loads(res.stdout)}
    sol = match_exact(BoxRules(), 2, keep_policies=False)
    for s in (1, 2):
        assert rows[f"exact_match_win[{s}]"]["value"] == float(sol.seats.p_win.iloc[s - 1])
        assert rows[f"exact_match_tie[{s}]"]["value"] == float(sol.seats.p_tie.iloc[s - 1])
    share = float(sol.seats.p_win.iloc[0]) + sol.p_tie_game / 2
    assert abs(rows["exact_match_seat_edge"]["value"] - (share - 0.5) / 0.5) < 1e-12
    assert rows["exact_match_ties"]["value"] == sol.p_tie_game and rows["strong_play"]["policy"] == "optimal"
    assert "exact_match_win[1]" not in CliRunner().invoke(cli, ["balance", "box", "--games", "200",
                                                                "--no-skill"]).stdout


@pytest.mark.parametrize("game_id", ["box", "books", "beverbende", "shelf"])
def test_the_slow_path_plays_the_compiled_games_bit_for_bit(game_id):
    """With named policies in every seat, the one-decision-at-a-time path the balance suite takes for any ladder
    contender (a search, the bound, a Python function) plays the very games of the compiled traced play: the
    same returns, actions per seat, scoring moments and running scores, on the same deals."""
    import numpy as np

    from ludolab.sim import balance as BAL
    from ludolab.sim import ladder as L
    from ludolab.sim.play import run_traced
    from ludolab.sim.step import named_policies
    from ludolab.stdlib import registry

    g = registry.get(game_id).entry("step_game")()
    case = [c for c in g.cases if c.n_players >= 2][0]
    named = named_policies(g, case)
    names = (list(named) * case.n_players)[:case.n_players]
    moments = int(g.extra["moments"](case.rules)) if "moments" in g.extra else int(g.max_steps(case.rules)) + 1
    keys = BAL.deal_keys(6, 3)
    fast = run_traced(g.kernels, case.rules, keys, [named[n] for n in names], moments)
    slow = BAL.run_traced_seats(L.Table(g, case), [L.Contender(n, "named", named[n]) for n in names], keys, moments)
    for k in ("ret", "steps", "marks", "scores"):
        assert np.array_equal(fast[k], slow[k]), k


def test_balance_measures_a_game_under_search_or_a_policy_of_your_own(tmp_path, monkeypatch):
    """``--policy`` takes any policy the ladder takes: a search in every seat, or a Python function of the
    observation; each is measured with the skill measures on the same deals as the named policies; a Python
    policy that returns an illegal action, or a malformed search, is one error line, exit 2."""
    import json

    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    (tmp_path / "my_first.py").write_text("def first(obs, legal):\n    return int(legal[0])\n"
                                          "def bad(obs, legal):\n    return -99\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    r = CliRunner().invoke(cli, ["balance", "shelf", "--players", "2", "--policy", "search:budget=4,rollout=potential",
                                 "--games", "4", "--no-skill", "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = {x["metric"]: x for x in json.loads(r.output)}
    assert rows["duration"]["value"] == 60 and 0 <= rows["ties"]["value"] <= 1
    r = CliRunner().invoke(cli, ["balance", "beverbende", "--players", "2", "--policy", "python:my_first:first",
                                 "--policy", "threshold:knock=8", "--games", "6", "--format", "json"])
    assert r.exit_code == 0, r.output
    metrics = {x["metric"] for x in json.loads(r.output)}
    assert {"seat_edge", "skill_share", "skill_expression", "skill_chain"} <= metrics
    r = CliRunner().invoke(cli, ["balance", "beverbende", "--players", "2", "--policy", "threshold", "--games", "6",
                                 "--no-skill"])
    assert r.exit_code == 0 and "seats threshold, threshold" in r.output, r.output
    for bad, says in [(["--policy", "python:my_first:bad"], "returned -99"),
                      (["--policy", "search:budget=x"], "search:budget=x"),
                      (["--policy", "potentia"], "not a named policy of Shelve the Book")]:
        r = CliRunner().invoke(cli, ["balance", "shelf", "--players", "2", "--games", "4", "--no-skill", *bad])
        lines = [ln for ln in r.output.splitlines() if ln.strip()]
        assert r.exit_code == 2 and len(lines) == 1 and says in lines[0] and "Traceback" not in r.output, (bad, r.output)


def test_strong_variants_name_each_column_s_seats_truly():
    """With --strong --variants each variant's strong play is picked apart: the table's heading names one set
    of seats only when every variant's pick is the same, and that pick."""
    import re

    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    r = CliRunner().invoke(cli, ["balance", "shelf", "--players", "2", "--strong", "--variants", "--games", "4",
                                 "--no-skill"])
    assert r.exit_code == 0, r.output
    picks = set(re.findall(r"^strong play \([^)]*\): ([^,:]+)", r.output, re.M))
    head = next(ln for ln in r.output.splitlines() if ln.startswith("Balance of"))
    if len(picks) == 1:
        (p,) = picks
        assert f"seats {p}, {p};" in head, head
    else:
        assert "each variant's seats its strong play, named above" in head, head
