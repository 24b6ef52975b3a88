"""The few numba extensions written by hand (LLVM intrinsics), kept in one place.

* :func:`popcount` / :func:`popcount64`: the number of set bits of an integer, one
  ``ctpop`` instruction (numba has no population count of its own; ``np.bitwise_count``
  does not compile).  Shut The Books counts cards in its 60-bit card sets with it,
  Shelve the Book runs of books in its pair codes.
* :func:`borrow` / :func:`keep`: a view of an array that numba does not count references
  on.  The Shut The Books hot loops pass their state and scratch arrays through many inlined
  calls, and counting references on each costs more than the game itself; ``borrow`` makes
  the view from the array's data pointer (``carray``), and ``keep`` is a use of the owner
  after the loops so it is not released while a view is alive.

``tests/test_lowlevel.py`` fails when numba's behaviour under these changes (a view that no
longer aliases its owner, a count that differs from Python's).
"""

from __future__ import annotations

from numba import carray, njit
from numba.core import cgutils, types
from numba.extending import intrinsic

from . import kernel_cache as _kernel_cache  # noqa: F401  (processes sharing the cache take turns)


@intrinsic
def _address(typingctx, src):
    """An integer address as a void pointer (for :func:`borrow`)."""
    sig = types.voidptr(src)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return sig, codegen


@njit(cache=True, inline="always")
def borrow(a):
    """A view of the C-contiguous array ``a`` (any shape and dtype) that does not count references.

    The caller keeps ``a`` alive while the view is used (see :func:`keep`)."""
    return carray(_address(a.ctypes.data), a.shape, a.dtype)


@njit(cache=True)
def keep(a):
    """A use of ``a`` after the loops that borrow it, so it is not released earlier; returns ``a.shape[0]``."""
    return a.shape[0]


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of the integer ``x``, in ``x``'s own type (LLVM ``ctpop``)."""
    sig = x(x)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def popcount64(typingctx, x):
    """The number of set bits of the unsigned or signed integer ``x`` as an int64 (LLVM ``ctpop``)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.zext(builder.ctpop(args[0]), context.get_value_type(types.int64))

    return types.int64(x), codegen
