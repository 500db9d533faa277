"""The catalogue: the games with their options, players and levels, what exact play still
needs here, a game's example move, and the page."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
from pathlib import Path
from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...analysis.teach import puzzles
from ...analysis import solving
from ...draw.html import board_view
from ...players import GAME_LEVELS, LEVELS, PLAYERS
from ...variants import VARIANTS
from .. import assets
from ..errors import NotFoundError
from ..rooms import MODES
from ..thinking import Limits
from ..schemas import GAMES
from ..deps import ComputerDep, LimitsDep

STATIC = Path(__file__).parents[1] / "static"
LANGUAGES = {"en": "English", "fr": "Français", "rn": "Kirundi", "am": "አማርኛ"}


router = APIRouter()


@router.get("/api/games", response_model=dict,
            summary="The games, their options, players, levels and languages")
async def catalogue(limits: LimitsDep, request: Request) -> Response:
    # the same for every visit of this server: a second visit is answered "unchanged"
    body = json.dumps(_catalogue(limits), ensure_ascii=False, separators=(",", ":")).encode()
    tag = f'"{hashlib.sha256(body).hexdigest()[:16]}"'
    if request.headers.get("if-none-match") == tag:
        return Response(status_code=304, headers={"etag": tag})
    return Response(body, media_type="application/json",
                    headers={"etag": tag, "cache-control": "no-cache"})


def _catalogue(limits: Limits) -> dict:
    games = {}
    for name, cls in VARIANTS.items():
        games[name] = {"title": cls.title,
                       "options": {k: _option_form(o) for k, o in cls.option_specs.items()},
                       "solvable": solving.unsolvable(cls()) is None,
                       "tables": _tables_built(cls),
                       "puzzles": puzzles.pick(name, 1000, 0) is not None,
                       "race": None if cls.race_option is None else {
                           "option": cls.race_option, "none": cls.no_race},
                       "score_noun": cls.texts.score_noun, "setting": cls.has_setting,
                       "picture": _picture(name)}
    return {"games": games, "modes": list(MODES), "levels": LEVELS,
            "game_levels": GAME_LEVELS, "languages": LANGUAGES,
            # mancalab's players, then those the operator named (engines, files)
            "players": sorted(set(PLAYERS) - {"engine"}) + sorted(limits.players),
            "max_think": limits.max_think}


def _tables_built(cls) -> bool:
    """Whether endgame tables answer this game's analysis where they reach (Oware's, built
    on this server for some board: for another, the analysis says it has none)."""
    if cls.kernels.table_bounds is None:
        return False
    from ...analysis.solving import oware_tables

    return oware_tables.any_built()


@router.get("/api/preparation", summary="What exact play still needs on this server: per "
                                     "game whether it is ready and the seconds left")
async def preparation(computer: ComputerDep) -> dict:
    if computer.preparation is None:
        return {"ready": True, "seconds_left": 0, "games": {}, "steps": []}
    return computer.preparation.status()


@router.get("/api/examples/{game}", summary="A game's start and one move played on it, step "
                                         "by step (for the page's how-to-play)")
async def example(game: Literal[GAMES]) -> dict:
    # a thread: the first one may wait for the rules to compile, the others need not
    return await asyncio.to_thread(_example, game)


@router.get("/", include_in_schema=False)
async def page(request: Request) -> Response:
    language = assets.language_of(request.cookies.get("mancalab.language"),
                                  request.headers.get("accept-language"))
    return _versioned(request, assets.page(language), "text/html; charset=utf-8",
                      language)


@router.get("/static/js/{name}", include_in_schema=False)
async def module(request: Request, name: str) -> Response:
    text = assets.module(name)
    if text is None:
        raise NotFoundError(f"no module {name[:40]!r}")
    return _versioned(request, text, "text/javascript; charset=utf-8")


@functools.lru_cache(maxsize=None)
def _picture(game: str) -> dict:
    return VARIANTS[game]().picture()


@functools.lru_cache(maxsize=None)
def _example(game: str) -> dict:
    """The start of ``game`` and the move of its first player that shows the most of its
    sowing (at most 60 steps), as the page draws them."""
    start = VARIANTS[game]().start()
    shown = []
    for move in start.legal_moves():
        steps = start.sowing(move, limit=60)
        if steps is not None:
            shown.append((len(steps), -move, move, steps))
    _, _, move, steps = max(shown)
    return {"before": board_view(start), "move": move, "name": start.move_name(move),
            "after": board_view(start.play(move)), "sowing": [list(s) for s in steps]}


def _option_form(option) -> dict:
    """How a form shows a game option: a checkbox, a menu, a number, or a menu with a number
    (Kalah's board: standard, random or a board's number)."""
    kind = ("bool" if isinstance(option.default, bool) else
            "choice_or_number" if option.choices and option.low is not None else
            "choice" if option.choices else "number" if option.low is not None else "text")
    return {"default": option.default, "values": option.rule, "kind": kind,
            "choices": list(option.choices), "min": option.low, "max": option.high}


def _versioned(request: Request, text: str, kind: str, language: str | None = None) -> Response:
    """``text`` as the page's version of it (an ETag of the version, and of the language
    whose texts the page names: a 304 when unchanged)."""
    tag = f'"{assets.version()}{"-" + language if language else ""}"'
    headers = {"etag": tag}
    if language:
        headers["vary"] = "Cookie, Accept-Language"
    if request.headers.get("if-none-match") == tag:
        return Response(status_code=304, headers=headers)
    return Response(text, media_type=kind, headers=headers)
