"""Run folders, sequential stopping and provenance read-back, through the command line:
a run killed mid-way and resumed ends with exactly the uninterrupted result; a run folder
made with other parameters is refused in one line; --precision reaches its half-width
reproducibly; every saved table carries its provenance and ``ludolab show --rerun``
repeats the run and finds the same numbers."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from ludolab.analysis.cli import cli
from ludolab.sim.runner import RunSpec, execution, run
from ludolab.sim.runstore import differences

RUN = ["box", "simulate", "--policy", "optimal", "--chunks", "32", "--format", "json", "--quiet"]


def invoke(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _numbers(out: str) -> dict:
    rec = json.loads(out)
    return {k: v for k, v in rec.items() if k != "rules"}


def test_killed_run_resumes_to_the_uninterrupted_result(tmp_path):
    """SIGKILL a run with a run folder once a few chunks are kept; --resume finishes it with
    exactly the numbers of a run never interrupted."""
    games = "60000000"
    run_dir = tmp_path / "run"
    code = ("from ludolab.analysis.cli import main; "
            f"main({RUN + ['--games', games, '--run-dir', str(run_dir)]!r})")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    chunks = run_dir / "run-000"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and p.poll() is None:
            if chunks.exists() and len(list(chunks.glob("chunk-*.parquet"))) >= 2:
                break
            time.sleep(0.05)
        assert p.poll() is None, "the run ended before it was killed"
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    kept = len(list(chunks.glob("chunk-*.parquet")))
    assert 2 <= kept < 32, f"{kept} chunks kept at the kill"
    assert not list(chunks.glob(".chunk-*")) or True  # a temporary file may remain; it is never read

    again = invoke(*RUN, "--games", games, "--run-dir", str(run_dir))
    assert again.exit_code == 2 and "add --resume" in again.output

    resumed = invoke(*RUN, "--games", games, "--run-dir", str(run_dir), "--resume")
    assert resumed.exit_code == 0, resumed.output
    whole = invoke(*RUN, "--games", games)
    assert _numbers(resumed.stdout) == _numbers(whole.stdout)
    assert len(list(chunks.glob("chunk-*.parquet"))) == 32


def test_resume_loads_every_kept_chunk(tmp_path):
    spec_args = ["--games", "20000", "--run-dir", str(tmp_path / "r")]
    first = invoke(*RUN, *spec_args)
    with execution(run_dir=tmp_path / "r", resume=True) as sess:
        res = CliRunner().invoke(cli, [*RUN, *spec_args, "--resume"], catch_exceptions=False)
    assert res.exit_code == 0
    assert _numbers(first.stdout) == _numbers(res.stdout)
    man = json.loads((tmp_path / "r" / "run.json").read_text())
    (desc,) = man["runs"]
    assert (desc["game"], desc["games"], desc["seed"], desc["chunks"]) == ("box", 20000, 0, 32)


@pytest.mark.parametrize("change,words", [
    (["--seed", "7"], "seed 0 there, 7 here"),
    (["--games", "20001"], "games 20000 there, 20001 here"),
    (["--one-die", "never"], "rules or policies differ"),
    (["--policy", "random"], "rules or policies differ"),
])
def test_a_run_folder_made_with_other_parameters_is_refused(tmp_path, change, words):
    base = [*RUN, "--games", "20000", "--run-dir", str(tmp_path / "r")]
    assert invoke(*base).exit_code == 0
    i = base.index(change[0]) if change[0] in base else None  # an option is given once: replace its value
    again = base[:i] + base[i + 2:] if i is not None else base
    res = invoke(*again, *change, "--resume")
    assert res.exit_code == 2
    line = res.output.strip()
    assert line.startswith("Error: the run folder") and words in line and "\n" not in line


def test_differences_in_words():
    a = {"game": "box", "seed": 1, "chunks": 64, "version": "0.1.0"}
    b = {"game": "box", "seed": 2, "chunks": 32, "version": "0.2.0"}
    assert differences(a, b) == "seed 1 there, 2 here; chunks 64 there, 32 here; ludolab version 0.1.0 there, 0.2.0 here"
    assert differences(a, dict(a)) == ""


# ------------------------------------------------------------------ precision
def test_precision_reaches_its_half_width_reproducibly():
    args = ["box", "simulate", "--policy", "random", "--games", "2000", "--precision", "0.05", "--format", "json",
            "--quiet"]
    a, b = invoke(*args), invoke(*args)
    assert a.exit_code == 0, a.output
    rec = json.loads(a.stdout)
    assert rec == json.loads(b.stdout)
    assert rec["games"] > 2000
    half = (rec["mean_score_ci_high"] - rec["mean_score_ci_low"]) / 2
    assert half <= 0.05 + 1e-9
    assert "precision 0.05 reached with" in a.stderr


def test_precision_on_the_cluster_equals_local():
    from ludolab.sim import box as B
    from ludolab.sim.box_montecarlo import _sim_args
    from ludolab.stdlib.box import BoxRules

    pytest.importorskip("distributed")
    rules = BoxRules()
    pol = B.make_policy(rules, "greedy-high")
    spec = RunSpec("box", "ludolab.sim.box_kernels:_simulate", (_sim_args(rules), pol.move, pol.dice),
                   (rules.n_states,), "int64", 1000, 4, 8, metric="ludolab.sim.metrics:weighted_mean",
                   metric_args=(rules.scores,))
    with execution(precision=0.1) as s1:
        local = run(spec)
    with execution(precision=0.1, workers=2) as s2:
        dask = run(spec)
    assert np.array_equal(local, dask)
    assert s1.outcomes[0].games == s2.outcomes[0].games == spec.plan().n_games > 1000
    assert s1.outcomes[0].half_width <= 0.1 and spec.provenance()["precision_reached"]


@pytest.mark.parametrize("args", [
    ["beverbende", "simulate", "--games", "300", "--precision", "0.5"],
    ["books", "simulate", "--games", "100", "--precision", "0.1"],
    ["shelf", "simulate", "--games", "100", "--precision", "0.6"],
])
def test_every_game_main_simulate_takes_a_precision(args):
    """Each game's main simulate command has a main metric (and counts the games it used)."""
    res = invoke(*args, "--quiet")
    assert res.exit_code == 0, res.output
    assert "reached with" in res.stderr


def test_precision_without_a_main_metric_is_one_line():
    res = invoke("box", "compare", "--games", "1000", "--precision", "0.1", "--quiet")
    assert res.exit_code == 2
    assert res.output.strip().startswith("Error: --precision needs a main metric")


def test_a_precision_out_of_reach_is_refused_after_the_first_block():
    """A half-width that would need more games than a run may use is refused at once, naming a reachable one."""
    res = invoke("box", "simulate", "--tiles", "4", "--games", "2000", "--precision", "1e-9", "--quiet")
    assert res.exit_code == 2
    assert "would need about" in res.output and "ask for a half-width of at least" in res.output


def test_scale_options_on_every_monte_carlo_command():
    for args in (["box", "simulate"], ["box", "match"], ["books", "simulate"], ["beverbende", "simulate"],
                 ["shelf", "simulate"]):
        out = invoke(*args, "--help").output
        for opt in ("--scheduler", "--workers", "--run-dir", "--resume", "--precision"):
            assert opt in out, (args, opt)
    assert "--scheduler" not in invoke("box", "solve", "--help").output


# ------------------------------------------------------------------ provenance and show
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_saved_tables_carry_provenance_and_show_reruns_them(tmp_path, fmt):
    out = tmp_path / "out"
    res = invoke("box", "simulate", "--games", "5000", "--seed", "3", "--quiet", "--out", str(out),
                 "--table-format", fmt)
    assert res.exit_code == 0, res.output
    path = out / f"simulate_summary.{fmt}"
    if fmt == "csv":
        meta = json.loads((out / "simulate_summary.meta.json").read_text())
    else:
        meta = pd.read_parquet(path).attrs
    for key in ("ludolab", "numpy", "numba", "argv", "execution", "runs", "game", "rules", "policy", "games",
                "seed", "chunks", "created"):
        assert key in meta, key
    assert meta["execution"]["backend"] == "local"
    assert meta["runs"][0]["games"] == 5000 and meta["runs"][0]["seed"] == 3
    assert meta["argv"][:2] == ["box", "simulate"]

    shown = invoke("show", str(path))
    assert shown.exit_code == 0
    assert "provenance" in shown.output and "execution.backend" in shown.output and "ludolab box simulate" in shown.output
    again = invoke("show", str(path), "--rerun")
    assert again.exit_code == 0, again.output
    assert "match: the numbers match" in again.output


def test_show_rerun_says_when_numbers_differ(tmp_path):
    out = tmp_path / "out"
    invoke("box", "simulate", "--games", "3000", "--quiet", "--out", str(out))
    path = out / "simulate_summary.csv"
    df = pd.read_csv(path)
    df.loc[0, "mean_score"] += 1
    df.to_csv(path, index=False)
    res = invoke("show", str(path), "--rerun")
    assert res.exit_code == 1 and "DIFFER" in res.output and "mean_score" in res.output


def test_show_refuses_what_is_not_a_table(tmp_path):
    (tmp_path / "x.txt").write_text("hello")
    res = invoke("show", str(tmp_path / "x.txt"))
    assert res.exit_code == 2 and res.output.startswith("Error:")
    assert invoke("show", str(tmp_path / "none.csv")).exit_code == 2


def test_precision_with_a_run_folder_resumes_every_block(tmp_path):
    """A sequential run kept in a run folder: resumed, every block is loaded, nothing recomputed."""
    from ludolab.sim import box as B
    from ludolab.sim.box_montecarlo import _sim_args
    from ludolab.stdlib.box import BoxRules

    rules = BoxRules()
    pol = B.make_policy(rules, "random")
    spec = RunSpec("box", "ludolab.sim.box_kernels:_simulate", (_sim_args(rules), pol.move, pol.dice),
                   (rules.n_states,), "int64", 500, 2, 4, metric="ludolab.sim.metrics:weighted_mean",
                   metric_args=(rules.scores,))
    with execution(precision=0.2, run_dir=tmp_path / "r") as s1:
        first = run(spec)
    with execution(precision=0.2, run_dir=tmp_path / "r", resume=True) as s2:
        again = run(spec)
    assert np.array_equal(first, again) and first.shape[0] > 4
    assert s2.outcomes[0].loaded_chunks == first.shape[0] and s1.outcomes[0].loaded_chunks == 0


def test_cluster_resumed_and_local_runs_print_the_same_numbers(tmp_path):
    """The issue's "done": the same experiment on a LocalCluster, resumed from a run folder
    holding part of its chunks, and locally, prints the same numbers."""
    pytest.importorskip("distributed")
    args = ["beverbende", "simulate", "--games", "3000", "--chunks", "16", "--format", "json", "--quiet"]
    local = invoke(*args)
    cluster = invoke(*args, "--workers", "2")
    run_dir = tmp_path / "r"
    invoke(*args, "--run-dir", str(run_dir))
    for f in sorted((run_dir / "run-000").glob("chunk-*.parquet"))[::2]:
        f.unlink()  # as if the run had been stopped with half of its chunks kept
    resumed = invoke(*args, "--run-dir", str(run_dir), "--resume")
    assert local.exit_code == cluster.exit_code == resumed.exit_code == 0
    assert json.loads(local.stdout) == json.loads(cluster.stdout) == json.loads(resumed.stdout)


def test_a_spec_run_again_without_precision_forgets_the_sequential_plan():
    from ludolab.sim import box as B
    from ludolab.sim.box_montecarlo import _sim_args
    from ludolab.stdlib.box import BoxRules

    rules = BoxRules()
    pol = B.make_policy(rules, "random")
    spec = RunSpec("box", "ludolab.sim.box_kernels:_simulate", (_sim_args(rules), pol.move, pol.dice),
                   (rules.n_states,), "int64", 300, 1, 4).with_metric("ludolab.sim.metrics:weighted_mean",
                                                                      rules.scores)
    with execution(precision=0.3):
        long = run(spec)
    assert spec.plan().n_games == long.sum() > 300 and spec.provenance()["precision"] == 0.3
    short = run(spec)
    assert spec.plan().n_games == short.sum() == 300 and "precision" not in spec.provenance()
