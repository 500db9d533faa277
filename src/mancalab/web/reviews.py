"""Looking back at a game: its review (each position's value and each move's mark, the
positions appraised in the background in turn with the client's other searches) and the
best continuation from any of its positions."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from typing import TYPE_CHECKING

from .. import kernels
from ..analysis import solving
from ..analysis.teach import review
from .errors import BusyError, ConflictError, NotFoundError
from .rooms import Room
from .store import analysis_key
from .thinking import CLIENT

if TYPE_CHECKING:
    from .hub import Hub

LOG = logging.getLogger("mancalab.web")
REVIEW_SECONDS = 1.0  # a review's time a position: half to solve it, half to estimate it
# (a 40-move review within 20 s); a game with no solver only estimates, in this share of it
ESTIMATE_ONLY = 0.4
REVIEW_UNWATCHED = 20.0  # seconds: a review nobody asks about (the page asks every 1.5 s) stops
CONTINUATION_MOVES = 6  # a best continuation's moves at most
CONTINUATION_SECONDS = 0.5  # a continuation's move where no exact appraisal is kept
APPRAISALS_KEPT = 20_000  # positions' appraisals kept for reviews (the least recent go)


class Reviews:
    """The reviews of one server's games (``hub`` holds the games and the searches)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.running: dict[str, asyncio.Task] = {}  # the games whose positions are appraised
        self.reviewers: dict[str, str | None] = {}  # the client that asked, by game
        self.asked: dict[str, float] = {}  # when a game's review was last asked for
        self.errors: dict[str, str] = {}  # why a game's review stopped, if it failed
        self.appraised: OrderedDict[str, review.Appraisal] = OrderedDict()  # by position

    def forget(self, game_id: str) -> None:
        """The game left memory."""
        self.asked.pop(game_id, None)
        self.errors.pop(game_id, None)

    async def review(self, game_id: str, token: str | None, start: bool = True) -> dict:
        """The game's review so far (each position's value, each move's mark), its positions
        appraised in the background, in turn with the client's other searches. A running
        game's review is for a seated player with helpers on, as its analysis. A client runs
        at most ``client_reviews`` reviews, a review goes through at most
        ``review_positions`` positions, and one nobody asks about for ``REVIEW_UNWATCHED``
        seconds stops."""
        room = self._reviewable(game_id, token)
        self.asked[game_id] = time.monotonic()
        job = self.running.get(game_id)
        if start and (job is None or job.done()):
            client = CLIENT.get()
            mine = sum(1 for other in self.reviewers.values() if other == client)
            if mine >= self.hub.limits.client_reviews:
                raise BusyError(f"you are already reviewing {mine} games, the most at once for "
                                "one visitor; try again when one is done")
            if len(self.running) >= self.hub.limits.reviews:
                raise BusyError(f"the server is reviewing {len(self.running)} games, its most "
                                "at once; try again in a moment")
            self.errors.pop(game_id, None)
            self.reviewers[game_id] = client
            task = self.running[game_id] = asyncio.get_running_loop().create_task(
                self._appraise_all(room))
            self.hub.tasks.add(task)  # cancelled when the server stops
            task.add_done_callback(self.hub.tasks.discard)
        return self._review_of(room)

    def _reviewable(self, game_id: str, token: str | None) -> Room:
        """The game, when the holder of ``token`` may look back at it: a finished game,
        anyone; a running one, a seated player with helpers on."""
        room = self.hub.games.room(game_id)
        if room.record is None:
            raise ConflictError("the game has not started yet", code="not_started")
        if not room.state.is_over:
            room.check_token(token)
            room.check_helpers()
        return room

    async def continuation(self, game_id: str, token: str | None, ply: int) -> dict:
        """The best continuation from the position after ``ply`` moves: up to
        ``CONTINUATION_MOVES`` moves, each a proven best move where the position's appraisal
        is exact (from the review or a kept analysis) or the perfect player proves it in
        ``CONTINUATION_SECONDS``, else the expert's choice; ``exact`` when every one is
        proven. Who may ask: as for the review."""
        room = self._reviewable(game_id, token)
        states = room.record.states
        if ply >= len(states):
            raise NotFoundError(f"the game has {len(states) - 1} moves, not {ply}")
        state, line, exact = states[ply], [], True
        game = list(states[:ply + 1]) if kernels.repetitions_of(state.variant) else []
        while len(line) < CONTINUATION_MOVES and not state.is_over:
            known = self._appraisal(state)
            if known is not None and known.exact and known.best_cells:
                move = known.best_cells[0]
            else:
                kind = "perfect" if solving.unsolvable(state.variant) is None else "expert"
                adviser = self.hub.thinker.player(f"{kind}:time={CONTINUATION_SECONDS:g}",
                                              room.game)
                try:
                    knowing = self.hub.computer.knowing(adviser, state, game)
                    move = await self.hub.thinker.choose(room.id, knowing, state)
                finally:
                    adviser.close()
                exact = exact and bool(adviser.last_info.get("exact"))
            line.append({"cell": move, "name": state.move_name(move), "seat": state.to_move})
            state = state.play(move)
            if game:
                game.append(state)
        return {"ply": ply, "moves": line, "exact": exact and bool(line),
                "ends": state.is_over}

    def _appraisal(self, state) -> review.Appraisal | None:
        """``state``'s appraisal when known: kept from a review, or a settled analysis."""
        position = analysis_key(state)
        found = self.appraised.get(position)
        if found is None:
            answer = self.hub.store.analysis(position)
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
        reviewer = self.hub.thinker.player(f"perfect:time={seconds:g}", room.game)
        ply = 0  # the positions before it are appraised
        try:
            while room.record is not None:
                states = room.record.states
                while ply < len(states) and self._appraisal(states[ply]) is not None:
                    ply += 1
                if ply >= min(len(states), self.hub.limits.review_positions):
                    return
                if time.monotonic() - self.asked.get(room.id, 0) > REVIEW_UNWATCHED:
                    return
                found = await self.hub.thinker.run(room.id, reviewer, reviewer.appraise,
                                               states[ply], wait=True)
                self.appraised[analysis_key(states[ply])] = found
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - logged and shown, not lost
            LOG.exception("the review of game %s failed", room.id)
            self.errors[room.id] = str(error) or type(error).__name__
        finally:
            reviewer.close()
            self.running.pop(room.id, None)
            self.reviewers.pop(room.id, None)

    def _review_of(self, room: Room) -> dict:
        # no more positions than a review appraises: a long game's are replayed, not kept
        states = room.record.states[: self.hub.limits.review_positions + 1]
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
                "running": room.id in self.running, "values": values,
                "limit": self.hub.limits.review_positions,
                "error": self.errors.get(room.id),
                "moves": list(review.judged(states, moves, appraisals)),
                "bands": list(room.state.variant.teaching.review_bands)}
