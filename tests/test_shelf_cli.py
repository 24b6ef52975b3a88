"""``ludolab shelf`` on tiny N: score (SHB-10, SHB-11, SHB-13, SHB-15), simulate, compare, variants, deck."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ludolab.analysis.cli import cli
from ludolab.stdlib.shelf import assumed_deck

from test_shelf_rules import WORKED_EXAMPLE


def run(*args):
    res = CliRunner().invoke(cli, ["shelf", *args])
    return res


def test_shb13_score_worked_example_json(tmp_path):
    """SHB-13: `ludolab shelf score --format json` gives total 28 and every combination."""
    f = tmp_path / "t.json"
    f.write_text(json.dumps(WORKED_EXAMPLE))
    res = run("score", str(f), "--format", "json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["total"] == 28
    assert len(out["combinations"]) == 12
    c = out["combinations"][0]
    assert set(c) == {"shelf", "column", "kind", "positions", "cards", "points"}
    assert c["column"] is None and c["shelf"] in (1, 2, 3)
    assert sum(x["points"] for x in out["combinations"] if x["shelf"] == 3) == 11
    assert isinstance(c["positions"], list) and isinstance(c["points"], int)
    table = run("score", str(f))
    assert table.exit_code == 0 and "28" in table.output


def test_score_deck_ids(tmp_path):
    ids = list(assumed_deck().ids)
    f = tmp_path / "t.json"
    f.write_text(json.dumps({"shelves": [ids[:5], ids[5:10], ids[10:15]]}))
    res = run("score", str(f), "--format", "json", "--variant", "columns")
    assert res.exit_code == 0 and "total" in json.loads(res.output)


@pytest.mark.parametrize("content, words", [
    ("{", "not valid JSON"),
    ('{"shelves": [[], [], []]}', "shelf 1 must hold exactly 5 cards"),
    ('"hello"', 'a tableau is a JSON object {"shelves"'),
    ('{"shelves": {"a": 1}}', "3 shelves of 5 cards (\"shelves\": a list of 3 lists), not an object"),
    ('{"shelves": [1, 2, 3]}', "shelf 1 must hold exactly 5 cards, not a number"),
    (json.dumps({"shelves": [["PHI-R-6"] * 5] * 3}), "duplicate card"),
    (json.dumps({"shelves": [["NOPE"] * 5] * 3}), "unknown card id 'NOPE'"),
])
def test_shb15_score_refuses_bad_tableaus_with_one_line(tmp_path, content, words):
    f = tmp_path / "t.json"
    f.write_text(content)
    res = run("score", str(f))
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:") and words in lines[0], res.output


def test_score_missing_file(tmp_path):
    res = run("score", str(tmp_path / "nope.json"))
    assert res.exit_code == 2 and res.output.startswith("Error:")


def test_simulate_json_types():
    res = run("simulate", "--games", "30", "--players", "2", "--policy", "greedy", "--policy", "random",
              "--format", "json", "--chunks", "2")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["games"] == 30 and isinstance(out["mean_score"], float)
    assert [r["policy"] for r in out["rows"]] == ["greedy", "random"]
    assert "assumed" in out["deck"]


def test_compare_and_outputs(tmp_path):
    res = run("compare", "--games", "20", "--players", "2", "--chunks", "2", "--out", str(tmp_path / "o"),
              "--format", "csv")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "o" / "shelf_compare.csv").exists()
    assert (tmp_path / "o" / "shelf_compare_scores.png").exists()
    assert "p_offer_better" in res.output


def test_variants_tiny():
    res = run("variants", "--games", "10", "--players", "2", "--chunks", "2", "--format", "json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["rows"]
    assert [r["variant"] for r in rows] == ["standard", "flat", "linear", "pairs", "columns"]


def test_deck_describe_generate_write(tmp_path):
    res = run("deck", "--format", "json")
    assert res.exit_code == 0 and json.loads(res.output)["cards"] == 90
    out = tmp_path / "g.csv"
    res = run("deck", "--generate", "--fields", "3", "--size", "40", "--write", str(out))
    assert res.exit_code == 0, res.output
    sim = run("simulate", "--games", "5", "--players", "2", "--deck", str(out), "--chunks", "1", "--format", "json")
    assert sim.exit_code == 0, sim.output
    assert json.loads(sim.output)["deck"] == "g.csv"
    before = out.read_bytes()
    again = run("deck", "--generate", "--size", "40", "--write", str(out))
    assert again.exit_code == 2 and "exists already" in again.output
    assert out.read_bytes() == before  # a deck file is never overwritten


@pytest.mark.parametrize("args, words", [
    (("simulate", "--players", "7", "--games", "5"), "players must be 2..5"),
    (("simulate", "--policy", "gready", "--games", "5"), "unknown policy 'gready'"),
    (("simulate", "--policy", "greedy", "--policy", "random", "--games", "5"), "one policy for every seat"),
    (("simulate", "--deck", "missing.csv", "--games", "5"), "cannot read deck file"),
    (("deck", "--generate", "--numbers", "x"), "cannot read --numbers"),
    (("deck", "--generate", "--size", "5"), "deck size must be"),
])
def test_bad_input_one_line_exit_2(args, words):
    res = run(*args)
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and words in lines[0], res.output


def test_bad_deck_csv_exit_2(tmp_path):
    f = tmp_path / "d.csv"
    f.write_text("id,field,colour,author,number\nA,f,c,Kant,1\nB,f,c,Hume,x\n")
    res = run("simulate", "--deck", str(f), "--games", "5")
    assert res.exit_code == 2 and "card 2 (B): number 'x' is not a whole number" in res.output


def test_deck_sensitivity_tiny(tmp_path):
    res = run("deck", "--sensitivity", "--games", "6", "--players", "2", "--chunks", "2", "--format", "json",
              "--out", str(tmp_path / "d"))
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["rows"]
    assert rows[0]["deck"] == "assumed-90" and "assumed" in rows[0]["deck_detail"]
    assert (tmp_path / "d" / "shelf_deck_sensitivity.png").exists()


def test_variants_refuses_unknown_policy():
    res = run("variants", "--policy", "gready", "--games", "5")
    assert res.exit_code == 2 and "unknown policy 'gready'" in res.output


def test_the_shipped_worked_example_scores_28():
    """SHB-13: the worked example shipped for the README scores 8 + 9 + 11 = 28."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "stdlib" / "data" / "shelf_worked_example.json"
    from test_shelf_rules import WORKED_EXAMPLE

    assert json.loads(path.read_text()) == WORKED_EXAMPLE
    res = run("score", str(path), "--format", "json")
    assert res.exit_code == 0 and json.loads(res.output)["total"] == 28


def test_score_prints_its_table_without_importing_pandas_or_matplotlib(tmp_path):
    """`shelf score` is an answer at the table: a fresh interpreter running it loads neither pandas,
    pyarrow nor matplotlib (their import costs more than the answer), and prints the same table."""
    import subprocess
    import sys

    f = tmp_path / "t.json"
    f.write_text(json.dumps(WORKED_EXAMPLE))
    code = ("import sys; from ludolab.analysis.cli import main\n"
            "try:\n    main(['shelf', 'score', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('pandas', 'pyarrow', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True, text=True, check=True).stdout
    lines = out.strip().splitlines()
    assert lines[-1] == "[]", lines[-1]
    assert lines[0] == "Tableau score" and "  total    28" in lines
    assert lines[4].split() == ["shelf", "column", "kind", "positions", "cards", "points"]
    assert lines[5] == "    1             colour     2,3,4           s1p2 s1p3 s1p4       1"
