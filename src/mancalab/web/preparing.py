"""A server's background preparation of exact play (``analysis.solving.preparation``): one process
at the lowest priority builds the steps one after another, and the server shows the progress
and the time left, then opens what was built.

One process, not a thread: a build holds both cores and gigabytes for minutes, and a
process at nice 19 leaves the server's own searches and answers first on a small machine.
"""

from __future__ import annotations

import contextlib
import fcntl
import multiprocessing
import os
import threading
import time
from collections.abc import Callable

from ..analysis.solving.preparation import Step
from ..lifetime import end_with_parent

WAITING, RUNNING, READY, SKIPPED, FAILED = "waiting", "running", "ready", "skipped", "failed"
LOWEST_PRIORITY = 19


@contextlib.contextmanager
def _only_builder(queue):
    """Hold the machine's preparation lock (a file beside the databases): a second server
    waits for the first to finish instead of building the same files beside it. The lock
    goes with the process that holds it, however it ends."""
    from ..analysis.solving.files import default_dir

    folder = default_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "prepare.lock", "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            queue.put((None, WAITING, 0.0, "another server on this machine is preparing"))
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _work(steps: list[Step], queue, budget: int | None, parent: int | None = None) -> None:
    """The preparing process: each step in turn, its progress told on ``queue``."""
    if parent is not None:
        end_with_parent(parent)
    with contextlib.suppress(OSError):
        os.nice(LOWEST_PRIORITY)
    with _only_builder(queue):
        _steps(steps, queue, budget)


def _steps(steps: list[Step], queue, budget: int | None) -> None:
    for i, step in enumerate(steps):
        if step.is_done():
            queue.put((i, READY, 1.0, None))
            continue
        reason = step.does_not_fit(budget)
        if reason is not None:
            queue.put((i, SKIPPED, 0.0, reason))
            continue
        queue.put((i, RUNNING, 0.0, None))
        try:
            payload = step.run(lambda fraction, i=i: queue.put((i, RUNNING, fraction, None)))
        except Exception as error:  # noqa: BLE001 - said on the page, the next step goes on
            queue.put((i, FAILED, 0.0, str(error) or type(error).__name__))
            continue
        queue.put((i, READY, 1.0, payload))
    queue.put(None)


class Preparation:
    """The steps, their state and progress, and the process that builds them.
    ``on_ready(step, payload)`` is called (in a watching thread) as each step is built."""

    def __init__(self, steps: list[Step], on_ready: Callable[[Step, dict | None], None],
                 done: Callable[[Step], bool] = Step.is_done,
                 budget: int | None = None) -> None:
        self.steps = steps
        self.budget = budget
        self.on_ready = on_ready
        self.state = [READY if done(step) else WAITING for step in steps]
        self.fraction = [1.0 if s == READY else 0.0 for s in self.state]
        self.began: list[float | None] = [None] * len(steps)
        self.updated: list[float | None] = [None] * len(steps)  # its fraction's last change
        self.reason: list[str | None] = [None] * len(steps)
        self.process = None
        self.waiting_for: str | None = None
        self.lock = threading.Lock()

    def start(self) -> None:
        """Start the preparing process for the steps not built yet."""
        todo = [i for i, s in enumerate(self.state) if s == WAITING]
        if not todo:
            return
        context = multiprocessing.get_context("spawn")  # no fork of a threaded server
        queue = context.Queue()
        self.process = context.Process(target=_work, args=([self.steps[i] for i in todo],
                                                           queue, self.budget, os.getpid()),
                                       name="mancalab-prepare", daemon=True)
        self.process.start()
        threading.Thread(target=self._watch, args=(queue, todo), name="mancalab-prepare-watch",
                         daemon=True).start()

    def stop(self) -> None:
        if self.process is not None and self.process.is_alive():
            self.process.terminate()
            self.process.join(5)

    def _watch(self, queue, todo: list[int]) -> None:
        while True:
            try:
                message = queue.get(timeout=5)
            except Exception:  # noqa: BLE001 - the queue is empty: is the process still there?
                if self.process is None or not self.process.is_alive():
                    self._lost()
                    return
                continue
            if message is None:
                return
            local, state, fraction, extra = message
            if local is None:  # waiting for another server's preparation: said, not a step
                self.waiting_for = extra
                continue
            i = todo[local]
            self.waiting_for = None
            with self.lock:
                now = time.monotonic()
                if state == RUNNING and self.began[i] is None:
                    self.began[i] = now
                if fraction != self.fraction[i]:
                    self.updated[i] = now
                self.state[i], self.fraction[i] = state, fraction
                if state in (SKIPPED, FAILED):
                    self.reason[i] = extra
            if state == READY:
                self.on_ready(self.steps[i], extra)

    def _lost(self) -> None:
        with self.lock:
            for i, state in enumerate(self.state):
                if state in (WAITING, RUNNING):
                    self.state[i], self.reason[i] = FAILED, "the preparing process ended"

    def _left(self, i: int, now: float) -> float:
        """Seconds step ``i`` still needs: its estimate, or once it has gone some way, its
        end as the pace up to its last progress foretells it, counted down since (progress
        comes a level at a time: between two the time left falls, it does not drift up);
        0 once that end has passed (``_late``)."""
        state, step = self.state[i], self.steps[i]
        if state != WAITING and state != RUNNING:
            return 0.0
        if state == RUNNING and self.began[i] is not None:
            began, fraction = self.began[i], self.fraction[i]
            if fraction >= 0.05 and self.updated[i] is not None:
                return max(began + (self.updated[i] - began) / fraction - now, 0.0)
            return max(step.seconds - (now - began), 1.0)
        return float(step.seconds)

    def _late(self, i: int, now: float) -> bool:
        """Whether running step ``i`` is past the end its pace foretold."""
        return self.state[i] == RUNNING and self.fraction[i] >= 0.05 and self._left(i, now) == 0

    def status(self) -> dict:
        """The steps and, per game, whether exact play is ready and the seconds left."""
        now = time.monotonic()
        with self.lock:
            rows, games, total = [], {}, 0.0
            for i, step in enumerate(self.steps):
                total += self._left(i, now)
                rows.append({"game": step.game, "what": step.name, "state": self.state[i],
                             "fraction": round(self.fraction[i], 3),
                             "reason": self.reason[i]})
                game = games.setdefault(step.game, {"ready": True, "seconds_left": 0,
                                                    "missing": [], "late": False})
                game["late"] = game["late"] or self._late(i, now)
                if self.state[i] != READY:
                    game["ready"] = False
                    game["missing"].append(step.name)
                if self.state[i] in (WAITING, RUNNING):
                    game["seconds_left"] = round(total)
            return {"ready": all(s == READY for s in self.state), "seconds_left": round(total),
                    "games": games, "steps": rows, "waiting_for": self.waiting_for}
