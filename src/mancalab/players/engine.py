"""The engine protocol: players in any language, over standard input and output.

Like UCI for chess engines, a line protocol (docs/engine-protocol.md) lets a program in any
language play in mancalab's arena, tournament, terminal and browser, and lets other programs
use mancalab's players:

- ``serve(player)`` speaks it as an engine (``mancalab engine --player SPEC``);
- ``EnginePlayer`` (the player spec ``engine:cmd=PROGRAM ARGS``) runs a program that speaks
  it. An engine that crashes, answers garbage or an illegal move, or thinks past its time is
  killed with its whole process group and loses the game (``EngineError``); its standard
  error is kept in a log file.
"""

from __future__ import annotations

import os
import queue
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

from ..core import (MancalabError, MancalabFailure, Option, State, UnknownOptionError,
                    Variant, real)
from .base import Player

VERSION = 1
HANDSHAKE_SECONDS = 10.0  # a program's start (a JVM's included) and its first answer
GRACE_SECONDS = 0.5  # beyond the time a move may take: pipes and process switches


class EngineError(MancalabFailure):
    """An engine that failed: it crashed, hung, or answered garbage or an illegal move."""


def _word(value: Any) -> str:
    """An option value as a protocol word: true/false for flags, the value's text else."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def game_line(variant: Variant) -> str:
    """``game NAME KEY=VALUE ...``: the game with all its options, so nothing is implied."""
    options = " ".join(f"{k}={_word(v)}" for k, v in variant.options.items())
    return f"game {variant.name} {options}".rstrip()


def position_line(state: State) -> str:
    """``position CELLS TO_MOVE [KEY=VALUE ...]``: the cells in the game's layout
    (docs/rules/GAME.md), the player to move (0 or 1) and any extra state."""
    extra = " ".join(f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}"
                     for k, v in state.extra.items())
    return f"position {','.join(map(str, state.cells))} {state.to_move} {extra}".rstrip()


def moves_line(state: State) -> str:
    """``moves M ...``: the legal moves in the game's notation."""
    return "moves " + " ".join(state.move_name(m) for m in state.legal_moves())


# ----- mancalab as an engine -----------------------------------------------------------------

class _Session:
    """What an engine knows between lines: the game, its player and the position."""

    def __init__(self, spec: str) -> None:
        from . import player

        self.spec = spec
        self.player = player(spec)  # a bad spec fails now; a level is made again per game
        self.variant: Variant | None = None
        self.state: State | None = None

    def handle(self, words: list[str]) -> str | None:
        """The answer to one command (None: no answer); MancalabError for a bad one."""
        command, args = words[0], words[1:]
        if command == "mep":
            return f"id name mancalab {self.player.spec}\nmepok {VERSION}"
        if command == "game":
            from ..records import typed_options
            from ..variants import variant

            if not args:
                raise MancalabError("game needs a game name")
            from . import player

            options = dict(_pair(word) for word in args[1:])
            self.variant, self.state = variant(args[0], **typed_options(options)), None
            self.player = player(self.spec, self.variant.name)  # the game's own level
            return None
        if command == "position":
            self.state = None  # a bad position leaves none, so go cannot answer an old one
            self.state = self._position(args)
            return None
        if command == "moves":
            return None  # mancalab knows the rules
        if command == "go":
            return f"move {self._go(args)}"
        raise MancalabError(f"unknown command {command!r}")

    def _position(self, args: list[str]) -> State:
        if self.variant is None:
            raise MancalabError("position before game: send the game first")
        if len(args) < 2:
            raise MancalabError("position needs the cells and the player to move")
        cells = args[0].split(",")
        extra = {}
        for key, value in map(_pair, args[2:]):
            extra[key] = value.split(",") if "," in value else value
        return self.variant.state(cells, to_move=_player(args[1]), **extra)

    def _go(self, args: list[str]) -> str:
        if self.state is None:
            raise MancalabError("go before position: send the position first")
        seconds = _go_time(args, self.state.to_move)
        player = self.player
        player.cap = seconds  # never longer than the referee allows
        move = player.choose(self.state)
        return self.state.move_name(move)


def _pair(word: str) -> tuple[str, str]:
    key, eq, value = word.partition("=")
    if not eq or not key:
        raise MancalabError(f"expected KEY=VALUE, got {word!r}")
    return key, value


def _player(word: str) -> int:
    if word not in ("0", "1"):
        raise MancalabError(f"the player to move is 0 or 1, not {word!r}")
    return int(word)


def _go_time(args: list[str], mover: int) -> float | None:
    """The seconds a move may take from ``go [time S] [clock A B]``: the time given, or a
    share of the mover's clock (a twentieth, as few games last 20 more moves a side)."""
    seconds = None
    words = list(args)
    try:
        while words:
            key = words.pop(0)
            if key == "time":
                seconds = real(words.pop(0))
            elif key == "clock":
                clocks = [real(words.pop(0)), real(words.pop(0))]
                share = max(0.01, clocks[mover] / 20)
                seconds = share if seconds is None else min(seconds, share)
            else:
                raise MancalabError(f"go takes time S and clock A B, not {key!r}")
    except (IndexError, ValueError) as error:
        raise MancalabError(f"bad go command: {' '.join(args)!r} ({error})") from None
    return seconds


def serve(spec: str, stdin: IO[str] = sys.stdin, stdout: IO[str] = sys.stdout) -> None:
    """Speak the protocol as an engine playing the player ``spec`` (a level is the one
    measured for each game) until ``quit`` or the end of the input. A bad command gets
    ``error TEXT``."""
    speak(_Session(spec).handle, lambda error: f"error {error}", stdin, stdout)


def speak(handle, error_line, stdin: IO[str], stdout: IO[str]) -> None:
    """An engine's loop: each line's words to ``handle`` (its answer: a line, lines or
    None), a bad one answered by ``error_line(error)``, until ``quit`` or the input's end."""
    for line in stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            break
        try:
            answer = handle(words)
        except MancalabError as error:
            answer = error_line(error)
        if answer:
            lines = [answer] if isinstance(answer, str) else answer
            stdout.write("\n".join(lines) + "\n")
            stdout.flush()


# ----- a program as a player -----------------------------------------------------------------

def _log_path(command: str) -> str:
    folder = Path(tempfile.gettempdir()) / "mancalab-engines"
    folder.mkdir(exist_ok=True)
    stem = "".join(c if c.isalnum() else "-" for c in Path(shlex.split(command)[0]).name)
    return str(folder / f"{stem}-{os.getpid()}-{time.time_ns()}.log")


class EnginePlayer(Player):
    """A program that speaks the engine protocol, as a mancalab player."""

    name = "engine"
    option_specs = {
        "cmd": Option("", str, lambda v: bool(v.strip()), "the program to run, with its "
                      "arguments, e.g. cmd=java -cp examples GreedyKalah"),
        "time": Option(1.0, real, lambda v: 0 < v <= 3600,
                       "seconds a move (in games without a clock), more than 0 and at most "
                       "3600"),
        "log": Option("", str, lambda v: True, "a file for the program's standard error"),
    }
    thinks_by_clock = True

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.process: subprocess.Popen | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.engine_name = ""
        self.log_path = self.options["log"] or _log_path(self.options["cmd"])
        self._game = ""

    # the process ------------------------------------------------------------------------
    def _start(self) -> None:
        self._launch()
        self._send(f"mep {VERSION}")
        while True:
            line = self._receive(HANDSHAKE_SECONDS, "the handshake (mep)")
            if line.startswith("id name "):
                self.engine_name = line[8:].strip()
            elif line.split()[:1] == ["mepok"]:
                return
            elif not line.startswith(("id ", "info")):
                self._fail(f"answered {line[:60]!r} to mep instead of mepok")

    def _launch(self) -> None:
        """Start the program in its own process group, its lines read by a thread."""
        try:
            args = shlex.split(self.options["cmd"])
        except ValueError as error:
            raise UnknownOptionError(f"cannot read the engine command: {error}") from None
        log = open(self.log_path, "ab")
        try:
            self.process = subprocess.Popen(
                args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
                bufsize=1, start_new_session=True)  # its own process group, killed as one
        except OSError as error:
            raise EngineError(f"cannot start the engine {args[0]!r}: {error}") from None
        finally:
            log.close()
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)  # the engine closed its output: it ended

    def _send(self, line: str) -> None:
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            self._fail("has stopped (its input is closed)")

    def _receive(self, seconds: float, waiting_for: str) -> str:
        """The next line that is not blank; EngineError on silence or an ended process."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self._fail(f"gave no answer to {waiting_for} within {seconds:g} s")
            if line is None:
                code = self.process.wait()
                self._fail(f"exited (status {code}) while mancalab waited for {waiting_for}")
            if line.strip():
                return line.strip()

    def _fail(self, why: str) -> None:
        self.close()
        raise EngineError(f"engine {self.options['cmd']!r} {why}; its log: {self.log_path}")

    def close(self) -> None:
        """Say quit and kill the program's whole process group at once (no waiting: a server
        frees players on its event loop)."""
        process, self.process = self.process, None
        if process is None:
            return
        try:
            process.stdin.write("quit\n")
            process.stdin.flush()
        except (OSError, ValueError):
            pass
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        process.wait()
        self._game = ""
        self.lines = queue.Queue()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - nothing to do at interpreter exit
            pass

    # a move ----------------------------------------------------------------------------
    def choose(self, state: State) -> int:
        if self.process is None:
            self._start()
        started = time.perf_counter()
        game = game_line(state.variant)
        if game != self._game:
            self._send(game)
            self._game = game
        self._send(position_line(state))
        self._send(moves_line(state))
        if self.clock is None:  # a time a move
            seconds = self.capped(self.options["time"])
            self._send(f"go time {seconds:.3f}")
        else:  # a game clock: the engine shares out its own time, as over a chess board
            seconds = self.capped(max(0.0, self.clock[state.to_move]))
            self._send(f"go clock {self.clock[0]:.3f} {self.clock[1]:.3f}")
        while True:
            line = self._receive(seconds + GRACE_SECONDS, "go")
            words = line.split()
            if words[0] == "info":
                self.last_info = {"info": line[5:]}
                continue
            if words[0] == "error":
                self._fail(f"refused the position: {line[6:]}")
            if words[0] != "move" or len(words) != 2:
                self._fail(f"answered {line[:60]!r} instead of move M")
            return self._played(state, words[1], started)

    def _played(self, state: State, name: str, started: float) -> int:
        """The legal move the engine named (else it fails), its time noted."""
        try:
            move = state.parse_move(name)
        except MancalabError as error:
            self._fail(f"played {name!r}, which is not legal: {error}")
        self.last_info = {**self.last_info, "seconds": time.perf_counter() - started}
        return move
