"""Run folders: every finished chunk of a run on disk, so an interrupted run resumes.

A run folder (``--run-dir DIR``) holds::

    run.json                 the manifest: ludolab version and, for every run() the
                             command made, its fingerprint and a readable description
    run-000/chunk-000000.parquet
    run-000/chunk-000001.parquet ...

A chunk file holds one chunk's accumulator (a single column ``value``, the
accumulator flattened) and, in its Parquet metadata, the run's fingerprint, the
chunk index, its key, its number of games and a SHA-256 checksum of all of
these and of the accumulator's bytes.  It is written to a temporary name and
renamed, so a killed process leaves either the whole chunk or nothing; a chunk
damaged on disk afterwards (any changed byte of its values or of its record)
fails its checksum, is computed again and is reported (:attr:`RunChunks.damaged`),
so a resumed result is always the uninterrupted one.

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


def hash_args(h, args) -> None:
    """Feed a kernel's arguments into the hash ``h`` (a :mod:`hashlib` object): each array's
    dtype, shape and bytes, read in place (a C-contiguous array is never copied; another is
    hashed in row blocks), each scalar's type and ``repr``; a tuple (a kernel's grouped arguments,
    such as the rules of a turn) element by element."""
    for a in args:
        if isinstance(a, tuple):
            h.update(f"tuple {len(a)}".encode())
            hash_args(h, a)
        elif isinstance(a, np.ndarray):
            shape = a.shape if a.ndim else (1,)  # as numpy.ascontiguousarray sees a 0-d array
            h.update(f"array {a.dtype.str} {shape}".encode())
            hash_array(h, a)
        else:
            h.update(f"{type(a).__name__} {a!r}".encode())
        h.update(b"\0")


def hash_array(h, a: np.ndarray, block: int = 1 << 24) -> None:
    """Feed the bytes of ``a`` (in C order) into ``h`` without copying a C-contiguous array;
    any other array is copied at most ``block`` bytes at a time."""
    if a.size == 0:
        return
    if a.flags.c_contiguous:
        h.update(memoryview(a.reshape(-1).view(np.uint8)))
        return
    flat = a.reshape(a.shape[0], -1) if a.ndim > 1 else a.reshape(-1, 1)
    rows = max(1, block // max(1, flat.shape[1] * a.itemsize))
    for i in range(0, flat.shape[0], rows):
        h.update(memoryview(np.ascontiguousarray(flat[i:i + rows]).reshape(-1).view(np.uint8)))


def args_digest(args) -> str:
    """SHA-256 (hex, 16 digits) of a kernel's arguments (rules, policies and their parameters)."""
    h = hashlib.sha256()
    hash_args(h, args)
    return h.hexdigest()[:16]


def chunk_checksum(fingerprint: str, j: int, key: int, games: int, value: np.ndarray) -> str:
    """SHA-256 (hex) of a kept chunk: the run's fingerprint, the chunk's index, key and games,
    and its accumulator's dtype, shape and bytes."""
    h = hashlib.sha256(f"{fingerprint}\0{int(j)}\0{int(key)}\0{int(games)}\0".encode())
    hash_args(h, (np.ascontiguousarray(value),))
    return h.hexdigest()


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
        """The folder's manifest, or None when there is none.

        Raises:
            LudolabError: the manifest cannot be read or is not one ludolab wrote (one line).
        """
        path = self.root / MANIFEST
        if not path.exists():
            return None
        try:
            man = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            why = getattr(exc, "strerror", None) or "it is not JSON"
            raise LudolabError(f"the run folder {str(self.root)!r} has an unreadable {MANIFEST} ({why}): "
                               "give another folder") from None
        runs = man.get("runs") if isinstance(man, dict) else None
        if not isinstance(man, dict) or not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
            raise LudolabError(f"the run folder {str(self.root)!r} has a malformed {MANIFEST} (an object with a "
                               "list of runs is expected): give another folder")
        return man

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
        #: indices of chunks that were on disk but damaged (computed again)
        self.damaged: list[int] = []

    def path(self, j: int) -> Path:
        return self.folder / f"chunk-{j:06d}.parquet"

    def load(self, j: int, key: int, games: int) -> np.ndarray | None:
        """Chunk ``j``'s accumulator if it was finished for this very run and is whole, else None.

        A file that is there but unreadable, of another run or failing its checksum is
        recorded in :attr:`damaged` (and computed again by the caller).
        """
        import pyarrow.parquet as pq

        path = self.path(j)
        if not path.exists():
            return None
        try:
            t = pq.read_table(path)
            meta = {k.decode(): v.decode() for k, v in (t.schema.metadata or {}).items()}
            value = t.column("value").to_numpy()
            ok = (meta.get("fingerprint") == self.fingerprint and meta.get("chunk") == str(j)
                  and meta.get("key") == str(int(key)) and meta.get("games") == str(int(games))
                  and value.dtype == self.acc_dtype
                  and value.size == int(np.prod(self.acc_shape, dtype=np.int64))
                  and meta.get("sha256") == chunk_checksum(self.fingerprint, j, key, games,
                                                           value.reshape(self.acc_shape)))
        except Exception:  # an unreadable chunk is computed again
            ok = False
        if not ok:
            self.damaged.append(int(j))
            return None
        self.loaded += 1
        return value.reshape(self.acc_shape)

    def save(self, j: int, key: int, games: int, acc: np.ndarray) -> None:
        """Write chunk ``j`` atomically (a killed process leaves the whole chunk or none)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        value = np.ascontiguousarray(acc, dtype=self.acc_dtype).reshape(self.acc_shape)
        meta = {"fingerprint": self.fingerprint, "chunk": str(j), "key": str(int(key)), "games": str(int(games)),
                "shape": json.dumps(list(self.acc_shape)), "dtype": self.acc_dtype.str,
                "sha256": chunk_checksum(self.fingerprint, j, key, games, value)}
        table = pa.table({"value": value.ravel()})
        table = table.replace_schema_metadata(meta)
        try:
            _atomic(self.path(j), lambda tmp: pq.write_table(table, tmp))
        except OSError as exc:
            raise LudolabError(f"cannot write the run folder {str(self.folder.parent)!r}: "
                               f"{exc.strerror or exc}") from None
