"""Terminal drawing with rich: the board from the mover's side, families, log, turn."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from .core import Outcome, State
from .records import GameRecord

NAME_WIDTH = 12


def _row(label: str, values: list[int], style: str, marks: set[int], indices: list[int]) -> Text:
    """One board row in the reference program's layout: ``name        |  4 |  4 | ...``."""
    text = Text(f"{label[:NAME_WIDTH]:<{NAME_WIDTH}}| ", style=style)
    for index, value in zip(indices, values):
        cell_style = "bold black on yellow" if index in marks else style
        text.append(f"{value:2d}", style=cell_style)
        text.append(" | ", style=style)
    text.rstrip()
    return text


def board(state: State, names: tuple[str, str], last_move: int | None = None) -> Group:
    """The two rows as the player to move sees them, with the header of home letters."""
    variant = state.variant
    viewer = state.to_move
    top, bottom, header = variant.display_rows(viewer)
    marks = {last_move} if last_move is not None else set()
    cells = state.cells
    lines = [
        _row(names[1 - viewer], [cells[i] for i in top], "cyan", marks, top),
        _row(names[viewer], [cells[i] for i in bottom], "bold green", marks, bottom),
        Text(f"{names[viewer][:NAME_WIDTH]:<{NAME_WIDTH}}| "
             + " | ".join(f"{c:>2}" for c in header) + " |", style="bold white on grey23"),
    ]
    return Group(*lines)


def families(state: State, names: tuple[str, str]) -> Text:
    score = state.score
    text = Text()
    for player in (0, 1):
        text.append(f"Player {names[player]} has {score[player]} families.\n",
                    style="bold" if player == state.to_move else "")
    text.rstrip()
    return text


def position(record: GameRecord) -> Group:
    """The whole screen of one turn: families, board, log, whose turn and the move number."""
    state = record.state
    last = record.moves[-1] if record.moves else None
    parts = [families(state, record.names), board(state, record.names, last)]
    log = record.log()
    shown = log if len(log) <= 40 else ["…"] + log[-40:]
    parts.append(Text("Moves: " + (" ".join(shown) if log else "none yet"), style="dim"))
    if state.outcome is None:
        parts.append(Text.assemble("Turn: ", (record.names[state.to_move], "bold green"),
                                   f" ({'AB'[state.to_move]}) · move {len(record.moves) + 1}"))
    return Group(*parts)


def result(outcome: Outcome, names: tuple[str, str]) -> Text:
    a, b = outcome.score
    if outcome.kind == "win":
        return Text(f"Game over: {names[outcome.winner]} wins, {a} to {b}.", style="bold red")
    if outcome.kind == "draw":
        return Text(f"Game over: a draw, {a} to {b}.", style="bold yellow")
    return Text(f"Game over: timeout (a move that never ends); no winner ({a} to {b}).",
                style="bold yellow")
