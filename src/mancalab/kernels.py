"""Every game's compiled rules behind one switch, for the game-independent compiled code.

Search and analysis kernels (MCTS playouts, tree statistics, ...) call these functions, which
branch on ``params[0]`` (the game's ``game_id``) to the game's own kernels (``Kernels``). A
switch rather than passing functions around keeps numba's on-disk cache working: numba
cannot cache a function that takes another compiled function as an argument.

The switch is written from the registry (``mancalab.variants.VARIANTS``) when this module is
imported: every registered game, a plugin's too, gets its branch, and an id no game has
raises. Each function is chosen where it is compiled: a game's own ``params``
(``mancalab.params``: its numba type names the game) call that game's kernel directly, so a
search compiled for one game holds only that game's rules; any other int64 array goes through
the switch (``_any_<kernel>``), which branches at run time. The switch's source is compiled
under this file's name, so that numba caches it here like the functions written out below
(the cache folder is keyed by the games' sources and the plugins registered,
``mancalab._cache``).

The run-time switch holds its own inlined copy of each game's ``legal_mask`` and ``play``
(numba ``inline="always"``, from the one source): a call per move there made the tree
statistics 7-13% slower. The switch itself is a function of its own, compiled once whatever
calls it (inlined into a caller, it would be compiled again in every compiling context). A
game's own ``params`` call the game's compiled kernel, the same one Python calls
(``State.play``), so it is compiled once for both; the searches run about as fast through
the call. Random play, which does nothing else, compiles the rules into its loop
(``legal_mask_inlined``, ``play_inlined``: a call a move cost it 15%).

User code compiles against these the same way (docs/api.md, "Your own compiled code"), lending
its arrays with ``borrowed`` (``mancalab.borrow``), which is public here for that.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import overload

from . import movemask
from .borrow import borrowed  # noqa: F401 - public: user code lends its arrays with it
from .core import ONGOING
from .params import GameParamsType
from .variants import VARIANTS

# name, arguments, each game's kernel inlined into the run-time switch
SWITCHED = (("legal_mask", "params, board", True), ("play", "params, board, move", True),
            ("settle", "params, board", False), ("score", "params, board, player", False),
            ("material", "params, board, player", False), ("stop", "params, board", False),
            ("positional", "params, board", False),
            ("pack_key", "params, board, keys, k", False),
            ("unpack_key", "params, keys, k, board", False),
            ("table_bounds", "params, board, low, high, binom", False))
DOCS = {
    "legal_mask": "The legal moves as a mask (``mancalab.movemask``); 0 once the game is over.",
    "play": "Play a legal move in place.",
    "settle": "Apply the end rule to a position given directly (not reached by a move).",
    "score": "``player``'s score (families, store, beads held ...: the game's ``score_noun``).",
    "material": "``player``'s material, what the players weigh short of the game's end: the "
                "game's ``Kernels.material``, else its score.",
    "stop": "End the position now by the game's rule for endless play (``Kernels.stop``; a "
            "game without one: nothing, and ``repetitions_of`` is 0).",
    "positional": "The board's shape for the player to move, in ``core.POSITION_UNIT``s of a "
                  "seed, added to the material by the searches (``Kernels.positional``; 0 "
                  "for a game without).",
    "pack_key": "Pack ``board`` into ``keys[k]`` by the game's own packing "
                "(``Kernels.pack_key``): 1, or 0 where it does not fit; -1 for a game "
                "packed field by field (``analysis.stats.tree``).",
    "unpack_key": "The position of ``keys[k]`` into ``board`` by the game's own packing: "
                  "whether the game has one.",
    "table_bounds": "What the game's endgame tables say of ``board`` "
                    "(``Kernels.table_bounds``): (in reach, the least and the greatest final "
                    "margin for the player to move, whose signs are the game's); (0, 0, 0) "
                    "for a game without tables.",
}


def switch_source(games: dict) -> tuple[str, dict]:
    """The source of the run-time switch over ``games`` (name -> Variant class), a function
    ``_any_<kernel>`` per kernel, and the globals it reads (each game's kernels as
    ``_<game>_<kernel>``)."""
    lines, names = [], {}
    for kernel, arguments, inline in SWITCHED:
        lines += ["@njit(cache=True)", f"def _any_{kernel}({arguments}):", "    game = params[0]"]
        for name, cls in games.items():
            own = own_kernel(cls, kernel)
            names[f"_{name}_{kernel}"] = njit(inline="always")(own.py_func) if inline else own
            lines += [f"    if game == {int(cls.game_id)}:",
                      f"        return _{name}_{kernel}({arguments})"]
        lines += ['    raise ValueError("params[0] is the id of no registered game")', ""]
    return "\n".join(lines), names


def own_kernel(cls, kernel: str):
    """Game ``cls``'s compiled ``kernel``, or what a game without it does (``material``: its
    score; ``stop``: nothing; ``positional``: 0; its own key packing: none)."""
    own = getattr(cls.kernels, kernel)
    if own is not None:
        return own
    return cls.kernels.score if kernel == "material" else _DEFAULTS[kernel]


@njit(cache=True)
def _no_stop(params, board):
    pass


@njit(cache=True)
def _no_positional(params, board):
    return np.int64(0)


@njit(cache=True)
def _no_pack_key(params, board, keys, k):
    return np.int64(-1)


@njit(cache=True)
def _no_unpack_key(params, keys, k, board):
    return False


@njit(cache=True)
def _no_table_bounds(params, board, low, high, binom):
    return np.int64(0), np.int64(0), np.int64(0)


_DEFAULTS = {"stop": _no_stop, "positional": _no_positional, "pack_key": _no_pack_key,
             "unpack_key": _no_unpack_key, "table_bounds": _no_table_bounds}


def _build_switch() -> dict:
    source, names = switch_source(VARIANTS)
    namespace = {"__name__": __name__, "njit": njit, **names}
    exec(compile(source, __file__, "exec"), namespace)
    return namespace


def _chooser(kernel: str, arguments: str, inlined: bool = False):
    """The kernel as Python and compiled code call it: a game's own kernel for a game's
    ``params`` (through a small function of its own; ``inlined``: its source compiled into
    the caller), the run-time switch for any other array (called straight from the caller:
    one call a move, as in the tree statistics)."""
    run_time_switch = _switch[f"_any_{kernel}"]
    by_game = {int(cls.game_id): own_kernel(cls, kernel) for cls in VARIANTS.values()}
    if inlined:
        by_game = {game: njit(inline="always")(own.py_func) for game, own in by_game.items()}
    namespace = {"by_game": by_game, "run_time_switch": run_time_switch,
                 "GameParamsType": GameParamsType}
    exec(f"def call({arguments}):\n"
         f"    return by_game.get(getattr(params, 'game', None), run_time_switch)({arguments})\n"
         f"def for_game({arguments}):\n"
         f"    if isinstance(params, GameParamsType):\n"
         f"        function = by_game[params.game]\n"
         f"        return lambda {arguments}: function({arguments})\n"
         f"def for_any({arguments}):\n"
         f"    if not isinstance(params, GameParamsType):\n"
         f"        return lambda {arguments}: run_time_switch({arguments})\n", namespace)
    call = namespace["call"]
    call.__name__ = call.__qualname__ = kernel
    call.__module__ = __name__
    call.__doc__ = DOCS[kernel]
    overload(call, inline="never")(namespace["for_game"])
    overload(call, inline="always")(namespace["for_any"])
    return call


_switch = _build_switch()
GAME_IDS = frozenset(int(cls.game_id) for cls in VARIANTS.values())  # in the switch
(legal_mask, play, settle, score, material, stop, positional, pack_key,
 unpack_key, table_bounds) = (_chooser(kernel, arguments) for kernel, arguments, _ in SWITCHED)
# the rules compiled into the one loop that plays nothing else: random play (MCTS's playouts),
# where a call a move cost 15% of its speed
legal_mask_inlined, play_inlined = (_chooser(kernel, arguments, inlined=True)
                                    for kernel, arguments, _ in SWITCHED[:2])


@njit(cache=True)
def copy_into(target, source):
    """``target[:] = source`` for two arrays of one length. A loop, not the slice assignment:
    that compiles numba's shape-mismatch message (its string formatting) into every kernel
    that uses it, seconds of a first compile."""
    for i in range(source.shape[0]):
        target[i] = source[i]


@njit(cache=True)
def margin(params, board):
    """Player 0's score minus player 1's."""
    return score(params, board, 0) - score(params, board, 1)


@njit(cache=True)
def material_margin(params, board):
    """Player 0's material minus player 1's."""
    return material(params, board, 0) - material(params, board, 1)


@njit(cache=True)
def seed_rng(seed):
    """Seed the random numbers of compiled code (numba keeps its own generator)."""
    np.random.seed(seed)



# ----- a position stepped in place (mancalab.board) ------------------------------------------
# A board's stack: row 0 the game's params, then (its last three columns) the row of the
# position now, the size of a board and the params' count; from row 1 the positions, each
# with the move that made it and its legal-move mask in its last two columns. The params
# travel in the stack, not as an argument of their own: numba unboxes each array a call.
@njit(cache=True)
def board_push(stack, move):
    """``Board.push`` in one call: the position now copied to the next row and ``move``
    played there. Answers the new position's legal-move mask; -1 for an illegal move, -2
    when the stack is full (nothing changed either way)."""
    width = stack.shape[1]
    header = stack[0]
    row = header[width - 3]
    if row + 1 == stack.shape[0]:
        return np.int64(-2)
    before = stack[row]
    if move < 0 or move > 62 or (before[width - 1] >> move) & 1 == 0:
        return np.int64(-1)
    after = stack[row + 1]
    for i in range(width):
        after[i] = before[i]
    params = header[: header[width - 1]]
    board = after[: header[width - 2]]
    play(params, board, move)
    mask = np.int64(legal_mask(params, board))  # no game has a move from cell 63
    after[width - 2] = move
    after[width - 1] = mask
    header[width - 3] = row + 1
    return mask


@njit(cache=True)
def board_pop(stack):
    """``Board.pop`` in one call: back to the position before the last push. Answers the
    move taken back and the legal-move mask now; (-1, -1) when nothing was pushed."""
    width = stack.shape[1]
    header = stack[0]
    row = header[width - 3]
    if row == 1:
        return np.int64(-1), np.int64(-1)
    header[width - 3] = row - 1
    return stack[row, width - 2], stack[row - 1, width - 1]


# ----- random play, ended as a game record ends it -----------------------------------------
def repetitions_of(variant) -> int:
    """The occurrence of a position that ends a game of ``variant`` by its rule for endless
    play (``Variant.history.repetitions``, as ``mancalab.records`` counts them); 0 where no
    position can occur twice (``Variant.history.recurs``) or the game has no such rule (no
    ``Kernels.stop``)."""
    history = variant.history
    return history.repetitions if history.recurs and variant.kernels.stop is not None else 0


FIRST_ROWS = 256  # a game's table of positions at first (4 KB): doubled when half full


# a random odd multiplier a board slot: a board's key is a sum of products (computed side by
# side, where a chain of them waits on each other)
HASH_KEYS = np.random.default_rng(87).integers(0, 2 ** 62, size=512, dtype=np.uint64) * \
    np.uint64(2) + np.uint64(1)


@njit(cache=True, inline="always")
def _key(board):
    """A 64-bit key of the whole board (cells, extra state, mover, status; at most 512
    slots), never 0. Two of a game's positions (at most 10^5) share one with a chance below
    10^-9, far below anything sampled random play can show."""
    key = np.uint64(0)
    for i in range(board.shape[0]):
        key += np.uint64(board[i]) * HASH_KEYS[i]
    key ^= key >> np.uint64(29)
    key *= np.uint64(0xBF58476D1CE4E5B9)
    key ^= key >> np.uint64(32)
    return key if key != 0 else np.uint64(1)


@njit(cache=True, inline="always")
def _row_of(table, key):
    """The row of ``table`` holding ``key``, or the free row it goes in."""
    mask = np.uint64(table.shape[0] - 1)
    row = key & mask
    while table[row, 0] != 0 and table[row, 0] != key:
        row = (row + np.uint64(1)) & mask
    return row


@njit(cache=True)
def _doubled(table):
    bigger = np.zeros((2 * table.shape[0], 2), dtype=np.uint64)
    for old in range(table.shape[0]):
        if table[old, 0] != 0:
            row = _row_of(bigger, table[old, 0])
            bigger[row, 0], bigger[row, 1] = table[old, 0], table[old, 1]
    return bigger


@njit(cache=True, inline="always")
def _seen_once_more(table, board):
    """Count ``board`` once more in ``table`` (rows: a key and a count; one free at least):
    whether it took a free row, and how often the position has now occurred."""
    key = _key(board)
    row = _row_of(table, key)
    new = table[row, 0] == 0
    table[row, 0] = key
    table[row, 1] += np.uint64(1)
    return new, np.int64(table[row, 1])


position_key = _key  # a position's key, for the searches' own counting


@njit(cache=True, inline="always")
def occurrences(table, key):
    """How often the position of ``key`` occurs in ``table`` (``count_positions``)."""
    row = _row_of(table, key)
    return np.int64(table[row, 1]) if table[row, 0] == key else np.int64(0)


@njit(cache=True)
def count_positions(boards):
    """A table of the positions ``boards`` (a row each) counted by key, for ``occurrences``:
    a game's history, told to a search."""
    rows = FIRST_ROWS
    while rows < 4 * boards.shape[0]:
        rows *= 2
    table = np.zeros((rows, 2), dtype=np.uint64)
    for i in range(boards.shape[0]):
        _seen_once_more(table, boards[i])
    return table


@njit(cache=True)
def random_moves(params, board, max_plies, repetitions):
    """Play uniformly random legal moves in place until the game ends or ``max_plies`` moves
    have been played; return how many were played. A position occurring for the
    ``repetitions``-th time (the start counted; 0: never) ends the game by its rule for
    endless play, as a game record ends it (``repetitions_of``)."""
    return _play_out(params, borrowed(board), np.empty(0, dtype=np.int64), max_plies,
                     repetitions)


@njit(cache=True)
def play_moves(params, board, moves, repetitions):
    """Play ``moves`` (legal ones) in place, the game ended as ``random_moves`` ends it;
    return how many were played before it ended (or all)."""
    return _play_out(params, board, moves, moves.shape[0], repetitions)


@njit(cache=True, inline="always")
def _below(state, n):
    """The next state of a xorshift64* generator and a number in 0..n-1 drawn from it (its
    high 32 bits scaled: a bias below n / 2**32). numba's ``np.random.randint`` (a Mersenne
    twister, with rejection) cost 8% of a random Kalah game; it seeds each game's generator
    (``seed_rng``), so a seeded run is repeated exactly."""
    state ^= state >> np.uint64(12)
    state ^= state << np.uint64(25)
    state ^= state >> np.uint64(27)
    high = (state * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
    return state, np.int64((high * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def _next_move(params, board, moves, plies, state):
    """``moves[plies]``, or a random legal move where no moves are given; and the
    generator's state after it."""
    if moves.shape[0]:
        return state, moves[plies]
    legal = legal_mask_inlined(params, board)
    state, pick = _below(state, movemask.count(legal))
    return state, movemask.nth(legal, pick)


@njit(cache=True, inline="always")
def _play_out(params, board, moves, max_plies, repetitions):
    """``moves`` in turn, or random ones where there are none, until the end or
    ``max_plies``; a repeated position ends the game by its rule (``random_moves``)."""
    params = borrowed(params)
    state = np.uint64(np.random.randint(1, 1 << 62))  # this game's own quicker generator
    plies = 0
    if not repetitions:  # no table of positions to make (5% of a random Kalah game)
        while board[-1] == ONGOING and plies < max_plies:
            state, move = _next_move(params, board, moves, plies, state)
            play_inlined(params, board, move)
            plies += 1
        return plies
    table = np.zeros((FIRST_ROWS, 2), dtype=np.uint64)
    used = _seen_once_more(table, board)[0]  # the rows taken: doubled before half are
    while board[-1] == ONGOING and plies < max_plies:
        state, move = _next_move(params, board, moves, plies, state)
        play_inlined(params, board, move)
        plies += 1
        if board[-1] == ONGOING:
            if 2 * (used + 1) > table.shape[0]:
                table = _doubled(table)
            new, seen = _seen_once_more(table, board)
            used += new
            if seen >= repetitions:
                stop(params, board)
    return plies
