"""The strength ladder (``ludolab.sim.ladder``) on Shut the Box, whose values are known exactly."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ludolab.sim import box as B
from ludolab.sim import ladder as L
from ludolab.sim.box_step import policy_params, rules_array, step_game
from ludolab.sim.step import RulesCase


@pytest.fixture(scope="module")
def table():
    g = step_game()
    case = next(c for c in g.cases if c.label == "2p-1round")
    return L.Table(g, case), case


def test_ladder_orders_random_below_optimal_and_search_reaches_optimal(table):
    t, case = table
    named = case.named
    opt = L.Contender("optimal", "named", named["optimal"])
    rnd = L.Contender("random", "named", named["random"])
    srch = L.Contender("search 1024", "search", budget=1024, rollout=named["optimal"])
    rows = {r["policy"]: r for r in L.ladder(t, [opt, rnd, srch], opt, deals=60, seed=4)}
    # random play scores more (worse) than optimal play, by a CI that excludes 0 (exact gap 9.42)
    assert rows["random"]["ci_low"] > 0
    assert rows["random"]["win_share"] < 0.5 and rows["random"]["rating"] < 0
    # a search with optimal playouts plays optimally up to noise: its paired CI holds 0
    assert rows["search 1024"]["ci_low"] <= 0 <= rows["search 1024"]["ci_high"]
    assert rows["optimal"]["diff"] == 0 and rows["optimal"]["win_share"] == 0.5
    # how often a contender matters: the share of (deal, seat) games whose return differs from the baseline's
    assert rows["optimal"]["share_changed"] == 0
    keys4 = L.deal_keys(4, 60)
    mine, base = t.seat_results(rnd, opt, keys4), t.seat_results(opt, opt, keys4)
    assert rows["random"]["share_changed"] == float((mine != base).mean()) > 0.5
    # the mean of the optimal field is the exact expected score within its CI (STB-O1)
    exact = B.solve(B.BoxRules()).start_value
    keys = L.deal_keys(4, 60)
    scores = t.seat_results(opt, opt, keys).ravel()
    se = scores.std(ddof=1) / np.sqrt(len(scores))
    assert abs(scores.mean() - exact) < 4 * se


def test_python_policy_joins_and_illegal_action_is_refused(table):
    t, case = table
    opt = L.Contender("optimal", "named", case.named["optimal"])
    first = L.Contender("first legal", "python", fn=lambda obs, legal: int(legal[0]))
    rows = L.ladder(t, [first], opt, deals=5, seed=1)
    assert rows[0]["policy"] == "first legal" and np.isfinite(rows[0]["mean"])
    for fn, says in [(lambda obs, legal: -7, "returned -7"), (lambda obs, legal: float(legal[0]) + 0.5, "returned"),
                     (lambda obs, legal: None, "returned None"), (lambda obs: 1, "raised TypeError")]:
        with pytest.raises(L.PolicyError, match=says):
            L.ladder(t, [L.Contender("bad", "python", fn=fn)], opt, deals=2, seed=1)


def test_saturation_stops_when_a_doubling_no_longer_pays(table):
    t, case = table
    opt = L.Contender("optimal", "named", case.named["optimal"])
    make = lambda b: L.Contender(f"search {b}", "search", budget=b, rollout=case.named["optimal"])  # noqa: E731
    res = L.saturate(t, make, opt, start=32, tolerance=1.0, deals=30, seed=2, max_doublings=3)
    assert res["saturated_budget"] is not None, res
    # it stops at the first doubling whose gain is surely below the tolerance, not before
    assert res["steps"][-1]["ci_high"] < 1.0
    assert all(s["ci_high"] >= 1.0 for s in res["steps"][:-1])
    assert res["saturated_budget"] == res["steps"][-1]["budget"] // 2


def test_ladder_refuses_bad_arguments(table):
    t, case = table
    opt = L.Contender("optimal", "named", case.named["optimal"])
    with pytest.raises(ValueError, match="2 deals"):
        L.ladder(t, [opt], opt, deals=1)
    with pytest.raises(ValueError, match="contender kind"):
        L.ladder(t, [L.Contender("x", "magic")], opt, deals=3)


def _ladder_rows(args: list) -> list:
    """The rows of ``ludolab <args> --format json`` (the command must succeed)."""
    import json

    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    r = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)["rows"]


def test_ladder_command_json_and_bad_policy_strings():
    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    rows = _ladder_rows(["box", "ladder", "--players", "2", "--deals", "6", "--policy", "optimal",
                         "--policy", "random"])
    assert [x["policy"] for x in rows] == ["optimal", "random"]
    for x in rows:
        assert {"policy", "mean", "ci_low", "ci_high", "win_share", "rating", "saturated_budget"} <= set(x)
    for bad, says in [(["--policy", "nonsense"], "unknown policy"), (["--policy", "search:budget=0"], "1..1000000"),
                      (["--policy", "search:rollout=zzz"], "not a named policy"),
                      (["--policy", "search:budget=2,budget=3"], "twice"), (["--baseline", "zz"], "--baseline"),
                      (["--policy", "all-seeing-tree:depth=3"], "options are budget=N"),
                      (["--policy", "python:nomodule"], "python:MODULE:FUNCTION"),
                      (["--saturate", "4:0.1"], "exactly one search"),
                      (["--policy", "search", "--saturate", "4:inf"], "finite"),
                      (["--policy", "search", "--saturate", "100000:0.1"], "start budget"),
                      (["--policy", "python:math:pi"], "not a function"),
                      (["--policy", "python:math:floor"], "raised TypeError")]:
        r = CliRunner().invoke(cli, ["box", "ladder", "--deals", "2", *bad])
        assert r.exit_code == 2, (bad, r.output)
        assert says in r.output and "Traceback" not in r.output


def test_skill_chain_counts_neighbouring_rungs_told_apart():
    """Rungs ordered strongest first (lower return better here); a step counts only when the paired CI of
    the two rungs' per-deal differences excludes 0."""
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 1, 400)
    rows = [{"policy": "a", "diff": 0.0, "_per_deal": noise * 0.01},
            {"policy": "b", "diff": 0.02, "_per_deal": noise * 0.01 + 0.02 + rng.normal(0, 1, 400)},
            {"policy": "c", "diff": 5.0, "_per_deal": noise + 5.0}]
    chain = L.skill_chain(rows, lower=True)
    assert [k for k, v in sorted(chain.items(), key=lambda kv: kv[1]["rung"])] == ["a", "b", "c"]
    assert chain["a"]["separated_below"] is False and chain["b"]["separated_below"] is True
    assert chain["c"]["separated_below"] is None and {v["skill_chain"] for v in chain.values()} == {1}
    assert chain["b"]["below_ci_low"] > 0  # signed so that positive means the rung above is stronger
    flipped = L.skill_chain(rows, lower=False)  # higher better: c strongest
    assert flipped["c"]["rung"] == 1 and flipped["c"]["separated_below"] is True


def test_ladder_command_prints_its_skill_chain(table):
    import json

    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    r = CliRunner().invoke(cli, ["box", "ladder", "--players", "2", "--deals", "40", "--policy", "optimal",
                                 "--policy", "random"])
    assert r.exit_code == 0 and "skill chain: 1 of 1 steps" in r.output and "optimal > random" in r.output, r.output
    j = json.loads(CliRunner().invoke(cli, ["box", "ladder", "--players", "2", "--deals", "40", "--policy",
                                            "optimal", "--policy", "random", "--format", "json"]).output)
    by = {x["policy"]: x for x in j["rows"]}
    assert by["optimal"]["rung"] == 1 and by["optimal"]["separated_below"] is True and by["random"]["skill_chain"] == 1
    # the text table shows how often a policy changes the seat's return, as the JSON's share_changed
    line = next(x for x in r.output.splitlines() if x.startswith("random "))
    assert f"{by['random']['share_changed']:.1%}" in line and "changed" in r.output.splitlines()[1]


def test_all_seeing_tree_joins_the_ladder():
    """``all-seeing-tree:budget=B`` is a contender of every game's ladder command: a row of its own."""
    rows = _ladder_rows(["shelf", "ladder", "--players", "2", "--deals", "2", "--policy", "greedy",
                         "--policy", "all-seeing-tree:budget=16"])
    assert [x["policy"] for x in rows] == ["greedy", "all-seeing-tree:budget=16,rollout=potential"]
    assert rows[1]["share_changed"] > 0


def test_search_strings_are_strict_and_one_search_is_one_rung():
    """A search's policy string is refused in one line for a stray comma, an empty value, a signed or
    zero-padded budget or an unknown objective; its label is the canonical spelling, so two spellings of one
    search (options reordered, defaults written out) are refused as the same policy given twice."""
    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    for bad, says in ((["--policy", "search:budget=16,"], "empty option"),
                      (["--policy", "tree:,budget=16"], "empty option"),
                      (["--policy", "search:budget="], "budget has no value; write e.g. budget=64"),
                      (["--baseline", ""], "--baseline is empty"),
                      (["--policy", " "], "--policy is empty"),
                      (["--policy", "search:rollout=potential:"], "write search:rollout=potential"),
                      (["--policy", "search:budget=+16"], "leading zero"),
                      (["--policy", "search:budget=016"], "leading zero"),
                      (["--policy", "search:budget=١٦"], "digits 0-9"),
                      (["--policy", "search:objective=money"], "allowed points, wins"),
                      (["--policy", "search:budget=16,rollout=greedy", "--policy", "search:rollout=greedy,budget=16"],
                       "given twice"),
                      (["--policy", "all-seeing", "--policy", "all-seeing:budget=64,objective=points"],
                       "given twice"),
                      (["--policy", "all-seeing:"], "nothing follows the colon"),
                      (["--policy", "greedy:"], "takes its named policies without parameters")):
        r = CliRunner().invoke(cli, ["shelf", "ladder", "--deals", "2", *bad])
        assert r.exit_code == 2 and says in r.output and "Traceback" not in r.output, (bad, r.output)
        assert len(r.output.strip().splitlines()) == 1, r.output
    r = CliRunner().invoke(cli, ["books", "ladder", "--players", "2", "--deals", "2"])
    assert r.exit_code == 2 and "allowed 3, 4" in r.output and "[" not in r.output, r.output
    rows = _ladder_rows(["shelf", "ladder", "--players", "2", "--deals", "2", "--policy", "search:budget=4",
                         "--policy", "search:objective=wins,budget=4"])
    assert [x["policy"] for x in rows] == ["search:budget=4,rollout=potential",
                                           "search:budget=4,rollout=potential,objective=wins"]


def test_a_search_that_plays_to_win_values_a_playout_by_the_seats_it_beats():
    """``objective=wins``: a playout is worth the share of the other seats whose return is worse than the
    searching seat's (ties 1/2), where lower or higher wins; the flat search's sums are those shares, its
    twin gives the same, and a one-seat game refuses it."""
    from ludolab.sim import search as S
    from ludolab.sim.beverbende import step_game

    cfg = np.zeros(S.CFG_SIZE, dtype=np.int64)
    cfg[S.C_PLAYERS], cfg[S.C_OBJ] = 4, S.OBJ_WINS
    ret = np.array([10.0, 20.0, 10.0, 5.0])
    for lower, want in ((1, (1.5 / 3, 0.0, 1.5 / 3, 1.0)), (0, (1.5 / 3, 1.0, 1.5 / 3, 0.0))):
        cfg[S.C_LOWER] = lower
        for p in range(4):
            assert S.py_value(ret, p, cfg) == pytest.approx(want[p])
    g = step_game()
    case = next(c for c in g.cases if c.n_players == 3)
    k = g.kernels
    state = np.zeros(k.STATE_SIZE, dtype=np.int64)
    k.new_game(case.rules, np.uint64(12345), state)
    seat = int(k.current_player(state))
    obs = np.zeros(k.OBS_SIZE, dtype=np.int64)
    k.observe(case.rules, state, seat, obs)
    best = g.policies[g.extra["best"]]
    cfg, params = S.config(k, seat, 6, 3, True, 5, [best] * 3, g.max_steps(case.rules), objective="wins")
    got = []
    for engine in ("kernel", "twin"):
        work = S.work_arrays(k, 3)
        inp = (cfg, params, obs, state.copy())
        n = k.search(case.rules, inp, work) if engine == "kernel" else S.py_pimc(g.twin, case.rules, inp, work)
        got.append(work[1][:n].copy())
        assert ((work[1][:n, 0] >= 0) & (work[1][:n, 0] <= 6)).all(), "a share summed over 6 worlds is 0..6"
        assert (work[1][:n, 0] * 4 == np.round(work[1][:n, 0] * 4)).all(), "shares of 2 seats, ties 1/2"
    assert np.allclose(got[0], got[1], rtol=0, atol=1e-9), "the search's twin differs"
    low, high = (float(x) for x in g.return_bounds(case.rules))
    tree = []
    for engine in ("kernel", "twin"):
        work = S.ismcts_work(k, 3, 6, g.max_steps(case.rules))
        inp = (cfg, params, obs, state.copy(), S.ismcts_settings(low, high))
        n = (k.search_tree(case.rules, inp, work) if engine == "kernel"
             else S.py_ismcts(g.twin, case.rules, inp, work))
        tree.append(work[1][:n].copy())
    assert np.allclose(tree[0], tree[1], rtol=0, atol=1e-9), "the tree search's twin differs"
    assert ((tree[0][:, 1] >= 0) & (tree[0][:, 1] <= 1)).all()
    with pytest.raises(ValueError, match="wins needs 2 seats"):
        S.config(k, 0, 1, 1, True, 5, [best], 10, objective="wins")


def test_saturate_is_checked_before_any_play_and_its_budget_is_the_search_rows(monkeypatch):
    """A bad ``--saturate`` is refused before the ladder plays a deal; the saturated budget is given on the
    row of the search whose budget was doubled, null on the others."""
    from click.testing import CliRunner

    from ludolab.analysis.cli import cli
    from ludolab.sim import ladder as L

    played = L.ladder

    def refuse_play(*a, **k):
        raise AssertionError("the ladder was played before --saturate was checked")

    monkeypatch.setattr(L, "ladder", refuse_play)
    for bad, says in ((["--policy", "tree:budget=8", "--saturate", "8"], "START:TOLERANCE"),
                      (["--policy", "greedy", "--saturate", "8:1"], "exactly one search")):
        r = CliRunner().invoke(cli, ["shelf", "ladder", "--deals", "2", *bad])
        assert r.exit_code == 2 and says in r.output, r.output
    monkeypatch.setattr(L, "ladder", played)
    rows = _ladder_rows(["shelf", "ladder", "--players", "2", "--deals", "2", "--policy", "greedy",
                         "--policy", "all-seeing-tree:budget=16", "--saturate", "8:5"])
    assert rows[0]["saturated_budget"] is None and rows[1]["saturated_budget"] is not None, rows


def test_a_beverbende_heuristic_with_parameters_joins_the_ladder_by_its_canonical_name():
    """Beverbende's named policies take parameters in the ladder as in ``simulate --policy``
    (``threshold:knock=8,take=3``), for a contender and for the baseline; the label drops parameters left at
    their default, so ``threshold:knock=10`` is ``threshold`` (given twice when both are given); a bad
    parameter, or parameters in a game whose ladder takes none, is one line, exit 2."""
    from click.testing import CliRunner

    from ludolab.analysis.cli import cli
    from ludolab.sim import beverbende as BV

    rows = _ladder_rows(["beverbende", "ladder", "--players", "2", "--deals", "3",
                         "--baseline", "threshold:unknown=5,knock=8", "--policy", "threshold",
                         "--policy", "threshold:knock=8.0,unknown=5", "--policy", "threshold:take=3"])
    assert [r["policy"] for r in rows] == ["threshold", "threshold:knock=8,unknown=5", "threshold:take=3"]
    base = rows[1]
    assert base["diff"] == 0 and base["win_share"] == 0.5, "the baseline spelled another way is the baseline"
    label, (kind, params) = BV.step_policy("threshold:take=3")
    assert label == "threshold:take=3" and kind == BV.POLICY_KINDS["threshold"]
    assert list(params[:3]) == [10.0, 3.0, 4.5]
    for args, says in ((["--policy", "threshold", "--policy", "threshold:knock=10"], "given twice"),
                       (["--policy", "threshold:knock=x"], "must be a number"),
                       (["--policy", "threshold:speed=1"], "allowed are knock, take"),
                       (["--baseline", "threshold:knock"], "write name=value"),
                       (["--baseline", "threshold:knock=x"], "Error: --baseline 'threshold:knock=x': parameter knock"),
                       (["--baseline", "thresh:knock=1"], "not a named policy")):
        r = CliRunner().invoke(cli, ["beverbende", "ladder", "--players", "2", "--deals", "2", *args])
        assert r.exit_code == 2 and says in r.output and "Traceback" not in r.output, (args, r.output)
        assert len(r.output.strip().splitlines()) == 1, r.output
    r = CliRunner().invoke(cli, ["shelf", "ladder", "--players", "2", "--deals", "2", "--policy", "greedy:draw_below=1"])
    assert r.exit_code == 2 and "without parameters" in r.output, r.output


def test_a_search_rollout_takes_the_parameters_of_a_named_policy():
    """In Beverbende a search's rollout may be a heuristic with parameters (``rollout=threshold:knock=8,take=3``:
    the ``k=v`` right after it, up to the first search option, are the rollout's); the search plays exactly that policy
    in its playouts, and is labelled by the rollout's canonical spelling; a bad rollout parameter, or one in a
    game whose policies take none, is one line, exit 2."""
    from click.testing import CliRunner

    from ludolab.analysis.cli import cli
    from ludolab.analysis.ladder_cli import ladder_field
    from ludolab.sim import beverbende as BV

    _, _, _, _, cons = ladder_field("beverbende", 2, None, [
        "search:budget=4,rollout=threshold:take=3.0,knock=8,objective=wins", "tree:rollout=threshold:knock=10",
        "search:budget=4,rollout=threshold"])
    assert [c.label for c in cons] == ["search:budget=4,rollout=threshold:knock=8,take=3,objective=wins",
                                       "tree:budget=64,rollout=threshold", "search:budget=4,rollout=threshold"]
    kind, params = BV.step_policy("threshold:knock=8,take=3")[1]
    assert cons[0].rollout[0] == kind and np.array_equal(cons[0].rollout[1], params) and cons[0].objective == "wins"
    assert not np.array_equal(cons[2].rollout[1], params)
    from ludolab.analysis.ladder_cli import search_options

    assert search_options(cons[0].label) == {"budget": "4", "rollout": "threshold:knock=8,take=3",
                                             "objective": "wins"}, "a label reads back with the rollout's parameters"
    rows = _ladder_rows(["beverbende", "ladder", "--players", "2", "--deals", "2",
                         "--policy", "search:budget=4,rollout=threshold:knock=8"])
    assert [r["policy"] for r in rows] == ["search:budget=4,rollout=threshold:knock=8"]
    for game, pol, says in (("beverbende", "search:rollout=threshold:knok=8", "no parameter 'knok'"),
                            ("beverbende", "search:rollout=threshold:knock=8,budget=4,take=3",
                             "the rollout's parameters go right after rollout=NAME:"),
                            ("beverbende", "search:rollout=threshold:", "nothing follows the last colon; write "
                                                                       "search:rollout=threshold, or give"),
                            ("shelf", "search:rollout=potential:draw_below=1", "without parameters")):
        r = CliRunner().invoke(cli, [game, "ladder", "--players", "2", "--deals", "2", "--policy", pol])
        assert r.exit_code == 2 and says in r.output and "Traceback" not in r.output, (pol, r.output)
        assert len(r.output.strip().splitlines()) == 1, r.output


def test_seat_shares_count_a_win_as_one_a_tie_as_half_and_pairwise_averages_them(table):
    """``Table.seat_shares``: per deal and seat, the share of baseline seats the contender beats (lower return
    better in Shut the Box), a tie counted 1/2; ``pairwise`` is their mean over the seats."""
    t, _ = table
    # games[d, s, :]: the returns of both seats on deal d with the contender in seat s
    games = np.array([[[3.0, 5.0], [5.0, 3.0]],    # wins from seat 0 and from seat 1
                      [[4.0, 4.0], [2.0, 7.0]],    # a tie from seat 0, a loss from seat 1
                      [[9.0, 1.0], [6.0, 6.0]]])   # a loss from seat 0, a tie from seat 1
    shares = t.seat_shares(games)
    assert shares.tolist() == [[1.0, 1.0], [0.5, 0.0], [0.0, 0.5]]
    assert t.pairwise(games).tolist() == [1.0, 0.25, 0.25]


def test_the_ladder_plays_a_named_rule_variant_and_refuses_one_the_game_lacks(capsys):
    """``ludolab GAME ladder --variant`` plays the variant's rules (SHB-11: pairs scoring) with the named policies
    of those rules; a variant the game does not have, or a player count without a ladder table, is one error
    line naming what is allowed, exit 2."""
    from ludolab.analysis.cli import main
    from ludolab.analysis.cli_common import InputError
    from ludolab.analysis.ladder_cli import ladder_field

    with pytest.raises(SystemExit) as exc:
        main(["shelf", "ladder", "--variant", "pairs scoring", "--players", "2", "--deals", "2", "--policy", "greedy",
              "--format", "json"])
    assert exc.value.code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rules"] == "pairs scoring" and out["players"] == 2 and [r["policy"] for r in out["rows"]] == ["greedy"]
    with pytest.raises(InputError) as err:
        ladder_field("shelf", 4, "potential", ["potential"], "triples scoring")
    assert "variant 'triples scoring' is not one of this game's at 4 players: allowed 'standard scoring', " \
           "'flat scoring'" in str(err.value)
    for args, says in ((["--variant", "triples scoring"], "is not one of this game's at 2 players"),
                       (["--variant", "pairs scoring", "--players", "6"], "--players 6 is not a table")):
        with pytest.raises(SystemExit) as exc:
            main(["shelf", "ladder", *args])
        err = capsys.readouterr().err
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert exc.value.code == 2 and len(lines) == 1 and says in lines[0] and "Traceback" not in err, err


def test_a_policy_of_your_own_is_found_in_the_current_folder(tmp_path):
    """``python:MODULE:FUNCTION`` finds MODULE in the folder the command runs in, as ``python -m`` would, and
    the ladder plays it (its seat reading only its observation)."""
    import subprocess
    import sys

    (tmp_path / "my_shelf_policy.py").write_text("def first(obs, legal):\n    return int(legal[0])\n")
    code = "from ludolab.analysis.cli import main; main()"
    done = subprocess.run([sys.executable, "-I", "-c", code, "shelf", "ladder", "--players", "2", "--deals", "2",
                           "--policy", "python:my_shelf_policy:first", "--format", "json"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert [r["policy"] for r in json.loads(done.stdout)["rows"]] == ["python:my_shelf_policy:first"]


def test_a_policy_of_your_own_that_ends_the_program_or_is_no_module_is_refused_in_one_line(tmp_path, monkeypatch):
    """A Python policy that ends the program (SystemExit) while deciding or while its module loads is refused in
    one line, exit 2, not taken for the command's own end; MODULE written as a path, or shadowed by Python's
    own module of that name, is refused saying so."""
    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    (tmp_path / "my_quitter.py").write_text("def f(obs, legal):\n    raise SystemExit(0)\n")
    (tmp_path / "my_quit_on_load.py").write_text("raise SystemExit(0)\n")
    (tmp_path / "json.py").write_text("def f(obs, legal):\n    return int(legal[0])\n")  # json: imported already
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for args, says in ((["shelf", "ladder", "--policy", "python:my_quitter:f"], "raised PolicyEnded: SystemExit(0)"),
                       (["balance", "shelf", "--no-skill", "--policy", "python:my_quitter:f"], "SystemExit(0) ended"),
                       (["shelf", "ladder", "--policy", "python:my_quit_on_load:f"], "cannot load my_quit_on_load:f"),
                       (["shelf", "ladder", "--policy", "python:../x/my_policy:f"], "not a path"),
                       (["shelf", "ladder", "--policy", "python:json:f"], "json is found before your json.py")):
        size = ["--games", "2"] if args[0] == "balance" else ["--deals", "2"]
        r = CliRunner().invoke(cli, [*args, "--players", "2", *size])
        lines = [ln for ln in r.output.splitlines() if ln.strip()]
        assert r.exit_code == 2 and len(lines) == 1 and says in lines[0], (args, r.exit_code, r.output)


def test_a_variant_s_ladder_names_its_player_count():
    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    r = CliRunner().invoke(cli, ["shelf", "ladder", "--variant", "pairs scoring", "--players", "3", "--deals", "2",
                                 "--policy", "greedy"])
    assert r.exit_code == 0 and r.output.startswith("Strength ladder: pairs scoring, 3 players, baseline"), r.output
