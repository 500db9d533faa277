"""Playing: play, replay, review, and the list of games."""

from __future__ import annotations

import contextlib
from typing import Annotated, Optional

import typer
from rich.table import Table

from .._cache import is_warm, warm_up
from ..players import player as make_player
from ..records import YOU, GameRecord, check_name
from ..variants import variant as make_variant
from ..variants import variants as variant_names
from ..terminal import (COMPUTER, EndSession, TerminalGame, ask_names, ask_setting, replay,
                        review_table)
from .common import GameOptions, app, console, fail, parse_options, saying


@app.command()
def play(
    game: Annotated[str, typer.Argument(
        help=f"the game: {', '.join(variant_names())}")],
    a: Annotated[Optional[str], typer.Option("--a", help="name of player A (moves first)")] = None,
    b: Annotated[Optional[str], typer.Option("--b", help="name of player B")] = None,
    bot: Annotated[Optional[str], typer.Option(
        help="the computer player, e.g. hard or mcts:time=3; given alone, you play A against "
             "it")] = None,
    load: Annotated[Optional[str], typer.Option(help="resume the game saved in this file")] = None,
    game_number: Annotated[Optional[int], typer.Option(
        "--game", help="with --load, in a file of several games: this one, from 1")] = None,
    save: Annotated[Optional[str], typer.Option(
        help="write the game record to this file after every move")] = None,
    option: GameOptions = [],
) -> None:
    """Play a game in the terminal: two people, or a person against the computer.

    A player named 'Computer' is played by the computer (--bot sets which player). With
    --bot alone, or one side named Computer, you play the other side without being asked.
    """
    if a is not None and a == b:
        fail(f"the two players need different names (both are {a!r})")
    a, b = (None if n is None else check_name(n) for n in (a, b))
    with preparing():
        record, computer = _new_or_loaded(game, load, bot or DEFAULT_BOT, option, game_number)
    try:
        if load:
            names = (a or record.names[0], b or record.names[1])
        else:
            names = ask_names(console, *_given_names(a, b, bot is not None))
        if names[0] == names[1]:
            fail(f"the two players need different names (both are {names[0]!r})")
        while True:
            record.names = names
            if not load and record.variant.has_setting:
                settings = [None if names[p] == COMPUTER
                            else ask_setting(console, record.variant, names[p], p)
                            for p in (0, 1)]
                record = GameRecord(record.variant, record.variant.start(*settings), names)
            if not TerminalGame(record, computer, console, save_to=save).run():
                break
            record, load = GameRecord.new(record.variant), None  # a new game, same players
    except EndSession as stop:
        console.print("Game left unfinished." if stop.args[0] != "quit" else "Goodbye.")
    except KeyboardInterrupt:
        console.print("\nInterrupted; game left unfinished.")
        raise typer.Exit(130)


DEFAULT_BOT = "mcts"


def _given_names(a: str | None, b: str | None, bot_given: bool) -> tuple[str | None, ...]:
    """The names the command line settles: against the computer (one side named Computer,
    or --bot alone) the person's side is "You" without asking; otherwise the names asked."""
    if a is None and b is None and bot_given:
        return YOU, COMPUTER
    if COMPUTER in (a, b) or bot_given:
        other = COMPUTER if COMPUTER not in (a, b) else YOU
        return (a or other, b) if b is not None else (a, other)
    return a, b


def _new_or_loaded(game: str, load: str | None, bot: str, option: list[str],
                   number: int | None = None):
    """The game record to play (new or loaded) and the computer player; exit 2 if bad."""
    if load:
        record = GameRecord.load(load, number)
        if record.variant.name != game.strip().lower():
            fail(f"{load} holds a game of {record.variant.name}, not {game}")
    else:
        record = GameRecord.new(make_variant(game, **parse_options(option)))
    warm_up([record.variant.name], players=False)  # the player warmed its own search
    computer = make_player(bot, record.variant.name)
    return record, computer


@contextlib.contextmanager
def preparing():
    """A spinner with a word while numba compiles the rules on a first start."""
    if is_warm():
        yield
        return
    with saying("Preparing the rules (first start only, up to a minute)..."):
        yield


GameNumber = Annotated[Optional[int], typer.Option(
    "--game", help="in a file of several games (a tournament's, an arena's): this one, from "
                   "1 (default: each in turn)")]


def _games(file: str, number: int | None) -> list[GameRecord]:
    """The games of ``file`` to go through: its ``number``-th, or all of them."""
    if number is not None:
        return [GameRecord.load(file, number)]
    return GameRecord.load_all(file)


def _title(games: list[GameRecord], i: int) -> None:
    if len(games) > 1:
        console.rule(f"Game {i + 1} of {len(games)}")


@app.command("replay")
def replay_command(
    file: Annotated[str, typer.Argument(help="a game record written by 'save', or a file of "
                                             "several games")],
    all_: Annotated[bool, typer.Option("--all", help="print every position, do not wait")] = False,
    game: GameNumber = None,
) -> None:
    """Step through a saved game, position by position."""
    games = _games(file, game)
    try:
        for i, record in enumerate(games):
            _title(games, i)
            replay(record, console, step=not all_)
    except (EndSession, KeyboardInterrupt):
        console.print()


@app.command("review")
def review_command(
    file: Annotated[str, typer.Argument(help="a game record written by 'save', or a file of "
                                             "several games")],
    time: Annotated[float, typer.Option(help="seconds to solve each position at most")] = 2.0,
    game: GameNumber = None,
) -> None:
    """A game's moves with their values: each move marked best, good, an inaccuracy, a
    mistake or a blunder (it changed the result under perfect play) by what it gave away;
    exact where the solver proves it in the time, else the expert's estimate ("~")."""
    games = _games(file, game)
    if not (0 < time <= 3600):
        fail(f"--time must be above 0 and at most 3600 seconds, got {time}")
    for i, record in enumerate(games):
        _title(games, i)
        review_table(record, console, time)


@app.command()
def games() -> None:
    """List the games mancalab can play, with their options (set them with -o NAME=VALUE)."""
    console.print("[bold]Games[/] (options: -o NAME=VALUE; rules: docs/<game>.md)")
    for name in variant_names():
        game = make_variant(name)
        table = Table(title=f"[bold]{name}[/]: {game.title}", title_justify="left")
        table.add_column("option", no_wrap=True)
        table.add_column("default", no_wrap=True)
        table.add_column("values", ratio=1)  # wraps at spaces
        for key, spec in game.option_specs.items():
            table.add_row(key, str(spec.default), spec.rule)
        console.print(table)
