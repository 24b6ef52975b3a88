"""Run folders: every finished chunk of a run on disk, so an interrupted run resumes.

A run folder (``--run-dir DIR``) holds::

    run.json                 the manifest: ludolab version and, for every run() the
                             command made, its fingerprint and a readable description
    run-000/chunk-000000.parquet
    run-000/chunk-000001.parquet ...

A chunk file holds one chunk's accumulator (a single column ``value``, the
accumulator flattened) and, in its Parquet metadata, the run's fingerprint, the
chunk index, its key and its number of games.  It is written to a temporary name
and renamed, so a killed process leaves either the whole chunk or nothing.

A command run again on the same folder with ``resume`` loads the chunks that
are there and computes only the others; the n-th run of the command must match
the n-th run recorded in the manifest, otherwise the folder is refused with one
line naming what differs (never mixed).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from ludolab.stdlib.errors import LudolabError

MANIFEST = "run.json"


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("ludolab")
    except metadata.PackageNotFoundError:  # pragma: no cover
        return "unknown"


def args_digest(args) -> str:
    """SHA-256 (hex, 16 digits) of a kernel's arguments (rules, policies and their parameters)."""
    h = hashlib.sha256()
    for a in args:
        if isinstance(a, np.ndarray):
            a = np.ascontiguousarray(a)
            h.update(f"array {a.dtype.str} {a.shape}".encode())
            h.update(a.tobytes())
        else:
            h.update(f"{type(a).__name__} {a!r}".encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def describe(spec) -> dict:
    """A readable description of a run: what the manifest records and compares."""
    return {"game": spec.game, "kernel": spec.kernel, "label": spec.label, "games": int(spec.games),
            "seed": int(spec.seed), "chunks": int(spec.chunks), "accumulator": [list(spec.acc_shape), spec.acc_dtype],
            "rules and policies": args_digest(spec.args), "version": _version(),
            "fingerprint": spec.fingerprint()}


#: How a difference is named in the one-line refusal.
_WORDS = {"game": "game", "kernel": "experiment", "games": "games", "seed": "seed", "chunks": "chunks",
          "accumulator": "accumulator", "rules and policies": "rules or policies", "version": "ludolab version",
          "label": "experiment"}


def differences(there: dict, here: dict) -> str:
    """What differs between two descriptions, in words (empty when they agree)."""
    out = []
    for key, word in _WORDS.items():
        a, b = there.get(key), here.get(key)
        if a != b:
            if key in ("rules and policies", "accumulator"):
                out.append(f"{word} differ")
            else:
                out.append(f"{word} {a} there, {b} here")
    if not out and there.get("fingerprint") != here.get("fingerprint"):
        out.append("the run's parameters differ")
    seen = []
    for x in out:
        if x not in seen:
            seen.append(x)
    return "; ".join(seen)


def _atomic(path: Path, write) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class RunFolder:
    """One ``--run-dir`` for the length of a command (every run() it makes)."""

    def __init__(self, root, resume: bool):
        self.root = Path(root)
        self.resume = bool(resume)
        self.claimed = False
        self.count = 0

    def _manifest(self) -> dict | None:
        path = self.root / MANIFEST
        if not path.exists():
            return None
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise LudolabError(f"the run folder {str(self.root)!r} has an unreadable {MANIFEST}: {exc}") from None

    def open(self, spec) -> "RunChunks":
        """The store of the next run of this command; refuses a folder made with other parameters.

        Raises:
            LudolabError: the folder is a file, holds a run and ``resume`` is off, or its
                run at this position was made with other parameters.
        """
        if self.root.exists() and not self.root.is_dir():
            raise LudolabError(f"the run folder {str(self.root)!r} is a file: give a folder")
        here = describe(spec)
        man = self._manifest()
        if man is not None and not self.claimed and not self.resume and man.get("runs"):
            raise LudolabError(f"the run folder {str(self.root)!r} holds a run already: add --resume to "
                               "continue it, or give another folder")
        self.claimed = True
        if man is None:
            man = {"ludolab": _version(), "runs": []}
        k = self.count
        self.count += 1
        runs = man.setdefault("runs", [])
        if k < len(runs):
            diff = differences(runs[k], here)
            if diff:
                raise LudolabError(f"the run folder {str(self.root)!r} was made with other parameters "
                                   f"({diff}): give another folder")
        else:
            runs.append(here)
            try:
                _atomic(self.root / MANIFEST, lambda tmp: Path(tmp).write_text(json.dumps(man, indent=2) + "\n"))
            except OSError as exc:
                raise LudolabError(f"cannot write the run folder {str(self.root)!r}: {exc.strerror or exc}") from None
        return RunChunks(self.root / f"run-{k:03d}", here["fingerprint"], spec.acc_shape, spec.acc_dtype)


class RunChunks:
    """The finished chunks of one run: load what is there, save what finishes."""

    def __init__(self, folder: Path, fingerprint: str, acc_shape, acc_dtype: str):
        self.folder = folder
        self.fingerprint = fingerprint
        self.acc_shape = tuple(acc_shape)
        self.acc_dtype = np.dtype(acc_dtype)
        self.loaded = 0

    def path(self, j: int) -> Path:
        return self.folder / f"chunk-{j:06d}.parquet"

    def load(self, j: int, key: int, games: int) -> np.ndarray | None:
        """Chunk ``j``'s accumulator if it was finished for this very run, else None."""
        import pyarrow.parquet as pq

        path = self.path(j)
        if not path.exists():
            return None
        try:
            t = pq.read_table(path)
            meta = {k.decode(): v.decode() for k, v in (t.schema.metadata or {}).items()}
            if (meta.get("fingerprint") != self.fingerprint or int(meta.get("chunk", -1)) != j
                    or int(meta.get("key", -1)) != int(key) or int(meta.get("games", -1)) != int(games)):
                return None
            value = t.column("value").to_numpy().astype(self.acc_dtype, copy=False)
            if value.size != int(np.prod(self.acc_shape, dtype=np.int64)):
                return None
        except Exception:  # an unreadable chunk is computed again
            return None
        self.loaded += 1
        return value.reshape(self.acc_shape)

    def save(self, j: int, key: int, games: int, acc: np.ndarray) -> None:
        """Write chunk ``j`` atomically (a killed process leaves the whole chunk or none)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        meta = {"fingerprint": self.fingerprint, "chunk": str(j), "key": str(int(key)), "games": str(int(games)),
                "shape": json.dumps(list(self.acc_shape)), "dtype": self.acc_dtype.str}
        table = pa.table({"value": np.ascontiguousarray(acc, dtype=self.acc_dtype).ravel()})
        table = table.replace_schema_metadata(meta)
        try:
            _atomic(self.path(j), lambda tmp: pq.write_table(table, tmp))
        except OSError as exc:
            raise LudolabError(f"cannot write the run folder {str(self.folder.parent)!r}: "
                               f"{exc.strerror or exc}") from None
