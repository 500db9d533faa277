"""A step from Python: ``legal_moves()`` then ``play(move)``, mancalab against OpenSpiel.

    python benchmarks/bench_api_step.py [--steps 200000]

Plays the same random games (a move chosen by a seeded generator from the legal moves) in
mancalab, with ``State`` (immutable: each move a new state) and with ``Board`` (in place:
``legal_moves`` then ``push``), and in pyspiel (``State.legal_actions`` then
``apply_action``, in place), Kalah(6,4) as OpenSpiel's ``mancala`` and ``oware``; checks that
all three give the same legal moves at every step, then times each alone and prints
microseconds a step and the ratios to pyspiel. Also the floors: the list of moves and one
call of the game's compiled step in place (what a step from Python cannot do without), one
empty call into compiled code, and a board copy with one compiled step (what an immutable
state's step cannot do without).
"""

from __future__ import annotations

import argparse
import random
import time

import numba
import numpy as np

import mancalab
from _report import report

# mancalab's game and options as OpenSpiel plays it (its mancala is Kalah without the capture
# of an empty opposite pit), and OpenSpiel's name
GAMES = {"kalah": ({"empty_capture": False}, "mancala"), "oware": ({}, "oware")}


def _oware_action(state, cell: int) -> int:
    return cell - 6 * state.to_move  # OpenSpiel's Oware actions are the mover's houses 0..5


def _variant(game: str):
    return mancalab.variant(game, **GAMES[game][0])


def _moves(game: str, steps: int, seed: int) -> list[list[int]]:
    """Random games of ``steps`` moves in all, as cells."""
    rng, games, left = random.Random(seed), [], steps
    variant = _variant(game)
    while left > 0:
        state, moves, seen = variant.start(), [], set()
        # OpenSpiel's Oware ends at a position's first recurrence (the record's rule here,
        # not the kernels'): the games end there for both
        while not state.is_over and left > 0 and state not in seen:
            seen.add(state)
            move = rng.choice(state.legal_moves())
            moves.append(move)
            state = state.play(move)
            left -= 1
        games.append(moves)
    return games


def time_mancalab(game: str, games: list[list[int]]) -> float:
    start = _variant(game).start()
    began = time.perf_counter()
    for moves in games:
        state = start
        for move in moves:
            state.legal_moves()
            state = state.play(move)
    return time.perf_counter() - began


def time_board(game: str, games: list[list[int]]) -> float:
    variant = _variant(game)
    began = time.perf_counter()
    for moves in games:
        board = mancalab.Board(variant)
        for move in moves:
            board.legal_moves()
            board.push(move)
    return time.perf_counter() - began


def time_pyspiel(name: str, games: list[list[int]], to_action) -> float:
    import pyspiel

    spiel = pyspiel.load_game(name)
    actions = []
    variant = _variant("kalah" if name == "mancala" else "oware")
    for moves in games:  # the actions worked out before the clock runs
        state, played = variant.start(), []
        for move in moves:
            played.append(to_action(state, move))
            state = state.play(move)
        actions.append(played)
    began = time.perf_counter()
    for played in actions:
        state = spiel.new_initial_state()
        for action in played:
            state.legal_actions()
            state.apply_action(action)
    return time.perf_counter() - began


def check_equal(game: str, name: str, games: list[list[int]], to_action) -> None:
    """Both programs give the same legal moves at every step of the first games."""
    import pyspiel

    spiel = pyspiel.load_game(name)
    variant = _variant(game)
    for moves in games[:50]:
        ours, board, theirs = variant.start(), mancalab.Board(variant), spiel.new_initial_state()
        for move in moves:
            assert sorted(to_action(ours, m) for m in ours.legal_moves()) == \
                sorted(theirs.legal_actions()), (game, moves)
            assert board.legal_moves() == ours.legal_moves(), (game, moves)
            theirs.apply_action(to_action(ours, move))
            ours = ours.play(move)
            board.push(move)
            assert board.state == ours, (game, moves)


@numba.njit(cache=True)
def _empty(board):
    return 0


def floor_call(calls: int = 200_000) -> float:
    """Microseconds of one call of an empty compiled function with a board argument."""
    board = np.zeros(16, dtype=np.int64)
    _empty(board)
    began = time.perf_counter()
    for _ in range(calls):
        _empty(board)
    return (time.perf_counter() - began) / calls * 1e6


def floor_step(game: str, calls: int = 200_000) -> float:
    """Microseconds of what a step cannot do without: a copy of the board and one call of
    the game's compiled step (``Variant.compiled``), with no state made."""
    variant = _variant(game)
    state = variant.start()
    step, params, board = variant.compiled("step"), variant.params.array, state.board
    move = state.legal_moves()[0]
    began = time.perf_counter()
    for _ in range(calls):
        step(params, board.copy(), move)
    return (time.perf_counter() - began) / calls * 1e6


def floor_in_place(game: str, games: list[list[int]]) -> float:
    """Seconds for the same games stepped with only what an in-place step from Python cannot
    do without: the legal moves as a new list and one call of the compiled ``step`` (no
    method, no legality check, nothing kept to take a move back)."""
    variant = _variant(game)
    start = variant.start()
    step, params = variant.compiled("step"), variant.params.array
    for moves in games:  # every mask met kept with its moves, as a Board keeps them
        board = mancalab.Board(variant)
        for move in moves:
            board.legal_moves()
            board.push(move)
    kept = variant._moves_of
    began = time.perf_counter()
    for moves in games:
        cells, mask = start.board, start._legal_mask()
        for move in moves:
            list(kept[mask])
            mask = step(params, cells, move)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows, empty = [], floor_call()
    for game, (_, name) in GAMES.items():
        to_action = (lambda s, m: m + 1) if game == "kalah" else _oware_action
        games = _moves(game, args.steps, args.seed)
        steps = sum(map(len, games))
        check_equal(game, name, games, to_action)
        time_mancalab(game, games[:20]), time_board(game, games[:20])  # warm
        best = {"state": [], "board": [], "pyspiel": [], "floor": []}
        for _ in range(3):  # alternated, the best of three each
            best["state"].append(time_mancalab(game, games))
            best["board"].append(time_board(game, games))
            best["pyspiel"].append(time_pyspiel(name, games, to_action))
            best["floor"].append(floor_in_place(game, games))
        state, board, theirs, floor = (min(times) / steps * 1e6 for times in best.values())
        rows.append({"game": game, "State µs": state, "Board µs": board, "pyspiel µs": theirs,
                     "Board / pyspiel": board / theirs, "in-place floor µs": floor,
                     "copy and step µs": floor_step(game), "empty call µs": empty})
    report("A step from Python: legal moves, then the move played", rows, list(rows[0]))


if __name__ == "__main__":
    main()
