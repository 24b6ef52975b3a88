"""One generic Monte Carlo runner for every game.

A run is plain data, a :class:`RunSpec`: the game, the kernel (a
``"module:function"`` name), its arguments (numpy arrays and scalars), the
shape of one chunk's accumulator, and the number of games, the root seed and
the number of chunks.  A spec pickles, so it can be shipped to another
process, and it has a :meth:`~RunSpec.fingerprint` that changes whenever any
of that changes.

Kernel contract (every game's Monte Carlo kernels follow it)::

    @njit(cache=True, parallel=True)
    def _simulate(keys, starts, stops, *args, out):
        for i in prange(keys.shape[0]):
            for g in range(starts[i], stops[i]):
                st = game_state(keys[i], g)   # game g's own stream
                ...                            # play game g
                out[i, ...] += ...             # only add

:func:`run` calls the kernel on bounded slices of games (about
``slice_seconds`` of work per call, every chunk advancing together), sums the
slices into one accumulator per chunk, moves a progress bar after each call and
lets Ctrl-C stop the run between two calls.  Since every game draws from its
own stream, the slicing never changes a result: the same seed and chunk count
give bit-identical accumulators on any thread count and any slicing.

Where and how a run executes is not part of the spec but of the
:class:`Execution` in force, set with the context manager :func:`execution`
(the command line sets it from ``--scheduler``, ``--workers``, ``--run-dir``,
``--resume`` and ``--precision``; with none, the environment variable
``LUDOLAB_SCHEDULER`` may name a Dask scheduler).  Every game's face calls
:func:`run` and so gets all of it:

* backends: ``local`` (numba threads over chunks) or ``dask`` (one task per
  chunk, :func:`run_chunk`, gathered by chunk index so a chunk retried after a
  lost worker is never counted twice); the accumulators are bit-identical;
* run folders: each finished chunk is written atomically
  (:mod:`ludolab.sim.runstore`) and a resumed run computes only the others;
* sequential stopping: with a precision ``E`` and a spec naming its main
  metric, blocks of chunks are added (keys spawned from the same root seed,
  sizes decided from the results so far) until the metric's 95% half-width
  is at most ``E``; :func:`outcomes` tells the games used and the half-width.
"""

from __future__ import annotations

import contextvars
import hashlib
import importlib
import math
import os
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import numpy as np

from ludolab.stdlib.errors import LudolabError

from .experiment import DEFAULT_CHUNKS, MAX_GAMES, RunPlan, plan_run, show_progress
from .rng import chunk_keys


@dataclass(frozen=True)
class RunSpec:
    """A Monte Carlo run described as data.

    Attributes:
        game: registry id of the game (``box``, ``books``, ...).
        kernel: ``"module:function"`` of a kernel following the module's contract.
        args: the kernel's arguments between ``stops`` and ``out`` (arrays, scalars).
        acc_shape: shape of one chunk's accumulator (``out[i]``).
        acc_dtype: numpy dtype name of the accumulator.
        games: number of games (1..10**12); seed: root seed (>= 0);
        chunks: how the run is cut (part of what the seed means).
        label: what the progress bar calls the run.
        metric: the run's main metric, ``"module:function"`` called as
            ``function(acc, games, *metric_args)`` on the accumulator summed over
            chunks; returns an :class:`~ludolab.sim.stats.Estimate` or
            ``(value, half_width)``.  Needed for sequential stopping
            (``--precision``); :mod:`ludolab.sim.metrics` has generic ones.
        metric_args: the metric's extra arguments (where it lives in the accumulator).
    """

    game: str
    kernel: str
    args: tuple = field(repr=False)
    acc_shape: tuple
    acc_dtype: str = "int64"
    games: int = 1
    seed: int = 0
    chunks: int = DEFAULT_CHUNKS
    label: str = "games"
    metric: str | None = None
    metric_args: tuple = field(default=(), repr=False)

    def plan(self) -> RunPlan:
        """The chunk plan (keys and games per chunk); raises LudolabError on bad counts.

        After a sequential run (``--precision``) it is the plan that was run: every
        block of chunks, so ``plan().n_games`` is the number of games used.
        """
        done = self.__dict__.get("_sequential")
        if done is not None:
            return done[0]
        return plan_run(self.games, self.seed, self.chunks)

    def with_metric(self, metric: str, *metric_args) -> "RunSpec":
        """This spec with a main metric (see ``metric``): ``spec.with_metric("m:f", *args)``."""
        return replace(self, metric=metric, metric_args=tuple(metric_args))

    def fingerprint(self) -> str:
        """SHA-256 (hex) of everything that determines the result."""
        from .runstore import hash_args

        h = hashlib.sha256()
        for part in (self.game, self.kernel, repr(tuple(self.acc_shape)), self.acc_dtype,
                     str(self.games), str(self.seed), str(self.chunks)):
            h.update(part.encode())
            h.update(b"\0")
        hash_args(h, self.args)  # the arrays' bytes read in place, never copied whole
        return h.hexdigest()

    def provenance(self) -> dict:
        """Seed, games and chunks as recorded with every result (after a sequential run:
        the games used, the precision asked and the half-width reached)."""
        done = self.__dict__.get("_sequential")
        if done is not None:
            plan, extra = done
            return {"seed": int(self.seed), "games": int(plan.n_games), "chunks": int(min(self.chunks, self.games)),
                    **extra}
        return {"seed": int(self.seed), "games": int(self.games), "chunks": int(min(self.chunks, self.games))}


def resolve_kernel(name: str):
    """The function named ``"module:function"``.

    Raises:
        ValueError: if the name is malformed or does not resolve (a bug, not bad input).
    """
    mod, sep, fn = name.partition(":")
    if not sep:
        raise ValueError(f"kernel name {name!r} must look like 'module:function'")
    return getattr(importlib.import_module(mod), fn)



# ------------------------------------------------------------------ execution settings
BACKENDS = ("local", "dask")


@dataclass(frozen=True)
class Execution:
    """Where and how runs execute (not part of any result: every setting gives the same numbers).

    Attributes:
        backend: ``local`` (numba threads over chunks) or ``dask`` (one task per chunk).
        scheduler: address of a running Dask scheduler (``tcp://HOST:PORT``); implies ``dask``.
        workers: with ``dask`` and no scheduler, the workers of a ``LocalCluster`` started
            for the runs (default: one per core).
        run_dir: a run folder: finished chunks are kept there (see :mod:`ludolab.sim.runstore`).
        resume: continue the run kept in ``run_dir``.
        precision: sequential stopping: add chunks until the 95% half-width of the run's
            main metric is at most this.
        max_games: the most games a sequential run may use.
        wave: chunks per local wave when chunks are kept (default twice the numba threads).
        first_step: games per chunk in a local run's first kernel call, in place of :func:`run`'s; 1 where
            a game is expensive (strong play), so that a call, and the wait for Ctrl-C, stays short.
        client: an existing ``distributed.Client`` to use (notebooks).

    Raises:
        LudolabError: an unknown backend, a precision <= 0, ``resume`` without ``run_dir``.
    """

    backend: str = "local"
    scheduler: str | None = None
    workers: int | None = None
    run_dir: str | None = None
    resume: bool = False
    precision: float | None = None
    max_games: int = MAX_GAMES
    wave: int | None = None
    first_step: int | None = None
    client: object = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        backend = "dask" if (self.scheduler or self.workers or self.client is not None) and self.backend == "local" \
            else self.backend
        object.__setattr__(self, "backend", backend)
        if backend not in BACKENDS:
            raise LudolabError(f"unknown backend {backend!r}: allowed are {', '.join(BACKENDS)}")
        if self.workers is not None and int(self.workers) < 1:
            raise LudolabError(f"the number of workers must be at least 1, not {self.workers}")
        if self.precision is not None and not (float(self.precision) > 0 and math.isfinite(float(self.precision))):
            raise LudolabError(f"the precision must be a half-width > 0, not {self.precision}")
        if self.resume and not self.run_dir:
            raise LudolabError("--resume needs --run-dir DIR (the folder of the run to continue)")

    def describe(self) -> dict:
        """The settings as recorded in provenance."""
        out = {"backend": self.backend}
        if self.backend == "dask":
            out["scheduler"] = self.scheduler or ("client" if self.client is not None else "LocalCluster")
            if self.workers:
                out["workers"] = int(self.workers)
        if self.precision is not None:
            out["precision"] = float(self.precision)
        if self.run_dir:
            out["run_dir"] = str(self.run_dir)
            out["resume"] = bool(self.resume)
        return out


@dataclass
class RunOutcome:
    """What one :func:`run` did: games and chunks used, backend, chunks loaded from a run
    folder, and for a sequential run the metric, its half-width and whether the precision was reached."""

    game: str
    label: str
    fingerprint: str
    seed: int
    games: int
    chunks: int
    backend: str
    loaded_chunks: int = 0
    damaged_chunks: int | None = None
    precision: float | None = None
    value: float | None = None
    half_width: float | None = None
    reached: bool | None = None

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v is not None}


class Session:
    """The state of one :func:`execution` context: the Dask client (made on first use),
    the run folder and the outcomes of the runs made so far."""

    def __init__(self, settings: Execution):
        self.settings = settings
        self.outcomes: list[RunOutcome] = []
        self._client = settings.client
        self._own_client = None
        self._cluster = None
        self._folder = None

    # -- dask
    def client(self):
        """The ``distributed.Client`` of this context (connects or starts a LocalCluster once).

        Raises:
            LudolabError: ``distributed`` is not installed, or the scheduler cannot be reached.
        """
        if self._client is not None:
            return self._client
        try:
            import distributed
        except ImportError:
            raise LudolabError("the dask backend needs the 'distributed' package: "
                               "pip install 'ludolab[dask]'") from None
        import logging

        # a lost scheduler or worker ends in one LudolabError line, not in Dask's logged tracebacks
        for name in ("distributed", "distributed.nanny", "distributed.worker", "distributed.scheduler",
                     "distributed.client", "distributed.comm", "distributed.core", "distributed.batched",
                     "tornado", "asyncio"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        ex = self.settings
        if ex.scheduler:
            try:
                self._own_client = distributed.Client(ex.scheduler, timeout="10s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise LudolabError(f"cannot reach the Dask scheduler at {ex.scheduler}: {exc}") from None
        else:
            n = int(ex.workers or os.cpu_count() or 1)
            self._cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                                     host="127.0.0.1", dashboard_address=":0")
            self._own_client = distributed.Client(self._cluster)
        self._client = self._own_client
        return self._client

    def folder(self):
        if self._folder is None and self.settings.run_dir:
            from .runstore import RunFolder

            self._folder = RunFolder(self.settings.run_dir, self.settings.resume)
        return self._folder

    def close(self) -> None:
        if self._own_client is not None:
            try:
                self._own_client.close()
            except Exception:  # pragma: no cover - closing is best effort
                pass
        if self._cluster is not None:
            try:
                self._cluster.close()
            except Exception:  # pragma: no cover
                pass
        self._own_client = self._cluster = None
        self._client = self.settings.client


_CURRENT: contextvars.ContextVar[Session | None] = contextvars.ContextVar("ludolab_execution", default=None)
_ENV_SESSIONS: dict[str, Session] = {}


@contextmanager
def execution(settings: Execution | None = None, **changes):
    """Run everything inside with these execution settings; yields the :class:`Session`.

    ``execution(backend="dask", workers=2)``, ``execution(run_dir="runs/a", resume=True)``,
    ``execution(precision=0.01)`` or ``execution(Execution(...))``.  A LocalCluster or
    client started here is closed on exit.
    """
    ex = settings if settings is not None else Execution()
    if changes:
        ex = replace(ex, **changes)
    sess = Session(ex)
    token = _CURRENT.set(sess)
    try:
        yield sess
    finally:
        _CURRENT.reset(token)
        sess.close()


def current_session() -> Session:
    """The session in force: the innermost :func:`execution`, else the local backend
    (or the Dask scheduler named by the environment variable ``LUDOLAB_SCHEDULER``)."""
    sess = _CURRENT.get()
    if sess is not None:
        return sess
    addr = os.environ.get("LUDOLAB_SCHEDULER", "").strip()
    if addr not in _ENV_SESSIONS:
        _ENV_SESSIONS[addr] = Session(Execution(backend="dask", scheduler=addr) if addr else Execution())
    return _ENV_SESSIONS[addr]


def current_execution() -> Execution:
    """The :class:`Execution` in force."""
    return current_session().settings


def outcomes() -> list[RunOutcome]:
    """The outcomes of the runs made so far in the current :func:`execution` context."""
    return current_session().outcomes


# ------------------------------------------------------------------ running chunks
_CHUNK_LOCK = threading.Lock()


def run_chunk(spec: RunSpec, key: int, games: int) -> np.ndarray:
    """One chunk's accumulator, shape ``acc_shape``: the unit of work of the dask backend.

    ``key`` is the chunk's key and ``games`` its number of games; the result is the
    one the local backend computes for that chunk, bit for bit.
    """
    kernel = resolve_kernel(spec.kernel)
    out = np.zeros((1, *spec.acc_shape), dtype=spec.acc_dtype)
    import numba

    with _CHUNK_LOCK:  # numba parallel kernels are not called from two threads at once
        old = numba.get_num_threads()
        numba.set_num_threads(1)  # one chunk runs on one thread: no other thread to wake
        try:
            kernel(np.array([key], dtype=np.uint64), np.zeros(1, dtype=np.int64),
                   np.array([games], dtype=np.int64), *spec.args, out)
        finally:
            numba.set_num_threads(old)
    return out[0]


class _Slicer:
    """Calls a kernel on bounded slices of games over a group of chunks (see :func:`run`)."""

    def __init__(self, kernel, args, slice_seconds, first_step, bar):
        self.kernel, self.args, self.slice_seconds, self.bar = kernel, args, slice_seconds, bar
        self.step = max(1, int(first_step))

    def __call__(self, keys, end, out):
        n = keys.shape[0]
        pos = np.zeros(n, dtype=np.int64)
        while True:
            live = np.flatnonzero(pos < end)
            if live.size == 0:
                return
            stops = np.minimum(pos[live] + self.step, end[live])
            t0 = time.perf_counter()
            if live.size == n:
                self.kernel(keys, pos, stops, *self.args, out)
            else:
                part = np.ascontiguousarray(out[live])
                self.kernel(np.ascontiguousarray(keys[live]), np.ascontiguousarray(pos[live]), stops,
                            *self.args, part)
                out[live] = part
            dt = time.perf_counter() - t0
            if self.bar is not None:
                self.bar.update(int((stops - pos[live]).sum()))
            pos[live] = stops
            if dt < self.slice_seconds / 4:  # bounded: a slicer reused over many waves never overflows
                self.step = min(self.step * (4 if dt < self.slice_seconds / 16 else 2), 1 << 40)
            elif dt > self.slice_seconds and self.step > 1:
                self.step = max(1, self.step // 2)


def _run_local(spec, keys, games, todo, out, bar, store, sess, slice_seconds, first_step):
    """Chunks ``todo`` (sorted indices) on numba threads, in waves when chunks are kept."""
    slicer = _Slicer(resolve_kernel(spec.kernel), spec.args, slice_seconds, first_step, bar)
    if store is None and todo.size == keys.size:
        slicer(keys, games, out)  # the whole run at once, every chunk advancing together
        return
    if store is not None:
        import numba

        wave = int(sess.settings.wave or 2 * numba.get_num_threads())
    else:
        wave = todo.size
    for a in range(0, todo.size, max(1, wave)):
        idx = todo[a:a + wave]
        part = np.zeros((idx.size, *spec.acc_shape), dtype=spec.acc_dtype)
        slicer(np.ascontiguousarray(keys[idx]), np.ascontiguousarray(games[idx]), part)
        out[idx] = part
        if store is not None:
            for i, j in enumerate(idx):
                store.save(int(j), int(keys[j]), int(games[j]), part[i])


#: Seconds a Dask run waits with no worker in the cluster before it stops with one line.
WORKER_TIMEOUT = 30.0


def _lost(sess, exc) -> str:
    where = sess.settings.scheduler or "the LocalCluster"
    why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return (f"lost the Dask scheduler at {where} during the run ({why}): start it and run the command again "
            "(with --run-dir and --resume the finished chunks are kept)")


def _run_dask(spec, keys, games, todo, out, bar, store, sess):
    """Chunks ``todo`` as Dask tasks, gathered by chunk index as they finish."""
    client = sess.client()  # refuses in one line when distributed is missing
    import distributed

    tag = os.urandom(6).hex()
    idx = [int(j) for j in todo]
    fs = client.map(run_chunk, [spec] * len(idx), [int(keys[j]) for j in idx], [int(games[j]) for j in idx],
                    key=[f"ludolab-chunk-{j}-{tag}" for j in idx], pure=False)
    futures = dict(zip(fs, idx))
    waiting = set(futures)
    idle_since = None
    try:
        while waiting:
            try:
                done, waiting = distributed.wait(waiting, timeout=2, return_when="FIRST_COMPLETED")
            except (TimeoutError, distributed.TimeoutError):
                done = set()
            except Exception as exc:  # the scheduler went away
                raise LudolabError(_lost(sess, exc)) from None
            if not done:
                # no chunk finished for a while: is the cluster still there, with workers?
                try:
                    workers = len(client.scheduler_info().get("workers", {}))
                except Exception as exc:
                    raise LudolabError(_lost(sess, exc)) from None
                if client.status not in ("running", "connecting"):
                    raise LudolabError(_lost(sess, RuntimeError(f"client {client.status}")))
                now = time.monotonic()
                if workers:
                    idle_since = None
                elif idle_since is None:
                    idle_since = now
                elif now - idle_since > WORKER_TIMEOUT:
                    raise LudolabError(f"the Dask cluster has had no workers for {WORKER_TIMEOUT:g} s, with "
                                       f"{len(waiting)} chunks of the run left: start workers, or run without "
                                       "--scheduler")
                continue
            for f in sorted(done, key=lambda f: futures[f]):
                j = futures[f]
                try:
                    acc = f.result()
                except Exception as exc:
                    if type(exc).__name__ in ("KilledWorker", "CancelledError", "FutureCancelledError"):
                        raise LudolabError(f"the Dask cluster lost chunk {j} of the run: {exc}") from None
                    if isinstance(exc, (OSError, TimeoutError)) or "Comm" in type(exc).__name__:
                        raise LudolabError(_lost(sess, exc)) from None
                    raise
                out[j] = acc  # by index: a chunk retried elsewhere is stored once
                if store is not None:
                    store.save(j, int(keys[j]), int(games[j]), out[j])
                if bar is not None:
                    bar.update(int(games[j]))
    finally:
        pending = [f for f in futures if not f.done()]
        if pending:
            try:
                client.cancel(pending)
            except Exception:  # pragma: no cover
                pass


def _run_block(spec, keys, games, sess, store, bar, slice_seconds, first_step) -> tuple[np.ndarray, int]:
    """Accumulators of the chunks with these keys and games (loading kept ones); returns (acc, loaded)."""
    m = keys.shape[0]
    out = np.zeros((m, *spec.acc_shape), dtype=spec.acc_dtype)
    todo = []
    loaded = 0
    offset = getattr(store, "offset", 0)
    for j in range(m):
        acc = None if store is None else store.load(offset + j, int(keys[j]), int(games[j]))
        if acc is None:
            todo.append(j)
        else:
            out[j] = acc
            loaded += 1
            if bar is not None:
                bar.update(int(games[j]))
    todo = np.asarray(todo, dtype=np.int64)
    if todo.size:
        shifted = None if store is None else _Offset(store, offset)
        if sess.settings.backend == "dask":
            _run_dask(spec, keys, games, todo, out, bar, shifted, sess)
        else:
            _run_local(spec, keys, games, todo, out, bar, shifted, sess, slice_seconds, first_step)
    return out, loaded


class _Offset:
    """A chunk store seen from one block: local index j is run index offset + j."""

    def __init__(self, store, offset):
        self.store, self.offset = store, offset

    def save(self, j, key, games, acc):
        self.store.save(self.offset + j, key, games, acc)


def run_total(spec: RunSpec, progress: bool | None = False, slice_seconds: float = 0.5,
              first_step: int = 64) -> np.ndarray:
    """Run ``spec`` and return its accumulator summed over chunks, shape ``acc_shape``.

    The same numbers as ``run(spec).sum(axis=0)`` for an integer accumulator, but on the
    local backend without a run folder or a precision the chunks run in waves (twice the
    numba threads at a time) summed as they finish, so the memory is a wave's accumulators,
    not every chunk's (a large accumulator times many chunks).

    Raises:
        as :func:`run`.
    """
    sess = current_session()
    ex = sess.settings
    if (ex.backend != "local" or ex.run_dir or ex.precision is not None
            or not np.issubdtype(np.dtype(spec.acc_dtype), np.integer)):
        return run(spec, progress, slice_seconds, first_step).sum(axis=0)
    import numba

    spec.__dict__.pop("_sequential", None)
    plan = spec.plan()
    wave = int(ex.wave or 2 * numba.get_num_threads())
    bar = None
    if show_progress(progress):
        from tqdm import tqdm

        bar = tqdm(total=plan.n_games, desc=spec.label, unit="game", unit_scale=True, file=sys.stderr)
    total = np.zeros(spec.acc_shape, dtype=spec.acc_dtype)
    slicer = _Slicer(resolve_kernel(spec.kernel), spec.args, slice_seconds, first_step, bar)
    try:
        for a in range(0, plan.n_chunks, max(1, wave)):
            part = np.zeros((min(wave, plan.n_chunks - a), *spec.acc_shape), dtype=spec.acc_dtype)
            slicer(np.ascontiguousarray(plan.keys[a:a + wave]), np.ascontiguousarray(plan.games[a:a + wave]), part)
            total += part.sum(axis=0)
    finally:
        if bar is not None:
            bar.close()
    sess.outcomes.append(RunOutcome(spec.game, spec.label, spec.fingerprint(), int(spec.seed), int(plan.n_games),
                                    int(plan.n_chunks), ex.backend))
    return total


def run(spec: RunSpec, progress: bool | None = False, slice_seconds: float = 0.5,
        first_step: int = 64) -> np.ndarray:
    """Run ``spec`` and return the accumulators, shape ``(n_chunks, *acc_shape)``.

    The :class:`Execution` in force (see :func:`execution`) says where: the local
    backend or Dask, with or without a run folder, and with or without sequential
    stopping (then ``n_chunks`` covers every block run and ``spec.plan()`` /
    ``spec.provenance()`` tell the games used).  Whatever it says, the same spec gives
    bit-identical accumulators chunk by chunk.

    Args:
        progress: a progress bar on stderr (``None``: only when stderr is a terminal).
        slice_seconds: aim for each local kernel call; the number of games per chunk in a
            call starts at ``first_step`` and adapts so a call takes about this long.
        first_step: games per chunk in the first call (tests set it to 1).

    Raises:
        LudolabError: bad games, seed or chunks (from :func:`plan_run`); a run folder made
            with other parameters; ``--precision`` for a run without a main metric; a
            Dask cluster that cannot be reached or lost a chunk for good.
        KeyboardInterrupt: passes through between two kernel calls (local) or at once (dask).
    """
    spec.__dict__.pop("_sequential", None)  # a spec run again forgets an earlier sequential run
    plan = spec.plan()
    sess = current_session()
    ex = sess.settings
    first_step = int(ex.first_step or first_step)
    if ex.precision is not None and not spec.metric:
        raise LudolabError("--precision needs a main metric, and this command's runs have none: "
                           "set how many to run instead (--games, --hands or --rounds)")
    folder = sess.folder()
    store = folder.open(spec) if folder is not None else None
    bar = None
    if show_progress(progress):
        from tqdm import tqdm

        bar = tqdm(total=plan.n_games, desc=spec.label, unit="game", unit_scale=True, file=sys.stderr)
    outcome = RunOutcome(spec.game, spec.label, spec.fingerprint(), int(spec.seed), int(plan.n_games),
                         int(plan.n_chunks), ex.backend)
    try:
        out, loaded = _run_block(spec, plan.keys, plan.games, sess, store, bar, slice_seconds, first_step)
        outcome.loaded_chunks = loaded
        if ex.precision is not None:
            out = _sequential(spec, plan, out, sess, store, bar, slice_seconds, first_step, outcome)
    finally:
        if bar is not None:
            bar.close()
        if store is not None and store.damaged:
            _say_damaged(store, folder)
    if store is not None and store.damaged:
        outcome.damaged_chunks = len(store.damaged)
    sess.outcomes.append(outcome)
    return out


def _say_damaged(store, folder) -> None:
    """One line on stderr: the kept chunks that failed their checksum and were computed again."""
    idx = sorted(set(store.damaged))
    shown = ", ".join(str(j) for j in idx[:8]) + (", ..." if len(idx) > 8 else "")
    sys.stderr.write(f"run folder {str(folder.root)!r}: {len(idx)} kept chunk{'s' if len(idx) != 1 else ''} of "
                     f"{store.folder.name} damaged (failed {'their' if len(idx) != 1 else 'its'} checksum: "
                     f"chunk {shown}), computed again\n")
    sys.stderr.flush()


def _sequential(spec, plan, out, sess, store, bar, slice_seconds, first_step, outcome) -> np.ndarray:
    """Add blocks of chunks until the main metric's 95% half-width is at most the precision.

    Block ``b`` has the base plan's number of chunks, with keys ``SeedSequence(seed)``
    children ``n*b .. n*(b+1)-1`` (the first block is the plan itself) and a number of
    games chosen from the results so far (enough for the precision by the normal
    approximation, plus a tenth, at least the first block's size and at most three times
    the games so far), so the result depends only on the seed, the spec and the precision.

    Raises:
        LudolabError: the first block shows the precision would need more than ``max_games``.
    """
    ex = sess.settings
    from .metrics import half_width

    metric = resolve_kernel(spec.metric)
    target = float(ex.precision)
    n = plan.n_chunks
    keys, games = plan.keys, plan.games
    blocks = [out]
    while True:
        total = np.sum(np.concatenate(blocks, axis=0) if len(blocks) > 1 else out, axis=0)
        used = int(games.sum())
        value, hw = half_width(metric(total, used, *spec.metric_args))
        if math.isfinite(hw) and hw <= target:
            reached = True
            break
        if used >= ex.max_games:
            reached = False
            break
        if math.isfinite(hw) and hw > 0:
            need = used * (hw / target) ** 2 * 1.1
            if len(blocks) == 1 and need > ex.max_games:
                floor = hw * math.sqrt(used * 1.1 / ex.max_games)
                raise LudolabError(f"--precision {target:g} would need about {need:.2g} games (a run may use at most "
                                   f"{ex.max_games:.0e}): ask for a half-width of at least {floor:.2g}")
        else:
            need = 2 * used
        add = int(min(max(need - used, plan.n_games), 3 * used, ex.max_games - used))
        base, extra = divmod(add, n)
        m = n if base > 0 else extra
        g = np.full(m, base, dtype=np.int64)
        g[:extra] += 1
        k = chunk_keys(spec.seed, keys.size + m)[keys.size:]
        if store is not None:
            store.offset = keys.size
        acc, loaded = _run_block(spec, k, g, sess, store, None, slice_seconds, first_step)
        if bar is not None:
            bar.total = int(bar.total + g.sum())
            bar.update(int(g.sum()))
        outcome.loaded_chunks += loaded
        blocks.append(acc)
        keys = np.concatenate([keys, k])
        games = np.concatenate([games, g])
    out = np.concatenate(blocks, axis=0) if len(blocks) > 1 else out
    done = RunPlan(int(spec.seed), int(games.sum()), int(keys.size), keys, games)
    extra = {"precision": target, "half_width": hw, "precision_reached": reached, "blocks": len(blocks)}
    object.__setattr__(spec, "_sequential", (done, extra))
    outcome.games, outcome.chunks = int(games.sum()), int(keys.size)
    outcome.precision, outcome.value, outcome.half_width, outcome.reached = target, value, hw, reached
    return out
