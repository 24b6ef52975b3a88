"""Shared test setup: warm the numba kernels once per session.

The kernels are compiled (or loaded from numba's on-disk cache) the first
time they run; doing it here (a tiny three-tile box, and two games of every
registered game through its step interface and the compiled whole-game loop)
keeps that cost out of the timing of the first test that happens to call them.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from ludolab.stdlib.box import BoxRules

# Property tests are derandomized (the same examples on every run, no example
# database written into the work tree), so a failure always reproduces.
settings.register_profile("ludolab", derandomize=True, database=None, deadline=None)
settings.load_profile("ludolab")


def pytest_collection_modifyitems(config, items):
    """With several workers (pytest-xdist, ``--dist loadgroup``): every test of the shared quick report on
    one worker (the report is built once), a test using a module-scoped fixture on its file's worker (the
    fixture is built once), and every other test wherever a worker is free."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        names = getattr(item, "fixturenames", ())
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs.values() if info is not None else ()
        if "quick_report" in names:
            item.add_marker(pytest.mark.xdist_group("quick_report"))
        elif any(d.scope in ("module", "class", "package") for fd in defs for d in fd):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


@pytest.fixture(scope="session", autouse=True)
def warm_numba_kernels():
    from ludolab.sim import box as B

    tiny = BoxRules(tiles="1-3", one_die="always-optional")
    sol = B.solve(tiny, "shut")
    B.evaluate(sol.policy())
    rnd = B.make_policy(tiny, "random")
    B.simulate(rnd, 20, seed=0, chunks=2)
    B.compare([sol.policy(), rnd], 20, seed=0, chunks=2)
    B.simulate_rounds([rnd, rnd], 10, seed=0, rounds=2, chunks=2)
    B.simulate_rounds([rnd, rnd], 10, seed=0, rounds=None, threshold=5, chunks=2)
    _warm_every_game()
    yield


def _warm_every_game():
    """Two games of each registered game's first ruleset through ``play_many`` (its step functions
    and named policies)."""
    import numpy as np

    from ludolab.sim import play
    from ludolab.stdlib import registry

    for g in registry.GAMES:
        step = g.entry("step_game")()
        case = step.cases[0]
        play.run(step.kernels, case.rules, np.array([1, 2], dtype=np.uint64), list(case.policies))


@pytest.fixture(scope="session")
def quick_report(tmp_path_factory):
    """``ludolab report --quick`` once per test session: (output folder, click result).

    Shared by every test that reads the report, so the report is built once.
    """
    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    out = tmp_path_factory.mktemp("report")
    result = CliRunner().invoke(cli, ["report", "--quick", "--quiet", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out, result
