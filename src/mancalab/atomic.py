"""Atomic operations on one word of a 2-D uint64 array, for compiled code run by several threads.

The tree statistics insert every child into the next level's hash table the moment it is
played, from every thread at once: a row is claimed with a compare-and-swap of its first key
word and multiplicities are added with an atomic add, so no two threads need a part of the
table of their own (and the children need no pass of their own to be sorted by owner first).
numba has no atomics for CPU code; these are LLVM's ``cmpxchg``, ``atomicrmw add``, an
acquiring load and a releasing store.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _on_word(operation):
    """The code generator of an intrinsic that applies ``operation(builder, pointer, args)``
    to ``array[row, col]`` (no bounds check)."""

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        row = context.cast(builder, args[1], signature.args[1], types.intp)
        col = context.cast(builder, args[2], signature.args[2], types.intp)
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [row, col])
        result = operation(builder, pointer, args)
        return context.get_dummy_value() if signature.return_type == types.void else result

    return codegen


def _is_word_array(array, row, col) -> bool:
    return (isinstance(array, types.Array) and array.ndim == 2 and array.dtype == types.uint64
            and isinstance(row, types.Integer) and isinstance(col, types.Integer))


@intrinsic
def compare_and_swap(typingctx, array, row, col, expected, new):
    """Set ``array[row, col]`` to ``new`` if it holds ``expected``; the value it held."""
    if not _is_word_array(array, row, col):
        return None
    return types.uint64(array, row, col, types.uint64, types.uint64), _on_word(
        lambda builder, pointer, args: builder.extract_value(
            builder.cmpxchg(pointer, args[3], args[4], "acq_rel", "acquire"), 0))


@intrinsic
def fetch_add(typingctx, array, row, col, amount):
    """Add ``amount`` to ``array[row, col]`` (wrapping at 2**64); the value it held."""
    if not _is_word_array(array, row, col):
        return None
    return types.uint64(array, row, col, types.uint64), _on_word(
        lambda builder, pointer, args: builder.atomic_rmw("add", pointer, args[3], "acq_rel"))


@intrinsic
def load_acquire(typingctx, array, row, col):
    """``array[row, col]``, read after every write the thread that stored it made before."""
    if not _is_word_array(array, row, col):
        return None
    return types.uint64(array, row, col), _on_word(
        lambda builder, pointer, args: builder.load_atomic(pointer, "acquire", 8))


@intrinsic
def store_release(typingctx, array, row, col, value):
    """Set ``array[row, col]`` to ``value``, after every write the thread made before it."""
    if not _is_word_array(array, row, col):
        return None
    return types.void(array, row, col, types.uint64), _on_word(
        lambda builder, pointer, args: builder.store_atomic(args[3], pointer, "release", 8))
