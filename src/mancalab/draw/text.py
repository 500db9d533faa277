"""The terminal's drawing with rich: the board from the mover's side (``draw.rows``), the
score, log and turn, with the mover's notation under each row."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from ..core import Outcome, State
from ..records import YOU, GameRecord
from . import Cell, rows

NAME_WIDTH = 12


CELL = 5  # characters per hole: "|" and a right-aligned count of up to 3 digits


def _cell_style(cell: Cell, viewer: int, marks: set[int]) -> str:
    if cell.index in marks:
        return "bold black on yellow"
    return "bold green" if cell.owner == viewer else "cyan"


def _row_owner_name(row: list[Cell | None], names: tuple[str, str]) -> str:
    """The name of the row's owner when one player owns every hole of it, else blank."""
    owners = {cell.owner for cell in row if cell is not None}
    return names[owners.pop()] if len(owners) == 1 else ""


def board(state: State, names: tuple[str, str], last_move: int | None = None,
          viewer: int | None = None) -> Group:
    """The board as the player to move sees it, their side at the bottom; under each row the
    notation of the mover's holes in it. Their holes are green, the opponent's cyan. A fixed
    ``viewer`` (a person playing the computer) sees it from their side on every turn, each
    row in its owner's notation (the computer's moves are named in its own)."""
    fixed = viewer is not None
    viewer = state.to_move if viewer is None else viewer
    marks = {last_move} if last_move is not None else set()
    lines = []
    for row in rows(state, viewer, each_owner=fixed):
        label = _row_owner_name(row, names)
        text = Text(f"{label[:NAME_WIDTH]:<{NAME_WIDTH}} ")
        for cell in row:
            if cell is None:
                text.append(" " * CELL)
            else:
                text.append("|", style="dim")
                text.append(f"{cell.count:>3} ", style=_cell_style(cell, viewer, marks))
        lines.append(text)
        labels = [None if cell is None else cell.label for cell in row]
        if any(labels):
            lines.append(Text(" " * (NAME_WIDTH + 1) + "".join(
                f"{lab or '':>4} " for lab in labels), style="dim"))
    return Group(*lines)


def scores(state: State, names: tuple[str, str]) -> Text:
    score = state.score
    noun = state.variant.texts.score_noun
    text = Text()
    extra = state.variant.status_text(state)
    if extra:
        text.append(extra + "\n", style="bold")
    for player in (0, 1):
        verb = "have" if names[player] == YOU else "has"
        text.append(f"{names[player]} ({'AB'[player]}) {verb} {score[player]} {noun}.\n",
                    style="bold" if player == state.to_move else "")
    text.rstrip()
    return text


def position(record: GameRecord, viewer: int | None = None) -> Group:
    """The whole screen of one turn: families, board, log, whose turn and the move number;
    the board from ``viewer``'s side (default: the mover's)."""
    state = record.state
    last = record.moves[-1] if record.moves else None
    parts = [scores(state, record.names), board(state, record.names, last, viewer)]
    log = record.log()
    shown = log if len(log) <= 40 else ["…"] + log[-40:]
    parts.append(Text("Moves: " + (" ".join(shown) if log else "none yet"), style="dim"))
    if state.outcome is None:
        parts.append(Text.assemble("Turn: ", (record.names[state.to_move], "bold green"),
                                   f" ({'AB'[state.to_move]}) · move {len(record.moves) + 1}"))
    return Group(*parts)


ENDED_BY = {"repetition": "the same position came round a third time: ",
            "agreement": "ended by agreement: "}


def result(outcome: Outcome, names: tuple[str, str], termination: str | None = None) -> Text:
    """The result line; ``termination`` (a record's) says the game was ended by the rule for
    endless play, each player banking their own side."""
    a, b = outcome.score
    why = ENDED_BY.get(termination, "")
    if why:
        why += "each player banks their own side. "
    if outcome.kind == "win":
        return Text(f"Game over: {why}{names[outcome.winner]} wins, {a} to {b}.",
                    style="bold red")
    if outcome.kind == "draw":
        return Text(f"Game over: {why}{'A' if why else 'a'} draw, {a} to {b}.",
                    style="bold yellow")
    return Text(f"Game over: timeout (a move that never ends); no winner ({a} to {b}).",
                style="bold yellow")
