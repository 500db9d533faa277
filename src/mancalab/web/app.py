"""The web server: the page, a JSON API for everything it does, and websockets for live games.

``create_app(db_path)`` builds the FastAPI application; ``mancalab serve`` runs it on uvicorn.
Every change is committed to SQLite (mancalab.web.store) before it is answered; rooms are
loaded from the store on first use, so after a restart every game goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import math
import threading
import time
from collections import Counter, OrderedDict
from pathlib import Path
from typing import Annotated, Literal, Union
from urllib.parse import urlsplit

from fastapi import (FastAPI, HTTPException, Path as FastAPIPath, Query, Request, WebSocket,
                     WebSocketDisconnect)
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictInt,
                      StrictStr, StringConstraints)
from slowapi import Limiter
from slowapi.errors import RateLimitExceeded

from ..analysis import solving
from ..core import LARGEST, MancalabError, MancalabFailure
from ..drawing import board_view
from ..players import GAME_LEVELS, LEVELS, PLAYERS, Player
from ..records import NAME_LENGTH, GameRecord, contents, moves_at_most
from ..variants import VARIANTS
from .rooms import MODES, SOWING_STEPS, ConflictError, Room
from ..analysis import lessons, puzzles, review
from ..analysis.preparation import Step, is_settled
from .preparing import Preparation
from .clients import Allowance, admits, scope_client
from .store import Store, analysis_key
from .thinking import (CLIENT, OPERATOR_ONLY, READY, BusyError, FullError, Limits, Thinker,
                       names_a_program, warm_up)

LOG = logging.getLogger("mancalab.web")
STATIC = Path(__file__).parent / "static"
REVIEW_SECONDS = 1.0  # a review's time a position: half to solve it, half to estimate it
# (a 40-move review within 20 s); a game with no solver only estimates, in this share of it
ESTIMATE_ONLY = 0.4
REVIEW_UNWATCHED = 20.0  # seconds: a review nobody asks about (the page asks every 1.5 s) stops
APPRAISALS_KEPT = 20_000  # positions' appraisals kept for reviews (the least recent go)
LANGUAGES = {"en": "English", "fr": "Français", "rn": "Kirundi", "am": "አማርኛ"}


# ----- request bodies: strict types (no float or bool for a number), bounded sizes -------
GAMES = tuple(VARIANTS)
Text = Annotated[StrictStr, StringConstraints(max_length=100)]
Short = Annotated[StrictStr, StringConstraints(max_length=40)]
Seat = Annotated[StrictInt, Field(ge=0, le=1)]
SPEC_LENGTH = 100


def _visitor_spec(spec: str) -> str:
    """A player spec a visitor may send: the reason a program or a file is refused comes
    first (whatever its length), then the length."""
    if names_a_program(spec):
        raise ValueError(OPERATOR_ONLY)
    if len(spec) > SPEC_LENGTH:
        raise ValueError(f"a player spec has at most {SPEC_LENGTH} characters")
    return spec


PlayerSpec = Annotated[StrictStr, AfterValidator(_visitor_spec),
                       Field(json_schema_extra={"maxLength": SPEC_LENGTH})]
OptionValue = Union[StrictBool, Annotated[StrictInt, Field(ge=-LARGEST, le=LARGEST)], Short]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Problem(BaseModel):
    """Why a request was refused; nothing was changed."""

    detail: str


# every route may answer these (documented, so clients and the API fuzzer know them)
ERRORS = {code: {"model": Problem, "description": what} for code, what in [
    (400, "bad input: an illegal move, an unknown option, a malformed record"),
    (403, "a token that holds no seat"), (404, "no such game"),
    (409, "out of turn, a stale position, or a game in another phase"),
    (413, "the request body is too large"),
    (429, "too many requests, or the computer is already thinking"),
    (507, "the server's storage for games is full")]}


class NewGame(Body):
    game: Literal[GAMES] = Field(description="the game")
    options: Annotated[dict[Short, OptionValue], Field(max_length=16)] = Field(
        default_factory=dict, description="the game's options")
    mode: Literal[MODES] = Field("local", description="local (two on one screen), computer "
                                                      "or online")
    bot: PlayerSpec | None = Field(None, description="the computer player: a level or a player "
                                                     "spec")
    human_seat: Seat = Field(0, description="the creator's seat: 0 (A, moves first) or 1 (B)")
    automove: StrictBool = Field(True, description="the computer plays its own moves (else "
                                                   "the person plays the move it shows)")
    names: Annotated[list[Text], Field(min_length=2, max_length=2)] | None = Field(
        None, description=f"the names of A and B (at most {NAME_LENGTH} characters each)")
    setup: StrictBool = Field(False, description="Urubugu: the players arrange their beads "
                                                 "first")
    helpers: StrictBool | None = Field(None, description="hints and exact values allowed "
                                                         "(default: not between two people "
                                                         "online)")
    position: Position | None = Field(None, description="start from this position instead "
                                                        "of the game's start (the analysis "
                                                        "board)")


class Position(Body):
    cells: Annotated[list[Annotated[StrictInt, Field(ge=0, le=LARGEST)]],
                     Field(min_length=1, max_length=64)] = Field(
        description="the counts of every cell, in the game's cell order")
    to_move: Seat = Field(0, description="the player to move: 0 (A) or 1 (B)")


class Answer(Body):
    move: StrictInt | Short = Field(description="the move: a cell or its name")


class LoadGame(Body):
    record: StrictStr = Field(description="a game record (the text of a saved game), or a file "
                                          "of several games")
    game: Annotated[StrictInt, Field(ge=1, le=100_000)] | None = Field(
        None, description="in a file of several games: this one (from 1)")
    mode: Literal[MODES] = "local"
    bot: PlayerSpec | None = None
    human_seat: Seat = 0
    automove: StrictBool = True


class RecordText(Body):
    record: StrictStr = Field(description="a game record, or a file of several games")


class Token(Body):
    token: Short | None = None


class Move(Token):
    move: StrictInt | Short = Field(description="a cell index or the move in the game's "
                                                "notation")
    ply: Annotated[StrictInt, Field(ge=0)] | None = Field(
        None, description="the number of moves played before it (0-based); a stale number is "
                          "refused, so a retry is safe")


class BotChange(Token):
    bot: PlayerSpec | None = None
    automove: StrictBool | None = None


class Setting(Token):
    seat: Seat
    setting: Annotated[list[Annotated[StrictInt, Field(ge=0, le=LARGEST)]],
                       Field(max_length=16)] = Field(
        description="16 counts, hole 1 first, 32 beads in all")


class Hint(Token):
    player: PlayerSpec = "expert"


# ----- the rooms the server holds -----------------------------------------------------
class Hub:
    """Rooms by id (loaded from the store on first use, dropped from memory when idle), a
    lock each, their watchers, and the computer's thinking."""

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits
        self.thinker = Thinker(limits)
        self.rooms: dict[str, Room] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.watchers: dict[str, set[tuple[WebSocket, str | None]]] = {}
        self.tasks: set[asyncio.Task] = set()
        self.kept: OrderedDict[str, Room] = OrderedDict()  # rooms holding a computer player
        self.sockets_by_client: Counter[str | None] = Counter()  # open websockets
        self.came: dict[str, set[int]] = {}  # the seats that have had a page open, by game
        self.preparation: Preparation | None = None  # exact play's files, built meanwhile
        self.reviews: dict[str, asyncio.Task] = {}  # the games whose positions are appraised
        self.reviewers: dict[str, str | None] = {}  # the client that asked, by game
        self.review_asked: dict[str, float] = {}  # when a game's review was last asked for
        self.review_errors: dict[str, str] = {}  # why a game's review stopped, if it failed
        self.appraised: OrderedDict[str, review.Appraisal] = OrderedDict()  # by position
        self.games_made = Allowance(limits.client_games, 24 * 3600)  # by client
        self.moves_loaded = Allowance(limits.load_moves, 3600)  # by client

    def charge(self, moves: int = 0) -> None:
        """Count a new game (and the ``moves`` of a loaded record) against the client's
        allowances and the disk: BusyError or FullError, and nothing counted, beyond them."""
        if self.store.size() > self.limits.db_bytes:
            raise FullError("the server's storage for games is full; try again later")
        client = CLIENT.get()
        charges = [(self.moves_loaded, moves, "moves of loaded records"),
                   (self.games_made, 1, "new games")]
        for allowance, amount, what in charges:  # every one checked before any is spent
            wait = allowance.wait(client, amount) if amount else 0.0
            if wait:
                hours = allowance.seconds / 3600
                raise BusyError(
                    f"at most {allowance.amount:,} {what} a client in "
                    f"{'an hour' if hours == 1 else f'{hours:g} hours'}"
                    + ("" if wait == float("inf") else f"; try again in {math.ceil(wait / 60)} "
                       "minutes"))
        for allowance, amount, _ in charges:
            if amount:
                allowance.take(client, amount)

    def room(self, game_id: str) -> Room:
        """The game ``game_id``, loaded from the store if it is not in memory. Called on the
        event loop only, so a game is never loaded twice. A loaded game whose computer is to
        move goes on thinking (the server may have stopped while it thought)."""
        room = self.rooms.get(game_id)
        if room is None:
            stored = self.store.load(game_id) if len(game_id) <= 40 else None
            if stored is None:
                raise HTTPException(404, f"no game {game_id[:40]!r}")
            room = self.rooms[game_id] = Room.from_stored(stored)
            self._resume(room)
        room.touched = time.monotonic()
        return room

    def _resume(self, room: Room) -> None:
        if room.bot_to_move() and not room.thinking and room.suggestion is None:
            self._spawn(self.computer_turns(room))

    def lock(self, game_id: str) -> asyncio.Lock:
        return self.locks.setdefault(game_id, asyncio.Lock())

    def add(self, room: Room) -> None:
        self.store.create(room.to_stored(), room.record.moves if room.record else [])
        room.touched = time.monotonic()
        self.rooms[room.id] = room

    async def broadcast(self, room: Room, skip: WebSocket | None = None) -> None:
        """Send the game to its watchers (but ``skip``): the view built once, then once per
        seat seen."""
        watchers = [w for w in self.watchers.get(room.id, ()) if w[0] is not skip]
        if not watchers:
            return
        shared = {**room.shared_view(), **self.presence(room)}
        texts: dict[int | None, str] = {}
        for _, token in watchers:
            seat = room.seat_of(token)
            if seat not in texts:
                texts[seat] = json.dumps({"type": "state",
                                          "state": room.view(token, shared)})
        await asyncio.gather(*(_send(socket, texts[room.seat_of(token)])
                               for socket, token in watchers))

    def presence(self, room: Room) -> dict:
        """Whether each seat has a page open on the game (a websocket holding its token)
        and whether it ever had (``came``: a player who left, not one not yet come)."""
        seats = {room.seat_of(token) for _, token in self.watchers.get(room.id, ())}
        came = self.came.setdefault(room.id, set())
        came.update(seats - {None})
        return {"present": [0 in seats, 1 in seats], "came": [0 in came, 1 in came]}

    def view(self, room: Room, token: str | None) -> dict:
        return {**room.view(token), **self.presence(room)}

    async def change(self, game_id: str, token: str | None, action) -> dict:
        """Run ``action(room)`` under the room's lock (it stores what it changes), tell the
        watchers, and answer with the room as ``token`` sees it."""
        room = self.room(game_id)
        async with self.lock(game_id):
            action(room)
        self.after_change(room)
        return self.view(room, token)

    def after_change(self, room: Room) -> None:
        """Tell the watchers, and let the computer move if it is its turn."""
        self._spawn(self.broadcast(room))
        self._resume(room)

    def _spawn(self, coroutine) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        task.add_done_callback(_log_failure)

    def computer(self, room: Room) -> Player:
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

    async def computer_turns(self, room: Room) -> None:
        """The computer thinks in a search thread, then plays (automove) or shows its move;
        a failure is shown to both players instead of hanging the game."""
        while room.bot_to_move() and room.suggestion is None and room.error is None:
            room.thinking = True
            version = room.version
            await self.broadcast(room)
            try:
                move = await self.thinker.choose(room.id, self._knowing(self.computer(room),
                                                                        room.state),
                                                 room.state, wait=True)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - said to the players, not hidden
                room.error = f"the computer could not move: {error}"
                room.version += 1
                break
            finally:
                room.thinking = False
            async with self.lock(room.id):
                if room.version != version:  # switched or changed meanwhile: think again if
                    continue                 # it is still the computer's turn
                try:
                    if room.automove:
                        room.play(self.store, None, move, by_computer=True)
                    else:
                        room.suggestion = move
                        room.version += 1
                    saved = True
                except Exception as error:  # noqa: BLE001 - a full disk: said, then retried
                    room.error = (f"the computer's move could not be saved ({error}); trying "
                                  f"again every {self.limits.retry_seconds:g} s")
                    room.version += 1
                    saved = False
            await self.broadcast(room)
            if not saved:  # nothing was changed (the move is stored before it is made)
                await asyncio.sleep(self.limits.retry_seconds)
                room.error = None
        await self.broadcast(room)  # no longer thinking

    def _knowing(self, player: Player, state) -> Player:
        """``player``, told the settled analysis of ``state`` when one is kept (the perfect
        player then plays from it: exact from the first move of a prepared game)."""
        if hasattr(player, "know"):
            player.know(state, self.store.analysis(analysis_key(state)))
        return player

    async def hint(self, game_id: str, token: str | None, spec: str) -> dict:
        """What player ``spec`` would play in the game, for a player holding a seat."""
        room = self.room(game_id)
        room.check_token(token)
        _check_helpers(room)
        adviser = self.thinker.player(spec, room.game)
        state = room.state
        try:
            move = await self.thinker.choose(room.id, self._knowing(adviser, state), state)
        finally:
            adviser.close()  # an engine's program ends with the request it was started for
        return {"move": move, "name": state.move_name(move), "player": adviser.spec,
                "value": adviser.last_info.get("value"),
                "exact": bool(adviser.last_info.get("exact"))}

    async def analysis(self, game_id: str, token: str | None) -> dict:
        """Every legal move's exact value for the player to move (Kalah), for a player
        holding a seat: the perfect player's analysis, capped like any search."""
        room = self.room(game_id)
        room.check_token(token)
        _check_helpers(room)
        state = room.state
        reason = solving.unsolvable(state.variant)
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

    async def review(self, game_id: str, token: str | None, start: bool = True) -> dict:
        """The game's review so far (each position's value, each move's mark), its positions
        appraised in the background, in turn with the client's other searches. A running
        game's review is for a seated player with helpers on, as its analysis. A client runs
        at most ``client_reviews`` reviews, a review goes through at most
        ``review_positions`` positions, and one nobody asks about for ``REVIEW_UNWATCHED``
        seconds stops."""
        room = self.room(game_id)
        if room.record is None:
            raise ConflictError("the game has not started yet")
        if not room.state.is_over:
            room.check_token(token)
            _check_helpers(room)
        self.review_asked[game_id] = time.monotonic()
        job = self.reviews.get(game_id)
        if start and (job is None or job.done()):
            client = CLIENT.get()
            mine = sum(1 for other in self.reviewers.values() if other == client)
            if mine >= self.limits.client_reviews:
                raise BusyError(f"you are already reviewing {mine} games, the most at once for "
                                "one visitor; try again when one is done")
            if len(self.reviews) >= self.limits.reviews:
                raise BusyError(f"the server is reviewing {len(self.reviews)} games, its most "
                                "at once; try again in a moment")
            self.review_errors.pop(game_id, None)
            self.reviewers[game_id] = client
            task = self.reviews[game_id] = asyncio.get_running_loop().create_task(
                self._appraise_all(room))
            self.tasks.add(task)  # cancelled when the server stops
            task.add_done_callback(self.tasks.discard)
        return self._review_of(room)

    def _appraisal(self, state) -> review.Appraisal | None:
        """``state``'s appraisal when known: kept from a review, or a settled analysis."""
        position = analysis_key(state)
        found = self.appraised.get(position)
        if found is None:
            answer = self.store.analysis(position)
            if answer is None:
                return None
            found = review.Appraisal(answer["value"], True, {
                entry["cell"]: entry["value"] for entry in answer.get("moves", [])},
                list(answer.get("best_cells", [])))
        self.appraised[position] = found
        self.appraised.move_to_end(position)
        while len(self.appraised) > APPRAISALS_KEPT:
            self.appraised.popitem(last=False)
        return found

    async def _appraise_all(self, room: Room) -> None:
        """Appraise the game's positions not appraised yet, the first first (the game may
        go on meanwhile: its positions are read again after each), at most
        ``review_positions`` of them, while somebody asks about the review. A failure is
        logged and shown with the review."""
        seconds = REVIEW_SECONDS
        if solving.unsolvable(room.state.variant) is not None:
            seconds *= ESTIMATE_ONLY
        reviewer = self.thinker.player(f"perfect:time={seconds:g}", room.game)
        ply = 0  # the positions before it are appraised
        try:
            while room.record is not None:
                states = room.record.states
                while ply < len(states) and self._appraisal(states[ply]) is not None:
                    ply += 1
                if ply >= min(len(states), self.limits.review_positions):
                    return
                if time.monotonic() - self.review_asked.get(room.id, 0) > REVIEW_UNWATCHED:
                    return
                found = await self.thinker.run(room.id, reviewer, reviewer.appraise,
                                               states[ply], wait=True)
                self.appraised[analysis_key(states[ply])] = found
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - logged and shown, not lost
            LOG.exception("the review of game %s failed", room.id)
            self.review_errors[room.id] = str(error) or type(error).__name__
        finally:
            reviewer.close()
            self.reviews.pop(room.id, None)
            self.reviewers.pop(room.id, None)

    def _review_of(self, room: Room) -> dict:
        # no more positions than a review appraises: a long game's are replayed, not kept
        states = room.record.states[: self.limits.review_positions + 1]
        moves, positions = list(room.record.moves), len(room.record.states)
        appraisals = []
        for state in states:
            found = self._appraisal(state)
            if found is None:
                break
            appraisals.append(found)
        values = [{"ply": ply, "value": review.for_player_a(state, found),
                   "exact": found.exact, "won": found.won}
                  for ply, (state, found) in enumerate(zip(states, appraisals))]
        return {"positions": positions, "appraised": len(appraisals),
                "running": room.id in self.reviews, "values": values,
                "limit": self.limits.review_positions,
                "error": self.review_errors.get(room.id),
                "moves": list(review.judged(states, moves, appraisals)),
                "bands": list(room.state.variant.review_bands)}

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

    async def end(self, game_id: str, token: str | None) -> dict:
        """A player proposes to end the game by the rule for endless play; against the
        computer, the computer's own search decides whether it agrees (capped like a move)."""
        room = self.room(game_id)
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
        return await self.change(game_id, token, lambda r: r.end(self.store, token, agrees))

    def sweep(self) -> None:
        """Free idle games' computer players, and drop idle, unwatched games from memory
        (they load again from the store when asked for)."""
        now = time.monotonic()
        for game_id, room in list(self.rooms.items()):
            idle = now - room.touched
            if room.thinking or self.lock(game_id).locked():
                continue
            if idle > self.limits.idle_player and room.player is not None:
                _free(room)
                self.kept.pop(game_id, None)
            if idle > self.limits.idle_room and not self.watchers.get(game_id):
                del self.rooms[game_id]
                self.locks.pop(game_id, None)
                self.watchers.pop(game_id, None)
                self.kept.pop(game_id, None)
                self.came.pop(game_id, None)
                self.review_asked.pop(game_id, None)
                self.review_errors.pop(game_id, None)

    async def sweeping(self) -> None:
        pause = max(0.05, min(self.limits.idle_player, self.limits.idle_room) / 4)
        while True:
            await asyncio.sleep(pause)
            self.sweep()


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


def _check_helpers(room: Room) -> None:
    if not room.helpers:
        raise ConflictError("hints and exact values are off in this game (between two people "
                            "they are on only when the game was made with them)")


def _log_failure(task: asyncio.Task) -> None:
    """Log a background task's failure (a task's error is otherwise never seen)."""
    if not task.cancelled() and task.exception() is not None:
        LOG.error("a background task failed", exc_info=task.exception())


def _free(room: Room) -> None:
    """Let the room's computer player go (an engine's program ends with it)."""
    if room.player is not None:
        room.player.close()
        room.player = None


async def _send(socket: WebSocket, text: str) -> None:
    """Send to one watcher; a closed or stuck socket is left behind, not waited for."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(socket.send_text(text), timeout=5)


SOLVER_TABLE_MEMORY = 256 << 20  # bytes


def create_app(db_path: str | Path, limits: Limits | None = None,
               on_warm_up=None, prepare: list[Step] | None = None) -> FastAPI:
    """The server's application, its games kept in the SQLite file ``db_path``; the rules
    and searches not compiled yet are compiled in the background once it starts
    (``on_warm_up(done, total, what)`` told as it goes), and what exact play needs
    (``prepare``: ``analysis.preparation.steps()``) is built in a background process."""
    limits = limits or Limits()
    limits.check()
    # the analysis and the perfect player share one solver table a game's rules: a server
    # keeps it small (its searches are capped at seconds anyway)
    solving.kalah.TABLE_CAP = min(SOLVER_TABLE_MEMORY, limits.solver_memory)
    solving.kalah.SOLVER_MEMORY = limits.solver_memory
    hub = Hub(Store(db_path), limits)
    limiter = Limiter(key_func=lambda request: scope_client(request.scope) or "")

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        hub.store.open()
        sweeper = asyncio.get_running_loop().create_task(hub.sweeping())
        if not READY.is_set():
            threading.Thread(target=warm_up, args=(on_warm_up,), name="mancalab-warm-up",
                             daemon=True).start()
        if prepare:
            hub.prepare(prepare)
        yield
        if hub.preparation is not None:
            hub.preparation.stop()
        sweeper.cancel()
        for task in list(hub.tasks):
            task.cancel()
        hub.thinker.close()
        hub.store.close()

    # FastAPIOffline serves the /docs page's scripts from the package: it works offline
    app = FastAPIOffline(title="mancalab", lifespan=lifespan, responses=ERRORS,
                         description="Play mancala games: create a game, get its state, play "
                                     "moves, ask the computer. Live updates: the websocket "
                                     "/api/games/{id}/ws?token=...")
    app.state.hub = hub
    app.state.limiter = limiter
    app.add_middleware(RequestGuard, limit=limits.body_bytes)

    async def answer(request: Request, error: MancalabError | MancalabFailure) -> JSONResponse:
        """Bad input (a 4xx) or a failure (a 5xx, 429), each error's own ``status``."""
        return JSONResponse({"detail": str(error)}, status_code=error.status)

    app.add_exception_handler(MancalabError, answer)
    app.add_exception_handler(MancalabFailure, answer)

    @app.exception_handler(RateLimitExceeded)
    async def too_many(request: Request, error: RateLimitExceeded) -> JSONResponse:
        retry = max(1, math.ceil(error.limit.limit.get_expiry() if error.limit else 60))
        return JSONResponse({"detail": f"too many requests: at most {error.detail}; try "
                                       "again later"}, status_code=429,
                            headers={"Retry-After": str(retry)})

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        headers = dict(error.headers or {})
        if error.status_code == 405:  # name every method of the path, not the first route's
            headers["Allow"] = ", ".join(sorted(_methods_of(app, request.scope)))
        return JSONResponse({"detail": error.detail}, status_code=error.status_code,
                            headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        # FastAPI's own answer echoes the input, which need not be JSON (a lone surrogate):
        # where and what is enough
        return JSONResponse({"detail": [{"loc": list(e.get("loc", ())), "msg": str(e["msg"]),
                                         "type": str(e["type"])} for e in error.errors()]},
                            status_code=422)

    @app.exception_handler(RecursionError)
    async def too_deep(request: Request, error: RecursionError) -> JSONResponse:
        return JSONResponse({"detail": "the request is nested too deeply"}, status_code=400)

    @app.get("/api/games", summary="The games, their options, players, levels and languages")
    async def catalogue() -> dict:
        games = {}
        for name, cls in VARIANTS.items():
            games[name] = {"title": cls.title,
                           "options": {k: _option_form(o) for k, o in cls.option_specs.items()},
                           "solvable": solving.unsolvable(cls()) is None,
                           "puzzles": puzzles.pick(name, 1000, 0) is not None,
                           "race": None if cls.race_option is None else {
                               "option": cls.race_option, "none": cls.no_race},
                           "score_noun": cls.score_noun}
        return {"games": games, "modes": list(MODES), "levels": LEVELS,
                "game_levels": GAME_LEVELS, "languages": LANGUAGES,
                # mancalab's players, then those the operator named (engines, files)
                "players": sorted(set(PLAYERS) - {"engine"}) + sorted(limits.players),
                "max_think": limits.max_think}

    @app.get("/api/preparation", summary="What exact play still needs on this server: per "
                                         "game whether it is ready and the seconds left")
    async def preparation() -> dict:
        if hub.preparation is None:
            return {"ready": True, "seconds_left": 0, "games": {}, "steps": []}
        return hub.preparation.status()

    new_games = limiter.shared_limit(limits.create_rate, scope="new games")
    searches = limiter.shared_limit(limits.hint_rate, scope="searches")

    @app.get("/api/examples/{game}", summary="A game's start and one move played on it, step "
                                             "by step (for the page's how-to-play)")
    async def example(game: Literal[GAMES]) -> dict:
        return _example(game)

    @app.post("/api/games", status_code=201, summary="Create a game")
    @new_games
    async def create_game(request: Request, body: NewGame) -> dict:
        if body.mode == "computer":
            hub.thinker.player(body.bot or "medium", body.game.strip().lower())
        room = Room.create(body.game, body.options, body.mode, bot=body.bot,
                           human_seat=body.human_seat, automove=body.automove, names=body.names,
                           setup=body.setup, helpers=body.helpers,
                           position=None if body.position is None
                           else (body.position.cells, body.position.to_move))
        hub.charge()
        return _created(hub, room, body.human_seat)

    @app.post("/api/games/load", status_code=201, summary="Go on with a saved game record")
    @new_games
    async def load_game(request: Request, body: LoadGame) -> dict:
        hub.charge(moves=moves_at_most(body.record, body.game))  # before reading it
        # replaying a long record is Python work: in a thread, so other games go on
        record = await asyncio.to_thread(GameRecord.from_text, body.record, body.game)
        if body.mode == "computer":
            hub.thinker.player(body.bot or "medium", record.variant.name)
        room = Room.create(record.variant.name, {}, body.mode, bot=body.bot,
                           human_seat=body.human_seat, automove=body.automove,
                           names=list(record.names), record=record)
        return _created(hub, room, body.human_seat)

    @app.post("/api/records/contents", summary="The games a record file holds (a tournament's "
                                               "holds many), from their headers: to choose one "
                                               "to load")
    async def record_contents(body: RecordText) -> dict:
        return {"games": contents(body.record)}

    @app.get("/api/games/{game_id}", summary="A game as the holder of the token sees it")
    async def get_game(game_id: str, token: str | None = None) -> dict:
        return hub.view(hub.room(game_id), token)

    @app.get("/api/games/{game_id}/positions/{ply}",
             summary="The position after the first PLY moves, and the last of them step by "
                     "step (to review a game)")
    async def position(game_id: str, ply: Annotated[int, FastAPIPath(ge=0, le=LARGEST)]) -> dict:
        room = hub.room(game_id)
        if room.record is None:
            raise ConflictError("the game has not started yet")
        record = room.record
        if ply > len(record.moves):
            raise HTTPException(404, f"the game has {len(record.moves)} moves, not {ply}")
        steps = None
        if ply:
            sowing = record.states[ply - 1].sowing(record.moves[ply - 1], limit=SOWING_STEPS)
            steps = None if sowing is None else [list(step) for step in sowing]
        return {"ply": ply, "state": board_view(record.states[ply]), "sowing": steps}

    @app.post("/api/games/{game_id}/moves", summary="Play a move for the seat to move")
    async def play(game_id: str, body: Move) -> dict:
        return await hub.change(game_id, body.token,
                                lambda room: room.play(hub.store, body.token, body.move, body.ply))

    @app.post("/api/games/{game_id}/undo", summary="Take back (online: ask, then agree)")
    async def undo(game_id: str, body: Token) -> dict:
        state = await hub.change(game_id, body.token,
                                 lambda room: room.undo(hub.store, body.token))
        asked = state["undo_request"] is not None  # online: waiting for the other's consent
        return {"undo": "asked" if asked else "undone", "state": state}

    @app.post("/api/games/{game_id}/end", summary="End the game by the rule for endless play "
                                                  "(online: propose, then agree; the computer "
                                                  "agrees by its evaluation)")
    @searches
    async def end(request: Request, game_id: str, body: Token) -> dict:
        state = await hub.end(game_id, body.token)
        return {"end": "ended" if state["result"] else "asked", "state": state}

    @app.post("/api/games/{game_id}/decline",
              summary="Online: refuse the other player's request to take back or to end")
    async def decline(game_id: str, body: Token) -> dict:
        return await hub.change(game_id, body.token,
                                lambda room: room.decline(hub.store, body.token))

    @app.post("/api/games/{game_id}/rematch", status_code=201,
              summary="The next game between the same players, seats swapped")
    @new_games
    async def rematch(request: Request, game_id: str, body: Token) -> dict:
        old = hub.room(game_id)
        old.check_token(body.token)
        hub.charge()
        async with hub.lock(game_id):
            room = old.new_rematch(body.token)
            old.save(hub.store)
        seat = old.seat_of(body.token)
        created = _created(hub, room, 0)
        token = old.rematch["tokens"][seat]
        hub.after_change(old)  # the other player's page offers the rematch
        return {**created, "token": token, "links": {
            **created["links"], "play": f"/?game={room.id}&token={token}"},
            "state": hub.view(room, token)}

    @app.post("/api/games/{game_id}/switch", summary="Swap sides with the computer")
    async def switch(game_id: str, body: Token) -> dict:
        return await hub.change(game_id, body.token,
                                lambda room: room.switch(hub.store, body.token))

    @app.post("/api/games/{game_id}/computer", summary="Change the computer player or automove")
    async def change_bot(game_id: str, body: BotChange) -> dict:
        if body.bot is not None:
            hub.thinker.player(body.bot, hub.room(game_id).game)
        return await hub.change(game_id, body.token, lambda room: room.set_bot(
            hub.store, body.token, body.bot, body.automove))

    @app.post("/api/games/{game_id}/setup", summary="Urubugu: arrange a seat's 32 beads")
    async def setup(game_id: str, body: Setting) -> dict:
        return await hub.change(game_id, body.token, lambda room: room.set_beads(
            hub.store, body.token, body.seat, body.setting))

    @app.post("/api/games/{game_id}/hint", summary="The move a player would make here "
                                                   "(for a player holding a seat)")
    @searches
    async def hint(request: Request, game_id: str, body: Hint) -> dict:
        return await hub.hint(game_id, body.token, body.player)

    @app.post("/api/games/{game_id}/analysis",
              summary="Every legal move's exact value for the player to move, or its bounds "
                      "when not proven in time (Kalah; for a player holding a seat)")
    @searches
    async def analysis(request: Request, game_id: str, body: Token) -> dict:
        return await hub.analysis(game_id, body.token)

    @app.post("/api/games/{game_id}/review",
              summary="The game's review: each position's value (exact where proven, else "
                      "an estimate) and each move's mark; its positions are appraised in the "
                      "background, so ask again until appraised equals positions")
    @searches
    async def review_game(request: Request, game_id: str, body: Token) -> dict:
        return await hub.review(game_id, body.token)

    @app.get("/api/games/{game_id}/review", summary="The game's review as far as it is")
    async def review_so_far(game_id: str, token: Short | None = None) -> dict:
        return await hub.review(game_id, token, start=False)

    @app.get("/api/puzzles/{game}", summary="A puzzle near a rating: a position where one "
                                            "move is clearly best (proven by the solver)")
    async def puzzle(game: Literal[GAMES],
                     rating: Annotated[float, Query(ge=0, le=4000)] = 1000,
                     draw: Annotated[int, Query(ge=0, le=LARGEST)] = 0) -> dict:
        found = puzzles.pick(game, rating, draw)
        if found is None:
            raise HTTPException(404, f"no puzzles for {game} (Kalah, Gebeta, Gabata and "
                                     "Urubugu have them)")
        state = found.state()
        return {"id": found.id, "game": game, "rating": found.rating, "kind": found.kind,
                **board_view(state)}

    @app.post("/api/puzzles/answer/{puzzle_id}", summary="Check a puzzle's answer: every "
                                                         "move's proven value, the best "
                                                         "move played step by step")
    async def answer(puzzle_id: Annotated[str, FastAPIPath(max_length=60)],
                     body: Answer) -> dict:
        found = puzzles.find(puzzle_id)
        if found is None:
            raise HTTPException(404, f"no puzzle {puzzle_id!r}")
        state = found.state()
        move = state.parse_move(body.move) if isinstance(body.move, str) else body.move
        if move not in state.legal_moves():
            raise MancalabError(f"{body.move!r} is not a legal move here (legal: "
                                f"{', '.join(state.move_name(m) for m in state.legal_moves())})")
        steps = state.sowing(found.best, limit=SOWING_STEPS)
        return {"correct": move == found.best, "move": move, "best": found.best,
                "best_name": found.best_name, "value": found.value,
                "moves": [{"cell": int(cell), "name": state.move_name(int(cell)),
                           "value": value} for cell, value in found.values.items()],
                "after": board_view(state.play(found.best)),
                "sowing": None if steps is None else [list(step) for step in steps]}

    @app.get("/api/lessons/{game}", summary="A game's lesson: its steps, each a position and "
                                            "the kind of move it asks for")
    async def lesson(game: Literal[GAMES]) -> dict:
        return {"game": game, "steps": [{"kind": kind, **board_view(state)}
                                        for kind, state in lessons.steps(game)]}

    @app.post("/api/lessons/{game}/{step}", summary="Check a lesson step's move: whether it "
                                                    "does what the step asks, step by step")
    async def lesson_move(game: Literal[GAMES], step: Annotated[int, FastAPIPath(ge=0, le=9)],
                          body: Answer) -> dict:
        taught = lessons.steps(game)
        if step >= len(taught):
            raise HTTPException(404, f"the {game} lesson has {len(taught)} steps")
        kind, state = taught[step]
        move = state.parse_move(body.move) if isinstance(body.move, str) else body.move
        if move not in state.legal_moves():
            raise MancalabError(f"{body.move!r} is not a legal move here (legal: "
                                f"{', '.join(state.move_name(m) for m in state.legal_moves())})")
        steps = state.sowing(move, limit=SOWING_STEPS)
        return {"ok": lessons.does(state, move, kind), "kind": kind, "move": move,
                "name": state.move_name(move), "after": board_view(state.play(move)),
                "sowing": None if steps is None else [list(s) for s in steps]}

    @app.get("/api/games/{game_id}/record", summary="The game record (text), to download",
             response_class=Response,
             responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}},
                              "description": "the record"}})
    async def record(game_id: str) -> PlainTextResponse:
        room = hub.room(game_id)
        if room.record is None:
            raise ConflictError("the game has not started yet")
        return PlainTextResponse(room.record.to_text(), headers={
            "Content-Disposition": f'attachment; filename="{room.game}-{room.id}.txt"'})

    @app.websocket("/api/games/{game_id}/ws")
    async def live(socket: WebSocket, game_id: str, token: str | None = None) -> None:
        try:
            room = hub.room(game_id)
        except HTTPException:
            await socket.close(code=4404, reason="no such game")
            return
        if not _same_origin(socket):
            await socket.close(code=4403, reason="a page of another site may not connect")
            return
        watchers = hub.watchers.setdefault(game_id, set())
        if len(watchers) >= limits.watchers:
            await socket.close(code=4429, reason="too many watchers of this game")
            return
        client = scope_client(socket.scope)
        if not admits(hub.sockets_by_client[client], hub.sockets_by_client.total(),
                      limits.sockets, limits.client_sockets, limits.share_connections):
            await socket.close(code=4429, reason="too many live connections from one address")
            return
        hub.sockets_by_client[client] += 1
        await socket.accept()
        watcher = (socket, token)
        watchers.add(watcher)
        seated = room.mode == "online" and room.seat_of(token) is not None
        try:
            await socket.send_json({"type": "state", "state": hub.view(room, token)})
            if seated:  # the others see who is here
                hub._spawn(hub.broadcast(room, skip=socket))
            sent = Allowance(WS_MESSAGES, WS_SECONDS)
            while True:
                message = await socket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                if sent.take(None, 1):
                    await socket.close(code=1008, reason=f"more than {WS_MESSAGES} messages in "
                                                         f"{WS_SECONDS:g} s")
                    break
                await _answer(hub, room, socket, token, message.get("text"))
        except WebSocketDisconnect:
            pass
        finally:
            watchers.discard(watcher)
            if seated:
                with contextlib.suppress(RuntimeError):  # the loop is closing
                    hub.after_change(room)
            hub.sockets_by_client[client] -= 1
            if hub.sockets_by_client[client] <= 0:
                del hub.sockets_by_client[client]

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _same_origin(socket: WebSocket) -> bool:
    """Whether a websocket comes from this server's own page (or from a program, which sends
    no Origin): a page of another site must not act with a visitor's link."""
    origin = socket.headers.get("origin")
    return origin is None or urlsplit(origin).netloc == socket.headers.get("host")


def _methods_of(app: FastAPI, scope) -> set[str]:
    """The methods the routes of the app's path answer at the path of ``scope``; the most
    literal path wins (``/api/games/load`` is not the game ``load``)."""
    matching = [route for route in app.routes if getattr(route, "methods", None)
                and route.matches({**scope, "method": "GET", "type": "http"})[0] != Match.NONE]
    if not matching:
        return set()
    literal = min(route.path.count("{") for route in matching)
    return {method for route in matching if route.path.count("{") == literal
            for method in route.methods}


def _created(hub: Hub, room: Room, seat: int) -> dict:
    hub.add(room)
    hub.after_change(room)
    token = room.tokens[seat]
    links = {"play": f"/?game={room.id}&token={token}", "watch": f"/?game={room.id}"}
    if room.mode == "online":
        links["invite"] = f"/?game={room.id}&token={room.tokens[1 - seat]}"
    return {"id": room.id, "token": token, "links": links, "state": hub.view(room, token)}


WS_MESSAGE = 1000  # characters: a move message is a few dozen
WS_MESSAGES, WS_SECONDS = 60, 10.0  # messages a websocket may send in that time (a person
# plays a move a second at most); beyond, it is closed


async def _answer(hub: Hub, room: Room, socket: WebSocket, token: str | None,
                  text: str | None) -> None:
    """A move sent over the websocket: ``{"type": "move", "move": ..., "ply": ...}``; the
    answer is ``ack`` once the move is stored, or ``error`` with the reason (the socket stays
    open). Types are as strict as over HTTP: a move is a whole number or its name."""
    try:
        if text is None:
            raise MancalabError("send text frames holding JSON")
        if len(text) > WS_MESSAGE:
            raise MancalabError(f"a message has at most {WS_MESSAGE} characters")
        message = parse_json(text)
        if not isinstance(message, dict) or message.get("type") != "move":
            raise MancalabError('send {"type": "move", "move": M, "ply": N}')
        move, ply = message.get("move"), message.get("ply")
        if isinstance(move, bool) or not isinstance(move, (int, str)) or \
                (isinstance(move, str) and len(move) > 40):
            raise MancalabError("the move must be a cell index (a whole number) or its name")
        if ply is not None and (isinstance(ply, bool) or not isinstance(ply, int) or ply < 0):
            raise MancalabError("ply must be a whole number >= 0")
        async with hub.lock(room.id):
            move = room.play(hub.store, token, move, ply)
            ply = room.ply
    except (MancalabError, ValueError, TypeError, RecursionError) as error:
        reason = "the message is nested too deeply" if isinstance(error, RecursionError) \
            else str(error)
        await _send(socket, json.dumps({"type": "error", "message": reason}))
        return
    await socket.send_json({"type": "ack", "move": move, "ply": ply})
    hub.after_change(room)


class RequestGuard:
    """Reads every HTTP request body first, whole and bounded, before the app sees it: one
    larger than ``limit`` bytes gets 413 (a declared length or a counted one: chunked bodies
    too), and a JSON body that holds a non-finite number (NaN, Infinity, 1e400), a whole
    number of more than ``DIGITS`` digits or a lone surrogate gets 400 naming it (they would
    pass the models' types and fail later, in a response or in SQLite). The app then reads
    the body from memory. Every answer carries the security headers."""

    def __init__(self, app, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket"):
            CLIENT.set(scope_client(scope))
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = _with_headers(send, scope)
        if scope["method"] == "HEAD":  # answered as GET, without the body
            scope, send = {**scope, "method": "GET"}, _headers_only(send)
        declared = dict(scope.get("headers", ())).get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > self.limit:
            await _refuse(send, 413, self._too_large())
            return
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                await _refuse(send, 413, self._too_large())
                return
            more = message.get("more_body", False)
        body = b"".join(chunks)
        problem = json_problem(body) if body and _json_type(scope) else None
        if problem:
            await _refuse(send, 400, problem)
            return
        delivered = False

        async def replay():
            nonlocal delivered
            if delivered:
                return await receive()  # the disconnect, when it comes
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    def _too_large(self) -> str:
        return (f"the request body is larger than {self.limit:,} bytes (or its length is not a "
                "number)")


DIGITS = 30  # the longest whole number a request may hold (LARGEST has 10)
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),  # the links carry the seats' tokens
]
# the page loads only its own files; the API's page (/docs) runs an inline script
PAGE_POLICY = (b"default-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; "
               b"object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
DOCS_POLICY = (b"default-src 'self'; img-src 'self' data:; script-src 'self' 'unsafe-inline'; "
               b"style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")


def _with_headers(send, scope):
    policy = DOCS_POLICY if scope.get("path", "").startswith(("/docs", "/redoc")) \
        else PAGE_POLICY

    async def sending(message):
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *SECURITY_HEADERS,
                                              (b"content-security-policy", policy)]}
        await send(message)

    return sending


def _headers_only(send):
    async def sending(message):
        if message["type"] == "http.response.body":
            message = {**message, "body": b""}
        await send(message)

    return sending


def _json_type(scope) -> bool:
    """Whether the body is read as JSON (FastAPI reads one without a content type so)."""
    kind = dict(scope.get("headers", ())).get(b"content-type", b"")
    return not kind or b"json" in kind


class _Refused(ValueError):
    pass


def _refuse_constant(name: str):
    raise _Refused(f"{name} is not a number here: numbers must be finite")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise _Refused(f"{text} is too large: numbers must be finite")
    return number


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > DIGITS:
        raise _Refused(f"a whole number of {len(text)} digits: at most {DIGITS}")
    return int(text)


def parse_json(text: str):
    """JSON as a request may hold it: finite numbers, whole numbers of at most ``DIGITS``
    digits and valid Unicode only; ValueError (its message for the client) otherwise."""
    value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite,
                       parse_int=_bounded_int)
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        raise _Refused("the text holds a lone surrogate (\\ud800-\\udfff alone is not a "
                       "character)") from error
    return value


def json_problem(body: bytes) -> str | None:
    """What makes a request's JSON body unacceptable, or None (malformed JSON is left to the
    app, which says where it breaks)."""
    try:
        parse_json(body.decode("utf-8"))
    except UnicodeDecodeError:
        return "the body is not UTF-8 text"
    except _Refused as error:
        return str(error)
    except (ValueError, RecursionError):
        return None
    return None


async def _refuse(send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
