"""Arrays lent to compiled code without their owner (mancalab.borrow): the same memory, and no
reference counted or lost."""

import sys

import numpy as np
from numba import njit
from numba.core.runtime import _nrt_python, rtsys

import mancalab
from mancalab.borrow import borrowed
from mancalab.players import mcts
from mancalab.search import Search


@njit(cache=True)
def _fill_rows(table, value):
    table = borrowed(table)
    for row in range(table.shape[0]):
        view = table[row]  # a view of a lent array: no owner to count
        view[:] = value + row
    return table.shape[0]


def test_a_lent_array_is_the_same_memory():
    table = np.zeros((4, 3), dtype=np.int64)
    assert _fill_rows(table, 10) == 4
    assert table.tolist() == [[10] * 3, [11] * 3, [12] * 3, [13] * 3]


def test_lending_neither_counts_a_reference_nor_frees_memory():
    table = np.zeros((8, 2), dtype=np.int64)
    _fill_rows(table, 0)
    references = sys.getrefcount(table)
    _nrt_python.memsys_enable_stats()  # as NUMBA_NRT_STATS=1 at start would
    before = rtsys.get_allocation_stats()
    _fill_rows(table, 1)
    state = mancalab.variant("kalah").start()
    Search().deepen(state, 0.1, depth=4, unlimited=True)
    mcts.SearchTree(state.board).run(state.variant, 200, 1.4)
    after = rtsys.get_allocation_stats()
    _nrt_python.memsys_disable_stats()
    assert sys.getrefcount(table) == references
    assert after.alloc - before.alloc == after.free - before.free  # nothing kept, nothing lost
    assert after.mi_alloc - before.mi_alloc == after.mi_free - before.mi_free
