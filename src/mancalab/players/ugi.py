"""UGI, the Universal Game Interface (UCI for any game), both ways, with mancala's profile.

UGI (the protocol of the cutegames runner: ``ugi.md`` in the public repository
kz04px/cutegames) is UCI with ``query gameover|p1turn|result`` and clocks for "p1" and "p2".
Its mancala profile (docs/ugi.md) fixes what UGI leaves to each game: positions are
``mancalab.fen`` strings, moves the game's own names (Kalah ``6``, Oware ``A``, Gebeta
``A1``), p1 is player 0 (South, who moves first), extra turns are told by ``query p1turn``
after each move, and the game's options are UGI options (``setoption``).

- ``serve(game, spec)`` is a UGI engine playing the mancalab player ``spec``
  (``mancalab ugi GAME --player SPEC``);
- ``UGIPlayer`` (the player spec ``ugi:cmd=PROGRAM ARGS``) runs a program that speaks UGI, as
  ``EnginePlayer`` runs one that speaks mancalab's own engine protocol: one that crashes,
  hangs past its time or answers garbage or an illegal move loses (``EngineError``).
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

from ..core import MancalabError, Option, State, Variant, real
from .engine import EngineError, EnginePlayer, GRACE_SECONDS, HANDSHAKE_SECONDS, speak

CLOCK_SHARE = 20  # a move may take a twentieth of the mover's clock (plus most of its increment)
RESULTS = {None: "none", 0: "p1win", 1: "p2win"}


def option_line(name: str, spec: Option) -> str:
    """A game option as UGI declares it: check, spin, combo or string."""
    default = spec.default
    if isinstance(default, bool):
        return f"option name {name} type check default {'true' if default else 'false'}"
    if spec.choices and spec.low is None:
        choices = " ".join(f"var {c}" for c in spec.choices)
        return f"option name {name} type combo default {default} {choices}"
    if spec.low is not None and not spec.choices:
        return f"option name {name} type spin default {default} min {spec.low} max {spec.high}"
    return f"option name {name} type string default {default}"


def result_word(state: State) -> str:
    """``p1win``, ``p2win``, ``draw`` or ``none`` (still going), as ``query result`` says."""
    outcome = state.outcome
    if outcome is None:
        return "none"
    return "draw" if outcome.winner is None else RESULTS[outcome.winner]


# ----- mancalab as a UGI engine ---------------------------------------------------------------

class _Engine:
    """What a UGI engine knows between lines: the game's options, the player, the game."""

    def __init__(self, game: str, options: dict[str, Any], spec: str) -> None:
        from ..variants import variant

        self.game, self.spec = game, spec
        self.options = dict(options)
        self.variant: Variant = variant(game, **self.options)
        self.record = None
        self.player = self._player()

    def _player(self, **overrides: Any):
        from . import player, resolve

        cls, options = resolve(self.spec, self.variant.name)
        return cls(**{**options, **overrides}) if overrides else player(self.spec,
                                                                        self.variant.name)

    def hello(self) -> list[str]:
        lines = [f"id name mancalab {self.spec} ({self.variant.name})", "id author mancalab"]
        lines += [option_line(k, s) for k, s in self.variant.option_specs.items()]
        return lines + ["ugiok"]

    def handle(self, words: list[str]) -> list[str]:
        """The lines answering one command; MancalabError for a bad one."""
        command, args = words[0], words[1:]
        if command == "ugi":
            return self.hello()
        if command == "isready":
            if self.record is None:
                self.variant.start()  # the rules compiled now, not in the first search
            return ["readyok"]
        if command == "setoption":
            self._set(args)
            return []
        if command == "uginewgame":
            self.record = None
            self.player.close()
            self.player = self._player()
            return []
        if command == "position":
            self.record = None  # a bad position leaves none, so go cannot answer an old one
            self.record = self._position(args)
            return []
        if command == "query":
            return [f"response {self._query(args)}"]
        if command == "go":
            return self._go(args)
        if command in ("stop", "ponderhit", "debug"):
            return []  # a search here ends by its own time: there is nothing to stop
        raise MancalabError(f"unknown command {command!r}")

    def _set(self, args: list[str]) -> None:
        from ..records import typed_options
        from ..variants import variant

        if len(args) < 4 or args[0] != "name" or "value" not in args:
            raise MancalabError("write setoption name NAME value VALUE")
        at = args.index("value")
        name, value = " ".join(args[1:at]), " ".join(args[at + 1:])
        options = {**self.options, **typed_options({name: value})}
        self.variant = variant(self.game, **options)  # an unknown or bad value fails here
        self.options, self.record = options, None

    def _position(self, args: list[str]):
        from ..records import GameRecord

        if not args:
            raise MancalabError("write position startpos or position fen FEN, then moves ...")
        if "moves" in args:
            at = args.index("moves")
            args, moves = args[:at], args[at + 1:]
        else:
            moves = []
        if args == ["startpos"]:
            start = self.variant.start()
        elif args[0] == "fen" and len(args) > 1:
            start = self.variant.from_fen(" ".join(args[1:]))
        else:
            raise MancalabError(f"position takes startpos or fen FEN, not {' '.join(args)!r}")
        record = GameRecord(self.variant, start)
        for name in moves:
            record.push(record.state.parse_move(name))  # the third repetition ends it
        return record

    def _state(self) -> State:
        if self.record is None:
            raise MancalabError("no position: send position startpos or position fen first")
        return self.record.state

    def _query(self, args: list[str]) -> str:
        state = self._state()
        if args == ["gameover"]:
            return "true" if state.is_over else "false"
        if args == ["p1turn"]:
            return "true" if state.to_move == 0 else "false"
        if args == ["result"]:
            return result_word(state)
        if args == ["fen"]:
            return state.fen(len(self.record.moves) // 2 + 1)
        raise MancalabError(f"query takes gameover, p1turn, result or fen, not {args!r}")

    def _go(self, args: list[str]) -> list[str]:
        state = self._state()
        if state.is_over:
            raise MancalabError("the game is over: there is no move to search")
        seconds, overrides, notes = _budget(args, state.to_move, self.player)
        player = self._player(**overrides) if overrides else self.player
        player.cap = seconds
        started = time.perf_counter()
        move = player.choose(state)
        elapsed = int((time.perf_counter() - started) * 1000)
        info = [f"info string {note}" for note in notes]
        return info + [f"info time {elapsed}", f"bestmove {state.move_name(move)}"]


def _budget(args: list[str], mover: int, player) -> tuple[float | None, dict, list[str]]:
    """The seconds a move may take, the player's options a ``go`` sets (depth, nodes) and
    notes on what it could not honour."""
    values: dict[str, float] = {}
    words = list(args)
    flags = {"infinite", "ponder"}
    try:
        while words:
            key = words.pop(0)
            if key in flags:
                values[key] = 1
            elif key in ("p1time", "p2time", "p1inc", "p2inc", "movetime", "depth", "nodes",
                         "movestogo"):
                values[key] = real(words.pop(0))
            else:
                raise MancalabError(f"go does not take {key!r}")
    except (IndexError, ValueError) as error:
        raise MancalabError(f"bad go command: {' '.join(args)!r} ({error})") from None
    seconds, overrides, notes = None, {}, []
    if "movetime" in values:
        seconds = max(0.001, values["movetime"] / 1000)
    own = ("p1", "p2")[mover]
    if f"{own}time" in values:
        left = max(0.0, values[f"{own}time"]) / 1000
        increment = max(0.0, values.get(f"{own}inc", 0)) / 1000
        share = max(0.001, min(left / 2, left / max(values.get("movestogo", CLOCK_SHARE), 1)
                               + 0.8 * increment))
        seconds = share if seconds is None else min(seconds, share)
    for key, option in (("depth", "depth"), ("nodes", "playouts")):
        if key in values:
            if option in player.option_specs:
                overrides[option] = int(values[key])
            else:
                notes.append(f"{player.name} takes no {key}: it plays by its own measure")
    if "infinite" in values:
        notes.append("no search here is endless: the player thinks for its own time")
    return seconds, overrides, notes


def serve(game: str, options: dict[str, Any], spec: str, stdin: IO[str] = sys.stdin,
          stdout: IO[str] = sys.stdout) -> None:
    """Speak UGI as an engine of ``game`` playing the player ``spec`` until ``quit`` or the
    end of the input. A bad command gets ``info string error: TEXT`` (UGI has no error
    reply; a runner that waits for an answer sees it in its log)."""
    engine = _Engine(game, options, spec)
    speak(engine.handle, lambda error: f"info string error: {error}", stdin, stdout)
    engine.player.close()


# ----- a UGI program as a player --------------------------------------------------------------

class UGIPlayer(EnginePlayer):
    """A program that speaks UGI (its mancala profile: docs/ugi.md), as a mancalab player."""

    name = "ugi"
    option_specs = {
        **EnginePlayer.option_specs,
        "cmd": Option("", str, lambda v: bool(v.strip()), "the program to run, with its "
                      "arguments, e.g. cmd=python3 my_engine.py"),
    }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.declared: set[str] = set()
        self._options_sent: dict[str, str] = {}

    def _start(self) -> None:
        self._launch()
        self._send("ugi")
        while True:
            line = self._receive(HANDSHAKE_SECONDS, "the handshake (ugi)")
            words = line.split()
            if line.startswith("id name "):
                self.engine_name = line[8:].strip()
            elif words[:2] == ["option", "name"]:
                end = words.index("type") if "type" in words else len(words)
                self.declared.add(" ".join(words[2:end]))
            elif words == ["ugiok"]:
                return
            elif words[0] not in ("id", "info", "option"):
                self._fail(f"answered {line[:60]!r} to ugi instead of ugiok")

    def _ready(self) -> None:
        self._send("isready")
        while True:
            line = self._receive(HANDSHAKE_SECONDS, "isready")
            if line == "readyok":
                return
            if not line.startswith(("info", "id", "option")):
                self._fail(f"answered {line[:60]!r} to isready instead of readyok")

    def _new_game(self, variant: Variant) -> None:
        """Set the game's options the engine declares (an engine of one game declares none)
        and begin a new game."""
        for key, value in variant.options.items():
            word = str(value).lower() if isinstance(value, bool) else str(value)
            if key in self.declared and self._options_sent.get(key) != word:
                self._send(f"setoption name {key} value {word}")
                self._options_sent[key] = word
        self._send("uginewgame")
        self._ready()

    def close(self) -> None:
        super().close()
        self._options_sent = {}

    def choose(self, state: State) -> int:
        if self.process is None:
            self._start()
        started = time.perf_counter()
        if self._game != repr(state.variant):
            self._new_game(state.variant)
            self._game = repr(state.variant)
        self._send(f"position fen {state.fen()}")
        if self.clock is None:  # a time a move
            seconds = self.capped(self.options["time"])
            self._send(f"go movetime {int(seconds * 1000)}")
        else:
            seconds = self.capped(max(0.0, self.clock[state.to_move]))
            p1, p2 = (int(max(0.0, c) * 1000) for c in self.clock)
            self._send(f"go p1time {p1} p2time {p2}")
        while True:
            line = self._receive(seconds + GRACE_SECONDS, "go")
            words = line.split()
            if words[0] in ("info", "id"):
                if words[:2] == ["info", "string"]:
                    self.last_info = {"info": line[12:]}
                continue
            if words[0] != "bestmove" or len(words) < 2:
                self._fail(f"answered {line[:60]!r} instead of bestmove M")
            return self._played(state, words[1], started)


__all__ = ["UGIPlayer", "EngineError", "option_line", "result_word", "serve"]
