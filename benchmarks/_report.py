"""Shared output of the benchmark scripts: the machine, a table, and one JSON line."""

from __future__ import annotations

import json
import os
import platform

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


def report(title: str, rows: list[dict], columns: list[str]) -> None:
    """Print the machine, the rows as a table, then ``JSON: {...}`` on one line."""
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
    print("JSON: " + json.dumps({"benchmark": title, "machine": info, "results": rows}))


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
