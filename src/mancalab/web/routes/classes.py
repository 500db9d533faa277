"""Classes: a teacher's classes, pupils joining by code, assignments and progress."""

from __future__ import annotations

import asyncio
import csv
import io
import math
import time
from typing import Literal

from fastapi import APIRouter, Request, Response
from fastapi.responses import PlainTextResponse

from ..arenas import Arena
from ..clients import CLASS_ADDRESSES, Allowance, scope_client
from ..classes import Classes
from ..deps import (ArenasDep, ClassesDep, ForgetDep, GamesDep, LimitsDep, PairingDep,
                    StoreDep, TeacherDep, TournamentsDep, ViewerDep)
from ..thinking import Limits
from ..errors import BusyError, NotAllowedError, NotFoundError
from ..store import Store
from ..rooms import Room
from ..schemas import (JoinClass, NewAssignment, NewClass, NewRound, NewTournament, PupilLogIn,
                       PupilNames, PupilRename)
from ..sessions import set_cookie

WRONG_CODES = (20, 60.0)  # wrong join codes or pictures an address may send, a minute
EXACT_SECONDS = 1.0  # the solver's time on a stuck tournament game


router = APIRouter()


def wrong_tries(request: Request) -> Allowance:
    """The app's wrong join codes or pictures, by address: guessing them is hopeless."""
    state = request.app.state
    if getattr(state, "wrong_tries", None) is None:
        state.wrong_tries = Allowance(*WRONG_CODES)
    return state.wrong_tries


def check_tries(request: Request) -> str | None:
    address = scope_client(request.scope)
    if wrong_tries(request).wait(address, 1):
        raise BusyError("too many wrong codes or pictures from your address: wait a "
                        "minute", code="too_many_tries")
    return address


def tournament_view(classes: Classes, store: Store, class_id: str, found) -> dict:
    names = {p["pupil"]: p["real_name"] for p in classes.pupils(class_id)}
    results = store.results(list(found.games.values()))
    return {**found.view(results, names), "link": f"/?tournament={found.id}",
            "class_id": class_id}


def pupil_in(request: Request, response: Response, pupil: str, session: str) -> None:
    set_cookie(request, response, session)
    CLASS_ADDRESSES.seen(scope_client(request.scope), pupil)


@router.post("/api/classes", status_code=201, summary="Make a class (the account becomes "
                                                      "its teacher): its id and join code")
async def make(teacher: TeacherDep, classes: ClassesDep, body: NewClass) -> dict:
    return classes.create(teacher, body.name, list(dict.fromkeys(body.games)), body.language,
                          body.size)


@router.get("/api/classes", summary="The logged-in teacher's classes")
async def mine(teacher: TeacherDep, classes: ClassesDep) -> dict:
    return {"classes": classes.classes_of(teacher)}


@router.post("/api/classes/join", status_code=201,
             summary="Join a class with its code and a name: the pupil's session cookie, "
                     "and the two pictures to log in with again")
async def join(classes: ClassesDep, request: Request, response: Response, body: JoinClass) -> dict:
    address = check_tries(request)
    try:
        made, klass = classes.join(body.code, body.name)
    except Exception as error:
        if getattr(error, "code", None) == "wrong_class_code":
            wrong_tries(request).take(address, 1)
        raise
    pupil_in(request, response, made["pupil"], made.pop("session"))
    return {**made, "class": _pupils_view(klass)}


@router.post("/api/classes/login", summary="A pupil logs in again: the class code, their "
                                           "name and their two pictures")
async def pupil_log_in(classes: ClassesDep, request: Request, response: Response,
                       body: PupilLogIn) -> dict:
    address = check_tries(request)
    try:
        name, session = classes.log_in(body.code, body.name, body.pictures)
    except Exception:
        wrong_tries(request).take(address, 1)
        raise
    pupil_in(request, response, name, session)
    return {"pupil": name}


@router.get("/api/classes/{class_id}", summary="A class as its teacher sees it: pupils "
                                               "(real names), assignments")
async def one(teacher: TeacherDep, classes: ClassesDep, store: StoreDep,
              tournaments: TournamentsDep, arenas: ArenasDep, limits: LimitsDep,
              request: Request, class_id: str) -> dict:
    klass = classes.of_teacher(class_id, teacher)
    pupils = classes.pupils(class_id)
    return {**klass, "pupils": pupils, "assignments": classes.assignments(class_id),
            "tournaments": [tournament_view(classes, store, class_id, found)
                            for found in tournaments.of_class(class_id)],
            "arenas": [arena.view() for arena in arenas.all()
                       if arena.class_id == class_id],
            "address_pupils": CLASS_ADDRESSES.count(scope_client(request.scope)),
            "limits": _class_limits(limits, klass["size"])}


@router.delete("/api/classes/{class_id}", summary="Delete a class and its pupils' "
                                                  "accounts and personal data")
async def delete(teacher: TeacherDep, classes: ClassesDep, forget: ForgetDep,
                 class_id: str) -> dict:
    classes.of_teacher(class_id, teacher)
    for pupil in classes.pupils(class_id):  # their games going on resigned first
        await forget(pupil["pupil"])
    classes.delete(class_id)
    return {"deleted": class_id}


@router.post("/api/classes/{class_id}/pupils", status_code=201,
             summary="Make pupils by name: their cards (name, pupil account, pictures)")
async def add_pupils(teacher: TeacherDep, classes: ClassesDep, class_id: str,
                     body: PupilNames) -> dict:
    classes.of_teacher(class_id, teacher)
    cards = []
    for real_name in dict.fromkeys(body.names):
        made = classes.add_pupil(class_id, real_name)
        made.pop("session")
        cards.append(made)
    return {"cards": cards}


@router.post("/api/classes/{class_id}/pupils/{pupil}/reset",
             summary="New pictures for a pupil (unlocked; logged out everywhere)")
async def reset(teacher: TeacherDep, classes: ClassesDep, class_id: str, pupil: str) -> dict:
    classes.of_teacher(class_id, teacher)
    return {"pupil": pupil, "pictures": classes.reset(class_id, pupil)}


@router.post("/api/classes/{class_id}/pupils/{pupil}/rename", summary="Rename a pupil")
async def rename(teacher: TeacherDep, classes: ClassesDep, class_id: str, pupil: str,
                 body: PupilRename) -> dict:
    classes.of_teacher(class_id, teacher)
    classes.rename(class_id, pupil, body.name)
    return {"pupil": pupil, "real_name": body.name}


@router.delete("/api/classes/{class_id}/pupils/{pupil}",
               summary="Remove a pupil: their account and personal data go")
async def remove(teacher: TeacherDep, classes: ClassesDep, forget: ForgetDep, class_id: str,
                 pupil: str) -> dict:
    classes.of_teacher(class_id, teacher)
    classes.check_pupil(class_id, pupil)
    await forget(pupil)  # games going on resigned; games with others stay
    return {"removed": pupil}


@router.post("/api/classes/{class_id}/assignments", status_code=201,
             summary="Assign puzzles, exercises, a lesson or a worksheet")
async def assign(teacher: TeacherDep, classes: ClassesDep, class_id: str,
                 body: NewAssignment) -> dict:
    klass = classes.of_teacher(class_id, teacher)
    if body.game not in klass["games"]:
        raise NotAllowedError(f"the class does not play {body.game}",
                              code="not_class_game", game=body.game)
    return classes.assign(class_id, body.model_dump())


@router.delete("/api/classes/{class_id}/assignments/{assignment_id}",
               summary="Take an assignment back")
async def unassign(teacher: TeacherDep, classes: ClassesDep, class_id: str,
                   assignment_id: str) -> dict:
    classes.of_teacher(class_id, teacher)
    classes.unassign(class_id, assignment_id)
    return {"removed": assignment_id}


@router.get("/api/classes/{class_id}/progress",
            summary="Each pupil's progress (one row a pupil); format=csv to download")
async def progress(teacher: TeacherDep, classes: ClassesDep, store: StoreDep, class_id: str,
                   format: Literal["json", "csv"] = "json"):
    klass = classes.of_teacher(class_id, teacher)
    rows = classes.progress(class_id, store.results_of)
    if format == "csv":
        return PlainTextResponse(_csv(rows, classes.assignments(class_id)),
                                 media_type="text/csv", headers={
                                     "Content-Disposition":
                                         f'attachment; filename="{class_id}-progress.csv"'})
    return {"class": klass["name"], "pupils": rows,
            "assignments": classes.assignments(class_id),
            "weeks": classes.weekly(class_id)}


# ----- tournaments -----------------------------------------------------------------


@router.post("/api/classes/{class_id}/tournaments", status_code=201,
             summary="Open a tournament of the class's pupils (the teacher does not "
                     "play): its id and its private link")
async def open_tournament(teacher: TeacherDep, classes: ClassesDep, store: StoreDep,
                          tournaments: TournamentsDep, arenas: ArenasDep, class_id: str,
                          body: NewTournament) -> dict:
    klass = classes.of_teacher(class_id, teacher)
    if body.game not in klass["games"]:
        raise NotAllowedError(f"the class does not play {body.game}",
                              code="not_class_game", game=body.game)
    pupils = list(dict.fromkeys(body.pupils))
    for pupil in pupils:
        classes.check_pupil(class_id, pupil)
    if len(pupils) < 2:
        raise NotAllowedError("a tournament needs two pupils at least",
                              code="too_few_pupils")
    room = Room.create(body.game, body.options, "online")  # the game and options checked
    clock = [body.clock.base, body.clock.increment]
    if body.kind == "arena":  # the pupils join it from its page, as any arena
        arena = arenas.open(Arena("", room.game, room.options, clock, False,
                                      time.time() + body.seconds, klass["teacher"],
                                      class_id=class_id))
        return {"id": arena.id, "kind": "arena", "link": f"/?arena={arena.id}",
                "class_id": class_id}
    planned = body.rounds or max(1, math.ceil(math.log2(len(pupils)))) + 1
    made = tournaments.create(class_id, body.kind, body.game, body.options, clock,
                                  pupils, planned)
    return tournament_view(classes, store, class_id, made)


@router.get("/api/tournaments/{tournament_id}", summary="A tournament as its teacher "
                                                       "sees it (the projector page)")
async def tournament(teacher: TeacherDep, classes: ClassesDep, store: StoreDep,
                     tournaments: TournamentsDep, tournament_id: str) -> dict:
    found = tournaments.get(tournament_id)
    classes.of_teacher(found.class_id, teacher)
    return tournament_view(classes, store, found.class_id, found)


@router.post("/api/tournaments/{tournament_id}/rounds", summary="Start the next round "
                                                               "(absent pupils skipped)")
async def next_round(teacher: TeacherDep, classes: ClassesDep, store: StoreDep,
                     tournaments: TournamentsDep, pairing: PairingDep, tournament_id: str,
                     body: NewRound) -> dict:
    found = tournaments.get(tournament_id)
    classes.of_teacher(found.class_id, teacher)
    names = {p["pupil"]: p["real_name"] for p in classes.pupils(found.class_id)}
    pairing.start_round(found, set(body.absent), names)
    return tournament_view(classes, store, found.class_id, found)


@router.post("/api/tournaments/{tournament_id}/games/{game_id}/end",
             summary="End a stuck game: by its exact value where the solver proves it, "
                     "else by the score")
async def end_game(teacher: TeacherDep, classes: ClassesDep, store: StoreDep,
                   tournaments: TournamentsDep, games: GamesDep, tournament_id: str,
                   game_id: str) -> dict:
    found = tournaments.get(tournament_id)
    classes.of_teacher(found.class_id, teacher)
    if game_id not in found.games.values():
        raise NotFoundError("no such game in this tournament", code="no_game")
    room = await games.load(game_id)
    margin, exact = await asyncio.to_thread(_judged, room)
    await games.change(game_id, room.tokens[0], lambda r: r.adjudicate(store, margin, exact))
    return {**tournament_view(classes, store, found.class_id, found), "ended": game_id,
            "exact": exact}


@router.get("/api/session/class", summary="The pupil's class and what is to do")
async def my_class(classes: ClassesDep, store: StoreDep, name: ViewerDep) -> dict:
    membership = classes.pupil(name)
    if membership is None:
        return {"class": None}
    klass = _pupils_view(classes.get(membership["class_id"]))
    steps = classes.activity(name)
    todo = [{**task, **classes.done(name, task, steps)}
            for task in classes.assignments(membership["class_id"])]
    live = set(store.live_games_of(name))
    games = [{"id": game_id, "seat": seat, "token": token} for game_id, seat, token
             in store.games_of(name, count=10) if game_id in live]
    return {"class": klass, "pupil": name, "real_name": membership["real_name"],
            "todo": todo, "games": games}


def _judged(room) -> tuple[int, bool]:
    """The first seat's margin in a game to end now: exact where the solver proves it
    within ``EXACT_SECONDS`` (in a thread), else the score's."""
    from ...analysis import solving

    state = room.record.state
    if solving.unsolvable(state.variant) is None:
        result = solving.solve(state, time=EXACT_SECONDS, build=False, parallel=False)
        if result.exact:
            return (result.value if state.to_move == 0 else -result.value), True
    material = state.material
    return material[0] - material[1], False


def _pupils_view(klass: dict) -> dict:
    """What a pupil sees of the class: not its code, not its teacher's other classes."""
    return {k: klass[k] for k in ("id", "name", "games", "language")}


def _class_limits(limits: Limits, size: int) -> dict:
    """What a class behind one address may hold open, as its teacher is told."""
    return {"connections": limits.client_connections + size * CLASS_ADDRESSES.connections,
            "sockets": limits.client_sockets + size * CLASS_ADDRESSES.sockets,
            "per_pupil_rates": {"new_games": limits.create_rate, "hints": limits.hint_rate,
                                "moves": limits.move_rate}}


def _csv(rows: list[dict], tasks: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    kinds = sorted({kind for row in rows for kind in row["exercises"]})
    writer.writerow(["name", "pupil", "lessons", *(f"{k} right" for k in kinds),
                     *(f"{k} wrong" for k in kinds), "puzzles tried", "puzzles solved",
                     "puzzle rating", "games", "wins", "draws", "losses", "minutes",
                     *(f"{t['kind']} {t['game']} {t['id']}" for t in tasks)])
    for row in rows:
        ex = row["exercises"]
        writer.writerow([row["real_name"], row["pupil"], row["lessons"],
                         *(ex.get(k, {}).get("right", 0) for k in kinds),
                         *(ex.get(k, {}).get("wrong", 0) for k in kinds),
                         row["puzzles_tried"], row["puzzles_solved"], row["puzzle_rating"],
                         row["games"], row["wins"], row["draws"], row["losses"],
                         row["minutes"],
                         *(f"{row['assignments'][t['id']]['done']}/"
                           f"{row['assignments'][t['id']]['wanted']}" for t in tasks)])
    return out.getvalue()
