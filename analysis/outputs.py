"""Output folders: what ludolab writes into a folder the user names (``--out DIR``).

Every command that writes tables, charts or a report into a folder goes through
one :class:`OutputFolder` transaction, so three things hold whatever happens:

* **Nothing lost.**  The folder keeps a manifest, ``.ludolab-manifest.json``, of
  the files ludolab wrote there (their SHA-256 and the write they belong to).
  A file is replaced only when it is in the manifest and unchanged since; a
  file ludolab did not write (or one the user has edited) is never replaced
  or deleted: the write is refused naming it, unless ``force`` is given.
* **Nothing mixed.**  New files are first written beside their targets under
  hidden staging names; only when every one of them is complete (a full disk
  fails here, before anything is replaced) are they moved in, and the manifest
  is written last.  The manifest names the files being moved in beforehand
  (``pending``), so a reader following it (``ludolab show``, ``--rerun``, a
  report) that finds a file matching neither its recorded hash is told the
  folder holds an interrupted write, never shown a table of one run beside a
  sidecar or chart of another.
* **One writer at a time.**  A write takes an exclusive lock (``flock``) on the
  folder itself; a concurrent writer waits for it (up to ``LOCK_WAIT``
  seconds) and is then refused in one line.

Errors are :class:`~ludolab.stdlib.errors.LudolabError` with one line naming
the file and the cause (an ``OSError`` such as a full or read-only disk
included), which the command line shows as ``Error: ...`` with exit code 2.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as _dt
import errno
import hashlib
import json
import os
import time
import uuid
from pathlib import Path
from typing import Callable

from ludolab.stdlib.errors import LudolabError

MANIFEST = ".ludolab-manifest.json"
#: Seconds a writer waits for another writer of the same folder before it is refused.
LOCK_WAIT = 60.0
_STAGE = ".ludolab-stage-"


class OutputError(LudolabError):
    """An output folder cannot be written as asked (a file not ludolab's, a lock, a disk error)."""


def file_sha256(path: str | Path, block: int = 1 << 20) -> str:
    """SHA-256 (hex) of a file's bytes, read in blocks of ``block`` bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            b = fh.read(block)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


_CAUSES = {errno.ENOSPC: "no space left on the device", errno.EROFS: "the file system is read-only",
           errno.ENOENT: "a folder on the way does not exist and cannot be made there",
           errno.EACCES: "permission denied", errno.EPERM: "the operation is not permitted there",
           errno.ENAMETOOLONG: "a name in the path is too long", errno.EDQUOT: "the disk quota is exceeded",
           errno.EISDIR: "it is a folder", errno.ENOTDIR: "a part of the path is a file, not a folder"}


def cause(exc: OSError) -> str:
    """The cause of an OSError in words (``no space left on the device``, ``the file system is read-only`` ...)."""
    return _CAUSES.get(exc.errno) or exc.strerror or str(exc) or exc.__class__.__name__


def os_error(exc: OSError, path=None, verb: str = "write") -> str:
    """One line for an OSError: ``cannot write 'PATH': CAUSE`` (``path`` defaults to the error's file)."""
    where = path if path is not None else getattr(exc, "filename", None)
    return f"cannot {verb} {str(where)!r}: {cause(exc)}" if where else f"cannot {verb}: {cause(exc)}"


def read_manifest(root: str | Path) -> dict:
    """The manifest of an output folder: ``{"files": {relpath: {...}}, "pending": {...}}``
    (empty when the folder has none).

    Raises:
        OutputError: the manifest is there but is not a manifest ludolab wrote.
    """
    path = Path(root) / MANIFEST
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {"files": {}, "pending": {}}
    except OSError as exc:
        raise OutputError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    try:
        man = json.loads(text)
    except ValueError:
        man = None
    if not (isinstance(man, dict) and isinstance(man.get("files", {}), dict)
            and isinstance(man.get("pending", {}), dict)):
        raise OutputError(f"{str(path)!r} is not a ludolab manifest: remove it or give another folder")
    man.setdefault("files", {})
    man.setdefault("pending", {})
    return man


def find_manifest(path: str | Path, levels: int = 2) -> tuple[Path, str] | None:
    """The output folder holding ``path`` in its manifest (itself or up to ``levels`` folders up):
    ``(root, relpath)``, or None."""
    path = Path(path).absolute()
    root = path.parent
    for _ in range(levels + 1):
        if (root / MANIFEST).exists():
            rel = path.relative_to(root).as_posix()
            try:
                man = read_manifest(root)
            except OutputError:
                return None
            if rel in man["files"] or rel in man["pending"]:
                return root, rel
        if root.parent == root:
            break
        root = root.parent
    return None


def check_written(path: str | Path) -> str | None:
    """Check a file against its output folder's manifest before it is read.

    A file outside any manifest is accepted as it is (a result copied elsewhere).

    Returns:
        The run (write) it belongs to per the manifest, or None when it is in none or was
        changed since ludolab wrote it (a user's edit is the user's to read; the caller may say so).

    Raises:
        OutputError: the file was moved in by a write that was interrupted, so what is
            beside it may belong to another run.
    """
    hit = find_manifest(path)
    if hit is None:
        return None
    root, rel = hit
    man = read_manifest(root)
    try:
        sha = file_sha256(path)
    except OSError:
        return None  # unreadable: the reader says so
    entry = man["files"].get(rel)
    if entry is not None and entry.get("sha256") == sha:
        return entry.get("run")
    if sha == man["pending"].get(rel, {}).get("sha256"):
        raise OutputError(f"{str(path)!r} comes from a write into {str(root)!r} that was interrupted: "
                          "run the command again to complete it")
    return None


def check_together(paths) -> list[str]:
    """Check files read together (a table and its sidecar): every one whole, all from one write.

    Returns:
        The files among ``paths`` changed since ludolab wrote them (as given).

    Raises:
        OutputError: a file of an interrupted write, or files from two different writes.
    """
    runs, changed = {}, []
    for p in paths:
        hit = find_manifest(p)
        if hit is None:
            continue
        run = check_written(p)
        if run is None:
            changed.append(str(p))
        else:
            runs[str(p)] = run
    if len(set(runs.values())) > 1:
        raise OutputError(f"{' and '.join(repr(p) for p in runs)} come from two different writes: "
                          "run the command again")
    return changed


class _Lock:
    def __init__(self, root: Path, wait: float):
        self.root, self.wait, self.fd = root, wait, None

    def __enter__(self):
        import fcntl

        try:  # the folder itself is locked: no lock file is left behind
            self.fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            raise OutputError(os_error(exc, self.root)) from None
        t0 = time.monotonic()
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                if time.monotonic() - t0 >= self.wait:
                    os.close(self.fd)
                    self.fd = None
                    raise OutputError(f"another ludolab command is writing to {str(self.root)!r} and did not "
                                      f"finish within {self.wait:g} s: wait for it or give another folder") from None
                time.sleep(0.05)

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock
            self.fd = None


_ACTIVE: contextvars.ContextVar["OutputFolder | _Direct | None"] = contextvars.ContextVar("ludolab_output", default=None)


def _replaceable(man: dict, rel: str, target: Path) -> bool:
    """Whether ``target`` (``rel`` inside a folder whose manifest is ``man``) may be replaced: absent,
    or a file ludolab wrote there and unchanged since.

    Raises:
        OutputError: a folder is where the file should go."""
    if not target.exists() and not target.is_symlink():
        return True
    if target.is_dir() and not target.is_symlink():
        raise OutputError(f"cannot write {str(target)!r}: a folder of that name is in the way")
    known = {e.get("sha256") for e in (man["files"].get(rel), man["pending"].get(rel)) if e}
    return bool(known) and file_sha256(target) in known


def _not_ours(target: Path) -> str:
    return (f"{str(target)!r} was not written by ludolab (or was changed since): "
            "move it away, give another folder, or add --force to replace it")


def refuse_foreign(root: str | Path, rels, force: bool = False) -> None:
    """Before any work: refuse to write the files ``rels`` (paths inside ``root``) where one of them
    is a file ludolab did not write there (or that changed since), as :meth:`OutputFolder.write`
    would refuse it once the work is done; nothing with ``force`` or when ``root`` is not a folder.

    Raises:
        OutputError: the first such file, in one line saying what to do; a folder in the way; a
            manifest that cannot be read."""
    root = Path(root)
    if force or not root.is_dir():
        return
    man = read_manifest(root)
    for rel in rels:
        rel = Path(rel).as_posix()
        if not _replaceable(man, rel, root / rel):
            raise OutputError(_not_ours(root / rel))


class OutputFolder:
    """One write into an output folder: stage files, then :meth:`commit` them together.

    Use as a context manager: ``with OutputFolder(out, group="box simulate") as w:
    w.write("tables/x.csv", lambda tmp: df.to_csv(tmp))``; the files are moved in when
    the block ends without an error, and every staged file is removed when it ends with one.

    Args:
        root: the folder (made if missing).
        group: what writes (``"report"``, a command's name): with ``prune`` a commit removes
            the files an earlier write of the same group made that this one does not make.
        force: replace files ludolab did not write (or that changed since) instead of refusing.
        prune: remove the group's earlier files not written again (a report replacing a report).
        wait: seconds to wait for another writer of the folder.

    Attributes:
        replaced: relpaths of files of an earlier write that were replaced or removed.
        forced: relpaths of files not ludolab's that were replaced because of ``force``.
    """

    def __init__(self, root: str | Path, group: str = "", force: bool = False, prune: bool = False,
                 wait: float | None = None):
        self.root = Path(root)
        self.group = group
        self.force = bool(force)
        self.prune = bool(prune)
        self.wait = LOCK_WAIT if wait is None else float(wait)
        self.run = uuid.uuid4().hex[:16]
        self.staged: dict[str, tuple[Path, str]] = {}
        self.replaced: list[str] = []
        self.forced: list[str] = []
        self._lock = None
        self._man = None
        self._token = None

    # -- context
    def __enter__(self):
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(os_error(exc, self.root)) from None
        self._lock = _Lock(self.root, self.wait).__enter__()
        try:
            self._man = read_manifest(self.root)
        except BaseException:
            self._lock.__exit__()
            raise
        self._token = _ACTIVE.set(self)
        return self

    def __exit__(self, etype, exc, tb):
        try:
            _ACTIVE.reset(self._token)
            if etype is None:
                self.commit()
        finally:
            self._discard()
            self._lock.__exit__()
        return False

    # -- staging
    def _ours(self, rel: str, target: Path) -> bool:
        """Whether ``target`` may be replaced: absent, or a file ludolab wrote there and unchanged."""
        return _replaceable(self._man, rel, target)

    def write(self, rel: str, write: Callable[[str], None]) -> Path:
        """Stage the file ``rel`` (a path inside the folder, ``/``-separated): ``write(tmp)`` writes it.

        Returns:
            The target path (where the file is once committed).

        Raises:
            OutputError: the target is a file ludolab did not write (without ``force``), or
                writing fails (full disk, read-only, ...): one line naming the file.
        """
        rel = Path(rel).as_posix()
        target = self.root / rel
        if not self._ours(rel, target):
            if not self.force:
                raise OutputError(_not_ours(target))
            self.forced.append(rel)
        tmp = target.with_name(f"{_STAGE}{self.run}-{target.name}")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            write(str(tmp))
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
            sha = file_sha256(tmp)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise OutputError(os_error(exc, target)) from None
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        old = self.staged.pop(rel, None)
        if old is not None:
            old[0].unlink(missing_ok=True)
        self.staged[rel] = (tmp, sha)
        return target

    def adopt(self, rel: str, source: str | Path) -> Path:
        """Stage the finished file ``source`` (on the same file system) as ``rel``; it is moved, not copied."""
        return self.write(rel, lambda tmp: os.replace(source, tmp))

    def _discard(self):
        for tmp, _ in self.staged.values():
            try:
                Path(tmp).unlink(missing_ok=True)
            except OSError:
                pass
        self.staged.clear()

    def _write_manifest(self, man: dict) -> None:
        path = self.root / MANIFEST
        tmp = self.root / f"{_STAGE}{self.run}-{MANIFEST}"
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(json.dumps(man, indent=1, sort_keys=True) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise OutputError(os_error(exc, path)) from None

    def commit(self) -> None:
        """Move every staged file in and write the manifest (last)."""
        if not self.staged and not self.prune:
            return
        man = self._man
        now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        entries = {rel: {"sha256": sha, "run": self.run, "group": self.group, "written": now}
                   for rel, (_, sha) in self.staged.items()}
        # 1. say what is about to be moved in, so an interrupted move is recognised as one
        man["pending"] = {**man.get("pending", {}), **entries}
        self._write_manifest(man)
        # 2. move the staged files in
        for rel, (tmp, _) in list(self.staged.items()):
            target = self.root / rel
            if rel in man["files"] or target.exists():
                self.replaced.append(rel)
            try:
                os.replace(tmp, target)
            except OSError as exc:
                raise OutputError(os_error(exc, target)) from None
        self.staged.clear()
        # 3. files of an earlier write of this group that this one does not make
        if self.prune:
            for rel, e in list(man["files"].items()):
                if rel in entries or e.get("group") != self.group:
                    continue
                target = self.root / rel
                try:
                    if target.is_file() and file_sha256(target) == e.get("sha256"):
                        target.unlink()
                        self.replaced.append(rel)
                except OSError:
                    continue
                man["files"].pop(rel, None)
        # 4. the manifest, last
        man["files"].update(entries)
        man["pending"] = {}
        man["ludolab_version"] = _version()
        self._write_manifest(man)

    def summary(self) -> str:
        """What the write replaced, in words (empty when it replaced nothing)."""
        parts = []
        ours = [r for r in self.replaced if r not in self.forced]
        if ours:
            parts.append(f"replaced {len(ours)} files ludolab wrote there before")
        if self.forced:
            parts.append(f"replaced with --force {len(self.forced)} files not written by ludolab ("
                         + ", ".join(self.forced[:5]) + (", ..." if len(self.forced) > 5 else "") + ")")
        return "; ".join(parts)


class _Direct:
    """Writes into a private staging folder: each file written atomically, no manifest, no lock."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def write(self, rel: str, write: Callable[[str], None]) -> Path:
        target = self.root / rel
        tmp = target.with_name(f"{_STAGE}{target.name}")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            write(str(tmp))
            os.replace(tmp, target)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise OutputError(os_error(exc, target)) from None
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return target


@contextlib.contextmanager
def staging_folder(root: str | Path):
    """Inside, files written under ``root`` (a private folder later published with
    :func:`publish_tree`) are written directly, without a manifest or lock of their own."""
    token = _ACTIVE.set(_Direct(Path(root)))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def forced_on_command_line() -> bool:
    """Whether the running ``ludolab`` command was given ``--force`` (False outside a command)."""
    import click

    ctx = click.get_current_context(silent=True)
    return bool(ctx and ctx.find_root().meta.get("ludolab.force"))


@contextlib.contextmanager
def writing(root: str | Path, group: str = "", force: bool = False):
    """The write in progress for ``root`` (when one covers it), else a new :class:`OutputFolder`
    (``force`` also when the command line was given ``--force``)."""
    if active_for(Path(root) / "x") is not None:
        yield _ACTIVE.get()
        return
    with OutputFolder(root, group=group, force=force or forced_on_command_line()) as w:
        yield w


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("ludolab")
    except metadata.PackageNotFoundError:  # pragma: no cover
        return "unknown"


def active_for(path: str | Path) -> tuple["OutputFolder", str] | None:
    """The write in progress whose folder holds ``path``: ``(folder, relpath)``, or None."""
    w = _ACTIVE.get()
    if w is None:
        return None
    try:
        rel = Path(path).absolute().relative_to(w.root.absolute())
    except ValueError:
        return None
    return w, rel.as_posix()


def write_file(path: str | Path, write: Callable[[str], None], force: bool = False) -> Path:
    """Write one output file: into the write in progress for its folder, or as a write of its own
    (its folder's manifest updated, the same refusals).

    Args:
        path: the file's path; write: ``write(tmp)`` writes its contents to ``tmp``.

    Raises:
        OutputError: see :meth:`OutputFolder.write`.
    """
    path = Path(path)
    hit = active_for(path)
    if hit is not None:
        w, rel = hit
        return w.write(rel, write)
    with OutputFolder(path.parent, force=force) as w:
        return w.write(path.name, write)


def publish_tree(staging: str | Path, root: str | Path, group: str, force: bool = False) -> OutputFolder:
    """Move every file under ``staging`` into ``root`` at the same relative path, as one write of
    ``group`` that replaces the group's earlier files (``prune``) and nothing that is not ludolab's.

    Returns:
        The committed :class:`OutputFolder` (its ``replaced`` and ``forced`` lists).

    Raises:
        OutputError: a file in the way is not ludolab's (without ``force``), or a disk error.
    """
    staging = Path(staging)
    files = sorted(p for p in staging.rglob("*") if p.is_file())
    with OutputFolder(root, group=group, force=force, prune=True) as w:
        for p in files:
            w.adopt(p.relative_to(staging).as_posix(), p)
    return w
