"""Results files of long runs (fair-start screens, counter-setting studies): JSON lines, a
header naming the run, then a row per item as it is done.

While a run goes on its rows go to ``FILE.partial`` (flushed after each); a run stopped at
any moment goes on from there, and nothing is done twice. At the end the whole file is
written at once (``records.write_atomic``) and the partial one removed, so ``FILE`` is always
a finished run or absent. A file of another run (another header) is refused, not reused.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path
from typing import IO

from ...core import MancalabError
from ...records import write_atomic


class Journal:
    """The rows of one run, keyed by ``key(row)``; rows ``valid`` rejects are done again."""

    def __init__(self, path: str | Path, header: dict, key: Callable[[dict], Hashable],
                 valid: Callable[[dict], bool] = lambda row: True,
                 mismatch: str = "another run") -> None:
        self.path = Path(path)
        self.partial = self.path.with_name(self.path.name + ".partial")
        self.header, self.key, self.valid, self.mismatch = header, key, valid, mismatch
        self.rows: dict[Hashable, dict] = {**self._read(self.path), **self._read(self.partial)}
        self._handle: IO[str] | None = None

    def _read(self, path: Path) -> dict[Hashable, dict]:
        """The rows of ``path`` (a last line cut short by a stop is skipped)."""
        try:
            lines = path.read_text().splitlines() if path.exists() else []
        except (OSError, UnicodeDecodeError) as error:
            raise MancalabError(f"cannot read {path}: {error}") from None
        if not lines:
            return {}
        try:
            first = json.loads(lines[0])
        except ValueError:
            first = None
        if first != self.header:
            raise MancalabError(f"{path} holds {self.mismatch}: choose another --out")
        rows = {}
        for line in lines[1:]:
            try:
                row = json.loads(line)
                if isinstance(row, dict) and self.valid(row):
                    rows[self.key(row)] = row
            except (ValueError, KeyError, TypeError):
                continue
        return rows

    def __contains__(self, key: Hashable) -> bool:
        return key in self.rows

    def __enter__(self) -> Journal:
        # the kept rows first, so the partial file alone is enough; written whole, so a stop
        # now loses nothing
        _write_whole(self.partial, [self.header, *self.rows.values()])
        try:
            self._handle = open(self.partial, "a")
        except OSError as error:
            raise MancalabError(f"cannot write {self.partial}: {error.strerror or error}") \
                from None
        return self

    def add(self, row: dict) -> None:
        self.rows[self.key(row)] = row
        self._handle.write(json.dumps(row) + "\n")
        self._handle.flush()

    def __exit__(self, *exc) -> None:
        os.fsync(self._handle.fileno())
        self._handle.close()

    def finish(self, order: Iterable[Hashable]) -> list[dict]:
        """Write the whole file, rows in ``order`` (those done), and drop the partial one."""
        rows = [self.rows[k] for k in order if k in self.rows]
        _write_whole(self.path, [self.header, *rows])
        self.partial.unlink(missing_ok=True)
        return rows


def _write_whole(path: Path, rows: list[dict]) -> None:
    write_lines(path, [json.dumps(row) for row in rows])


def write_lines(path: str | Path, lines: list[str]) -> None:
    """Write ``lines`` whole or not at all, making the folder; MancalabError if it cannot."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, "".join(line + "\n" for line in lines))
    except OSError as error:
        raise MancalabError(f"cannot write {path}: {error.strerror or error}") from None
