"""The generic runner: a run is plain data, slicing and threads never change a result,
and a bad count is refused in the game's terms."""

from __future__ import annotations

import pickle

import numba
import numpy as np
import pytest

from ludolab.sim import box as B
from ludolab.sim.box_montecarlo import _sim_args
from ludolab.sim.runner import RunSpec, resolve_kernel, run
from ludolab.stdlib.box import BoxRules
from ludolab.stdlib.errors import LudolabError


def _spec(games=5000, seed=11, chunks=7, rules=None):
    rules = rules or BoxRules()
    pol = B.make_policy(rules, "random")
    return RunSpec("box", "ludolab.sim.box_kernels:_simulate", (_sim_args(rules), pol.move, pol.dice),
                   (rules.n_states,), "int64", games, seed, chunks)


def test_slicing_never_changes_a_result(monkeypatch):
    """Games sliced one per chunk per call, or all at once, give identical accumulators per chunk; the
    execution setting ``first_step`` starts the slicing where it says."""
    spec = _spec()
    whole = run(spec, first_step=10**9)
    sliced = run(spec, first_step=1, slice_seconds=1e-9)  # one game per chunk per call, throughout
    assert whole.shape == (7, spec.acc_shape[0])
    assert np.array_equal(whole, sliced)
    assert whole.sum() == 5000
    assert np.array_equal(whole.sum(axis=1), spec.plan().games)
    import ludolab.sim.runner as R

    calls = []
    real = R._Slicer.__init__

    def spy(self, kernel, args, slice_seconds, first_step, bar):
        calls.append(first_step)
        real(self, kernel, args, slice_seconds, first_step, bar)
    monkeypatch.setattr(R._Slicer, "__init__", spy)
    with R.execution(first_step=1):  # the setting deep runs use: the slicing starts at one game per chunk
        assert np.array_equal(run(spec), whole)
    assert calls == [1]


def test_same_seed_same_result_on_any_thread_count():
    """One thread or two: bit-identical accumulators (each game has its own stream)."""
    spec = _spec(games=20_000)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = run(spec)
    finally:
        numba.set_num_threads(old)
    assert np.array_equal(one, run(spec))


def test_a_spec_pickles_and_fingerprints():
    """A spec survives pickling with the same fingerprint; any change of rules, seed or size changes it."""
    spec = _spec()
    back = pickle.loads(pickle.dumps(spec))
    assert back.fingerprint() == spec.fingerprint()
    assert np.array_equal(run(back), run(spec))
    assert _spec(seed=12).fingerprint() != spec.fingerprint()
    assert _spec(games=5001).fingerprint() != spec.fingerprint()
    assert _spec(chunks=8).fingerprint() != spec.fingerprint()
    assert _spec(rules=BoxRules(one_die="never")).fingerprint() != spec.fingerprint()
    assert spec.provenance() == {"seed": 11, "games": 5000, "chunks": 7}


def test_progress_bar_gives_the_same_result(capsys):
    """With the progress bar drawn, the numbers are the same."""
    spec = _spec(games=3000)
    assert np.array_equal(run(spec, progress=True, first_step=1, slice_seconds=1e-9), run(spec))


@pytest.mark.parametrize("field,value,words", [
    ("games", 0, "number of games"), ("games", -5, "number of games"), ("seed", -1, "seed"),
    ("chunks", 0, "number of chunks"), ("games", 2.5, "number of games")])
def test_bad_counts_are_refused(field, value, words):
    """A negative or fractional count is a LudolabError naming the count and its range."""
    kw = {"games": 10, "seed": 0, "chunks": 4, field: value}
    with pytest.raises(LudolabError, match=words):
        run(_spec(**kw))


def test_resolve_kernel():
    assert resolve_kernel("ludolab.sim.box_kernels:_simulate") is not None
    with pytest.raises(ValueError):
        resolve_kernel("no-colon")


def test_ctrl_c_stops_a_huge_run_within_seconds():
    """A run of 10**12 games stops within a few seconds of Ctrl-C (each kernel call is a bounded slice)."""
    import signal
    import subprocess
    import sys
    import time

    code = ("from ludolab.analysis.cli import main; "
            "main(['box', 'simulate', '--games', '1000000000000', '--quiet'])")
    p = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(4)  # start-up, kernel load and the first slices
    assert p.poll() is None, "the run ended before it was interrupted"
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        rc = p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    waited = time.monotonic() - t0
    assert rc == 130 and "Aborted" in p.stderr.read()
    assert waited < 5, f"Ctrl-C took {waited:.1f} s to stop the run"


def test_dask_options_without_dask_and_resume_of_a_missing_folder_are_one_line(tmp_path):
    """Without the distributed package, --workers is refused in one line (exit 2); so is --resume
    of a run folder that does not exist (a mistyped name never silently starts afresh)."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['distributed'] = None\n"
            "from ludolab.analysis.cli import main\n"
            "main(['box', 'simulate', '--games', '1000', '--workers', '2', '--quiet'])")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stderr.strip().count("\n") == 0 and "ludolab[dask]" in p.stderr
    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    res = CliRunner().invoke(cli, ["box", "simulate", "--games", "1000", "--run-dir", str(tmp_path / "typo"),
                                   "--resume", "--quiet"])
    assert res.exit_code == 2 and "no run folder" in res.output
    assert not (tmp_path / "typo").exists()
