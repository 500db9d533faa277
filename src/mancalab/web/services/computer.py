"""The computer's thinking: its turns in games against it (in a search thread, so other
games go on), the hints, move previews, exact analyses and the judgement of an end proposed
by its opponent, and exact play's files built in the background."""

from __future__ import annotations

import asyncio
import functools
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ... import kernels
from ...analysis import solving
from ...analysis.solving.preparation import Step, is_settled
from ...players import Player
from ..errors import ConflictError
from ..preparing import Preparation
from ..rooms import Room
from ..store import analysis_key
from ..thinking import CLIENT

if TYPE_CHECKING:
    from ..hub import Hub


class Computer:
    """The computer players kept for their games, and the games it is thinking in."""

    def __init__(self, hub: Hub) -> None:
        self.hub, self.store, self.limits, self.thinker = \
            hub, hub.store, hub.limits, hub.thinker
        self.kept: OrderedDict[str, Room] = OrderedDict()  # rooms holding a computer player
        self.computing: set[str] = set()  # the games whose computer's turns are being played
        self.preparation: Preparation | None = None  # exact play's files, built meanwhile

    def resume(self, room: Room) -> None:
        """Let the computer think if it is its turn and it is not thinking yet."""
        if room.bot_to_move() and room.id not in self.computing and room.suggestion is None:
            self.hub.spawn(self.turns(room))

    def player(self, room: Room) -> Player:
        """The room's computer player, kept between its moves (alpha-beta keeps its tables
        and clock) for at most ``players_kept`` rooms, the least recently used freed first."""
        if room.player is None or room.player_spec != room.bot:
            _free(room)
            room.player, room.player_spec = self.thinker.player(room.bot, room.game), room.bot
        self.kept[room.id] = room
        self.kept.move_to_end(room.id)
        while len(self.kept) > self.limits.players_kept:
            _free(self.kept.popitem(last=False)[1])
        return room.player

    def free(self, room: Room) -> None:
        """Let the room's computer player go (an engine's program ends with it)."""
        _free(room)
        self.kept.pop(room.id, None)

    async def turns(self, room: Room) -> None:
        """The computer thinks in a search thread, then plays (automove) or shows its move;
        a failure is shown to both players instead of hanging the game."""
        self.computing.add(room.id)
        try:
            await self._turns(room)
        finally:
            self.computing.discard(room.id)

    async def _turns(self, room: Room) -> None:
        broadcast = self.hub.pushes.broadcast
        while room.bot_to_move() and room.suggestion is None and room.error is None:
            room.thinking = True
            version = room.version
            await broadcast(room)
            try:
                player = self.player(room)
                if room.clock is not None:  # within its increment and a share of its time
                    player.cap = min(self.limits.max_think,
                                     room.clock.budget(room.bot_seat))
                state = room.state
                move = await self.thinker.choose(
                    room.id, self.knowing(player, state, game_of(room)), state, wait=True)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - said to the players, not hidden
                room.error = f"the computer could not move: {error}"
                room.version += 1
                break
            finally:
                room.thinking = False
            if room.version != version:  # switched or changed meanwhile: think again if
                continue                 # it is still the computer's turn
            if not room.automove:
                room.suggestion = move
                room.version += 1
                await broadcast(room)
                continue
            try:
                await self.hub.games.apply(room, functools.partial(self._plays, version, move))
                saved = True
            except Exception as error:  # noqa: BLE001 - a full disk: said, then retried
                room.error = (f"the computer's move could not be saved ({error}); trying "
                              f"again every {self.limits.retry_seconds:g} s")
                room.version += 1
                saved = False
                await broadcast(room)
            if not saved:  # nothing was changed (the move is stored before it is made)
                await asyncio.sleep(self.limits.retry_seconds)
                room.error = None
        await broadcast(room)  # no longer thinking

    def _plays(self, version: int, move: int, room: Room) -> None:
        """A change: the computer's move, unless the game changed since it began to think."""
        if room.version == version:
            room.play(self.store, None, move, by_computer=True)

    def knowing(self, player: Player, state, game: Sequence = ()) -> Player:
        """``player``, told the game's positions so far (``game``, ``state`` last: where a
        recurrence ends the game) and the settled analysis of ``state`` when one is kept (the
        perfect player then plays from it: exact from the first move of a prepared game)."""
        player.remember(game)
        if hasattr(player, "know"):
            player.know(state, self.store.analysis(analysis_key(state)))
        return player

    def _helped(self, game_id: str, token: str | None) -> Room:
        """The game, for a player holding a seat in it with helpers on."""
        room = self.hub.games.room(game_id)
        room.check_token(token)
        room.check_helpers()
        return room

    async def hint(self, game_id: str, token: str | None, spec: str) -> dict:
        """What player ``spec`` would play in the game, for a player holding a seat."""
        room = self._helped(game_id, token)
        adviser = self.thinker.player(spec, room.game)
        adviser.cap = min(self.limits.max_think, self.limits.hint_think)
        state = room.state
        try:
            move = await self.thinker.choose(room.id,
                                             self.knowing(adviser, state, game_of(room)), state)
        finally:
            adviser.close()  # an engine's program ends with the request it was started for
        return {"move": move, "name": state.move_name(move), "player": adviser.spec,
                "value": adviser.last_info.get("value"),
                "exact": bool(adviser.last_info.get("exact"))}

    def previews(self, game_id: str, token: str | None) -> dict:
        """What each legal move would do (``Room.previews``), for a player holding a seat in
        a game with helpers on, as the hint."""
        return self._helped(game_id, token).previews()

    async def analysis(self, game_id: str, token: str | None) -> dict:
        """Every legal move's exact value for the player to move (Kalah), for a player
        holding a seat: the perfect player's analysis, capped like any search."""
        room = self._helped(game_id, token)
        state = room.state
        reason = solving.unsolvable(state.variant)
        if reason is not None and state.variant.kernels.table_bounds is not None:
            return {**await asyncio.to_thread(_from_tables, state, game_of(room)),
                    "ply": room.ply}
        if reason is not None:
            raise ConflictError(reason)
        position = analysis_key(state)
        kept = self.store.analysis(position)
        if kept is None:
            analyst = self.thinker.player("perfect", room.game)
            kept = await self.thinker.run(room.id, analyst, analyst.analyse, state)
            if is_settled(kept):  # proven once, answered at once from now on
                self.store.keep_analysis(position, kept, client=CLIENT.get())
        return {**kept, "ply": room.ply}

    async def end(self, game_id: str, token: str | None) -> dict:
        """A player proposes to end the game by the rule for endless play; against the
        computer, the computer's own search decides whether it agrees (capped like a move)."""
        room = self.hub.games.room(game_id)
        room.check_token(token)
        agrees = None
        if room.mode == "computer" and room.record is not None and not room.state.is_over:
            judge = self.thinker.player(room.bot, room.game)
            try:
                agrees = await self.thinker.run(
                    room.id, judge, lambda state: judge.accepts_end(state, room.bot_seat),
                    room.state)
            finally:
                judge.close()
        return await self.hub.games.change(game_id, token,
                                           lambda r: r.end(self.store, token, agrees))

    def prepare(self, steps: list[Step]) -> None:
        """Build what exact play needs (``steps``) in a background process; the start's
        analyses it makes are kept with the others."""
        loop = asyncio.get_running_loop()

        def kept(step: Step) -> bool:
            if step.kind == "start":
                return self.store.analysis(analysis_key(step.variant.start())) is not None
            return step.is_done()

        def ready(step: Step, payload: dict | None) -> None:
            solving.renew(step.variant)
            if payload is not None and is_settled(payload):
                loop.call_soon_threadsafe(functools.partial(
                    self.store.keep_analysis, analysis_key(step.variant.start()), payload,
                    pinned=True))

        self.preparation = Preparation(steps, ready, kept, self.limits.prepare_memory)
        self.preparation.start()


def _from_tables(state, history: list) -> dict:
    """The analysis the game's endgame tables give (Oware's), or why they cannot."""
    from ...analysis.solving import oware_tables

    tables = oware_tables.for_search(state.variant)
    if tables[0].size == 0:
        raise ConflictError("no endgame tables are built for this board on this server "
                            "(mancalab db build oware)", code="no_tables")
    seeds, most = oware_tables.seeds_on_board(state), oware_tables.reach_of(state.variant, tables)
    if seeds > most:
        raise ConflictError(f"the endgame tables here reach positions with at most {most} seeds "
                            f"on the board; this one has {seeds}", code="beyond_tables",
                            seeds=seeds, most=most)
    return oware_tables.analysis(state, history, tables)


def game_of(room: Room) -> list:
    """The game's positions so far, where a position's recurrence ends it (a copy: the
    search reads it in its thread while the game goes on)."""
    record = room.record
    if record is None or not kernels.repetitions_of(record.variant):
        return []
    return list(record.states)


def _free(room: Room) -> None:
    if room.player is not None:
        room.player.close()
        room.player = None
