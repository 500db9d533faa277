"""Play in the browser: ``mancalab serve`` (a FastAPI app, games kept in SQLite)."""

from __future__ import annotations

import os
from pathlib import Path


def default_db_path() -> Path:
    """The games file in the user's data folder ($XDG_DATA_HOME or ~/.local/share)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "mancalab" / "games.sqlite3"


def __getattr__(name: str):
    # FastAPI and its friends load only when the app is asked for, not with every command
    # that reads the server's limits (mancalab.web.thinking): 0.4 s of start-up saved
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["create_app", "default_db_path"]
