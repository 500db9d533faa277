"""Shared output of the benchmark scripts: the machine, a table, and one JSON line."""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table


def machine() -> dict:
    cpu = platform.processor() or "unknown cpu"
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory_gb = None
    try:
        memory_gb = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gb": memory_gb,
            "python": platform.python_version(), "system": platform.platform()}


RESULTS = Path(__file__).parent / "results"


def report(title: str, rows: list[dict], columns: list[str]) -> None:
    """Print the machine, the rows as a table, then ``JSON: {...}`` on one line, and append
    that line (with the time, the command and the commit) to ``results/SCRIPT.jsonl``: the
    history of runs is data, the README holds the current figures."""
    console = Console(highlight=False)
    info = machine()
    console.print(f"[bold]{title}[/]  on {info['cpu']}, {info['cores']} cores, "
                  f"{info['memory_gb']} GB, Python {info['python']}")
    table = Table()
    for column in columns:
        table.add_column(column, justify="right" if column != columns[0] else "left")
    for row in rows:
        table.add_row(*(f"{row[c]:,.0f}" if isinstance(row[c], float) and row[c] >= 100
                        else f"{row[c]:,.3g}" if isinstance(row[c], float)
                        else f"{row[c]:,}" if isinstance(row[c], int) else str(row[c])
                        for c in columns))
    console.print(table)
    record = {"benchmark": title, "machine": info, "results": rows}
    print("JSON: " + json.dumps(record))
    _keep({"when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "command": " ".join(sys.argv), "commit": _commit(), **record})


def _commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, cwd=Path(__file__).parent, timeout=10).stdout.strip() \
            or None
    except (OSError, subprocess.SubprocessError):
        return None


def _keep(record: dict) -> None:
    """Append ``record`` to the script's results file (nothing where it cannot be written)."""
    script = Path(sys.argv[0]).stem or "benchmark"
    try:
        RESULTS.mkdir(exist_ok=True)
        with open(RESULTS / f"{script}.jsonl", "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
    except OSError:
        pass


def rows_done(results) -> dict:
    """The rows of a resumable results file (JSON lines), by their ``run``."""
    found = {}
    if results and results.exists():
        for line in results.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                found[row["run"]] = row
    return found


def keep_row(results, row: dict) -> None:
    """Print ``row`` and append it to the results file (if any) at once."""
    print(json.dumps(row), flush=True)
    if results:
        with open(results, "a") as handle:
            handle.write(json.dumps(row) + "\n")


def results_flags(parser, saved) -> None:
    """``--saved`` (read the committed run in ``saved``, played before) and ``--out DIR`` (the
    results files of a fresh run: a stopped run goes on from them)."""
    parser.add_argument("--saved", action="store_true",
                        help=f"print the figures of the committed run in {saved} instead of "
                             "playing the games again")
    parser.add_argument("--out", type=Path, default=None,
                        help="keep the fresh run's results files here (default: a new "
                             "temporary folder); a stopped run goes on from them")


def results_folder(args, saved) -> Path:
    """Where the games are read and written, said on the first line of the output: the
    committed run (``--saved``: nothing is played), or a fresh run's folder."""
    import tempfile

    if args.saved:
        if not Path(saved).is_dir():
            raise SystemExit(f"no saved run in {saved} (run the script from the repository's "
                             "root)")
        print(f"Figures from the saved run in {saved} (nothing is played; without --saved "
              "every game is played again)", flush=True)
        return Path(saved)
    folder = args.out or Path(tempfile.mkdtemp(prefix="mancalab-results-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"Playing every game afresh; results in {folder} (--saved prints the committed "
          f"run in {saved})", flush=True)
    return folder
