"""Classroom worksheets: boards with questions the engine answers, and the answer key.

For classes without computers (the Gebeta program cites Gebeta in Ethiopian mathematics
classes): each question shows a position from play and asks what a move does, counted by the
rules' own kernels (``State.sowing`` and ``State.play``):

- **landing**: where the last counter of a move's first lap lands (counting and going round);
- **gain**: how much of the score a move wins (families in Gebeta, seeds in store in Kalah);
- **best**: which move wins the most (only where one move does).

``mancalab worksheet GAME --questions N --out sheet.pdf`` prints six boards a page with a
legend, then the answer key (each board small with its answer ringed), on A4 or Letter.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ...core import MancalabError, State
from ...sowing import gain, way
from ...variants import variant as make_variant

KINDS = ("landing", "gain", "best")
PER_PAGE = 6
PAPERS = {"a4": (8.27, 11.69), "letter": (8.5, 11.0)}  # inches
MAX_QUESTIONS = 120
ROW = 0.145  # of the page's height, a question's band (the legend below the sixth)
KEY_BOARDS = 12  # answers a key page holds, each beside its board with the answer ringed
ETHIOPIC_FONT = Path(__file__).parents[2] / "data" / "fonts" / "NotoSansEthiopic-Regular.ttf"
ETHIOPIC_NAME = "Noto Sans Ethiopic"


class Words:
    """The worksheet's words in a language, from the page's language files."""

    def __init__(self, language: str = "en") -> None:
        from ...draw.html import texts

        self.language = language
        self.texts = texts(language)

    def __call__(self, key: str, **values) -> str:
        text = self.texts[key]
        for name, value in values.items():
            text = text.replace("{" + name + "}", str(value))
        return text


def _fonts(family: str) -> list[str]:
    """``family`` (a matplotlib family, e.g. "sans-serif") with the shipped Ethiopic font
    behind it, so that Amharic prints on a machine without an Ethiopic font of its own."""
    from matplotlib import font_manager, rcParams

    if ETHIOPIC_NAME not in {font.name for font in font_manager.fontManager.ttflist}:
        font_manager.fontManager.addfont(str(ETHIOPIC_FONT))
        # only the regular weight is shipped: a bold title's Ethiopic letters print regular
        logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    return [*rcParams[f"font.{family}"][:1], ETHIOPIC_NAME]


@dataclass
class Question:
    number: int
    kind: str
    state: State
    move: int | None
    text: str
    answer: str
    answer_cells: tuple[int, ...] = ()  # ringed on the key's board


def cell_name(state: State, cell: int, words: Words | None = None) -> str:
    """A hole or store named for its owner, as the worksheet's boards label them."""
    words = words or Words()
    variant = state.variant
    owner = variant.cell_owner(state, cell)
    label = variant.cell_label(state, owner if owner is not None else 0, cell)
    side = "AB"[owner] if owner is not None else ""
    if label:
        return words("sheet_hole", side=side, label=label)
    return words("sheet_store", side=side)


def direction(state: State, move: int, drops: int = 2) -> list[int]:
    """The way ``move`` sows, without giving its end away (``sowing.way``)."""
    return way(state.sowing(move), move, drops)


def first_lap_end(state: State, move: int) -> int | None:
    """The cell where the first lap of ``move`` drops its last counter."""
    steps = state.sowing(move)
    last, lifted = None, 0
    for step in steps or []:
        if step.kind == "lift":
            lifted += 1
            if lifted > 1:
                break
        elif step.kind == "drop":
            last = step.cell
    return last


def _positions(game: str, rng: random.Random) -> Iterator[State]:
    """Positions of random play, one of each game taken at a random ply."""
    variant = make_variant(game)
    while True:
        state, plies = variant.start(), rng.randint(2, 30)
        for _ in range(plies):
            if state.is_over:
                break
            state = state.play(rng.choice(state.legal_moves()))
        if not state.is_over and len(state.legal_moves()) >= 2:
            yield state


def _question(kind: str, state: State, rng: random.Random, words: Words) -> tuple | None:
    mover = "AB"[state.to_move]
    noun = words(f"sheet_noun_{state.variant.name}")
    legal = state.legal_moves()
    if kind == "landing":
        move = rng.choice(legal)
        end = first_lap_end(state, move)
        if end is None:
            return None
        return (move, words("sheet_landing", mover=mover, hole=cell_name(state, move, words)),
                cell_name(state, end, words), (end,))
    if kind == "gain":
        gains = {m: gain(state, m) for m in legal}
        winning = [m for m in legal if gains[m] > 0]
        move = rng.choice(winning if winning and rng.random() < 0.7 else legal)
        return (move, words("sheet_gain", mover=mover, hole=cell_name(state, move, words),
                            noun=noun), str(gains[move]), ())  # a number: nothing to ring
    gains = {m: gain(state, m) for m in legal}
    most = max(gains.values())
    best = [m for m in legal if gains[m] == most]
    if most <= 0 or len(best) != 1:
        return None
    return (None, words("sheet_best", mover=mover, noun=noun),
            f"{cell_name(state, best[0], words)} ({most})", (best[0],))


def questions(game: str, count: int, seed: int = 1, language: str = "en") -> list[Question]:
    """``count`` questions on positions of ``game``, the kinds in turn (reproducible), in
    ``language`` (en, fr, rn, am)."""
    if not 1 <= count <= MAX_QUESTIONS:
        raise MancalabError(f"a worksheet has 1..{MAX_QUESTIONS} questions, got {count}")
    rng = random.Random(seed)
    words = Words(language)
    made, positions = [], _positions(game, rng)
    while len(made) < count:
        kind = KINDS[len(made) % len(KINDS)]
        for _ in range(200):
            state = next(positions)
            found = _question(kind, state, rng, words)
            if found is not None:
                made.append(Question(len(made) + 1, kind, state, *found))
                break
        else:
            raise MancalabError(f"no {kind} question found for {game}")
    return made


def write_pdf(made: list[Question], path: str | Path, paper: str = "a4",
              title: str = "", language: str = "en") -> int:
    """Write the worksheet (six boards a page) and the answer key (twelve a page) to ``path``;
    the number of pages."""
    from matplotlib import rc_context
    from matplotlib.backends.backend_pdf import PdfPages
    from matplotlib.figure import Figure

    from ...draw.image import draw

    if paper not in PAPERS:
        raise MancalabError(f"paper must be {' or '.join(PAPERS)}, got {paper!r}")
    size = PAPERS[paper]
    words = Words(language)
    pages = 0
    with rc_context({"font.family": _fonts("sans-serif")}), PdfPages(path) as pdf:
        for start in range(0, len(made), PER_PAGE):
            figure = Figure(figsize=size)
            figure.text(0.06, 0.965, f"{title}", fontsize=13, weight="bold")
            figure.text(0.55, 0.965, words("sheet_name") + " ______________________",
                        fontsize=11)
            for slot, question in enumerate(made[start:start + PER_PAGE]):
                top = 0.93 - slot * ROW
                state, move = question.state, question.move
                score = state.score
                place = (figure, (0.04, top - ROW * 0.92, 0.52, ROW * 0.85))
                draw(state, place, state.to_move, {move} if move is not None else set(),
                     all_labels=True, title=f"A {score[0]} · B {score[1]}", label_size=10,
                     way=direction(state, move) if question.kind == "landing" else ())
                figure.text(0.6, top - 0.02, f"{question.number}. " + _wrapped(question.text),
                            fontsize=10, va="top")
                figure.text(0.6, top - ROW * 0.7, words("sheet_answer") + " __________________",
                            fontsize=10)
            figure.text(0.06, 0.012, _wrapped(words(
                "sheet_legend", noun=words(f"sheet_noun_{made[0].state.variant.name}")), 125),
                fontsize=7.5, va="bottom", color="#333333")
            pdf.savefig(figure)
            pages += 1
        for start in range(0, len(made), KEY_BOARDS):
            pdf.savefig(_key_page(made[start:start + KEY_BOARDS], size,
                                  f"{title} — {words('sheet_key')}"))
            pages += 1
    return pages


def _key_page(made: list[Question], size: tuple[float, float], title: str):
    """A page of the answer key: each question's board small with its answer ringed in green,
    and the answer beside it, two columns of six."""
    from matplotlib.figure import Figure

    from ...draw.image import draw

    key = Figure(figsize=size)
    key.suptitle(title, fontsize=12)
    for slot, question in enumerate(made):
        left, top = 0.05 + 0.48 * (slot % 2), 0.93 - 0.15 * (slot // 2)
        marks = {question.move} if question.move is not None else set()
        draw(question.state, (key, (left, top - 0.12, 0.28, 0.11)), question.state.to_move,
             marks, all_labels=True, title=f"{question.number}.",
             answers=set(question.answer_cells))
        key.text(left + 0.29, top - 0.04, _wrapped(question.answer, 16), fontsize=10, va="top")
    return key


def _wrapped(text: str, width: int = 38) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width))
