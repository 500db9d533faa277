"""The ``mancalab`` command: play, replay, tree, arena, solve, fair, db, engine, games, serve.

Bad input (an unknown game, option or player, a malformed record) prints one clear line and
exits with status 2; nothing is written.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)
from rich.table import Table

from ._cache import is_warm, warm_up
from .core import MancalabError
from .players import player as make_player
from .records import GameRecord, check_name, typed_options
from .variants import variant as make_variant
from .variants import variants as variant_names
from .web.thinking import Limits
from .terminal import COMPUTER, EndSession, TerminalGame, ask_names, ask_setting, replay

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Play, analyse and solve mancala (sowing) games.")
console = Console(highlight=False)
errors = Console(stderr=True, highlight=False)


MAX_TREE_DEPTH = 1000  # far past any level that fits in memory (the tree stops there first)


def fail(message: str, code: int = 2) -> None:
    errors.print(f"[bold red]mancalab:[/] {message}")
    raise typer.Exit(code)


def check_cluster(address: str | None) -> None:
    """With ``--cluster``: the extra is installed and the scheduler answers, or exit 2."""
    if address is None:
        return
    from .cluster import connect

    try:
        connect(address).close()
    except MancalabError as error:
        fail(str(error))


@contextlib.contextmanager
def cluster_errors(address: str | None, kept: str = ""):
    """A scheduler or worker connection lost in the middle of a run ends it with one line
    (the results written so far stay, and the same command goes on from them)."""
    import asyncio
    import concurrent.futures

    try:
        yield
    except MancalabError:
        raise
    except (OSError, TimeoutError, asyncio.CancelledError,
            concurrent.futures.CancelledError) as error:
        if address is None:
            raise
        why = f"{type(error).__name__}: {error}".rstrip(": ")
        fail(f"lost the Dask cluster at {address} ({why}); "
             f"{kept or 'the results so far are kept'}: run the same command again to go on")


def parse_options(pairs: list[str]) -> dict[str, object]:
    options: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            fail(f"bad --option {pair!r}: write NAME=VALUE")
        options[key.strip()] = value.strip()
    return typed_options(options)


@app.command()
def play(
    game: Annotated[str, typer.Argument(
        help="the game: gebeta, urubugu, gabata, kalah or gabata3")],
    a: Annotated[Optional[str], typer.Option("--a", help="name of player A (moves first)")] = None,
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
        a, b = (None if n is None else check_name(n) for n in (a, b))
    except MancalabError as error:
        fail(str(error))
    with preparing():
        record, computer = _new_or_loaded(game, load, bot, option)
    try:
        if load:
            names = (a or record.names[0], b or record.names[1])
        else:
            names = ask_names(console, a, b)
        if names[0] == names[1]:
            fail(f"the two players need different names (both are {names[0]!r})")
        record.names = names
        if not load and record.variant.name == "urubugu":
            settings = [None if names[p] == COMPUTER else ask_setting(console, names[p], p)
                        for p in (0, 1)]
            record = GameRecord(record.variant, record.variant.start(*settings), names)
        TerminalGame(record, computer, console).run()
    except EndSession as stop:
        console.print("Game left unfinished." if stop.args[0] != "quit" else "Goodbye.")
    except KeyboardInterrupt:
        console.print("\nInterrupted; game left unfinished.")
        raise typer.Exit(130)


def _new_or_loaded(game: str, load: str | None, bot: str, option: list[str]):
    """The game record to play (new or loaded) and the computer player; exit 2 if bad."""
    try:
        if load:
            record = GameRecord.load(load)
            if record.variant.name != game.strip().lower():
                fail(f"{load} holds a game of {record.variant.name}, not {game}")
        else:
            record = GameRecord.new(make_variant(game, **parse_options(option)))
        warm_up([record.variant.name], players=False)  # the player warmed its own search
        computer = make_player(bot, record.variant.name)
    except MancalabError as error:
        fail(str(error))
    return record, computer


@contextlib.contextmanager
def preparing():
    """A spinner with a word while numba compiles the rules on a first start."""
    if is_warm():
        yield
        return
    message = "Preparing the rules (first start only, up to a minute)..."
    if not console.is_terminal:  # no spinner in a log: say it once
        console.print(message)
    with console.status(message):
        yield


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


@app.command("review")
def review_command(
    file: Annotated[str, typer.Argument(help="a game record written by 'save'")],
    time: Annotated[float, typer.Option(help="seconds to solve each position at most")] = 2.0,
) -> None:
    """A game's moves with their values: each move marked best, good, an inaccuracy, a
    mistake or a blunder (it changed the result under perfect play) by what it gave away;
    exact where the solver proves it in the time, else the expert's estimate ("~")."""
    from .analysis import review, solve as solving

    try:
        record = GameRecord.load(file)
    except MancalabError as error:
        fail(str(error))
    if not (0 < time <= 3600):
        fail(f"--time must be above 0 and at most 3600 seconds, got {time}")
    states = list(record.states)
    reviewer = make_player(f"perfect:time={2 * time}")  # half to solve, half to estimate
    with console.status("Appraising the positions..."):
        appraisals = [reviewer.appraise(state) for state in states]
    table = Table(title=f"{record.variant.title}: {record.names[0]} (A) vs {record.names[1]} "
                        f"(B), values for the player moving (~ an estimate)")
    for column in ("move", "player", "played", "value", "best", "mark"):
        table.add_column(column, overflow="fold")
    for row in review.judged(states, list(record.moves), appraisals):
        value = "?" if row["value"] is None else (
            solving.describe(int(row["value"])) if row["exact"] else f"~{row['value']:+g}")
        mark = row["mark"] or "?"
        if row["lost"]:
            mark += f" (-{row['lost']:g})"
        table.add_row(str(row["ply"] + 1), "AB"[row["mover"]], row["name"], value,
                      ", ".join(row["best_moves"]) or "-", mark)
    console.print(table)


@app.command()
def puzzles(
    game: Annotated[str, typer.Argument(help="kalah, gebeta or gabata (default rules)")],
    out: Annotated[str, typer.Option(help="the JSON-lines file; a rerun goes on from it")],
    count: Annotated[int, typer.Option(help="puzzles in the file at the end")] = 100,
    seed: Annotated[int, typer.Option(help="the self-play's seed (reproducible)")] = 1,
    time: Annotated[float, typer.Option(help="seconds to solve a candidate at most")] = 2.0,
) -> None:
    """Puzzles proven by the solver: positions from self-play where one move keeps the best
    value and every other loses a clear margin, each with every move's value and a rating."""
    import math

    from .analysis import puzzles as making
    from .records import check_writable

    game = game.strip().lower()
    if game not in making.GAMES:
        fail(f"puzzles are made for {', '.join(making.GAMES)}, not {game!r}")
    if not 1 <= count <= 100_000:
        fail(f"--count must be 1..100000, got {count}")
    if not (math.isfinite(time) and 0 < time <= 3600):
        fail(f"--time must be above 0 and at most 3600 seconds, got {time}")
    if not 0 <= seed < 2**31:
        fail(f"--seed must be 0..2147483647, got {seed}")
    try:
        check_writable(out)
    except OSError as error:
        fail(f"cannot write {out}: {error.strerror or error}")
    done = making.read(out)  # a line cut short by a stop is dropped, the rest kept
    Path(out).write_text("".join(puzzle.to_json() + "\n" for puzzle in done))
    with open(out, "a") as sink, Progress(
            TextColumn(f"{game} puzzles"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task("", total=count, completed=min(len(done), count))

        def keep(puzzle) -> None:
            sink.write(puzzle.to_json() + "\n")
            sink.flush()
            progress.advance(task)

        found = making.generate(game, count, seed, time, done, keep)
    console.print(f"{len(found)} puzzles of {game} in {out}")


@app.command()
def worksheet(
    game: Annotated[str, typer.Argument(help="the game, e.g. gebeta (default rules)")],
    out: Annotated[str, typer.Option(help="the PDF file to write")],
    questions: Annotated[int, typer.Option(help="questions, six a page (1..120)")] = 12,
    paper: Annotated[str, typer.Option(help="a4 or letter")] = "a4",
    seed: Annotated[int, typer.Option(help="choose the positions from this seed")] = 1,
) -> None:
    """A classroom worksheet: boards with questions the engine answers (where a move's last
    counter lands, how much a move wins, which move wins the most), the answers on the last
    page, to print for a class without computers."""
    from .analysis import worksheet as sheets
    from .records import check_writable

    game = game.strip().lower()
    paper = paper.strip().lower()
    if game not in variant_names():
        fail(f"unknown game {game!r} (games: {', '.join(variant_names())})")
    if not 1 <= questions <= sheets.MAX_QUESTIONS:
        fail(f"--questions must be 1..{sheets.MAX_QUESTIONS}, got {questions}")
    if paper not in sheets.PAPERS:
        fail(f"--paper must be {' or '.join(sheets.PAPERS)}, got {paper!r}")
    if not 0 <= seed < 2**31:
        fail(f"--seed must be 0..2147483647, got {seed}")
    try:
        check_writable(out)
    except OSError as error:
        fail(f"cannot write {out}: {error.strerror or error}")
    made = sheets.questions(game, questions, seed)
    pages = sheets.write_pdf(made, out, paper, title=make_variant(game).title)
    console.print(f"{out}: {len(made)} questions on {pages - 1} pages and the answer key")


@app.command()
def tree(
    game: Annotated[str, typer.Argument(help="the game, e.g. gebeta")],
    depth: Annotated[int, typer.Option(help="the deepest level (moves from the start)")],
    out: Annotated[Optional[str], typer.Option(help="write the reference results.csv here")] = None,
    jobs: Annotated[Optional[int], typer.Option(help="threads to use (default: all cores)")] = None,
    cluster: Annotated[Optional[str], typer.Option(
        help="run on the workers of this Dask scheduler, e.g. tcp://host:8786 (each level "
             "sharded over them)")] = None,
    plot: Annotated[Optional[str], typer.Option(help="draw the table to this PNG file")] = None,
    checkpoint: Annotated[Optional[str], typer.Option(
        help="keep each finished level in this folder; a rerun with it goes on from the "
             "deepest level kept (one machine)")] = None,
    option: Annotated[list[str], typer.Option("--option", "-o",
                                              help="a game option NAME=VALUE (repeatable)")] = [],
) -> None:
    """Exact game-tree statistics level by level, as the Gebeta program's results.csv."""
    check_cluster(cluster)
    if cluster is not None and checkpoint is not None:
        fail("--checkpoint keeps levels on this machine; it cannot be used with --cluster")
    from .analysis.tree import TreeMemoryError, TreeRow, plot as draw_plot, tree_stats, write_csv
    from .records import check_writable

    if not 1 <= depth <= MAX_TREE_DEPTH:
        fail(f"--depth must be 1..{MAX_TREE_DEPTH}, got {depth}")
    if jobs is not None and jobs < 1:
        fail(f"--jobs must be at least 1, got {jobs}")
    try:
        variant = make_variant(game, **parse_options(option))
    except MancalabError as error:
        fail(str(error))
    for path in filter(None, (out, plot)):
        try:
            check_writable(path)
        except OSError as error:
            fail(f"cannot write {path}: {error.strerror or error}")
    if checkpoint is not None:
        try:
            os.makedirs(checkpoint, exist_ok=True)
        except OSError as error:
            fail(f"cannot keep levels in {checkpoint}: {error.strerror or error}")
    with Progress(TextColumn("level {task.fields[level]:>2}"), BarColumn(),
                  TextColumn("{task.percentage:>5.1f}%"),
                  TextColumn("{task.fields[positions]:>24}"), TimeElapsedColumn(),
                  console=console, transient=False) as progress:
        tasks: dict[int, int] = {}

        def found(level: int, positions: int | None) -> str:
            return "counted, not stored" if level == depth else f"{positions:,} positions"

        def on_progress(level: int, done: int, total: int, positions: int) -> None:
            if level not in tasks:
                tasks[level] = progress.add_task("", total=total, level=level, positions="")
            progress.update(tasks[level], completed=done, positions=found(level, positions))

        done: list[TreeRow] = []

        def on_level(row: TreeRow) -> None:
            if row.level not in tasks:  # a level with nothing to expand, or read back
                tasks[row.level] = progress.add_task("", total=1, level=row.level, positions="")
            progress.update(tasks[row.level], completed=progress.tasks[-1].total,
                            positions=found(row.level, row.positions))
            done.append(row)
            if out:  # the levels so far, in case the run is stopped
                write_csv(done, out)

        try:
            if cluster is not None:
                from .analysis import tree_cluster

                with cluster_errors(cluster, "the levels shown are done"):
                    rows = tree_cluster.tree_stats(variant, depth, cluster, on_level=on_level)
            else:
                rows = tree_stats(variant, depth, jobs=jobs, on_progress=on_progress,
                                  on_level=on_level, checkpoint=checkpoint)
            stopped = None
        except TreeMemoryError as error:
            rows, stopped = error.rows, str(error)
        except MancalabError as error:  # a checkpoint of another run, or damaged
            fail(str(error))
    table = Table(title=f"{variant.title}: game tree to level {depth} (cumulative)")
    for column in ("level", "turns", "agency", "agency %", "games", "A wins", "B wins", "draws",
                   "timeouts", "positions", "seconds"):
        table.add_column(column, justify="right", overflow="fold")
    for r in rows:
        table.add_row(str(r.level), f"{r.turns:,}", f"{r.agency:,}",
                      f"{100 * r.agency / r.turns:.1f}" if r.turns else "-", f"{r.games:,}",
                      f"{r.a_wins:,}", f"{r.b_wins:,}", f"{r.draws:,}", f"{r.timeouts:,}",
                      "-" if r.positions is None else f"{r.positions:,}", f"{r.seconds:.2f}")
    console.print(table, width=max(console.width, 132))
    if stopped:
        fail(stopped)
    try:
        if out:
            write_csv(rows, out)
            console.print(f"Wrote {out}.")
        if plot:
            draw_plot(rows, plot, table.title)
            console.print(f"Drew {plot}.")
    except OSError as error:
        fail(f"cannot write {out or plot}: {error.strerror or error}")


@app.command()
def arena(
    a: Annotated[str, typer.Argument(help="player A, e.g. alphabeta:time=1 or expert")],
    b: Annotated[str, typer.Argument(help="player B, e.g. mcts")],
    game: Annotated[str, typer.Option(help="the game")] = "kalah",
    games: Annotated[int, typer.Option(help="games to play (in pairs: each start twice)")] = 20,
    time: Annotated[Optional[float], typer.Option(
        help="seconds a move for players that think by the clock and were given no time")] = None,
    jobs: Annotated[int, typer.Option(help="games played at once (processes)")] = 1,
    cluster: Annotated[Optional[str], typer.Option(
        help="run on the workers of this Dask scheduler, e.g. tcp://host:8786")] = None,
    seed: Annotated[int, typer.Option(
        help="seed of the start positions and of the players given none")] = 1,
    json_out: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
    out: Annotated[Optional[str], typer.Option(help="save every game record to this file")] = None,
    opening_kind: Annotated[str, typer.Option(
        "--openings", help="random (a few random moves; FairKalah boards for Kalah(6,4)) "
                           "or balanced (shipped openings a deep search values near 0: "
                           "Urubugu, 3-row Gabata; Kalah: the fair boards of its size)")]
    = "random",
    option: Annotated[list[str], typer.Option("--option", "-o",
                                              help="a game option NAME=VALUE (repeatable)")] = [],
) -> None:
    """Play A against B and measure: wins/draws/losses, margin, Elo difference (95% CI)."""
    check_cluster(cluster)
    import json

    from .analysis import arena as arena_module
    from .players import resolve, with_time
    from .records import check_writable, write_atomic

    if games < 1:
        fail(f"--games must be at least 1, got {games}")
    if jobs < 1:
        fail(f"--jobs must be at least 1, got {jobs}")
    if time is not None and time <= 0:
        fail(f"--time must be above 0, got {time}")
    try:
        options = parse_options(option)
        game = make_variant(game, **options).name
        specs = [with_time(s, time, game) if time else s for s in (a, b)]
        for spec in specs:
            cls, player_options = resolve(spec, game)
            cls(**player_options)  # a bad option fails here, before any game
        schedule = arena_module.schedule(specs[0], specs[1], game, options, games, seed,
                                         opening_kind)
    except MancalabError as error:
        fail(str(error))
    if out:
        try:
            check_writable(out)
        except OSError as error:
            fail(f"cannot write {out}: {error.strerror or error}")
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/"
                  "{task.total} games"), TextColumn("{task.fields[score]}"), TimeElapsedColumn(),
                  console=errors if json_out else console) as progress:
        task = progress.add_task(f"{specs[0]} vs {specs[1]}", total=games, score="")
        points = [0.0, 0.0]  # A's and B's

        def on_result(result) -> None:
            points[0] += result.score_for_a
            points[1] += 1 - result.score_for_a
            progress.update(task, advance=1, score=f"A {points[0]:g} : {points[1]:g} B")

        with cluster_errors(cluster, "the games played are lost unless --out"):
            results = arena_module.run(schedule, jobs, on_result, cluster)
    summary = arena_module.summarize(results)
    if out:
        write_atomic(out, "\n".join(r.record for r in results))
    if json_out:
        print(json.dumps({"a": specs[0], "b": specs[1], "game": game, "options": options,
                          **summary.to_dict()}, indent=2))
        return
    _print_summary(specs, game, summary)


@app.command()
def tournament(
    players: Annotated[Optional[list[str]], typer.Argument(
        help="the players: levels, specs, engine:cmd=PROGRAM or FILE.py:CLASS")] = None,
    folder: Annotated[Optional[str], typer.Option(
        help="add every player class in the .py files of this folder (students' players)")]
    = None,
    game: Annotated[str, typer.Option(help="the game")] = "kalah",
    clock: Annotated[float, typer.Option(
        help="seconds each player has for a whole game (a loss on time)")] = 150.0,
    boards: Annotated[int, typer.Option(
        help="start boards (Kalah: random fair boards); every ordered pair plays each")] = 10,
    jobs: Annotated[int, typer.Option(help="games played at once (processes)")] = 1,
    cluster: Annotated[Optional[str], typer.Option(
        help="run on the workers of this Dask scheduler, e.g. tcp://host:8786")] = None,
    seed: Annotated[int, typer.Option(help="seed of the boards and of the players")] = 1,
    out: Annotated[str, typer.Option(
        help="folder of the games (resumed if stopped), records and standings")]
    = "tournament",
    option: Annotated[list[str], typer.Option("--option", "-o",
                                              help="a game option NAME=VALUE (repeatable)")] = [],
) -> None:
    """A round robin in the FairKalah competitions' format: every ordered pair on each board,
    a game clock, a loss on time or an illegal move; standings with Elo and 95% intervals."""
    check_cluster(cluster)
    import math

    from .analysis.tournament import Tournament, clocked
    from .players import players_in, resolve

    try:
        players = list(players or []) + (players_in(folder) if folder else [])
    except MancalabError as error:
        fail(str(error))

    if boards < 1:
        fail(f"--boards must be at least 1, got {boards}")
    if jobs < 1:
        fail(f"--jobs must be at least 1, got {jobs}")
    if not math.isfinite(clock) or not 0 < clock <= 86_400:
        fail(f"--clock must be above 0 and at most a day (86400 s), got {clock}")
    try:
        options = parse_options(option)
        game = make_variant(game, **options).name
        for spec in players:
            cls, player_options = resolve(clocked(spec, clock, game), game)
            cls(**player_options)  # a bad option fails here, before any game
        event = Tournament(players, game, options, boards, clock, seed, out)
        played = len(event.done())
    except MancalabError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot use {out}: {error.strerror or error}")
    if played:
        console.print(f"Going on: {played} of {event.total} games were played before.")
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn(
            "{task.completed}/{task.total} games"), TimeElapsedColumn(), TimeRemainingColumn(),
            console=console) as progress:
        task = progress.add_task(f"{len(players)} players, {game}", total=event.total,
                                 completed=played)
        with cluster_errors(cluster, f"the games so far are in {out}"):
            games = event.run(jobs, lambda entry: progress.advance(task), cluster)
    table = event.write_results(games)
    _print_standings(table, game, clock, len(games))
    console.print(f"Records, games and standings (CSV, JSON, and results.html to open in a "
                  f"browser: standings and every game to replay) in {out}/")


def _print_standings(table, game: str, clock: float, games: int) -> None:
    from .players import display_name

    view = Table(title=f"{game}, {games} games, {clock:g} s a player a game")
    for column in ("#", "player", "points", "games", "W", "D", "L", "score", "Elo", "95% CI",
                   "forfeits"):
        view.add_column(column, justify="left" if column == "player" else "right",
                        overflow="fold")
    for rank, row in enumerate(table, start=1):
        view.add_row(str(rank), display_name(row.player), f"{row.points:g}", str(row.games), str(row.wins),
                     str(row.draws), str(row.losses), f"{100 * row.score:.1f}%",
                     f"{row.elo:+.0f}", f"{row.elo_low:+.0f} .. {row.elo_high:+.0f}",
                     str(row.forfeits))
    console.print(view)


def _print_summary(specs: list[str], game: str, summary) -> None:
    table = Table(title=f"{specs[0]} (A) vs {specs[1]} (B), {game}, {summary.games} games")
    for column in ("A wins", "draws", "B wins", "A score", "A margin", "Elo A-B", "95% CI"):
        table.add_column(column, justify="right", overflow="fold")
    table.add_row(str(summary.wins), str(summary.draws), str(summary.losses),
                  f"{100 * summary.score:.1f}%", f"{summary.mean_margin:+.2f}",
                  f"{summary.elo + 0.0:+.0f}", f"{summary.elo_low:+.0f} .. {summary.elo_high:+.0f}")
    console.print(table)
    for line in summary.errors:
        console.print(f"[yellow]{line}[/]")


def write_sample(game: str, count: int | None, out: str | None, seed: int, max_seeds: int,
                 option: list[str]) -> None:
    """``solve --sample N --out FILE``: exact values of positions for learning."""
    from .analysis import samples

    if count is None or out is None:
        fail("--sample and --out go together: --sample 1000 --out kalah.csv")
    if game.strip().lower() != "kalah":
        fail(f"--sample draws Kalah positions from the FairKalah boards, not {game}")
    if seed < 0:
        fail(f"--seed must be 0 or more, got {seed}")
    try:
        rules = parse_options(option)
        if set(rules) - {"empty_capture", "end_rule"}:
            raise MancalabError("the FairKalah boards fix pits=6 and seeds=4: only "
                                "empty_capture and end_rule may be set")
        make_variant("kalah", **rules)
        with Progress(TextColumn("solving"), BarColumn(), TextColumn("{task.completed}/"
                      "{task.total}"), TimeRemainingColumn(), console=errors) as bar:
            task = bar.add_task("sample", total=count)
            path = samples.write(out, count, seed, max_seeds, rules,
                                 on_row=lambda done, total: bar.update(task, completed=done))
    except MancalabError as error:
        fail(str(error))
    console.print(f"Wrote {path}: {count:,} positions with their exact values.")


@app.command()
def solve(
    game: Annotated[str, typer.Argument(help="the game: kalah, gebeta, gabata or urubugu")],
    position: Annotated[Optional[str], typer.Option(
        help="the cells, comma-separated, in the game's layout (default: the start)")] = None,
    to_move: Annotated[int, typer.Option(help="with --position: 0 (A) or 1 (B) to move")] = 0,
    record: Annotated[Optional[str], typer.Option(
        help="solve the position at the end of this game record")] = None,
    moves: Annotated[bool, typer.Option("--moves", help="the value of every legal move")]
    = False,
    time: Annotated[Optional[float], typer.Option(
        help="stop after these seconds and report the bounds proven (Urubugu: 10 s unless "
             "given)")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    option: Annotated[list[str], typer.Option("--option", "-o",
                                              help="a game option NAME=VALUE (repeatable)")] = [],
    sample: Annotated[Optional[int], typer.Option(
        help="instead: solve this many positions reached by random play from the FairKalah "
             "boards and write them to --out (CSV)")] = None,
    out: Annotated[Optional[str], typer.Option(help="with --sample: the CSV file")] = None,
    seed: Annotated[int, typer.Option(help="with --sample: the seed of the random play")] = 1,
    max_seeds: Annotated[int, typer.Option(
        help="with --sample: play on until at most this many seeds are in play")] = 32,
) -> None:
    """The exact value of a position with perfect play, and the best moves."""
    import json
    import math
    import time as clock

    from .analysis import solve as solving

    if sample is not None or out is not None:
        write_sample(game, sample, out, seed, max_seeds, option)
        return
    if time is not None and not (math.isfinite(time) and 0 < time <= 10**7):
        fail(f"--time must be a number of seconds above 0, got {time}")
    if to_move not in (0, 1):
        fail(f"--to-move must be 0 or 1, got {to_move}")
    if position is not None and record is not None:
        fail("give --position or --record, not both")
    try:
        if record is not None:
            state = GameRecord.load(record).state
        else:
            variant = make_variant(game, **parse_options(option))
            state = variant.start() if position is None else variant.state(
                [c.strip() for c in position.split(",")], to_move)
        reason = solving.unsolvable(state.variant)
        if reason:
            fail(reason)
    except MancalabError as error:
        fail(str(error))
    out = errors if json_out else console
    started = clock.perf_counter()
    with out.status("Preparing the solver...") as status:
        def building(level: int, done: int, total: int) -> None:
            status.update(f"Building the endgame database: {level} seeds done")

        def tightened(lower: int, upper: int) -> None:
            status.update(f"Solving: the value is between {lower:+d} and {upper:+d} "
                          f"({clock.perf_counter() - started:.1f} s)")

        try:
            database = solving.database_for(state, on_progress=building)
            result = solving.solve(state, time=time, moves=moves, database=database,
                                   on_bounds=tightened)
        except MancalabError as error:
            fail(str(error))
    result.seconds = clock.perf_counter() - started
    if json_out:
        print(json.dumps(result.to_dict()))
        return
    who = "AB"[state.to_move]
    if state.is_over:
        console.print(f"The game is over: {solving.describe(result.value)} for {who}.")
        return
    if result.exact:
        best = (f"Best: {', '.join(result.best_move_names)}." if result.best_move_names
                else "No move proven best in the time given.")
        console.print(f"With perfect play the player to move ({who}) [bold]"
                      f"{solving.describe(result.value)}[/] ({result.value:+d}). {best}")
    elif result.endless:
        console.print(f"Neither player can force the game to end: with perfect play the value "
                      f"for {who} is between {result.lower:+d} and {result.upper:+d}, and the "
                      "rule for endless play decides where.")
    elif result.depth is not None:
        console.print(f"No forced end found within {result.depth} moves ({result.seconds:.1f}"
                      f" s): the value for {who} is between {result.lower:+d} and "
                      f"{result.upper:+d} (not proven).")
    else:
        limit = f"within {time:g} s" if time is not None else "within the memory at hand"
        console.print(f"Not proven {limit}: the value for {who} is between "
                      f"{result.lower:+d} and {result.upper:+d}.")
    for move, (lower, upper) in result.moves.items():
        console.print(f"  {result.move_names[move]}: "
                      f"{solving.describe_bounds(lower, upper, result.endless)}")
    if result.depth is not None:
        console.print(f"{result.nodes:,} nodes in {result.seconds:.1f} s (forced ends searched "
                      f"{result.depth} moves deep).")
    else:
        console.print(f"{result.nodes:,} nodes in {result.seconds:.1f} s (endgame database: "
                      f"{result.database_seeds} seeds).")


@app.command()
def fair(
    game: Annotated[str, typer.Argument(help="the game (kalah: the solved one)")],
    moved: Annotated[int, typer.Option(help="boards with 1, or 1 or 2, seeds moved")] = 2,
    out: Annotated[Optional[str], typer.Option(
        help="the results file (JSON lines; a restart goes on from it)")] = None,
    jobs: Annotated[int, typer.Option(help="worker processes (default: one per core)")] = 0,
    cluster: Annotated[Optional[str], typer.Option(
        help="run on the workers of this Dask scheduler, e.g. tcp://host:8786")] = None,
    time: Annotated[Optional[float], typer.Option(
        help="at most these seconds a board (undecided boards are tried again next run)")]
    = None,
    fair_list: Annotated[Optional[str], typer.Option(
        "--list", help="also write the fair boards, numbered, to this file (the format of "
                       "the shipped lists that -o board=N reads)")] = None,
    option: Annotated[list[str], typer.Option("--option", "-o",
                                              help="a game option NAME=VALUE (repeatable)")] = [],
) -> None:
    """Fair starts: the boards made by moving one or two seeds of the start that two perfect
    players draw."""
    check_cluster(cluster)
    import math
    import os

    from .analysis import databases, fair as fairness

    if time is not None and not (math.isfinite(time) and 0 < time <= 10**7):
        fail(f"--time must be a number of seconds above 0, got {time}")
    jobs = jobs or os.cpu_count() or 1
    try:
        variant = make_variant(game, **parse_options(option))
        databases.check_variant(variant)
        total = len(fairness.candidates(variant, moved))
        path = Path(out) if out else fairness.default_path(variant, moved)
        console.print(f"Screening {total:,} boards of {variant.name} "
                      f"({', '.join(f'{k}={v}' for k, v in fairness.rules_of(variant).items())})"
                      f" with up to {moved} seed{'s' * (moved > 1)} moved; results in {path}")
        with Progress(TextColumn("{task.description}"), BarColumn(),
                      TextColumn("{task.completed:,}/{task.total:,} boards, "
                                 "{task.fields[fair]} fair"),
                      TimeElapsedColumn(), TimeRemainingColumn(), console=errors) as bar:
            task = bar.add_task("screening", total=total, fair=0)
            with cluster_errors(cluster, f"the boards decided so far are in {path}"):
                found = fairness.screen(
                    variant, moved, path, jobs, time,
                    on_board=lambda done, _total, fair_count: bar.update(
                        task, completed=done, fair=fair_count, description="screening"),
                    on_database=lambda level, _d, _t: bar.update(
                        task, description=f"endgame database: {level} seeds"),
                    cluster=cluster)
        _print_screen(variant, found)
        if fair_list:
            command = "mancalab fair " + " ".join(sys.argv[2:])
            console.print(f"Wrote {fairness.write_list(variant, found, fair_list, command)}.")
    except MancalabError as error:
        fail(str(error))


def _print_screen(variant, found) -> None:
    from .analysis import fair as fairness

    console.print(f"{len(found.fair):,} fair boards of {found.boards:,}"
                  + (f"; {len(found.undecided):,} not decided in the time given"
                     if found.undecided else "")
                  + f". This run: {found.solved_now:,} boards, {found.nodes:,} nodes, "
                  f"{found.seconds:.1f} s; search over all runs {found.seconds_all:.1f} s.")
    for cells in found.fair[:20]:
        console.print("  " + ",".join(map(str, cells)))
    if len(found.fair) > 20:
        console.print(f"  ... and {len(found.fair) - 20:,} more in {found.path}")
    known = fairness.published(variant, found)
    if known is not None:
        console.print(known)


db_app = typer.Typer(help="Endgame databases: build and list them.", no_args_is_help=True)
app.add_typer(db_app, name="db")


@db_app.command("build")
def db_build(
    game: Annotated[str, typer.Argument(help="the game: kalah, gebeta or gabata")],
    seeds: Annotated[int, typer.Option(help="every position with at most this many seeds")],
    folder: Annotated[Optional[str], typer.Option("--dir", help="where to keep it")] = None,
    cluster: Annotated[Optional[str], typer.Option(
        help="build on the workers of this Dask scheduler, e.g. tcp://host:8786 (each level "
             "cut into slices; Kalah)")] = None,
    option: Annotated[list[str], typer.Option("--option", "-o",
                                              help="a game option NAME=VALUE (repeatable)")] = [],
    start: Annotated[bool, typer.Option(
        help="then solve every position the start reaches above the database and keep them "
             "(Gebeta: 44.6 M positions, 0.45 GB, minutes): the book, looked up by the "
             "solver, hints and the perfect player")] = False,
) -> None:
    """Compute an endgame database and save it (whole or not at all)."""
    import time as clock

    from .analysis import databases, retrograde, solve as solving

    try:
        variant = make_variant(game, **parse_options(option))
        reason = solving.no_databases(variant)
        if reason:
            fail(reason)
        repeats = variant.name in solving.retrograde_games()
        if repeats and cluster:
            fail("--cluster builds Kalah's databases; Gebeta's and Gabata's build here")
        if start and not repeats:
            fail("--start builds the book of Gebeta's or Gabata's start (Kalah is searched)")
        check_cluster(cluster)
        if repeats:
            count = retrograde.plan(variant, seeds)[2]
            levels = retrograde.levels_of(variant, seeds)
        else:
            if not 0 <= seeds <= databases.MAX_SEEDS:
                fail(f"--seeds must be 0..{databases.MAX_SEEDS}, got {seeds}")
            count = databases.entries(variant.options["pits"], seeds)
            levels = list(range(seeds + 1))
    except MancalabError as error:
        fail(str(error))
    started = clock.perf_counter()
    with Progress(TextColumn("seeds {task.fields[level]:>3}/" + str(seeds)), BarColumn(),
                  TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task("", total=len(levels), level=0)

        def done(level: int, _done: int, _total: int) -> None:
            progress.update(task, completed=levels.index(level) + 1, level=level)

        try:
            if repeats:
                database = retrograde.build(variant, seeds, done)
                path = retrograde.save(database, folder)
            else:
                with cluster_errors(cluster, "nothing was written"):
                    database = databases.build(variant, seeds, cluster=cluster,
                                               on_progress=done)
                path = databases.save(database, folder)
        except MancalabError as error:
            fail(str(error))
    seconds = clock.perf_counter() - started
    console.print(f"Wrote {path}: {count:,} positions in {seconds:.1f} s "
                  f"({count / max(seconds, 1e-9) / 1e6:.1f} M a second).")
    if start:
        _build_book(database, path.parent)


def _build_book(database, folder: Path) -> None:
    """``db build --start``: the book of the start over the database just built."""
    import time as clock

    from .analysis import retrograde

    started = clock.perf_counter()
    with Progress(TextColumn("the start's graph"), BarColumn(), TimeElapsedColumn(),
                  console=console) as progress:
        progress.add_task("", total=None)  # one compiled walk: its length is not known
        try:
            book = retrograde.build_book(database.variant, database)
            path = retrograde.save_book(book, folder)
        except MancalabError as error:
            fail(str(error))
    seconds = clock.perf_counter() - started
    console.print(f"Wrote {path}: the {book.keys.size:,} positions the start reaches above "
                  f"{book.seeds} seeds, solved in {seconds:.1f} s.")


@db_app.command("list")
def db_list(folder: Annotated[Optional[str], typer.Option("--dir", help="where to look")]
            = None) -> None:
    """The endgame databases built."""
    from .analysis import databases

    found = databases.listing(folder)
    if not found:
        console.print(f"No databases in {folder or databases.default_dir()}.")
        return
    console.print(f"Endgame databases in {folder or databases.default_dir()}:")
    for entry in found:  # one line each, so scripts can read it too
        name = Path(entry["file"]).name
        if "error" in entry:
            console.print(f"{name}  {entry['error']}", soft_wrap=True)
            continue
        rules = ", ".join(f"{k}={v}" for k, v in entry["rules"].items())
        what = (f"the start's book over {entry['seeds']} seeds" if entry["kind"] == "start"
                else f"{entry['seeds']} seeds")
        console.print(f"{name}  {entry['game']}  {rules}  {what}  "
                      f"{entry['entries']:,} positions  {entry['bytes'] / 1e6:.1f} MB",
                      soft_wrap=True)


@app.command()
def counter(
    game: Annotated[str, typer.Argument(help="the game: urubugu")],
    setting: Annotated[Optional[str], typer.Option(
        help="the opponent's setting: 16 counts, their holes 1-16, 32 beads, e.g. 2,2,...,2")]
    = None,
    sample: Annotated[Optional[int], typer.Option(
        help="a study: the default setting and N-1 settings drawn uniformly")] = None,
    out: Annotated[Optional[str], typer.Option(
        help="the study's results (JSON lines; a stopped study goes on)")] = None,
    time: Annotated[float, typer.Option(help="seconds of search a setting at most")] = 10.0,
    all_: Annotated[bool, typer.Option(
        "--all", help="count every winning setting and first move (an exhaustive search)")]
    = False,
    igisoro: Annotated[bool, typer.Option(
        help="the traditional Igisoro options (docs/research.md)")] = False,
    jobs: Annotated[int, typer.Option(help="settings searched at once (processes)")] = 1,
    cluster: Annotated[Optional[str], typer.Option(
        help="run on the workers of this Dask scheduler, e.g. tcp://host:8786")] = None,
    seed: Annotated[int, typer.Option(help="the seed of the study's settings")] = 1,
    json_out: Annotated[bool, typer.Option("--json", help="print the answer as JSON")] = False,
    option: Annotated[list[str], typer.Option("--option", "-o",
                                              help="a game option NAME=VALUE (repeatable)")] = [],
) -> None:
    """Urubugu counter-settings (IMPAGA): a setting and a first move that take every one of
    the opponent's beads in one turn; found, proven impossible, or not found in the time."""
    check_cluster(cluster)
    import json
    import math

    from .analysis import counter as search

    if game.strip().lower() != "urubugu":
        fail(f"counter-settings are a question of Urubugu's free setting, not {game!r}")
    if not math.isfinite(time) or not 0 < time <= 86_400:
        fail(f"--time must be above 0 and at most a day (86400 s), got {time}")
    if (setting is None) == (sample is None):
        fail("give --setting S (one setting) or --sample N --out FILE (a study)")
    if jobs < 1:
        fail(f"--jobs must be at least 1, got {jobs}")
    try:
        options = {**(search.IGISORO if igisoro else {}), **parse_options(option)}
        make_variant("urubugu", **options)
        if sample is not None:
            _counter_study(sample, out, seed, time, jobs, json_out, options, cluster)
            return
        try:
            counts = [whole_count(c) for c in setting.split(",")]
        except ValueError:
            fail(f"--setting must be 16 whole numbers separated by commas, got {setting!r}")
        answer = search.counter(counts, time, all_, **options)
    except MancalabError as error:
        fail(str(error))
    if json_out:
        print(json.dumps(answer.to_dict()))
        return
    _print_counter(counts, answer, options)


def _counter_study(sample: int, out: str | None, seed: int, time: float, jobs: int,
                   json_out: bool, options: dict, cluster: str | None) -> None:
    import json

    from .analysis import counter as search

    if sample < 1:
        fail(f"--sample must be at least 1, got {sample}")
    if out is None:
        fail("a study needs --out FILE for its results (a stopped study goes on from it)")
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn(
            "{task.completed}/{task.total} settings"), TextColumn("{task.fields[tally]}"),
            TimeElapsedColumn(), TimeRemainingColumn(),
            console=errors if json_out else console) as progress:
        task = progress.add_task("counter-settings", total=sample, tally="")
        tally = {"found": 0, "none": 0, "unknown": 0}

        def on_setting(row: dict) -> None:
            tally[row["status"]] += 1
            progress.update(task, advance=1, tally=" ".join(f"{k} {v}" for k, v in
                                                            tally.items()))

        with cluster_errors(cluster, f"the settings searched so far are in {out}"):
            rows = search.study(sample, seed, out, time, jobs, on_setting, cluster, **options)
    result = search.summary(rows)
    if json_out:
        print(json.dumps(result, indent=1))
        return
    table = Table(title=f"Counter-settings of {result['settings']:,} settings "
                        f"(the default and {result['settings'] - 1:,} drawn uniformly)")
    for column in ("answer", "settings", "share", "95% interval"):
        table.add_column(column, justify="right", overflow="fold")
    for status, words in (("found", "found"), ("none", "proven none"),
                          ("unknown", "not decided")):
        row = result[status]
        table.add_row(words, f"{row['count']:,}", f"{100 * row['share']:.2f}%",
                      f"{100 * row['low']:.2f}% .. {100 * row['high']:.2f}%")
    console.print(table)
    console.print(f"Time a setting: median {result['seconds_median']:.4f} s, longest "
                  f"{result['seconds_max']:.2f} s. Results in {out}.")


def whole_count(text: str) -> int:
    text = text.strip()
    if not text.isdigit() or len(text) > 6:
        raise ValueError(text)
    return int(text)


def _print_counter(opponent: list[int], answer, options: dict) -> None:
    from .render import board
    from .sowing import narrate
    from .variants.urubugu import HOLE_CELL

    if answer.status == "none":
        console.print(f"[bold]Proven: no counter-setting exists[/] for {opponent}: "
                      f"{answer.reason}.")
        return
    if answer.status == "unknown":
        console.print(f"[bold yellow]Not found[/] within the time, and not proven impossible "
                      f"(no claim either way): {answer.reason}.")
        return
    counted = f" There are {answer.count:,} winning (setting, first move) pairs in all." \
        if answer.count is not None else f" ({answer.reason}.)" if answer.reason else ""
    console.print(f"[bold green]Found[/] a counter-setting: {answer.setting}, first move: "
                  f"hole {answer.move} ({answer.nodes:,} decisions, {answer.seconds:.2f} s)."
                  + counted)
    urubugu = make_variant("urubugu", **options)
    start = urubugu.start(setting_a=answer.setting, setting_b=opponent)
    move = int(HOLE_CELL[0, answer.move])
    console.print(board(start, ("Starter", "Opponent")))
    for number, line in enumerate(narrate(start, move), start=1):
        console.print(f"  {number:>3}. {line}")
    after = start.play(move)
    console.print(board(urubugu.state(after.cells, to_move=0), ("Starter", "Opponent")))
    console.print(f"Every one of the opponent's beads is taken: {after.score[0]} to "
                  f"{after.score[1]}.")


@app.command()
def metrics(
    game: Annotated[str, typer.Argument(help="the game")],
    games: Annotated[int, typer.Option(help="self-play games of each player")] = 100,
    player: Annotated[str, typer.Option(
        help="the player whose self-play is measured (beside random play)")]
    = "alphabeta:time=0.05",
    seed: Annotated[int, typer.Option(help="the seed of the games")] = 1,
    jobs: Annotated[int, typer.Option(help="games played at once (processes)")] = 1,
    cluster: Annotated[Optional[str], typer.Option(
        help="run on the workers of this Dask scheduler, e.g. tcp://host:8786")] = None,
    max_plies: Annotated[int, typer.Option(help="moves after which a game is cut")] = 5000,
    opening: Annotated[int, typer.Option(
        help="random moves that start each game (so self-play games differ)")] = 2,
    out: Annotated[Optional[str], typer.Option(
        help="folder of the results files (a stopped run goes on from them)")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the metrics as JSON")] = False,
    option: Annotated[list[str], typer.Option("--option", "-o",
                                              help="a game option NAME=VALUE (repeatable)")] = [],
) -> None:
    """Game metrics in self-play of a player and of random play, with 95% intervals:
    balance, draws, length, branching, agency, lead changes, extra turns, relays, captures."""
    check_cluster(cluster)
    import json

    from .analysis import databases
    from .analysis import metrics as measuring
    from .players import resolve

    if not 1 <= games <= 1_000_000:
        fail(f"--games must be 1..1,000,000, got {games}")
    if jobs < 1:
        fail(f"--jobs must be at least 1, got {jobs}")
    if not 1 <= max_plies <= 1_000_000:
        fail(f"--max-plies must be 1..1,000,000, got {max_plies}")
    if not 0 <= opening <= 100:
        fail(f"--opening must be 0..100, got {opening}")
    try:
        options = parse_options(option)
        game = make_variant(game, **options).name
        cls, player_options = resolve(player, game)
        cls(**player_options)
    except MancalabError as error:
        fail(str(error))
    folder = Path(out) if out else databases.default_dir().parent / "metrics"
    results = {}
    for spec in dict.fromkeys([player, "random"]):
        slug = "".join(c if c.isalnum() or c in "=.-" else "_" for c in spec)
        rules = "".join(f"-{k}={v}" for k, v in sorted(options.items()))
        path = folder / f"{game}{rules}-{slug}-seed{seed}-opening{opening}.jsonl"
        with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn(
                "{task.completed}/{task.total} games"), TimeElapsedColumn(),
                TimeRemainingColumn(), console=errors if json_out else console) as progress:
            task = progress.add_task(f"{game}: {spec}", total=games)
            try:
                with cluster_errors(cluster, f"the games so far are in {path}"):
                    rows = measuring.measure(game, options, spec, games, seed, path, jobs,
                                             max_plies, opening,
                                             lambda row: progress.advance(task),
                                             cluster=cluster)
            except MancalabError as error:
                fail(str(error))
        results[spec] = measuring.summary(rows)
    if json_out:
        print(json.dumps({"game": game, "options": options, "metrics": results}, indent=1))
        return
    _print_metrics(game, results)
    console.print(f"Games in {folder}/")


def _figure(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _print_metrics(game: str, results: dict) -> None:
    from .analysis.metrics import METRICS

    table = Table(title=f"{game}: self-play metrics (95% intervals)")
    table.add_column("metric", overflow="fold")
    for spec in results:
        table.add_column(f"{spec} ({results[spec]['games']['mean']} games)", justify="right",
                         overflow="fold")
    for name, words in METRICS.items():
        cells = []
        for spec in results:
            m = results[spec][name]
            if m.get("mean") is None:
                cells.append("-")
            elif "low" in m:
                cells.append(f"{_figure(m['mean'])} ({_figure(m['low'])}..{_figure(m['high'])})")
            else:
                cells.append(_figure(m["mean"]))
        table.add_row(f"{name}: {words}", *cells)
    console.print(table)


@app.command()
def engine(
    player: Annotated[str, typer.Option(
        help="the mancalab player that answers: a level or a spec")] = "expert",
) -> None:
    """Speak the engine protocol on standard input and output (docs/engine-protocol.md), so
    other programs and interfaces can use a mancalab player."""
    from .players.engine import serve as serve_engine

    try:
        make_player(player)
    except MancalabError as error:
        fail(str(error))
    serve_engine(player)


@app.command()
def games() -> None:
    """List the games mancalab can play, with their options (set them with -o NAME=VALUE)."""
    table = Table(title="Games (options: -o NAME=VALUE; rules: docs/<game>.md)")
    table.add_column("game", ratio=2, overflow="fold")
    table.add_column("option", no_wrap=True, overflow="fold")
    table.add_column("default", no_wrap=True, overflow="fold")
    table.add_column("values", ratio=3, overflow="fold")
    for name in variant_names():
        game = make_variant(name)
        first = True
        for key, spec in game.option_specs.items():
            table.add_row(f"[bold]{name}[/]\n{game.title}" if first else "", key,
                          str(spec.default), spec.rule)
            first = False
        table.add_section()
    console.print(table)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="the address to listen on (0.0.0.0: every network)")]
    = "127.0.0.1",
    port: Annotated[int, typer.Option(help="the port to listen on")] = 8000,
    db: Annotated[Optional[str], typer.Option(
        help="the SQLite file of the games (default: in your data folder)")] = None,
    max_think: Annotated[float, typer.Option(
        help="seconds a computer move or a hint may take at most")] = Limits.max_think,
    searches: Annotated[int, typer.Option(
        help="computer searches running at once (default: the cores)")] = Limits.searches,
    create_rate: Annotated[str, typer.Option(
        help="new games a client may create, e.g. 30/minute")] = Limits.create_rate,
    hint_rate: Annotated[str, typer.Option(
        help="hints a client may ask for, e.g. 60/minute")] = Limits.hint_rate,
    player: Annotated[Optional[list[str]], typer.Option(
        "--player", help="a computer player people may choose by NAME, e.g. "
        "greedy-java='engine:cmd=java -cp examples GreedyKalah' or mine=my_player.py:TwoPly "
        "(repeat for more)")] = None,
    limit: Annotated[Optional[list[str]], typer.Option(
        "--limit", help="any other limit of a public server, NAME=VALUE, e.g. "
        "client_sockets=8 (repeat for more; the names and defaults: README, Running a "
        "public server)")] = None,
    prepare: Annotated[bool, typer.Option(
        help="build what exact analysis and the expert need (databases, Gebeta's start "
        "book) in the background, once per machine")] = True,
) -> None:
    """Play in the browser: start the web server and print its address."""
    import math
    import socket

    from limits import parse

    from .analysis.preparation import steps
    from .web import create_app, default_db_path, serving

    if not 0 < port < 65536:
        fail(f"--port must be 1..65535, got {port}")
    if not math.isfinite(max_think):
        fail(f"--max-think must be a finite number of seconds, got {max_think}")
    for name, rate in (("--create-rate", create_rate), ("--hint-rate", hint_rate)):
        try:
            parse(rate)
        except ValueError:
            fail(f"bad {name} {rate!r}: write a count per time, e.g. 30/minute")
    limits = Limits(max_think=max_think, searches=searches, create_rate=create_rate,
                    hint_rate=hint_rate, players=_named_players(player or []),
                    **_other_limits(limit or []))
    try:
        limits.check()
        with socket.create_server((host, port)):  # say a busy port before anything else
            pass
    except MancalabError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot listen on {host}:{port}: {error.strerror or error}")
    path = db or str(default_db_path())
    warm = is_warm()
    progress = None if warm else WarmUpProgress()
    try:
        application = create_app(path, limits, on_warm_up=progress,
                                 prepare=steps() if prepare else None)
    except Exception as error:  # noqa: BLE001 - an unusable database file, said in one line
        fail(f"cannot open the game database {path}: {error}")
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
    # the rules and searches load (or, the first time, compile) in the background: the page
    # answers at once, and a first move against the computer waits for them if it must
    console.print(f"mancalab is serving at [bold]http://{shown}:{port}/[/] (games in {path}); "
                  "Ctrl-C stops it.")
    if not warm:  # a first start: the page answers at once, the rules compile meanwhile
        console.print("First start: the rules and the computer players are being compiled "
                      "(once per machine); until then the first moves against the computer "
                      "wait for them.")
    serving.run(application, host, port, limits)


class WarmUpProgress:
    """A progress bar of the first start's compiling: the games' rules and the computer
    players' searches done of all, the time spent and an estimate of the time left."""

    def __init__(self) -> None:

        self.progress = Progress(TextColumn("Compiling {task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("left about"), TimeRemainingColumn(),
                                 console=console, transient=False)
        self.task = None
        self.started = time.perf_counter()

    def __call__(self, done: int, total: int, what: str) -> None:
        if self.task is None:
            self.progress.start()
            self.task = self.progress.add_task("the rules", total=total)
        self.progress.update(self.task, completed=done, description=what)
        if done == total:
            self.progress.stop()
            console.print(f"The rules and players are ready "
                          f"({time.perf_counter() - self.started:.0f} s).")


def _other_limits(pairs: list[str]) -> dict:
    """``NAME=VALUE`` pairs of ``serve --limit``, each a field of Limits of its type."""
    import dataclasses
    import math

    from .web.thinking import Limits

    fields = {f.name: f for f in dataclasses.fields(Limits)
              if f.type in ("int", "float") and f.name not in ("max_think", "searches")}
    chosen = {}
    for pair in pairs:
        name, eq, text = pair.partition("=")
        name = name.strip().replace("-", "_")
        if not eq or name not in fields:
            fail(f"bad --limit {pair!r}: write NAME=VALUE with NAME one of "
                 f"{', '.join(sorted(fields))}")
        kind = int if fields[name].type == "int" else float
        try:
            value = kind(text.strip())
        except ValueError:
            fail(f"--limit {name} must be a {'whole ' if kind is int else ''}number, "
                 f"got {text!r}")
        if not math.isfinite(value) or value <= 0 or value > 1 << 40:
            fail(f"--limit {name} must be above 0 and finite, got {text!r}")
        chosen[name] = value
    return chosen


def _named_players(pairs: list[str]) -> dict[str, str]:
    """``NAME=SPEC`` pairs of ``serve --player``, each spec checked now."""
    named = {}
    for pair in pairs:
        name, eq, spec = pair.partition("=")
        name = name.strip().lower()
        if not eq or not name or not spec.strip():
            fail(f"bad --player {pair!r}: write NAME=SPEC, e.g. mine=my_player.py:TwoPly")
        try:
            make_player(spec)
        except MancalabError as error:
            fail(f"--player {name}: {error}")
        named[name] = spec.strip()
    return named


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


__all__ = ["app", "main"]
