"""Help during a game: the hint, where a move lands, the exact analysis of every move, the
review and the best continuation."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path as FastAPIPath, Request

from ...core import LARGEST
from ..schemas import Hint, Short, Token
from ..deps import ComputerDep, ReviewsDep, searches


router = APIRouter()


@router.post("/api/games/{game_id}/hint", summary="The move a player would make here "
                                               "(for a player holding a seat)")
@searches
async def hint(computer: ComputerDep, request: Request, game_id: str, body: Hint) -> dict:
    return await computer.hint(game_id, body.token, body.player)


@router.get("/api/games/{game_id}/previews",
            summary="What each legal move would do: the cell where its last seed lands, its "
                    "laps, the cells it captures from, what it adds to the mover's score, "
                    "whether the mover plays again (for a player holding a seat, where "
                    "hints are on)")
async def previews(computer: ComputerDep, game_id: str, token: Short | None = None) -> dict:
    return computer.previews(game_id, token)


@router.post("/api/games/{game_id}/analysis",
          summary="Every legal move's exact value for the player to move, or its bounds "
                  "when not proven in time (Kalah; for a player holding a seat)")
@searches
async def analysis(computer: ComputerDep, request: Request, game_id: str, body: Token) -> dict:
    return await computer.analysis(game_id, body.token)


@router.post("/api/games/{game_id}/review",
          summary="The game's review: each position's value (exact where proven, else "
                  "an estimate) and each move's mark; its positions are appraised in the "
                  "background, so ask again until appraised equals positions")
@searches
async def review_game(reviews: ReviewsDep, request: Request, game_id: str, body: Token) -> dict:
    return await reviews.review(game_id, body.token)


@router.post("/api/games/{game_id}/positions/{ply}/continuation",
             summary="The best continuation from the position after PLY moves: a few "
                     "moves, proven best where the position is solved (exact), else the "
                     "expert's; for a finished game, or a seated player where hints are on")
@searches
async def continuation(reviews: ReviewsDep, request: Request, game_id: str,
                       ply: Annotated[int, FastAPIPath(ge=0, le=LARGEST)],
                       body: Token) -> dict:
    return await reviews.continuation(game_id, body.token, ply)


@router.get("/api/games/{game_id}/review", summary="The game's review as far as it is")
async def review_so_far(reviews: ReviewsDep, game_id: str, token: Short | None = None) -> dict:
    return await reviews.review(game_id, token, start=False)


