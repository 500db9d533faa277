"""Learning: puzzles near a rating and by theme, each game's lesson, answers checked by the
rules, and classroom worksheets to print."""

from __future__ import annotations

import asyncio
import io
from typing import Annotated, Literal

from fastapi import APIRouter, Path as FastAPIPath, Query, Request
from fastapi.responses import Response

from ...analysis.teach import exercises, lessons, puzzles, worksheet as sheets
from ...core import LARGEST, IllegalMoveError, MancalabError
from ...draw.html import LANGUAGES, board_view, texts
from ..errors import BusyError, NotFoundError
from ..rooms import SOWING_STEPS
from ..accounts import Accounts
from ..classes import Classes
from ..schemas import GAMES, Answer
from ..sessions import logged_in
from ..deps import AccountsDep, ClassesDep, searches


router = APIRouter()


drawing_sheet = asyncio.Lock()  # one worksheet drawn at a time in this process (a second or
# a few each; never waited for, so no event loop is bound to it)


@router.get("/api/puzzles/{game}", summary="A puzzle near a rating: a position where one "
                                        "move is clearly best (proven by the solver)")
async def puzzle(game: Literal[GAMES],
                 rating: Annotated[float, Query(ge=0, le=4000)] = 1000,
                 draw: Annotated[int, Query(ge=0, le=LARGEST)] = 0,
                 theme: Literal[puzzles.THEMES] | None = None) -> dict:
    # a thread: a game's themes are worked out once, its puzzles' best moves played
    found = await asyncio.to_thread(puzzles.pick, game, rating, draw, theme)
    if found is None:
        have = ", ".join(sorted(puzzles.theme_counts(game))) or "none"
        raise NotFoundError(f"no {theme + ' ' if theme else ''}puzzles for {game} (its "
                            f"themes: {have})")
    state = found.state()
    return {"id": found.id, "game": game, "rating": found.rating, "kind": found.kind,
            **board_view(state)}


@router.get("/api/puzzles/{game}/themes", summary="How many puzzles each theme has")
async def puzzle_themes(game: Literal[GAMES]) -> dict:
    return {"game": game, "themes": await asyncio.to_thread(puzzles.theme_counts, game)}


@router.post("/api/puzzles/try/{puzzle_id}", summary="Try a move: whether it is the best, "
                                                  "and the move played step by step, "
                                                  "without giving the answer away")
async def try_move(classes: ClassesDep, accounts: AccountsDep, request: Request,
                   puzzle_id: Annotated[str, FastAPIPath(max_length=60)],
                   body: Answer) -> dict:
    found, state, move = _asked(puzzle_id, body)
    noted(classes, accounts, request, "puzzle", found.game, found.id, move == found.best)
    return {"correct": move == found.best, "move": move, "name": state.move_name(move),
            **_played(state, move)}


@router.post("/api/puzzles/answer/{puzzle_id}", summary="Check a puzzle's answer: every "
                                                     "move's proven value, the best "
                                                     "move played step by step")
async def answer(puzzle_id: Annotated[str, FastAPIPath(max_length=60)],
                 body: Answer) -> dict:
    found, state, move = _asked(puzzle_id, body)
    return {"correct": move == found.best, "move": move, "best": found.best,
            "themes": list(puzzles.themes(found)),
            "best_name": found.best_name, "value": found.value,
            "moves": [{"cell": int(cell), "name": state.move_name(int(cell)),
                       "value": value} for cell, value in found.values.items()],
            **_played(state, found.best)}


@router.get("/api/exercises/{game}", summary="The kinds of exercise a game has")
async def exercise_kinds(game: Literal[GAMES]) -> dict:
    return {"game": game, "kinds": list(exercises.kinds(game))}


@router.get("/api/exercises/{game}/{kind}/{number}",
            summary="Exercise NUMBER of KIND: a position and, for landing, the move shown "
                    "(where does its first lap's last seed land?); else the learner finds "
                    "a move of the kind")
async def exercise(game: Literal[GAMES], kind: Annotated[str, FastAPIPath(max_length=20)],
                   number: Annotated[int, FastAPIPath(ge=0, le=LARGEST)]) -> dict:
    # a thread: finding an exercise plays up to a few hundred random moves (up to 70 ms)
    found = await asyncio.to_thread(exercises.exercise, game, kind, number)
    state = found.state
    return {"game": game, "kind": kind, "number": number, "move": found.move,
            "move_name": None if found.move is None else state.move_name(found.move),
            "direction": None if found.move is None
            else sheets.direction(state, found.move),
            **board_view(state)}


@router.post("/api/exercises/{game}/{kind}/{number}",
             summary="Check an answer: right or not, the right answers, and the move "
                     "played step by step (the move shown, or the one picked)")
async def exercise_answer(classes: ClassesDep, accounts: AccountsDep, request: Request,
                          game: Literal[GAMES],
                          kind: Annotated[str, FastAPIPath(max_length=20)],
                          number: Annotated[int, FastAPIPath(ge=0, le=LARGEST)],
                          body: Answer) -> dict:
    found = await asyncio.to_thread(exercises.exercise, game, kind, number)
    state = found.state
    answer = state.parse_move(body.move) if isinstance(body.move, str) else body.move
    correct = exercises.check(found, answer)
    noted(classes, accounts, request, "exercise", game, kind, correct)
    move = found.move if found.move is not None else answer
    return {"correct": correct, "answers": sorted(found.answers),
            "names": [_cell_name(state, cell) for cell in sorted(found.answers)],
            "move": move, **_played(state, move)}


@router.get("/api/worksheets/{game}", response_class=Response,
            summary="A classroom worksheet to print (PDF): boards with questions the "
                    "rules answer, six a page, then the answer key")
@searches
async def worksheet(request: Request, game: Literal[GAMES],
                    questions: Annotated[int, Query(ge=1, le=WEB_QUESTIONS)] = 12,
                    paper: Literal[tuple(sheets.PAPERS)] = "a4",
                    language: Literal[LANGUAGES] = "en",
                    seed: Annotated[int, Query(ge=0, le=LARGEST)] = 1) -> Response:
    if drawing_sheet.locked():
        raise BusyError("a worksheet is being drawn; try again in a moment")
    async with drawing_sheet:
        pdf = await asyncio.to_thread(_worksheet_pdf, game, questions, paper, language,
                                      seed)
    return Response(pdf, media_type="application/pdf", headers={
        "Content-Disposition": f'attachment; filename="{game}-worksheet-{seed}.pdf"'})


def noted(classes: Classes, accounts: Accounts, request: Request, kind: str, game: str,
          item: str, correct: bool) -> None:
    """A pupil's step, for their class's progress (nobody else's is kept)."""
    classes.note(logged_in(accounts, request), kind, game, item, correct)


def _cell_name(state, cell: int) -> str | None:
    """A hole's name; None for a store (where a landing exercise's sowing may end)."""
    try:
        return state.move_name(cell)
    except IllegalMoveError:
        return None


def _asked(puzzle_id: str, body: Answer):
    """The puzzle, its position and the legal move an answer names (else 404 or 400)."""
    found = puzzles.find(puzzle_id)
    if found is None:
        raise NotFoundError(f"no puzzle {puzzle_id!r}")
    state = found.state()
    return found, state, _move_of(state, body)


@router.get("/api/lessons/{game}", summary="A game's lesson: its steps, each a position and "
                                        "the kind of move it asks for")
async def lesson(game: Literal[GAMES]) -> dict:
    return {"game": game, "steps": [{"kind": kind, **board_view(state)}
                                    for kind, state in lessons.steps(game)]}


@router.post("/api/lessons/{game}/{step}", summary="Check a lesson step's move: whether it "
                                                "does what the step asks, step by step")
async def lesson_move(classes: ClassesDep, accounts: AccountsDep, request: Request,
                      game: Literal[GAMES],
                      step: Annotated[int, FastAPIPath(ge=0, le=9)], body: Answer) -> dict:
    taught = lessons.steps(game)
    if step >= len(taught):
        raise NotFoundError(f"the {game} lesson has {len(taught)} steps")
    kind, state = taught[step]
    move = _move_of(state, body)
    done = lessons.does(state, move, kind)
    noted(classes, accounts, request, "lesson", game, str(step), done)
    return {"ok": done, "kind": kind, "move": move,
            "name": state.move_name(move), **_played(state, move)}


def _played(state, move: int) -> dict:
    """``move`` played: the position after it, and its sowing step by step to animate (None
    for a relay longer than the page shows)."""
    steps = state.sowing(move, limit=SOWING_STEPS)
    return {"after": board_view(state.play(move)),
            "sowing": None if steps is None else [list(step) for step in steps]}


def _move_of(state, body: Answer) -> int:
    """The legal move an answer names, by cell or in the game's notation (else 400)."""
    move = state.parse_move(body.move) if isinstance(body.move, str) else body.move
    if move not in state.legal_moves():
        raise MancalabError(f"{body.move!r} is not a legal move here (legal: "
                            f"{', '.join(state.move_name(m) for m in state.legal_moves())})")
    return move


WEB_QUESTIONS = 36  # a worksheet's questions at most from the page (six pages)


def _worksheet_pdf(game: str, count: int, paper: str, language: str, seed: int) -> bytes:
    """The worksheet ``mancalab worksheet`` prints, as PDF bytes."""
    made = sheets.questions(game, count, seed, language)
    out = io.BytesIO()
    title = texts(language).get(f"game_{game}", game)
    sheets.write_pdf(made, out, paper, title=title, language=language)
    return out.getvalue()
