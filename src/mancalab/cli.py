"""The ``mancalab`` command: play, replay, games.

Bad input (an unknown game, option or player, a malformed record) prints one clear line and
exits with status 2; nothing is written.
"""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer
from rich.console import Console

from .core import MancalabError
from .players import player as make_player
from .records import GameRecord, _typed
from .variants import variant as make_variant
from .variants import variants as variant_names
from .terminal import COMPUTER, EndSession, TerminalGame, ask_names, replay

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Play, analyse and solve mancala (sowing) games.")
console = Console(highlight=False)
errors = Console(stderr=True, highlight=False)


def fail(message: str, code: int = 2) -> None:
    errors.print(f"[bold red]mancalab:[/] {message}")
    raise typer.Exit(code)


def parse_options(pairs: list[str]) -> dict[str, object]:
    options: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            fail(f"bad --option {pair!r}: write NAME=VALUE")
        options[key.strip()] = value.strip()
    return _typed(options)


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="the game, e.g. gebeta (see 'mancalab games')")],
    a: Annotated[Optional[str], typer.Option("--a", help="name of player A (first to move)")] = None,
    b: Annotated[Optional[str], typer.Option("--b", help="name of player B")] = None,
    bot: Annotated[str, typer.Option(help="the computer player, e.g. mcts:time=3")] = "mcts",
    load: Annotated[Optional[str], typer.Option(help="resume the game saved in this file")] = None,
    option: Annotated[list[str], typer.Option("--option", "-o",
                                              help="a game option NAME=VALUE (repeatable)")] = [],
) -> None:
    """Play a game in the terminal: two people, or a person against the computer.

    A player named 'Computer' is played by the computer (--bot sets which player).
    """
    if a is not None and a == b:
        fail(f"the two players need different names (both are {a!r})")
    try:
        if load:
            record = GameRecord.load(load)
            if record.variant.name != game.strip().lower():
                fail(f"{load} holds a game of {record.variant.name}, not {game}")
        else:
            record = GameRecord.new(make_variant(game, **parse_options(option)))
        computer = make_player(bot)
    except MancalabError as error:
        fail(str(error))
    try:
        if load:
            names = (a or record.names[0], b or record.names[1])
        else:
            names = ask_names(console, a, b)
        if names[0] == names[1]:
            fail(f"the two players need different names (both are {names[0]!r})")
        record.names = names
        TerminalGame(record, computer, console).run()
    except EndSession as stop:
        console.print("Game left unfinished." if stop.args[0] != "quit" else "Goodbye.")
    except KeyboardInterrupt:
        console.print("\nInterrupted; game left unfinished.")
        raise typer.Exit(130)


@app.command("replay")
def replay_command(
    file: Annotated[str, typer.Argument(help="a game record written by 'save'")],
    all_: Annotated[bool, typer.Option("--all", help="print every position, do not wait")] = False,
) -> None:
    """Step through a saved game, position by position."""
    try:
        record = GameRecord.load(file)
    except MancalabError as error:
        fail(str(error))
    try:
        replay(record, console, step=not all_)
    except (EndSession, KeyboardInterrupt):
        console.print()


@app.command()
def games() -> None:
    """List the games mancalab can play, with their options."""
    for name in variant_names():
        game = make_variant(name)
        opts = ", ".join(f"{k}={v}" for k, v in game.options.items()) or "no options"
        console.print(f"[bold]{name}[/]  {game.title}  ({opts})")


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


__all__ = ["app", "main", "COMPUTER"]
