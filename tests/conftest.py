"""Shared test setup: warm the numba kernels once per session.

The kernels are compiled (or loaded from numba's on-disk cache) the first
time they run; doing it here (:mod:`kernel_warmup`: a tiny three-tile box, and
two games of every registered game through its step interface and the compiled
whole-game loop) keeps that cost out of the timing of the first test that
happens to call them.  With several workers the cache is filled first, one
game per process side by side, so the workers do not all compile the same
kernels at the same time.
"""

from __future__ import annotations

import pytest
from hypothesis import settings


# Property tests are derandomized (the same examples on every run, no example
# database written into the work tree), so a failure always reproduces.
settings.register_profile("ludolab", derandomize=True, database=None, deadline=None)
settings.load_profile("ludolab")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups into the test ids
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


def pytest_sessionstart(session):
    """With several workers, before any starts: warm numba's cache one game per process, side by
    side (:mod:`kernel_warmup`), so the workers load the kernels rather than each compiling every
    one of them at once.  A part that fails is only reported: the tests then compile it and fail
    where it matters."""
    config = session.config
    workers = getattr(config.option, "numprocesses", None) or 0
    if (hasattr(config, "workerinput") or not isinstance(workers, int) or workers < 2
            or config.getoption("collectonly", False)):
        return
    import os
    import subprocess
    import sys
    import tempfile
    import time

    from kernel_warmup import AFTER, parts

    reporter = config.pluginmanager.get_plugin("terminalreporter")
    say = reporter.write_line if reporter is not None else print
    script = os.path.join(os.path.dirname(__file__), "kernel_warmup.py")
    slots = min(workers, getattr(config.option, "maxprocesses", None) or workers)
    todo, running, done = parts(), [], set()
    t0 = time.perf_counter()
    while todo or running:
        ready = [p for p in todo if AFTER.get(p) is None or AFTER[p] in done]
        while ready and len(running) < slots:  # a part waits for the part whose kernels it shares
            game, err = ready.pop(0), tempfile.TemporaryFile("w+")
            todo.remove(game)
            running.append((game, err, subprocess.Popen([sys.executable, script, game],
                                                        stdout=subprocess.DEVNULL, stderr=err)))
        time.sleep(0.2)
        for job in [j for j in running if j[2].poll() is not None]:
            running.remove(job)
            done.add(job[0])
            game, err, proc = job
            err.seek(0)
            lines = err.read().strip().splitlines()
            err.close()
            if proc.returncode:
                say(f"warming the {game} kernels failed: {lines[-1] if lines else proc.returncode}")
    say(f"kernels warmed in {time.perf_counter() - t0:.0f} s ({slots} processes side by side)")


@pytest.fixture(scope="session", autouse=True)
def warm_numba_kernels():
    """Every game's kernels compiled or loaded before the first test (:func:`kernel_warmup.warm`)."""
    from kernel_warmup import warm

    warm()
    yield


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
