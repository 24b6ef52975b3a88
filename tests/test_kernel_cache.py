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
