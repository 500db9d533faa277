"""A game being played through the server: who may move for which seat, the computer player,
undo, a setting step (Urubugu's), and the view of the game sent to the page.

The rules are the game's kernels behind ``State``; a room only decides *who* may ask for a
move. Every change is written to the store before the caller is answered.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

from ..core import IllegalMoveError, MancalabError, State
from ..draw.html import board_view
from ..players import Player
from ..records import GameRecord, check_names, typed_options
from ..sowing import preview
from ..variants import VARIANTS, variant as make_variant
from .clocks import Clock
from .errors import ConflictError, NotAllowedError
from .store import Store, StoredGame
from .thinking import READY

MODES = ("local", "computer", "online")
COMPUTER = "Computer"
SOWING_STEPS = 3000  # a longer move (a relay can go on for thousands) is shown at once
FIRST_MOVE_SECONDS = 30.0  # on a Fischer clock, each player's first move comes within this
UNTIMED_FIRST_MOVE = 24 * 3600.0  # in a rated game without a clock
CLAIM_SECONDS = 30.0  # a player gone this long from a game on a Fischer clock: the other may
# claim the win


def new_token() -> str:
    return secrets.token_urlsafe(16)


def _same_secret(own: str, given: str) -> bool:
    """A constant-time comparison that takes any text (compare_digest refuses non-ASCII str)."""
    return secrets.compare_digest(own.encode(), given.encode())


@dataclass
class Room:
    """One game and its seats. ``tokens[seat]`` is the secret that may move for the seat;
    in a local game one token holds both seats, against the computer the bot's seat has none."""

    id: str
    mode: str
    tokens: list[str | None]
    names: list[str]
    record: GameRecord | None  # None while Urubugu's players still arrange their beads
    game: str
    options: dict
    bot: str | None = None
    bot_seat: int | None = None
    automove: bool = True
    suggestion: int | None = None  # the computer's move for the person to play (no automove)
    undo_request: int | None = None  # the seat that asked to take back the last move
    end_request: int | None = None  # the seat that proposed to end the game by the rule
    draw_request: int | None = None  # the seat that offered a draw
    drawn: bool = False  # the players agreed to a draw
    declined: dict | None = None  # the last request refused: {"kind", "by" (seat), "ply"},
    # shown to the one who asked until the game moves on
    agreed: bool = False  # the players agreed to end the game (the record says "agreement")
    helpers: bool = True  # hints and exact values (online: only when both agreed at creation)
    rematch: dict | None = None  # the next game: {"id": ..., "tokens": [by this game's seat]}
    accounts: list[str | None] = field(default_factory=lambda: [None, None])  # by seat
    bots: list[bool] = field(default_factory=lambda: [False, False])  # by seat: a BOT account
    guests: list[str | None] = field(default_factory=lambda: [None, None])  # by seat: the
    # digest of the guest cookie of a seat taken without an account (from the lobby)
    rated: bool = False  # the result changes both accounts' ratings (no take-backs)
    rated_done: bool = False  # the ratings were updated for the result
    rating_change: list | None = None  # [before, after] of each seat's rating, once rated
    ratings: list | None = None  # each seat's rating as shown when the game began (accounts)
    resigned: int | None = None  # the seat that resigned
    abandoned: int | None = None  # the seat that left a game on the clock (the other claimed)
    adjudicated: list | None = None  # ended by its organizer: [margin for seat 0, exact]
    tournament: str | None = None  # the class tournament the game is part of
    aborted: bool = False  # ended before both players moved, with no result
    aborted_by: int | None = None  # the seat that aborted it (None: nobody moved in time)
    first_move_by: float | None = None  # when the player to move must have made their first
    # move, or the game is aborted (online games on a clock, rated or in an arena)
    clock: Clock | None = None  # a Fischer clock kept by the server (web.clocks)
    arena: str | None = None  # the arena the game is part of
    public: bool = False  # listed to watch (games from the lobby and arenas; a friend's
    # game is private: only its links lead to it)
    ended_at: float | None = None  # when the game ended (seconds since the epoch)
    settings: list[list[int] | None] = field(default_factory=lambda: [None, None])
    setup_done: list[bool] = field(default_factory=lambda: [True, True])
    takebacks: int = 0  # moves were taken back this many times (a stored record's moves
    # then differ from a room's that holds fewer: ``refresh`` reads them all again)
    created: float = field(default_factory=time.time)
    version: int = 0  # raised by every change this process sees (the page's views)
    stored_version: int = 0  # the store's version of the game this room holds (-1: unknown)
    thinking: bool = False
    error: str | None = None  # why the computer could not move (shown until the level changes)
    player: Player | None = field(default=None, repr=False)  # the computer, made on first use
    player_spec: str | None = None
    touched: float = 0.0  # when the server last used the room (time.monotonic)
    _start: str | None = field(default=None, repr=False)  # the start as stored (_start_text)
    _sowing: tuple = field(default=(None, None), repr=False)  # (last state, its steps)
    _previews: tuple = field(default=(None, None), repr=False)  # (state, its moves' previews)
    _move_names: list = field(default_factory=list, repr=False)  # the moves' names, as shown
    _named_moves: list = field(default_factory=list, repr=False)  # the moves named there
    _named_seats: bytearray = field(default_factory=bytearray, repr=False)  # and their movers

    # ----- creation and storage ------------------------------------------------------
    @classmethod
    def create(cls, game: str, options: dict, mode: str, *, bot: str | None = None,
               human_seat: int = 0, automove: bool = True, names: list[str] | None = None,
               setup: bool = False, record: GameRecord | None = None,
               helpers: bool | None = None,
               position: tuple[list[int], int] | None = None) -> Room:
        """A new room, from the game's start or ``position`` (cells, player to move); raises
        MancalabError naming a bad game, option, mode, position or player."""
        if mode not in MODES:
            raise MancalabError(f"unknown mode {mode!r} (modes: {', '.join(MODES)})")
        if human_seat not in (0, 1):
            raise MancalabError(f"the seat must be 0 (A, moves first) or 1 (B), got {human_seat}")
        text = {k: v for k, v in options.items() if isinstance(v, str)}  # from a form
        options = {**options, **typed_options(text)}
        variant = record.variant if record else make_variant(game, **options)
        token = new_token()
        names = list(check_names(names)) if names is not None else ["A", "B"]
        if position is not None:
            if setup:
                raise MancalabError("a game from a position has no setting step")
            record = GameRecord(variant, variant.state(*position), (names[0], names[1]))
        if mode == "online" and names[0] == names[1]:
            raise MancalabError(f"the two players need different names (both are {names[0]!r})")
        room = cls(id=secrets.token_urlsafe(6), mode=mode, tokens=[token, token],
                   names=names, record=record, game=variant.name,
                   options=variant.non_default_options(),
                   helpers=mode != "online" if helpers is None else helpers)
        if mode == "computer":
            # the server checked the player before (Thinker.player: levels, specs and the
            # players its operator named), so a bad one fails before any game
            room.bot, room.bot_seat, room.automove = bot or "medium", 1 - human_seat, automove
            room.tokens[room.bot_seat] = None
            room.names[room.bot_seat] = COMPUTER
        elif mode == "online":
            room.tokens[1 - human_seat] = new_token()
        if record is None:
            if setup and not variant.has_setting:
                having = [cls.title.split(" (")[0] for cls in VARIANTS.values()
                          if cls.has_setting]
                raise MancalabError(f"{variant.title} has no setting step before the game "
                                    f"(games with one: {', '.join(having)})")
            room.setup_done = [not setup, not setup]
            if mode == "computer" and setup:
                room.setup_done[room.bot_seat] = True  # the computer keeps 2 beads a hole
            room._start_if_set()
        return room

    def _start_if_set(self) -> None:
        if self.record is None and all(self.setup_done):
            variant = make_variant(self.game, **self.options)
            start = variant.start(*self.settings) if variant.has_setting else variant.start()
            self.record = GameRecord(variant, start, (self.names[0], self.names[1]))

    def to_stored(self) -> StoredGame:
        self._start = self._start_text()
        return StoredGame(self.id, self.created, self._start, self._room_fields())

    def _start_text(self) -> str | None:
        if self.record is None:
            return None
        start = GameRecord(self.record.variant, self.record.start, tuple(self.names))
        start.date = self.record.date
        return start.to_text()

    def _room_fields(self) -> dict:
        return {"mode": self.mode, "tokens": self.tokens, "names": self.names, "game": self.game,
                "options": self.options, "bot": self.bot, "bot_seat": self.bot_seat,
                "automove": self.automove, "settings": self.settings,
                "setup_done": self.setup_done, "undo_request": self.undo_request,
                "end_request": self.end_request, "agreed": self.agreed,
                "draw_request": self.draw_request, "drawn": self.drawn,
                "helpers": self.helpers, "rematch": self.rematch, "accounts": self.accounts,
                "bots": self.bots, "guests": self.guests,
                "rated": self.rated, "rated_done": self.rated_done, "resigned": self.resigned,
                "abandoned": self.abandoned, "adjudicated": self.adjudicated,
                "tournament": self.tournament,
                "rating_change": self.rating_change, "ratings": self.ratings,
                "aborted": self.aborted, "aborted_by": self.aborted_by,
                "first_move_by": self.first_move_by,
                "clock": None if self.clock is None else self.clock.stored(),
                "arena": self.arena, "ended_at": self.ended_at, "public": self.public,
                "takebacks": self.takebacks, "result": self._result()}

    def _result(self) -> str | None:
        """A (the first seat won), B or D once the game is over with a result (an aborted
        game has none), for the store's column."""
        if self.record is None or not self.record.state.is_over or self.aborted:
            return None
        return self.record.result if self.record.result in ("A", "B", "D") else None

    @classmethod
    def from_stored(cls, stored: StoredGame, record: GameRecord | None = None) -> Room:
        """The room of ``stored``; ``record``: its first ``stored.first_ply`` moves, held
        (continued in place with the stored moves)."""
        fields = stored.room
        if stored.start_record is not None:
            record = record or GameRecord.from_text(stored.start_record)
            for move in stored.moves:
                record.push(move)
            if fields.get("agreed") and not record.state.is_over:
                record.end("agreement")
            if fields.get("resigned") is not None and not record.state.is_over:
                record.forfeit(fields["resigned"])
            if fields.get("drawn") and not record.state.is_over:
                record.forfeit(record.state.to_move, "draw", draw=True)
            if fields.get("abandoned") is not None and not record.state.is_over:
                record.forfeit(fields["abandoned"], "abandon")
            if fields.get("adjudicated") and not record.state.is_over:
                margin = fields["adjudicated"][0]
                record.forfeit(1 if margin > 0 else 0, "adjudication", draw=margin == 0)
            if fields.get("aborted") and not record.state.is_over:
                record.forfeit(record.state.to_move, "abort", draw=True)
        clock = Clock.of(fields.pop("clock", None))
        fields.pop("result", None)  # the store's column, worked out again from the record
        room = cls(id=stored.id, created=stored.created, record=record, clock=clock,
                   stored_version=stored.version, _start=stored.start_record, **fields)
        if clock is not None and clock.flagged is not None and not record.state.is_over:
            room._lose_on_time(clock.flagged)
        return room

    def save(self, store: Store) -> None:
        self._start = self._start_text()
        store.save_room(self.id, self._room_fields(), self._start, self.deadline())

    def deadline(self) -> float | None:
        """The next moment the game ends by itself: its running clock's flag, or the abort
        of a first move not made (whichever comes first), or None."""
        if self.record is None or self.record.state.is_over:
            return None
        found = [d for d in (self.clock.deadline() if self.clock is not None else None,
                             self.first_move_by) if d is not None]
        return min(found) if found else None

    def check_helpers(self) -> None:
        """ConflictError unless hints and exact values are on in the game."""
        if not self.helpers:
            raise ConflictError("hints and exact values are off in this game (between two "
                                "people they are on only when the game was made with them)",
                                code="helpers_off")

    # the fields a room holds only in this process's memory: kept when it is refreshed
    TRANSIENT = ("version", "thinking", "error", "player", "player_spec", "touched",
                 "suggestion")

    def held_moves(self) -> int:
        """The moves of the game this room holds as the store has them: a refresh needs
        the stored moves from there on (0 where what it holds may be ahead of the store)."""
        if self.record is None or self.stored_version < 0:
            return 0
        return len(self.record.moves)

    def refresh(self, stored: StoredGame) -> bool:
        """Become the stored game (another process changed it), keeping what only this
        process holds (its computer player, its thinking). A stored game that holds the
        moves after this room's first ``stored.first_ply`` continues its record (a move
        replays one move, not the whole game); False, and nothing changed, where it does
        not continue it (moves taken back, another start: load the whole game)."""
        record = None
        if stored.first_ply:
            if (self.record is None or len(self.record.moves) != stored.first_ply
                    or stored.start_record != self._start
                    or stored.room.get("takebacks", 0) != self.takebacks):
                return False
            record = self.record
        fresh = Room.from_stored(stored, record)
        if fresh.ply != self.ply:
            self.suggestion = None
        for name in self.__dataclass_fields__:
            if name not in self.TRANSIENT:
                setattr(self, name, getattr(fresh, name))
        self.version += 1
        return True

    # ----- who may do what -----------------------------------------------------------
    def seat_of(self, token: str | None) -> int | None:
        """The seat ``token`` holds (0, or 1; 0 for the one token of a local game), else None."""
        if not token:
            return None
        for seat, own in enumerate(self.tokens):
            if own is not None and _same_secret(own, token):
                return seat
        return None

    def check_token(self, token: str | None) -> None:
        self.seated(token)

    def seated(self, token: str | None) -> int:
        """The seat ``token`` holds; NotAllowedError for a spectator."""
        seat = self.seat_of(token)
        if seat is None:
            raise NotAllowedError("this token holds no seat in the game (spectators only watch)",
                                  code="no_seat")
        return seat

    def may_move(self, token: str | None, seat: int) -> bool:
        """Whether ``token`` may move for ``seat``: its own seat, both in a local game, and the
        computer's seat for the person playing the suggested move."""
        own = self.tokens[seat]
        if own is not None:
            return bool(token) and _same_secret(own, token)
        return self.mode == "computer" and self.seat_of(token) is not None

    @property
    def state(self) -> State:
        if self.record is None:
            raise ConflictError("the players are still arranging their beads")
        return self.record.state

    @property
    def ply(self) -> int:
        return len(self.record.moves) if self.record else 0

    def bot_to_move(self) -> bool:
        return (self.mode == "computer" and self.record is not None and not self.record.at_cap
                and not self.record.state.is_over and self.record.state.to_move == self.bot_seat)

    # ----- changes, each saved before it is answered ---------------------------------
    def play(self, store: Store, token: str | None, move: int | str, ply: int | None = None,
             by_computer: bool = False) -> int:
        """Play ``move`` (a cell index or the game's notation) for the seat to move."""
        state = self.state
        if state.is_over:
            raise ConflictError("the game is over", code="game_over")
        if self.record.at_cap:
            raise ConflictError(f"the game has reached its cap of "
                                f"{self.record.variant.history.move_cap:,} moves: no move is "
                                "taken; end it by agreement")
        if ply is not None and ply != self.ply:
            raise ConflictError(f"the game is at move {self.ply + 1}, not {ply + 1}: fetch it "
                                "again", code="stale")
        seat = state.to_move
        if not by_computer and not self.may_move(token, seat):
            if self.seat_of(token) is None:
                raise NotAllowedError("this token holds no seat in the game", code="no_seat")
            raise ConflictError(f"it is {self.names[seat]}'s turn, not yours",
                                code="not_your_turn", name=self.names[seat])
        move = state.parse_move(move) if isinstance(move, str) else int(move)
        if move not in state.legal_moves():
            raise IllegalMoveError(f"cell {move} is not a legal move here (legal: "
                                   f"{', '.join(map(state.move_name, state.legal_moves()))})")
        if (not by_computer and self.tokens[seat] is None and self.suggestion is not None
                and move != self.suggestion):
            name = state.move_name(self.suggestion)
            raise ConflictError(f"play the computer's move {name} for it")
        if not by_computer and self.tokens[seat] is None and self.suggestion is None:
            raise ConflictError("ask the computer for its move first")
        now = time.time()
        if self.clock is not None and self.clock.running == seat and \
                self.clock.left(seat, now) <= 0:
            raise ConflictError("your time has run out", code="time_out")
        store.add_move(self.id, self.ply, move)
        self.record.push(move)
        self.suggestion = None
        if self.clock is not None:
            after = self.record.state
            self.clock.moved(seat, None if after.is_over else after.to_move, now)
            if self.clock.running is not None:  # the other's time runs once the move is made
                self.clock.since = time.time()
            self.save(store)
        if self.undo_request is not None or self.end_request is not None or \
                self.draw_request is not None:
            self.undo_request = self.end_request = None  # a move answers every request
            if self.draw_request != seat:  # a draw offered stands through its maker's move
                self.draw_request = None
            self.save(store)
        if self.first_move_by is not None:  # the next player's first move is awaited, or none
            over = self.record.state.is_over or self.both_moved()
            self.first_move_by = None if over else now + self.first_move_seconds()
            self.save(store)
        self.version += 1
        return move

    def undo(self, store: Store, token: str | None) -> None:
        """Take back moves: one in a local game; against the computer back to the person's
        last turn; online only when both players ask (the first asks, the second agrees;
        ``undo_request`` says who asked until then)."""
        self.check_token(token)
        if self.rated or self.clock is not None:
            raise ConflictError("a rated or clocked game has no take-backs",
                                code="no_takebacks")
        if self.thinking:
            raise ConflictError("wait for the computer's move", code="wait_computer")
        if not self.ply:
            raise ConflictError("no move has been played")
        if self.mode == "online":
            if self._first_to_ask(store, token, "undo_request"):
                return
            self.undo_request = None
            keep = self.ply - 1
        elif self.mode == "computer":
            keep = self.ply - 1
            human = 1 - self.bot_seat
            while keep > 0 and self.record.states[keep].to_move != human:
                keep -= 1
            if self.record.states[keep].to_move != human:
                raise ConflictError("there is no move of yours to take back")
        else:
            keep = self.ply - 1
        store.remove_moves_from(self.id, keep)
        if self.agreed or self.resigned is not None:  # a take-back takes the end back too
            self.agreed, self.resigned = False, None
        self.record.truncate(keep)
        self.takebacks += 1
        self.save(store)
        self.suggestion = None
        self.version += 1

    def _first_to_ask(self, store: Store, token: str | None, request: str) -> bool:
        """Online, a request both players must make (``request``: the attribute naming who
        asked): True when ``token``'s seat is the first to ask (kept until the other asks
        too), False when the other had asked already (the request is granted)."""
        seat = self.seat_of(token)
        if getattr(self, request) in (None, seat):
            setattr(self, request, seat)
            self.save(store)
            self.version += 1
            return True
        return False

    def end(self, store: Store, token: str | None, computer_agrees: bool | None = None) -> None:
        """End the game by the rule for endless play, as the players agree: at once in a local
        game; online when both ask (the first proposes, the second agrees; ``end_request``
        says who proposed); against the computer when it agrees (``computer_agrees``, from
        its evaluation: ``Player.accepts_end``)."""
        self.check_token(token)
        if self.record is None or self.record.state.is_over:
            raise ConflictError("the game is not going on")
        if self.thinking:
            raise ConflictError("wait for the computer's move", code="wait_computer")
        if self.mode == "online":
            if self._first_to_ask(store, token, "end_request"):
                return
        elif self.mode == "computer" and not computer_agrees and not self.record.at_cap:
            raise ConflictError("the computer does not agree to end the game now: it expects "
                                "to do better by playing on", code="computer_plays_on")
        self.end_request, self.agreed = None, True
        if self.clock is not None:
            self.clock.stop()
        self.save(store)
        self.record.end("agreement")
        self.version += 1

    def resign(self, store: Store, token: str | None) -> None:
        """The holder of ``token`` resigns: their seat loses now (in a local game, the seat to
        move). A spectator cannot resign."""
        seat = self.seated(token)
        if self.record is None or self.record.state.is_over:
            raise ConflictError("the game is not going on")
        if self.thinking:
            raise ConflictError("wait for the computer's move", code="wait_computer")
        if self.mode == "local":
            seat = self.record.state.to_move
        self.resigned = seat
        self._forfeit(store, seat, "resign")

    def adjudicate(self, store: Store, margin: int, exact: bool) -> None:
        """Its organizer ends the game (a class tournament's stuck game): the first seat's
        ``margin`` decides it, ``exact`` when the solver proved it, else by the score."""
        if self.record is None or self.record.state.is_over:
            raise ConflictError("the game is not going on")
        self.adjudicated = [int(margin), bool(exact)]
        self._forfeit(store, 1 if margin > 0 else 0, "adjudication", draw=margin == 0)

    # ----- the first moves: a game nobody starts is aborted, with no result ----------------
    def both_moved(self) -> bool:
        """Whether each player has made a move (an extra turn is not the other's move)."""
        if self.record is None:
            return False
        states, first = self.record.states, self.record.states[0].to_move
        return any(states[i].to_move != first for i in range(1, self.ply))

    def watches_first_moves(self) -> bool:
        """Whether a player who does not make their first move in time aborts the game: an
        online game on a clock, rated or in an arena (lichess's rule)."""
        return self.mode == "online" and (self.clock is not None or self.rated
                                          or self.arena is not None)

    def first_move_seconds(self) -> float:
        """The time for a first move: ``FIRST_MOVE_SECONDS`` on a Fischer clock, a move's time
        on a correspondence clock, a day without a clock."""
        if self.clock is None:
            return UNTIMED_FIRST_MOVE
        return float(self.clock.base) if self.clock.per_move else FIRST_MOVE_SECONDS

    def await_first_move(self, now: float | None = None) -> bool:
        """Start the wait for the first move where the game watches it; True when it did (the
        caller saves the room)."""
        if self.first_move_by is not None or not self.watches_first_moves() or \
                self.record is None or self.record.state.is_over or self.both_moved():
            return False
        self.first_move_by = (time.time() if now is None else now) + self.first_move_seconds()
        return True

    def abort(self, store: Store, token: str | None, by_server: bool = False) -> None:
        """End the game with no result before both players have moved: a player asks
        (``token``; not in an arena, whose games are aborted only when a first move does not
        come), or the server when the first move's time is over (``by_server``)."""
        seat = None
        if not by_server:
            seat = self.seated(token)
            if self.arena is not None:
                raise ConflictError("an arena game is not aborted: play or resign",
                                    code="no_abort")
        if self.mode != "online":
            raise ConflictError("only a game between two people online is aborted; resign "
                                "or start a new game", code="no_abort")
        if self.record is None or self.record.state.is_over:
            raise ConflictError("the game is not going on")
        if self.both_moved():
            raise ConflictError("both players have moved: the game can no longer be aborted",
                                code="no_abort")
        self.aborted, self.aborted_by, self.first_move_by = True, seat, None
        self._forfeit(store, self.record.state.to_move, "abort", draw=True)

    def claim(self, store: Store, token: str | None, gone_for: float | None) -> None:
        """The holder of ``token`` claims the win: the other player, on a Fischer clock, has
        had no page open on the game for ``CLAIM_SECONDS`` (``gone_for``: how long, from the
        hub's presence) once both have moved (before, the game is aborted)."""
        seat = self.seated(token)
        if self.mode != "online" or self.clock is None or self.clock.per_move or \
                self.record is None or self.record.state.is_over or not self.both_moved():
            raise ConflictError("a win is claimed only in a game on a clock that both players "
                                "have started", code="no_claim")
        if gone_for is None or gone_for < CLAIM_SECONDS:
            wait = CLAIM_SECONDS - (gone_for or 0.0)
            raise ConflictError(f"{self.names[1 - seat]} has not been gone long enough: "
                                f"{wait:.0f} s more", code="claim_early",
                                name=self.names[1 - seat], seconds=round(wait))
        self.abandoned = 1 - seat
        self._forfeit(store, 1 - seat, "abandon")

    def offer_draw(self, store: Store, token: str | None) -> None:
        """Online, once both have moved: offer a draw, or accept the one the other offered
        (the game ends drawn: no winner, rated as a draw). Not in an arena (its points
        would be shared by agreement)."""
        self.seated(token)  # a seated player only
        if self.mode != "online" or self.arena is not None or self.record is None or \
                self.record.state.is_over or not self.both_moved():
            raise ConflictError("a draw is offered between two people online once both have "
                                "moved (not in an arena)", code="no_draw")
        if self._first_to_ask(store, token, "draw_request"):
            return
        self.drawn = True
        self._forfeit(store, self.record.state.to_move, "draw", draw=True)

    def _forfeit(self, store: Store, loser: int, termination: str, draw: bool = False) -> None:
        """End the game now whatever the board says (``GameRecord.forfeit``): the requests
        answered, the clock stopped, the room saved (the flag the caller set with it) before
        the record changes."""
        self.undo_request = self.end_request = self.draw_request = None
        if self.clock is not None:
            self.clock.stop()
        self.save(store)
        self.record.forfeit(loser, termination, draw=draw)
        self.version += 1

    def flag(self, store: Store) -> int:
        """The running side's time has run out (the hub's timer says so): it loses, or draws
        when the other could not win any more."""
        side = self.clock.flag()
        self.undo_request = self.end_request = None
        self.save(store)
        self._lose_on_time(side)
        self.version += 1
        return side

    def _lose_on_time(self, side: int) -> None:
        state = self.record.state
        self.record.forfeit(side, "time",
                            draw=not state.variant.can_win(state, 1 - side))

    def decline(self, store: Store, token: str | None) -> None:
        """Online: refuse the other player's request to take back a move or to end."""
        seat = self.seated(token)
        asked = [name for name in ("undo_request", "end_request", "draw_request")
                 if getattr(self, name) == 1 - seat]
        if not asked:
            raise ConflictError("the other player has asked for nothing to decline")
        for name in asked:
            setattr(self, name, None)
        self.declined = {"kind": asked[0].removesuffix("_request"), "by": seat, "ply": self.ply}
        self.save(store)
        self.version += 1

    def new_rematch(self, token: str | None) -> Room:
        """The next game between the same players on the same terms (rules, clock, rated or
        casual), the seats swapped (the one who played second moves first); this room
        remembers it and who asked, so that the other player is offered it. MancalabError
        before the game has ended, when it has one already, or in an arena (which pairs its
        players itself)."""
        seat = self.seated(token)
        if self.record is None or not self.record.state.is_over:
            raise ConflictError("a rematch follows a finished game")
        if self.rematch is not None:
            raise ConflictError("this game has its rematch already")
        if self.arena is not None:
            raise ConflictError("an arena pairs its players again by itself",
                                code="arena_rematch")
        if self.mode == "computer":  # the person takes the other seat
            human = 1 - self.bot_seat
            room = Room.create(self.game, dict(self.options), self.mode, bot=self.bot,
                               human_seat=1 - human, automove=self.automove,
                               names=[self.names[human]] * 2, helpers=self.helpers)
            tokens = [room.tokens[1 - human]] * 2
        else:  # the players swap seats: each keeps their name, on the other side
            room = Room.create(self.game, dict(self.options), self.mode,
                               names=self.names[::-1], helpers=self.helpers)
            tokens = [room.tokens[1], room.tokens[0]]
            room.accounts, room.rated, room.public = self.accounts[::-1], self.rated, \
                self.public
            room.bots, room.guests = self.bots[::-1], self.guests[::-1]
            if self.clock is not None:
                room.clock = Clock(self.clock.base, self.clock.increment, self.clock.per_move)
        self.rematch = {"id": room.id, "tokens": tokens, "by": seat, "declined": False}
        self.version += 1
        return room

    def decline_rematch(self, store: Store, token: str | None) -> str:
        """The player who did not ask declines the rematch: the asker is told, and the id of
        the rematch (for the server to abort it) is answered."""
        seat = self.seated(token)
        if self.rematch is None or self.rematch.get("by") in (None, seat) or \
                self.rematch.get("declined"):
            raise ConflictError("there is no rematch offered to you")
        self.rematch["declined"] = True
        self.save(store)
        self.version += 1
        return self.rematch["id"]

    def switch(self, store: Store, token: str | None) -> None:
        """The person takes the computer's side and the computer theirs."""
        self._require_computer(token)
        human = 1 - self.bot_seat
        self.tokens[self.bot_seat], self.tokens[human] = self.tokens[human], None
        self.names[self.bot_seat], self.names[human] = self.names[human], COMPUTER
        self.bot_seat, self.suggestion = human, None
        if self.record is not None:
            self.record.names = (self.names[0], self.names[1])
        self.save(store)
        self.version += 1

    def set_bot(self, store: Store, token: str | None, bot: str | None,
                automove: bool | None) -> None:
        """A new computer player or level, and/or automove on or off."""
        self._require_computer(token)
        if bot is not None:  # checked by the server first, as for a new game
            self.bot = bot
        if automove is not None:
            self.automove = automove
        self.suggestion = self.error = None  # a new level may move where the old one failed
        self.save(store)
        self.version += 1

    def _require_computer(self, token: str | None) -> None:
        self.check_token(token)
        if self.mode != "computer":
            raise ConflictError("only a game against the computer has a computer player")

    def set_beads(self, store: Store, token: str | None, seat: int, setting: list[int]) -> None:
        """A game with a setting step (Urubugu): ``seat`` arranges its counters."""
        if not self.may_move(token, seat) or self.tokens[seat] is None:
            raise NotAllowedError(f"this token may not arrange {self.names[seat]}'s beads")
        if self.record is not None or self.setup_done[seat]:
            raise ConflictError(f"{self.names[seat]} has no beads left to arrange")
        self.settings[seat] = make_variant(self.game, **self.options).check_setting(setting,
                                                                                  seat)
        self.setup_done[seat] = True
        self._start_if_set()
        self.save(store)
        self.version += 1

    # ----- the view sent to the page -------------------------------------------------
    def view(self, token: str | None = None, shared: dict | None = None) -> dict:
        """Everything the page draws, as seen by the holder of ``token`` (``shared``: the
        shared view, when it was built already)."""
        seat = self.seat_of(token)
        out = {**(shared or self.shared_view()), "seat": seat}
        if self.rematch is not None and seat is not None:
            out["rematch"] = {"id": self.rematch["id"], "token": self.rematch["tokens"][seat],
                              "by": self.rematch.get("by"),
                              "declined": self.rematch.get("declined", False)}
        return out

    def shared_view(self) -> dict:
        """The view without the viewer's seat: the same for every watcher, built once for
        all of them."""
        out = {"id": self.id, "game": self.game, "options": self.options, "mode": self.mode,
               "names": self.names, "local": self.mode == "local",
               "bot": self.bot, "bot_seat": self.bot_seat, "automove": self.automove,
               "thinking": self.thinking, "error": self.error, "preparing": not READY.is_set(),
               "undo_request": self.undo_request, "end_request": self.end_request,
               "draw_request": self.draw_request,
               "declined": self.declined if self.declined and self.declined["ply"] == self.ply
               and self.record is not None and not self.record.state.is_over else None,
               "version": self.version, "setup_done": self.setup_done, "ply": self.ply,
               "helpers": self.helpers, "rematch": None, "accounts": self.accounts,
               "bots": self.bots, "rated": self.rated, "arena": self.arena, "first_move_by": self.first_move_by,
               "ratings": self.ratings, "claim_seconds": CLAIM_SECONDS,
               "first_move_left": None if self.first_move_by is None
               else round(max(0.0, self.first_move_by - time.time()), 1),
               "abortable": self.mode == "online" and self.arena is None
               and self.record is not None and not self.record.state.is_over
               and not self.both_moved()}
        if self.record is None:
            variant = make_variant(self.game, **self.options)
            out.update(board_view(variant.start()), started=False, moves=[])
            return out
        state = self.record.state
        out.update(board_view(state), started=True, moves=self.move_list(),
                   sowing=self.last_sowing(), suggestion=self.suggestion,
                   suggestion_name=None if self.suggestion is None
                   else state.move_name(self.suggestion))
        if out["result"] is not None:  # ended by a repetition, agreement, resignation, time
            out["result"]["termination"] = self.record.termination
            out["result"]["ended_at"] = self.ended_at
            if self.aborted:
                out["result"]["aborted_by"] = self.aborted_by
            if self.resigned is not None:
                out["result"]["resigned"] = self.resigned
            if self.clock is not None and self.clock.flagged is not None:
                out["result"]["flagged"] = self.clock.flagged
        if self.rating_change is not None:
            out["rating_change"] = self.rating_change
        if self.clock is not None:
            out["clock"] = self.clock.view()
        return out

    def move_list(self) -> list[dict]:
        """The moves in the game's notation, each named once (a long game's list is not named
        again for every view): after an undo the names past the moves kept are dropped."""
        record, names, named = self.record, self._move_names, self._named_moves
        kept = min(len(names), len(record.moves))
        if named[:kept] != record.moves[:kept]:
            kept = next(i for i, (a, b) in enumerate(zip(named, record.moves)) if a != b)
        del names[kept:], named[kept:], self._named_seats[kept:]
        for state, move in zip(record.states[kept:], record.moves[kept:]):
            names.append(record.variant.move_name(state, move))
            named.append(move)
            self._named_seats.append(state.to_move)
        return [{"move": move, "name": name, "seat": seat}
                for move, name, seat in zip(named, names, self._named_seats)]

    def previews(self) -> dict:
        """What each legal move would do now (``sowing.preview``: where it lands, what it
        takes, whether the mover plays again; ``way``: its hole and first drops, for an arrow),
        worked out once a position."""
        if self.record is None:
            raise ConflictError("the game has not started yet", code="not_started")
        state = self.record.state
        if self._previews[0] is not state:
            self._previews = (state, [preview(state, move, SOWING_STEPS)
                                      for move in state.legal_moves()])
        return {"ply": self.ply, "moves": self._previews[1]}

    def last_sowing(self) -> list[list] | None:
        """The last move step by step, [kind, cell, count, hand] each (``State.sowing``), so
        the page can animate it seed by seed; None before the first move or for a very long
        move. Worked out once per move, not once per watcher."""
        record = self.record
        if record is None or not record.moves:
            return None
        if self._sowing[0] is not record.state:
            steps = record.states[-2].sowing(record.moves[-1], limit=SOWING_STEPS)
            self._sowing = (record.state, None if steps is None else [list(s) for s in steps])
        return self._sowing[1]
