"""The API's request bodies: strict types (no float or bool for a number), bounded sizes,
and the errors every route may answer with."""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictInt,
                      StrictStr, StringConstraints)

from ..core import LARGEST
from ..records import NAME_LENGTH
from ..variants import VARIANTS
from .rooms import MODES
from .thinking import OPERATOR_ONLY, names_a_program


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
    (401, "no session, or a wrong name or password"),
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
    clock: Clock | None = Field(None, description="a clock (null: none); against the "
                                                  "computer it thinks within its increment")


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




Password = Annotated[StrictStr, StringConstraints(max_length=200)]


class Credentials(Body):
    name: Text = Field(description="the account's name")
    password: Password = Field(description="8 to 200 characters")


class PasswordChange(Body):
    old: Password
    new: Password


class Confirmation(Body):
    password: Password = Field(description="the account's password, to confirm")


class Clock(Body):
    base: Annotated[StrictInt, Field(ge=1, le=30 * 24 * 3600)] = Field(
        description="seconds each player has at the start")
    increment: Annotated[StrictInt, Field(ge=0, le=24 * 3600)] = Field(
        0, description="seconds added after each move")
    per_move: StrictBool = Field(False, description="correspondence: base is the time for "
                                                    "each move (e.g. 86400: a day a move)")


class NewSeek(Body):
    game: Literal[GAMES] = Field(description="the game")
    options: Annotated[dict[Short, OptionValue], Field(max_length=16)] = Field(
        default_factory=dict, description="the game's options")
    clock: Clock | None = Field(None, description="a Fischer clock (null: none); the "
                                                  "first move is not timed")
    rated: StrictBool = Field(False, description="the result changes both players' ratings "
                                                 "(both need an account)")
    color: Literal["first", "second", "random"] = Field(
        "random", description="the seeker's seat: first (A, moves first), second or random")
    to: Short | None = Field(None, description="a challenge: the account it is for (only "
                                               "that player sees it and may take it)")


class NewToken(Body):
    label: Annotated[StrictStr, StringConstraints(max_length=60)] = Field(
        "token", description="what the token is for (shown on the account page)")
    scopes: Annotated[list[Literal["bot:play", "challenge:read", "challenge:write"]],
                      Field(min_length=1, max_length=3)] = Field(
        default_factory=lambda: ["bot:play", "challenge:read", "challenge:write"],
        description="what the token may do: bot:play (play as a BOT), challenge:read, "
                    "challenge:write")


class Decline(Body):
    reason: Literal["generic", "later", "clock", "rated", "casual", "game"] = Field(
        "generic", description="why: not now, later, another clock, rated, casual, another "
                               "game")


class NewArena(Body):
    game: Literal[GAMES] = Field(description="the game")
    options: Annotated[dict[Short, OptionValue], Field(max_length=16)] = Field(
        default_factory=dict, description="the game's options")
    clock: Clock = Field(description="the clock of every game")
    seconds: Annotated[StrictInt, Field(ge=1, le=3 * 3600)] = Field(
        3600, description="how long players are paired (at most 3 hours)")
    rated: StrictBool = Field(True, description="the games change the players' ratings")
    bots: StrictBool = Field(False, description="BOT accounts may join (a people's arena "
                                                "admits none)")


PupilName = Annotated[StrictStr, StringConstraints(min_length=1, max_length=40,
                                                   strip_whitespace=True)]


class NewClass(Body):
    name: Annotated[StrictStr, StringConstraints(min_length=1, max_length=60,
                                                 strip_whitespace=True)] = Field(
        description="the class's name, as the teacher calls it")
    games: Annotated[list[Literal[GAMES]], Field(min_length=1, max_length=len(GAMES))] = Field(
        description="the games the class plays")
    language: Literal["en", "fr", "rn", "am"] = Field("en", description="the pupils' language")
    size: Annotated[StrictInt, Field(ge=1, le=100)] = Field(
        40, description="pupils at most (a full class refuses more)")


class JoinClass(Body):
    code: Annotated[StrictStr, StringConstraints(max_length=20)] = Field(
        description="the class's join code, as ABCD-EFGH (case and dash do not matter)")
    name: PupilName = Field(description="the pupil's name (the teacher alone sees it)")


class PupilLogIn(JoinClass):
    pictures: Annotated[list[Annotated[StrictStr, StringConstraints(max_length=20)]],
                        Field(min_length=2, max_length=2)] = Field(
        description="the pupil's two pictures, in order")


class PupilNames(Body):
    names: Annotated[list[PupilName], Field(min_length=1, max_length=100)] = Field(
        description="the pupils to make, by name (their cards to print come back)")


class PupilRename(Body):
    name: PupilName


class NewAssignment(Body):
    kind: Literal["puzzles", "exercises", "lesson", "worksheet"] = Field(
        description="what is to be done")
    game: Literal[GAMES]
    count: Annotated[StrictInt, Field(ge=1, le=100)] = Field(
        10, description="puzzles solved, exercises right, lesson steps or worksheet questions")
    theme: Literal["capture", "family", "again", "endgame", "wipeout"] | None = Field(
        None, description="puzzles: of this theme only")
    rating: Annotated[StrictInt, Field(ge=0, le=4000)] | None = Field(
        None, description="puzzles: near this rating")
    exercise: Annotated[StrictStr, StringConstraints(max_length=20)] | None = Field(
        None, description="exercises: of this kind only")
    due: Annotated[float, Field(ge=0, le=4e9)] | None = Field(
        None, description="when it is due (seconds since 1970), or none")


class NewTournament(Body):
    kind: Literal["round-robin", "swiss", "arena"] = Field(
        "round-robin", description="round-robin (every pupil meets every other once), swiss "
                                   "(``rounds`` rounds, each paired by points) or arena "
                                   "(paired again as soon as a game ends, for ``seconds``)")
    rounds: Annotated[StrictInt, Field(ge=1, le=20)] | None = Field(
        None, description="a Swiss system's rounds (default: enough to find a winner)")
    seconds: Annotated[StrictInt, Field(ge=60, le=3 * 3600)] = Field(
        1800, description="how long an arena pairs its players")
    game: Literal[GAMES]
    options: Annotated[dict[Short, OptionValue], Field(max_length=16)] = Field(
        default_factory=dict, description="the game's options")
    clock: Clock = Field(description="each game's clock")
    pupils: Annotated[list[Annotated[StrictStr, StringConstraints(max_length=40)]],
                      Field(min_length=2, max_length=40)] = Field(
        description="the pupils who play (their accounts, as the class lists them)")


class NewRound(Body):
    absent: Annotated[list[Annotated[StrictStr, StringConstraints(max_length=40)]],
                      Field(max_length=40)] = Field(
        default_factory=list, description="pupils not here: their pairings are skipped")
