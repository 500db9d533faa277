"""Learning and teaching: puzzles proven by the solver, classroom worksheets."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..variants import variants as variant_names
from .common import app, check_out, check_seed, console, fail


@app.command()
def puzzles(
    game: Annotated[str, typer.Argument(help="kalah, gebeta, gabata, urubugu, gabata3 or oware "
                                             "(default rules)")],
    out: Annotated[str, typer.Option(help="the JSON-lines file; a rerun goes on from it")],
    count: Annotated[int, typer.Option(help="puzzles in the file at the end")] = 100,
    seed: Annotated[int, typer.Option(help="the self-play's seed (reproducible)")] = 1,
    time: Annotated[float, typer.Option(help="seconds to solve a candidate at most")] = 2.0,
) -> None:
    """Puzzles proven by the solver: positions from self-play where one move keeps the best
    value and every other loses a clear margin, each with every move's value and a rating
    (Oware's: the one move its endgame tables prove wins; 3-row Gabata's: the one capture
    clearly the largest; Urubugu's: a one-turn wipe-out)."""
    import math

    from ..analysis.teach import puzzles as making

    game = game.strip().lower()
    if game not in making.GAMES:
        fail(f"puzzles are made for {', '.join(making.GAMES)}, not {game!r}")
    if not 1 <= count <= 100_000:
        fail(f"--count must be 1..100000, got {count}")
    if not (math.isfinite(time) and 0 < time <= 3600):
        fail(f"--time must be above 0 and at most 3600 seconds, got {time}")
    check_seed(seed)
    check_out(out)
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
    language: Annotated[str, typer.Option(help="en, fr, rn or am")] = "en",
) -> None:
    """A classroom worksheet: boards with questions the engine answers (where a move's last
    counter lands, how much a move wins, which move wins the most), the answers on the last
    page, to print for a class without computers."""
    from ..analysis.teach import worksheet as sheets
    from ..draw.html import LANGUAGES, texts

    game = game.strip().lower()
    paper = paper.strip().lower()
    if game not in variant_names():
        fail(f"unknown game {game!r} (games: {', '.join(variant_names())})")
    if not 1 <= questions <= sheets.MAX_QUESTIONS:
        fail(f"--questions must be 1..{sheets.MAX_QUESTIONS}, got {questions}")
    if paper not in sheets.PAPERS:
        fail(f"--paper must be {' or '.join(sheets.PAPERS)}, got {paper!r}")
    check_seed(seed)
    check_out(out)
    language = language.strip().lower()
    if language not in LANGUAGES:
        fail(f"--language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    made = sheets.questions(game, questions, seed, language)
    title = texts(language)[f"game_{game}"]
    pages = sheets.write_pdf(made, out, paper, title=title, language=language)
    spread = "a page" if pages == 2 else f"{pages - 1} pages"
    console.print(f"{out}: {len(made)} questions on {spread} and the answer key")
