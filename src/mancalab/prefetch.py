"""A software prefetch for compiled code: ask the CPU to fetch a table row before it is needed.

The tree statistics insert hundreds of millions of positions into hash tables far larger than
the CPU caches, so each insert would wait for main memory; announcing the row a few inserts
ahead lets those waits overlap (about 5x faster inserts on this machine). The solver asks for
the table buckets and database entries of all children of a node before it looks at any.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_I8_PTR = ir.IntType(8).as_pointer()
_I32 = ir.IntType(32)
_NAME = "llvm.prefetch.p0i8"  # LLVM with opaque pointers reads this name as llvm.prefetch.p0


@intrinsic
def prefetch_row(typingctx, array, row):
    """Prefetch ``array[row, 0]`` of a 2-D array, or ``array[row]`` of a 1-D one, for reading
    and writing (no bounds check)."""
    if not (isinstance(array, types.Array) and array.ndim in (1, 2)
            and isinstance(row, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        row_index = context.cast(builder, args[1], signature.args[1], types.intp)
        indices = [row_index, zero][:array_type.ndim]
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, indices)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [_I8_PTR, _I32, _I32, _I32]), _NAME)
        # rw=1 (the row will be written), locality=3 (keep in all cache levels), data cache
        builder.call(function, [builder.bitcast(pointer, _I8_PTR), _I32(1), _I32(3), _I32(1)])
        return context.get_dummy_value()

    return types.void(array, row), codegen
