"""Endgame databases, Gebeta's start book and opening books: build and list them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from ..variants import variant as make_variant
from .common import (Commands, GameOptions, app, check_cluster, cluster_errors, console, fail,
                     parse_options)


db_app = Commands(help="Endgame databases: build and list them; grow an opening book; copy a "
                           "site's games.",
                  no_args_is_help=True)
app.add_typer(db_app, name="db")


@db_app.command("build")
def db_build(
    game: Annotated[str, typer.Argument(help="the game: kalah, gebeta, gabata or oware")],
    seeds: Annotated[Optional[int], typer.Option(
        help="every position with at most this many seeds (needed)")] = None,
    folder: Annotated[Optional[str], typer.Option("--dir", help="where to keep it")] = None,
    cluster: Annotated[Optional[str], typer.Option(
        help="build on the workers of this Dask scheduler, e.g. tcp://host:8786 (each level "
             "cut into slices; Kalah)")] = None,
    option: GameOptions = [],
    start: Annotated[bool, typer.Option(
        help="then solve every position the start reaches above the database and keep them "
             "(Gebeta: 44.6 M positions, 0.45 GB, minutes): the book, looked up by the "
             "solver, hints and the perfect player")] = False,
) -> None:
    """Compute an endgame database and save it (whole or not at all)."""
    import time as clock

    from ..analysis import solving
    from ..analysis.solving import databases, databases_cluster, retrograde

    variant = make_variant(game, **parse_options(option))
    if variant.name == "oware":
        if cluster or start:
            fail("Oware's tables build here, with no --cluster or --start")
        _build_oware(variant, seeds, folder)
        return
    reason = solving.no_databases(variant)
    if reason:
        fail(reason)
    if seeds is None:
        fail("--seeds is needed: the database holds every position with at most this many "
             "seeds, e.g. --seeds 16")
    repeats = solving.repeats(variant)
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
    started = clock.perf_counter()
    with Progress(TextColumn("seeds {task.fields[level]:>3}/" + str(seeds)), BarColumn(),
                  TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task("", total=len(levels), level=0)

        def done(level: int, _done: int, _total: int) -> None:
            progress.update(task, completed=levels.index(level) + 1, level=level)

        if repeats:
            database = retrograde.build(variant, seeds, done)
            path = retrograde.save(database, folder)
        else:
            with cluster_errors(cluster, "nothing was written"):
                database = (databases.build(variant, seeds, on_progress=done)
                            if cluster is None else
                            databases_cluster.build(variant, seeds, cluster, done))
            path = databases.save(database, folder)
    seconds = clock.perf_counter() - started
    console.print(f"Wrote {path}: {count:,} positions in {seconds:.1f} s "
                  f"({count / max(seconds, 1e-9) / 1e6:.1f} M a second).")
    if start:
        _build_book(database, path.parent)


def _build_oware(variant, seeds: int | None, folder: str | None) -> None:
    """``db build oware``: bounds on every position's value over every history, exact where
    they meet (mancalab.analysis.solving.oware_tables)."""
    import time as clock

    from ..analysis.solving import oware_tables as tables

    if seeds is None:
        fail("--seeds is needed: the tables hold every position with at most this many seeds "
             "on the board, e.g. --seeds 16")
    try:
        tables.plan(variant, seeds)
    except tables.DatabaseError as error:
        fail(str(error))
    started = clock.perf_counter()
    with Progress(TextColumn("seeds {task.fields[level]:>3}/" + str(seeds)), BarColumn(),
                  TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task("", total=seeds + 1, level=0)

        def done(level: int, _passes: int, _count: int) -> None:
            progress.update(task, completed=level + 1, level=level)

        built = tables.build(variant, seeds, on_progress=done)
        path = tables.save(built, folder)
    seconds = clock.perf_counter() - started
    exact = float((built.low == built.high).mean())
    console.print(f"Wrote {path}: {built.low.size:,} positions ({built.nbytes / 1e6:.1f} MB) in "
                  f"{seconds:.1f} s; {exact:.1%} of them have a value that no history changes.")


def _build_book(database, folder: Path) -> None:
    """``db build --start``: the book of the start over the database just built."""
    import time as clock

    from ..analysis.solving import book as books

    started = clock.perf_counter()
    with Progress(TextColumn("the start's graph"), BarColumn(), TimeElapsedColumn(),
                  console=console) as progress:
        progress.add_task("", total=None)  # one compiled walk: its length is not known
        book = books.build_book(database.variant, database)
        path = books.save_book(book, folder)
    seconds = clock.perf_counter() - started
    console.print(f"Wrote {path}: the {book.keys.size:,} positions the start reaches above "
                  f"{book.seeds} seeds, solved in {seconds:.1f} s.")


@db_app.command("book")
def db_book(
    game: Annotated[str, typer.Argument(help="the game, e.g. oware")],
    minutes: Annotated[float, typer.Option(help="how long to grow the book")] = 30.0,
    depth: Annotated[int, typer.Option(help="the alpha-beta depth each new position is "
                                            "valued to")] = 16,
    jobs: Annotated[int, typer.Option(help="processes valuing positions")] = 1,
    out: Annotated[Optional[str], typer.Option(help="the file to write (default GAME-book.txt; "
                                                    "the shipped one is "
                                                    "src/mancalab/data/books/GAME.txt)")] = None,
) -> None:
    """Grow an opening book by self-play (drop-out expansion) and write it as text."""
    import math
    import os

    from ..players import book as books
    from ..search import MAX_DEPTH

    if not (math.isfinite(minutes) and 0 < minutes <= 7 * 24 * 60):
        fail(f"--minutes must be above 0 and at most a week, got {minutes}")
    if not 1 <= depth <= MAX_DEPTH:
        fail(f"--depth must be 1..{MAX_DEPTH}, got {depth}")
    if not 1 <= jobs <= (os.cpu_count() or 1):
        fail(f"--jobs must be 1..{os.cpu_count() or 1} (this machine's cores), got {jobs}")
    variant = make_variant(game)
    path = Path(out or f"{variant.name}-book.txt")
    if not path.parent.is_dir():
        fail(f"--out: the folder {path.parent} does not exist")
    with Progress(TextColumn("{task.fields[positions]:,} positions, {task.fields[valued]:,} "
                             "valued"), TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task("", total=None, positions=0, valued=0)
        book = books.build(variant, depth, minutes * 60, jobs,
                           lambda positions, valued: progress.update(
                               task, positions=positions, valued=valued))
    made_by = f"mancalab db book {variant.name} --minutes {minutes:g} --depth {depth}"
    books.write(book, path, made_by)
    console.print(f"Wrote {path}: {len(book):,} positions.")


@db_app.command("list")
def db_list(folder: Annotated[Optional[str], typer.Option("--dir", help="where to look")]
            = None) -> None:
    """The endgame databases built."""
    from ..analysis.solving import files

    found = files.listing(folder)
    if not found:
        console.print(f"No databases in {folder or files.default_dir()}.")
        return
    console.print(f"Endgame databases in {folder or files.default_dir()}:")
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


@db_app.command("copy")
def db_copy(
    source: Annotated[str, typer.Argument(help="the site's database: a SQLite file (or an "
                                               "address postgresql://...)")],
    target: Annotated[str, typer.Argument(help="an empty database to copy it into, e.g. "
                                               "postgresql://USER@HOST/NAME")],
) -> None:
    """Copy a play site's database (games, accounts, ratings, seeks, kept analyses) into an
    empty one, e.g. from SQLite to PostgreSQL to serve it from several processes; each
    table's rows are counted and their digests compared in both."""
    from ..core import MancalabError
    from ..web.backends import is_url, shown_address
    from ..web.store import Store, copy_store

    if not is_url(source) and not Path(source).is_file():
        fail(f"no database file {source}")
    try:
        stores = [Store(source), Store(target)]
    except Exception as error:  # noqa: BLE001 - an unusable database, said in one line
        fail(f"cannot open the databases: {error}")
    try:
        copied = copy_store(*stores)
    except MancalabError as error:
        fail(str(error))
    finally:
        for store in stores:
            store.close()
    for table, rows, before, after in copied:
        console.print(f"{table:<13} {rows:>9,} rows  {'same' if before == after else 'DIFFERENT'}"
                      f"  {after[:16]}")
    if any(before != after for _, _, before, after in copied):
        fail("the copy differs from the source (see the tables marked DIFFERENT)", 1)
    console.print(f"Copied {shown_address(source)} into {shown_address(target)}: every "
                  "table equal.", soft_wrap=True)
