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
"""

from __future__ import annotations

from numba import types
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array


@intrinsic
def borrowed(typingctx, array):
    """``array``'s view of the same memory with no owner (see the module's docstring)."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, signature, args):
        lent = context.make_array(array)(context, builder, value=args[0])
        view = context.make_array(array)(context, builder)
        populate_array(view, data=lent.data, shape=lent.shape, strides=lent.strides,
                       itemsize=lent.itemsize, meminfo=None)
        return view._getvalue()

    return array(array), codegen
