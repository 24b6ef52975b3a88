"""Advice with any policy as the continuation (ludolab.sim.advice, ``--continuation`` of the advise commands):
a search, the all-seeing bound or a Python function of the observation plays every seat after the action,
one decision at a time; with a named policy that path gives the compiled path's values bit for bit."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from ludolab.analysis.cli import cli
from ludolab.sim import advice
from ludolab.sim import ladder as L
from ludolab.sim.rng import py_game_state
from ludolab.sim.step import named_policies
from ludolab.stdlib import registry

BEV = ["beverbende", "advise", "--players", "3", "--seat", "1", "--turns", "7", "--phase", "drawn", "--drawn", "4",
       "--row", "1:2 ? ? 9", "--discard", "3 9 SW 7"]


def decision(game_id: str, steps: int, key: int = 5):
    """A decision of the game's first ruleset of 2+ seats, reached by its best policy in every seat:
    ``(game, case, seat, obs, state)``."""
    g = registry.get(game_id).entry("step_game")()
    case = [c for c in g.cases if c.n_players >= 2][0]
    k, rules = g.kernels, case.rules
    best = named_policies(g, case)[g.extra["best"]]
    state = np.zeros(k.STATE_SIZE, dtype=np.int64)
    obs = np.zeros(k.OBS_SIZE, dtype=np.int64)
    acts = np.zeros(k.MAX_ACTIONS, dtype=np.int64)
    k.new_game(rules, np.uint64(py_game_state(key, 0)), state)
    for step in range(10_000):
        p = int(k.current_player(state))
        assert p >= 0, "the game ended before a decision of two or more actions"
        k.observe(rules, state, p, obs)
        if step >= steps and k.legal_actions(rules, state, acts) >= 2:
            return g, case, p, obs.copy(), state.copy()
        k.apply_action(rules, state, int(k.act(best[0], best[1], obs, state)))
    raise AssertionError("no decision found")


@pytest.mark.parametrize("game_id,steps", [("books", 30), ("beverbende", 6), ("shelf", 40)])
def test_the_slow_path_gives_the_compiled_values_bit_for_bit(game_id, steps):
    """A named policy played one decision at a time through the ladder's ``Table.decide`` gives every action's
    value in every world, sampled from the observation or given whole, and the "no random number drawn" flag,
    exactly as the compiled search kernel does."""
    g, case, seat, obs, state = decision(game_id, steps)
    policy = named_policies(g, case)[g.extra["best"]]
    lower = bool(g.lower_wins)
    fast = advice._Evaluator(g, case.rules, case.n_players, seat, obs, policy, 11, lower)
    slow = advice._SlowEvaluator(g, case.rules, case.n_players, seat, obs, L.Contender("best", "named", policy),
                                 11, lower)
    for w in range(3):
        for world in (None, state):
            a, qa = fast.values(w, world)
            b, qb = slow.values(w, world)
            assert np.array_equal(a, b) and qa == qb, (w, a, b)
    assert np.array_equal(fast.legal, slow.legal)


def _write_policy(tmp_path, monkeypatch, body: str, name: str) -> None:
    import sys

    (tmp_path / f"{name}.py").write_text(body)
    monkeypatch.delitem(sys.modules, name, raising=False)  # each test's own file, as in a new command
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))


def test_a_python_continuation_reads_only_observations_and_is_exact_when_nothing_is_random(tmp_path, monkeypatch):
    """A Python function of the observation plays every seat after the action: it is handed observations and
    legal actions only (ints, copies), and a Shut The Books endgame whose deals are all listed is exact under
    it, as under a named policy (STK-5)."""
    from ludolab.sim import books as S
    from tests.test_advice_exact import endgame

    _write_policy(tmp_path, monkeypatch, "import numpy as np\nSEEN = []\n"
                                         "def lowest(obs, legal):\n"
                                         "    SEEN.append((str(obs.dtype), obs.shape, str(legal.dtype)))\n"
                                         "    return int(legal.min())\n", "my_play")
    from ludolab.analysis.advice_cli import continuation_of

    rules, seat, obs = endgame(3, 3, 9)
    game = S.step_game()
    c = continuation_of("python:my_play:lowest", game, rules)
    assert c.kind == "python"
    adv = advice.advise(game, rules, 3, seat, obs, measure="books_points", continuation=c, key=4)
    import my_play

    assert adv.exact and adv.passes == 1 and adv.continuation == "python:my_play:lowest"
    assert my_play.SEEN and {s for s in my_play.SEEN} == {("int64", (game.kernels.OBS_SIZE,), "int64")}


def test_a_search_continuation_is_not_exact_and_its_cis_are_over_its_randomness():
    """A search draws random numbers of its own: the listed worlds are played again and the CIs are over
    the passes, never called exact."""
    from ludolab.analysis.advice_cli import continuation_of
    from ludolab.sim import books as S
    from tests.test_advice_exact import endgame

    rules, seat, obs = endgame(3, 2, 4)
    game = S.step_game()
    c = continuation_of("search:budget=4", game, rules)
    adv = advice.advise(game, rules, 3, seat, obs, measure="books_points", continuation=c, key=4, budget=8)
    assert c.kind == "search" and not adv.exact and adv.passes >= advice.MIN_PASSES
    assert adv.continuation == "search:budget=4,rollout=heuristic/heuristic"


@pytest.mark.parametrize("policy,label", [("search:budget=4", "search:budget=4,rollout=expected-value"),
                                          ("threshold:knock=8", "threshold:knock=8"),
                                          ("all-seeing:budget=4", "all-seeing:budget=4,rollout=expected-value")])
def test_the_advise_command_takes_any_ladder_policy_as_its_continuation(policy, label):
    """``--continuation`` takes what ``ladder --policy`` takes; a policy played in Python samples
    SLOW_WORLDS worlds unless --budget is given, and the answer names the continuation."""
    from ludolab.analysis.advice_cli import SLOW_WORLDS

    res = CliRunner().invoke(cli, BEV + ["--continuation", policy, "--format", "json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["continuation"] == f"{label} for every seat after the action"
    assert out["worlds"] == (SLOW_WORLDS if policy.startswith(("search", "all-seeing")) else 200)
    res = CliRunner().invoke(cli, BEV + ["--continuation", policy, "--budget", "6", "--format", "json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["worlds"] == 6


@pytest.mark.parametrize("policy,words", [
    ("nosuch", "--continuation: unknown policy 'nosuch': allowed random, threshold, expected-value, search:..."),
    ("", "--continuation is empty: give a policy"),
    ("search:budget=x", "--continuation 'search:budget=x': budget must be a whole number"),
    ("search:rollout=zzz", "--continuation 'search:rollout=zzz': rollout 'zzz' is not a named policy"),
    ("python:my_bad_play:bad", "policy python:my_bad_play:bad returned -5: an action is one of the legal ints"),
    ("python:my_bad_play:nothere", "cannot load my_bad_play:nothere"),
])
def test_a_bad_continuation_is_one_line_exit_2(policy, words, tmp_path, monkeypatch):
    _write_policy(tmp_path, monkeypatch, "def bad(obs, legal):\n    return -5\n", "my_bad_play")
    res = CliRunner().invoke(cli, BEV + ["--continuation", policy, "--budget", "2"])
    assert res.exit_code == 2, res.output
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in res.output, res.output


@pytest.mark.parametrize("game_id,args", [
    ("books", ["books", "advise", "--play", "--players", "4", "--start", "0", "--hand", "B6 B9 B13",
               "--predictions", "R2 R3 / R4 R7 P2 / R15 Y7 Y14 / R5", "--tricks",
               "R11 R13 R14 R9 close Y14 / R1 R12 R6 R8 / P1 P12 P15 P4 / Y4 Y15 Y13 Y1 close R15 / "
               "Y12 Y8 Y10 Y5 / P5 P3 P13 P14 / Y6 B15 Y3 R10 close R3 / B2 B8 B14 B12 / P7 P6 B1 Y9 / "
               "P8 P10 B5 B10", "--trick", "Y2"]),
    ("shelf", ["shelf", "advise", "--situation", "stdlib/data/shelf_example_situation.json"]),
])
def test_books_and_shelf_advice_take_a_search_continuation(game_id, args):
    """The card-play advice of Shut The Books and Shelve the Book take a search as the continuation too."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    args = [str(root / a) if a.endswith(".json") else a for a in args]
    res = CliRunner().invoke(cli, args + ["--continuation", "search:budget=2", "--budget", "2", "--format", "json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["continuation"].startswith("search:budget=2,rollout=") and out["rows"]


def test_what_a_policy_of_your_own_prints_goes_to_standard_error(tmp_path, monkeypatch):
    """A Python continuation that prints, when loaded and at every decision, leaves the JSON and CSV on
    standard output whole: its lines go to standard error; the CSV names the continuation in every row."""
    _write_policy(tmp_path, monkeypatch, "print('loading my policy')\n"
                                         "def first(obs, legal):\n"
                                         "    print('deciding')\n"
                                         "    return int(legal[0])\n", "my_noisy_play")
    res = CliRunner().invoke(cli, BEV + ["--continuation", "python:my_noisy_play:first", "--budget", "2",
                                         "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["continuation"].startswith("python:my_noisy_play:first")
    assert "loading my policy" in res.stderr and "deciding" in res.stderr
    res = CliRunner().invoke(cli, BEV + ["--continuation", "python:my_noisy_play:first", "--budget", "2",
                                         "--format", "csv"])
    lines = res.stdout.splitlines()
    assert lines[0].endswith(",exact,continuation") and all(x.endswith(",python:my_noisy_play:first")
                                                             for x in lines[1:]), res.stdout
