"""Making and playing games: create, load, read, move, take back, end, rematch, switch seats,
change the computer, arrange beads, download the record."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Path as FastAPIPath, Request
from fastapi.responses import PlainTextResponse, Response

from ...core import LARGEST
from ...draw.html import board_view
from ...records import GameRecord, contents, moves_at_most
from ..clocks import Clock
from ..errors import ConflictError, NotFoundError
from ..rooms import SOWING_STEPS, Room
from ..thinking import rules_compiled
from ..schemas import BotChange, LoadGame, Move, NewGame, RecordText, Setting, Token
from ..deps import (AllowancesDep, ComputerDep, GamesDep, PushesDep, ThinkerDep, moves,
                    new_games, searches)


router = APIRouter()


@router.post("/api/games", status_code=201, summary="Create a game")
@new_games
async def create_game(games: GamesDep, thinker: ThinkerDep, allowances: AllowancesDep,
                      request: Request, body: NewGame) -> dict:
    if body.mode == "computer":
        thinker.player(body.bot or "medium", body.game.strip().lower())
    await rules_compiled(body.game.strip().lower())
    room = Room.create(body.game, body.options, body.mode, bot=body.bot,
                       human_seat=body.human_seat, automove=body.automove, names=body.names,
                       setup=body.setup, helpers=body.helpers,
                       position=None if body.position is None
                       else (body.position.cells, body.position.to_move))
    if body.clock is not None:
        room.clock = Clock(body.clock.base, body.clock.increment, body.clock.per_move)
    allowances.charge()
    return games.created(room, body.human_seat)


@router.post("/api/games/load", status_code=201, summary="Go on with a saved game record")
@new_games
async def load_game(games: GamesDep, thinker: ThinkerDep, allowances: AllowancesDep,
                    request: Request, body: LoadGame) -> dict:
    allowances.charge(moves=moves_at_most(body.record, body.game))  # before reading it
    # replaying a long record is Python work: in a thread, so other games go on
    record = await asyncio.to_thread(GameRecord.from_text, body.record, body.game)
    if body.mode == "computer":
        thinker.player(body.bot or "medium", record.variant.name)
    await rules_compiled(record.variant.name)
    room = Room.create(record.variant.name, {}, body.mode, bot=body.bot,
                       human_seat=body.human_seat, automove=body.automove,
                       names=list(record.names), record=record)
    return games.created(room, body.human_seat)


@router.post("/api/records/contents", summary="The games a record file holds (a tournament's "
                                           "holds many), from their headers: to choose one "
                                           "to load")
async def record_contents(body: RecordText) -> dict:
    return {"games": contents(body.record)}


@router.get("/api/games/{game_id}", summary="A game as the holder of the token sees it")
async def get_game(games: GamesDep, game_id: str, token: str | None = None) -> dict:
    return games.view(await games.load(game_id), token)


@router.get("/api/games/{game_id}/positions/{ply}",
         summary="The position after the first PLY moves, and the last of them step by "
                 "step (to review a game)")
async def position(games: GamesDep, game_id: str,
                   ply: Annotated[int, FastAPIPath(ge=0, le=LARGEST)]) -> dict:
    room = games.room(game_id)
    if room.record is None:
        raise ConflictError("the game has not started yet")
    record = room.record
    if ply > len(record.moves):
        raise NotFoundError(f"the game has {len(record.moves)} moves, not {ply}")
    steps = None
    if ply:
        sowing = record.states[ply - 1].sowing(record.moves[ply - 1], limit=SOWING_STEPS)
        steps = None if sowing is None else [list(step) for step in sowing]
    return {"ply": ply, "state": board_view(record.states[ply]), "sowing": steps}


@router.post("/api/games/{game_id}/moves", summary="Play a move for the seat to move")
@moves
async def play(games: GamesDep, request: Request, game_id: str, body: Move) -> dict:
    games.pace(game_id)
    return await games.change(game_id, body.token,
                              lambda room: room.play(games.store, body.token, body.move, body.ply))


@router.post("/api/games/{game_id}/undo", summary="Take back (online: ask, then agree)")
async def undo(games: GamesDep, game_id: str, body: Token) -> dict:
    state = await games.change(game_id, body.token,
                               lambda room: room.undo(games.store, body.token))
    asked = state["undo_request"] is not None  # online: waiting for the other's consent
    return {"undo": "asked" if asked else "undone", "state": state}


@router.post("/api/games/{game_id}/end", summary="End the game by the rule for endless play "
                                              "(online: propose, then agree; the computer "
                                              "agrees by its evaluation)")
@searches
async def end(computer: ComputerDep, request: Request, game_id: str, body: Token) -> dict:
    state = await computer.end(game_id, body.token)
    return {"end": "ended" if state["result"] else "asked", "state": state}


@router.post("/api/games/{game_id}/resign", summary="Resign: the seat of the token loses "
                                                 "now (a local game: the seat to move)")
async def resign(games: GamesDep, game_id: str, body: Token) -> dict:
    return await games.change(game_id, body.token,
                              lambda room: room.resign(games.store, body.token))


@router.post("/api/games/{game_id}/abort", summary="Online, before both players have "
                                                "moved: end the game with no result "
                                                "(not rated; not in an arena)")
async def abort(games: GamesDep, game_id: str, body: Token) -> dict:
    return await games.change(game_id, body.token,
                              lambda room: room.abort(games.store, body.token))


@router.post("/api/games/{game_id}/draw", summary="Offer a draw, or accept the other's "
                                               "(online, once both have moved)")
async def draw(games: GamesDep, game_id: str, body: Token) -> dict:
    return await games.change(game_id, body.token,
                              lambda room: room.offer_draw(games.store, body.token))


@router.post("/api/games/{game_id}/claim", summary="Claim the win when the other player "
                                                "has left a game on a clock for 30 s")
async def claim(games: GamesDep, pushes: PushesDep, game_id: str, body: Token) -> dict:
    room = games.room(game_id)
    gone_for = pushes.presence(room)["gone_for"]
    seat = room.seat_of(body.token)
    return await games.change(game_id, body.token, lambda r: r.claim(
        games.store, body.token, None if seat is None else gone_for[1 - seat]))


@router.post("/api/games/{game_id}/decline",
          summary="Online: refuse the other player's request to take back or to end")
async def decline(games: GamesDep, game_id: str, body: Token) -> dict:
    return await games.change(game_id, body.token,
                              lambda room: room.decline(games.store, body.token))


@router.post("/api/games/{game_id}/rematch/decline",
             summary="Decline the rematch the other player offered (its game is aborted)")
async def decline_rematch(games: GamesDep, game_id: str, body: Token) -> dict:
    old = games.room(game_id)
    next_id = await games.apply(old, lambda room: room.decline_rematch(games.store, body.token))
    theirs = old.rematch["tokens"][old.seat_of(body.token)]  # the decliner's seat there

    def abort(offered: Room) -> None:  # the asker's page says who declined
        if offered.record is not None and not offered.record.state.is_over and \
                not offered.both_moved():
            offered.abort(games.store, theirs)

    await games.apply(games.room(next_id), abort)
    return games.view(old, body.token)


@router.post("/api/games/{game_id}/rematch", status_code=201,
          summary="The next game between the same players, seats swapped")
@new_games
async def rematch(games: GamesDep, allowances: AllowancesDep, request: Request, game_id: str,
                  body: Token) -> dict:
    old = games.room(game_id)
    old.check_token(body.token)
    allowances.charge()

    def offer(old: Room) -> Room:
        room = old.new_rematch(body.token)
        old.save(games.store)
        return room

    room = await games.apply(old, offer)  # the other player's page offers the rematch
    seat = old.seat_of(body.token)
    created = games.created(room, 0)
    token = old.rematch["tokens"][seat]
    return {**created, "token": token, "links": {
        **created["links"], "play": f"/?game={room.id}&token={token}"},
        "state": games.view(room, token)}


@router.post("/api/games/{game_id}/switch", summary="Swap sides with the computer")
async def switch(games: GamesDep, game_id: str, body: Token) -> dict:
    return await games.change(game_id, body.token,
                              lambda room: room.switch(games.store, body.token))


@router.post("/api/games/{game_id}/computer", summary="Change the computer player or automove")
async def change_bot(games: GamesDep, thinker: ThinkerDep, game_id: str,
                     body: BotChange) -> dict:
    if body.bot is not None:
        thinker.player(body.bot, games.room(game_id).game)
    return await games.change(game_id, body.token, lambda room: room.set_bot(
        games.store, body.token, body.bot, body.automove))


@router.post("/api/games/{game_id}/setup", summary="Urubugu: arrange a seat's 32 beads")
async def setup(games: GamesDep, game_id: str, body: Setting) -> dict:
    return await games.change(game_id, body.token, lambda room: room.set_beads(
        games.store, body.token, body.seat, body.setting))


@router.get("/api/games/{game_id}/record", summary="The game record (text), to download",
         response_class=Response,
         responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}},
                          "description": "the record"}})
async def record(games: GamesDep, game_id: str) -> PlainTextResponse:
    room = games.room(game_id)
    if room.record is None:
        raise ConflictError("the game has not started yet")
    return PlainTextResponse(room.record.to_text(), headers={
        "Content-Disposition": f'attachment; filename="{room.game}-{room.id}.txt"'})
