"""Checks any game must pass, for mancalab's own games and for a plugin's: random games played
to the end through every part of the public API, as OpenSpiel's ``random_sim_test`` does.

``simulate(variant)`` raises AssertionError naming the first broken promise: a position the
game's own check refuses, a move whose name does not read back, a sowing trace that does not
replay to the position after the move, a position string that does not read back, a board
that does not turn back into itself, a ``Board`` stepped in place (and taken back) that
leaves the game's positions, a record whose text does not read back. The tests run it over every registered game
(``mancalab.variants.examples``); a plugin's tests can call it on theirs.
"""

from __future__ import annotations

import random

import numpy as np

from .board import Board
from .core import State, Variant
from .records import GameRecord

MAX_PLIES = 400  # a game still going after this many moves is left there (endless play)


def simulate(variant: Variant, games: int = 3, seed: int = 0, max_plies: int = MAX_PLIES) -> None:
    """Play ``games`` random games of ``variant`` checking every position and move."""
    rng = random.Random(seed)
    for _ in range(games):
        record, board = GameRecord.new(variant), Board(variant)
        while not record.state.is_over and len(record.moves) < max_plies and not record.at_cap:
            state = record.state
            _check_position(state)
            _require(board.state == state and board.legal_moves() == state.legal_moves(),
                     state, "a Board stepped in place is not at the game's position")
            moves = state.legal_moves()
            _require(moves, state, "a game going on has no legal move")
            for move in moves:
                _require(state.parse_move(state.move_name(move)) == move, state,
                         f"move {move} is named {state.move_name(move)!r}, which reads back "
                         "as another move")
            move = rng.choice(moves)
            _check_sowing(state, move)
            record.push(move)
            board.push(move)
        _check_taken_back(board, record)
        again = GameRecord.from_text(record.to_text())
        _require(again.moves == record.moves and again.state == record.state, record.state,
                 "the game's record does not read back to the same game")


def _require(condition: object, state: State, what: str) -> None:
    if not condition:
        raise AssertionError(f"{state.variant!r}: {what} (at {state!r})")


def _check_position(state: State) -> None:
    """The game's own checks take the position back, and the board turns back into itself."""
    variant = state.variant
    again = variant.state(list(state.cells), state.to_move, **state.extra)
    _require(again == state, state, "the position given back by its cells is another one")
    _require(variant.from_fen(state.fen()) == state, state,
             f"the position string {state.fen()!r} reads back as another position")
    board = state.board
    twice = variant.turned(variant.turned(board))
    _require(np.array_equal(twice, board), state, "the board turned twice is not itself")
    turned = State(variant, variant.turned(board))
    turn = variant.turn_cells()
    _require(sorted(turn[m] for m in state.legal_moves()) == sorted(turned.legal_moves()),
             state, "the legal moves are not the same from the other seat")


def _check_taken_back(board: Board, record: GameRecord) -> None:
    """Popped move by move, a Board goes back through the game's positions to its start."""
    for ply in range(len(record.moves), 0, -1):
        state = record.states[ply - 1]
        _require(board.pop() == record.moves[ply - 1] and board.state == state
                 and board.legal_moves() == state.legal_moves(), state,
                 "a Board's move taken back does not give the position before it")


def _check_sowing(state: State, move: int) -> None:
    """The move step by step replays to the position the move gives."""
    steps = state.sowing(move)
    if steps is None:  # longer than a trace holds
        return
    cells = list(state.cells)
    for step in steps:
        cells[step.cell] = step.count
    _require(tuple(cells) == state.play(move).cells, state,
             f"the steps of move {move} do not replay to the position after it")
