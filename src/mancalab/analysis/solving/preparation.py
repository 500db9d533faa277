"""What exact play needs before a game's first move, and building it.

The perfect player, the hints and the browser's analysis are exact from the start only with
files built once per machine: Kalah's endgame database, Gebeta's and Gabata's databases and
Gebeta's start book. A server builds them in the background (``mancalab.web.preparing``); a
step is skipped, with the reason, when its memory does not fit. The start's analysis of a
game whose search takes longer than a request may (Kalah(6,4): about half a minute) is made
once here too, and kept by the server with every analysis it proves.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ...core import MancalabError, State, Variant
from ...memory import available_memory
from ...variants import variant as make_variant

GB = 1 << 30
MB = 1 << 20


@dataclass(frozen=True)
class Step:
    """One thing to build: ``kind`` is "database", "book" or "start" (the start's analysis).
    ``seconds``, ``memory`` and ``disk`` are what it took on the reference machine (2 cores,
    AMD EPYC, benchmarks/README.md): the estimates shown before a step has begun."""

    game: str
    kind: str
    seeds: int | None
    seconds: float
    memory: int
    disk: int
    options: tuple = ()  # (name, value) pairs: the default rules when empty

    @property
    def variant(self) -> Variant:
        return make_variant(self.game, **dict(self.options))

    @property
    def name(self) -> str:
        if self.kind == "start":
            return f"{self.game}: the start's analysis"
        what = "start book" if self.kind == "book" else "database"
        return f"{self.game}: {what} ({self.seeds} seeds)"

    def is_done(self) -> bool:
        """Whether the step's file is built (the start's analysis: never; the server keeps
        it with its analyses and asks ``wanted``)."""
        variant = self.variant
        from . import book as books, method_of

        if self.kind == "database":
            return method_of(variant).databases.path_of(variant, self.seeds).exists()
        if self.kind == "book":
            return books.book_path(variant).exists()
        return False

    def does_not_fit(self, budget: int | None = None) -> str | None:
        """Why the step cannot be built now: over the memory ``budget`` (bytes) or this
        machine's free memory; else None."""
        if budget is not None and self.memory > budget:
            return (f"needs {self.memory / GB:.1f} GB of memory while it builds, over this "
                    f"server's budget of {budget / GB:.1f} GB (serve --limit prepare_memory)")
        free = available_memory()
        if self.memory > free:
            return (f"needs {self.memory / GB:.1f} GB of memory while it builds; "
                    f"{free / GB:.1f} GB are free")
        return None

    def run(self, on_fraction: Callable[[float], None]) -> dict | None:
        """Build the step, telling ``on_fraction(done)`` (0..1) as it goes; the start's
        analysis (``start_analysis``) for a "start" step, else None."""
        variant = self.variant
        if self.kind == "start":
            return start_analysis(variant.start())
        if self.kind == "book":
            return _build_book(variant, self, on_fraction)
        from . import method_of

        kept = method_of(variant).databases
        total = kept.entries(variant, self.seeds)
        kept.ensure(variant, self.seeds, on_progress=_levels(total, on_fraction))
        return None


def _levels(total: int, on_fraction: Callable[[float], None]):
    """A database build's ``on_progress(level, done, count)`` as a fraction of ``total``
    entries (each level is told once it is done)."""
    done = [0]

    def on_progress(level: int, finished: int, count: int) -> None:
        if finished == count:
            done[0] += count
            on_fraction(min(1.0, done[0] / total))

    return on_progress


def _build_book(variant: Variant, step: Step, on_fraction: Callable[[float], None]) -> None:
    """Gebeta's start book over its database (a walk with no progress of its own: the
    fraction told is the time spent of the step's estimate, kept below 1 until it ends)."""
    import threading

    from . import book as books, retrograde

    database = retrograde.ensure(variant, step.seeds)
    finished = threading.Event()

    def tick() -> None:
        began = time.monotonic()
        while not finished.wait(2.0):
            on_fraction(min(0.95, (time.monotonic() - began) / step.seconds))

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        books.save_book(books.build_book(variant, database))
    finally:
        finished.set()
    return None


def start_analysis(state: State) -> dict:
    """Every legal move's exact value at ``state``, with no time limit: the analysis the
    server answers with (``SolveResult.answer``)."""
    from . import solve

    return solve(state, moves=True).answer()


def is_settled(answer: dict) -> bool:
    """Whether an analysis is final: the value and every move's value proven (or, where the
    rule for endless play decides, their final bounds)."""
    return bool(answer.get("exact")) and all(
        entry.get("value") is not None or entry.get("endless")
        for entry in answer.get("moves", []))


KINDS = ("database", "start", "book")  # the order to run them in: the quick ones first


def every_step() -> list[Step]:
    """What exact play needs, game by game (default rules, ``Variant.solving.preparation``), in the
    order to run: the databases (seconds each) before the start's analyses and books, each
    kind the quickest first, so that the most games are exact soonest."""
    from ...variants import VARIANTS

    found = [Step(name, kind, seeds, seconds, memory * MB, disk * MB)
             for name, cls in VARIANTS.items()
             for kind, seeds, seconds, memory, disk in cls.solving.preparation]
    return sorted(found, key=lambda step: (KINDS.index(step.kind), step.seconds))


def steps(games: tuple[str, ...] | None = None) -> list[Step]:
    """The steps for ``games`` (default: every game that has them), in the order to run."""
    every = every_step()
    chosen = [step for step in every if games is None or step.game in games]
    unknown = set(games or ()) - {step.game for step in every}
    if unknown:
        raise MancalabError(f"nothing to prepare for {', '.join(sorted(unknown))}")
    return chosen
