"""A position that changes in place: ``push`` a move, ``pop`` it back.

``State`` is immutable: every move makes a new state (a board copy, an object), which is
what a record, a cache or a server wants. A loop that steps a game from Python (a
reinforcement-learning environment, a search written in Python for a course) wants what
``chess.Board.push`` and OpenSpiel's ``State.apply_action`` give: one position stepped in
place. ``Board`` is that: a push is one call of the game's compiled ``step`` (it plays the
move and answers the new position's legal moves), and what ``pop`` needs is kept as bytes.

Like ``State``, a board plays the position's rules; the rules that look at a game's history
(a repeated position ending the game, a move cap) are the record's
(``mancalab.records.GameRecord``).
"""

from __future__ import annotations

import operator

import numpy as np

from .core import ONGOING, IllegalMoveError, Outcome, State, Variant


class Board:
    """A game's position that ``push`` and ``pop`` change in place.

    ``Board(state)`` starts from a state, ``Board(variant)`` from the variant's start; the
    moves pushed since are ``moves``. ``state`` is an immutable copy of the position now.
    """

    __slots__ = ("variant", "moves", "_cells", "_mask", "_undo", "_step", "_params", "_kept")

    def __init__(self, position: State | Variant) -> None:
        state = position.start() if isinstance(position, Variant) else position
        if not isinstance(state, State):
            raise TypeError(f"a Board starts from a State or a Variant, not {position!r}")
        variant = self.variant = state.variant
        self.moves: list[int] = []
        self._cells = state.board  # a copy of its own, stepped in place
        self._mask = state._legal_mask()
        self._undo: list[bytes] = []  # the board before each move pushed
        self._params = variant.params.array
        self._kept = variant._moves_of if variant._moves_of is not None else {}
        if variant.kernels.step is None:  # a plugin game without a one-call step
            self._step = _play_then_mask(variant)
        else:
            self._step = variant._step_entry or variant.compiled("step")

    def legal_moves(self) -> list[int]:
        """The legal moves in the game's move order (``State.legal_moves``)."""
        moves = self._kept.get(self._mask)
        if moves is None:  # a mask the variant has not kept yet: kept now
            moves = self.variant.moves_of_mask_kept(self._mask)
            self._kept = self.variant._moves_of
        return list(moves)

    def push(self, move: int) -> None:
        """Play ``move``; IllegalMoveError names the problem and changes nothing."""
        try:
            legal = type(move) is int and self._mask >> move & 1
        except ValueError:  # a negative shift: a negative move
            legal = False
        if not legal:
            move = self._checked(move)
        cells = self._cells
        self._undo.append(cells.tobytes())
        self._mask = self._step(self._params, cells, move)
        self.moves.append(move)

    def pop(self) -> int:
        """Take the last move pushed back, and answer it."""
        if not self.moves:
            raise IllegalMoveError("no move to take back: none was pushed")
        self._cells[:] = np.frombuffer(self._undo.pop(), dtype=np.int64)
        variant = self.variant
        entry = variant._mask_entry or variant.compiled("legal_mask")
        self._mask = entry(self._params, self._cells)
        return self.moves.pop()

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
    def state(self) -> State:
        """The position now, as an immutable State."""
        state = State._after(self.variant, self._cells.copy())
        state._mask = self._mask
        return state

    def copy(self) -> Board:
        """An independent board at the same position, with the same moves to pop."""
        twin = Board.__new__(Board)
        twin.variant, twin.moves, twin._undo = self.variant, list(self.moves), list(self._undo)
        twin._cells, twin._mask = self._cells.copy(), self._mask
        twin._step, twin._params, twin._kept = self._step, self._params, self._kept
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
                f"moves={len(self.moves)}>")


def _play_then_mask(variant: Variant):
    """A step of two calls, for a game whose kernels have no ``step``."""
    kernels = variant.kernels

    def step(params, cells, move):
        kernels.play(variant.params, cells, move)
        return kernels.legal_mask(variant.params, cells)

    return step
