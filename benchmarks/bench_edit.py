"""What an edit recompiles: seconds of the warm-up the suite runs before its first test.

    python benchmarks/bench_edit.py [--game kalah] [--jobs 2]

A copy of the package with a kernel cache of its own: the warm-up on the empty cache (every
game's rules and computer players), then again after each edit (a comment appended):

1. to the game's rules module (``variants/<game>.py``, the file that sets ``GAME_ID``);
2. to the game's descriptor (the file of its ``Variant`` class: texts, levels, options),
   where that is a file of its own;
3. to a shared kernel module (``search.py``): every game's searches.

Each row: the warm-up's seconds and the compiled functions it wrote. The suite's own warm-up
(``tests/conftest.py``) is this one, so the seconds are those before a test starts.
"""

from __future__ import annotations

import argparse
import inspect
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _report import report

import mancalab
from mancalab import _cache
from mancalab.variants import VARIANTS


def warm(copy: Path, cache: Path, jobs: int) -> tuple[float, int, int]:
    """The warm-up's seconds in a fresh process, the compiled files it wrote, and those
    in the cache after it (an edit's stale entries are forgotten: it should not grow)."""
    started = time.time()
    subprocess.run([sys.executable, "-c",
                    f"from mancalab._cache import warm_up; warm_up(jobs={jobs})"],
                   env={**os.environ, "PYTHONPATH": str(copy), "NUMBA_CACHE_DIR": str(cache)},
                   check=True)
    seconds = time.time() - started
    files = list(cache.rglob("*.nbc"))
    written = sum(1 for path in files if path.stat().st_mtime >= started)
    return seconds, written, len(files)


def edit(path: Path) -> None:
    with path.open("a") as handle:
        handle.write("# an edit\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="kalah", choices=mancalab.variants())
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    cls = VARIANTS[args.game]
    rules = _cache.game_sources()[cls.game_id].relative_to(_cache.PACKAGE)
    descriptor = Path(inspect.getfile(cls)).resolve().relative_to(_cache.PACKAGE)
    with tempfile.TemporaryDirectory() as folder:
        copy, cache = Path(folder) / "src", Path(folder) / "numba"
        shutil.copytree(_cache.PACKAGE, copy / "mancalab",
                        ignore=shutil.ignore_patterns("__pycache__"))
        steps = [("empty cache", None), (f"{rules} (the rules)", rules)]
        if descriptor != rules:
            steps.append((f"{descriptor} (texts, levels)", descriptor))
        steps.append(("search.py (shared)", Path("search.py")))
        rows = []
        for what, path in steps:
            if path is not None:
                edit(copy / "mancalab" / path)
            seconds, written, kept = warm(copy, cache, args.jobs)
            rows.append({"edit": what, "seconds": round(seconds, 1), "compiled": written,
                         "files in the cache": kept})
    report(f"bench_edit: the warm-up after an edit ({args.game}, {args.jobs} jobs)", rows,
           ["edit", "seconds", "compiled", "files in the cache"])


if __name__ == "__main__":
    main()
