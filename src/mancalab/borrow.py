"""Arrays lent to compiled code without their owner, so that using them counts no references.

numba counts the references to an array's memory (its owner, a "meminfo") with an atomic
add each time compiled code makes a view of it or passes it to a function that is not
inlined: a kernel call, a row of a table. In a search that is a few atomic adds per move,
each tens of cycles, and a contended cache line when threads share the array: the alpha-beta
search spent about 45% of its time on them. An array without its owner is counted by a test
for null instead (numba's parallel loops hand their bodies the arrays in the same way).

A kernel that loops lends its own arguments to the code it calls: ``board = borrowed(board)``
at its top. Its caller holds the arrays until it returns, so their memory stays; a borrowed
array must never be returned, stored or made from an array the kernel allocated itself
(numba frees a local array after its last use, which may come before the borrowed view's).
Work space is therefore made by a small function that hands it to the loop, which lends it.
"""

from __future__ import annotations

from numba import types
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array


@intrinsic
def borrowed(typingctx, arrays):
    """``arrays``' view of the same memory with no owner (see the module's docstring): an
    array, or a tuple of arrays (a kernel's work space) lent element by element."""
    if isinstance(arrays, types.Array):
        def codegen(context, builder, signature, args):
            return _lend(context, builder, arrays, args[0])
    elif isinstance(arrays, types.BaseTuple) and all(isinstance(item, types.Array)
                                                     for item in arrays):
        def codegen(context, builder, signature, args):
            lent = [_lend(context, builder, item, builder.extract_value(args[0], i))
                    for i, item in enumerate(arrays)]
            return context.make_tuple(builder, arrays, lent)
    else:
        return None
    return arrays(arrays), codegen


def _lend(context, builder, array_type, value):
    lent = context.make_array(array_type)(context, builder, value=value)
    view = context.make_array(array_type)(context, builder)
    populate_array(view, data=lent.data, shape=lent.shape, strides=lent.strides,
                   itemsize=lent.itemsize, meminfo=None)
    return view._getvalue()
