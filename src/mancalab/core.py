"""The shared model of every game: State, Outcome, the Variant base class and the errors.

A game's rules live in numba-compiled kernels (see ``mancalab.variants``). They work on a
*board*: a flat int64 array holding the spec's ``cells`` followed by any extra state the game
needs, then two slots every game has, ``board[-2]`` (the player to move) and ``board[-1]``
(the status, one of the ``STATUS_*`` codes below). A ``State`` wraps an immutable copy of a
board; the players and the analysis call the kernels on raw boards directly.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple

import numpy as np

from . import movemask
from .params import game_params
from .sowing import Step, new_trace, read_trace

# Status codes stored in board[-1]; numba treats these module globals as constants.
ONGOING = 0
WIN_0 = 1
WIN_1 = 2
DRAW = 3
TIMEOUT = 4

MAX_MOVES = 64  # an upper bound on the legal moves of any position of any game
# the searches value a position in eighths of a seed: a game's positional terms (the board's
# shape, ``Kernels.positional``) are fractions of a seed
POSITION_UNIT = 8


class MancalabError(ValueError):
    """Base class of every error mancalab raises on bad input: the command line exits with 2,
    a server answers ``status`` (a 4xx), and nothing is changed."""

    status = 400


class MancalabFailure(RuntimeError):
    """Base class of the errors that are not the input's fault: an engine that crashed, memory
    or a server's capacity run out. The command line exits with 1, a server answers
    ``status`` (a 5xx, or 429 for a queue that is full now)."""

    status = 503


class IllegalMoveError(MancalabError):
    """A move that the rules do not allow in this position."""


class InvalidPositionError(MancalabError):
    """A position that cannot occur: wrong length, negative counts, counters that do not add up."""


class UnknownOptionError(MancalabError):
    """An unknown game, player or option name, or an option value out of range."""


class Outcome(NamedTuple):
    """How a game ended. ``score`` is a pair in player order (player 0, player 1)."""

    kind: str  # "win" | "draw" | "timeout"
    winner: int | None
    score: tuple[int, int]


class Kernels(NamedTuple):
    """The compiled rules of one game, all with ``params`` (an int64 option array) first.

    - ``legal_mask(params, board) -> uint64`` the legal moves, bit ``c`` for the move from
      cell ``c`` (see ``mancalab.movemask``); 0 once the game is over;
    - ``play(params, board, move, trace=None)`` plays a legal move in place, noting every
      change of a cell in ``trace`` when one is given (``mancalab.sowing``);
    - ``score(params, board, player) -> int`` that player's score;
    - ``settle(params, board)`` applies the end rule to a position given directly;
    - ``material(params, board, player) -> int`` what players weigh short of the game's end,
      where that is not the score (``mancalab.kernels.material``); None: the score;
    - ``step(params, board, move) -> uint64`` (optional) ``play`` then ``legal_mask``: a step
      from Python in one compiled call;
    - ``stop(params, board)`` ends an ongoing game now by the game's rule for endless play
      (each player banks what the game's own end rule gives them from their side; the rule is
      stated on each game's doc page). The drivers apply it on a third repetition or when the
      players agree (``mancalab.records.GameRecord``); the kernels' own play never calls it.
    - ``positional(params, board) -> int`` (optional) the board's shape for the player to
      move, in ``POSITION_UNIT``s of a seed, which the searches add to the material;
    - ``pack_key(params, board, keys, k) -> int`` and ``unpack_key(params, keys, k, board)``
      (optional) the game's own packing of a position into the words of ``keys[k]`` for the
      tree statistics (1 packed, 0 does not fit; unpacked with status ONGOING), where packing
      field by field (``Variant.key_widths``) would take more words;
    - ``table_bounds(params, board, low, high, binom) -> (in reach, least, greatest)``
      (optional) bounds on the final margin of the player to move from the game's endgame
      tables (Oware's), whose signs the search cuts off or settles at (``search``).

    Shared compiled code reaches a game's kernels only through ``mancalab.kernels`` (never by
    importing the game's module): a game's edit then recompiles that game's code only
    (``mancalab._cache``).
    """

    legal_mask: Callable
    play: Callable
    score: Callable
    settle: Callable
    material: Callable | None = None
    stop: Callable | None = None
    step: Callable | None = None
    positional: Callable | None = None
    pack_key: Callable | None = None
    unpack_key: Callable | None = None
    table_bounds: Callable | None = None


LARGEST = 10**9  # no option or count mancalab takes is larger; beyond it a typo or an attack


class OptionValueError(ValueError):
    """A converter's refusal that says why (a float for a whole number, an infinite time)."""


def whole(value: Any) -> int:
    """A whole number option, strictly: an int or its text, not a bool or a float (3.7 is
    refused, not rounded), at most ``LARGEST`` in size."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, str)):
        raise OptionValueError(f"{value!r} is not a whole number")
    if isinstance(value, str) and not re.fullmatch(r"\s*[-+]?\d{1,12}\s*", value):
        raise OptionValueError(f"{value!r} is not a whole number")
    number = int(value)
    if abs(number) > LARGEST:
        raise OptionValueError(f"{number} is too large (at most {LARGEST:,})")
    return number


def real(value: Any) -> float:
    """A number option (seconds, a constant): an int, a float or its text; finite, at most
    ``LARGEST`` in size; not a bool."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating,
                                                         str)):
        raise OptionValueError(f"{value!r} is not a number")
    if isinstance(value, str) and len(value) > 40:
        raise OptionValueError(f"{value[:20]!r}... is not a number")
    number = float(value)
    if not math.isfinite(number) or abs(number) > LARGEST:
        raise OptionValueError(f"{value!r} is not a finite number of at most {LARGEST:,}")
    return number


class Option(NamedTuple):
    """One game option: its default, a converter and a check with a message; what a form
    shows for it (``choices``, a whole number's ``low`` and ``high``) when the check has that
    shape."""

    default: Any
    convert: Callable[[Any], Any]
    check: Callable[[Any], bool]
    rule: str  # what a valid value is, for the error message
    choices: tuple = ()
    low: int | None = None
    high: int | None = None


def choice(default: str, values: tuple[str, ...], rule: str | None = None) -> Option:
    """An option that takes one of ``values`` (words)."""
    return Option(default, str, lambda v: v in values, rule or " or ".join(values),
                  choices=tuple(values))


def whole_range(default: int, low: int, high: int, rule: str) -> Option:
    """A whole number option in ``low..high``."""
    return Option(default, whole, lambda v: low <= v <= high, rule, low=low, high=high)


def resolve_options(owner: str, specs: dict[str, Option], given: dict[str, Any]) -> dict[str, Any]:
    """Check ``given`` against ``specs``; every option resolved, or UnknownOptionError."""
    unknown = sorted(map(str, set(given) - set(specs)))
    if unknown:
        known = ", ".join(sorted(specs)) or "none"
        raise UnknownOptionError(
            f"unknown option {_short(unknown[0])} for {owner} (options: {known})")
    resolved = {}
    for key, spec in specs.items():
        value = given.get(key, spec.default)
        why = ""
        try:
            value = spec.convert(value)
            ok = spec.check(value)
        except OptionValueError as error:
            ok, why = False, f" ({error})"
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            shown = _short(given.get(key))
            raise UnknownOptionError(
                f"bad value {shown} for option {key!r} of {owner}: {spec.rule}{why}")
        resolved[key] = value
    return resolved


def _short(value: Any, width: int = 40) -> str:
    """``repr(value)`` cut to ``width`` characters, for messages about huge input."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


@dataclass(frozen=True)
class History:
    """The rules the kernels do not hold, since they look at the game's history
    (``mancalab.records`` keeps them)."""

    # the time a position occurs that ends the game by the rule for endless play
    # (``Kernels.stop``), and the moves after which no move is taken (None: no cap)
    repetitions: int = 3
    move_cap: int | None = None
    # whether a position can occur twice in a game (compiled random play counts positions
    # only where it can: ``kernels.repetitions_of``)
    recurs: bool = True
    # the end by repetition is the game's own rule (Oware: OpenSpiel ends it at the first
    # recurrence), not only the record's for endless play: the tree statistics then walk
    # paths to apply it (``analysis.stats.tree_paths``)
    repetition_is_a_rule: bool = False


@dataclass(frozen=True)
class Solving:
    """How exact values are found (``mancalab.analysis.solving``), as plain data of the
    game's default board.

    ``method``: "search" (a search over endgame databases: Kalah), "retrograde" (positions
    can repeat: a graph of positions), "forced" (every bead stays in play: a search for
    forced ends); None: no exact solver, for the reason in ``not_solved``. ``graph_layout``:
    where the pits are for the graph solver and exact random play ("slots": player 0's pit
    cells then player 1's, at most six a side; "unit": seeds a point of value takes at most;
    "step": the seed counts that occur; "margin_step": final margins differ by it;
    "acyclic": no position comes round again). ``on_demand_seeds``: the database a first
    exact solve builds; ``book_seeds``: the database under the start's book (None: no
    book); ``preparation``: what a server builds once for exact play, as (kind, seeds,
    seconds, memory MB, disk MB) with kind "database", "start" or "book", measured on the
    reference machine (``mancalab.analysis.solving.preparation``)."""

    method: str | None = None
    not_solved: str = "not built yet"
    graph_layout: dict | None = None
    on_demand_seeds: int | None = None
    book_seeds: int | None = None
    preparation: tuple[tuple, ...] = ()


@dataclass(frozen=True)
class Teaching:
    """What is taught and who plays (``mancalab.analysis.teach``, ``mancalab.players``).

    ``lessons``: the kinds of move the game's lessons teach, in order. ``levels``: the
    player spec of each level where the arena ordered this game's players otherwise than
    ``mancalab.players.LEVELS``. ``puzzles``: "best" (one move clearly best, proven by the
    solver, from positions of at most ``puzzle_seeds`` seeds in play), "win" (proven by
    Oware's endgame tables), "wipeout" (the move that takes every bead at once) or
    "capture" (the one move that captures clearly the most this turn, for a game without a
    solver); None: no puzzles. ``review_bands``: the most a move may give away (in the
    score's units) and still be "good", an "inaccuracy", a "mistake"; more is a blunder
    (``mancalab.analysis.teach.review``)."""

    lessons: tuple[str, ...] = ("sow",)
    levels: dict[str, str] = field(default_factory=dict)
    puzzles: str | None = None
    puzzle_seeds: int | None = None
    review_bands: tuple[float, float, float] = (1, 3, 6)


@dataclass(frozen=True)
class Texts:
    """What people read about the game besides its title: what the score counts ("families"),
    what a person types at the prompt, and for a game with a setting step before play
    (Urubugu's free arrangement) the question the terminal asks and its help."""

    score_noun: str = "points"
    move_hint: str = "a move"
    setting_question: str = ""
    setting_help: str = ""


# where each fact of a game that is not its rules' kernels is given (``Variant``'s records)
_GROUPED = {**{name: "history" for name in ("repetitions", "move_cap", "recurs",
                                            "repetition_is_a_rule")},
            **{name: "texts" for name in ("score_noun", "move_hint", "setting_question",
                                          "setting_help")},
            **{name: "solving" for name in ("solver", "not_solved", "graph_layout",
                                            "on_demand_seeds", "book_seeds", "preparation")},
            **{name: "teaching" for name in ("lessons", "levels", "puzzles", "puzzle_seeds",
                                             "review_bands")}}


class Variant:
    """A game with its options. Subclasses give the layout, the kernels and the notation."""

    name: str = ""
    title: str = ""
    n_cells: int = 0
    n_extra: int = 0  # variant-specific board slots between cells and (to_move, status)
    extra_names: tuple[str, ...] = ()  # the keywords of that extra state, for state()
    max_moves: int = MAX_MOVES  # the most legal moves any position of this game can have
    option_specs: dict[str, Option] = {}
    kernels: Kernels
    # The game's facts beyond its rules' kernels, by who reads them: a record each (a game
    # whose options change one replaces its record in ``__init__``, ``dataclasses.replace``)
    history: History = History()
    solving: Solving = Solving()
    teaching: Teaching = Teaching()
    texts: Texts = Texts()
    # Option sets the tests over every game play besides the defaults: the rules that differ
    # most from them, so that one property test covers each rule switch.
    examples: tuple[dict, ...] = ()

    def __init__(self, **options: Any) -> None:
        self.options = self._resolve_options(options)
        self.params = game_params(self.make_params())

    def _resolve_options(self, given: dict[str, Any]) -> dict[str, Any]:
        return resolve_options(f"the game {self.name}", self.option_specs, given)

    @property
    def board_size(self) -> int:
        """Kernel board length: cells, extra state, then to_move and status."""
        return self.n_cells + self.n_extra + 2

    def make_params(self) -> np.ndarray:
        """The int64 array of options that the kernels read."""
        return np.zeros(1, dtype=np.int64)

    def key_widths(self) -> list[int]:
        """Bits for each board slot but the status, to pack a position into machine words."""
        raise NotImplementedError

    # Words of a position key when the game packs its positions itself (Gebeta: one word,
    # see its pack_key), else None: field by field, as key_widths says.
    key_words: int | None = None

    def non_default_options(self) -> dict[str, Any]:
        return {k: v for k, v in self.options.items() if v != self.option_specs[k].default}

    @property
    def key(self) -> tuple:
        """The game and its options (kept after the first use: every State holds it)."""
        key = self.__dict__.get("_key")
        if key is None:
            key = self._key = (self.name, tuple(sorted(self.options.items())))
        return key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Variant) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.non_default_options().items())
        return f"mancalab.variant({self.name!r}{', ' + opts if opts else ''})"

    # ----- positions ---------------------------------------------------------------
    def start_cells(self) -> list[int]:
        raise NotImplementedError

    # A setting step before the game (Urubugu's free arrangement of the beads): each player
    # may arrange their counters (``check_setting``) and ``start`` takes the settings; the
    # terminal asks ``texts.setting_question`` and explains with ``texts.setting_help``.
    has_setting: bool = False

    def check_setting(self, setting: Any, player: int) -> list[int]:
        """``player``'s setting checked (the games with a setting step)."""
        raise UnknownOptionError(f"{self.title} has no setting step before the game")

    def start(self, setting_a: Any = None, setting_b: Any = None) -> State:
        """The start position, player 0 to move (with the players' settings, for a game with
        a setting step)."""
        if setting_a is None and setting_b is None:  # kept: a state never changes
            start = self.__dict__.get("_start")
            if start is None:
                start = self._start = self.state(self.start_cells(), to_move=0)
            return start
        for player, setting in ((0, setting_a), (1, setting_b)):
            if setting is not None:
                self.check_setting(setting, player)
        return self.state(self.start_cells(), to_move=0)

    def layout_state(self) -> State:
        """The start's cells as a state, without the compiled rules (a game whose start is
        played, as 3-row Gabata's race, is not played here): for drawings and layouts."""
        return State(self, self._board(self.start_cells(), 0, {}))

    def from_fen(self, text: str) -> State:
        """The position of a position string (``mancalab.fen``; ``State.fen`` writes it)."""
        from . import fen

        return fen.read(self, text)

    def picture(self) -> dict:
        """The start as a picture (cells, grid, owners, labels): laid out from the start's
        cells alone, without the compiled rules, so that a page can show it before they are
        ready (a game whose start is played, as 3-row Gabata's race, shows it before)."""
        start = self.layout_state()
        cells = range(self.n_cells)
        return {"cells": list(start.cells), "grid": self.grid(start),
                "owners": [self.cell_owner(start, i) for i in cells],
                "labels": [[self.cell_label(start, seat, i) for i in cells] for seat in (0, 1)]}

    def state(self, cells: Any, to_move: int = 0, **extra: Any) -> State:
        """Any position in the spec's cell layout; checked, and settled if already over.

        Games whose state carries more than cells (see ``extra_names``) take it as keywords.
        """
        board = self._board(cells, to_move, extra)
        self.kernels.settle(self.params, board)
        return State(self, board)

    def _board(self, cells: Any, to_move: int, extra: dict[str, Any]) -> np.ndarray:
        """A checked kernel board for ``cells``, ``to_move`` and the extra state."""
        try:
            cells = [whole(c) for c in cells]
        except (TypeError, ValueError):
            raise InvalidPositionError(
                f"cells must be a list of whole numbers, got {_short(cells)}") from None
        if len(cells) != self.n_cells:
            raise InvalidPositionError(
                f"{self.name} has {self.n_cells} cells, got {len(cells)}")
        negative = [i for i, c in enumerate(cells) if c < 0]
        if negative:
            raise InvalidPositionError(f"cell {negative[0]} holds a negative count")
        if isinstance(to_move, bool) or to_move not in (0, 1):
            raise InvalidPositionError(f"to_move must be 0 or 1, got {_short(to_move)}")
        unknown = sorted(set(extra) - set(self.extra_names))
        if unknown:
            known = ", ".join(self.extra_names) or "none"
            raise InvalidPositionError(
                f"{self.name} positions have no {unknown[0]!r} (extra state: {known})")
        self.check_cells(cells)
        board = np.zeros(self.board_size, dtype=np.int64)
        board[: self.n_cells] = cells
        board[self.n_cells: self.n_cells + self.n_extra] = self.extra_slots(extra)
        board[-2] = to_move
        return board

    def extra_slots(self, extra: dict[str, Any]) -> list[int]:
        """The board slots after the cells, from the keywords named in ``extra_names``."""
        return []

    def extra_of(self, board: np.ndarray) -> dict[str, Any]:
        """The extra state of a board, as keywords ``state()`` accepts."""
        return {}

    def check_cells(self, cells: list[int]) -> None:
        """Raise InvalidPositionError when the counters do not add up."""

    # ----- kernels from Python -----------------------------------------------------
    _step_entry = _mask_entry = None  # compiled(): the kernels a state calls, found once
    _moves_of: dict | None = None  # legal-move masks seen, their moves (State.legal_moves)
    _start_stack = None  # a Board's stack at the start (mancalab.board), copied for each new one

    def compiled(self, kernel: str):
        """The game's compiled ``kernel`` (``"step"`` or ``"legal_mask"``) for a state's own
        calls: ``(params.array, board[, move])`` with a board of the state's kind (int64,
        contiguous, writable) and a Python int, called without numba's dispatch on the
        arguments' types (about half of a step from Python). Any other argument is unsafe.
        The params go as their plain (read-only) array: a game's own kernel needs no type of
        its game, and unboxing the array alone took a third less of the call. Found once a
        process for each game."""
        from numba import typeof

        dispatcher = getattr(self.kernels, kernel)
        entry = _ENTRIES.get(dispatcher)
        if entry is None:
            board = np.zeros(self.board_size, dtype=np.int64)
            params = self.params.array
            args = (params, board) if kernel == "legal_mask" else (params, board, 0)
            entry = _ENTRIES[dispatcher] = dispatcher.compile(tuple(map(typeof, args)))
        setattr(self, "_mask_entry" if kernel == "legal_mask" else "_step_entry", entry)
        return entry

    def moves_of_mask_kept(self, mask: int) -> list[int]:
        """``moves_of_mask``, kept for the masks seen (a step from Python asks often)."""
        kept = self._moves_of
        if kept is None or len(kept) >= MOVE_LISTS_KEPT:
            kept = self._moves_of = {}
        moves = kept[mask] = tuple(self.moves_of_mask(mask))
        return list(moves)

    def legal_moves_of(self, board: np.ndarray) -> list[int]:
        """The legal moves in the game's move order (cell order unless the game says)."""
        return self.moves_of_mask(self.kernels.legal_mask(self.params, board))

    def moves_of_mask(self, mask: int) -> list[int]:
        """The moves of a legal-move mask in the game's move order."""
        moves = movemask.to_list(mask)
        if type(self).move_rank is Variant.move_rank:  # cell order already
            return moves
        return sorted(moves, key=self.move_rank)

    def move_rank(self, cell: int) -> int:
        """Where a move comes in the game's list of moves (Urubugu lists them by hole)."""
        return cell

    def outcome_of(self, board: np.ndarray) -> Outcome | None:
        status = int(board[-1])
        if status == ONGOING:
            return None
        score = self.score_of(board)
        if status == TIMEOUT:
            return Outcome("timeout", None, score)
        if status == DRAW:
            return Outcome("draw", None, score)
        return Outcome("win", 0 if status == WIN_0 else 1, score)

    def score_of(self, board: np.ndarray) -> tuple[int, int]:
        score = self.kernels.score
        return int(score(self.params, board, 0)), int(score(self.params, board, 1))

    def material_of(self, board: np.ndarray) -> tuple[int, int]:
        material = self.kernels.material or self.kernels.score
        return int(material(self.params, board, 0)), int(material(self.params, board, 1))

    # ----- the board from either seat (environments: mancalab.rl, mancalab.openspiel) ------
    # False where a rule favours a seat (3-row Gabata's race and reload): there an
    # observation must say which seat the mover has.
    seat_symmetric: bool = True

    def turn_cells(self) -> list[int]:
        """The board turned by 180 degrees: player 1 sees at cell ``turn[i]`` what player 0
        sees at cell ``i``. The rules look the same from either seat (a property test plays
        positions and their turned copies side by side)."""
        raise NotImplementedError

    def action_cells(self, player: int) -> list[int]:
        """The cell of each action 0, 1, ... of ``player``: their holes in one order for both
        seats, so that an action means the same from either side (``turn_cells``)."""
        raise NotImplementedError

    def turned(self, board: np.ndarray) -> np.ndarray:
        """``board`` as the other seat sees it: cells turned, the players swapped."""
        turn = np.asarray(self.turn_cells())
        out = board.copy()
        out[turn] = board[: self.n_cells]
        self.turn_extra(board, out)
        out[-2] = 1 - board[-2]
        out[-1] = {WIN_0: WIN_1, WIN_1: WIN_0}.get(int(board[-1]), int(board[-1]))
        return out

    def turn_extra(self, board: np.ndarray, out: np.ndarray) -> None:
        """Turn the extra state of ``board`` into ``out`` (games that carry it)."""

    def observation(self, board: np.ndarray, player: int | None = None) -> np.ndarray:
        """The position as ``player`` (default: the one to move) sees it, as numbers for a
        learner: the cells (and extra state) of the board turned to their seat, then their
        seat where the rules are not the same from both (``seat_symmetric``)."""
        player = int(board[-2]) if player is None else player
        seen = self.turned(board) if player == 1 else board
        features = list(seen[: self.n_cells + self.n_extra])
        if not self.seat_symmetric:
            features.append(player)
        return np.array(features, dtype=np.int64)

    def observation_high(self) -> list[int]:
        """The largest value of each observation feature (all are >= 0)."""
        total = sum(self.start_cells())
        return [total] * self.n_cells + [1] * (not self.seat_symmetric)

    # ----- drawing (mancalab.draw) -----------------------------------------------
    # the option whose value says how a race decides who moves first (3-row Gabata: the
    # start shows the board after it), and its value for no race; None: no race
    race_option: str | None = None
    no_race: str = "none"

    def fair_starts(self) -> list[dict[str, Any]]:
        """Options of start positions known to be fair under these rules (Kalah's fair
        boards), which the arena's balanced openings and the tournament play from; none by
        default (the arena then plays the game's shipped balanced openings)."""
        return []

    def random_starts(self) -> list[dict[str, Any]]:
        """Options of the starts the arena's random openings draw from instead of random moves
        (Kalah(6,4): the FairKalah boards, as the FairKalah competitions play); none by
        default."""
        return []

    def can_win(self, state: State, player: int) -> bool:
        """Whether ``player`` could still win from ``state`` by some play: a side whose time
        runs out loses, but draws when the other could not win. Default: yes (a game says
        otherwise where its score makes it plain)."""
        return True

    def grid(self, state: State) -> list[list[int | None]]:
        """The board's rows top to bottom as seen from player 0's seat: cell indices, None
        for a blank. Player 1 sees it turned by 180 degrees."""
        raise NotImplementedError

    def score_cells(self) -> tuple[int, int] | None:
        """The cells that hold player 0's and player 1's score (stores, Gebeta's families),
        or None where the score is counted on the board (Urubugu). By default the two
        cells no player names, one owned by each."""
        state = self.layout_state()
        unnamed = [i for i in range(self.n_cells)
                   if all(self.cell_label(state, seat, i) is None for seat in (0, 1))]
        owners = [self.cell_owner(state, i) for i in unnamed]
        if sorted(owners) != [0, 1]:
            return None
        return tuple(cell for _, cell in sorted(zip(owners, unnamed)))

    def cell_owner(self, state: State, index: int) -> int | None:
        """Who owns cell ``index`` (for its colour)."""
        raise NotImplementedError

    def cell_label(self, state: State, viewer: int, index: int) -> str | None:
        """The notation ``viewer`` uses for cell ``index``, or None if they do not name it."""
        raise NotImplementedError

    def status_text(self, state: State) -> str | None:
        """A line of game state beyond the score (e.g. the round), or None."""
        return None

    # ----- notation ----------------------------------------------------------------
    def move_name(self, state: State, move: int) -> str:
        """``move`` (a hole's cell) in the game's notation. A game defines it for its holes;
        the check that ``move`` is one (``check_hole``) is added to every game's own."""
        raise NotImplementedError

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in cls.__dict__.keys() & _GROUPED:  # a game written for the flat facts
            group = _GROUPED[name]
            raise TypeError(f"{cls.__name__}.{name}: a game gives it in its record "
                            f"{group} = {type(getattr(Variant, group)).__name__}({name}=...)")
        own = cls.__dict__.get("move_name")
        if own is not None:  # every game's notation refuses what is no hole, the same way
            def move_name(self, state: State, move: int, _own=own) -> str:
                self.check_hole(move)
                return _own(self, state, move)

            move_name.__doc__ = own.__doc__ or Variant.move_name.__doc__
            cls.move_name = move_name

    def check_hole(self, move: object) -> None:
        """IllegalMoveError (a ValueError) naming ``move`` unless it is a hole's cell: a whole
        number in ``0..n_cells - 1`` that holds no score (a store, Gebeta's families)."""
        scores = self.__dict__.get("_score_cells")
        if scores is None:  # worked out once a game and its options (a server makes a
            scores = _SCORE_CELLS.get(self.key)  # variant for each game it loads)
            if scores is None:  # the labels it reads may name holes: no stores meanwhile
                self._score_cells = frozenset()
                if len(_SCORE_CELLS) >= _SCORE_CELLS_KEPT:  # options without end: bounded
                    _SCORE_CELLS.clear()
                scores = _SCORE_CELLS[self.key] = frozenset(self.score_cells() or ())
            self._score_cells = scores
        if type(move) is int and 0 <= move < self.n_cells and move not in scores:
            return  # the common case, at once
        if isinstance(move, bool) or not isinstance(move, (int, np.integer)) \
                or not 0 <= move < self.n_cells or int(move) in scores:
            raise IllegalMoveError(f"{move!r} is no hole of this board: a move is a hole's "
                                   f"cell in 0..{self.n_cells - 1}"
                                   + (f", not a store ({', '.join(map(str, sorted(scores)))})"
                                      if scores else ""))

    def parse_move(self, state: State, text: str) -> int:
        raise NotImplementedError

    def result_code(self, outcome: Outcome | None) -> str:
        """One letter for the record and the log: A or B (winner), D (draw), T (timeout)."""
        if outcome is None:
            return "*"
        if outcome.kind == "win":
            return "AB"[outcome.winner]
        return "D" if outcome.kind == "draw" else "T"


_ENTRIES: dict = {}  # a game's kernel -> its compiled entry (Variant.compiled)
MOVE_LISTS_KEPT = 1 << 14  # a variant's masks whose moves it keeps (Variant.moves_of_mask_kept)
_SCORE_CELLS: dict = {}  # a variant's key -> the cells that hold no hole (Variant.check_hole)
_SCORE_CELLS_KEPT = 4096


_new = object.__new__


class State:
    """An immutable, hashable position of one variant."""

    __slots__ = ("variant", "_writable", "_view", "_ident", "_mask")

    def __init__(self, variant: Variant, board: np.ndarray) -> None:
        self._own(variant, np.array(board, dtype=np.int64))

    def _own(self, variant: Variant, board: np.ndarray) -> None:
        """Take ``board`` (a fresh int64 array no one else holds) as this state's, handed to
        the kernels as it is (``_writable``, never changed: a read-only array is another type
        to numba, and every kernel Python calls would be compiled twice). What a step from
        Python does not need is made when first asked: the read-only view (``_board``), the
        key (``_key``) and the legal moves' mask (``_legal_mask``)."""
        self.variant = variant
        self._writable = board
        self._view = self._ident = self._mask = None

    @property
    def _board(self) -> np.ndarray:
        """The board, read-only (for code that must not change it)."""
        if self._view is None:
            view = self._writable.view()
            view.setflags(write=False)
            self._view = view
        return self._view

    @property
    def _key(self) -> tuple:
        """The game and the whole board: equality and hashing."""
        if self._ident is None:
            self._ident = (self.variant.key, self._writable.tobytes())
        return self._ident

    def _legal_mask(self) -> int:
        """The legal moves as a mask (``mancalab.movemask``), asked of the rules once."""
        if self._mask is None:
            variant = self.variant
            entry = variant._mask_entry or variant.compiled("legal_mask")
            self._mask = entry(variant.params.array, self._writable)
        return self._mask

    @classmethod
    def _after(cls, variant: Variant, board: np.ndarray) -> State:
        """A state of a board the caller made and lets go of (no copy)."""
        state = cls.__new__(cls)
        state._own(variant, board)
        return state

    @property
    def board(self) -> np.ndarray:
        """A writable copy of the kernel board (cells, extra state, to_move, status)."""
        return self._writable.copy()

    @property
    def cells(self) -> tuple[int, ...]:
        return tuple(int(c) for c in self._writable[: self.variant.n_cells])

    @property
    def to_move(self) -> int:
        return int(self._writable[-2])

    @property
    def outcome(self) -> Outcome | None:
        return self.variant.outcome_of(self._writable)

    @property
    def score(self) -> tuple[int, int]:
        """The score so far in player order (families, or seeds in store)."""
        return self.variant.score_of(self._writable)

    @property
    def material(self) -> tuple[int, int]:
        """What each player has short of the game's end, in player order: the score, except in
        3-row Gabata, where it is the seeds held (store plus own holes), as the stores are
        emptied at every reload. Players and the arena weigh positions by it."""
        return self.variant.material_of(self._writable)

    @property
    def extra(self) -> dict[str, Any]:
        """State beyond cells, for games that carry it (e.g. hole owners and round)."""
        return self.variant.extra_of(self._board)

    @property
    def is_over(self) -> bool:
        return int(self._writable[-1]) != ONGOING

    def legal_moves(self) -> list[int]:
        mask = self._mask
        if mask is None:
            mask = self._legal_mask()
        kept = self.variant._moves_of
        moves = None if kept is None else kept.get(mask)
        if moves is None:
            return self.variant.moves_of_mask_kept(mask)
        return list(moves)

    def stopped(self) -> State:
        """This position ended now by the game's rule for endless play (``Kernels.stop``)."""
        if self.is_over:
            raise IllegalMoveError("the game is over")
        if self.variant.kernels.stop is None:
            raise IllegalMoveError(f"{self.variant.name} has no rule for endless play")
        board = self.board
        self.variant.kernels.stop(self.variant.params, board)
        return State._after(self.variant, board)

    def play(self, move: int) -> State:
        """The state after ``move``; raises IllegalMoveError and leaves this state unchanged."""
        mask = self._mask  # the check of _check_legal's common case, written out
        if not (type(move) is int and mask is not None and 0 <= move < 64 and mask >> move & 1):
            self._check_legal(move)
            move = int(move)
        variant, board = self.variant, self._writable.copy()
        entry = variant._step_entry
        if entry is None:
            if variant.kernels.step is None:
                variant.kernels.play(variant.params, board, move)
                return State._after(variant, board)
            entry = variant.compiled("step")
        after = _new(State)  # State._after, written out: a step's cost is its calls
        after.variant, after._writable, after._view, after._ident = variant, board, None, None
        after._mask = entry(variant.params.array, board, move)  # its legal moves, at once
        return after

    def sowing(self, move: int, limit: int = 100_000) -> list[Step] | None:
        """``move`` step by step, as the rules play it: every lift, seed dropped, capture and
        store change (``mancalab.sowing.Step``), so a move can be animated or explained.
        None if it takes more than ``limit`` steps (a relay can go on for thousands)."""
        self._check_legal(move)
        trace = new_trace(limit)
        self.variant.kernels.play(self.variant.params, self.board, int(move), trace)
        return read_trace(trace, self.variant.n_cells)

    def _check_legal(self, move: int) -> None:
        mask = self._mask
        if type(move) is int and mask is not None and 0 <= move < 64 and mask >> move & 1:
            return  # the common case, at once
        if not (isinstance(move, (int, np.integer)) and not isinstance(move, bool)
                and 0 <= move < 64 and self._legal_mask() >> int(move) & 1):
            legal = self.legal_moves()
            if self.is_over:
                raise IllegalMoveError(f"the game is over; no move {move!r} can be played")
            if isinstance(move, (int, np.integer)) and not isinstance(move, bool) \
                    and 0 <= move < self.variant.n_cells and self._board[move] == 0:
                raise IllegalMoveError(f"move {move} is an empty hole (legal: {legal})")
            raise IllegalMoveError(f"move {move!r} is not legal here (legal: {legal})")

    def move_name(self, move: int) -> str:
        """``move`` (a hole's cell) in the game's notation, played or not; IllegalMoveError
        for what is no hole of the board."""
        return self.variant.move_name(self, int(move) if isinstance(move, np.integer)
                                      else move)

    def parse_move(self, text: str) -> int:
        return self.variant.parse_move(self, text)

    def fen(self, move_number: int = 1) -> str:
        """This position as a position string (``mancalab.fen``), e.g. Oware's start
        ``4S,4S,4S,4S,4S,4S/4S,4S,4S,4S,4S,4S 0 0 S 1``; ``Variant.from_fen`` reads it."""
        from . import fen

        return fen.write(self, move_number)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"<{self.variant.name} State cells={list(self.cells)} to_move={self.to_move}>"

    # ``_repr_html_``, the board in a notebook as the browser draws it, is
    # ``mancalab.draw.html.notebook_html``, attached by the package: the drawing sits above
    # the rules, which do not import it.
