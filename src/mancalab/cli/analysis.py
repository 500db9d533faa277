"""Analysis: the game tree, exact solving, fair starts, counter-settings, metrics."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from ..core import MancalabError
from ..records import GameRecord
from ..variants import variant as make_variant
from .._cache import compiled_meanwhile, is_compiled
from ..warming import compiling_timed
from .common import (ClusterAddress, GameOptions, app, check_cluster, cluster_errors,
                     compiling_said, console, errors, fail, parse_bytes, parse_options,
                     position_of, print_figures, saying)


MAX_TREE_DEPTH = 1000  # far past any level that fits in memory (the tree stops there first)
MAX_ESTIMATE = 10**9  # settings drawn a stratum: 1.7e10 plays, about two hours on two cores


def _tree_compiled(variant) -> None:
    """Compile (or load) the tree's kernels before the levels start, with a word on a first
    run (about 20 s on two cores) rather than a progress bar standing at level 1 meanwhile
    (``tree_stats`` leaves the compiling out of a level's seconds either way)."""
    from ..analysis.stats.tree import warm_up

    first = not is_compiled("tree._expand")
    with saying("Compiling the game-tree counting (first run only, about 20 s)...") if first \
            else contextlib.nullcontext():
        warm_up(variant)


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
    option: GameOptions = [],
) -> None:
    """Exact game-tree statistics level by level, as the Gebeta program's results.csv."""
    check_cluster(cluster)
    if cluster is not None and checkpoint is not None:
        fail("--checkpoint keeps levels on this machine; it cannot be used with --cluster")
    from ..analysis.stats.tree import (TreeMemoryError, TreeRow, plot as draw_plot, tree_stats,
                                       write_csv)
    from ..records import check_writable

    if not 1 <= depth <= MAX_TREE_DEPTH:
        fail(f"--depth must be 1..{MAX_TREE_DEPTH}, got {depth}")
    if jobs is not None and jobs < 1:
        fail(f"--jobs must be at least 1, got {jobs}")
    variant = make_variant(game, **parse_options(option))
    if variant.history.repetition_is_a_rule and (cluster or checkpoint):
        fail(f"{variant.title}'s tree is walked path by path on this machine (its end by "
             "repetition depends on the positions before): --cluster and --checkpoint do not "
             "apply")
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
    if cluster is None:
        _tree_compiled(variant)
    with Progress(TextColumn("level {task.fields[level]:>2}"), BarColumn(),
                  TextColumn("{task.percentage:>5.1f}%"),
                  TextColumn("{task.fields[positions]:>24}"), TimeElapsedColumn(),
                  console=console, transient=False) as progress:
        tasks: dict[int, int] = {}

        def found(level: int, positions: int | None) -> str:
            if positions is None or variant.history.repetition_is_a_rule:
                return "walked path by path" if level == depth else ""
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
                from ..analysis.stats import tree_cluster

                with cluster_errors(cluster, "the levels shown are done"):
                    rows = tree_cluster.tree_stats(variant, depth, cluster, on_level=on_level)
            else:
                rows = tree_stats(variant, depth, jobs=jobs, on_progress=on_progress,
                                  on_level=on_level, checkpoint=checkpoint)
            stopped = None
        except TreeMemoryError as error:
            rows, stopped = error.rows, str(error)
    title = f"{variant.title}: game tree to level {depth} (cumulative)"
    print_figures(title, ["level", "turns", "agency", "agency %", "games", "A wins", "B wins",
                          "draws", "timeouts", "positions", "seconds"],
                  [[str(r.level), f"{r.turns:,}", f"{r.agency:,}",
                    f"{100 * r.agency / r.turns:.1f}" if r.turns else "-", f"{r.games:,}",
                    f"{r.a_wins:,}", f"{r.b_wins:,}", f"{r.draws:,}", f"{r.timeouts:,}",
                    "-" if r.positions is None else f"{r.positions:,}", f"{r.seconds:.2f}"]
                   for r in rows], key_justify="right")
    if stopped:
        fail(stopped)
    try:
        if out:
            write_csv(rows, out)
            console.print(f"Wrote {out}.")
        if plot:
            draw_plot(rows, plot, title)
            console.print(f"Drew {plot}.")
    except OSError as error:
        fail(f"cannot write {out or plot}: {error.strerror or error}")


def write_sample(game: str, count: int | None, out: str | None, seed: int, max_seeds: int,
                 option: list[str]) -> None:
    """``solve --sample N --out FILE``: exact values of positions for learning."""
    from ..analysis.research import samples

    if count is None or out is None:
        fail("--sample and --out go together: --sample 1000 --out kalah.csv")
    if game.strip().lower() != "kalah":
        fail(f"--sample draws Kalah positions from the FairKalah boards, not {game}")
    if seed < 0:
        fail(f"--seed must be 0 or more, got {seed}")
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
    console.print(f"Wrote {path}: {count:,} positions with their exact values.")


@app.command()
def solve(
    game: Annotated[str, typer.Argument(help="the game: kalah, gebeta, gabata or urubugu (oware: "
                                             "what its endgame tables prove)")],
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
    settle: Annotated[bool, typer.Option(
        "--settle", help="Gebeta, Gabata: where the proof search leaves bounds apart, "
                         "also ask the attractor walk (minutes, gigabytes)")]
    = False,
    option: GameOptions = [],
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

    from ..analysis import solving
    from ..analysis.solving import small

    if sample is not None or out is not None:
        write_sample(game, sample, out, seed, max_seeds, option)
        return
    if time is not None and not (math.isfinite(time) and 0 < time <= 10**7):
        fail(f"--time must be a number of seconds above 0, got {time}")
    if position is not None and record is not None:
        fail("give --position or --record, not both")
    state = (GameRecord.load(record).state if record is not None
             else position_of(game, position, to_move, option))
    reason = solving.unsolvable(state.variant)
    if reason and state.variant.name == "oware":
        _oware_proven(state, moves, json_out)
        return
    if reason:
        fail(reason)
    if settle and not solving.repeats(state.variant):
        fail(f"--settle is for Gebeta and Gabata, whose walks can outgrow memory; "
             f"{state.variant.name} is solved exactly without it")
    out = errors if json_out else console
    started = clock.perf_counter()
    with compiling_timed() as compiling, out.status("Preparing the solver...") as status:
        def building(level: int, done: int, total: int) -> None:
            status.update(f"Building the endgame database: {level} seeds done")

        def tightened(lower: int, upper: int) -> None:
            status.update(f"Solving: the value is between {lower:+d} and {upper:+d} "
                          f"({clock.perf_counter() - started:.1f} s)")

        result = small.solve(state) if small.is_small(state) and not state.is_over else None
        if result is None:
            compiles = solving.method_of(state.variant).compiles
            with compiled_meanwhile(compiles and f"{compiles}:{state.variant.name}"):
                database = solving.database_for(state, on_progress=building)
            result = solving.solve(state, time=time, moves=moves, database=database,
                                   on_bounds=tightened, settle=settle)
        elif not moves:
            result.moves = {}
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
        how = f"forced ends searched {result.depth} moves deep"
    elif result.database_seeds is None:
        how = "searched to the end: a small game"
    else:
        how = f"endgame database: {result.database_seeds} seeds"
    said = compiling_said(compiling())
    console.print(f"{result.nodes:,} nodes in {result.seconds:.1f} s ({how}"
                  f"{'; ' + said if said else ''}).")


def _oware_proven(state, moves: bool, json_out: bool) -> None:
    """``solve oware``: what the endgame tables prove, whatever came before."""
    import json

    from ..analysis.solving import oware_tables

    try:
        found = oware_tables.proven(state, moves=moves)
    except oware_tables.DatabaseError as error:
        fail(f"Oware has no exact values (a position's value depends on the positions before "
             f"it); its endgame tables bound them, but {error}")
    if json_out:
        print(json.dumps(found))
        return
    words = {"win": "wins", "loss": "loses", "draw": "draws", None: "is not decided by them"}
    console.print(f"Whatever came before, the final margin for {'AB'[state.to_move]} (were the "
                  f"game played on past half the seeds) is between {found['least']:+d} and "
                  f"{found['greatest']:+d}: the player to move {words[found['result']]} "
                  "(Oware's endgame tables).")
    for name, move in found.get("moves", {}).items():
        console.print(f"  {name}: {move['least']:+d} to {move['greatest']:+d}, "
                      f"{words[move['result']]}")


@app.command()
def perft(
    game: Annotated[str, typer.Argument(help="the game, e.g. kalah")],
    depth: Annotated[int, typer.Option(help="moves a sequence, 0..64")],
    position: Annotated[Optional[str], typer.Option(
        help="the cells, comma-separated, in the game's layout (default: the start)")] = None,
    to_move: Annotated[int, typer.Option(help="with --position: 0 (A) or 1 (B) to move")] = 0,
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object a depth")] = False,
    option: GameOptions = [],
) -> None:
    """The move sequences of exactly 1..DEPTH moves (a game that ends sooner counts nothing;
    no end by repetition), counted in compiled code: a check of the rules against another
    program's, and their speed."""
    import json

    from ..analysis.stats.perft import MAX_DEPTH, perft as count, warm_up

    if not 0 <= depth <= MAX_DEPTH:
        fail(f"--depth must be 0..{MAX_DEPTH}, got {depth}")
    state = position_of(game, position, to_move, option)
    with compiling_timed():
        warm_up(state)
    rows = []
    for level in range(1, depth + 1) if depth else [0]:
        found = count(state, level)
        if json_out:
            print(json.dumps({**found._asdict(), "per_second": round(found.per_second)}),
                  flush=True)
        rows.append([str(level), f"{found.sequences:,}", f"{found.seconds:.3f}",
                     f"{found.per_second:,.0f}"])
    if not json_out:
        print_figures(f"{state.variant.title}: perft", ["depth", "sequences", "seconds",
                                                        "sequences/s"], rows)


@app.command("random-play")
def random_play(
    game: Annotated[str, typer.Argument(
        help="the game: gebeta, gabata, or kalah with at most six pits a side")],
    position: Annotated[Optional[str], typer.Option(
        help="the cells, comma-separated, in the game's layout (default: the start)")] = None,
    to_move: Annotated[int, typer.Option(help="with --position: 0 (A) or 1 (B) to move")] = 0,
    json_out: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    memory: Annotated[Optional[str], typer.Option(
        help="the memory it may take, e.g. 8G (default: three quarters of what is available); "
        "a position whose graph needs more stops with a message")] = None,
    option: GameOptions = [],
) -> None:
    """The exact chances of uniformly random play: wins, draws, timeouts and the expected
    moves, over the graph of positions (a Markov chain), not sampled (docs/research.md)."""
    import json

    from ..analysis.stats.random_exact import solve_random_play
    from ..memory import available_memory

    budget = (parse_bytes(memory, "--memory") if memory is not None
              else int(available_memory() * 0.75))
    state = position_of(game, position, to_move, option)
    variant = state.variant
    out = errors if json_out else console
    with out.status("Walking the positions random play reaches...") as status:
        def told(seeds: int, positions: int, sweeps: int, seconds: float) -> None:
            status.update(f"Solved the {positions:,} positions of {seeds} seeds in play "
                          f"({sweeps} sweeps, {seconds:.0f} s so far)" if sweeps else
                          f"Passed on the chances of the {positions:,} positions of {seeds} "
                          f"seeds in play ({seconds:.0f} s so far)")

        with compiling_timed() as compiling:
            found = solve_random_play(state, on_level=told, memory=budget)
    chances = found.for_players()
    if json_out:
        print(json.dumps({**chances, "margins": found.margins,
                          # the margins are the player to move's: A's score minus B's for A
                          "margins_for": "AB"[state.to_move], "positions": found.positions,
                          "last_change": found.residual, "seconds": round(found.seconds, 2)}))
        return
    print_figures(f"{variant.title}: uniformly random play from this position",
                  ["outcome", "probability"],
                  [[key, f"{chances[key]:.12f}"] for key in ("A wins", "B wins", "draws",
                                                             "timeouts")]
                  + [["moves (expected)", f"{found.moves:.6f}"]])
    said = compiling_said(compiling())
    console.print(f"{found.positions:,} positions, {found.how}, {found.seconds:.1f} s"
                  f"{' (' + said + ')' if said else ''}.")


@app.command()
def fair(
    game: Annotated[str, typer.Argument(help="the game (kalah: the solved one)")],
    moved: Annotated[int, typer.Option(help="boards with 1, or 1 or 2, seeds moved")] = 2,
    out: Annotated[Optional[str], typer.Option(
        help="the results file (JSON lines; a restart goes on from it)")] = None,
    jobs: Annotated[int, typer.Option(help="worker processes (default: one per core)")] = 0,
    cluster: ClusterAddress = None,
    time: Annotated[Optional[float], typer.Option(
        help="at most these seconds a board (undecided boards are tried again next run)")]
    = None,
    fair_list: Annotated[Optional[str], typer.Option(
        "--list", help="also write the fair boards, numbered, to this file (the format of "
                       "the shipped lists that -o board=N reads)")] = None,
    option: GameOptions = [],
) -> None:
    """Fair starts: the boards made by moving one or two seeds of the start that two perfect
    players draw."""
    check_cluster(cluster)
    import math
    import os

    from ..analysis.research import fair as fairness
    from ..analysis.solving import databases

    if time is not None and not (math.isfinite(time) and 0 < time <= 10**7):
        fail(f"--time must be a number of seconds above 0, got {time}")
    jobs = jobs or os.cpu_count() or 1
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


def _print_screen(variant, found) -> None:
    from ..analysis.research import fair as fairness

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
    jobs: Annotated[int, typer.Option(
        help="settings searched at once (processes), or with --estimate the threads")] = 1,
    cluster: ClusterAddress = None,
    seed: Annotated[int, typer.Option(help="the seed of the study's settings")] = 1,
    estimate: Annotated[Optional[int], typer.Option(
        help="estimate how many counter-settings --setting has by playing N settings drawn "
             "uniformly for each first move and N from all settings (a sample, not a proof)")]
    = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the answer as JSON")] = False,
    option: GameOptions = [],
) -> None:
    """Urubugu counter-settings (IMPAGA): a setting and a first move that take every one of
    the opponent's beads in one turn; found, proven impossible, or not found in the time."""
    check_cluster(cluster)
    import json
    import math

    from ..analysis.research import counter as search

    if game.strip().lower() != "urubugu":
        fail(f"counter-settings are a question of Urubugu's free setting, not {game!r}")
    if not math.isfinite(time) or not 0 < time <= 86_400:
        fail(f"--time must be above 0 and at most a day (86400 s), got {time}")
    if (setting is None) == (sample is None):
        fail("give --setting S (one setting) or --sample N --out FILE (a study)")
    if jobs < 1:
        fail(f"--jobs must be at least 1, got {jobs}")
    if estimate is not None and (setting is None or all_):
        fail("--estimate N goes with --setting S, and not with --all")
    if estimate is not None and not 1 <= estimate <= MAX_ESTIMATE:
        fail(f"--estimate must be 1..{MAX_ESTIMATE:,}, got {estimate}")
    options = {**(search.IGISORO if igisoro else {}), **parse_options(option)}
    make_variant("urubugu", **options)
    if sample is not None:
        _counter_study(sample, out, seed, time, jobs, json_out, options, cluster)
        return
    parts = setting.split(",")
    if len(parts) != 16:
        fail(f"--setting must be 16 counts separated by commas (holes 1 to 16), got "
             f"{len(parts)}")
    counts = []
    for hole, text in enumerate(parts, start=1):
        try:
            counts.append(whole_count(text))
        except ValueError:
            fail(f"--setting: hole {hole} has {text.strip()[:20]!r}, not a count of beads "
                 "(a whole number, 0 or more)")
    if estimate is not None:
        _print_estimate(search.estimate(search.check_setting(counts), estimate, seed, jobs,
                                        **options), json_out)
        return
    answer = search.counter(counts, time, all_, **options)
    if json_out:
        print(json.dumps(answer.to_dict()))
        return
    _print_counter(counts, answer, options)


def _print_estimate(found, json_out: bool) -> None:
    import json

    if json_out:
        print(json.dumps(found.to_dict()))
        return
    table = Table(title=f"Counter-settings estimated from {found.samples:,} settings drawn "
                        "for each first move and from all settings (95% intervals)")
    table.add_column("count", overflow="fold")
    for column in ("estimate", "95% interval", "of"):
        table.add_column(column, justify="right", overflow="fold")
    table.add_row("(setting, first move) pairs that win", f"{found.pairs:,.0f}",
                  f"{found.pairs_low:,.0f} .. {found.pairs_high:,.0f}",
                  f"{16 * found.settings_by_move:,}")
    table.add_row("settings with a winning first move", f"{found.settings:,.0f}",
                  f"{found.settings_low:,.0f} .. {found.settings_high:,.0f}",
                  f"{found.settings_total:,}")
    console.print(table)
    console.print(f"A sample, not a proof ({found.seconds:.1f} s); --all gives proven bounds.")


def _counter_study(sample: int, out: str | None, seed: int, time: float, jobs: int,
                   json_out: bool, options: dict, cluster: str | None) -> None:
    import json

    from ..analysis.research import counter as search

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
    from ..draw.text import board
    from ..sowing import narrate
    from ..variants.urubugu import HOLE_CELL

    if answer.status == "none":
        console.print(f"[bold]Proven: no counter-setting exists[/] for {opponent}: "
                      f"{answer.reason}.")
        return
    bounds = (f" Proven so far: between {answer.count_low:,} and {answer.count_high:,} "
              "winning (setting, first move) pairs." if answer.count_low is not None else "")
    if answer.status == "unknown":
        console.print(f"[bold yellow]Not found[/] within the time, and not proven impossible "
                      f"(no claim either way): {answer.reason}." + bounds)
        return
    counted = f" There are {answer.count:,} winning (setting, first move) pairs in all." \
        if answer.count is not None else (f" ({answer.reason}.)" if answer.reason else "") \
        + bounds
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
        help="the player whose self-play is measured (beside random play); the default is "
             "the published table's")]
    = "alphabeta:depth=4",
    seed: Annotated[int, typer.Option(help="the seed of the games")] = 1,
    jobs: Annotated[int, typer.Option(help="games played at once (processes)")] = 1,
    cluster: ClusterAddress = None,
    max_plies: Annotated[int, typer.Option(help="moves after which a game is cut")] = 1000,
    opening: Annotated[int, typer.Option(
        help="random moves that start each game (so self-play games differ)")] = 2,
    out: Annotated[Optional[str], typer.Option(
        help="folder of the results files (a stopped run goes on from them)")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="print the metrics as JSON")] = False,
    option: GameOptions = [],
) -> None:
    """Game metrics in self-play of a player and of random play, with 95% intervals:
    balance, draws, length, branching, agency, lead changes, extra turns, relays, captures."""
    check_cluster(cluster)
    import json

    from ..analysis.solving import databases
    from ..analysis.research import metrics as measuring
    from ..players import resolve

    if not 1 <= games <= 1_000_000:
        fail(f"--games must be 1..1,000,000, got {games}")
    if jobs < 1:
        fail(f"--jobs must be at least 1, got {jobs}")
    if not 1 <= max_plies <= 1_000_000:
        fail(f"--max-plies must be 1..1,000,000, got {max_plies}")
    if not 0 <= opening <= 100:
        fail(f"--opening must be 0..100, got {opening}")
    options = parse_options(option)
    game = make_variant(game, **options).name
    cls, player_options = resolve(player, game)
    cls(**player_options)
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
            with cluster_errors(cluster, f"the games so far are in {path}"):
                rows = measuring.measure(game, options, spec, games, seed, path, jobs,
                                         max_plies, opening,
                                         lambda row: progress.advance(task),
                                         cluster=cluster)
        results[spec] = measuring.summary(rows)
    if json_out:
        print(json.dumps({"game": game, "options": options, "metrics": results}, indent=1))
        return
    _print_metrics(game, results)
    console.print(f"Games in {folder}/")


def _figure(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _print_metrics(game: str, results: dict) -> None:
    from ..analysis.research.metrics import METRICS

    rows = []
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
        rows.append([f"{name}: {words}", *cells])
    print_figures(f"{game}: self-play metrics (95% intervals)",
                  ["metric"] + [f"{spec} ({results[spec]['games']['mean']} games)"
                                for spec in results], rows)
