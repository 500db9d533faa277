"""The web server: the page, a JSON API for everything it does, and websockets for live games.

``create_app(db_path)`` builds the FastAPI application; ``mancalab serve`` runs it on uvicorn.
Every change is committed to SQLite (mancalab.web.store) before it is answered; rooms are
loaded from the store on first use, so after a restart every game goes on.
"""


from __future__ import annotations

import contextlib
import functools
import threading
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.middleware.gzip import GZipMiddleware
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import cookie_parser
from starlette.routing import Match

from ..analysis import solving
from ..analysis.solving.preparation import Step
from ..core import MancalabError, MancalabFailure
from .accounts import ClientGone
from .clients import CLASS_ADDRESSES
from .deps import Rates, TooManyRequests
from .errors import said
from .store import Store
from .thinking import READY, Limits, warm_up
from .guard import RequestGuard
from .hub import Hub
from .routes import (accounts, advice, arenas, bots, catalogue, classes, games,
                     learning, live, lobby)
from .sessions import COOKIE
from .schemas import ERRORS

STATIC = Path(__file__).parent / "static"


SOLVER_TABLE_MEMORY = 256 << 20  # bytes


def create_app(db_path: str | Path, limits: Limits | None = None,
               on_warm_up=None, prepare: list[Step] | None = None) -> FastAPI:
    """The server's application, its games kept in the SQLite file ``db_path``; the rules
    and searches not compiled yet are compiled in the background once it starts
    (``on_warm_up(done, total, what)`` told as it goes), and what exact play needs
    (``prepare``: ``analysis.solving.preparation.steps()``) is built in a background process."""
    limits = limits or Limits()
    limits.check()
    # the analysis and the perfect player share one solver table a game's rules: a server
    # keeps it small (its searches are capped at seconds anyway), while it runs
    solvers = solving.kalah.Budget(table=min(SOLVER_TABLE_MEMORY, limits.solver_memory),
                                   kept=limits.solver_memory)
    hub = Hub(Store(db_path), limits)
    # a server runs the app once; tests run it once for each client at the same time, each
    # on an event loop of its own: the last to stop closes what they share (a store closed
    # under another loop's running statement crashes Python's sqlite3)
    running = 0

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        nonlocal running
        with solving.kalah.budget(solvers):  # the solvers' memory while the server runs
            hub.store.open()
            running += 1
            sweepers = await hub.start()
            if not READY.is_set():
                threading.Thread(target=warm_up, args=(on_warm_up,), name="mancalab-warm-up",
                                 daemon=True).start()
            if prepare:
                hub.computer.prepare(prepare)
            yield
            for sweeper in sweepers:
                sweeper.cancel()
            running -= 1
            if running:
                return
            hub.stop()
            hub.thinker.close()
            hub.store.close()

    # FastAPIOffline serves the /docs page's scripts from the package: it works offline
    app = FastAPIOffline(title="mancalab", lifespan=lifespan, responses=ERRORS,
                         description="Play mancala games: create a game, get its state, play "
                                     "moves, ask the computer. Live updates: the websocket "
                                     "/api/games/{id}/ws?token=...")
    app.state.hub = hub  # the routes get it, its limits and the rates by ``deps``
    app.state.solvers = solvers  # the solvers' budget while it runs (its lifespan)
    # the request rates, counted per site where its processes share a Redis server
    # (per client: an address, or a class's pupil, whose school shares one address)
    app.state.rates = Rates(limits)
    # text goes compressed to a browser that takes it (a school's slow link: the page's
    # scripts, texts and the API's answers shrink to about a quarter)
    app.add_middleware(GZipMiddleware, minimum_size=1024, compresslevel=6)
    app.add_middleware(RequestGuard, limit=limits.body_bytes,  # the outermost: first to read
                       identify=functools.partial(_client_of, hub))

    async def answer(request: Request, error: MancalabError | MancalabFailure) -> JSONResponse:
        """Bad input (a 4xx) or a failure (a 5xx, 429), each error's own ``status``, with
        the code the page says it by where it has one (``errors.said``)."""
        return JSONResponse(said(error), status_code=error.status)

    app.add_exception_handler(MancalabError, answer)
    app.add_exception_handler(MancalabFailure, answer)

    @app.exception_handler(TooManyRequests)
    async def too_many(request: Request, error: TooManyRequests) -> JSONResponse:
        return JSONResponse({"detail": f"too many requests: at most {error.rate}; try "
                                       "again later", "code": "too_many", "values": {}},
                            status_code=429, headers={"Retry-After": str(error.retry_after)})

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

    @app.exception_handler(ClientGone)
    async def gone(request: Request, error: ClientGone) -> JSONResponse:
        return JSONResponse({"detail": "the client left"}, status_code=499)  # read by nobody

    @app.exception_handler(RecursionError)
    async def too_deep(request: Request, error: RecursionError) -> JSONResponse:
        return JSONResponse({"detail": "the request is nested too deeply"}, status_code=400)

    for area in (catalogue, games, advice, learning, live, accounts, lobby, arenas, bots,
                 classes):
        app.include_router(area.router)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app



def _client_of(hub: Hub, scope, address: str | None) -> str | None:
    """Who a request is for the per-client limits: a class's pupil by their account (their
    school's address counted as its pupils: ``clients.ClassAddresses``), else its address."""
    for name, value in scope.get("headers", ()):
        if name == b"cookie" and COOKIE.encode() in value:
            token = cookie_parser(value.decode("latin-1")).get(COOKIE)
            pupil = hub.classes.pupil_of_session(token) if token and len(token) <= 100 \
                else None
            if pupil is not None:
                CLASS_ADDRESSES.seen(address, pupil)
                return f"pupil {pupil}"
    return address


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

