"""Every game's step functions and the cached wrappers of the shared loops load from numba's
on-disk cache in a second process (numba cannot cache a function that takes functions as
arguments, so the generic loops are inlined into one cached wrapper per game)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ludolab.stdlib import registry

_SCRIPT = r"""
import json, sys
import numpy as np
from ludolab.stdlib import registry
from ludolab.sim import play, search, step
g = registry.get(sys.argv[1]).entry("step_game")()
case = g.cases[0]
k = g.kernels
keys = np.array([1, 2], dtype=np.uint64)
play.run(k, case.rules, keys, list(case.policies))
play.run_traced(k, case.rules, keys, list(case.policies), int(g.max_steps(case.rules)) + 1)
st = np.zeros(k.STATE_SIZE, dtype=np.int64)
k.new_game(case.rules, np.uint64(5), st)
seat = int(k.current_player(st))
cfg, params = search.config(k, seat, 1, case.n_players, g.lower_wins, 9, list(case.policies), g.max_steps(case.rules))
obs = np.zeros(k.OBS_SIZE, dtype=np.int64)
k.observe(case.rules, st, seat, obs)
k.search(case.rules, (cfg, params, obs, st.copy()), search.work_arrays(k, case.n_players))
fc = search.ismcts_settings(*(float(x) for x in g.return_bounds(case.rules)))
k.search_tree(case.rules, (cfg, params, obs, st.copy(), fc), search.ismcts_work(k, case.n_players, 1, g.max_steps(case.rules)))
names = ("play_many", "play_traced_many", "search", "search_tree")
print(json.dumps({n: sum(getattr(k, n).stats.cache_misses.values()) for n in names}))
"""


@pytest.mark.parametrize("game_id", [g.id for g in registry.GAMES])
def test_a_second_process_loads_the_kernels_from_the_cache(game_id, tmp_path):
    env = dict(os.environ)
    env.setdefault("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    runs = [subprocess.run([sys.executable, "-c", _SCRIPT, game_id], capture_output=True, text=True, env=env,
                           timeout=900) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr[-2000:]
    misses = json.loads(runs[1].stdout.strip().splitlines()[-1])
    assert all(v == 0 for v in misses.values()), f"compiled again instead of loaded from the cache: {misses}"


# Processes that compile the same cached kernels side by side.  Each child, once imported, waits
# until all are ready, then compiles every kernel of a generated module for its own argument type;
# numba's index load is slowed a little so that, without the cache lock, two processes read an index
# before either writes it (the race in numba issues #4807 and #10128).
_N_KERNELS = 16
_TYPES = ("int64", "float64", "int32")
_RACE_CHILD = r"""
import glob, os, sys, time
mode, which, folder = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if mode == "lock":
    import ludolab.sim.kernel_cache  # noqa: F401  (installs the cache lock)
import numpy as np
from numba.core import caching
_load = caching.IndexDataCacheFile._load_index
def _slow(self):
    out = _load(self)
    time.sleep(0.05)
    return out
caching.IndexDataCacheFile._load_index = _slow
sys.path.insert(0, folder)
import racekernels
kind = getattr(np, %r[which])
open(os.path.join(folder, "ready%%d" %% which), "w").close()
while len(glob.glob(os.path.join(folder, "ready*"))) < %d:
    time.sleep(0.001)
for k in range(%d):
    got = getattr(racekernels, "k%%d" %% k)(kind(3))
    assert got == 3 * 2 + k, (k, got)
""" % (_TYPES, len(_TYPES), _N_KERNELS)

_COUNT_CHILD = r"""
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import racekernels
entries, wrong = [], 0
for k in range(%d):
    f = getattr(racekernels, "k%%d" %% k)
    entries.append(len(f._cache._cache_file._load_index()))
    for kind in %r:
        wrong += int(getattr(racekernels, "k%%d" %% k)(getattr(np, kind)(3)) != 3 * 2 + k)
    wrong += sum(f.stats.cache_misses.values())
print(json.dumps({"entries": entries, "wrong": wrong}))
""" % (_N_KERNELS, _TYPES)


def _race(tmp_path, mode: str) -> dict:
    """Run one race of len(_TYPES) processes in a fresh cache; return the count child's answer."""
    folder = tmp_path / mode
    folder.mkdir()
    (folder / "racekernels.py").write_text("from numba import njit\n" + "".join(
        f"\n@njit(cache=True)\ndef k{k}(x):\n    return x * 2 + {k}\n" for k in range(_N_KERNELS)))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(folder / "numba"))
    procs = [subprocess.Popen([sys.executable, "-c", _RACE_CHILD, mode, str(i), str(folder)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(len(_TYPES))]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
    r = subprocess.run([sys.executable, "-c", _COUNT_CHILD, str(folder)], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_processes_compiling_the_same_kernels_keep_every_signature_in_the_cache(tmp_path):
    got = _race(tmp_path, "lock")
    assert got["entries"] == [len(_TYPES)] * _N_KERNELS, got
    assert got["wrong"] == 0, got


def test_without_the_lock_the_same_race_loses_signatures(tmp_path):
    """The race above is real: numba alone loses index entries (so the first test has power)."""
    got = _race(tmp_path, "nolock")
    assert min(got["entries"]) < len(_TYPES), got


def test_importing_a_kernel_module_installs_the_lock():
    code = "import ludolab.sim.rng, ludolab.sim.kernel_cache as k; print(k.installed())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "True", r.stderr[-2000:]


def test_every_module_that_defines_kernels_imports_the_lock():
    """A game's new kernels module takes turns on the cache too: every module of ``sim/`` that imports
    numba imports :mod:`ludolab.sim.kernel_cache` (whose import installs the lock)."""
    from pathlib import Path

    sim = Path(__file__).resolve().parents[1] / "sim"
    uses = [p for p in sorted(sim.glob("*.py")) if p.name != "kernel_cache.py"
            and any(ln.startswith(("from numba", "import numba")) for ln in p.read_text().splitlines())]
    assert uses, "no module of sim/ imports numba"
    missing = [p.name for p in uses if "from . import kernel_cache" not in p.read_text()]
    assert missing == [], f"modules defining kernels without the cache lock: {missing}"
