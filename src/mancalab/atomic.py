"""Atomic operations on one word of a 2-D uint64 array, for compiled code run by several threads.

The tree statistics insert every child into the next level's hash table the moment it is
played, from every thread at once: a row is claimed with a compare-and-swap of its first key
word and multiplicities are added with an atomic add, so no two threads need a part of the
table of their own (and the children need no pass of their own to be sorted by owner first).
numba has no atomics for CPU code; these are LLVM's ``cmpxchg``, ``atomicrmw add`` and an
acquiring load.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _word(context, builder, signature, args):
    """The pointer to ``array[row, col]`` (no bounds check)."""
    array_type = signature.args[0]
    view = context.make_array(array_type)(context, builder, args[0])
    row = context.cast(builder, args[1], signature.args[1], types.intp)
    col = context.cast(builder, args[2], signature.args[2], types.intp)
    return cgutils.get_item_pointer(context, builder, array_type, view, [row, col])


def _is_word_array(array, row, col) -> bool:
    return (isinstance(array, types.Array) and array.ndim == 2 and array.dtype == types.uint64
            and isinstance(row, types.Integer) and isinstance(col, types.Integer))


@intrinsic
def compare_and_swap(typingctx, array, row, col, expected, new):
    """Set ``array[row, col]`` to ``new`` if it holds ``expected``; the value it held."""
    if not _is_word_array(array, row, col):
        return None

    def codegen(context, builder, signature, args):
        pointer = _word(context, builder, signature, args)
        pair = builder.cmpxchg(pointer, args[3], args[4], "acq_rel", "acquire")
        return builder.extract_value(pair, 0)

    return types.uint64(array, row, col, types.uint64, types.uint64), codegen


@intrinsic
def fetch_add(typingctx, array, row, col, amount):
    """Add ``amount`` to ``array[row, col]`` (wrapping at 2**64); the value it held."""
    if not _is_word_array(array, row, col):
        return None

    def codegen(context, builder, signature, args):
        pointer = _word(context, builder, signature, args)
        return builder.atomic_rmw("add", pointer, args[3], "acq_rel")

    return types.uint64(array, row, col, types.uint64), codegen


@intrinsic
def load_acquire(typingctx, array, row, col):
    """``array[row, col]``, read after every write the thread that stored it made before."""
    if not _is_word_array(array, row, col):
        return None

    def codegen(context, builder, signature, args):
        pointer = _word(context, builder, signature, args)
        return builder.load_atomic(pointer, "acquire", 8)

    return types.uint64(array, row, col), codegen


@intrinsic
def store_release(typingctx, array, row, col, value):
    """Set ``array[row, col]`` to ``value``, after every write the thread made before it."""
    if not _is_word_array(array, row, col):
        return None

    def codegen(context, builder, signature, args):
        pointer = _word(context, builder, signature, args)
        builder.store_atomic(args[3], pointer, "release", 8)
        return context.get_dummy_value()

    return types.void(array, row, col, types.uint64), codegen
