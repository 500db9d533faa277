"""Competitions: the arena, engine matches, tournaments, and the engine protocols."""

from __future__ import annotations

from typing import Annotated, Optional

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from ..players import player as make_player
from ..variants import DEFAULT_GAME, variant as make_variant

from .common import (ClusterAddress, GameOptions, app, check_cluster, check_out, cluster_errors,
                     console, errors, fail, parse_options, print_figures)


@app.command()
def arena(
    a: Annotated[str, typer.Argument(help="player A, e.g. alphabeta:time=1 or expert")],
    b: Annotated[str, typer.Argument(help="player B, e.g. mcts")],
    game: Annotated[str, typer.Option(help="the game")] = DEFAULT_GAME,
    games: Annotated[int, typer.Option(help="games to play (in pairs: each start twice)")] = 20,
    time: Annotated[Optional[float], typer.Option(
        help="seconds a move for players that think by the clock and were given no time")] = None,
    jobs: Annotated[int, typer.Option(help="games played at once (processes)")] = 1,
    cluster: ClusterAddress = None,
    seed: Annotated[int, typer.Option(
        help="seed of the start positions and of the players given none")] = 1,
    json_out: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
    out: Annotated[Optional[str], typer.Option(help="save every game record to this file")] = None,
    opening_kind: Annotated[str, typer.Option(
        "--openings", help="random (a few random moves; FairKalah boards for Kalah(6,4)) "
                           "or balanced (shipped openings a deep search values near 0: "
                           "Urubugu, 3-row Gabata; Kalah: the fair boards of its size)")]
    = "random",
    option: GameOptions = [],
) -> None:
    """Play A against B and measure: wins/draws/losses, margin, Elo difference (95% CI)."""
    check_cluster(cluster)
    import json

    from ..analysis.compete import arena as arena_module
    from ..players import resolve, with_time
    from ..records import write_atomic

    if games < 1:
        fail(f"--games must be at least 1, got {games}")
    if jobs < 1:
        fail(f"--jobs must be at least 1, got {jobs}")
    if time is not None and time <= 0:
        fail(f"--time must be above 0, got {time}")
    options = parse_options(option)
    game = make_variant(game, **options).name
    specs = [with_time(s, time, game) if time else s for s in (a, b)]
    for spec in specs:
        cls, player_options = resolve(spec, game)
        cls(**player_options)  # a bad option fails here, before any game
    schedule = arena_module.schedule(specs[0], specs[1], game, options, games, seed,
                                     opening_kind)
    if out:
        check_out(out)
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
def match(
    a: Annotated[str, typer.Argument(help="player A: a spec, ugi:cmd=..., engine:cmd=...")],
    b: Annotated[str, typer.Argument(help="player B")],
    game: Annotated[str, typer.Option(help="the game")] = DEFAULT_GAME,
    games: Annotated[int, typer.Option(help="games at most (in pairs, colours swapped)")]
    = 100,
    clock: Annotated[str, typer.Option(
        help="each player's clock, BASE+INCREMENT seconds, e.g. 10+0.1")] = "10+0.1",
    opening_kind: Annotated[str, typer.Option(
        "--openings", help="random (a few random moves; FairKalah boards for Kalah(6,4)), "
                           "fair (Kalah's fair boards; elsewhere shipped balanced openings) "
                           "or balanced (the same)")] = "random",
    sprt: Annotated[Optional[str], typer.Option(
        help="stop once decided between H0 'A is at most ELO0 better' and H1 'A is ELO1 "
             "better': ELO0,ELO1, e.g. 0,10")] = None,
    alpha: Annotated[float, typer.Option(help="the SPRT's chance of accepting H1 wrongly")]
    = 0.05,
    beta: Annotated[float, typer.Option(help="the SPRT's chance of accepting H0 wrongly")]
    = 0.05,
    adjudicate: Annotated[bool, typer.Option(
        help="end a game at the first position the solver proves exactly")] = True,
    jobs: Annotated[int, typer.Option(help="games played at once (processes)")] = 1,
    seed: Annotated[int, typer.Option(help="seed of the starts and of the players")] = 1,
    out: Annotated[Optional[str], typer.Option(
        help="write every game's record to this file as it ends")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
    option: GameOptions = [],
) -> None:
    """An engine match: pairs of games with colours swapped on a clock, judged exactly where
    the solver knows the end, with the Elo interval and an SPRT (docs/players.md)."""
    from ..analysis.compete import match as matches
    from ..core import MancalabError
    from ..players import resolve

    if games < 1:
        fail(f"--games must be at least 1, got {games}")
    if jobs < 1:
        fail(f"--jobs must be at least 1, got {jobs}")
    if opening_kind not in ("random", "fair", "balanced"):
        fail(f"--openings must be random, fair or balanced, got {opening_kind!r}")
    try:
        control = matches.TimeControl.parse(clock)
        test = matches.SPRT.parse(sprt, alpha, beta) if sprt else None
    except MancalabError as error:
        fail(str(error))
    options = parse_options(option)
    game = make_variant(game, **options).name
    specs = matches.schedule(a, b, game, options, games, control, seed, opening_kind,
                             adjudicate)
    for spec in (specs[0].first, specs[0].second):
        cls, player_options = resolve(spec, game)
        cls(**player_options)  # a bad option fails here, before any game
    if out:
        check_out(out)
        open(out, "w").close()
    result = _run_match(specs, test, jobs, control, out, json_out, f"{a} vs {b}")
    if json_out:
        _print_match_json(a, b, game, options, control, test, result)
        return
    _print_match(a, b, game, control, test, result)


def _run_match(specs, test, jobs: int, control, out: str | None, quiet: bool, title: str):
    from ..analysis.compete import match as matches

    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn(
            "{task.completed}/{task.total} games"), TextColumn("{task.fields[score]}"),
            TimeElapsedColumn(), console=errors if quiet else console) as progress:
        task = progress.add_task(title, total=len(specs), score="")
        points = [0.0, 0.0]

        def on_result(result, llr) -> None:
            points[0] += result.score_for_a
            points[1] += 1 - result.score_for_a
            shown = f"A {points[0]:g} : {points[1]:g} B"
            if llr is not None:
                shown += f"  LLR {llr:+.2f}"
            progress.update(task, advance=1, score=shown)
            if out:
                with open(out, "a") as file:
                    file.write(matches.record_text(result, control) + "\n")

        return matches.run(specs, test, jobs, on_result)


def _print_match(a: str, b: str, game: str, control, test, result) -> None:
    from ..analysis.compete import arena as arena_module

    summary = arena_module.summarize(result.results)
    _print_summary([a, b], game, summary)
    console.print(f"Clock {control} s a player; {len(result.results)} of {result.planned} "
                  "games played.")
    if test is not None:
        low, high = test.bounds
        said = {"H1": f"H1 accepted: A is at least {test.elo1:g} Elo better",
                "H0": f"H0 accepted: A is not {test.elo1:g} Elo better (at most "
                      f"{test.elo0:g})", None: "no decision yet: more games are needed"}
        console.print(f"SPRT({test.elo0:g}, {test.elo1:g}), alpha {test.alpha:g}, beta "
                      f"{test.beta:g}: LLR {result.llr or 0:+.2f} in [{low:.2f}, {high:.2f}]: "
                      f"{said[result.verdict]}.")
    judged = result.adjudication_dict()
    if judged["adjudicated"]:
        console.print(
            f"{judged['adjudicated']} games ended by exact adjudication, after "
            f"{judged['mean_adjudication_ply']:.0f} moves on average (games played out: "
            f"{judged['mean_played_out_ply'] or 0:.0f}); the solver's checks took "
            f"{judged['judging_seconds']:.1f} s in all.")


def _print_match_json(a, b, game, options, control, test, result) -> None:
    import json

    from ..analysis.compete import arena as arena_module

    summary = arena_module.summarize(result.results)
    out = {"a": a, "b": b, "game": game, "options": options, "clock": str(control),
           "planned": result.planned, **summary.to_dict(), **result.adjudication_dict()}
    if test is not None:
        out["sprt"] = {"elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha,
                       "beta": test.beta, "llr": result.llr, "bounds": list(test.bounds),
                       "verdict": result.verdict}
    print(json.dumps(out, indent=2))


@app.command()
def tournament(
    players: Annotated[Optional[list[str]], typer.Argument(
        help="the players: levels, specs, engine:cmd=PROGRAM or FILE.py:CLASS")] = None,
    folder: Annotated[Optional[str], typer.Option(
        help="add every player class in the .py files of this folder (students' players)")]
    = None,
    game: Annotated[str, typer.Option(help="the game")] = DEFAULT_GAME,
    clock: Annotated[float, typer.Option(
        help="seconds each player has for a whole game (a loss on time)")] = 150.0,
    boards: Annotated[int, typer.Option(
        help="start boards (Kalah: random fair boards); every ordered pair plays each")] = 10,
    jobs: Annotated[int, typer.Option(help="games played at once (processes)")] = 1,
    cluster: ClusterAddress = None,
    seed: Annotated[int, typer.Option(help="seed of the boards and of the players")] = 1,
    out: Annotated[str, typer.Option(
        help="folder of the games (resumed if stopped), records and standings")]
    = "tournament",
    option: GameOptions = [],
) -> None:
    """A round robin in the FairKalah competitions' format: every ordered pair on each board,
    a game clock, a loss on time or an illegal move; standings with Elo and 95% intervals."""
    check_cluster(cluster)
    import math

    from ..analysis.compete.tournament import Tournament, clocked
    from ..players import players_in, resolve

    players = list(players or []) + (players_in(folder) if folder else [])

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
        if event.folder.exists() and not event.folder.is_dir():
            fail(f"--out {out} is a file: the tournament's results need a folder")
        event.folder.mkdir(parents=True, exist_ok=True)
        played = len(event.done())
    except OSError as error:
        fail(f"cannot use --out {out} as the results folder: {error.strerror or error}")
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
    from ..players import display_name

    print_figures(f"{game}, {games} games, {clock:g} s a player a game",
                  ["#", "player", "points", "games", "W", "D", "L", "score", "Elo", "95% CI",
                   "forfeits"],
                  [[str(rank), display_name(row.player), f"{row.points:g}", str(row.games),
                    str(row.wins), str(row.draws), str(row.losses), f"{100 * row.score:.1f}%",
                    f"{row.elo:+.0f}", f"{row.elo_low:+.0f} .. {row.elo_high:+.0f}",
                    str(row.forfeits)]
                   for rank, row in enumerate(table, start=1)], keys=2)


def _print_summary(specs: list[str], game: str, summary) -> None:
    print_figures(f"{specs[0]} (A) vs {specs[1]} (B), {game}, {summary.games} games",
                  ["A wins", "draws", "B wins", "A score", "A margin", "Elo A-B", "95% CI"],
                  [[str(summary.wins), str(summary.draws), str(summary.losses),
                    f"{100 * summary.score:.1f}%", f"{summary.mean_margin:+.2f}",
                    f"{summary.elo + 0.0:+.0f}",
                    f"{summary.elo_low:+.0f} .. {summary.elo_high:+.0f}"]], keys=0)
    for line in summary.errors:
        console.print(f"[yellow]{line}[/]")


@app.command()
def engine(
    player: Annotated[str, typer.Option(
        help="the mancalab player that answers: a level or a spec")] = "expert",
) -> None:
    """Speak the engine protocol on standard input and output (docs/engine-protocol.md), so
    other programs and interfaces can use a mancalab player."""
    from ..players.engine import serve as serve_engine

    make_player(player)
    serve_engine(player)


@app.command()
def ugi(
    game: Annotated[str, typer.Argument(help="the game the engine plays")] = DEFAULT_GAME,
    player: Annotated[str, typer.Option(
        help="the mancalab player that answers: a level or a spec")] = "expert",
    option: GameOptions = [],
) -> None:
    """Speak UGI (the Universal Game Interface, UCI for any game) on standard input and output,
    in its mancala profile (docs/ugi.md): game runners and interfaces use a mancalab player."""
    from ..players.ugi import serve as serve_ugi

    options = parse_options(option)
    name = make_variant(game, **options).name
    make_player(player, name)
    serve_ugi(name, options, player)
