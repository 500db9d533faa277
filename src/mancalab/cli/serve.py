"""The web server: serve, its limits and its first-start progress."""

from __future__ import annotations

import os
import time
from typing import Annotated, Optional

import typer
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)

from .._cache import is_warm
from ..core import MancalabError, MancalabFailure
from ..players import player as make_player
from ..web.thinking import Limits
from .common import app, console, fail


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="the address to listen on (0.0.0.0: every network)")]
    = "127.0.0.1",
    port: Annotated[int, typer.Option(help="the port to listen on")] = 8000,
    db: Annotated[Optional[str], typer.Option(
        help="the SQLite file of the games (default: in your data folder), or a PostgreSQL "
        "database's address, postgresql://USER@HOST/NAME, for several processes serving "
        "one site (docs/web.md)")] = None,
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
    forwarded_allow_ips: Annotated[str, typer.Option(
        help="the reverse proxies (addresses or networks, comma-separated) whose "
        "X-Forwarded-For names the visitor; none by default: behind a proxy on this machine, "
        "127.0.0.1 (docs/web.md)")] = "",
    rate_storage: Annotated[str, typer.Option(
        help="where request rates are counted: memory:// (this process) or a Redis server "
        "the processes of one site share, redis://HOST:PORT")] = "memory://",
    prepare: Annotated[bool, typer.Option(
        help="build what exact analysis and the expert need (databases, Gebeta's start "
        "book) in the background, once per machine")] = True,
) -> None:
    """Play in the browser: start the web server and print its address."""
    import math
    import socket

    from limits import parse

    from ..analysis.solving.preparation import steps
    from ..web import create_app, default_db_path, serving
    from ..web.backends import is_url, shown_address

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
                    forwarded_allow_ips=forwarded_allow_ips, rate_storage=rate_storage,
                    **_other_limits(limit or []))
    try:
        limits.check()
        with socket.create_server((host, port)):  # say a busy port before anything else
            pass
    except OSError as error:
        fail(f"cannot listen on {host}:{port}: {error.strerror or error}")
    path = db or str(default_db_path())
    shared = is_url(path)  # PostgreSQL: any number of processes serve one site
    held = None if shared else _serve_alone(path)  # noqa: F841 - held until the end
    warm = is_warm()
    progress = None if warm else WarmUpProgress()
    try:
        application = create_app(path, limits, on_warm_up=progress,
                                 prepare=steps() if prepare else None)
    except Exception as error:  # noqa: BLE001 - an unusable database, said in one line
        fail(f"cannot open the game database {shown_address(path)}: {error}")
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
    # the rules and searches load (or, the first time, compile) in the background: the page
    # answers at once, and a first move against the computer waits for them if it must
    console.print(f"mancalab is serving at [bold]http://{shown}:{port}/[/] (games in "
                  f"{shown_address(path)}); Ctrl-C stops it.")
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

    from ..web.thinking import Limits

    fields = {f.name: f for f in dataclasses.fields(Limits)
              if f.type in ("int", "float") and f.name not in ("max_think", "searches")
              or f.name.endswith("_rate") and f.type == "str"}
    chosen = {}
    for pair in pairs:
        name, eq, text = pair.partition("=")
        name = name.strip().replace("-", "_")
        if not eq or name not in fields:
            fail(f"bad --limit {pair!r}: write NAME=VALUE with NAME one of "
                 f"{', '.join(sorted(fields))}")
        if fields[name].type == "str":  # a rate: so many per period
            chosen[name] = _rate(name, text.strip())
            continue
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


def _serve_alone(path: str):
    """Hold the lock beside the games' SQLite file for as long as this process serves it:
    a second server on the same file would keep its own copy of every game in memory and
    refuse the first one's moves as stale, so it is refused. Several processes serving one
    world need a shared database (docs/web.md)."""
    import fcntl
    from pathlib import Path

    if path == ":memory:":
        return None
    lock_path = Path(f"{path}.lock")
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        held = open(lock_path, "a+")  # noqa: SIM115 - kept open while the process serves
    except OSError as error:
        fail(f"cannot open the game database's lock {lock_path}: {error.strerror or error}")
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        held.seek(0)
        other = held.read().strip() or "another process"
        held.close()
        fail(f"another mancalab server ({other}) is serving {path}: one process serves a "
             "SQLite file (stop it, or give this one its own --db)")
    held.seek(0)
    held.truncate()
    held.write(f"pid {os.getpid()}")
    held.flush()
    return held


def _rate(name: str, text: str) -> str:
    """A rate limit's text (``30/minute``, ``5 per hour``), checked as the server reads it."""
    from limits import parse

    try:
        item = parse(text)
    except ValueError:
        item = None
    if item is None or not 0 < item.amount <= 1 << 40:
        fail(f"--limit {name} must be a rate such as 30/minute or 5/hour, got {text!r}")
    return text


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
        except (MancalabError, MancalabFailure) as error:
            fail(f"--player {name}: {error}")
        named[name] = spec.strip()
    return named
