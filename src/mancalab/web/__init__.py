"""Play in the browser: ``mancalab serve`` (a FastAPI app, games kept in SQLite)."""

from __future__ import annotations

import os
from pathlib import Path

from .app import create_app


def default_db_path() -> Path:
    """The games file in the user's data folder ($XDG_DATA_HOME or ~/.local/share)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "mancalab" / "games.sqlite3"


__all__ = ["create_app", "default_db_path"]
