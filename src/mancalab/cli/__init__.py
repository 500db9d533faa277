"""The ``mancalab`` command, one module per group of commands: play, teach, analysis,
compete, db, serve, online (``common``: the app, the console, the one error handler, shared options).

Bad input (an unknown game, option or player, a malformed record) prints one clear line and
exits with status 2; nothing is written.
"""

from __future__ import annotations

import gc
import sys

# the modules add their commands, in the order the help lists them
from . import play, teach, analysis, compete, db, serve, online  # noqa: F401, I001
from .common import app


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
    finally:
        # The interpreter's last garbage collection walks every object numba made (0.4 s
        # after a compile); a command's own files are closed by then, so it is skipped.
        gc.freeze()


__all__ = ["app", "main"]
