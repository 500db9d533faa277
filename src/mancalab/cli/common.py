"""What every command shares: the app, the console, the one error handler, shared options."""

from __future__ import annotations

import contextlib
import functools
from typing import Annotated, Optional

import sys

import typer
from rich.console import Console
from typer.core import TyperGroup

try:  # recent Typer carries its own copy of click
    from typer import Abort
    from typer._click.exceptions import ClickException, UsageError
except ImportError:  # pragma: no cover - earlier Typer uses click itself
    from click.exceptions import Abort, ClickException, UsageError

from ..core import MancalabError, MancalabFailure
from ..records import typed_options

console = Console(highlight=False)
errors = Console(stderr=True, highlight=False)

GameOptions = Annotated[list[str], typer.Option("--option", "-o",
                                                help="a game option NAME=VALUE (repeatable)")]
ClusterAddress = Annotated[Optional[str], typer.Option(
    help="run on the workers of this Dask scheduler, e.g. tcp://host:8786")]


@contextlib.contextmanager
def saying(message: str):
    """A spinner with ``message`` while the block runs (compiling on a first run): said once
    instead where the output is not a terminal (a log has no spinner)."""
    if not console.is_terminal:
        console.print(message)
        yield
        return
    with console.status(message):
        yield


def compiling_said(seconds: float) -> str:
    """``N s of it compiling: a first run`` when there was any to speak of, else ``""``."""
    return f"{seconds:.1f} s of it compiling: a first run" if seconds >= 0.05 else ""


def fail(message: str, code: int = 2) -> None:
    errors.print(f"[bold red]mancalab:[/] {message}", soft_wrap=True)  # one line, any width
    raise typer.Exit(code)


class OneLineErrors(TyperGroup):
    """The command group whose command-line errors (an unknown option, a value of the wrong
    type, a missing argument) are one line naming the problem and exit 2, as bad input in
    a command is, instead of a boxed usage text."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            answer = super().main(args, prog_name, complete_var, False, **extra)
        except UsageError as error:
            if type(error).__name__ == "NoArgsIsHelpError":  # no arguments: the help
                return super().main(args, prog_name, complete_var, True, **extra)
            where = f" ({error.ctx.command_path} --help)" if error.ctx else ""
            errors.print(f"[bold red]mancalab:[/] {error.format_message()}{where}",
                         soft_wrap=True, markup=True)
            sys.exit(2)
        except ClickException as error:
            errors.print(f"[bold red]mancalab:[/] {error.format_message()}", soft_wrap=True)
            sys.exit(error.exit_code)
        except Abort:
            sys.exit(130)
        sys.exit(answer if isinstance(answer, int) else 0)


UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_bytes(text: str, flag: str) -> int:
    """A size such as ``8G``, ``512M`` or ``1000000`` (bytes), for ``flag``'s message."""
    import re

    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", text, re.IGNORECASE)
    if not match:
        fail(f"{flag} must be a size such as 8G, 512M or a number of bytes, got {text!r}")
    size = int(float(match.group(1)) * UNITS[match.group(2).upper()])
    if not 0 < size <= 1 << 50:
        fail(f"{flag} must be above 0 and at most 1024 TiB, got {text!r}")
    return size


class Commands(typer.Typer):
    """A Typer app whose every command ends errors the same way, as one line: bad input (a
    ``MancalabError``: an unknown game, option or player, a malformed record or position)
    exits with status 2, nothing written; a failure that is not the input's fault (a
    ``MancalabFailure``: an engine that crashed, memory run out) exits with status 1."""

    def command(self, *args, **kwargs):
        register = super().command(*args, **kwargs)

        def decorator(function):
            @functools.wraps(function)
            def run(*a, **k):
                try:
                    return function(*a, **k)
                except MancalabError as error:
                    fail(str(error))
                except MancalabFailure as error:
                    fail(str(error), code=1)

            register(run)
            return function

        return decorator


app = Commands(add_completion=False, no_args_is_help=True, cls=OneLineErrors,
               help="Play, analyse and solve mancala (sowing) games.")


def check_cluster(address: str | None) -> None:
    """With ``--cluster``: the extra is installed and the scheduler answers, or exit 2."""
    if address is None:
        return
    from ..cluster import connect

    connect(address).close()  # a MancalabError ends the command (``Commands``)


@contextlib.contextmanager
def cluster_errors(address: str | None, kept: str = ""):
    """A scheduler or worker connection lost in the middle of a run ends it with one line
    (the results written so far stay, and the same command goes on from them)."""
    import asyncio
    import concurrent.futures

    try:
        yield
    except (MancalabError, MancalabFailure):
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


def position_of(game: str, position: str | None, to_move: int, option: list[str]):
    """The game (with its ``--option``s) at its start, or at ``--position`` (its cells,
    comma-separated) with ``--to-move`` to move."""
    from ..variants import variant as make_variant

    if to_move not in (0, 1):
        fail(f"--to-move must be 0 or 1, got {to_move}")
    variant = make_variant(game, **parse_options(option))
    return variant.start() if position is None else variant.state(
        [cell.strip() for cell in position.split(",")], to_move)


def check_seed(seed: int) -> None:
    """A seed the random numbers take, or exit 2."""
    if not 0 <= seed < 2**31:
        fail(f"--seed must be 0..2147483647, got {seed}")


def check_out(path: str) -> None:
    """A file that can be written, checked before long work starts, or exit 2."""
    from ..records import check_writable

    try:
        check_writable(path)
    except OSError as error:
        fail(f"cannot write {path}: {error.strerror or error}")


def print_figures(title: str, headers: list[str], rows: list[list[str]], keys: int = 1,
                  key_justify: str = "left") -> None:
    """A table of figures that never cuts a number: when it is wider than the terminal, its
    columns are shown in parts that fit, each led by the first ``keys`` columns (the level, a
    name, which wrap at spaces as the headers do)."""
    from rich.table import Table

    def longest(text: str, whole: bool) -> int:
        return len(text) if whole else max(map(len, text.split()), default=0)

    # a figure is never broken; a header, and a key (a name), wrap at spaces
    widths = [max([longest(header, False)] + [longest(row[i], i >= keys) for row in rows])
              for i, header in enumerate(headers)]
    room = max(console.width, sum(widths[:keys]) + 4 * keys + max(widths[keys:], default=0) + 8)
    parts: list[list[int]] = []
    for column in range(keys, len(headers)):
        if not parts or (sum(widths[i] + 3 for i in list(range(keys)) + parts[-1])
                         + widths[column] + 3 + 1 > room):
            parts.append([])
        parts[-1].append(column)
    for number, part in enumerate(parts or [[]], 1):
        label = title if len(parts) < 2 else f"{title} ({number}/{len(parts)})"
        table = Table(title=label)
        for i in list(range(keys)) + part:
            table.add_column(headers[i], justify="right" if i >= keys else key_justify,
                             min_width=widths[i], overflow="fold")
        for row in rows:
            table.add_row(*(row[i] for i in list(range(keys)) + part))
        console.print(table)
