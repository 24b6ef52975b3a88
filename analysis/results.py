"""Results on disk with their provenance.

Tables are tidy pandas DataFrames.  Every saved table carries its provenance
(game, rules, policy, N, seed, chunks, versions, time): Parquet keeps it in
``df.attrs`` (stored in the file's metadata), CSV gets a ``NAME.meta.json``
sidecar.  Files go through :mod:`ludolab.analysis.outputs`: staged beside their
targets and moved in together with the folder's manifest, so an error never leaves
a half-written file, destroys an earlier one or replaces a file ludolab did not write.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from .scale import run_provenance, versions  # noqa: F401  (versions: the provenance's library versions)


def provenance(game: str, **fields) -> dict:
    """A provenance record: game, the given fields, versions and UTC time."""
    rec = {"game": game}
    rec.update({k: _jsonable(v) for k, v in fields.items() if v is not None})
    rec["versions"] = versions()
    rec["created"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return rec


def _jsonable(v):
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v


def _atomic_write(path: Path, write) -> None:
    """Write one file through a temporary name (a private folder's file: no manifest).

    Raises:
        OSError: naming ``path``.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def table_files(name: str, fmt: str = "csv") -> tuple[str, ...]:
    """The file names :func:`save_table` writes for table ``name`` in format ``fmt``: the table,
    and with ``csv`` its ``.meta.json`` provenance sidecar."""
    return (f"{name}.csv", f"{name}.meta.json") if fmt == "csv" else (f"{name}.{fmt}",)


def save_table(df: pd.DataFrame, out_dir: str | Path, name: str, fmt: str = "csv",
               meta: dict | None = None) -> list[Path]:
    """Save a table with its provenance.

    Args:
        df: the table; ``df.attrs`` is merged into the provenance.
        out_dir: folder (created if missing); name: file stem.
        fmt: ``csv`` (plus ``NAME.meta.json``) or ``parquet`` (provenance in
            the file's metadata).

    Returns:
        The paths written.

    Raises:
        ValueError: unknown format.
        ludolab.analysis.outputs.OutputError: a file in the way that ludolab did not write,
            another writer, or a disk error (one line naming the file).
    """
    from .outputs import writing

    out_dir = Path(out_dir)
    info = _jsonable({**run_provenance(), **(meta or {}), **df.attrs})
    if fmt == "csv":
        path, side = (out_dir / f for f in table_files(name, fmt))
        with writing(out_dir) as w:
            w.write(_rel(w, path), lambda tmp: df.to_csv(tmp, index=False))
            w.write(_rel(w, side), lambda tmp: Path(tmp).write_text(json.dumps(info, indent=2) + "\n"))
        return [path, side]
    if fmt == "parquet":
        path = out_dir / table_files(name, fmt)[0]
        out = df.copy()
        out.attrs = info
        with writing(out_dir) as w:
            w.write(_rel(w, path), lambda tmp: out.to_parquet(tmp, index=False))
        return [path]
    raise ValueError(f"unknown table format {fmt!r}: allowed are csv, parquet")


def save_figure(fig, out_dir: str | Path, name: str, dpi: int = 110) -> Path:
    """Save a matplotlib Figure as ``NAME.png`` (``dpi`` dots per inch), drawn once: the figure
    builders lay their charts out with constrained layout, so no tight-bbox pass (a second draw)
    is needed.

    Raises:
        ludolab.analysis.outputs.OutputError: as :func:`save_table`.
    """
    from .outputs import writing

    path = Path(out_dir) / f"{name}.png"
    with writing(out_dir) as w:
        w.write(_rel(w, path), lambda tmp: fig.savefig(tmp, dpi=dpi, format="png"))
    return path


def _rel(w, path: Path) -> str:
    return Path(path).absolute().relative_to(w.root.absolute()).as_posix()
