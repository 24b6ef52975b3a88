"""Deep runs (``ludolab report --deep DIR``): resumable over sittings, stored with provenance, refused once the
plan, the kernels or the random streams change, and shown by the report as stored results."""

from __future__ import annotations

import json

import pytest
from ludolab.analysis import deep as D

NAME = "books_strong_accuracy"
BEV = "beverbende_strong_2p"
SHELF = "shelf_strong_4p"


def _tiny_plan() -> dict:
    plan = D._books_plan()
    plan.update(deals=6, chunks=3, configs=[
        {"forecast": "rollout", "pool": 3, "worlds": 2, "play": "rollout", "play_worlds": 2},
        {"forecast": "rollout", "pool": 3, "worlds": 4, "play": "rollout", "play_worlds": 4},
        {"forecast": "heuristic", "play": "heuristic"}])
    return plan


def _with_plan(monkeypatch, name: str, plan):
    """Study ``name`` with another plan, for this test only."""
    s = D.STUDIES[name]
    study = D.DeepStudy(s.name, s.game, s.title, plan, s.sources, s.run, s.canary, s.tables)
    monkeypatch.setitem(D.STUDIES, name, study)
    return study


@pytest.fixture
def tiny(monkeypatch):
    return _with_plan(monkeypatch, NAME, _tiny_plan)


def test_a_deep_run_resumes_to_the_uninterrupted_result(tiny, tmp_path):
    """A sitting that ended before some chunks were written (here: chunk files removed) is continued by the
    next one, which computes only those; the summary equals one straight run of the same plan."""
    from ludolab.sim import books as S

    first = D.run_study(tiny, tmp_path)
    chunks = sorted((tmp_path / NAME / "run-000").glob("chunk-*.parquet"))
    assert len(chunks) == 3
    chunks[0].unlink()
    chunks[2].unlink()
    again = D.run_study(tiny, tmp_path)
    assert again["tables"] == first["tables"]
    plan = tiny.plan()
    straight = S.accuracy(D._books_rules(plan), D._books_policies(plan), plan["deals"], plan["seed"], plan["chunks"])
    assert D._records(straight.overall()) == first["tables"]["overall"]
    assert D._records(straight.paired()) == first["tables"]["paired"]
    saved = json.loads((tmp_path / f"{NAME}.json").read_text())
    assert saved["plan"] == plan and set(saved["sources"]) == set(tiny.sources) and len(saved["canary"]) == 64
    assert "/" not in json.dumps(saved["provenance"]), "no machine path in the provenance"


def test_a_stored_summary_is_refused_when_its_plan_or_canary_differ(tiny, tmp_path):
    """The report shows a summary only while its plan is the study's and its canary reproduces bit for bit;
    otherwise it says why, in one line; an unreadable summary is refused, not a traceback."""
    D.run_study(tiny, tmp_path)
    path = tmp_path / f"{NAME}.json"
    ok = D.stored(NAME, tmp_path)
    assert ok.status == "ok" and ok.summary["plan"] == tiny.plan() and str(path) == ok.where
    good = json.loads(path.read_text())
    for change, says in (({"canary": "0" * 64}, "canary run no longer reproduces"),
                         ({"plan": {**good["plan"], "deals": 7}}, "another plan (it differs in deals)"),
                         ({"study": "other"}, "not of books_strong_accuracy")):
        path.write_text(json.dumps({**good, **change}))
        st = D.stored(NAME, tmp_path)
        assert st.status == "refused" and says in st.why and st.summary is None, (change, st.why)
    changed_source = {**good, "sources": {**good["sources"], "ludolab.sim.books_kernels": "0" * 64}}
    path.write_text(json.dumps(changed_source))
    st = D.stored(NAME, tmp_path)
    assert st.status == "ok" and st.changed_sources == ("ludolab.sim.books_kernels",), \
        "a source edit that keeps the canary's numbers keeps the results, and is named"
    path.write_text("{not json")
    st = D.stored(NAME, tmp_path)
    assert st.status == "refused" and "cannot be read" in st.why and "\n" not in st.why
    no_made = {k: v for k, v in good.items() if k != "made"}
    no_table = {**good, "tables": {k: v for k, v in good["tables"].items() if k != "paired"}}
    no_column = {**good, "tables": {**good["tables"], "overall": [{k: v for k, v in r.items() if k != "exact"}
                                                                  for r in good["tables"]["overall"]]}}
    for summ, says in ((no_made, "lacks made"), (no_table, "table paired is missing"),
                       ({**good, "tables": {**good["tables"], "overall": "x"}}, "table overall is missing"),
                       (no_column, "lacks the column exact")):
        path.write_text(json.dumps(summ))
        st = D.stored(NAME, tmp_path)
        assert st.status == "refused" and says in st.why and st.summary is None, (says, st.why)


def test_the_report_shows_a_stored_run_as_stored_with_its_numbers(tiny, tmp_path):
    """The Shut The Books deep section says the results are stored and when they were made, quotes the
    numbers of its table, and writes the tables with the run's provenance; a refused run is named as such."""
    from types import SimpleNamespace

    from ludolab.analysis import books as AB
    from ludolab.analysis.report import ReportContext

    summ = D.run_study(tiny, tmp_path / "deep")
    ctx = ReportContext(tmp_path / "out", True, 1, deep_dir=str(tmp_path / "deep"))
    s = SimpleNamespace(tables={})
    AB._study_deep(ctx, s)
    text = "\n".join(AB._body_deep(s))
    assert "These are stored results" in text and summ["made"] in text
    o = summ["tables"]["overall"]
    assert f"{100 * o[0]['exact']:.1f}%" in text and f"{100 * o[-1]['exact']:.1f}%" in text
    meta = json.loads((tmp_path / "out" / "tables" / "books_deep_accuracy.meta.json").read_text())
    assert meta["stored_deep_run"]["canary"] == summ["canary"] and meta["stored_deep_run"]["plan"] == tiny.plan()
    for name in ("paired", "by_seat", "by_predictions"):
        assert (tmp_path / "out" / "tables" / f"books_deep_{name}.csv").exists()
    bad = json.loads((tmp_path / "deep" / f"{NAME}.json").read_text())
    (tmp_path / "deep" / f"{NAME}.json").write_text(json.dumps({**bad, "canary": "1" * 64}))
    s = SimpleNamespace(tables={})
    AB._study_deep(ctx, s)
    assert "is not shown: its canary run no longer reproduces" in "\n".join(AB._body_deep(s))


def test_deep_words_follow_the_paired_cis():
    """The doubling's verdict follows its paired CI against the stated tolerance of 0.1 points per hand."""
    import pandas as pd

    from ludolab.analysis import books as AB

    plan = D.STUDIES[NAME].plan()
    overall = pd.DataFrame([{"forecast": "a", "play": "a", "exact": 0.4, "exact_ci_low": 0.38, "exact_ci_high": 0.42,
                             "mean_score": 2.0}, {"forecast": "b", "play": "b", "exact": 0.41, "mean_score": 2.02},
                            {"forecast": "heuristic", "play": "heuristic", "exact": 0.3, "mean_score": 0.5}])
    for (d, lo, hi), says in (((0.02, -0.05, 0.08), "stopped improving at the smaller budget"),
                              ((0.3, 0.2, 0.4), "still gains"),
                              ((0.05, -0.1, 0.2), "not settled"),
                              ((-0.3, -0.4, -0.2), "loses points")):
        paired = pd.DataFrame([{"diff_vs_first_config": 0.0, "diff_vs_first_config_ci_low": None,
                                "diff_vs_first_config_ci_high": None},
                               {"diff_vs_first_config": d, "diff_vs_first_config_ci_low": lo,
                                "diff_vs_first_config_ci_high": hi},
                               {"diff_vs_first_config": -1.5, "diff_vs_first_config_ci_low": -1.6,
                                "diff_vs_first_config_ci_high": -1.4}])
        first, second = AB.deep_text(overall, paired, plan)
        assert says in second, (d, lo, hi, second)
        assert "+1.50 points per player-hand" in first and "clearly more" in first and "+10.0 points" in first


def test_the_run_kept_with_ludolab_is_current():
    """The deep run kept with ludolab (``analysis/stored``) is the study's plan and its canary reproduces:
    a fresh clone's report shows it.  When this fails, the kernels or the streams changed: make it again with
    ``ludolab report --deep DIR`` and copy ``DIR/<study>.json`` into ``analysis/stored/``."""
    for name, deals in ((NAME, 1000), (BEV, 320), (SHELF, 160), (VAR, 160), ("shelf_strong_decks", 48)):
        st = D.stored(name)
        assert st.status == "ok", (name, st.why)
        assert st.summary["plan"]["deals"] >= deals


def test_report_deep_refuses_a_file_or_a_foreign_report_in_one_line_before_any_run(tmp_path, capsys, monkeypatch):
    """``--deep FILE`` is one ``Error:`` line; a report folder holding a report.md ludolab did not write is
    refused before the deep runs start (not after hours of them)."""
    from ludolab.analysis.cli import main

    f = tmp_path / "afile"
    f.write_text("x")
    out = tmp_path / "r"
    out.mkdir()
    (out / "report.md").write_text("mine")
    monkeypatch.setattr(D, "run_all", lambda *a, **k: pytest.fail("the deep runs started"))
    for args in (["report", "--quick", "--out", str(tmp_path / "r2"), "--deep", str(f)],
                 ["report", "--quick", "--out", str(tmp_path / "r2"), "--deep", " "],
                 ["report", "--quick", "--out", str(out), "--deep", str(tmp_path / "d")]):
        with pytest.raises(SystemExit) as exc:
            main(args)
        err = capsys.readouterr().err
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert exc.value.code == 2 and len(lines) == 1 and lines[0].startswith("Error:"), err
    assert (out / "report.md").read_text() == "mine"



def _tiny_bev_plan() -> dict:
    plan = D._beverbende_plan()
    plan.update(deals=6, chunks=3, policies=[plan["baseline"], "threshold",
                                             "search:budget=4,rollout=threshold,objective=wins",
                                             "search:budget=8,rollout=threshold,objective=wins"])
    return plan


@pytest.fixture
def tiny_bev(monkeypatch):
    return _with_plan(monkeypatch, BEV, _tiny_bev_plan)


def _same(a, b) -> bool:
    if a is None or b is None or (isinstance(b, float) and b != b):
        return (a is None or a != a) and (b is None or b != b)
    return a == pytest.approx(b, rel=1e-9, abs=1e-12) if isinstance(b, float) else a == b


def test_a_ladder_deep_run_in_chunks_is_one_uninterrupted_ladder(tiny_bev, tmp_path):
    """The Beverbende deep run plays its ladder chunk by chunk in worker processes, keeping each chunk; a
    sitting that lost some chunks is completed by the next, and the rows are those of one
    :func:`ludolab.sim.ladder.ladder` call on the same deals, seed and policies."""
    from ludolab.sim import ladder as L

    first = D.run_study(tiny_bev, tmp_path)
    chunks = sorted((tmp_path / BEV).glob("run-*/chunk-*.parquet"))
    assert len(chunks) == 4 * 3, "every policy's chunks are kept"
    for c in chunks[1::3]:
        c.unlink()
    again = D.run_study(tiny_bev, tmp_path)
    assert again["tables"] == first["tables"]
    plan = tiny_bev.plan()
    _, table, base, cons = D._ladder_setup(plan, plan["policies"])
    straight = L.ladder(table, cons, base, deals=plan["deals"], seed=plan["seed"])
    for got, want in zip(first["tables"]["ladder"], straight):
        bad = [k for k in want if not _same(got[k], want[k])]
        assert not bad, (want["policy"], bad)
    assert [r["policy"] for r in first["tables"]["paired"]] == plan["policies"][1:]
    assert {r["seat"] for r in first["tables"]["by_seat"]} == {1, 2}


def test_the_beverbende_report_shows_its_deep_run_as_stored_and_quotes_its_table(tiny_bev, tmp_path):
    """The Beverbende section's deep run: said to be stored, when it was made, the win share and the doubling
    read from its tables, the tables written with the run's provenance; refused in words once its canary
    no longer reproduces."""
    from types import SimpleNamespace

    from ludolab.analysis import beverbende as AB
    from ludolab.analysis.report import ReportContext

    summ = D.run_study(tiny_bev, tmp_path / "deep")
    ctx = ReportContext(tmp_path / "out", True, 1, deep_dir=str(tmp_path / "deep"))
    s = SimpleNamespace()
    text = "\n".join(AB._study_deep(ctx, s))
    assert "These are stored results" in text and summ["made"] in text
    top = [r for r in summ["tables"]["ladder"] if r["policy"] == tiny_bev.plan()["policies"][-1]][0]
    assert f"wins {top['win_share']:.1%} of 2-player games" in text
    meta = json.loads((tmp_path / "out" / "tables" / "beverbende_deep_ladder.meta.json").read_text())
    assert meta["stored_deep_run"]["plan"] == tiny_bev.plan()
    for name in ("paired", "by_seat"):
        assert (tmp_path / "out" / "tables" / f"beverbende_deep_{name}.csv").exists()
    f = AB._strong_play_finding(**s.deep)
    assert f.quotes["win_share"].value == pytest.approx(top["win_share"])
    path = tmp_path / "deep" / f"{BEV}.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "canary": "1" * 64}))
    s = SimpleNamespace()
    assert "is not shown: its canary run no longer reproduces" in "\n".join(AB._study_deep(ctx, s))
    assert s.deep is None


def test_beverbende_deep_words_follow_the_cis():
    """The win share is placed against an even share and the 55% goal by its CI, and the doubling's verdict
    by its paired CI."""
    import pandas as pd

    from ludolab.analysis import beverbende as AB

    plan = D.STUDIES[BEV].plan()
    a, b = plan["policies"][-2], plan["policies"][-1]
    for (q, lo, hi), says in (((0.6, 0.56, 0.64), ["more than an even share", "55% of the games won against the "
                                                                            "tuned heuristic, is reached"]),
                              ((0.55, 0.51, 0.59), ["more than an even share", "neither shown nor ruled out"]),
                              ((0.52, 0.48, 0.56), ["not told apart from an even share"]),
                              ((0.4, 0.35, 0.45), ["less than an even share", "10.0 points of percentage below"])):
        ladder = pd.DataFrame([{"policy": a, "win_share": 0.5, "win_ci_low": 0.4, "win_ci_high": 0.6, "diff": 1.0,
                                "ci_low": 0.5, "ci_high": 1.5},
                               {"policy": b, "win_share": q, "win_ci_low": lo, "win_ci_high": hi, "diff": 2.0,
                                "ci_low": 1.0, "ci_high": 3.0}])
        paired = pd.DataFrame([{"policy": b, "versus": a, "diff": 1.0, "ci_low": 0.1, "ci_high": 1.9,
                                "win_share_diff": 0.03, "win_share_diff_ci_low": -0.04,
                                "win_share_diff_ci_high": 0.1}])
        first, second = AB.deep_text(ladder, paired, plan)
        assert all(x in first for x in says), (q, first)
        assert "2.00 more penalty points" in first and "worse, the CI above 0" in first and "not settled" in second
    for (w, lo, hi), says in (((0.045, -0.003, 0.092), "not settled"), ((0.06, 0.01, 0.11), "not stopped improving"),
                              ((0.0, -0.015, 0.015), "stopped improving, by that tolerance"),
                              ((-0.06, -0.1, -0.01), "wins fewer games")):
        paired = pd.DataFrame([{"policy": b, "versus": a, "diff": 1.0, "ci_low": 0.1, "ci_high": 1.9,
                                "win_share_diff": w, "win_share_diff_ci_low": lo, "win_share_diff_ci_high": hi}])
        second = AB.deep_text(ladder, paired, plan)[1]
        assert says in second, ((w, lo, hi), second)


def test_a_sitting_under_other_kernels_is_refused_not_mixed(tiny_bev, tmp_path):
    """A run folder records its first sitting's canary; a later sitting whose canary differs (the kernels or
    the streams changed in between) is refused in one line, its chunks left as they are."""
    from ludolab.stdlib.errors import LudolabError

    D.run_study(tiny_bev, tmp_path)
    record = tmp_path / BEV / D.CANARY_FILE
    record.write_text(json.dumps({"canary": "0" * 64}))
    before = sorted(p.name for p in (tmp_path / BEV).rglob("*"))
    with pytest.raises(LudolabError, match="begun under other kernels") as exc:
        D.run_study(tiny_bev, tmp_path)
    assert "\n" not in str(exc.value)
    record.write_text("[not json")
    with pytest.raises(LudolabError, match="unreadable canary.json"):
        D.run_study(tiny_bev, tmp_path)
    assert sorted(p.name for p in (tmp_path / BEV).rglob("*")) == before


def test_a_ctrl_c_swallowed_while_compiling_is_raised_afterwards():
    """Numba's compiler ignores an exception raised in one of its callbacks, so a Ctrl-C landing there would be
    lost and the deep run go on; the guard around the canary (where the kernels compile) raises it once the
    block is over."""
    import os
    import signal
    import time

    with pytest.raises(KeyboardInterrupt):
        with D._ctrl_c_kept():
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)
            except KeyboardInterrupt:
                pass  # swallowed, as a callback of the compiler would
    with D._ctrl_c_kept():
        pass  # no Ctrl-C: nothing raised


def _tiny_shelf_plan() -> dict:
    plan = D._shelf_plan()
    plan.update(deals=4, chunks=2, policies=["potential", "random", "search:budget=2,rollout=potential",
                                             "search:budget=4,rollout=potential"],
                self_play=["potential", "random", "search:budget=2,rollout=potential",
                           "search:budget=4,rollout=potential"])
    return plan


@pytest.fixture
def tiny_shelf(monkeypatch):
    return _with_plan(monkeypatch, SHELF, _tiny_shelf_plan)


def test_a_self_play_deep_run_resumes_to_the_games_played_straight(tiny_shelf, tmp_path, monkeypatch):
    """The Shelve the Book deep run keeps a self-play chunk per policy as it completes; a sitting that lost
    some is completed by the next, and its tables are those of the same games played in one go: every seat
    the same policy on the ladder's deals, the first seat's edge, the wins shared on a tie."""
    import numpy as np

    from ludolab.sim import ladder as L

    monkeypatch.setattr(D, "_spawn_can_start", lambda: False)  # in this process: the workers are tested once
    first = D.run_study(tiny_shelf, tmp_path)
    chunks = sorted((tmp_path / SHELF).rglob("chunk-*.parquet"))
    assert len(chunks) == (4 + 4) * 2, "every ladder and self-play chunk is kept"
    for c in chunks[::3]:
        c.unlink()
    again = D.run_study(tiny_shelf, tmp_path)
    assert again["tables"] == first["tables"]
    plan = tiny_shelf.plan()
    _, table, _, cons = D._ladder_setup(plan, plan["self_play"])
    keys = L.deal_keys(plan["seed"], plan["deals"])
    games = [np.array([table.play([c] * 4, k) for k in keys]) for c in cons]
    want = D.self_play_tables(plan["self_play"], games, lower=False)
    for name in ("self_play", "self_play_paired", "self_play_by_seat"):
        for got, row in zip(first["tables"][name], D._records(want[name])):
            bad = [k for k in row if not _same(got[k], row[k])]
            assert not bad, (name, bad)
    top = games[-1]
    row = first["tables"]["self_play"][-1]
    assert row["mean"] == pytest.approx(top.mean())
    assert row["first_edge"] == pytest.approx((top[:, 0] - top[:, 1:].mean(axis=1)).mean())
    assert first["tables"]["self_play"][0]["edge_vs_first"] == 0.0
    d = first["tables"]["self_play_paired"][-1]
    assert d["diff"] == pytest.approx((games[-1] - games[-2]).mean())


def test_a_policy_appended_to_either_list_of_a_plan_keeps_every_finished_chunk(tiny_shelf, monkeypatch, tmp_path):
    """A run folder keeps its runs by position, so the ladder's and the self-play's are kept apart: a policy
    appended to either list of the plan is played alone, and every chunk already finished is used as it is."""
    monkeypatch.setattr(D, "_spawn_can_start", lambda: False)
    D.run_study(tiny_shelf, tmp_path)
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / SHELF).rglob("chunk-*.parquet")}
    plan = tiny_shelf.plan()
    more = {**plan, "self_play": plan["self_play"] + ["search:budget=1,rollout=potential"],
            "policies": plan["policies"] + ["greedy"]}
    longer = _with_plan(monkeypatch, SHELF, lambda: more)
    summ = D.run_study(longer, tmp_path)
    after = {p: p.stat().st_mtime_ns for p in (tmp_path / SHELF).rglob("chunk-*.parquet")}
    assert {p: after[p] for p in before} == before, "no finished chunk is played again"
    assert len(after) == len(before) + 2 * 2
    assert [r["policy"] for r in summ["tables"]["self_play"]] == more["self_play"]


def test_seat_wins_share_a_tie_for_the_best_return():
    """A game's win goes to the seat with the best return; seats tied for it share it equally."""
    import numpy as np

    ret = np.array([[10.0, 12.0, 12.0, 3.0], [5.0, 1.0, 2.0, 3.0]])
    assert D._seat_wins(ret, lower=False).tolist() == [[0, 0.5, 0.5, 0], [1, 0, 0, 0]]
    assert D._seat_wins(ret, lower=True).tolist() == [[0, 0, 0, 1], [0, 1, 0, 0]]


def test_the_shelf_report_shows_its_deep_run_as_stored_and_quotes_its_tables(tiny_shelf, tmp_path):
    """The Shelve the Book section's deep run: said to be stored and when it was made, the self-play score and
    the one-seat score read from its tables, which are written with the run's provenance; its finding quotes
    them; refused in words once the canary no longer reproduces."""
    from types import SimpleNamespace

    from ludolab.analysis import shelf as AS
    from ludolab.analysis.report import ReportContext

    summ = D.run_study(tiny_shelf, tmp_path / "deep")
    ctx = ReportContext(tmp_path / "out", True, 1, deep_dir=str(tmp_path / "deep"))
    s = SimpleNamespace(tables={})
    text = "\n".join(AS._study_deep(ctx, s))
    assert "These are stored results" in text and summ["made"] in text
    top = summ["tables"]["self_play"][-1]
    one = [r for r in summ["tables"]["ladder"] if r["policy"] == tiny_shelf.plan()["policies"][-1]][0]
    assert f"a player scores {top['mean']:.2f} (95% CI" in text
    assert f"players scores {one['mean']:.2f} points" in text
    meta = json.loads((tmp_path / "out" / "tables" / "shelf_deep_self_play.meta.json").read_text())
    assert meta["stored_deep_run"]["plan"] == tiny_shelf.plan()
    for name in ("ladder", "paired", "by_seat", "self_play_paired", "self_play_by_seat"):
        assert (tmp_path / "out" / "tables" / f"shelf_deep_{name}.csv").exists()
    f = AS._strong_play_finding(**s.tables["deep"])
    assert f.quotes["self_play"].value == pytest.approx(top["mean"]) and f"{top['mean']:.1f} points" in f.title
    _refused_once_its_canary_differs(ctx, tmp_path / "deep" / f"{SHELF}.json", AS._study_deep, "deep")


def _refused_once_its_canary_differs(ctx, path, section, key: str) -> None:
    """Spoil the canary of the stored summary at ``path``: the report ``section`` then says why it does not show
    the run, and leaves ``key`` of its tables None."""
    from types import SimpleNamespace

    path.write_text(json.dumps({**json.loads(path.read_text()), "canary": "1" * 64}))
    s = SimpleNamespace(tables={})
    assert "is not shown: its canary run no longer reproduces" in "\n".join(section(ctx, s))
    assert s.tables[key] is None


def test_shelf_deep_words_follow_the_cis():
    """The self-play score is placed against the 30-point goal by its CI, each doubling's verdict follows its
    paired CI against the 0.2-point tolerance, and the first player's edge is compared paired."""
    import pandas as pd

    from ludolab.analysis import shelf as AS

    plan = D.STUDIES[SHELF].plan()
    a, b = plan["self_play"][-2], plan["self_play"][-1]

    def sp(m, lo, hi, dlo=-0.5, dhi=0.5):
        row = {"first_edge": 0.3, "first_edge_ci_low": -0.1, "first_edge_ci_high": 0.7, "first_win_share": 0.26,
               "first_win_ci_low": 0.2, "first_win_ci_high": 0.32, "edge_vs_first": 0.0,
               "edge_vs_first_ci_low": 0.0, "edge_vs_first_ci_high": 0.0}
        return pd.DataFrame([{**row, "policy": p, "mean": 21.0, "ci_low": 20.5, "ci_high": 21.5}
                             for p in plan["self_play"][:-1]]
                            + [{**row, "policy": b, "mean": m, "ci_low": lo, "ci_high": hi, "edge_vs_first": 0.5,
                                "edge_vs_first_ci_low": dlo, "edge_vs_first_ci_high": dhi}])

    def pairs(d, lo, hi, pol=b, versus=a):
        return pd.DataFrame([{"policy": pol, "versus": versus, "diff": d, "ci_low": lo, "ci_high": hi}])
    ladder = pd.DataFrame([{"policy": p, "mean": 30.0, "diff": 8.0, "ci_low": 7.5, "ci_high": 8.5, "win_share": 0.8,
                            "win_ci_low": 0.75, "win_ci_high": 0.85} for p in plan["policies"]])
    lp = pairs(0.1, -0.1, 0.15, plan["policies"][-1], plan["policies"][-2])
    for (m, lo, hi), says in (((31.0, 30.5, 31.5), "is reached (the CI lies above it)"),
                              ((30.1, 29.6, 30.6), "neither shown nor ruled out"),
                              ((28.0, 27.5, 28.5), "not reached: the CI ends 1.5 points below it")):
        first = AS.deep_text(sp(m, lo, hi), pairs(0.0, -0.1, 0.1), ladder, lp, plan)[0]
        assert says in first, first
    for (d, lo, hi), says in (((0.05, -0.1, 0.15), "stopped improving, by that tolerance"),
                              ((0.8, 0.5, 1.1), "has not stopped improving"),
                              ((0.1, -0.3, 0.5), "not settled"),
                              ((-0.8, -1.1, -0.5), "scores less")):
        second = AS.deep_text(sp(30.0, 29.5, 30.5), pairs(d, lo, hi), ladder, lp, plan)[1]
        assert says in second, second
    third = AS.deep_text(sp(30.0, 29.5, 30.5), pairs(0, -0.1, 0.1), ladder, lp, plan)[2]
    assert "+8.00 (95% CI +7.50 to +8.50)" in third and "stopped improving, by that tolerance" in third
    for (dlo, dhi), says in (((0.1, 0.9), "is larger than"), ((-0.9, -0.1), "is smaller than"),
                             ((-0.5, 0.5), "is not told apart from")):
        fourth = AS.deep_text(sp(30.0, 29.5, 30.5, dlo, dhi), pairs(0, -0.1, 0.1), ladder, lp, plan)[3]
        assert says in fourth, fourth


def test_a_deep_run_without_a_terminal_says_how_far_it_is(tiny_shelf, tmp_path, capsys, monkeypatch):
    """With no terminal for a progress bar (a log file, a scheduler), a ladder deep run prints a line on
    standard error for each tenth of its chunks, and the last; asked to be quiet it prints none."""
    monkeypatch.setattr(D, "_spawn_can_start", lambda: False)
    D.run_study(tiny_shelf, tmp_path / "quiet", progress=False)
    assert "chunks done" not in capsys.readouterr().err
    D.run_study(tiny_shelf, tmp_path / "told", progress=None)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "chunks done" in ln]
    assert lines and lines[-1] == "deep run: 16 of 16 chunks done (each kept)", lines


BEV4 = "beverbende_strong_4p"


def _tiny_bev4_plan() -> dict:
    plan = D._beverbende_4p_plan()
    plan.update(deals=4, chunks=2, policies=[plan["baseline"], "threshold", "search:budget=4,rollout=threshold",
                                             "search:budget=8,rollout=threshold",
                                             "search:budget=8,rollout=threshold,objective=wins"],
                self_play=[plan["baseline"], "search:budget=4,rollout=threshold"])
    return plan


@pytest.fixture
def tiny_bev4(monkeypatch):
    return _with_plan(monkeypatch, BEV4, _tiny_bev4_plan)


def test_margins_are_each_seat_s_return_minus_the_mean_of_the_others():
    """A contender's (deals, P, P) returns (its seat, then every seat's return) give its margin in each seat."""
    import numpy as np

    g = np.zeros((1, 3, 3))
    g[0, 0] = [10, 4, 6]  # in seat 1: 10 - (4 + 6) / 2
    g[0, 1] = [1, 2, 9]  # in seat 2: 2 - (1 + 9) / 2
    g[0, 2] = [3, 3, 0]  # in seat 3: 0 - 3
    assert D._margins(g).tolist() == [[5.0, -3.0, -3.0]]


def test_the_four_player_beverbende_run_pairs_margins_and_the_report_quotes_them(tiny_bev4, tmp_path):
    """The four-player run's ladder rows carry the margin (its mean equals the mean return minus the other
    seats' mean, computed apart), the baseline's margin difference is 0, the paired table holds each doubling's
    margin change; the report section says the run is stored, quotes the margin difference and the first
    seat's edge from the tables, and writes every table with the run's provenance."""
    from types import SimpleNamespace

    from ludolab.analysis import beverbende as AB
    from ludolab.analysis.report import ReportContext

    summ = D.run_study(tiny_bev4, tmp_path / "deep")
    plan = tiny_bev4.plan()
    rows = {r["policy"]: r for r in summ["tables"]["ladder"]}
    for r in rows.values():
        assert r["margin"] == pytest.approx(r["mean"] - r["others_mean"], abs=1e-9)
    games = D._ladder_games(plan, False)["ladder"]  # the same games again, summed here seat by seat
    for policy, g in zip(plan["policies"], games):
        deals, P = g.shape[0], g.shape[1]
        others = [g[d, s, o] for d in range(deals) for s in range(P) for o in range(P) if o != s]
        own = [g[d, s, s] for d in range(deals) for s in range(P)]
        assert rows[policy]["others_mean"] == pytest.approx(sum(others) / len(others), abs=1e-9)
        assert rows[policy]["margin"] == pytest.approx(sum(own) / len(own) - sum(others) / len(others), abs=1e-9)
    b = rows[plan["baseline"]]
    assert b["margin_diff"] == 0 and b["margin_diff_ci_low"] == 0 and b["margin_diff_ci_high"] == 0
    for p in summ["tables"]["paired"]:
        want = rows[p["policy"]]["margin"] - rows[p["versus"]]["margin"]
        assert p["margin_diff"] == pytest.approx(want, abs=1e-9)
        assert p["margin_diff_ci_low"] <= p["margin_diff"] <= p["margin_diff_ci_high"]
    ctx = ReportContext(tmp_path / "out", True, 1, deep_dir=str(tmp_path / "deep"))
    s = SimpleNamespace()
    text = "\n".join(AB._study_deep_4p(ctx, s))
    assert "These are stored results" in text and summ["made"] in text
    top = rows[plan["policies"][-2]]
    assert f"a paired difference of {top['margin_diff']:+.2f} points a game" in text
    wins = rows[plan["policies"][-1]]
    assert f"Playing to win instead (8 playouts" in text and f"by {wins['margin_diff']:+.2f} points a game" in text
    edge = [r for r in summ["tables"]["self_play"] if r["policy"] == plan["self_play"][-1]][0]
    assert f"ends with {edge['first_edge']:+.2f} penalty points a game" in text
    for name in ("ladder", "paired", "by_seat", "self_play", "self_play_paired", "self_play_by_seat"):
        meta = json.loads((tmp_path / "out" / "tables" / f"beverbende_deep4_{name}.meta.json").read_text())
        assert meta["stored_deep_run"]["plan"] == plan
    f = AB._strong_play_4p_finding(**s.deep4)
    assert f.quotes["margin_diff"].value == pytest.approx(min(top["margin_diff"], wins["margin_diff"]))


def test_four_player_beverbende_deep_words_follow_the_cis():
    """The margin goal is reached, not reached (saying by how much) or open by the paired CI against 0, for the
    search playing for points and the one playing to win; the finding's title names the better of the two;
    the first seat is ahead, behind or not told apart by its edge's CI, and strong play changes it or not by
    the paired CI of the change."""
    import pandas as pd

    from ludolab.analysis import beverbende as AB

    plan = D.STUDIES[BEV4].plan()
    plan = {**plan, "policies": plan["policies"][:5]}  # one search playing to win
    half, points, wins = plan["policies"][-3:]
    assert "objective=wins" in wins and "objective" not in points
    base = {"policy": plan["baseline"], "margin": -1e-17, "margin_diff": 0.0, "margin_diff_ci_low": 0.0,
            "margin_diff_ci_high": 0.0, "diff": 0.0, "ci_low": 0.0, "ci_high": 0.0, "win_share": 0.5,
            "win_ci_low": 0.5, "win_ci_high": 0.5, "others_mean": 40.0}
    paired = pd.DataFrame([{"policy": p, "versus": v, "win_share_diff": 0.0, "win_share_diff_ci_low": -0.01,
                            "win_share_diff_ci_high": 0.01, "margin_diff": -0.1, "margin_diff_ci_low": -0.3,
                            "margin_diff_ci_high": 0.1} for p, v in ((points, half), (wins, points))])
    cases = (((-1.5, -2.5, -0.5), "is reached (the CI lies below 0)", "beats"),
             ((-0.2, -1.0, 0.6), "neither shown nor ruled out", "not told apart from it"),
             ((1.5, 0.7, 2.3), "worse by 1.50 points a game, and the CI ends 0.70 points above", "worse by 1.50"))
    for (g, lo, hi), says, titled in cases:
        row = {**base, "margin": g, "margin_diff": g, "margin_diff_ci_low": lo, "margin_diff_ci_high": hi,
               "win_share": 0.56, "win_ci_low": 0.52, "win_ci_high": 0.6}
        for mine, other in ((points, wins), (wins, points)):
            worse = {**base, "policy": other, "margin_diff": 3.0, "margin_diff_ci_low": 2.0, "margin_diff_ci_high": 4.0}
            ladder = pd.DataFrame([base, {**row, "policy": mine}, worse])
            text = AB.deep_text_4p(ladder, paired, plan)
            said = text[0] if mine == points else text[2]
            assert says in said and "more than half" in said, (g, mine, said)
            assert "+0.00 for the tuned heuristic" in text[0], "no -0.00"
            assert "stopped improving, by that tolerance" in text[1]
            title = AB._strong_play_4p_finding(ladder, paired, plan).title
            assert titled in title, title
            if titled == "beats":
                assert ("playing to win" in title) == (mine == wins), title
            else:
                assert "playing for points it is " + ("worse by 3.00" if mine == wins else titled) in title, title
    for (e, lo, hi, dlo, dhi), says in (((-2.0, -3.0, -1.0, -1.5, -0.5), ["ahead of the others", "changes the"]),
                                        ((0.5, -0.5, 1.5, -0.5, 0.6), ["not told apart from the others",
                                                                       "is not settled by these deals"]),
                                        ((2.0, 1.0, 3.0, 0.2, 1.0), ["behind the others", "changes the"])):
        sp = pd.DataFrame([{"policy": p, "first_edge": e, "first_edge_ci_low": lo, "first_edge_ci_high": hi,
                            "edge_vs_first": 0.5 * (dlo + dhi), "edge_vs_first_ci_low": dlo,
                            "edge_vs_first_ci_high": dhi, "first_win_share": 0.3, "first_win_ci_low": 0.2,
                            "first_win_ci_high": 0.4} for p in plan["self_play"]])
        last = AB.deep_text_4p(ladder, paired, plan, sp)[-1]
        assert all(x in last for x in says), (e, last)


def test_four_player_words_judge_a_doubling_of_the_search_that_plays_to_win():
    """With the search playing to win at two budgets, the words take the larger for the goal, pair the first
    against playing for points and judge its doubling by the paired CI of the share of pairings won."""
    import pandas as pd

    from ludolab.analysis import beverbende as AB

    plan = D.STUDIES[BEV4].plan()
    half, points, wins = plan["policies"][2:5]
    more = wins.replace("budget=1024", "budget=2048")
    plan = {**plan, "policies": plan["policies"][:5]}
    plan = {**plan, "policies": plan["policies"] + [more]}
    row = {"margin": 0.5, "margin_diff": 0.5, "margin_diff_ci_low": -0.2, "margin_diff_ci_high": 1.2, "diff": 1.0,
           "ci_low": 0.5, "ci_high": 1.5, "win_share": 0.5, "win_ci_low": 0.48, "win_ci_high": 0.52, "others_mean": 40}
    ladder = pd.DataFrame([{**row, "policy": p} for p in (plan["baseline"], points, wins)]
                          + [{**row, "policy": more, "margin_diff": -0.9, "margin_diff_ci_low": -1.5,
                              "margin_diff_ci_high": -0.3}])
    pair = {"win_share_diff": 0.04, "win_share_diff_ci_low": 0.01, "win_share_diff_ci_high": 0.07,
            "margin_diff": -0.4, "margin_diff_ci_low": -0.8, "margin_diff_ci_high": 0.0}
    paired = pd.DataFrame([{**pair, "policy": p, "versus": v} for p, v in ((points, half), (wins, points),
                                                                         (more, wins))])
    text = AB.deep_text_4p(ladder, paired, plan)[2]
    assert "Playing to win instead (2,048 playouts" in text and "by -0.90 points a game" in text
    assert "is reached (the CI lies below 0)" in text
    assert "against playing for points at the same budget" in text and "it wins more pairings, the CI above 0" in text
    assert "Doubling its playouts from 1,024 playouts per decision" in text and "not stopped improving" in text
    assert "beats the tuned threshold heuristic on margin, by 0.90" in AB._strong_play_4p_finding(ladder, paired,
                                                                                                  plan).title


VAR = "shelf_strong_variants"


def _tiny_rulesets(plan: dict, key: str, deals: int, chunks: int, pick) -> dict:
    """A many-rulesets plan made small: ``deals`` in ``chunks``, the rulesets ``pick`` of its list ``key``, a
    search of 4 playouts."""
    plan.update(deals=deals, chunks=chunks, self_play=["random", "potential", "search:budget=4,rollout=potential"])
    plan[key] = pick(plan[key])
    return plan


def _tiny_variants_plan() -> dict:
    return _tiny_rulesets(D._shelf_variants_plan(), "variants", 4, 2, lambda v: v[:3])


@pytest.fixture
def tiny_var(monkeypatch):
    return _with_plan(monkeypatch, VAR, _tiny_variants_plan)


def test_a_variants_deep_run_keeps_each_variant_apart_and_resumes_to_the_games_played_straight(tiny_var, tmp_path):
    """Each scoring variant's self-play chunks are kept in a folder of their own; a sitting that lost some is
    completed by the next; the skill table is the games played in one go under each variant's own rules
    (SHB-11): the means, the spreads over random play (paired per deal, then in standard deviations of one
    random player's score) and the search's gain over the heuristic."""
    import numpy as np

    from ludolab.analysis.ladder_cli import ladder_field
    from ludolab.sim import ladder as L

    first = D.run_study(tiny_var, tmp_path)
    plan = tiny_var.plan()
    for v in plan["variants"]:
        assert len(list((tmp_path / VAR / D._folder_name(v)).rglob("chunk-*.parquet"))) == 3 * 2
    for c in sorted((tmp_path / VAR).rglob("chunk-*.parquet"))[::4]:
        c.unlink()
    again = D.run_study(tiny_var, tmp_path)
    assert again["tables"] == first["tables"]
    keys = L.deal_keys(plan["seed"], plan["deals"])
    skill = {r["variant"]: r for r in first["tables"]["skill"]}
    assert list(skill) == plan["variants"]
    for v in plan["variants"]:
        _, case, table, _, cons = ladder_field("shelf", 4, "potential", plan["self_play"], v)
        assert case.label == v
        rnd, heur, strong = (np.array([table.play([c] * 4, k) for k in keys]) for c in cons)
        r = skill[v]
        assert r["mean_random"] == pytest.approx(rnd.mean()) and r["mean_strong"] == pytest.approx(strong.mean())
        sd = rnd[:, 0].std(ddof=1)
        assert r["random_sd"] == pytest.approx(sd)
        assert r["spread_sd_heuristic"] == pytest.approx((heur - rnd).mean() / sd)
        assert r["gain"] == pytest.approx((strong - heur).mean())
        assert r["spread_strong_ci_low"] <= r["spread_strong"] <= r["spread_strong_ci_high"]
    rows = [r for r in first["tables"]["self_play"] if r["variant"] == plan["variants"][0]]
    assert [r["policy"] for r in rows] == plan["self_play"]


def test_the_standard_variant_is_the_ladder_s_default_table():
    """The variants run's standard scoring plays the very games of the ladder's four-player default rules: the
    same deals give the same self-play returns."""
    import numpy as np

    plan = _tiny_variants_plan()
    std = D._variant_plans(plan)[0]
    assert std["variant"] == "standard scoring"
    base = {k: v for k, v in std.items() if k != "variant"}
    for policy in ("potential", "search:budget=4,rollout=potential"):
        assert np.array_equal(D.self_play_chunk(std, policy, 0, 2), D.self_play_chunk(base, policy, 0, 2))


def test_the_shelf_report_shows_the_variants_run_as_stored_and_quotes_its_table(tiny_var_here, tmp_path):
    """The section on the scoring variants under strong play says the results are stored and when they were
    made, quotes the spreads of its table, writes every table with the run's provenance, and its finding quotes
    the same numbers; refused in words once the canary no longer reproduces."""
    from types import SimpleNamespace

    from ludolab.analysis import shelf as AS
    from ludolab.analysis.report import ReportContext

    summ = D.run_study(tiny_var_here, tmp_path / "deep")
    ctx = ReportContext(tmp_path / "out", True, 1, deep_dir=str(tmp_path / "deep"))
    s = SimpleNamespace(tables={})
    text = "\n".join(AS._study_variants_strong(ctx, s))
    assert "These are stored results" in text and summ["made"] in text
    skill = sorted(summ["tables"]["skill"], key=lambda r: -r["spread_sd_strong"])
    top = skill[0]
    assert f"widest under **{top['variant'].removesuffix(' scoring')}** ({top['spread_sd_strong']:.2f}, 95% CI" in text
    for name in ("", "_self_play", "_self_play_paired", "_self_play_by_seat"):
        meta = json.loads((tmp_path / "out" / "tables" / f"shelf_deep_variants{name}.meta.json").read_text())
        assert meta["stored_deep_run"]["plan"] == tiny_var_here.plan()
    f = AS._strong_variants_finding(**s.tables["strong_variants"])
    assert f.quotes["top_strong"].value == pytest.approx(top["spread_sd_strong"])
    _refused_once_its_canary_differs(ctx, tmp_path / "deep" / f"{VAR}.json", AS._study_variants_strong,
                                     "strong_variants")


def test_variants_strong_words_follow_the_cis():
    """Which scoring rewards skill most and least is named under each kind of play and said to be kept or
    changed; each variant's change from the heuristic to the search is a widening, a narrowing or no measured
    change by its paired CI; the first player's edge is named only where its CI excludes 0."""
    import pandas as pd

    from ludolab.analysis import shelf as AS

    plan = D.STUDIES[VAR].plan()
    strong = plan["self_play"][2]

    def skill(h, st, gains):
        rows = []
        for v, a, b, (g, glo, ghi) in zip(("standard scoring", "flat scoring", "pairs scoring"), h, st, gains):
            rows.append({"variant": v, "mean_random": 8.0, "mean_heuristic": 20.0, "mean_strong": 20.0 + g,
                         "random_sd": 2.0, "spread_sd_heuristic": a, "spread_sd_heuristic_ci_low": a - 0.1,
                         "spread_sd_heuristic_ci_high": a + 0.1, "spread_sd_strong": b,
                         "spread_sd_strong_ci_low": b - 0.1, "spread_sd_strong_ci_high": b + 0.1, "gain": g,
                         "gain_ci_low": glo, "gain_ci_high": ghi})
        return pd.DataFrame(rows)

    def sp(edges):
        return pd.DataFrame([{"variant": v, "policy": strong, "first_edge": e, "first_edge_ci_low": lo,
                              "first_edge_ci_high": hi} for v, (e, lo, hi) in
                             zip(("standard scoring", "flat scoring", "pairs scoring"), edges)])
    flat = [(0.0, -0.5, 0.5)] * 3
    gains = [(2.0, 1.0, 3.0), (-1.0, -1.5, -0.5), (0.1, -0.4, 0.6)]
    words = AS.variants_strong_text(skill((5.0, 4.0, 3.0), (6.0, 5.0, 4.0), gains), sp(flat), plan)
    assert "the same scoring rewards skill most under both, and the same scoring rewards skill least" in words[0]
    assert "widest under **standard** (6.00, 95% CI 5.90 to 6.10)" in words[0]
    assert "**standard** +1.00 (95% CI +0.50 to +1.50) standard deviations, wider (+2.00 points a player" in words[1]
    assert "**flat** -0.50 (95% CI -0.75 to -0.25) standard deviations, narrower" in words[1]
    assert words[1].startswith("How the spread changes from the heuristic to the search (the search in every seat")
    up = AS.variants_strong_text(skill((5.0, 4.0, 3.0), (6.0, 5.0, 4.0), [(2.0, 1.0, 3.0)] * 3), sp(flat), plan)
    assert up[1].startswith("Strong play widens the spread under every scoring (the search")
    assert "**pairs** +0.05 (95% CI -0.20 to +0.30) standard deviations, not told apart" in words[1]
    assert "no scoring gives the first seat an edge told apart from 0" in words[2]
    words = AS.variants_strong_text(skill((5.0, 4.0, 3.0), (4.0, 5.0, 6.0), gains), sp(flat), plan)
    assert "strong play changes which scoring rewards skill most, and strong play changes which scoring " \
           "rewards skill least" in words[0]
    words = AS.variants_strong_text(skill((5.0, 4.0, 3.0), (6.0, 5.95, 4.0), gains),
                                    sp([(1.0, 0.2, 1.8), (0.0, -0.5, 0.5), (-0.9, -1.5, -0.3)]), plan)
    assert "not told apart from the runner-up, **flat** at 5.95: their CIs meet" in words[0]
    assert "**standard** rewards skill most under both, told apart from the runner-up under the heuristic only" \
        in words[0]
    tied = AS.variants_strong_text(skill((5.0, 5.0, 3.0), (4.0, 4.0, 6.0), gains), sp(flat), plan)
    assert "which scoring rewards skill most under both kinds of play is not settled by these deals" in tied[0]
    assert "told apart from 0 under **standard** (+1.00" in words[2] and "**pairs** (-0.90" in words[2]
    assert "not under the other 1" in words[2]
    f = AS._strong_variants_finding(skill((5.0, 4.0, 3.0), (4.0, 5.0, 6.0), gains), sp(flat), plan)
    assert f.title == "Under strong play skill counts most with pairs scoring, not with standard scoring as under " \
                      "the heuristic."
    f = AS._strong_variants_finding(skill((5.0, 4.0, 3.0), (6.0, 5.95, 4.0), gains), sp(flat), plan)
    assert f.title == "Under strong play standard and flat scoring are not told apart as the scoring where skill " \
                      "counts most."


DECKS = "shelf_strong_decks"


def _tiny_decks_plan() -> dict:
    return _tiny_rulesets(D._shelf_decks_plan(), "decks", 3, 1, lambda d: d[:2] + d[-1:])


@pytest.fixture
def tiny_var_here(monkeypatch, tiny_var):
    """The tiny variants plan played in this process (the workers are tested by the resume test)."""
    monkeypatch.setattr(D, "_spawn_can_start", lambda: False)
    return tiny_var


@pytest.fixture
def tiny_decks(monkeypatch):
    # played in this process: worker processes (tested with the other runs) would cost more than these games
    monkeypatch.setattr(D, "_spawn_can_start", lambda: False)
    return _with_plan(monkeypatch, DECKS, _tiny_decks_plan)


def test_a_decks_deep_run_plays_each_deck_and_the_assumed_one_is_the_default_table(tiny_decks, tmp_path):
    """Each deck of the deck study (SHB-1) is played under its own ruleset, its chunks in a folder of its own:
    the generated decks are the report's deck table's (seed 0, one parameter changed), the assumed deck's games
    are those of the ladder's four-player default rules on the same deals, and the skill table's rows are the
    games' means and paired differences."""
    import numpy as np

    from ludolab.sim import ladder as L
    from ludolab.stdlib.shelf import generate_deck

    summ = D.run_study(tiny_decks, tmp_path)
    plan = tiny_decks.plan()
    names = [d["name"] for d in plan["decks"]]
    assert [r["deck"] for r in summ["tables"]["skill"]] == names
    for name in names:
        assert len(list((tmp_path / DECKS / D._folder_name(name)).rglob("chunk-*.parquet"))) == 3
    subs = D._variant_plans(plan)
    assert D._deck_case(subs[2]).label == generate_deck(numbers=(1, 500), seed=0).label
    default = {k: v for k, v in subs[0].items() if k != "deck"}
    for policy in plan["self_play"]:
        assert np.array_equal(D.self_play_chunk(subs[0], policy, 0, 3), D.self_play_chunk(default, policy, 0, 3))
    keys = L.deal_keys(plan["seed"], plan["deals"])
    case, table, _, cons = D._ladder_setup(subs[1], plan["self_play"])
    assert case.label == generate_deck(correlation=0.0, seed=0).label
    rnd, heur, strong = (np.array([table.play([c] * 4, k) for k in keys]) for c in cons)
    r = summ["tables"]["skill"][1]
    assert r["spread_strong"] == pytest.approx((strong - rnd).mean())
    assert r["gain"] == pytest.approx((strong - heur).mean())


def test_the_shelf_report_shows_the_decks_run_as_stored_and_quotes_its_table(tiny_decks, tmp_path):
    """The section on the decks under strong play says the results are stored, quotes the ends of the range
    of skill's edge from its table, writes every table with the run's provenance, and its finding quotes the
    same numbers; refused in words once the canary no longer reproduces."""
    from types import SimpleNamespace

    from ludolab.analysis import shelf as AS
    from ludolab.analysis.report import ReportContext

    summ = D.run_study(tiny_decks, tmp_path / "deep")
    ctx = ReportContext(tmp_path / "out", True, 1, deep_dir=str(tmp_path / "deep"))
    s = SimpleNamespace(tables={})
    text = "\n".join(AS._study_decks_strong(ctx, s))
    assert "These are stored results" in text and summ["made"] in text
    rows = sorted(summ["tables"]["skill"], key=lambda r: r["spread_strong"])
    assert f"from {rows[0]['spread_strong']:.2f} (95% CI" in text and f"to {rows[-1]['spread_strong']:.2f} (95% CI" in text
    for name in ("", "_self_play", "_self_play_paired", "_self_play_by_seat"):
        meta = json.loads((tmp_path / "out" / "tables" / f"shelf_deep_decks{name}.meta.json").read_text())
        assert meta["stored_deep_run"]["plan"] == tiny_decks.plan()
    f = AS._strong_decks_finding(**s.tables["strong_decks"])
    assert f.quotes["edge_high"].value == pytest.approx(rows[-1]["spread_strong"])
    _refused_once_its_canary_differs(ctx, tmp_path / "deep" / f"{DECKS}.json", AS._study_decks_strong,
                                     "strong_decks")


def test_decks_strong_words_follow_the_cis():
    """The ends of the range of skill's edge are told apart only when their CIs do not meet; the search's gain
    over the heuristic on each deck is more, less or not told apart by its paired CI."""
    import pandas as pd

    from ludolab.analysis import shelf as AS

    plan = D.STUDIES[DECKS].plan()

    def skill(strong, gains):
        return pd.DataFrame([{"deck": d, "mean_heuristic": 20.0, "mean_strong": 20.0 + g, "spread_heuristic": 12.0 + i,
                              "spread_heuristic_ci_low": 11.0 + i, "spread_heuristic_ci_high": 13.0 + i,
                              "spread_strong": st, "spread_strong_ci_low": st - 0.5, "spread_strong_ci_high": st + 0.5,
                              "gain": g, "gain_ci_low": glo, "gain_ci_high": ghi}
                             for i, (d, st, (g, glo, ghi)) in enumerate(zip(("a", "b", "c"), strong, gains))])
    gains = [(8.0, 7.5, 8.5), (-0.5, -0.9, -0.1), (0.1, -0.3, 0.5)]
    first, second = AS.decks_strong_text(skill((18.0, 20.0, 19.0), gains), plan)
    assert "from 18.00 (95% CI 17.50 to 18.50) under **a** to 20.00 (95% CI 19.50 to 20.50) under **b**, the two " \
           "told apart" in first
    assert "from 12.00 (95% CI 11.00 to 13.00) under **a** to 14.00 (95% CI 13.00 to 15.00) under **c**, the two " \
           "not told apart" in first
    assert "**a** +8.00 (95% CI +7.50 to +8.50), more (20.00 to 28.00)" in second
    assert "**b** -0.50 (95% CI -0.90 to -0.10), less" in second
    assert "**c** +0.10 (95% CI -0.30 to +0.50), not told apart" in second
    f = AS._strong_decks_finding(skill((18.0, 20.0, 19.0), gains), plan)
    assert f.title == "Under strong play skill's edge over random play ranges from 18.0 to 20.0 points a player " \
                      "across 3 decks."


def test_the_kept_variants_run_s_standard_scoring_is_the_kept_four_player_run_s_self_play():
    """The scoring-variants run kept with ludolab plays its standard scoring on the deals of the four-player deep
    run (the same seed and deals): their `potential` and search rows agree to the last digit, two runs made
    apart."""
    var, four = D.stored(VAR), D.stored(SHELF)
    assert var.status == "ok" and four.status == "ok"
    for k in ("seed", "deals", "chunks", "players", "game"):
        assert var.summary["plan"][k] == four.summary["plan"][k], k
    mine = {r["policy"]: r for r in var.summary["tables"]["self_play"] if r["variant"] == "standard scoring"}
    theirs = {r["policy"]: r for r in four.summary["tables"]["self_play"]}
    shared = set(mine) & set(theirs)
    assert {"potential", "search:budget=256,rollout=potential"} <= shared
    for p in shared:
        for k in ("mean", "ci_low", "ci_high", "first_edge", "first_win_share"):
            assert mine[p][k] == pytest.approx(theirs[p][k], rel=1e-12, abs=1e-12), (p, k)
