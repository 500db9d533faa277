"""A position that changes in place: ``push`` a move, ``pop`` it back.

``State`` is immutable: every move makes a new state (a board copy, an object), which is
what a record, a cache or a server wants. A loop that steps a game from Python (a
reinforcement-learning environment, a search written in Python for a course) wants what
``chess.Board.push`` and OpenSpiel's ``State.apply_action`` give: one position stepped in
place. ``Board`` is that: a push is one compiled call (``kernels.board_push``: the move
checked, the position copied to the next row of the board's stack and the move played there,
the new position's legal moves answered), and a pop is one that goes back a row.

Like ``State``, a board plays the position's rules; the rules that look at a game's history
(a repeated position ending the game, a move cap) are the record's
(``mancalab.records.GameRecord``).
"""

from __future__ import annotations

import operator

import numpy as np

from . import kernels
from .core import ONGOING, IllegalMoveError, Outcome, State, Variant

FIRST_ROOM = 64  # the positions a new board has room for (doubled when a push needs more)


class Board:
    """A game's position that ``push`` and ``pop`` change in place.

    ``Board(state)`` starts from a state, ``Board(variant)`` from the variant's start; the
    moves pushed since are ``moves``. ``state`` is an immutable copy of the position now.
    """

    __slots__ = ("variant", "_stack", "_mask", "_push", "_pop", "_kept")

    def __init__(self, position: State | Variant) -> None:
        state = position.start() if isinstance(position, Variant) else position
        if not isinstance(state, State):
            raise TypeError(f"a Board starts from a State or a Variant, not {position!r}")
        variant = self.variant = state.variant
        self._mask = state._legal_mask()
        self._stack = _start_stack(variant, state)
        self._kept = variant._moves_of if variant._moves_of is not None else {}
        self._push, self._pop = _entries(variant)

    def legal_moves(self) -> list[int]:
        """The legal moves in the game's move order (``State.legal_moves``)."""
        try:
            return list(self._kept[self._mask])
        except KeyError:  # a mask the variant has not kept yet: kept now
            moves = self.variant.moves_of_mask_kept(self._mask)
            self._kept = self.variant._moves_of
            return moves

    def push(self, move: int) -> None:
        """Play ``move``; IllegalMoveError names the problem and changes nothing."""
        try:  # a plain int straight to the compiled call, which checks it
            mask = self._push(self._stack, move) if type(move) is int else -1
        except OverflowError:  # beyond 64 bits
            mask = -1
        self._mask = mask if mask >= 0 else self._push_slowly(move)

    def _push_slowly(self, move: object) -> int:
        """A push the compiled call refused: a move that is not a legal plain int (taken if
        it is a legal int of another kind; IllegalMoveError names the problem otherwise), or
        a full stack (grown)."""
        move = self._checked(move)
        mask = self._push(self._stack, move)
        if mask == -2:
            stack = _new_stack(self.variant, 2 * len(self._stack))
            stack[: len(self._stack)] = self._stack
            self._stack = stack
            mask = self._push(stack, move)
        return mask

    def pop(self) -> int:
        """Take the last move pushed back, and answer it."""
        move, mask = self._pop(self._stack)
        if move < 0:
            raise IllegalMoveError("no move to take back: none was pushed")
        self._mask = mask
        return move

    def _checked(self, move: object) -> int:
        """``move`` as an int if it is legal here; else IllegalMoveError naming why."""
        if not isinstance(move, bool):
            try:
                cell = operator.index(move)
            except TypeError:
                pass
            else:
                if 0 <= cell < 64 and self._mask >> cell & 1:
                    return cell
        self.state._check_legal(move)  # raises, with State's words
        raise IllegalMoveError(f"move {move!r} is not legal here")  # pragma: no cover

    @property
    def moves(self) -> list[int]:
        """The moves pushed, first to last."""
        return self._stack[2: self._row + 1, -2].tolist()

    @property
    def _row(self) -> int:
        return int(self._stack[0, -3])

    @property
    def _cells(self) -> np.ndarray:
        """The position now (a view of its row)."""
        return self._stack[self._row, : self.variant.board_size]

    @property
    def state(self) -> State:
        """The position now, as an immutable State."""
        state = State._after(self.variant, self._cells.copy())
        state._mask = self._mask
        return state

    def copy(self) -> Board:
        """An independent board at the same position, with the same moves to pop."""
        twin = Board.__new__(Board)
        twin.variant, twin._stack, twin._mask = self.variant, self._stack.copy(), self._mask
        twin._push, twin._pop, twin._kept = self._push, self._pop, self._kept
        return twin

    @property
    def to_move(self) -> int:
        return int(self._cells[-2])

    @property
    def is_over(self) -> bool:
        return int(self._cells[-1]) != ONGOING

    @property
    def outcome(self) -> Outcome | None:
        return self.variant.outcome_of(self._cells)

    @property
    def score(self) -> tuple[int, int]:
        return self.variant.score_of(self._cells)

    @property
    def cells(self) -> tuple[int, ...]:
        return tuple(int(c) for c in self._cells[: self.variant.n_cells])

    def __repr__(self) -> str:
        return (f"<{self.variant.name} Board cells={list(self.cells)} to_move={self.to_move} "
                f"moves={self._row - 1}>")


_ENTRIES: list = []  # kernels.board_push and board_pop compiled for a stack, once a process


def _new_stack(variant: Variant, rows: int) -> np.ndarray:
    """A board's stack (``mancalab.kernels``, "a position stepped in place"): row 0 the
    game's params and the stack's facts (the row now, 1; the board's size; the params'
    count), the positions from row 1."""
    params, size = variant.params.array, variant.board_size
    stack = np.zeros((rows, max(size + 2, len(params) + 3)), dtype=np.int64)
    stack[0, : len(params)] = params
    stack[0, -3:] = 1, size, len(params)
    return stack


def _start_stack(variant: Variant, state: State) -> np.ndarray:
    """A new board's stack, at ``state``: a copy of the one the variant keeps for its start
    (a loop of short games makes many boards)."""
    start = variant.start()
    if variant._start_stack is None:
        variant._start_stack = _new_stack(variant, FIRST_ROOM)
        variant._start_stack[1, : variant.board_size] = start._board
        variant._start_stack[1, -1] = start._legal_mask()
    stack = variant._start_stack.copy()
    if state is not start:
        stack[1, : variant.board_size] = state._board
        stack[1, -1] = state._legal_mask()
    return stack


def _entries(variant: Variant) -> tuple:
    """``kernels.board_push`` and ``board_pop`` as a board calls them: compiled once, called
    without numba's dispatch on the arguments' types (a stack and a Python int, always);
    for a game registered after the compiled switch over the games was written, its own
    kernels called one by one."""
    if int(variant.game_id) not in kernels.GAME_IDS:
        return _in_python(variant)
    if not _ENTRIES:
        from numba import typeof

        stack = typeof(_new_stack(variant, 2))
        _ENTRIES.extend((kernels.board_push.compile((stack, typeof(0))),
                         kernels.board_pop.compile((stack,))))
    return tuple(_ENTRIES)


def _in_python(variant: Variant) -> tuple:
    """``kernels.board_push`` and ``board_pop`` by the game's own kernels."""
    game, size = variant.kernels, variant.board_size

    def push(stack, move):
        row = int(stack[0, -3])
        if row + 1 == len(stack):
            return -2
        if not 0 <= move < 63 or not int(stack[row, -1]) >> move & 1:
            return -1
        stack[row + 1] = stack[row]
        board = stack[row + 1, :size]
        game.play(variant.params, board, move)
        stack[row + 1, -2:] = move, int(game.legal_mask(variant.params, board))
        stack[0, -3] = row + 1
        return int(stack[row + 1, -1])

    def pop(stack):
        row = int(stack[0, -3])
        if row == 1:
            return -1, -1
        stack[0, -3] = row - 1
        return int(stack[row, -2]), int(stack[row - 1, -1])

    return push, pop
