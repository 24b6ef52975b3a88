"""The conformance harness, the same for every registered game.

For each game in the registry: the numba kernel and its pure-Python twin play
identical games for the same seed; the same seed gives the same games on one
thread and on two; the game's invariants hold over random playouts; and a
short seeded playthrough matches the one checked in under ``tests/golden/``
(set ``LUDOLAB_WRITE_GOLDEN=1`` to write a missing one after a deliberate rule
change, and review the difference before committing it).
"""

from __future__ import annotations

import os
from pathlib import Path

import numba
import pytest

from ludolab.stdlib import registry

GOLDEN = Path(__file__).resolve().parent / "golden"
ROOT = Path(__file__).resolve().parents[1]
IDS = [g.id for g in registry.GAMES]


def _conf(game_id):
    return registry.get(game_id).load("sim").conformance()


@pytest.mark.parametrize("game_id", IDS)
def test_registry_entry_is_complete(game_id):
    """Every registered game has its rules text, its CLI group, a report section, a bench entry."""
    g = registry.get(game_id)
    assert (ROOT / g.rules_file).is_file(), f"{g.rules_file} is missing"
    assert g.load("cli").group.name == g.cli_name
    assert callable(g.entry("report_section")) and callable(g.entry("bench"))
    assert callable(g.load("sim").conformance)


@pytest.mark.parametrize("game_id", IDS)
@pytest.mark.parametrize("seed", [1, 20261129])
def test_kernel_and_reference_play_identical_games(game_id, seed):
    c = _conf(game_id)
    kernel = c.play(seed, 40, "kernel")
    reference = c.play(seed, 40, "reference")
    assert len(kernel) == 40
    for k, (a, b) in enumerate(zip(kernel, reference)):
        assert a == b, f"{game_id}: game {k} differs between the kernel and the reference"


@pytest.mark.parametrize("game_id", IDS)
def test_same_seed_same_games_on_any_thread_count(game_id):
    c = _conf(game_id)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = c.play(7, 30, "kernel")
    finally:
        numba.set_num_threads(old)
    assert one == c.play(7, 30, "kernel")
    assert one != c.play(8, 30, "kernel"), "another seed should give other games"


@pytest.mark.parametrize("game_id", IDS)
def test_invariants_hold_over_random_playouts(game_id):
    c = _conf(game_id)
    records = c.play(3, 300, "kernel")
    for rec in records:
        c.check(rec)


@pytest.mark.parametrize("game_id", IDS)
def test_check_catches_a_broken_record(game_id):
    """The invariant check is not vacuous: a record with its final scores changed fails."""
    c = _conf(game_id)
    rec = c.play(5, 1, "reference")[0]
    broken = _tamper(rec)
    with pytest.raises(AssertionError):
        c.check(broken)


def _tamper(rec):
    """A copy of a record with every number under a key naming a score or a total shifted by 1000."""
    if isinstance(rec, dict):
        return {k: (_shift(v) if ("score" in k or "total" in k) else _tamper(v)) for k, v in rec.items()}
    if isinstance(rec, list):
        return [_tamper(v) for v in rec]
    return rec


def _shift(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return v + 1000
    if isinstance(v, list):
        return [_shift(x) for x in v]
    if isinstance(v, dict):
        return {k: _shift(x) for k, x in v.items()}
    return v


@pytest.mark.parametrize("game_id", IDS)
def test_golden_playthrough(game_id):
    text = _conf(game_id).playthrough(1)
    path = GOLDEN / f"{game_id}.txt"
    if not path.exists() and os.environ.get("LUDOLAB_WRITE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"no golden playthrough {path.name}: write it with LUDOLAB_WRITE_GOLDEN=1 and review it"
    assert text == path.read_text(), f"{game_id}: the seeded playthrough changed; a rule changed?"
