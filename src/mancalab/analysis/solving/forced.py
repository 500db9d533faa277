"""Exact values by a search for forced ends, for the games no endgame database covers.

Urubugu keeps every bead in play, so there are no databases by beads in play, and its positions
can come round again. What a search can prove is what a player can *force*: "player P can make
the game end, by its written rules, with a margin of at least v for P, whatever the other does,
within d moves". That statement does not depend on how the position was reached (a repetition
only makes a line longer), so a transposition table keyed by the position and the depth left
holds. For the player to move, the best margin they force bounds the value from below, and the
best margin the opponent forces bounds it from above; where the two meet (a forced win with
every bead, a forced loss, or every line ending within the depth) the value is exact. Otherwise
the result is the proven bounds, labelled as not proven within the time given.

The search is a compiled alpha-beta (an explicit stack: numba does not cache a recursive
function) over the game's own kernels (``mancalab.kernels``), in the forcing player's view:
a position still going on at the depth limit is worth ``-BIG`` to them (nothing forced), below
any margin. Iterative deepening from depth 1 orders the moves (the table's best move first, then
by the margin after the move) and stops when the time runs out. Extra turns need no care: a
position is a max node when the forcing player is to move, a min node otherwise.
"""

from __future__ import annotations

import threading
import time as _time
from collections.abc import Callable

import numpy as np
from numba import njit

from ... import kernels, movemask
from ...borrow import borrowed
from ...core import ONGOING, State
from .results import (ABORTED, LIMIT, NODES, Cancel, SolveResult, hashes, settle_moves, spent,
                      timed)

BIG = 1 << 20  # "nothing forced within the depth", below any margin
MAX_DEPTH = 64  # plies; far beyond what a search reaches in a session
DEFAULT_TIME = 10.0  # seconds, when a solve gives none: the search never ends by itself
BEST_MOVES_TIME = 0.2  # seconds at least for the other best moves of a proven position
TABLE_BITS = 20  # entries (two words each): 16 MiB
EXACT, LOWER, UPPER = 0, 1, 2
PLAYER_TAG = np.uint64(0x5851F42D4C957F2D)  # keys of the other forcing player differ
WIDTH = 64  # moves are cells, below 64 (one more slot per ply holds a node's counts)


@njit(cache=True, inline="always")
def _pack(value, depth, flag, move):
    return (np.uint64(value + BIG + 1) | (np.uint64(depth) << np.uint64(32))
            | (np.uint64(flag) << np.uint64(40)) | (np.uint64(move + 1) << np.uint64(48)))


@njit(cache=True, inline="always")
def _unpack(word):
    value = np.int64(word & np.uint64(0xFFFFFFFF)) - BIG - 1
    depth = np.int64((word >> np.uint64(32)) & np.uint64(0xFF))
    flag = np.int64((word >> np.uint64(40)) & np.uint64(0xFF))
    move = np.int64((word >> np.uint64(48)) & np.uint64(0xFF)) - 1
    return value, depth, flag, move


@njit(cache=True, inline="always")
def _key(board, player, mask):
    """The table slot and check of ``board`` searched for ``player`` (lockless: the check is
    kept xor the data, so an entry torn by another thread is missed, never misread)."""
    h1, h2 = hashes(board)
    if player == 1:
        h1 ^= PLAYER_TAG
        h2 ^= PLAYER_TAG
    return np.int64(h1 & mask), h2


@njit(cache=True, inline="always")
def _probe(table, slot, check):
    """(found, value, depth, flag, move) of the entry for ``check``."""
    data = table[slot, 1]
    if table[slot, 0] ^ data != check or data == 0:
        return False, 0, 0, 0, -1
    value, depth, flag, move = _unpack(data)
    return True, value, depth, flag, move


@njit(cache=True, inline="always")
def _store(table, slot, check, value, depth, flag, move):
    data = _pack(value, depth, flag, move)
    table[slot, 0] = check ^ data
    table[slot, 1] = data


@njit(cache=True, inline="always")
def _margin(params, board, player):
    margin = kernels.margin(params, board)  # player 0's
    return margin if player == 0 else -margin


def forced(params, root, player, depth, total, table, stats):
    """The best margin ``player`` forces from ``root`` (going on) within ``depth`` plies,
    ``-BIG`` if none, and the move that forces it at the root (-1 if ``player`` is not to move
    or nothing is forced). ``total``: the seeds or beads in the game (|margin| <= total).
    ``stats[ABORTED]`` is set when the node budget ``stats[LIMIT]`` runs out (the answer is
    then meaningless)."""
    size, width = root.shape[0], WIDTH
    work = (np.empty((depth + 1, size), dtype=np.int64),
            np.empty((depth + 1, width, size), dtype=np.int64),
            np.empty((3, depth + 1, width + 1), dtype=np.int64),
            np.zeros((9, depth + 1), dtype=np.int64), np.empty(depth + 1, dtype=np.uint64),
            np.empty(depth + 1, dtype=np.bool_), np.empty(width, dtype=np.int64))
    return _forced(params, root, player, depth, total, table, stats, work)


@njit(cache=True, nogil=True)
def _forced(params, root, player, depth, total, table, stats, work):
    """``forced``'s loop in the work space ``forced`` makes in Python (no allocation compiled
    here), every array lent (``mancalab.borrow``)."""
    params, root, table, stats = borrowed(params), borrowed(root), borrowed(table), borrowed(stats)
    boards, kids, per_kid, per_ply, checks, maxing, estimate = borrowed(work)
    kid_value, kid_move, order = per_kid[0], per_kid[1], per_kid[2]
    n_kids, next_kid, alpha, beta = per_ply[0], per_ply[1], per_ply[2], per_ply[3]
    alpha0, beta0 = per_ply[4], per_ply[5]  # the window the node was entered with
    best, best_move, slots = per_ply[6], per_ply[7], per_ply[8]
    size, width = root.shape[0], WIDTH
    mask = np.uint64(table.shape[0] - 1)
    kernels.copy_into(boards[0], root)
    alpha[0], beta[0] = -BIG - 1, total + 1
    ply = 0
    entering = True
    value = 0
    while True:
        if entering:
            if spent(stats):
                return 0, -1
            left = depth - ply
            board = boards[ply]
            maxing[ply] = board[size - 2] == player
            slots[ply], checks[ply] = _key(board, player, mask)
            alpha0[ply], beta0[ply] = alpha[ply], beta[ply]
            found, v, d, flag, first = _probe(table, slots[ply], checks[ply])
            settled = False
            if found and d >= left:
                settled = (flag == EXACT or (flag == LOWER and v >= beta[ply])
                           or (flag == UPPER and v <= alpha[ply]))
            if not found:
                first = -1
            best_move[ply] = first
            if not settled:
                settled, v = _children(params, board, player, left, maxing[ply], alpha[ply],
                                       beta[ply], total, first, table, mask, slots[ply],
                                       checks[ply], kids[ply], kid_value[ply], kid_move[ply],
                                       order[ply], estimate, stats)
                n_kids[ply] = order[ply, width]
                best[ply] = kid_value[ply, width]  # the best of the settled children
                best_move[ply] = kid_move[ply, width]
            if settled:
                value = v
                if ply == 0:
                    return value, (best_move[0] if maxing[0] and value > -BIG else -1)
                ply -= 1
                entering = False
                continue
            next_kid[ply] = 0
        else:  # the child searched last is worth ``value``
            i = order[ply, next_kid[ply] - 1]
            if (value > best[ply]) if maxing[ply] else (value < best[ply]):
                best[ply], best_move[ply] = value, kid_move[ply, i]
            if maxing[ply]:
                alpha[ply] = max(alpha[ply], value)
            else:
                beta[ply] = min(beta[ply], value)
            if alpha[ply] >= beta[ply] or (best[ply] >= total if maxing[ply]
                                           else best[ply] <= -BIG):
                next_kid[ply] = n_kids[ply]  # cut
        if next_kid[ply] < n_kids[ply]:
            i = order[ply, next_kid[ply]]
            next_kid[ply] += 1
            kernels.copy_into(boards[ply + 1], kids[ply, i])
            alpha[ply + 1], beta[ply + 1] = alpha[ply], beta[ply]
            ply += 1
            entering = True
            continue
        value = best[ply]
        flag = (UPPER if value <= alpha0[ply] else LOWER if value >= beta0[ply] else EXACT)
        _store(table, slots[ply], checks[ply], value, depth - ply, flag, best_move[ply])
        if ply == 0:
            return value, (best_move[0] if maxing[0] and value > -BIG else -1)
        ply -= 1
        entering = False


@njit(cache=True, inline="always")
def _children(params, board, player, left, maxing, alpha, beta, total, first, table, mask,
              slot, check, kids, kid_value, kid_move, order, estimate, stats):
    """A node's own work: every move played; the children that settle at once (the game
    over, the depth limit reached, a bound in the table) counted first, for a cut without
    searching any. Returns (settled, value); otherwise the children to search are in
    ``order`` (their number in its extra last slot; the best settled child in the extra last
    slots of ``kid_value`` and ``kid_move``)."""
    width = WIDTH
    worst = -BIG - 1 if maxing else BIG + 1
    top, top_move = worst, -1
    legal = kernels.legal_mask(params, board)
    count = 0
    searched = 0
    while legal:
        move = movemask.lowest(legal)
        legal &= legal - movemask.ONE
        kid = kids[count]
        kernels.copy_into(kid, board)
        kernels.play(params, kid, move)
        stats[NODES] += 1  # every position played counts, the ones at the depth limit too
        kid_move[count] = move
        known = True
        if kid[kid.shape[0] - 1] != ONGOING:
            v = _margin(params, kid, player)
        elif left <= 1:
            v = -BIG
        else:
            kid_slot, kid_check = _key(kid, player, mask)
            found, cv, cd, flag, _ = _probe(table, kid_slot, kid_check)
            known = False
            if found and cd >= left - 1:
                if flag == EXACT or (flag == LOWER and maxing and cv >= beta) or (
                        flag == UPPER and not maxing and cv <= alpha):
                    v, known = cv, True
            estimate[count] = _margin(params, kid, player)
        if known:
            if (v > top) if maxing else (v < top):
                top, top_move = v, move
            if (maxing and (top >= beta or top >= total)) or (not maxing and (
                    top <= alpha or top <= -BIG)):
                break
        else:
            order[searched] = count
            searched += 1
        count += 1
    kid_value[width], kid_move[width] = top, top_move
    cut = (maxing and (top >= beta or top >= total)) or (not maxing and (
        top <= alpha or top <= -BIG))
    if cut or searched == 0:
        flag = UPPER if top <= alpha else (LOWER if top >= beta else EXACT)
        _store(table, slot, check, top, left, flag, top_move)
        return True, top
    for i in range(1, searched):  # the table's move first, then the most promising
        key = order[i]
        j = i - 1
        while j >= 0 and _before(kid_move[key], estimate[key], kid_move[order[j]],
                                 estimate[order[j]], first, maxing):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = key
    order[width] = searched
    return False, 0


@njit(cache=True, inline="always")
def _before(move_a, estimate_a, move_b, estimate_b, first, maxing):
    if move_a == first:
        return move_b != first
    if move_b == first:
        return False
    return estimate_a > estimate_b if maxing else estimate_a < estimate_b


# ----- the Python side ----------------------------------------------------------------
class Searcher:
    """The table and the measured speed of the forced-end search, kept between solves (and
    shared by the threads of a server: the table is lockless, see ``_key``)."""

    def __init__(self, table_bits: int = TABLE_BITS) -> None:
        self.table = np.zeros((1 << table_bits, 2), dtype=np.uint64)
        self.rate = 1e6  # nodes a second, measured as it goes
        self._warm_up()

    def _warm_up(self) -> None:
        """Compile (or load from the cache) the search now, not inside the first timed solve."""
        from ...variants import urubugu

        state = urubugu.Urubugu().start()
        stats = np.zeros(4, dtype=np.int64)
        stats[LIMIT] = 10
        forced(state.variant.params, state.board, 0, 1, 64, self.table, stats)

    def forced(self, params, board, player, depth, total, deadline, cancel,
               tally: list[int]) -> tuple[int, int] | None:
        """``forced`` within the time left; None when it ran out or was stopped. The nodes
        searched are added to ``tally[0]``."""
        stats = np.zeros(4, dtype=np.int64)
        stats[LIMIT] = (np.iinfo(np.int64).max if deadline is None
                        else max(1000, int((deadline - _time.perf_counter()) * self.rate)))
        if not cancel.track(stats):
            return None
        started = _time.perf_counter()
        try:
            value, move = forced(params, board, player, depth, total, self.table, stats)
        finally:
            cancel.untrack(stats)
        spent = _time.perf_counter() - started
        tally[0] += int(stats[NODES])
        if stats[NODES] > 100_000 and not stats[ABORTED]:
            self.rate = stats[NODES] / max(spent, 1e-6)
        return None if stats[ABORTED] else (int(value), int(move))

    def bounds(self, params, board, player, depth, deadline, cancel, total, tally):
        """(lower, upper, move) on the final margin for ``player`` from ``board``, proven by
        forced ends within ``depth`` plies; None when the time ran out."""
        mine = self.forced(params, board, player, depth, total, deadline, cancel, tally)
        if mine is None:
            return None
        theirs = self.forced(params, board, 1 - player, depth, total, deadline, cancel,
                             tally)
        if theirs is None:
            return None
        lower = mine[0] if mine[0] > -BIG else -total
        upper = -theirs[0] if theirs[0] > -BIG else total
        return lower, upper, mine[1]


_SEARCHER: Searcher | None = None
_SEARCHER_LOCK = threading.Lock()


def warm_up() -> None:
    """Compile (or load from the cache) the search now: a server's first Urubugu analysis
    then waits for no compiling."""
    searcher()


def searcher() -> Searcher:
    """The process's searcher (its table warm from earlier solves)."""
    global _SEARCHER
    with _SEARCHER_LOCK:
        if _SEARCHER is None:
            _SEARCHER = Searcher()
        return _SEARCHER


def solve(state: State, time: float | None = None, moves: bool = False,
          cancel: Cancel | None = None,
          on_bounds: Callable[[int, int], None] | None = None) -> SolveResult:
    """The value of ``state`` (going on) for the player to move, or the bounds proven within
    ``time`` seconds (``DEFAULT_TIME`` when None): see ``solving.solve``.
    With ``moves`` the position takes half the time, and the moves share the rest; without,
    the best moves other than the proving one are looked for as long as the proof took."""
    started = _time.perf_counter()
    search, tally = searcher(), [0]
    cancel = cancel or Cancel()
    time = DEFAULT_TIME if time is None else time
    with timed(time, cancel) as deadline:
        own = deadline - time / 2 if moves else deadline
        lower, upper, proving, reached = _deepen(search, state, state.to_move, own, cancel,
                                                 tally, on_bounds)
        exact = lower == upper
        result = SolveResult(lower if exact else None, exact, lower, upper, [], [],
                             depth=reached)
        if moves:
            _moves(state, result, search, deadline, cancel, True, tally)
        elif exact:  # the other best moves: a look as long as the proof took (moves that
            # do not reach the value are never settled, so they would take all the time)
            spent = _time.perf_counter() - started
            _moves(state, result, search, min(deadline, _time.perf_counter() + max(
                BEST_MOVES_TIME, spent)), cancel, False, tally)
    if exact and not result.best_moves and proving >= 0:
        result.best_moves.append(proving)
    settle_moves(result)
    result.best_move_names = [state.move_name(m) for m in result.best_moves]
    result.nodes = tally[0]
    result.seconds = _time.perf_counter() - started
    return result


def _deepen(search, state, player, deadline, cancel, tally, on_bounds=None):
    """Iterative deepening of the bounds on ``player``'s final margin from ``state`` until
    they meet or the time runs out: (lower, upper, the move proving the lower bound or -1,
    the depth reached)."""
    total = int(sum(state.cells))
    if state.is_over:
        a, b = state.score
        return (a - b, a - b, -1, 0) if player == 0 else (b - a, b - a, -1, 0)
    lower, upper, proving, reached = -total, total, -1, 0
    for depth in range(1, MAX_DEPTH + 1):
        found = search.bounds(state.variant.params, state.board, player, depth, deadline,
                              cancel, total, tally)
        if found is None:
            break
        reached = depth
        if found[2] >= 0 and found[0] > lower:
            proving = found[2]
        lower, upper = max(lower, found[0]), min(upper, found[1])
        if on_bounds:
            on_bounds(lower, upper)
        if lower == upper:
            break
    return lower, upper, proving, reached


def _moves(state, result, search, deadline, cancel, keep, tally) -> None:
    """Each legal move's bounds, the moves sharing the time left, and the best moves among
    them when the value is exact; ``keep``: the bounds go into ``result.moves``."""
    legal = state.legal_moves()
    for i, move in enumerate(legal):
        share = (deadline - _time.perf_counter()) / (len(legal) - i)
        lower, upper, _, _ = _deepen(search, state.play(move), state.to_move,
                                     _time.perf_counter() + share, cancel, tally)
        if keep:
            result.moves[move] = (lower, upper)
            result.move_names[move] = state.move_name(move)
        if result.exact and lower >= result.value:
            result.best_moves.append(move)
