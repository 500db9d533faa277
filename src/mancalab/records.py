"""Game records: a small text format in the spirit of chess's PGN.

    [Variant "gebeta"]
    [A "Almaz"]
    [B "Computer"]
    [Date "2026.11.22"]
    [Result "*"]
    [Option "lap_limit=60"]          one line per option that is not the default
    [Start "2,7,1,6,1,6,6,6,0,1,6,6,0,0"]   the cells, only when not the standard start
    [ToMove "1"]                     only with Start
    [Owner "0,0,..."] [Round "2"]    only with Start, for games whose state has more (gabata3)

    A1 A2 C1 F2 *

The move list uses the game's log notation and ends with the result: ``A`` or ``B`` (the
winner), ``D`` (draw), ``T`` (timeout) or ``*`` (unfinished).
"""

from __future__ import annotations

import contextlib
import copy
import datetime as _dt
import hashlib
import os
import re
import tempfile
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .core import DRAW, WIN_0, WIN_1, IllegalMoveError, MancalabError, State, Variant, whole
from .variants import variant as make_variant

# PGN's form: "2026.11.22", or with "??" for the parts not known; "?" alone
DATE = re.compile(r"\?|(\d{4}|\?{4})\.(\d{2}|\?{2})\.(\d{2}|\?{2})")
RESULTS = ("A", "B", "D", "T", "*")
NAME_LENGTH = 40
YOU = "You"  # the person's name when they play the computer (no name asked)
MAX_RECORD_BYTES = 1 << 20  # a record file larger than this is refused, not read whole
_HEADER = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]$')


CHECKPOINT = 32  # a game keeps every this many plies' position; the others are played again


def _digest(state: State) -> bytes:
    """A position's 16-byte fingerprint, to count repetitions without keeping positions."""
    return hashlib.blake2b(state._key[1], digest_size=16).digest()


class Positions:
    """A game's positions by ply, read as a list (an index, a slice, in order, ``len``). A
    long game costs its moves, not an array a position: every ``CHECKPOINT``-th position is
    kept and the rest are played again from the one before when asked (a few kernel calls);
    the last, which the game may have ended by a rule, is kept as it is, and the one before
    it (the last move's, which a server's every view animates)."""

    def __init__(self, start: State, moves: list[int]) -> None:
        self._moves = moves  # the record's own list, one move shorter than the positions
        self._kept = [start]
        self._last = start
        self._before = None  # the position before the last, where known
        self._count = 1

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index):
        if isinstance(index, slice):
            wanted = range(*index.indices(self._count))
            if wanted.step == 1:
                return list(self._run(wanted.start, wanted.stop))
            return [self[i] for i in wanted]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("no such ply")
        if index == self._count - 1:
            return self._last
        if index == self._count - 2 and self._before is not None:
            return self._before
        return self._replay(index)

    def __iter__(self):
        return self._run(0, self._count)

    def _run(self, first: int, stop: int):
        """The positions of plies ``first``..``stop-1``, each played once from the last."""
        if first >= stop:
            return
        state = self._replay(first) if first < self._count - 1 else self._last
        for ply in range(first, stop):
            if ply == self._count - 1:
                state = self._last
            elif ply > first:
                state = state.play(self._moves[ply - 1])
            yield state

    def _replay(self, index: int) -> State:
        """Ply ``index``'s position, played from the kept one before it (never the last)."""
        base = index // CHECKPOINT
        state = self._kept[base]
        for ply in range(base * CHECKPOINT, index):
            state = state.play(self._moves[ply])
        return state

    def append(self, state: State) -> None:
        if self._count % CHECKPOINT == 0:
            self._kept.append(state)
        self._before, self._last = self._last, state
        self._count += 1

    def pop(self) -> State:
        popped = self._last
        self._count -= 1
        del self._kept[(self._count - 1) // CHECKPOINT + 1:]
        self._last = self._before if self._before is not None else \
            self._replay(self._count - 1)
        self._before = None
        return popped

    def replace_last(self, state: State) -> None:
        self._last = state

    def prefix(self, k: int, moves: list[int]) -> Positions:
        """The first ``k + 1`` positions, over ``moves`` (the first ``k`` moves)."""
        view = Positions.__new__(Positions)
        view._moves, view._count = moves, k + 1
        view._kept = self._kept[: k // CHECKPOINT + 1]
        view._last = self._last if k == self._count - 1 else self._replay(k)
        view._before = self._before if k == self._count - 1 else None
        return view


class RecordError(MancalabError):
    """A malformed game record; the message names the line."""


def check_name(name: object) -> str:
    """A player's name, stripped; MancalabError if it is empty, longer than NAME_LENGTH, or
    holds a control, format or line-break character (a record keeps each header on one line,
    and a name is shown on every board)."""
    if not isinstance(name, str):
        raise MancalabError(f"a player's name must be text, got {type(name).__name__}")
    text = name.strip()
    if not text:
        raise MancalabError("a player's name must not be empty")
    if len(text) > NAME_LENGTH:
        raise MancalabError(f"a player's name has at most {NAME_LENGTH} characters, "
                            f"got {len(text)}")
    bad = [c for c in text if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl",
                                                          "Zp")]
    if bad:
        raise MancalabError(f"a player's name must not hold control or line-break characters "
                            f"(it holds U+{ord(bad[0]):04X})")
    return text


def _move_tokens(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The words of a record's move text with their line numbers, move numbers ("12.")
    left out; the last word is the result when it is one of ``RESULTS``."""
    return [(line, token) for line, text in lines for token in text.split()
            if not re.fullmatch(r"\d+\.", token)]


def check_names(names) -> tuple[str, str]:
    """Two valid names (``check_name``)."""
    if isinstance(names, str) or len(names) != 2:
        raise MancalabError(f"give two names, for A and B (got {len(names)})")
    return check_name(names[0]), check_name(names[1])


TERMINATIONS = ("repetition", "agreement")  # ends by the rule for endless play
FORFEITS = ("resign", "time", "abort", "abandon", "draw", "adjudication")  # ends whatever
# the board says: a player loses, or (an aborted game, before both moved; a draw the players
# agreed) nobody wins; an abandoned one was left by a player on the clock, the other claiming
# the win; an adjudicated one (a match's referee) reached a position of known exact value


@dataclass
class GameRecord:
    """A game: its variant, start, names and moves. Also the history behind undo.

    It also holds the rules the kernels do not: a game whose position (cells, player to move
    and every other part of the state) occurs for the ``Variant.history.repetitions``-th time (third
    by default) ends at once by the game's rule for endless play (``State.stopped``, stated
    on each game's doc page), and so does a game the players agree to end
    (``end("agreement")``). ``termination`` says which, and the record's text keeps it
    (``[Termination "repetition"]``). Every driver (terminal, browser, arena) plays through a
    record, so none can run for ever. A game with a move cap
    (``Variant.history.move_cap``) takes no move after it; the players may still agree to end it."""

    variant: Variant
    start: State
    names: tuple[str, str] = ("A", "B")
    moves: list[int] = field(default_factory=list)
    date: str = field(default_factory=lambda: _dt.date.today().strftime("%Y.%m.%d"))
    states: Positions = field(init=False)
    termination: str | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        moves, self.moves = list(self.moves), []
        self.states = Positions(self.start, self.moves)
        self._seen: Counter | None = Counter([_digest(self.start)])
        self._unstopped: State | None = None
        for move in moves:
            self.push(move)

    @classmethod
    def new(cls, variant: Variant, names: tuple[str, str] = ("A", "B")) -> GameRecord:
        return cls(variant, variant.start(), names)

    @property
    def state(self) -> State:
        return self.states[-1]

    def _counts(self) -> Counter:
        """How often each position of the game occurred (by digest), counted when first
        needed (a view made by ``prefix`` may never need it)."""
        if self._seen is None:
            self._seen = Counter(_digest(state) for state in self.states)
        return self._seen

    def push(self, move: int) -> State:
        """Play ``move`` (IllegalMoveError leaves the record unchanged); a position reached
        for the third time ends the game by repetition."""
        if self.at_cap:
            raise IllegalMoveError(f"the game has reached its cap of "
                                   f"{self.variant.history.move_cap:,} moves: no move is "
                                   "taken; end it by agreement")
        state = self.state.play(move)
        seen = self._counts()
        self.moves.append(move)
        self.states.append(state)
        seen[_digest(state)] += 1
        if not state.is_over and seen[_digest(state)] >= self.variant.history.repetitions:
            self.end("repetition")
        return self.state

    @property
    def at_cap(self) -> bool:
        """Whether the game is at its move cap, still going, with no move to be taken."""
        cap = self.variant.history.move_cap
        return cap is not None and len(self.moves) >= cap and not self.state.is_over

    def end(self, termination: str) -> State:
        """End the game now by the rule for endless play: ``termination`` says why
        ("repetition" or "agreement")."""
        if termination not in TERMINATIONS:
            raise RecordError(f"a game ends by {' or '.join(TERMINATIONS)}, not {termination!r}")
        self._unstopped = self.state
        self.states.replace_last(self.state.stopped())
        self.termination = termination
        return self.state

    def forfeit(self, loser: int, termination: str = "resign", draw: bool = False) -> State:
        """``loser`` loses now (resigns, or runs out of time), the board as it is: the game's
        last position with the other player the winner (``draw``: a draw instead, for a side
        out of time whose opponent could not win, and for an aborted game)."""
        if termination not in FORFEITS:
            raise RecordError(f"a player loses by {' or '.join(FORFEITS)}, not {termination!r}")
        if termination in ("abort", "draw") and not draw:
            raise RecordError(f"a game ended by {termination} has no winner: it is a draw")
        if loser not in (0, 1):
            raise RecordError(f"the player who loses is 0 or 1, not {loser!r}")
        if self.state.is_over:
            raise IllegalMoveError("the game is over")
        board = self.state.board
        board[-1] = DRAW if draw else (WIN_0 if loser == 1 else WIN_1)
        self._unstopped = self.state
        self.states.replace_last(State._after(self.variant, board))
        self.termination = termination
        return self.state

    def _resume(self) -> None:
        """Undo an ``end``: the game goes on from the position it was ended in."""
        if self.termination is not None:
            self.states.replace_last(self._unstopped)
            self._unstopped, self.termination = None, None

    def prefix(self, k: int) -> GameRecord:
        """The game after its first ``k`` moves, sharing the positions already played."""
        view = copy.copy(self)
        view.moves = self.moves[:k]
        view.states = self.states.prefix(k, view.moves)
        if k < len(self.moves):  # only the last state can be one ended by the rule
            view.termination, view._unstopped = None, None
        view._seen = None
        return view

    def __deepcopy__(self, memo: dict) -> GameRecord:
        """An independent copy that shares what never changes: the variant and the states
        (immutable), so copying a record costs its length, not its positions' arrays
        (searches such as OpenSpiel's clone the game at every node)."""
        twin = copy.copy(self)
        twin.moves = list(self.moves)
        twin.states = self.states.prefix(len(self.moves), twin.moves)
        twin._seen = None if self._seen is None else Counter(self._seen)
        return twin

    def pop(self) -> int:
        self._resume()
        self._counts()[_digest(self.states.pop())] -= 1
        return self.moves.pop()

    def truncate(self, k: int) -> None:
        """Keep the first ``k`` moves only (an undo of several moves)."""
        while len(self.moves) > k:
            self.pop()

    def log(self) -> list[str]:
        """The move log in the game's notation, with the result letter once the game is over."""
        names = [self.variant.move_name(s, m) for s, m in zip(self.states, self.moves)]
        if self.state.outcome is not None:
            names.append(self.variant.result_code(self.state.outcome))
        return names

    @property
    def result(self) -> str:
        return self.variant.result_code(self.state.outcome)

    # ----- text --------------------------------------------------------------------
    def to_text(self) -> str:
        def header(key: str, value: object) -> str:
            text = str(value).replace("\\", "\\\\").replace('"', '\\"')
            return f'[{key} "{text}"]'

        lines = [header("Variant", self.variant.name), header("A", self.names[0]),
                 header("B", self.names[1]), header("Date", self.date),
                 header("Result", self.result)]
        if self.termination:
            lines.append(header("Termination", self.termination))
        options = self.variant.non_default_options()
        lines += [header("Option", f"{k}={v}") for k, v in options.items()]
        if self.start != self.variant.start():
            lines.append(header("Start", ",".join(map(str, self.start.cells))))
            lines.append(header("ToMove", self.start.to_move))
            for name, value in self.start.extra.items():  # e.g. hole owners and round
                text = ",".join(map(str, value)) if isinstance(value, list) else value
                lines.append(header(name.capitalize(), text))
        moves = [self.variant.move_name(s, m) for s, m in zip(self.states, self.moves)]
        lines += ["", _wrap(moves + [self.result])]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str, game: int | None = None) -> GameRecord:
        """The game of ``text`` (a record), or its ``game``-th (from 1) when the text holds
        several games one after another (as a tournament's file does): RecordError naming
        their count when the text holds several and ``game`` is not given."""
        chunks = _games_in(text)
        if game is None:
            if len(chunks) > 1:
                raise RecordError(f"the text holds {len(chunks)} games: choose one by its "
                                  "number (1 is the first)")
            game = 1
        if not 1 <= game <= len(chunks):
            raise RecordError(f"there is no game {game}: the text holds {len(chunks)} "
                              f"game{'s' if len(chunks) != 1 else ''}")
        return cls._parse(chunks[game - 1])

    @classmethod
    def all_from_text(cls, text: str) -> list[GameRecord]:
        """Every game of ``text``, in order (one game for a plain record)."""
        return [cls._parse(chunk) for chunk in _games_in(text)]

    @classmethod
    def _parse(cls, lines: list[tuple[int, str]]) -> GameRecord:
        headers: dict[str, tuple[int, str]] = {}
        options: dict[str, str] = {}
        move_lines: list[tuple[int, str]] = []
        for number, line in lines:
            if line.startswith("["):
                match = _HEADER.match(line)
                if not match:
                    raise RecordError(f'line {number}: a header must look like [Key "value"]')
                key, value = match.group(1), re.sub(r"\\(.)", r"\1", match.group(2))
                if key == "Option":
                    name, eq, val = value.partition("=")
                    if not eq:
                        raise RecordError(f'line {number}: an option must be "name=value"')
                    options[name.strip()] = val.strip()
                elif key in headers:
                    raise RecordError(f"line {number}: a second [{key}] header in one game")
                else:
                    headers[key] = (number, value)
            else:
                move_lines.append((number, line))
        return cls._build(headers, options, move_lines)

    @classmethod
    def _build(cls, headers, options, move_lines) -> GameRecord:
        if "Variant" not in headers:
            raise RecordError('line 1: the record has no [Variant "..."] header')
        line, name = headers["Variant"]
        try:
            variant = make_variant(name, **typed_options(options))
        except MancalabError as error:
            raise RecordError(f"line {line}: {error}") from None
        start = variant.start()
        if "Start" in headers:
            line, cells = headers["Start"]
            to_move = headers.get("ToMove", (line, "0"))[1]
            extra = {name: headers[name.capitalize()][1]  # the variant reads the text form
                     for name in variant.extra_names if name.capitalize() in headers}
            try:
                start = variant.state(cells.split(","), whole(to_move), **extra)
            except ValueError as error:
                raise RecordError(f"line {line}: bad start position: {error}") from None
        names = []
        for seat in "AB":
            line, name = headers.get(seat, (0, seat))
            try:
                names.append(check_name(name))
            except MancalabError as error:
                raise RecordError(f"line {line}: {error}") from None
        line, date = headers.get("Date", (0, "?"))
        if not DATE.fullmatch(date):
            raise RecordError(f'line {line}: a date is written "YYYY.MM.DD" (? for a part not '
                              f"known), not {date[:40]!r}")
        record = cls(variant, start, (names[0], names[1]), date=date)
        tokens, result, result_line = _move_tokens(move_lines), None, 0
        if tokens and tokens[-1][1] in RESULTS:  # the last word (a move may be a letter too)
            result_line, result = tokens.pop()
        for line, token in tokens:
            try:
                record.push(variant.parse_move(record.state, token))
            except MancalabError as error:
                if token in RESULTS:
                    raise RecordError(f"line {line}: the result {token!r} is followed by moves "
                                      "(the result is the last word)") from None
                raise RecordError(
                    f"line {line}: move {len(record.moves) + 1} {token!r}: {error}") from None
        if "Termination" in headers:
            line, termination = headers["Termination"]
            if termination not in TERMINATIONS + FORFEITS:
                raise RecordError(f"line {line}: a game ends by "
                                  f"{' or '.join(TERMINATIONS + FORFEITS)}, not "
                                  f"{termination!r}")
            if termination in FORFEITS:
                winner = result or headers.get("Result", (0, None))[1]
                drawn = termination in ("time", "abort", "draw", "adjudication") \
                    and winner == "D"
                if not (winner in ("A", "B") or drawn) or record.state.is_over or \
                        (termination in ("abort", "draw") and not drawn):
                    raise RecordError(f"line {line}: a game lost by {termination} needs the "
                                      "winner as its result (A or B; on time D too; D for an "
                                      "aborted game) and moves that do not end it")
                loser = record.state.to_move if drawn else "AB".index(winner) ^ 1
                record.forfeit(loser, termination, draw=drawn)
            elif record.termination != termination:
                if termination == "repetition" or record.state.is_over:
                    raise RecordError(f"line {line}: the moves do not end the game by "
                                      f"{termination}")
                record.end(termination)
        declared = headers.get("Result", (0, None))[1]
        for claimed, where in ((result, result_line), (declared, headers.get("Result", (0,))[0])):
            if claimed is not None and claimed != record.result:
                raise RecordError(f"line {where}: the result {claimed!r} does not match the "
                                  f"moves, which give {record.result!r}")
        return record

    # ----- files -------------------------------------------------------------------
    def save(self, path: str | os.PathLike) -> None:
        write_atomic(path, self.to_text())

    @classmethod
    def load(cls, path: str | os.PathLike, game: int | None = None) -> GameRecord:
        """The game in file ``path`` (its ``game``-th, from 1, when it holds several)."""
        return cls._from_file(path, lambda text: cls.from_text(text, game))

    @classmethod
    def load_all(cls, path: str | os.PathLike) -> list[GameRecord]:
        """Every game in file ``path``, in order."""
        return cls._from_file(path, cls.all_from_text)

    @classmethod
    def _from_file(cls, path, parse):
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_RECORD_BYTES + 1)
            if len(data) > MAX_RECORD_BYTES:
                raise RecordError(f"{path} is not a game record: it is larger than "
                                  f"{MAX_RECORD_BYTES // 1024} KiB")
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise RecordError(f"cannot read {path}: {error}") from None
        try:
            return parse(text)
        except RecordError as error:
            raise RecordError(f"{path}: {error}") from None


def _games_in(text: str) -> list[list[tuple[int, str]]]:
    """The numbered lines of each game of ``text``: a header after moves begins the next
    game (the blank lines and comments dropped)."""
    games: list[list[tuple[int, str]]] = [[]]
    moved = False
    # split on line feeds only: str.splitlines would also split at U+2028 and the like
    for number, raw in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        header = line.startswith("[")
        if header and moved:
            games.append([])
            moved = False
        moved = moved or not header
        games[-1].append((number, line))
    return games if games[0] else [[]]


def contents(text: str) -> list[dict]:
    """What each game of ``text`` is, from its headers alone (nothing is played): its number
    (from 1), variant, names, result and count of moves, for choosing one."""
    found = []
    for number, chunk in enumerate(_games_in(text), start=1):
        headers = {}
        for _, line in chunk:
            match = _HEADER.match(line)
            if match:
                headers.setdefault(match.group(1), re.sub(r"\\(.)", r"\1", match.group(2)))
        moves = _move_tokens([(number, line) for number, line in chunk
                              if not line.startswith("[")])
        if moves and moves[-1][1] in RESULTS:
            moves.pop()
        found.append({"number": number, "game": headers.get("Variant", "?"),
                      "names": [headers.get("A", "A"), headers.get("B", "B")],
                      "result": headers.get("Result", "*"), "moves": len(moves)})
    return found


def moves_at_most(text: str, game: int | None = None) -> int:
    """At most how many moves the ``game``-th game of ``text`` holds (all its games' when
    None): the words of its move lines, counted before anything is played."""
    chunks = _games_in(text)
    if game is not None:
        chunks = chunks[game - 1: game]
    return sum(len(line.split()) for chunk in chunks for _, line in chunk
               if not line.startswith("["))


def typed_options(options: dict[str, str]) -> dict[str, object]:
    """Option values from text: integers and booleans where they look like them."""
    typed: dict[str, object] = {}
    for key, value in options.items():
        if re.fullmatch(r"-?\d+", value):
            typed[key] = int(value)
        elif value.lower() in ("true", "false"):
            typed[key] = value.lower() == "true"
        else:
            typed[key] = value
    return typed


def _wrap(tokens: list[str], width: int = 79) -> str:
    lines, current = [], ""
    for token in tokens:
        if current and len(current) + 1 + len(token) > width:
            lines.append(current)
            current = token
        else:
            current = f"{current} {token}" if current else token
    lines.append(current)
    return "\n".join(lines)


def write_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` whole or not at all: a temporary file in the same folder, then rename."""
    write_atomic_bytes(path, text.encode("utf-8"))


def write_atomic_bytes(path: str | os.PathLike, data: bytes) -> None:
    with atomic_file(path) as handle:
        handle.write(data)


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike):
    """A binary file to write ``path`` through, whole or not at all: a temporary file in the
    same folder, renamed over ``path`` when the block ends without an error."""
    target = _regular_target(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual permissions
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _regular_target(path: str | os.PathLike) -> Path:
    """The file that writing ``path`` replaces: a symbolic link's target (written through,
    the link kept); OSError for a folder, a device or another special file, which a write
    must never replace with a regular file."""
    target = Path(os.path.realpath(path))
    if target.exists():
        if target.is_dir():
            raise IsADirectoryError(21, "it is a folder", str(path))
        if not target.is_file():
            raise OSError(22, "it is not a regular file (a device, pipe or socket)", str(path))
    return target


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_writable(path: str | os.PathLike) -> None:
    """Raise OSError now if ``path`` could not be written later (before long work starts)."""
    target = _regular_target(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    os.close(fd)
    os.unlink(tmp)
