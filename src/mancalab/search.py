"""Alpha-beta search: compiled negamax with iterative deepening, a transposition table,
move ordering and time management. The alpha-beta player plays with it, and the exact solver
takes its first guess from it.

- A position is valued for the player to move: the score margin at the search horizon
  (``kernels.material``: in 3-row Gabata the seeds held, which carry across rounds), and at the
  end of the game the margin plus or minus WIN (a won game beats any margin).
- Oware's value adds terms of the board's shape to the margin, fitted to deeper searches
  (``scored``); the search counts in eighths of a seed and answers in seeds.
- Extra turns: when a move leaves the same player to move, the child's value is not negated
  and the window is not flipped (the same player moving again is not a ply for the opponent).
- Ordering: the transposition table's best move first, then by a history score that grows
  with every cut-off a move causes. The moves after the first are searched with a null
  window (principal variation search), again with the whole window when one beats it.
- The table keeps a result with the depth it was searched to, except one whose search met no
  horizon: that is the game's own value and serves any depth (a search to the end meets its
  transpositions at other plies: Kalah(4,3) solved in 2.1 M positions instead of 5.4 M).
  Its entries come in buckets of four (one cache line): a new result takes the slot
  searched least deep, an entry of an earlier search counted three plies less deep.
- The game's history: where a position's recurrence ends the game (Oware's first, Gebeta's
  third: ``kernels.repetitions_of``), a move that makes a position occur that often, counting
  the game's positions before the root (``history``) and those on the search's path, ends the
  game there by its rule (``kernels.stop``). Such a value depends on the path: its node is
  kept in the table as one that met a horizon (a search that meets one is not exact), and a
  node whose value a recurrence of a position above it made (on the path or before the root)
  is kept for its move only, so that another path to it searches it again. A value searched
  on a path lacking a position that a line below repeats on another path is still taken
  (the graph history interaction: the table cannot know the positions of the lines below).
- Endgame tables (Oware's, ``kernels.table_bounds``): they bound a position's final margin
  over every history, and their signs are the game's (the end by score changes the margin,
  not the winner). A position they prove won or lost beyond the window settles at once (a
  bound, as a cut-off returns: a win is worth more than WIN), one they prove drawn at 0.
- Time: iterative deepening from depth 1; the next depth starts while it can search at least
  its first move (the table's) in time, and a node budget stops a depth that runs over, as does
  an alarm at the end of the budget (a deeper depth searches fewer nodes a second than the one
  before, so the node budget alone overran a second's search by up to half a second). A depth
  so stopped answers with the best of the root's moves it searched whole, if any.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np
from numba import njit

from . import kernels, movemask
from .borrow import borrowed
from .core import DRAW, ONGOING, POSITION_UNIT, TIMEOUT, WIN_0, State

WIN = 1_000_000  # a won game's value, plus the final margin
INFINITY = 10 * WIN
EXACT, LOWER, UPPER = 0, 1, 2  # what a table value is: exact, a lower or an upper bound
# the table's size, 2 ** TT_BITS entries of 16 bytes (16 MiB): 20 Oware positions searched to
# depth 19 in 219 M nodes, 287 M with a quarter of it (benchmarks/bench_search.py --to-depth)
TT_BITS = 20
MAX_DEPTH = 64
# with time kept (a clock), the next depth starts while this many times the last depth's time
# is left: it takes about three times as long, its first move (the table's) about half of
# that, and a depth cut off by the time answers with the moves it searched whole
NEXT_SHARE = 1.5
# a table entry is a key and one word: the value, the depth searched (COMPLETE: the search
# met no horizon), the kind of value, the best move (plus 1: 0 for none) and the number of
# the search that stored it (modulo AGES)
VALUE_OFFSET, VALUE_MASK = 1 << 31, (1 << 32) - 1
DEPTH_SHIFT, KIND_SHIFT, MOVE_SHIFT, AGE_SHIFT = 32, 48, 50, 58
AGES = 32
# a key's entry is one of a bucket's four slots (one cache line); a new one takes the slot
# searched least deep, an earlier search's entry counted AGE_PENALTY plies less deep: along
# whole Oware games, one table kept across the moves, a third fewer positions to the same
# depth than two slots (benchmarks/README.md); an earlier search's entries replaced first
# searched more (the last move's deep results serve the next)
BUCKET, AGE_PENALTY = 4, 3
COMPLETE = (1 << 16) - 1  # deeper than any search (``negamax`` refuses a deeper one)
# stats slots: DEPENDS is the lowest ply of the search's path whose position a repetition
# below recurred (-1: one of the game's positions before the root; NO_DEPENDENCE: none);
# AGE, given, the search's number (its table entries')
NODES, NODE_LIMIT, ABORTED, HORIZON, DEPENDS, AGE = 0, 1, 2, 3, 4, 5
NO_DEPENDENCE = MAX_DEPTH + 1


@njit(cache=True, inline="always")
def evaluate(params, board):
    """The value of a position for the player to move (see the module docstring)."""
    mover = board[-2]
    margin = kernels.material(params, board, mover) - kernels.material(params, board, 1 - mover)
    status = board[-1]
    if status == ONGOING or status == TIMEOUT:
        return margin
    if status == DRAW:
        return 0
    winner = 0 if status == WIN_0 else 1
    return margin + (WIN if winner == mover else -WIN)


UNIT = POSITION_UNIT  # the search's values are in eighths of a seed


@njit(cache=True, inline="always")
def scored(params, board):
    """``evaluate`` in ``UNIT``s, with a game's positional terms where it has them (Oware):
    the search's own value of a position. ``in_seeds`` takes it back to seeds."""
    value = evaluate(params, board) * UNIT
    if board[-1] == ONGOING:
        value += kernels.positional(params, board)
    return value


def in_seeds(value: int) -> int:
    """A value of ``scored`` in seeds (rounded, halves to even: the same for both sides)."""
    return int(round(value / UNIT))


@njit(cache=True, inline="always")
def _ordered_moves(legal, first, history, out):
    """The moves of ``legal``: ``first`` (if legal) then by history, highest first."""
    n = movemask.to_array(legal, out)
    for i in range(1, n):  # insertion sort: a handful of moves
        move = out[i]
        key = INFINITY if move == first else history[move]
        j = i - 1
        while j >= 0 and (INFINITY if out[j] == first else history[out[j]]) < key:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = move
    return n


@njit(cache=True, inline="always")
def _entry_of(key, table):
    """The slot of ``key``'s entry in ``table``, or -1 (with the first slot of its bucket,
    ``-2 - slot``) when it has none."""
    first = np.int64(np.uint64(key) & np.uint64(table.shape[0] - BUCKET))
    for slot in range(first, first + BUCKET):
        if table[slot, 0] == key:
            return slot
    return -2 - first


@njit(cache=True, inline="always")
def _table_probe(key, depth, alpha, beta, table, stats, found):
    """Look the position of ``key`` (``kernels.position_key``) up: ``found[0]`` = 1 and
    the value when the entry settles it; the entry's best move in ``found[1]`` (-1 if
    none)."""
    found[0], found[1] = 0, -1
    if table.shape[0] == 0:  # an empty table turns it off (for tests)
        return 0
    slot = _entry_of(np.int64(key), table)
    if slot < 0:
        return 0
    data = table[slot, 1]
    found[1] = ((data >> MOVE_SHIFT) & 0xFF) - 1
    stored_depth = (data >> DEPTH_SHIFT) & COMPLETE
    if stored_depth != COMPLETE and stored_depth < depth:
        return 0
    value, kind = (data & VALUE_MASK) - VALUE_OFFSET, (data >> KIND_SHIFT) & 3
    if kind == EXACT or (kind == LOWER and value >= beta) or (kind == UPPER and value <= alpha):
        found[0] = 1
        if stored_depth != COMPLETE:
            stats[HORIZON] = 1  # the stored search reached a horizon
    return value


@njit(cache=True, inline="always")
def _table_store(key, depth, value, kind, move, horizon, table, age):
    """Keep the result of the node of ``key``: in its own slot if it has one, else in the
    slot of its bucket searched least deep, an entry of an earlier search than ``age``
    counted ``AGE_PENALTY`` plies less deep (an empty slot first; a result searched to the
    end stays while its bucket holds another)."""
    if table.shape[0] == 0:
        return
    key = np.int64(key)
    slot = _entry_of(key, table)
    if slot < 0:
        first = -2 - slot
        least = COMPLETE + 1
        for other in range(first, first + BUCKET):
            data = table[other, 1]
            kept = -COMPLETE if table[other, 0] == 0 else (data >> DEPTH_SHIFT) & COMPLETE
            if kept != COMPLETE and (data >> AGE_SHIFT) & (AGES - 1) != age:
                kept -= AGE_PENALTY
            if kept < least:
                least, slot = kept, other
    table[slot, 0] = key
    # a search that met no horizon is the game's own value: good at any depth
    table[slot, 1] = ((value + VALUE_OFFSET)
                      | ((depth if horizon else COMPLETE) << DEPTH_SHIFT)
                      | (kind << KIND_SHIFT) | ((move + 1) << MOVE_SHIFT)
                      | (np.int64(age) << AGE_SHIFT))


# a frame's fields (one row of ``_negamax``'s frames a ply)
(N_MOVES, NEXT_MOVE, ALPHA, BETA, FIRST_ALPHA, BEST, BEST_MOVE, FLIPPED, SCOUTED, AGAIN,
 HORIZON_BEFORE, DEPENDS_BEFORE) = range(12)


NO_HISTORY = np.zeros((1, 2), dtype=np.uint64)  # no game positions before the root


def read_only(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Views that compiled code types as read-only, as a mapped file's are: the search is
    compiled once for tables built in memory, mapped from a file, or none."""
    views = tuple(np.asarray(array).view() for array in arrays)
    for view in views:
        view.flags.writeable = False
    return views


# the endgame tables' low and high bounds and their binomials: none
NO_TABLES = read_only(np.zeros(0, dtype=np.int8), np.zeros(0, dtype=np.int8),
                      np.zeros((1, 1), dtype=np.int64))


@njit(cache=True, inline="always")
def _table_settles(params, board, alpha, beta, low, high, binom, found):
    """The endgame tables' word on ``board``: ``found[0]`` = 1 and the value (a draw, or a
    bound outside the window ``alpha``..``beta``) when they settle it."""
    reach, least, greatest = kernels.table_bounds(params, board, low, high, binom)
    if not reach:
        return 0
    won = (1 + WIN) * UNIT  # the least a won game is worth
    floor = won if least > 0 else (0 if least == 0 else -INFINITY)
    ceiling = -won if greatest < 0 else (0 if greatest == 0 else INFINITY)
    if floor == ceiling or floor >= beta:
        found[0] = 1
        return floor
    if ceiling <= alpha:
        found[0] = 1
        return ceiling
    return 0


def negamax(params, root, depth, alpha, beta, table, history, stats,
            seen=NO_HISTORY, repetitions=0, tables=NO_TABLES):
    """The value of ``root`` for its player to move, searched ``depth`` plies, and the best
    move there (-1 if none was searched); (0, -1) when the node budget ran out. Runs without
    the GIL. ``seen`` counts the game's positions before the root (``positions_seen``); a
    position occurring for the ``repetitions``-th time ends the game (0: never).
    ``tables``: the game's endgame tables (low, high, binomials; ``NO_TABLES``).
    ``table``: the transposition table (``new_table``; no rows turns it off).

    When the budget ran out (``stats[ABORTED]``) after the root's first move was searched
    whole, the best of the root's moves searched whole and its value: sound, since each
    root move is searched with the window of the best before it (a move that beats it has
    the value found); else (0, -1).

    The frames of its stack are made here: numpy's allocation compiled into the search cost
    its first compile half a second (a first small solve). Its helpers are inlined: each
    compiled apart cost the first compile its own pass (about 0.3 s together), and the calls
    cost the search speed."""
    if not 0 <= depth < COMPLETE:
        raise ValueError(f"a search's depth must be 0..{COMPLETE - 1}, got {depth}")
    if stats.shape != (AGE + 1,):
        raise ValueError(f"a search's stats are {AGE + 1} counters (new_stats)")
    plies = depth + 1
    alpha, beta = max(-INFINITY, alpha * UNIT), min(INFINITY, beta * UNIT)
    frame = np.zeros((plies, DEPENDS_BEFORE + 1), dtype=np.int64)
    stats[DEPENDS] = NO_DEPENDENCE
    value, move = _negamax(params, root, depth, alpha, beta, table, history, stats,
                           np.empty((plies, root.shape[0]), dtype=np.int64),
                           np.empty((plies, 64), dtype=np.int64), frame,
                           np.zeros(2, dtype=np.int64), seen,
                           np.zeros(plies, dtype=np.uint64), repetitions, *tables)
    if stats[ABORTED] and frame[0, N_MOVES] and frame[0, BEST] > -INFINITY:
        value, move = frame[0, BEST], frame[0, BEST_MOVE]  # the root's moves searched whole
    return in_seeds(value), move


@njit(cache=True, nogil=True)
def _negamax(params, root, depth, alpha, beta, table, history, stats, boards, moves,
             frame, found, seen, path, repetitions, lows, highs, binom):
    """``negamax`` on the frames it is given: ``boards`` and ``moves`` a row a ply, ``frame``
    a ply's fields, ``found`` a table probe's answer, ``path`` the positions' keys a ply
    (the table's, and the recurrences'), ``lows``, ``highs`` and ``binom`` the endgame
    tables.

    Written with an explicit stack of frames (one per ply), not recursion: numba cannot load
    a cached recursive function safely (numba issue 6061).
    """
    params, root, table = borrowed(params), borrowed(root), borrowed(table)
    history, stats = borrowed(history), borrowed(stats)
    boards, moves = borrowed(boards), borrowed(moves)
    frame, found = borrowed(frame), borrowed(found)
    seen, path = borrowed(seen), borrowed(path)
    lows, highs, binom = borrowed(lows), borrowed(highs), borrowed(binom)
    kernels.copy_into(boards[0], root)
    path[0] = kernels.position_key(root)
    frame[0, ALPHA], frame[0, BETA] = alpha, beta
    ply = 0
    entering = True
    value = 0
    while True:
        here = frame[ply]
        if entering:  # a new node: settle it at once, or set up its moves
            stats[NODES] += 1
            if stats[NODES] > stats[NODE_LIMIT]:
                stats[ABORTED] = 1
                return 0, -1
            board = boards[ply]
            settled = True
            if board[-1] != ONGOING:
                value = scored(params, board)
            elif ply == depth:
                stats[HORIZON] = 1
                value = scored(params, board)
            else:
                found[0] = 0
                if ply > 0 and lows.shape[0]:
                    value = _table_settles(params, board, here[ALPHA], here[BETA], lows,
                                           highs, binom, found)
                if found[0] == 0:
                    value = _table_probe(path[ply], depth - ply, here[ALPHA], here[BETA],
                                         table, stats, found)
                settled = found[0] == 1 and ply > 0  # the root always searches a move
                if not settled:
                    here[N_MOVES] = _ordered_moves(kernels.legal_mask(params, board), found[1],
                                                   history, moves[ply])
                    here[NEXT_MOVE] = 0
                    here[SCOUTED], here[AGAIN] = 0, 0
                    here[FIRST_ALPHA] = here[ALPHA]
                    here[BEST], here[BEST_MOVE] = -INFINITY, moves[ply, 0]
                    here[HORIZON_BEFORE] = stats[HORIZON]
                    here[DEPENDS_BEFORE] = stats[DEPENDS]
                    stats[HORIZON], stats[DEPENDS] = 0, NO_DEPENDENCE
            if settled:
                if ply == 0:
                    return value, -1
                ply -= 1
                entering = False
                continue
        else:  # a child has returned ``value``, for its own player to move
            if frame[ply + 1, FLIPPED]:
                value = -value
            if here[SCOUTED] and here[ALPHA] < value < here[BETA]:
                here[AGAIN] = 1  # it beat the best so far: searched again, whole window
                here[NEXT_MOVE] -= 1
            elif value > here[BEST]:
                here[BEST], here[BEST_MOVE] = value, moves[ply, here[NEXT_MOVE] - 1]
            if here[BEST] > here[ALPHA]:
                here[ALPHA] = here[BEST]
            if here[ALPHA] >= here[BETA]:  # a cut-off: no more moves here
                history[here[BEST_MOVE]] += (depth - ply) * (depth - ply)
                here[NEXT_MOVE] = here[N_MOVES]
        if here[NEXT_MOVE] < here[N_MOVES]:  # search the next move
            child = boards[ply + 1]
            kernels.copy_into(child, boards[ply])
            kernels.play(params, child, moves[ply, here[NEXT_MOVE]])
            here[NEXT_MOVE] += 1
            if repetitions or ply + 1 < depth:  # a horizon's leaf needs no key
                key = kernels.position_key(child)  # the table's key, and the path's
                path[ply + 1] = key
            if repetitions and child[-1] == ONGOING:
                earlier = kernels.occurrences(seen, key)
                occurred, first = earlier + 1, -1 if earlier else NO_DEPENDENCE
                for before in range(ply + 1):
                    if path[before] == key:
                        occurred += 1
                        first = min(first, before)
                if occurred >= repetitions:  # the game ends here by its rule
                    kernels.stop(params, child)
                    stats[HORIZON] = 1  # a value of this path: not the position's own
                    stats[DEPENDS] = min(stats[DEPENDS], first)
            # an extra turn, or a game that ended on one: ``evaluate`` values a position for
            # its ``board[-2]``, so the value is negated exactly when that changed
            same_side = child[-2] == boards[ply, -2]
            below = frame[ply + 1]
            below[FLIPPED] = 0 if same_side else 1
            # principal variation search: a move after the first is only shown no better
            # than the best so far (a null window), unless searched again
            whole = here[NEXT_MOVE] == 1 or here[AGAIN] == 1
            here[SCOUTED], here[AGAIN] = 0 if whole else 1, 0
            low, high = here[ALPHA], here[BETA] if whole else here[ALPHA] + 1
            if same_side:
                below[ALPHA], below[BETA] = low, high
            else:
                below[ALPHA], below[BETA] = -high, -low
            ply += 1
            entering = True
            continue
        value = here[BEST]  # all moves done: store the node and return its value
        kind = (UPPER if value <= here[FIRST_ALPHA]
                else (LOWER if value >= here[BETA] else EXACT))
        # a value that a recurrence of a position above this node made holds on this path
        # only: kept for its move, never for its value (depth 0 settles no probe)
        _table_store(path[ply], depth - ply if stats[DEPENDS] >= ply else 0, value, kind,
                     here[BEST_MOVE], stats[HORIZON], table, stats[AGE])
        stats[HORIZON] |= here[HORIZON_BEFORE]
        stats[DEPENDS] = min(stats[DEPENDS], here[DEPENDS_BEFORE])
        if ply == 0:
            return value, here[BEST_MOVE]
        ply -= 1
        entering = False


def new_stats(node_limit: int = np.iinfo(np.int64).max) -> np.ndarray:
    """A search's counters (``NODES`` ... ``AGE``), its node budget ``node_limit``."""
    stats = np.zeros(AGE + 1, dtype=np.int64)
    stats[NODE_LIMIT] = node_limit
    return stats


def new_table(bits: int) -> np.ndarray:
    """A transposition table of ``2 ** bits`` entries (at least a bucket's four), each a
    key and a word, side by side so that a bucket's look-up reads one cache line."""
    return np.zeros((1 << max(2, bits), 2), dtype=np.int64)


class Search:
    """One search's tables (kept between the moves of a game) and its stop switch."""

    def __init__(self, bits: int = TT_BITS) -> None:
        self.table = new_table(bits)
        self.history = np.zeros(64, dtype=np.int64)
        self.stats = new_stats()
        self.stopped = False
        self.age = 0  # the number of the last search (``stats[AGE]``)
        self.tables = NO_TABLES  # the game's endgame tables (``read_only``), if any

    def clear(self) -> None:
        """Forget what earlier searches stored (a new game)."""
        self.table[:] = 0
        self.history[:] = 0

    def stop(self) -> None:
        """Stop the search running in another thread at its next node."""
        self.stopped = True
        self.stats[NODE_LIMIT] = 0

    def deepen(self, state: State, budget: float, depth: int = 0,
               unlimited: bool = False, history: Sequence[State] = (),
               keep_time: bool = False) -> tuple[int, int, int, int]:
        """Search ``state`` deeper and deeper within ``budget`` seconds (or to ``depth``;
        ``unlimited``: that depth whatever it costs): (best move, its value, the depth
        reached, nodes). The value is exact when the whole game tree was searched.
        ``history``: the game's positions before ``state``, whose recurrence ends it.
        ``keep_time``: no depth is started that would not search its first move in time (a
        player on a clock keeps that time for later moves); else the budget is searched to
        its end, the last depth answering with the moves it searched whole."""
        warm_up(state)  # compiled for this game before its clock starts
        started = time.perf_counter()
        params, board = state.variant.params, state.board.copy()
        repetitions = kernels.repetitions_of(state.variant)
        seen = positions_seen(history) if repetitions else NO_HISTORY
        stats = self.stats = new_stats()
        self.age = (self.age + 1) % AGES
        move, value, reached, nodes, rate = -1, 0, 0, 0, 0.0
        self.history //= 4  # old cut-offs count less
        alarm = None  # set once the first depth has given a move
        try:
            for level in range(1, (depth or MAX_DEPTH) + 1):
                elapsed = time.perf_counter() - started
                stats[:] = 0
                stats[AGE] = self.age
                # the nodes the time left allows at the last depth's rate; none once the
                # alarm runs where the budget is searched to its end (a deeper depth's rate
                # is not the last one's: the alarm stops it in time)
                endless = unlimited or not rate or alarm is not None and not keep_time
                stats[NODE_LIMIT] = (np.iinfo(np.int64).max if endless
                                     else max(1000, int((budget - elapsed) * rate)))
                # the alarm sets its event, then the node limit to 0: one of the two is seen
                if self.stopped or alarm is not None and alarm.rang.is_set():
                    break
                iteration_start = time.perf_counter()
                best_value, best = negamax(params, board, level, -INFINITY, INFINITY,
                                           self.table, self.history, stats,
                                           seen, repetitions, self.tables)
                spent = time.perf_counter() - iteration_start
                nodes += int(stats[NODES])
                if stats[ABORTED]:
                    if best >= 0:  # the root's moves searched whole at this depth
                        move, value = int(best), int(best_value)
                    break
                move, value, reached = int(best), int(best_value), level
                rate = stats[NODES] / max(spent, 1e-6)
                if not stats[HORIZON]:
                    break  # the whole game tree was searched: the value is exact
                if keep_time and not unlimited and \
                        time.perf_counter() - started + NEXT_SHARE * spent > budget:
                    break  # the next depth would not search its first move in time
                if alarm is None and not unlimited:
                    alarm = _alarm(budget - (time.perf_counter() - started), stats)
        finally:
            if alarm is not None:
                alarm.cancel()
        return move, value, reached, nodes


def positions_seen(history: Sequence[State]) -> np.ndarray:
    """The game's positions ``history`` counted by key (``kernels.occurrences``)."""
    if not history:
        return NO_HISTORY
    return kernels.count_positions(np.array([state.board for state in history],
                                            dtype=np.int64))


def _alarm(seconds: float, stats: np.ndarray) -> threading.Timer:
    """A timer that stops the running depth after ``seconds`` (the compiled search reads its
    node limit at every node and runs without the GIL); ``rang`` is set first."""
    rang = threading.Event()

    def ring() -> None:
        rang.set()
        stats[NODE_LIMIT] = 0

    alarm = threading.Timer(max(0.0, seconds), ring)
    alarm.rang = rang
    alarm.daemon = True
    alarm.start()
    return alarm


def margin_of(value: int) -> int:
    """A search value as a final margin (a won or lost game's WIN taken off)."""
    if abs(value) > WIN // 2:
        return value - (WIN if value > 0 else -WIN)
    return value


def warm_up(state: State | None = None) -> None:
    """Compile (or load from the cache) the search for ``state``'s game (default: the first
    registered game's start) now, not inside the first timed move: it is compiled once a
    game, with only that game's rules (``mancalab.params``)."""
    from .variants import VARIANTS

    state = state or next(iter(VARIANTS.values()))().start()
    stats = new_stats(100)
    negamax(state.variant.params, state.board.copy(), 1, -INFINITY, INFINITY,
            new_table(1), np.zeros(64, np.int64), stats,
            NO_HISTORY, kernels.repetitions_of(state.variant))
