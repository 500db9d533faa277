"""The database files both families write (Kalah's endgame databases, the retrograde
databases and books of Gebeta and Gabata): where they live, a JSON header line then the
entries, written whole or not at all, and the listing of what is built.

Files live under ``$XDG_CACHE_HOME/mancalab/databases`` (or a folder given): they are written
to a temporary file, then renamed; a header that does not match the game, or entries whose
checksum does not match, are refused by the family's ``load``."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

import numpy as np

from ...core import MancalabError

Opened = TypeVar("Opened")


class DatabaseError(MancalabError):
    """A database that cannot be built, read or trusted (the message says why)."""


def default_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "mancalab" / "databases"


def write_whole(path: Path, header: dict, arrays: list[np.ndarray], align: int = 1) -> None:
    """A JSON header line, then ``arrays``' bytes: written whole or not at all (a temporary
    file, then a rename). The header line is padded with spaces so that the arrays start at a
    multiple of ``align`` bytes (where they are mapped as wider integers)."""
    line = json.dumps(header)
    line += " " * (-(len(line) + 1) % align) + "\n"  # json.dumps writes ASCII only
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DatabaseError(f"cannot write {path}: {error.strerror or error}") from None
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as handle:
            handle.write(line.encode())
            for array in arrays:
                handle.write(array.tobytes())
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise DatabaseError(f"cannot write {path}: {error.strerror or error}") from None


def read_header(path: Path, form: str) -> tuple[dict, int]:
    """The JSON header of a database file of format ``form`` and where its entries start."""
    try:
        with open(path, "rb") as handle:
            line = handle.readline(4096)
            header = json.loads(line)
    except (OSError, ValueError) as error:
        raise DatabaseError(f"{path} is not a mancalab database: {error}") from None
    if not isinstance(header, dict) or header.get("format") != form:
        raise DatabaseError(f"{path} is not a mancalab database (no {form} header)")
    return header, len(line)


def listing(folder: str | Path | None = None) -> list[dict]:
    """What is built in ``folder``: one dict per database file (bad files say so)."""
    folder = Path(folder) if folder else default_dir()
    found = []
    for path in sorted(folder.glob("*.db")) if folder.is_dir() else []:
        try:
            with open(path, "rb") as handle:
                header = json.loads(handle.readline(4096))
            found.append({"file": str(path), "game": header.get("game", "kalah"),
                          "kind": header.get("kind", "database"),
                          "rules": header["rules"], "seeds": header["seeds"],
                          "entries": header["entries"], "bytes": path.stat().st_size})
        except (OSError, ValueError, KeyError, TypeError):
            found.append({"file": str(path), "error": "not a mancalab database"})
    return found


def largest(paths: Iterable[Path], load: Callable[[Path], Opened]) -> Opened | None:
    """The first of ``paths`` (the largest database first) that exists, opened by ``load``."""
    for path in paths:
        if path.exists():
            return load(path)
    return None
