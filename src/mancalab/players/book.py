"""Opening books: positions from a game's start with the move to play there, built by
self-play with drop-out expansion (Lincke, 2001) and shipped as text
(``mancalab/data/books/GAME.txt``), so the alpha-beta player answers the opening at once with
moves searched deeper than its time a move allows.

The book is a tree grown from the start. Each leaf is valued by an alpha-beta search to a
fixed depth; an inner position takes the best of its children's values (negamax). The next
leaf to expand is the one whose line from the start costs least: a penalty a move
(``DEPTH_PENALTY`` seeds), plus, at each move of the line, how much worse that move is than
the best there. Lines where neither side errs grow deep, lines a side would only reach by a
mistake stay shallow, and every reply to a book move gets searched once.

A line of the file: the moves from the start (cells, comma-separated, ``-`` for none), the
move the book plays there, and that move's value in seeds for the player to move.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from ..core import MancalabError, State, Variant

DEPTH_PENALTY = 2  # seeds a move of a line costs: how much a line's length weighs against errors
FORMAT = "# mancalab opening book 1"


class BookError(MancalabError):
    """A book file that cannot be read: missing, malformed or of another game."""


@dataclass
class Book:
    """A game's opening book: the move to play in each of its positions, and its value."""

    variant: Variant
    moves: dict[State, tuple[int, int]] = field(default_factory=dict)
    lines: dict[State, tuple[int, ...]] = field(default_factory=dict)  # a line to each
    header: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.moves)


def read(variant: Variant, text: str, source: str = "the book") -> Book:
    """A book from its text (the file's format: the module's docstring)."""
    lines = text.splitlines()
    if not lines or lines[0] != FORMAT:
        raise BookError(f"{source} is not a mancalab opening book (its first line is not "
                        f"{FORMAT!r})")
    book, start = Book(variant), variant.start()
    for number, line in enumerate(lines[1:], start=2):
        if line.startswith("#") or not line.strip():
            book.header.append(line)
            continue
        try:
            line_moves, move, value = line.split()
            state, played = start, tuple(
                int(cell) for cell in ([] if line_moves == "-" else line_moves.split(",")))
            for cell in played:
                state = state.play(cell)
            book.moves[state], book.lines[state] = (int(move), int(value)), played
            state.play(int(move))  # the book's move must be legal there
        except (ValueError, MancalabError) as error:
            raise BookError(f"{source}, line {number}: {line!r} is not a line of moves, a "
                            f"legal move and a value ({error})") from None
    return book


@lru_cache(maxsize=None)
def _shipped(name: str) -> Book | None:
    from ..variants import variant as make_variant

    source = resources.files("mancalab").joinpath(f"data/books/{name}.txt")
    if not source.is_file():
        return None
    return read(make_variant(name), source.read_text(), f"the book of {name}")


def for_variant(variant: Variant) -> Book | None:
    """The book shipped for ``variant``'s game, if any and if the variant is the game with
    its default options (a book holds the positions of those rules only)."""
    from ..variants import variant as make_variant

    if make_variant(variant.name).key != variant.key:
        return None
    return _shipped(variant.name)


# building


@dataclass
class _Node:
    """A position of the tree being grown: its line from the start, its value for its
    player to move, and its children by move (none yet: a leaf)."""

    line: tuple[int, ...]
    state: State
    value: int
    children: dict[int, State] = field(default_factory=dict)


def _leaf_value(game: str, line: tuple[int, ...], depth: int) -> int:
    """The value for the player to move after ``line``, by alpha-beta to ``depth``."""
    from ..search import Search
    from ..variants import variant as make_variant

    state = make_variant(game).start()
    for move in line:
        state = state.play(move)
    if state.is_over:
        mover = state.to_move
        return state.score[mover] - state.score[1 - mover]
    return Search().deepen(state, math.inf, depth=depth, unlimited=True)[1]


def _seen_from(parent: State, child: State, value: int) -> int:
    """A child's value for the parent's player to move (the same player on an extra turn)."""
    return value if child.to_move == parent.to_move else -value


def _values(tree: dict[State, _Node], state: State, on_path: set[State],
            done: set[State]) -> int:
    """Negamax the tree below ``state`` into its nodes' values (a position met again on the
    line that leads to it counts 0; one reached by two lines is valued once)."""
    node = tree[state]
    if not node.children or state in done:
        return node.value
    on_path.add(state)
    best = -math.inf
    for child in node.children.values():
        value = 0 if child in on_path else _values(tree, child, on_path, done)
        best = max(best, _seen_from(state, child, value))
    on_path.discard(state)
    done.add(state)
    node.value = int(best)
    return node.value


def _cheapest_leaf(tree: dict[State, _Node], state: State, on_path: set[State],
                   done: dict[State, tuple[float, State | None]]) -> tuple[float, State | None]:
    """The leaf below ``state`` whose line costs least (drop-out expansion), and its cost."""
    node = tree[state]
    if not node.children:
        return (0.0, state) if not state.is_over else (math.inf, None)
    if state in done:
        return done[state]
    on_path.add(state)
    best: tuple[float, State | None] = (math.inf, None)
    for child in node.children.values():
        if child in on_path:
            continue
        error = node.value - _seen_from(state, child, tree[child].value)
        cost, leaf = _cheapest_leaf(tree, child, on_path, done)
        if leaf is not None and cost + DEPTH_PENALTY + error < best[0]:
            best = (cost + DEPTH_PENALTY + error, leaf)
    on_path.discard(state)
    done[state] = best
    return best


def build(variant: Variant, depth: int, seconds: float, jobs: int = 1,
          on_progress: Callable[[int, int], None] | None = None) -> Book:
    """Grow ``variant``'s book for ``seconds``, valuing leaves by alpha-beta to ``depth``
    in ``jobs`` processes; ``on_progress(positions in the book, leaves valued)``."""
    start = variant.start()
    game = variant.name
    tree = {start: _Node((), start, _leaf_value(game, (), depth))}
    began, valued = time.perf_counter(), 1
    pool = ProcessPoolExecutor(jobs) if jobs > 1 else None
    value_all = pool.map if pool else map
    try:
        while time.perf_counter() - began < seconds:
            _values(tree, start, set(), set())
            _cost, leaf = _cheapest_leaf(tree, start, set(), {})
            if leaf is None:
                break  # every line ends the game
            node = tree[leaf]
            fresh = []
            for move in leaf.legal_moves():
                child = leaf.play(move)
                node.children[move] = child
                if child not in tree:
                    tree[child] = _Node(node.line + (move,), child, 0)
                    fresh.append(child)
            lines = [tree[child].line for child in fresh]
            for child, value in zip(fresh, value_all(_leaf_value, [game] * len(lines), lines,
                                                     [depth] * len(lines))):
                tree[child].value = value
            valued += len(fresh)
            if on_progress:
                on_progress(sum(1 for n in tree.values() if n.children), valued)
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    _values(tree, start, set(), set())
    book = Book(variant)
    for state, node in tree.items():
        if node.children:
            move = max(node.children,
                       key=lambda m: _seen_from(state, node.children[m],
                                                tree[node.children[m]].value))
            book.moves[state] = (move, node.value)
            book.lines[state] = node.line
    return book


def write(book: Book, path: Path, made_by: str) -> None:
    """Write ``book`` as text (whole or not at all), its lines in the order of their moves."""
    from ..records import write_atomic

    rows = sorted((book.lines[state], move, value)
                  for state, (move, value) in book.moves.items())
    text = [FORMAT,
            f"# The opening book of {book.variant.name}: {len(rows):,} positions from the start, "
            "grown by drop-out expansion (mancalab.players.book).",
            f"# Made by: {made_by}",
            "# moves from the start (cells), the book's move, its value (seeds, for the "
            "player to move)"]
    text += [f"{','.join(map(str, line)) or '-'} {move} {value}" for line, move, value in rows]
    write_atomic(path, "\n".join(text) + "\n")
