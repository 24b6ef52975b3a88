"""Processes that share numba's on-disk kernel cache take turns on each kernel.

numba writes a cached kernel as an index file (signature -> data file name) and a data file, with no
lock between processes.  Two processes that compile the same kernel at the same time (the test
session's workers, a cluster's workers on one machine, two ``ludolab`` commands started together) can
both read the index before either writes it, pick the same data file for different signatures, and
leave an index that names the other process's code, or a parallel kernel whose parts come from two
different compilations.  A process that loads such an entry runs machine code built for other
arguments, and fails later at some unrelated place (numba issues #4807 and #10128 describe the
race; numba's developers suggest a file lock).

Every module of ``ludolab.sim`` that defines kernels imports this one, which calls :func:`install`; it
wraps numba's ``Dispatcher.compile`` (which loads a cached kernel or compiles and
saves it) so that, for a kernel with a disk cache, it runs holding an exclusive lock on a file beside
that kernel's index (``<index>.lock``, :mod:`filelock`).  The second process then waits, and loads
what the first saved instead of compiling it again.  Inside one process the wrapper takes numba's
own compiler lock first, so only the thread that compiles holds file locks; the locks nest along the
call graph (a kernel's compile compiles its callees), which has no cycles, so processes cannot
deadlock.  Where the lock file cannot be made (a read-only cache folder) the kernel compiles as
numba does by itself.

``tests/test_kernel_cache.py`` runs processes that compile the same kernels side by side and checks
that every signature of every kernel is in its index afterwards.

The answers at the table (the ``advise`` commands) call :func:`light_loads`: their cached kernels
load without numba filling its typing and lowering registries first, which only compiling needs.
"""

from __future__ import annotations

import sys
import threading

from filelock import FileLock
from numba.core import caching, dispatcher, environment
from numba.core.compiler_lock import global_compiler_lock
from numba.core.runtime import nrt

_locks: dict[str, FileLock] = {}
_guard = threading.Lock()
_ORIGINAL = dispatcher.Dispatcher.compile
_ORIGINAL_LOAD = caching.Cache.load_overload
_ORIGINAL_REBUILD_ENV = environment._rebuild_env
#: ``on``: :func:`light_loads` is in effect; ``loads``: kernels loaded from the cache that way.
_LIGHT = {"on": False, "loads": 0}


def _lock_for(disp) -> FileLock | None:
    """The file lock of ``disp``'s disk cache, or None when it has none (or the lock cannot be made)."""
    cache = getattr(disp, "_cache", None)
    if not isinstance(cache, caching.Cache):
        return None
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    if not index:
        return None
    path = index + ".lock"
    with _guard:
        lock = _locks.get(path)
        if lock is None:
            lock = _locks[path] = FileLock(path, thread_local=False)
    return lock


def _compile(self, sig):
    """numba's ``Dispatcher.compile`` holding the compiler lock, then the kernel's cache lock."""
    with global_compiler_lock:
        lock = _lock_for(self)
        if lock is None:
            return _ORIGINAL(self, sig)
        try:
            lock.acquire()
        except OSError:  # the cache folder takes no lock file: compile as numba does alone
            return _ORIGINAL(self, sig)
        try:
            return _ORIGINAL(self, sig)
        finally:
            lock.release()


def _load_overload(self, sig, target_context):
    """numba's ``Cache.load_overload``; under :func:`light_loads` without filling the typing and
    lowering registries first (the runtime the cached code calls is started all the same)."""
    if not _LIGHT["on"]:
        return _ORIGINAL_LOAD(self, sig, target_context)
    nrt.rtsys.initialize(target_context)
    with self._guard_against_spurious_io_errors():
        cres = self._load_overload(sig, target_context)
    if cres is not None:
        _LIGHT["loads"] += 1
    return cres


def _rebuild_env(modname, consts, env_name):
    """numba's ``_rebuild_env`` (a cached kernel's environment, unpickled as it loads); under
    :func:`light_loads`, for a numba module not yet imported, without importing it: the environment
    gets a stand-in for that module's globals, which only object-mode code reads (``pylowering``),
    and numba's library code inlined in a kernel (array creation, strings) is nopython code."""
    if not (_LIGHT["on"] and modname and modname.startswith("numba.") and modname not in sys.modules):
        return _ORIGINAL_REBUILD_ENV(modname, consts, env_name)
    env = environment.lookup_environment(env_name)
    if env is not None:
        return env
    env = environment.Environment({"__name__": modname})
    env.consts[:] = consts
    env.env_name = env_name
    environment.Environment._memo[env_name] = env
    return env


# a kernel compiled under light_loads pickles its environments naming numba's function, as always
_rebuild_env.__module__ = _ORIGINAL_REBUILD_ENV.__module__
_rebuild_env.__qualname__ = _ORIGINAL_REBUILD_ENV.__qualname__


def light_loads() -> None:
    """From now on in this process, a kernel found in the disk cache is loaded without numba first
    filling its typing and lowering registries, for the answers at the table (``advise``).

    numba fills them before every cache load (about 0.2 s, most of a warm ``advise``'s start-up
    beside numba's import), though loading machine code needs only numba's runtime, which is still
    started.  Nor does a load import numba's lowering modules (``numba.np.arrayobj`` and the string
    modules it pulls in, about 0.05 s) for the environments of the library code inlined in a kernel:
    only object-mode code reads an environment's module globals (:func:`_rebuild_env`).  A kernel
    that is not in the cache compiles as always, and numba's compiler fills the registries itself
    before it compiles.  ``tests/test_table_answers.py`` runs every ``advise`` that loads kernels in
    fresh processes both ways and holds their answers equal.

    Raises:
        nothing; it replaces ``numba.core.environment._rebuild_env`` (see :func:`_rebuild_env`).
    """
    _LIGHT["on"] = True
    environment._rebuild_env = _rebuild_env


def install() -> None:
    """Make every cached kernel's load-or-compile hold its cache lock (idempotent), and let
    :func:`light_loads` choose how a cached kernel is loaded.

    Raises:
        nothing; it only replaces ``numba.core.dispatcher.Dispatcher.compile`` and
        ``numba.core.caching.Cache.load_overload``.
    """
    dispatcher.Dispatcher.compile = _compile
    caching.Cache.load_overload = _load_overload


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return dispatcher.Dispatcher.compile is _compile


install()
