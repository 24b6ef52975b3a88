"""Run folders hold checksummed chunks: a damaged chunk is detected, computed again and reported,
and the result is the uninterrupted one; a malformed run.json is one line; a fingerprint reads
the arguments' bytes in place."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from ludolab.sim import box as B
from ludolab.sim.box_montecarlo import _sim_args
from ludolab.sim.runner import RunSpec, execution, run
from ludolab.sim.runstore import chunk_checksum, hash_args
from ludolab.stdlib.box import BoxRules
from ludolab.stdlib.errors import LudolabError


def _spec(games=3000, seed=5, chunks=4):
    rules = BoxRules()
    pol = B.make_policy(rules, "random")
    return RunSpec("box", "ludolab.sim.box_kernels:_simulate", (_sim_args(rules), pol.move, pol.dice),
                   (rules.n_states,), "int64", games, seed, chunks)


def _kept(tmp_path, spec):
    with execution(run_dir=str(tmp_path / "r")):
        return run(spec)


def _resumed(tmp_path, spec):
    with execution(run_dir=str(tmp_path / "r"), resume=True) as sess:
        out = run(spec)
    return out, sess.outcomes[-1]


def test_every_single_byte_change_of_a_chunk_is_caught(tmp_path, capfd):
    """Flip one byte of a kept chunk, at every position of a sample spread over the whole file
    (values, metadata, footer): the resumed result is always the uninterrupted one, and each
    flip that touches the chunk is reported on stderr as a damaged chunk computed again."""
    spec = _spec()
    whole = run(spec)
    assert np.array_equal(_kept(tmp_path, spec), whole)
    chunk = tmp_path / "r" / "run-000" / "chunk-000001.parquet"
    good = chunk.read_bytes()
    positions = sorted(set(np.linspace(0, len(good) - 1, 60).astype(int).tolist()))
    capfd.readouterr()
    reported = 0
    for pos in positions:
        bad = bytearray(good)
        bad[pos] ^= 0xFF
        chunk.write_bytes(bytes(bad))
        out, outcome = _resumed(tmp_path, spec)
        assert np.array_equal(out, whole), f"a flip at byte {pos} changed the result"
        err = capfd.readouterr().err
        if outcome.damaged_chunks:
            reported += 1
            assert "damaged" in err and "chunk 1" in err and "computed again" in err
            assert len([ln for ln in err.splitlines() if ln.strip()]) == 1
            assert chunk.read_bytes() == good  # computed again and kept whole
        chunk.write_bytes(good)
    assert reported >= len(positions) * 0.8  # nearly every byte is read (not the leading magic number)


def test_a_chunk_with_a_consistent_but_wrong_value_fails_its_checksum(tmp_path, capfd):
    """Rewrite a chunk as valid Parquet with one count changed and the old checksum kept."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    spec = _spec()
    whole = _kept(tmp_path, spec)
    chunk = tmp_path / "r" / "run-000" / "chunk-000002.parquet"
    t = pq.read_table(chunk)
    v = t.column("value").to_numpy().copy()
    v[np.argmax(v)] += 157
    pq.write_table(pa.table({"value": v}).replace_schema_metadata(t.schema.metadata), chunk)
    out, outcome = _resumed(tmp_path, spec)
    assert np.array_equal(out, whole) and outcome.damaged_chunks == 1 and outcome.loaded_chunks == 3
    assert "chunk 2" in capfd.readouterr().err


def test_a_checksum_covers_identity_and_bytes():
    v = np.arange(6, dtype=np.int64).reshape(2, 3)
    c = chunk_checksum("f", 1, 2, 3, v)
    assert c != chunk_checksum("f", 1, 2, 4, v) and c != chunk_checksum("g", 1, 2, 3, v)
    w = v.copy()
    w[1, 2] += 1
    assert c != chunk_checksum("f", 1, 2, 3, w)


@pytest.mark.parametrize("text", ["[]", '{"runs": 5}', '{"runs": [1]}', "not json", '"runs"'])
def test_a_malformed_run_json_is_one_line(tmp_path, text):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "run.json").write_text(text)
    with pytest.raises(LudolabError) as e:
        with execution(run_dir=str(tmp_path / "r"), resume=True):
            run(_spec())
    msg = str(e.value)
    assert "run.json" in msg and "\n" not in msg and "give another folder" in msg


def test_a_malformed_run_json_on_the_command_line(tmp_path):
    from click.testing import CliRunner

    from ludolab.analysis.cli import cli

    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "run.json").write_text('{"runs": 5}')
    res = CliRunner().invoke(cli, ["box", "simulate", "--games", "100", "--quiet", "--run-dir",
                                   str(tmp_path / "r"), "--resume"])
    assert res.exit_code == 2 and res.output.startswith("Error: the run folder")
    assert len(res.output.strip().splitlines()) == 1


def test_the_fingerprint_hashes_in_place_and_as_before():
    """hash_args reads arrays' bytes without a copy yet gives the digest of the copied bytes
    (so fingerprints recorded in existing run folders still match)."""
    arrays = [np.arange(24, dtype=np.int32).reshape(4, 6), np.arange(24, dtype=np.int32).reshape(4, 6)[:, ::2],
              np.asfortranarray(np.arange(12.0).reshape(3, 4)), np.array(7, dtype=np.int64),
              np.zeros((0, 3), dtype=np.int8)]
    for a in arrays:
        old = hashlib.sha256()
        c = np.ascontiguousarray(a)
        old.update(f"array {c.dtype.str} {c.shape}".encode())
        old.update(c.tobytes())
        old.update(b"\0")
        new = hashlib.sha256()
        hash_args(new, (a,))
        assert new.hexdigest() == old.hexdigest(), a.shape


def test_the_fingerprint_reads_every_array_of_a_grouped_argument():
    """A kernel argument that groups arrays (a tuple, such as the rules of a turn) is hashed element by
    element: a change deep inside one of its arrays changes the fingerprint, which numpy's shortened
    repr of a large array would miss."""
    def digest(args):
        h = hashlib.sha256()
        hash_args(h, args)
        return h.hexdigest()

    big = np.zeros(5000, dtype=np.int64)
    other = big.copy()
    other[2500] = 1
    assert digest(((1, big), 2)) != digest(((1, other), 2))
    assert digest(((1, big), 2)) == digest(((1, big.copy()), 2))
    assert digest(((1, 2),)) != digest((1, 2))


def test_hashing_a_large_array_allocates_no_copy():
    import tracemalloc

    big = np.ones(20_000_000, dtype=np.int32)  # 80 MB
    tracemalloc.start()
    try:
        hash_args(hashlib.sha256(), (big,))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, f"hashing allocated {peak} bytes"
