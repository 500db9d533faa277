"""The bridge: any local player (a level, a spec, ``ugi:cmd=...``, ``engine:cmd=...``, a
Python file) plays on a mancalab server as its BOT account, as lichess-bot does for lichess.

``Bridge.run`` follows the account's event stream (``/api/stream/event``): it accepts or
declines each challenge by its ``Policy``, and plays every game that starts in a thread of its
own, following that game's stream and answering each position where it is to move. A lost
connection is made again (waiting 1, 2, 4 ... up to 30 s); a game's player is told both clocks
and thinks at most a share of its own. Only the standard library speaks HTTP here.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Callable, Iterator

from ..core import MancalabError, MancalabFailure
from ..players import player as make_player
from ..records import GameRecord
from ..variants import variant as make_variant

STREAM_SILENCE = 30.0  # seconds without a line (the server sends one every 6 s): reconnect
REQUEST_SECONDS = 15.0
BACKOFF = (1, 2, 4, 8, 15, 30)
CLOCK_SHARE = 20  # a move takes at most a twentieth of the mover's clock, plus most of its
# increment


class BridgeError(MancalabFailure):
    """The server cannot be reached, or a stream broke: tried again."""


class BridgeRefused(MancalabError):
    """The server refused a request (a bad or revoked token, not a BOT, an illegal move):
    said, not tried again."""


@dataclass
class Policy:
    """Which challenges the bot accepts: games, rated and casual, the shortest clock, and
    how many games at once."""

    games: set[str] | None = None  # None: every game
    rated: bool = True
    casual: bool = True
    min_base: float = 0.0  # seconds
    at_once: int = 4

    def refusal(self, challenge: dict, playing: int) -> str | None:
        """The reason to decline ``challenge`` (the server's words), or None to accept."""
        if self.games is not None and challenge["game"] not in self.games:
            return "game"
        if challenge["rated"] and not self.rated:
            return "casual"
        if not challenge["rated"] and not self.casual:
            return "rated"
        clock = challenge.get("clock")
        if self.min_base and (clock is None or clock["base"] < self.min_base):
            return "clock"
        if playing >= self.at_once:
            return "later"
        return None


@dataclass
class Bridge:
    server: str
    token: str
    spec: str
    policy: Policy = field(default_factory=Policy)
    log: Callable[[str], None] = print
    games_wanted: int | None = None  # stop after this many games ended (None: never)
    name: str = ""
    playing: dict[str, threading.Thread] = field(default_factory=dict)
    finished: int = 0
    stopped: threading.Event = field(default_factory=threading.Event)

    # ----- HTTP -------------------------------------------------------------------------
    def _request(self, method: str, path: str, body: dict | None = None,
                 timeout: float = REQUEST_SECONDS):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.server.rstrip("/") + path, data=data, method=method,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json",
                     "Accept": "application/json"})
        return urllib.request.urlopen(request, timeout=timeout)

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        """The server's JSON answer; BridgeError with its words for a refusal."""
        try:
            with self._request(method, path, body) as answer:
                return json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as error:
            try:
                detail = json.loads(error.read()).get("detail", "")
            except ValueError:
                detail = ""
            raise BridgeRefused(f"{method} {path}: {error.code} {detail}".strip()) from None
        except (urllib.error.URLError, OSError) as error:
            raise BridgeError(f"cannot reach {self.server}: {error}") from None

    def lines(self, path: str) -> Iterator[dict | None]:
        """The NDJSON lines of a stream (None for a keep-alive); ends when it closes."""
        try:
            with self._request("GET", path, timeout=STREAM_SILENCE) as stream:
                for raw in stream:
                    text = raw.decode().strip()
                    yield json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            raise BridgeRefused(f"GET {path}: {error.code} {error.read()[:200]!r}") from None
        except (urllib.error.URLError, OSError, ValueError) as error:
            raise BridgeError(f"the stream {path} broke: {error}") from None

    # ----- the account's events ---------------------------------------------------------
    def start(self) -> None:
        """Check the token and that its account is a BOT (BridgeError if not)."""
        account = self.call("GET", "/api/account")
        if not account.get("bot"):
            raise BridgeRefused(f"{account.get('name')} is not a BOT account: upgrade it first "
                              "(mancalab bot --upgrade)")
        self.name = account["name"]
        make_player(self.spec)  # a bad spec fails now, before any game

    def run(self) -> None:
        """Follow the events until ``stop`` (or ``games_wanted`` games have ended)."""
        self.start()
        self.log(f"{self.name} is online, playing {self.spec}")
        failures = 0
        while not self.stopped.is_set():
            try:
                for event in self.lines("/api/stream/event"):
                    failures = 0
                    if self.stopped.is_set():
                        break
                    if event is not None:
                        self._on_event(event)
            except BridgeError as error:
                wait = BACKOFF[min(failures, len(BACKOFF) - 1)]
                failures += 1
                self.log(f"{error}; connecting again in {wait} s")
                self.stopped.wait(wait)
        for thread in list(self.playing.values()):
            thread.join(timeout=5)

    def stop(self) -> None:
        self.stopped.set()

    def _on_event(self, event: dict) -> None:
        kind = event.get("type")
        if kind == "challenge":
            self._on_challenge(event["challenge"])
        elif kind == "gameStart":
            game_id = event["game"]["id"]
            if game_id not in self.playing:
                thread = threading.Thread(target=self._play, args=(game_id,), daemon=True,
                                          name=f"mancalab-bot-{game_id}")
                self.playing[game_id] = thread
                thread.start()

    def _on_challenge(self, challenge: dict) -> None:
        if challenge.get("to") != self.name:
            return  # one of our own challenges
        why = self.policy.refusal(challenge, len(self.playing))
        path = f"/api/challenge/{challenge['id']}"
        try:
            if why is None:
                self.call("POST", path + "/accept")
                self.log(f"accepted {challenge['by']}'s challenge ({challenge['game']})")
            else:
                self.call("POST", path + "/decline", {"reason": why})
                self.log(f"declined {challenge['by']}'s challenge ({why})")
        except (BridgeError, BridgeRefused) as error:
            self.log(str(error))

    # ----- a game -----------------------------------------------------------------------
    def _play(self, game_id: str) -> None:
        player, answered, failures = None, -1, 0
        try:
            while not self.stopped.is_set():
                try:
                    for line in self.lines(f"/api/bot/game/stream/{game_id}"):
                        failures = 0
                        if line is None:
                            continue
                        if line["type"] == "gameFull":  # the game as it is: a move
                            # whose sending failed is chosen again (sent with its ply, it
                            # is refused if it was played after all)
                            full, seat, answered = line, line["seat"], -1
                            variant = make_variant(full["game"], **full["options"])
                            if player is None:
                                player = make_player(self.spec, variant.name)
                                self.log(f"game {game_id}: playing seat {seat} against "
                                         f"{full['names'][1 - seat]}")
                            line = line["state"]
                        if line["status"] != "started":
                            self.log(f"game {game_id} ended: {line['result']} "
                                     f"({line['termination'] or 'the rules'})")
                            return
                        if line["to_move"] == seat and line["ply"] > answered:
                            answered = line["ply"]
                            self._move(game_id, full, line, player, variant)
                    return  # the server closed the stream: the game is over
                except BridgeRefused as error:
                    self.log(f"game {game_id}: {error}")
                    return
                except BridgeError as error:
                    wait = BACKOFF[min(failures, len(BACKOFF) - 1)]
                    failures += 1
                    self.log(f"{error}; following game {game_id} again in {wait} s")
                    self.stopped.wait(wait)
                except Exception as error:  # a bug or a broken engine: said, never silent
                    self.log(f"game {game_id} left: {type(error).__name__}: {error}")
                    return
        finally:
            if player is not None:
                player.close()
            self.playing.pop(game_id, None)
            self.finished += 1
            if self.games_wanted is not None and self.finished >= self.games_wanted:
                self.stop()

    def _move(self, game_id: str, full: dict, state_line: dict, player, variant) -> None:
        """Choose and send the move of the position ``state_line`` tells."""
        record = GameRecord(variant, variant.from_fen(full["start"]))
        for name in state_line["moves"]:
            record.push(record.state.parse_move(name))
        clock = state_line.get("clock")
        if clock is not None:
            left = clock["remaining"]
            player.clock = (left[0], left[1])
            mine = left[record.state.to_move]
            player.cap = max(0.05, min(mine / 2, mine / CLOCK_SHARE + 0.8 * clock["increment"]))
        try:
            move = player.remember(record.states).choose(record.state)
            self.call("POST", f"/api/bot/game/{game_id}/move/"
                              f"{record.state.move_name(move)}?ply={state_line['ply']}")
        except BridgeError:
            raise  # not sent: the game is followed again and the move chosen again
        except MancalabError as error:  # a refusal: said, and the stream goes on
            self.log(f"game {game_id}: {error}")

    # ----- challenging ------------------------------------------------------------------
    def challenge(self, name: str, game: str, options: dict, clock: tuple[float, float] | None,
                  rated: bool, color: str = "random") -> str:
        """Challenge the player ``name``: the challenge's id (its game starts when accepted,
        and the event stream then says so)."""
        body = {"game": game, "options": options, "rated": rated, "color": color}
        if clock is not None:
            body["clock"] = {"base": clock[0], "increment": clock[1]}
        return self.call("POST", f"/api/challenge/{name}", body)["id"]


def upgrade(server: str, token: str) -> str:
    """Make the token's account a BOT (before its first game; for ever): its name."""
    return Bridge(server, token, "random").call("POST", "/api/bot/account/upgrade")["name"]
