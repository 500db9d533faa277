"""The API's routes by area, each a module-level router whose routes get the app's hub,
limits and rates through FastAPI's ``Depends`` (``mancalab.web.deps``): ``catalogue`` (the
games, examples, the page), ``games`` (making and playing games), ``advice`` (hints,
analysis, reviews), ``learning`` (puzzles, lessons), ``live`` (the websocket), ``accounts``
(accounts, sessions, profiles, ratings), ``lobby`` (seeks), ``arenas``, ``bots`` (API tokens,
the Bot API, challenges by token) and ``classes``."""
